import assert from 'node:assert/strict';
import { type ServerResponse } from 'node:http';
import { describe, it } from 'node:test';
import { Connection } from '../../../../../src/jsonrpc/connection.js';
import type { JsonRpcRequest } from '../../../../../src/jsonrpc/messages.js';
import { StreamableHttpClientTransport } from '../../../../../src/transport/http/client/client.js';
import { isMcpError, McpErrorCode } from '../../../../../src/util/errors.js';
import { mock, result, sendJson, transport, type Seen } from './clientSupport.js';



const until = async (check: () => boolean, ms = 3000): Promise<void> => {
  const end = Date.now() + ms;
  while (!check()) {
    if (Date.now() > end) throw new Error('timed out waiting');
    await new Promise((r) => setTimeout(r, 5));
  }
};

const SESSION = 'sess-1';

interface Legacy {
  readonly version?: string;
  readonly session?: string | null;
  /** Answers GET (no Last-Event-ID); default: an open SSE stream kept in `streams`. */
  readonly get?: (r: Seen, res: ServerResponse) => void;
  /** Answers other POSTs; default: `{}` result as JSON. */
  readonly post?: (r: Seen, res: ServerResponse) => void;
}

/** A stateful (2025-xx) mock: initialize, initialized, GET stream, DELETE. */
async function legacy(options: Legacy = {}) {
  const streams: ServerResponse[] = [];
  const m = await mock((r, res) => {
    const session = options.session === undefined ? SESSION : options.session;
    if (r.method === 'DELETE') return void res.writeHead(r.headers['mcp-session-id'] === session ? 200 : 404).end();
    if (r.method === 'GET') {
      if (options.get !== undefined) return options.get(r, res);
      res.writeHead(200, { 'content-type': 'text/event-stream' });
      res.write(': open\n\n');
      streams.push(res);
      return;
    }
    if (r.json.method === 'initialize') {
      const headers: Record<string, string> = { 'content-type': 'application/json' };
      if (session !== null) headers['mcp-session-id'] = session;
      res.writeHead(200, headers).end(JSON.stringify(result(r, { protocolVersion: options.version ?? '2025-11-25', capabilities: {}, serverInfo: { name: 's', version: '1' } })));
      return;
    }
    if (session !== null && r.headers['mcp-session-id'] !== session) return void res.writeHead(404).end();
    if (!('id' in r.json) || !('method' in r.json)) return void res.writeHead(202).end();
    if (options.post !== undefined) return options.post(r, res);
    sendJson(res, result(r, {}));
  });
  return { ...m, streams };
}

async function handshake(t: StreamableHttpClientTransport, version = '2025-11-25'): Promise<void> {
  await t.send({ jsonrpc: '2.0', id: 0, method: 'initialize', params: { protocolVersion: version, capabilities: {}, clientInfo: { name: 'c', version: '1' } } });
  await t.send({ jsonrpc: '2.0', method: 'notifications/initialized' });
}

const plain = (id: number, method: string, params: Record<string, unknown> = {}): JsonRpcRequest => ({ jsonrpc: '2.0', id, method, params });

describe('http client · stateful sessions', () => {
  it('remembers the session and version, echoes them, opens the GET stream and DELETEs on close', async () => {
    const { url, seen, streams } = await legacy();
    const { t } = await transport(url);
    await handshake(t);
    assert.equal(t.sessionId, SESSION);
    assert.equal(t.protocolVersion, '2025-11-25');
    await until(() => streams.length === 1);
    await t.send(plain(1, 'tools/list'));
    const [init, initialized, get, list] = seen;
    assert.equal(init!.headers['mcp-session-id'], undefined);
    assert.equal(init!.headers['mcp-protocol-version'], undefined);
    assert.equal(initialized!.headers['mcp-session-id'], SESSION);
    assert.equal(initialized!.headers['mcp-protocol-version'], '2025-11-25');
    assert.equal(get!.method, 'GET');
    assert.equal(get!.headers['accept'], 'text/event-stream');
    assert.equal(get!.headers['mcp-session-id'], SESSION);
    assert.equal(list!.headers['mcp-session-id'], SESSION);
    assert.equal(list!.headers['mcp-protocol-version'], '2025-11-25');
    assert.equal(list!.headers['mcp-method'], undefined);
    await t.close();
    const del = seen.at(-1)!;
    assert.equal(del.method, 'DELETE');
    assert.equal(del.headers['mcp-session-id'], SESSION);
    assert.equal(t.sessionId, undefined);
  });

  it('2025-03-26: no MCP-Protocol-Version header; batch answers as a JSON array', async () => {
    const { url, seen } = await legacy({
      version: '2025-03-26',
      post: (r, res) => sendJson(res, [result(r, { a: 1 }), { jsonrpc: '2.0', method: 'notifications/message', params: {} }]),
    });
    const { t, sink } = await transport(url, { openGetStream: false });
    await handshake(t, '2025-03-26');
    await t.send(plain(1, 'tools/list'));
    assert.equal(seen.at(-1)!.headers['mcp-protocol-version'], undefined);
    assert.equal(seen.at(-1)!.headers['mcp-session-id'], SESSION);
    assert.ok(sink.frames.some((f) => 'batch' in f && f.batch.length === 2));
    assert.equal(seen.filter((s) => s.method === 'GET').length, 0);
  });

  it('a server without sessions: no Mcp-Session-Id, no DELETE; GET 405 is fine', async () => {
    const { url, seen } = await legacy({ session: null, get: (_r, res) => void res.writeHead(405).end() });
    const { t } = await transport(url);
    await handshake(t);
    await until(() => seen.some((s) => s.method === 'GET'));
    await t.send(plain(1, 'tools/list'));
    assert.equal(seen.at(-1)!.headers['mcp-session-id'], undefined);
    await t.close();
    assert.equal(seen.filter((s) => s.method === 'DELETE').length, 0);
    assert.equal(seen.filter((s) => s.method === 'GET').length, 1);
  });

  it('DELETE answered 405 is ignored', async () => {
    const { url } = await mock((r, res) => {
      if (r.method === 'DELETE') return void res.writeHead(405).end();
      if (r.json.method === 'initialize') return void res.writeHead(200, { 'content-type': 'application/json', 'mcp-session-id': 'x' }).end(JSON.stringify(result(r, { protocolVersion: '2025-06-18' })));
      res.writeHead(202).end();
    });
    const t = new StreamableHttpClientTransport({ url, openGetStream: false });
    let closed = 0;
    await t.start({ receive() {}, closed: () => void closed++ });
    await handshake(t, '2025-06-18');
    await t.close();
    assert.equal(closed, 1);
  });

  it('404 on a session request → ERR_MCP_SESSION_EXPIRED; the session is forgotten until initialize', async () => {
    let alive = true;
    const { url, seen } = await mock((r, res) => {
      if (r.json.method === 'initialize') {
        alive = true;
        return void res.writeHead(200, { 'content-type': 'application/json', 'mcp-session-id': 'S2' }).end(JSON.stringify(result(r, { protocolVersion: '2025-11-25' })));
      }
      if (!alive) return void res.writeHead(404, { 'content-type': 'application/json' }).end(JSON.stringify({ jsonrpc: '2.0', id: null, error: { code: -32001, message: 'Session not found' } }));
      if (!('id' in r.json)) return void res.writeHead(202).end();
      sendJson(res, result(r, {}));
    });
    const { t } = await transport(url, { openGetStream: false });
    await handshake(t);
    alive = false;
    await assert.rejects(t.send(plain(1, 'tools/list')), (e) => isMcpError(e, McpErrorCode.SessionExpired));
    assert.equal(t.sessionId, undefined);
    const count = seen.length;
    await assert.rejects(t.send(plain(2, 'tools/list')), (e) => isMcpError(e, McpErrorCode.SessionExpired));
    assert.equal(seen.length, count);
    await handshake(t);
    assert.equal(seen.at(-2)!.headers['mcp-session-id'], undefined);
    await t.send(plain(3, 'tools/list'));
    assert.equal(seen.at(-1)!.headers['mcp-session-id'], 'S2');
  });
});

describe('http client · GET stream and server requests', () => {
  it('delivers a server request from the GET stream; the Connection answers with a POST (202)', async () => {
    const { url, seen, streams } = await legacy();
    const transportUnderTest = new StreamableHttpClientTransport({ url });
    const connection = new Connection(transportUnderTest, { onRequest: (request) => ({ roots: [{ uri: 'file:///x', name: String(request.method) }] }) });
    const notes: string[] = [];
    await connection.start();
    await connection.request('initialize', { protocolVersion: '2025-11-25', capabilities: {}, clientInfo: { name: 'c', version: '1' } });
    await connection.notify('notifications/initialized');
    await until(() => streams.length === 1);
    streams[0]!.write(`id: g-1\ndata: ${JSON.stringify({ jsonrpc: '2.0', id: 's-1', method: 'roots/list' })}\n\n`);
    await until(() => seen.some((s) => s.json.id === 's-1'));
    const answer = seen.find((s) => s.json.id === 's-1')!;
    assert.equal(answer.method, 'POST');
    assert.equal(answer.headers['mcp-session-id'], SESSION);
    assert.deepEqual((answer.json as unknown as { result: unknown }).result, { roots: [{ uri: 'file:///x', name: 'roots/list' }] });
    notes.push('ok');
    await connection.close();
    assert.equal(seen.at(-1)!.method, 'DELETE');
  });

  it('reconnects a dropped GET stream with Last-Event-ID after the retry delay', async () => {
    let gets = 0;
    const { url, seen } = await legacy({
      get: (_r, res) => {
        gets++;
        res.writeHead(200, { 'content-type': 'text/event-stream' });
        if (gets === 1) res.end(`retry: 50\nid: e-1\ndata: ${JSON.stringify({ jsonrpc: '2.0', method: 'notifications/tools/list_changed' })}\n\n`);
        else res.write(`id: e-2\ndata: ${JSON.stringify({ jsonrpc: '2.0', method: 'notifications/message', params: { level: 'info', data: 'x' } })}\n\n`);
      },
    });
    const { t, sink } = await transport(url);
    await handshake(t);
    await until(() => sink.messages.length === 3);
    const resumed = seen.filter((s) => s.method === 'GET')[1]!;
    assert.equal(resumed.headers['last-event-id'], 'e-1');
    assert.deepEqual(
      sink.messages.map((m) => ('method' in m ? m.method : 'result')),
      ['result', 'notifications/tools/list_changed', 'notifications/message'],
    );
  });
});

describe('http client · resumability (SEP-1699 polling)', () => {
  it('a POST stream closed after the priming event resumes with GET + Last-Event-ID after `retry` ms; result delivered once', async () => {
    let closedAt = 0;
    let getAt = 0;
    let pending: number | string | undefined;
    const { url, seen } = await legacy({
      get: (r, res) => {
        res.writeHead(200, { 'content-type': 'text/event-stream' });
        res.write(`id: event-9\nretry: 300\ndata: \n\n`);
        if (r.headers['last-event-id'] !== undefined) {
          getAt = performance.now();
          res.write(`event: message\nid: event-10\ndata: ${JSON.stringify({ jsonrpc: '2.0', id: pending, result: { content: [] } })}\n\n`);
        }
      },
      post: (r, res) => {
        pending = r.json.id;
        res.writeHead(200, { 'content-type': 'text/event-stream' });
        res.write('id: event-1\nretry: 300\ndata: \n\n');
        setTimeout(() => {
          closedAt = performance.now();
          res.end();
        }, 50);
      },
    });
    const { t, sink } = await transport(url);
    await handshake(t);
    await t.send(plain(7, 'tools/call', { name: 'test_reconnection', arguments: {} }));
    const resume = seen.filter((s) => s.headers['last-event-id'] !== undefined);
    assert.equal(resume.length, 1);
    assert.equal(resume[0]!.method, 'GET');
    assert.equal(resume[0]!.headers['last-event-id'], 'event-1');
    assert.equal(resume[0]!.headers['mcp-session-id'], SESSION);
    const waited = getAt - closedAt;
    assert.ok(waited >= 280 && waited < 1500, `waited ${waited} ms`);
    assert.equal(sink.messages.filter((m) => 'id' in m && m.id === 7).length, 1);
  });

  it('gives up after maxReconnects resumptions without progress', async () => {
    const { url, seen } = await legacy({
      get: (r, res) => {
        if (r.headers['last-event-id'] === undefined) return void res.writeHead(405).end();
        res.writeHead(200, { 'content-type': 'text/event-stream' }).end();
      },
      post: (_r, res) => {
        res.writeHead(200, { 'content-type': 'text/event-stream' });
        res.end('retry: 10\nid: p-1\ndata: \n\n');
      },
    });
    const { t } = await transport(url, { maxReconnects: 3 });
    await handshake(t);
    await assert.rejects(t.send(plain(8, 'tools/call', { name: 'x' })), (e) => isMcpError(e, McpErrorCode.SendFailed));
    assert.equal(seen.filter((s) => s.headers['last-event-id'] === 'p-1').length, 3);
  });
});

describe('http client · stateful cancellation', () => {
  it('POSTs notifications/cancelled with the session, then closes the request stream', async () => {
    const { url, seen, closed } = await legacy({
      post: (_r, res) => {
        res.writeHead(200, { 'content-type': 'text/event-stream' });
        res.write(': working\n\n');
      },
    });
    const connection = new Connection(new StreamableHttpClientTransport({ url, openGetStream: false }));
    await connection.start();
    await connection.request('initialize', { protocolVersion: '2025-06-18', capabilities: {}, clientInfo: { name: 'c', version: '1' } });
    await connection.notify('notifications/initialized');
    const controller = new AbortController();
    const pending = connection.request('tools/call', { name: 'slow' }, { signal: controller.signal });
    await until(() => seen.some((s) => s.json.method === 'tools/call'));
    controller.abort('user');
    await assert.rejects(pending, (e) => isMcpError(e, McpErrorCode.RequestCancelled));
    await until(() => closed.includes('tools/call'));
    const cancel = seen.find((s) => s.json.method === 'notifications/cancelled')!;
    assert.equal(cancel.headers['mcp-session-id'], SESSION);
    assert.equal(cancel.headers['mcp-protocol-version'], '2025-11-25');
    assert.equal((cancel.json.params as { requestId: unknown }).requestId, seen.find((s) => s.json.method === 'tools/call')!.json.id);
    await connection.close();
  });
});
