/**
 * `nodeFetch`: a keep-alive fetch on node:http for the client transport. Checked against a
 * plain node:http server for the fetch behaviours the transport relies on, then end to end:
 * `McpClient` over `StreamableHttpClientTransport({ fetch: nodeFetch() })` against our server
 * in both protocol eras (stateless, and a session with its GET stream and DELETE).
 */
import assert from 'node:assert/strict';
import { createServer, type IncomingMessage, type Server, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';
import { after, before, describe, it } from 'node:test';
import { gzipSync } from 'node:zlib';
import { nodeFetch } from '../../../src/adapters/nodeFetch.js';
import { listen } from '../../../src/adapters/nodeHttp.js';
import { McpClient } from '../../../src/client/mcpClient.js';
import { McpServer } from '../../../src/server/mcpServer.js';
import { StreamableHttpClientTransport } from '../../../src/transport/http/client/client.js';
import { createStreamableHttpHandler } from '../../../src/transport/http/server/server.js';

let server: Server;
let base: string;
const ports: number[] = [];
/** Called once `/hang-json` has sent part of its body. */
let onStalled: (() => void) | undefined;

function route(req: IncomingMessage, res: ServerResponse): void {
  ports.push(req.socket.remotePort ?? 0);
  const url = new URL(req.url ?? '/', 'http://x');
  let body = '';
  req.setEncoding('utf8');
  req.on('data', (c: string) => (body += c));
  req.on('end', () => {
    switch (url.pathname) {
      case '/echo':
        res.writeHead(200, { 'content-type': 'application/json', 'x-multi': ['a', 'b'] });
        res.end(JSON.stringify({ method: req.method, body, contentType: req.headers['content-type'] ?? null, custom: req.headers['x-custom'] ?? null }));
        return;
      case '/empty':
        res.writeHead(204);
        res.end();
        return;
      case '/gzip':
        res.writeHead(200, { 'content-type': 'text/plain', 'content-encoding': 'gzip' });
        res.end(gzipSync('compressed hello'));
        return;
      case '/redirect':
        res.writeHead(307, { location: '/echo' });
        res.end();
        return;
      case '/sse': {
        res.writeHead(200, { 'content-type': 'text/event-stream' });
        res.write('data: one\n\n');
        const timer = setTimeout(() => res.end('data: two\n\n'), 200);
        res.on('close', () => clearTimeout(timer));
        return;
      }
      case '/truncated':
        // Declares 100 bytes, sends 10, then drops the connection.
        res.writeHead(200, { 'content-type': 'application/json', 'content-length': '100' });
        res.write('{"partial"');
        setImmediate(() => res.socket?.destroy());
        return;
      case '/hang-json':
        res.writeHead(200, { 'content-type': 'application/json', 'content-length': '100' });
        res.write('{"partial"', () => onStalled?.());
        return; // never completes its declared length
      case '/hang':
        res.writeHead(200, { 'content-type': 'text/event-stream' });
        res.write(': open\n\n');
        return; // never ends
      default:
        res.writeHead(404);
        res.end();
    }
  });
}

before(async () => {
  server = createServer(route);
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  base = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
});

after(async () => {
  server.closeAllConnections();
  await new Promise<void>((resolve) => server.close(() => resolve()));
});

describe('nodeFetch', () => {
  const f = nodeFetch();

  it('sends method, headers and body, and returns status, every header and the body', async () => {
    const r = await f(`${base}/echo`, { method: 'POST', headers: { 'Content-Type': 'application/json', 'X-Custom': 'v' }, body: '{"a":1}' });
    assert.equal(r.status, 200);
    assert.equal(r.headers.get('content-type'), 'application/json');
    assert.equal(r.headers.get('x-multi'), 'a, b');
    assert.deepEqual(await r.json(), { method: 'POST', body: '{"a":1}', contentType: 'application/json', custom: 'v' });
  });

  it('keeps connections alive: sequential calls reuse one socket', async () => {
    ports.length = 0;
    for (let i = 0; i < 5; i++) await (await f(`${base}/echo`, { method: 'GET' })).text();
    assert.equal(new Set(ports).size, 1, `sockets used: ${[...new Set(ports)].join(', ')}`);
  });

  it('a null-body status (204) gives a Response with a null body', async () => {
    const r = await f(`${base}/empty`, { method: 'DELETE' });
    assert.equal(r.status, 204);
    assert.equal(r.body, null);
  });

  it('decodes gzip bodies', async () => {
    assert.equal(await (await f(`${base}/gzip`, { method: 'GET' })).text(), 'compressed hello');
  });

  it('credential leak by redirect: a 3xx is returned as is, never followed', async () => {
    ports.length = 0;
    const r = await f(`${base}/redirect`, { method: 'POST', headers: { authorization: 'Bearer secret' }, body: 'x' });
    assert.equal(r.status, 307);
    assert.equal(r.headers.get('location'), '/echo');
    assert.equal(ports.length, 1, 'one request only');
  });

  it('streams: an SSE event is readable before the response ends', async () => {
    const r = await f(`${base}/sse`, { method: 'GET' });
    const reader = (r.body as ReadableStream<Uint8Array>).getReader();
    const started = Date.now();
    const first = await reader.read();
    assert.match(new TextDecoder().decode(first.value), /data: one/);
    assert.ok(Date.now() - started < 150, 'the first event did not wait for the end');
    let rest = '';
    for (let c = await reader.read(); !c.done; c = await reader.read()) rest += new TextDecoder().decode(c.value);
    assert.match(rest, /data: two/);
  });

  it('abort before the answer rejects with the signal reason; abort during the body errors the stream', async () => {
    const early = new AbortController();
    early.abort(new Error('stop early'));
    await assert.rejects(f(`${base}/echo`, { method: 'GET', signal: early.signal }), /stop early/);
    const late = new AbortController();
    const r = await f(`${base}/hang`, { method: 'GET', signal: late.signal });
    const reader = (r.body as ReadableStream<Uint8Array>).getReader();
    await reader.read(); // the comment line
    late.abort(new Error('stop late'));
    await assert.rejects(reader.read());
  });

  it('keeps connections alive under a burst: 32 calls at once, twice, open no more than 32 sockets', async () => {
    ports.length = 0;
    for (let round = 0; round < 2; round++) {
      await Promise.all(Array.from({ length: 32 }, async () => (await f(`${base}/echo`, { method: 'GET' })).text()));
    }
    assert.ok(new Set(ports).size <= 32, `sockets used: ${new Set(ports).size}`);
  });

  it('a buffered answer has Response members: text(), json(), clone(), bodyUsed, and one read only', async () => {
    const r = await f(`${base}/echo`, { method: 'POST', body: 'y' });
    assert.equal(r.ok, true);
    assert.equal(r.bodyUsed, false);
    const copy = r.clone();
    assert.equal((JSON.parse(await r.text()) as { body: string }).body, 'y');
    assert.equal(r.bodyUsed, true);
    assert.equal(((await copy.json()) as { body: string }).body, 'y');
    await assert.rejects(r.text());
  });

  it('a sized JSON answer is read whole before the Response resolves, and stays readable as a stream', async () => {
    const r = await f(`${base}/echo`, { method: 'POST', body: 'x' });
    const reader = (r.body as ReadableStream<Uint8Array>).getReader();
    let text = '';
    for (let c = await reader.read(); !c.done; c = await reader.read()) text += new TextDecoder().decode(c.value);
    assert.equal(JSON.parse(text).body, 'x');
  });

  it('truncated body: a sized answer whose connection drops mid-body rejects with TypeError("fetch failed")', async () => {
    await assert.rejects(f(`${base}/truncated`, { method: 'GET' }), (e: unknown) => e instanceof TypeError && e.message === 'fetch failed');
  });

  it('a sized answer that stalls mid-body rejects with the signal reason on abort', async () => {
    const controller = new AbortController();
    const stalled = new Promise<void>((resolve) => (onStalled = resolve));
    const pending = f(`${base}/hang-json`, { method: 'GET', signal: controller.signal });
    await stalled;
    controller.abort(new Error('stop stalled'));
    await assert.rejects(pending, /stop stalled/);
  });

  it('network failure rejects with TypeError("fetch failed") carrying the cause, as fetch does', async () => {
    const closed = createServer();
    await new Promise<void>((resolve) => closed.listen(0, '127.0.0.1', resolve));
    const port = (closed.address() as AddressInfo).port;
    await new Promise<void>((resolve) => closed.close(() => resolve()));
    await assert.rejects(f(`http://127.0.0.1:${port}/`, { method: 'GET' }), (e: unknown) => e instanceof TypeError && e.message === 'fetch failed' && e.cause instanceof Error);
  });

  it('refuses protocols other than http and https, and unsupported bodies', async () => {
    await assert.rejects(f('file:///etc/passwd', { method: 'GET' }), TypeError);
    await assert.rejects(f(`${base}/echo`, { method: 'POST', body: new Blob(['x']) }), TypeError);
  });
});

describe('McpClient over nodeFetch, against our server', () => {
  it('both eras: stateless calls, and a 2025-11-25 session (initialize, GET stream, DELETE on close)', async () => {
    const mcp = new McpServer({ name: 'nf', version: '1.0.0' });
    mcp.tool('echo', { description: 'echo', inputSchema: { type: 'object', properties: { message: { type: 'string' } }, required: ['message'] } }, (args) => ({
      content: [{ type: 'text' as const, text: String(args['message']) }],
    }));
    const listening = await listen(createStreamableHttpHandler(mcp, { path: '/mcp' }), { port: 0 });
    try {
      const fetch = nodeFetch();
      for (const era of ['stateless', 'stateful'] as const) {
        const client = new McpClient({ name: 'c', version: '1.0.0' }, { era });
        await client.connect(new StreamableHttpClientTransport({ url: `${listening.url}mcp`, fetch }));
        const result = await client.callTool('echo', { message: `hi ${client.protocolVersion}` });
        assert.deepEqual(result.content, [{ type: 'text', text: `hi ${client.protocolVersion}` }]);
        assert.equal(client.era, era);
        await client.close();
      }
    } finally {
      await listening.close();
      await mcp.close();
    }
  });
});
