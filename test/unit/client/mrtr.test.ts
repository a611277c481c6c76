import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { McpClient } from '../../../src/client/mcpClient.js';
import type { JsonRpcRequest } from '../../../src/jsonrpc/messages.js';
import { McpError } from '../../../src/util/errors.js';
import { CLIENT_INFO, connectEverything, initializeResult, scriptedPeer } from './support.js';

const DISCOVER_OK = { resultType: 'complete', supportedVersions: ['2026-07-28'], capabilities: { tools: {}, prompts: {}, resources: {} }, ttlMs: 0, cacheScope: 'public' };
const CONFIRM = { method: 'elicitation/create', params: { message: 'Confirm?', requestedSchema: { type: 'object', properties: { confirmed: { type: 'boolean' } } } } };
// Deliberately awkward: unicode, escapes, a line separator, base64 padding.
const STATE_1 = 'eyJzIjoxfQ==.\u2028 "quoted" \\slash é🙂';
const STATE_2 = ' leading and trailing ';

function stripMeta(params: Record<string, unknown> | undefined): Record<string, unknown> {
  const { _meta: _m, ...rest } = params ?? {};
  return rest;
}

async function modernPeer(tool: (request: JsonRpcRequest, round: number) => Record<string, unknown>) {
  const rounds = new Map<string, number>();
  return scriptedPeer((request) => {
    if (request.method === 'server/discover') return DISCOVER_OK;
    const name = String(request.params?.['name'] ?? request.params?.['uri'] ?? request.method);
    const round = (rounds.get(name) ?? 0) + 1;
    rounds.set(name, round);
    return tool(request, round);
  });
}

const accept = { elicitation: () => ({ action: 'accept' as const, content: { confirmed: true } }) };

describe('McpClient MRTR', () => {
  it('retries with a new id, inputResponses keyed as asked and requestState echoed byte for byte', async () => {
    const { transport } = await modernPeer((request, round) => {
      if (request.params?.['name'] === 'other') return { resultType: 'complete', content: [] };
      if (round === 1) return { resultType: 'input_required', inputRequests: { confirm: CONFIRM }, requestState: STATE_1 };
      if (round === 2) return { resultType: 'input_required', requestState: STATE_2 };
      if (round === 3) return { resultType: 'input_required', inputRequests: { again: CONFIRM } };
      return { resultType: 'complete', content: [{ type: 'text', text: 'done' }] };
    });
    const client = new McpClient(CLIENT_INFO, { handlers: accept });
    await client.connect(transport);
    const [result] = await Promise.all([client.callTool('multi', { a: 1 }), client.callTool('other', {})]);
    assert.deepEqual(result.content, [{ type: 'text', text: 'done' }]);
    const calls = transport.requests('tools/call').filter((r) => r.params?.['name'] === 'multi');
    assert.equal(calls.length, 4);
    assert.equal(new Set(calls.map((c) => c.id)).size, 4);
    assert.deepEqual(stripMeta(calls[0]?.params), { name: 'multi', arguments: { a: 1 } });
    assert.deepEqual(stripMeta(calls[1]?.params), {
      name: 'multi',
      arguments: { a: 1 },
      inputResponses: { confirm: { action: 'accept', content: { confirmed: true } } },
      requestState: STATE_1,
    });
    assert.equal(calls[1]?.params?.['requestState'], STATE_1);
    assert.deepEqual(stripMeta(calls[2]?.params), { name: 'multi', arguments: { a: 1 }, requestState: STATE_2 });
    // No requestState given in round 3: none sent; only the newest answers.
    assert.deepEqual(stripMeta(calls[3]?.params), { name: 'multi', arguments: { a: 1 }, inputResponses: { again: { action: 'accept', content: { confirmed: true } } } });
    for (const call of calls) assert.equal((call.params?.['_meta'] as Record<string, unknown>)['io.modelcontextprotocol/protocolVersion'], '2026-07-28');
    // The unrelated parallel call never carries the retry fields.
    const other = transport.requests('tools/call').filter((r) => r.params?.['name'] === 'other');
    assert.deepEqual(stripMeta(other[0]?.params), { name: 'other', arguments: {} });
    await client.close();
  });

  it('treats a result without resultType as complete, and rejects unknown resultTypes', async () => {
    const { transport } = await modernPeer((request) =>
      request.params?.['name'] === 'plain' ? { content: [{ type: 'text', text: 'legacy-shaped' }] } : { resultType: 'mystery', content: [] },
    );
    const client = new McpClient(CLIENT_INFO, { handlers: accept });
    await client.connect(transport);
    const plain = await client.callTool('plain');
    assert.deepEqual(plain.content, [{ type: 'text', text: 'legacy-shaped' }]);
    assert.equal(transport.requests('tools/call').length, 1);
    await assert.rejects(client.callTool('odd'), (e: unknown) => e instanceof McpError && e.code === 'ERR_MCP_INVALID_RESPONSE');
    assert.equal(transport.requests('tools/call').length, 2);
    await client.close();
  });

  it('rejects input_required on a method that does not allow it', async () => {
    const { transport } = await modernPeer(() => ({ resultType: 'input_required', requestState: 'x' }));
    const client = new McpClient(CLIENT_INFO, { handlers: accept });
    await client.connect(transport);
    await assert.rejects(client.listTools(), (e: unknown) => e instanceof McpError && e.code === 'ERR_MCP_INVALID_RESPONSE');
    await client.close();
  });

  it('fails locally with ERR_MCP_UNSUPPORTED when no handler can answer, without retrying', async () => {
    const { transport } = await modernPeer(() => ({ resultType: 'input_required', inputRequests: { confirm: CONFIRM } }));
    const client = new McpClient(CLIENT_INFO);
    await client.connect(transport);
    await assert.rejects(client.callTool('needs_input'), (e: unknown) => e instanceof McpError && e.code === 'ERR_MCP_UNSUPPORTED');
    assert.equal(transport.requests('tools/call').length, 1);
    await client.close();
  });

  it('refuses URL-mode elicitation and sampling tools it did not declare', async () => {
    const url = { method: 'elicitation/create', params: { mode: 'url', message: 'Open', url: 'https://example.com' } };
    const tools = { method: 'sampling/createMessage', params: { messages: [], maxTokens: 5, tools: [{ name: 't', inputSchema: { type: 'object' } }] } };
    const { transport } = await modernPeer((request) => ({ resultType: 'input_required', inputRequests: { q: request.params?.['name'] === 'url' ? url : tools } }));
    const client = new McpClient(CLIENT_INFO, {
      handlers: { ...accept, sampling: () => ({ role: 'assistant', content: { type: 'text', text: '' }, model: 'm' }) },
    });
    await client.connect(transport);
    await assert.rejects(client.callTool('url'), (e: unknown) => e instanceof McpError && e.code === 'ERR_MCP_UNSUPPORTED');
    await assert.rejects(client.callTool('tools'), (e: unknown) => e instanceof McpError && e.code === 'ERR_MCP_UNSUPPORTED');
    await client.close();
  });

  it('bounds the rounds with maxInputRounds', async () => {
    const { transport } = await modernPeer(() => ({ resultType: 'input_required', requestState: 'again' }));
    const client = new McpClient(CLIENT_INFO, { maxInputRounds: 3 });
    await client.connect(transport);
    await assert.rejects(client.callTool('forever'), (e: unknown) => e instanceof McpError && e.code === 'ERR_MCP_LIMIT_EXCEEDED');
    assert.equal(transport.requests('tools/call').length, 4);
    await client.close();
  });

  it('answers several input requests in one round and retries prompts/get and resources/read too', async () => {
    const { transport } = await modernPeer((request, round) => {
      if (round === 1) {
        return {
          resultType: 'input_required',
          inputRequests: {
            e: CONFIRM,
            s: { method: 'sampling/createMessage', params: { messages: [{ role: 'user', content: { type: 'text', text: 'hi' } }], maxTokens: 5 } },
            r: { method: 'roots/list' },
          },
          requestState: 'st',
        };
      }
      return request.method === 'prompts/get'
        ? { resultType: 'complete', messages: [] }
        : { resultType: 'complete', contents: [{ uri: 'x://y', text: JSON.stringify(stripMeta(request.params)) }], ttlMs: 60000, cacheScope: 'public' };
    });
    const client = new McpClient(CLIENT_INFO, {
      handlers: { ...accept, sampling: () => ({ role: 'assistant', content: { type: 'text', text: 'yo' }, model: 'm' }), roots: () => ({ roots: [] }) },
    });
    await client.connect(transport);
    await client.getPrompt('p');
    const read = await client.readResource('x://y');
    const sentBack = JSON.parse((read.contents[0] as { text: string }).text) as Record<string, unknown>;
    assert.deepEqual(Object.keys(sentBack['inputResponses'] as object).sort(), ['e', 'r', 's']);
    assert.equal(sentBack['requestState'], 'st');
    // A read answered after MRTR rounds is never cached; a direct complete answer is.
    await client.readResource('x://y');
    assert.equal(transport.requests('resources/read').length, 3);
    await client.readResource('x://y');
    assert.equal(transport.requests('resources/read').length, 3);
    await client.close();
  });

  it('applies elicitation schema defaults in both eras', async () => {
    for (const era of ['stateless', 'stateful'] as const) {
      const { client, wire, close } = await connectEverything({ era, handlers: { elicitation: () => ({ action: 'accept', content: { name: 'Jane' } }) } });
      try {
        const result = await client.callTool('test_elicitation_sep1034_defaults');
        assert.equal(result.isError, undefined);
        const expected = { name: 'Jane', age: 30, score: 95.5, status: 'active', verified: true };
        if (era === 'stateless') {
          const retry = wire.requests('tools/call').find((r) => r.params?.['inputResponses'] !== undefined);
          assert.deepEqual((retry?.params?.['inputResponses'] as Record<string, { content: unknown }>)['defaults_form']?.content, expected);
        } else {
          const answer = wire.sent.find((m) => 'result' in m && (m.result as { action?: unknown }).action === 'accept');
          assert.deepEqual((answer as unknown as { result: { content: unknown } }).result.content, expected);
        }
      } finally {
        await close();
      }
    }
  });
});

describe('McpClient legacy server requests', () => {
  it('answers ping, routes known questions to handlers and unknown requests with -32601', async () => {
    const answers: unknown[] = [];
    const { transport, peer } = await scriptedPeer(async (request) => {
      if (request.method === 'server/discover') throw new Error('no');
      if (request.method === 'initialize') return initializeResult();
      return {};
    });
    const client = new McpClient(CLIENT_INFO, { handlers: { roots: () => [{ uri: 'file:///r' }] } });
    await client.connect(transport);
    answers.push(await peer.request('ping'));
    answers.push(await peer.request('roots/list'));
    await assert.rejects(peer.request('weird/method'), (e: unknown) => (e as { code?: number }).code === -32601);
    await assert.rejects(peer.request('sampling/createMessage', { messages: [], maxTokens: 1 }), (e: unknown) => (e as { code?: number }).code === -32601);
    assert.deepEqual(answers, [{}, { roots: [{ uri: 'file:///r' }] }]);
    await client.ping();
    assert.equal(client.connected, true);
    await client.close();
  });
});
