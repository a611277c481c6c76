/**
 * The stateful Streamable HTTP path end to end: the real `McpServer`, the Node adapter on
 * 127.0.0.1:0, and `fetch` as the client.
 */
import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import { listen, type ListeningServer } from '../../../../../src/adapters/nodeHttp.js';
import { McpServer } from '../../../../../src/server/mcpServer.js';
import { createStreamableHttpHandler } from '../../../../../src/transport/http/server/server.js';
import { Events } from './sharedSessionsSupport.js';

let server: McpServer;
let running: ListeningServer;
let url: string;

before(async () => {
  server = new McpServer({ name: 'sessions-e2e', version: '1.0.0' });
  server.tool('add', { inputSchema: { type: 'object', properties: { a: { type: 'number' }, b: { type: 'number' } } } }, (args) => String(Number(args['a']) + Number(args['b'])));
  server.tool('ask', {}, async (_args, ctx) => {
    const answer = await ctx.elicit({ message: 'Your name?', requestedSchema: { type: 'object', properties: { name: { type: 'string' } } } });
    return `Hello ${String((answer.content as Record<string, unknown> | undefined)?.['name'])}`;
  });
  running = await listen(createStreamableHttpHandler(server, { sseKeepAliveMs: 0 }), { port: 0 });
  url = `${running.url}mcp`;
});

after(async () => {
  await running.close();
  await server.close();
});

const BASE = { 'content-type': 'application/json', accept: 'application/json, text/event-stream' };

async function post(body: unknown, session?: string, version?: string): Promise<Response> {
  return fetch(url, {
    method: 'POST',
    headers: { ...BASE, ...(session === undefined ? {} : { 'mcp-session-id': session }), ...(version === undefined ? {} : { 'mcp-protocol-version': version }) },
    body: JSON.stringify(body),
  });
}

async function initialize(version = '2025-11-25'): Promise<string> {
  const res = await post({
    jsonrpc: '2.0',
    id: 1,
    method: 'initialize',
    params: { protocolVersion: version, capabilities: { elicitation: {} }, clientInfo: { name: 'e2e', version: '1' } },
  });
  assert.equal(res.status, 200);
  const id = res.headers.get('mcp-session-id');
  assert.ok(id !== null);
  const body = (await res.json()) as { result: { protocolVersion: string; serverInfo: { name: string } } };
  assert.equal(body.result.protocolVersion, version);
  assert.equal(body.result.serverInfo.name, 'sessions-e2e');
  const note = await post({ jsonrpc: '2.0', method: 'notifications/initialized' }, id, version);
  assert.equal(note.status, 202);
  return id;
}

describe('stateful Streamable HTTP with McpServer over node:http', () => {
  it('initialize → session id → tools/list and tools/call in the session', async () => {
    const id = await initialize();
    const list = (await (await post({ jsonrpc: '2.0', id: 2, method: 'tools/list' }, id, '2025-11-25')).json()) as { result: { tools: { name: string }[] } };
    assert.deepEqual(list.result.tools.map((t) => t.name).sort(), ['add', 'ask']);
    const res = await post({ jsonrpc: '2.0', id: 3, method: 'tools/call', params: { name: 'add', arguments: { a: 2, b: 3 } } }, id, '2025-11-25');
    const body = (await res.json()) as { result: { content: { text: string }[] } };
    assert.equal(body.result.content[0]?.text, '5');
    assert.equal((await fetch(url, { method: 'DELETE', headers: { 'mcp-session-id': id } })).status, 200);
    assert.equal((await post({ jsonrpc: '2.0', id: 4, method: 'tools/list' }, id)).status, 404);
  });

  it('elicitation/create during tools/call travels on the POST stream; the POSTed answer completes the call', async () => {
    const id = await initialize();
    const events = new Events(await post({ jsonrpc: '2.0', id: 10, method: 'tools/call', params: { name: 'ask', arguments: {} } }, id, '2025-11-25'));
    const ask = await events.next((m) => m['method'] === 'elicitation/create');
    assert.equal((ask['params'] as { message: string }).message, 'Your name?');
    const answer = await post({ jsonrpc: '2.0', id: ask['id'], result: { action: 'accept', content: { name: 'Bob' } } }, id, '2025-11-25');
    assert.equal(answer.status, 202);
    const result = await events.next((m) => m['id'] === 10);
    assert.equal((result['result'] as { content: { text: string }[] }).content[0]?.text, 'Hello Bob');
    await events.finished;
    assert.equal(events.list[0]?.data, '', 'a priming event opens the stream');
  });

  it('list_changed arrives on the GET stream; a second GET → 409', async () => {
    const id = await initialize();
    const get = new Events(await fetch(url, { headers: { accept: 'text/event-stream', 'mcp-session-id': id, 'mcp-protocol-version': '2025-11-25' } }));
    const second = await fetch(url, { headers: { accept: 'text/event-stream', 'mcp-session-id': id } });
    assert.equal(second.status, 409);
    await second.body?.cancel();
    const handle = server.tool('late', {}, () => 'late');
    const note = await get.next((m) => m['method'] === 'notifications/tools/list_changed');
    assert.equal(note['jsonrpc'], '2.0');
    handle.remove();
    await get.cancel();
  });

  it('a 2025-03-26 session takes a batch; a 2025-11-25 one refuses it', async () => {
    const old = await initialize('2025-03-26');
    const res = await post(
      [
        { jsonrpc: '2.0', id: 'a', method: 'tools/call', params: { name: 'add', arguments: { a: 1, b: 1 } } },
        { jsonrpc: '2.0', id: 'b', method: 'ping' },
      ],
      old,
    );
    assert.equal(res.status, 200);
    const body = (await res.json()) as { id: string }[];
    assert.deepEqual(body.map((r) => r.id).sort(), ['a', 'b']);
    const current = await initialize();
    const refused = await post([{ jsonrpc: '2.0', id: 'a', method: 'ping' }], current, '2025-11-25');
    assert.equal(refused.status, 400);
  });

  it('MCP-Protocol-Version mismatch → 400; unknown session → 404', async () => {
    const id = await initialize('2025-06-18');
    assert.equal((await post({ jsonrpc: '2.0', id: 2, method: 'ping' }, id, '2025-11-25')).status, 400);
    assert.equal((await post({ jsonrpc: '2.0', id: 2, method: 'ping' }, id, '2025-06-18')).status, 200);
    assert.equal((await post({ jsonrpc: '2.0', id: 2, method: 'ping' }, 'not-a-session', '2025-06-18')).status, 404);
  });

  it('the 2026-07-28 stateless path still answers on the same endpoint', async () => {
    const res = await fetch(url, {
      method: 'POST',
      headers: { ...BASE, 'mcp-protocol-version': '2026-07-28', 'mcp-method': 'tools/list' },
      body: JSON.stringify({
        jsonrpc: '2.0',
        id: 1,
        method: 'tools/list',
        params: { _meta: { 'io.modelcontextprotocol/protocolVersion': '2026-07-28', 'io.modelcontextprotocol/clientCapabilities': {} } },
      }),
    });
    assert.equal(res.status, 200);
    assert.equal(res.headers.get('mcp-session-id'), null);
    const body = (await res.json()) as { result: { tools: unknown[] } };
    assert.ok(body.result.tools.length >= 2);
  });
});
