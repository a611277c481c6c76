import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { McpClient } from '../../../src/client/mcpClient.js';
import { Connection } from '../../../src/jsonrpc/connection.js';
import type { JsonRpcNotification } from '../../../src/jsonrpc/messages.js';
import type { Tool } from '../../../src/protocol/model/tool.js';
import type { ProtocolRevision } from '../../../src/protocol/revisions.js';
import { McpServer } from '../../../src/server/mcpServer.js';
import { createInMemoryPair } from '../../../src/transport/memory.js';
import { memoryLogger } from '../client/support.js';
import { meta } from './support.js';

const UPSTREAM_TOOL = {
  name: 'weather',
  title: 'Weather',
  description: 'Forecast',
  inputSchema: {
    $schema: 'http://json-schema.org/draft-07/schema#',
    type: 'object',
    properties: { city: { type: 'string', 'x-vendor-hint': { unknownKeyword: true } } },
    required: ['city'],
    definitions: { unused: { type: 'string' } },
    'x-totally-unknown': [1, 2, 3],
  },
  outputSchema: { type: 'object', properties: { temp: { type: 'number' } } },
  annotations: { readOnlyHint: true, title: 'W' },
  icons: [{ src: 'https://example.com/w.png', mimeType: 'image/png', sizes: ['48x48'] }],
  execution: { taskSupport: 'optional' },
  _meta: { 'example.com/origin': 'upstream-1', nested: { b: 2, a: 1 } },
} as unknown as Tool;

async function raw(server: McpServer, principal?: string): Promise<{ conn: Connection; notifications: JsonRpcNotification[]; call: (m: string, p?: Record<string, unknown>) => Promise<Record<string, unknown>> }> {
  const [clientSide, serverSide] = createInMemoryPair(principal === undefined ? {} : { principal: { id: principal } });
  await server.connect(serverSide);
  const notifications: JsonRpcNotification[] = [];
  const conn = new Connection(clientSide, { onNotification: (n) => void notifications.push(n) });
  await conn.start();
  return { conn, notifications, call: (m, p = {}) => conn.request(m, { ...p, _meta: meta(p['_meta'] as Record<string, unknown> | undefined) }) };
}

const text = (result: Record<string, unknown>): string => (result['content'] as { text: string }[])[0]?.text ?? '';

describe('forwarded definitions', () => {
  it('tools/list returns a forwarded tool byte for byte (_meta, annotations, icons, execution, outputSchema, draft-07 schema with unknown keywords; key order too)', async () => {
    const server = new McpServer({ name: 'gw', version: '1' });
    server.forwardTool(UPSTREAM_TOOL, async () => ({ content: [] }));
    const { call } = await raw(server);
    const listed = ((await call('tools/list'))['tools'] as unknown[])[0];
    assert.deepEqual(listed, UPSTREAM_TOOL);
    assert.equal(JSON.stringify(listed), JSON.stringify(UPSTREAM_TOOL));
    await server.close();
  });

  it('calls reach the handler with the params as received; arguments are not validated by default', async () => {
    const server = new McpServer({ name: 'gw', version: '1' });
    let seen: unknown;
    server.forwardTool(UPSTREAM_TOOL, async (params) => {
      seen = params;
      return { content: [{ type: 'text', text: 'ok' }] };
    });
    const { call } = await raw(server);
    const result = await call('tools/call', { name: 'weather', arguments: { wrong: 1 } });
    assert.equal(text(result), 'ok');
    assert.deepEqual((seen as Record<string, unknown>)['arguments'], { wrong: 1 });
    await server.close();
  });

  it('validateArguments: bad arguments are an isError result; an uncompilable schema does not throw at registration (no validation, a warning)', async () => {
    const logger = memoryLogger();
    const server = new McpServer({ name: 'gw', version: '1' }, { logger });
    server.forwardTool({ name: 'strict', inputSchema: { type: 'object', properties: { n: { type: 'number' } }, required: ['n'] } } as Tool, async () => ({ content: [{ type: 'text', text: 'ran' }] }), { validateArguments: true });
    const broken = { name: 'broken', inputSchema: { type: 'object', $schema: 'https://example.com/no-such-dialect' } } as unknown as Tool;
    assert.doesNotThrow(() => server.forwardTool(broken, async () => ({ content: [{ type: 'text', text: 'ran' }] }), { validateArguments: true }));
    const { call } = await raw(server);
    const bad = await call('tools/call', { name: 'strict', arguments: {} });
    assert.equal(bad['isError'], true);
    assert.equal(text(await call('tools/call', { name: 'strict', arguments: { n: 1 } })), 'ran');
    assert.equal(text(await call('tools/call', { name: 'broken', arguments: { anything: true } })), 'ran');
    assert.ok(logger.lines.some((l) => l.level === 'warn' && l.fields?.['tool'] === 'broken'));
    await server.close();
  });

  it('a forwarded handler that throws synchronously or rejects, and an unknown tool, are answered as errors (dispatch never throws)', async () => {
    const server = new McpServer({ name: 'gw', version: '1' }, { logger: memoryLogger() });
    const sync = ((): Promise<never> => {
      throw new Error('sync boom');
    }) as never;
    server.forwardTool({ name: 'sync', inputSchema: { type: 'object' } } as Tool, sync);
    server.forwardTool({ name: 'async', inputSchema: { type: 'object' } } as Tool, async () => {
      throw new Error('async boom');
    });
    const { call } = await raw(server);
    for (const name of ['sync', 'async']) {
      await assert.rejects(call('tools/call', { name, arguments: {} }), (e: { code?: unknown }) => e.code === -32603, name);
    }
    await assert.rejects(call('tools/call', { name: 'nope', arguments: {} }), (e: { code?: unknown; message?: string }) => e.code === -32602 && /Unknown tool/.test(e.message ?? ''));
    // And over the request-per-message entry the HTTP transport uses.
    const env = { signal: new AbortController().signal, onAbort: () => () => undefined, notify: () => undefined } as never;
    const message = { jsonrpc: '2.0' as const, id: 9, method: 'tools/call', params: { name: 'sync', arguments: {}, _meta: meta() } };
    const answer = await server.dispatch(message, env);
    assert.equal((answer as { id?: unknown }).id, 9);
    assert.equal((answer as { error?: { code?: unknown } }).error?.code, -32603);
    await server.close();
  });

  it('handles: update keeps the list position, disable/enable hide and show, remove deletes', async () => {
    const server = new McpServer({ name: 'gw', version: '1' });
    const a = server.forwardTool({ name: 'a', inputSchema: { type: 'object' } } as Tool, async () => ({ content: [] }));
    server.forwardTool({ name: 'b', inputSchema: { type: 'object' } } as Tool, async () => ({ content: [] }));
    const { call } = await raw(server);
    const list = async (): Promise<unknown[]> => (await call('tools/list'))['tools'] as unknown[];
    a.update({ name: 'a', description: 'new', inputSchema: { type: 'object' } } as Tool);
    assert.deepEqual(await list(), [{ name: 'a', description: 'new', inputSchema: { type: 'object' } }, { name: 'b', inputSchema: { type: 'object' } }]);
    a.disable();
    assert.deepEqual((await list()).length, 1);
    assert.equal((await call('tools/call', { name: 'a', arguments: {} }).catch((e: { code: number }) => e)).code, -32602);
    a.enable();
    assert.equal((await list()).length, 2);
    a.remove();
    assert.deepEqual(await list(), [{ name: 'b', inputSchema: { type: 'object' } }]);
    await server.close();
  });

  it('batchChanges sends one list_changed per kind for all the changes inside', async () => {
    const server = new McpServer({ name: 'gw', version: '1' });
    server.forwardTool({ name: 'seed', inputSchema: { type: 'object' } } as Tool, async () => ({ content: [] }));
    server.forwardPrompt({ name: 'seed' }, async () => ({ messages: [] }));
    const { conn, notifications } = await raw(server);
    await conn.request('initialize', { protocolVersion: '2025-11-25', capabilities: {}, clientInfo: { name: 'c', version: '1' } });
    await server.batchChanges(() => {
      for (const name of ['x', 'y', 'z']) server.forwardTool({ name, inputSchema: { type: 'object' } } as Tool, async () => ({ content: [] }));
      server.forwardPrompt({ name: 'p' }, async () => ({ messages: [] })).remove();
    });
    await conn.request('ping', {});
    const count = (method: string): number => notifications.filter((n) => n.method === method).length;
    assert.equal(count('notifications/tools/list_changed'), 1);
    assert.equal(count('notifications/prompts/list_changed'), 1);
    await server.close();
  });

  it('forwarded resources, templates and completions go to their handlers', async () => {
    const server = new McpServer({ name: 'gw', version: '1' });
    server.forwardResource({ uri: 'up://fixed', name: 'fixed' }, async (params) => ({ contents: [{ uri: String(params['uri']), text: 'fixed' }] }));
    server.forwardTemplate({ uriTemplate: 'up://items/{id}', name: 'items' }, async (params) => ({ contents: [{ uri: String(params['uri']), text: 'item' }] }), {
      complete: async (params) => ({ completion: { values: [`${(params['argument'] as { value: string }).value}1`], hasMore: false } }),
    });
    server.forwardPrompt({ name: 'greet', arguments: [{ name: 'who', required: true }] }, async (params) => ({ messages: [{ role: 'user', content: { type: 'text', text: `hi ${JSON.stringify(params['arguments'])}` } }] }), {
      complete: async () => ({ completion: { values: ['world'] } }),
    });
    const { call } = await raw(server);
    const read = (uri: string): Promise<string | undefined> => call('resources/read', { uri }).then((r) => (r['contents'] as { text: string }[])[0]?.text);
    assert.equal(await read('up://fixed'), 'fixed');
    assert.equal(await read('up://items/7'), 'item');
    const completion = await call('completion/complete', { ref: { type: 'ref/resource', uri: 'up://items/{id}' }, argument: { name: 'id', value: 'a' } });
    assert.deepEqual((completion['completion'] as { values: string[] }).values, ['a1']);
    const promptCompletion = await call('completion/complete', { ref: { type: 'ref/prompt', name: 'greet' }, argument: { name: 'who', value: '' } });
    assert.deepEqual((promptCompletion['completion'] as { values: string[] }).values, ['world']);
    const got = await call('prompts/get', { name: 'greet', arguments: { who: 'x' } });
    assert.equal(((got['messages'] as { content: { text: string } }[])[0])?.content.text, 'hi {"who":"x"}');
    await server.close();
  });
});

const ASK = { method: 'elicitation/create', params: { message: 'City?', requestedSchema: { type: 'object', properties: { city: { type: 'string' } } } } };

/** A forwarded tool that asks once (with its own requestState) and then reports what it got. */
function askingServer(): { server: McpServer; rounds: Record<string, unknown>[] } {
  const server = new McpServer({ name: 'gw', version: '1' });
  const rounds: Record<string, unknown>[] = [];
  server.forwardTool({ name: 'ask', inputSchema: { type: 'object' } } as Tool, async (params) => {
    rounds.push({ ...params });
    if (params['inputResponses'] === undefined) return { resultType: 'input_required', inputRequests: { city: ASK }, requestState: 'upstream-state-1' } as never;
    return { content: [{ type: 'text', text: JSON.stringify({ answers: params['inputResponses'], state: params['requestState'] }) }] };
  });
  return { server, rounds };
}

describe('handlers answering with an InputRequiredResult', () => {
  for (const version of ['2026-07-28', '2025-11-25'] as ProtocolRevision[]) {
    it(`${version}: an elicitation round trip through the real McpClient reaches the handler as inputResponses + requestState`, async () => {
      const { server, rounds } = askingServer();
      const [clientSide, serverSide] = createInMemoryPair();
      await server.connect(serverSide);
      const client = new McpClient({ name: 'c', version: '1' }, { versions: [version], handlers: { elicitation: () => ({ action: 'accept', content: { city: 'Oslo' } }) } });
      await client.connect(clientSide);
      const result = await client.callTool('ask', {});
      const reported = JSON.parse((result.content[0] as { text: string }).text) as Record<string, unknown>;
      assert.deepEqual(reported, { answers: { city: { action: 'accept', content: { city: 'Oslo' } } }, state: 'upstream-state-1' });
      assert.equal(rounds.length, 2);
      await client.close();
      await server.close();
    });
  }

  it('2026-07-28: the requestState the client sees is sealed by the server (not the handler\'s own)', async () => {
    const { server } = askingServer();
    const { call } = await raw(server);
    const first = await call('tools/call', { name: 'ask', arguments: {}, _meta: { 'io.modelcontextprotocol/clientCapabilities': { elicitation: {} } } });
    assert.equal(first['resultType'], 'input_required');
    assert.notEqual(first['requestState'], 'upstream-state-1');
    assert.ok(String(first['requestState']).startsWith('sb1.'));
    await server.close();
  });

  it('a tampered requestState is refused (-32602)', async () => {
    const { server, rounds } = askingServer();
    const { call } = await raw(server);
    const first = await call('tools/call', { name: 'ask', arguments: {} });
    const state = String(first['requestState']);
    const tampered = state.slice(0, -2) + (state.endsWith('A') ? 'BB' : 'AA');
    const error = await call('tools/call', { name: 'ask', arguments: {}, requestState: tampered, inputResponses: { city: { action: 'decline' } } }).catch((e: { code: number; message: string }) => e);
    assert.equal((error as { code: number }).code, -32602);
    assert.equal(rounds.length, 1, 'the handler never ran with a tampered state');
    await server.close();
  });

  it('a requestState sealed for another principal is refused', async () => {
    const { server, rounds } = askingServer();
    const alice = await raw(server, 'alice');
    const mallory = await raw(server, 'mallory');
    const first = await alice.call('tools/call', { name: 'ask', arguments: {} });
    const error = await mallory.call('tools/call', { name: 'ask', arguments: {}, requestState: first['requestState'], inputResponses: { city: { action: 'decline' } } }).catch((e: { code: number; message: string }) => e);
    assert.equal((error as { code: number }).code, -32602);
    assert.match((error as { message: string }).message, /wrong-principal/);
    assert.equal(rounds.length, 1);
    await server.close();
  });

  it('a forged inputResponses key the handler did not ask for is dropped before the handler sees it', async () => {
    const { server, rounds } = askingServer();
    const { call } = await raw(server);
    const first = await call('tools/call', { name: 'ask', arguments: {} });
    await call('tools/call', {
      name: 'ask',
      arguments: {},
      requestState: first['requestState'],
      inputResponses: { city: { action: 'accept', content: { city: 'Oslo' } }, admin: { action: 'accept', content: { grant: true } } },
    });
    assert.deepEqual(Object.keys(rounds[1]?.['inputResponses'] as object), ['city']);
    await server.close();
  });

  it('unsolicited inputResponses without a requestState reach no handler', async () => {
    const { server, rounds } = askingServer();
    const { call } = await raw(server);
    await call('tools/call', { name: 'ask', arguments: {}, inputResponses: { city: { action: 'accept', content: { city: 'forged' } } } });
    assert.equal(rounds[0]?.['inputResponses'], undefined);
    await server.close();
  });
});
