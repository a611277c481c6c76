import assert from 'node:assert/strict';
import { request as httpRequest } from 'node:http';
import { spawn } from 'node:child_process';
import { after, before, describe, it } from 'node:test';
import { listen, type ListeningServer } from '../../../src/adapters/nodeHttp.js';
import { McpServer } from '../../../src/server/mcpServer.js';
import { SseParser } from '../../../src/transport/http/sse.js';
import { createStreamableHttpHandler } from '../../../src/transport/http/server/server.js';
import { fakeDispatcher, request, standardHeaders, type FakeDispatcher } from '../transport/http/server/support.js';

let server: ListeningServer;
let d: FakeDispatcher;
let url: string;

const headersFor = (message: { method: string; params?: Record<string, unknown> }): Record<string, string> => {
  const h = standardHeaders(message);
  delete h['host']; // fetch sets the real one
  return h;
};

const call = (body: unknown, extra: Record<string, string> = {}, init: RequestInit = {}) =>
  fetch(url, { method: 'POST', headers: { ...headersFor(body as { method: string }), ...extra }, body: JSON.stringify(body), ...init });

before(async () => {
  d = fakeDispatcher();
  server = await listen(createStreamableHttpHandler(d, { maxBodyBytes: 8 * 1024, sseKeepAliveMs: 0 }), { port: 0 });
  url = `${server.url}mcp`;
});

after(async () => {
  await server.close();
});

/**
 * A raw node:net client in its own process (so it cannot read while this one writes) that
 * writes the whole request, headers and an oversized body, in one go, as Python's http.client
 * does, and reads nothing before the write is done. Resolves with what it read before the
 * connection ended and the socket error, if any.
 */
function oneShotPost(bodyBytes: number, chunked: boolean): Promise<{ received: string; error: string | null }> {
  const { port, hostname } = new URL(url);
  const head = Object.entries(headersFor(request('echo')))
    .map(([k, v]) => `${k}: ${v}\r\n`)
    .join('');
  const client = `
    const { connect } = require('node:net');
    const [host, port, head, size, chunked] = process.argv.slice(1);
    const body = 'x'.repeat(Number(size));
    const framing = chunked === 'true' ? 'transfer-encoding: chunked' : 'content-length: ' + body.length;
    const payload = chunked === 'true' ? body.length.toString(16) + '\\r\\n' + body + '\\r\\n0\\r\\n\\r\\n' : body;
    let received = '';
    let error = null;
    const socket = connect(Number(port), host, () => {
      socket.pause();
      socket.write('POST /mcp HTTP/1.1\\r\\nhost: ' + host + ':' + port + '\\r\\n' + head + framing + '\\r\\n\\r\\n' + payload, () => socket.resume());
    });
    socket.setEncoding('utf8');
    socket.on('data', (chunk) => (received += chunk));
    socket.on('error', (e) => (error = e.code || e.message));
    socket.on('close', () => process.stdout.write(JSON.stringify({ received, error })));
  `;
  return new Promise((resolve, reject) => {
    const child = spawn(process.execPath, ['-e', client, hostname, port, head, String(bodyBytes), String(chunked)], { stdio: ['ignore', 'pipe', 'inherit'] });
    let out = '';
    child.stdout.setEncoding('utf8');
    child.stdout.on('data', (c: string) => (out += c));
    child.on('error', reject);
    child.on('close', () => resolve(JSON.parse(out) as { received: string; error: string | null }));
  });
}

/** Raw node:http POST with a chunked body written piece by piece until the server answers. */
function rawStreamingPost(totalBytes: number): Promise<{ status: number; body: string }> {
  return new Promise((resolve, reject) => {
    const req = httpRequest(url, { method: 'POST', headers: { ...headersFor(request('echo')), 'transfer-encoding': 'chunked' } });
    let answered = false;
    req.on('response', (res) => {
      answered = true;
      let body = '';
      res.setEncoding('utf8');
      res.on('data', (c: string) => (body += c));
      res.on('end', () => resolve({ status: res.statusCode ?? 0, body }));
      res.on('error', reject);
    });
    req.on('error', (e) => (answered ? undefined : reject(e)));
    let sent = 0;
    const pump = (): void => {
      while (!answered && sent < totalBytes) {
        sent += 1024;
        if (!req.write('x'.repeat(1024))) {
          req.once('drain', pump);
          return;
        }
      }
      if (!answered) req.end();
    };
    pump();
  });
}

describe('adapters · node http', () => {
  it('binds to 127.0.0.1 by default on a free port', () => {
    assert.equal(server.host, '127.0.0.1');
    assert.ok(server.port > 0);
  });

  it('MUST 94/105: JSON answer with Content-Length in one piece', async () => {
    const res = await call(request('echo', { hello: 'wörld' }, 11));
    assert.equal(res.status, 200);
    assert.equal(res.headers.get('content-type'), 'application/json');
    const text = await res.text();
    assert.equal(res.headers.get('content-length'), String(Buffer.byteLength(text)));
    assert.equal((JSON.parse(text) as { id: number }).id, 11);
  });

  it('MUST 103: notification → 202 empty', async () => {
    const res = await call({ jsonrpc: '2.0', method: 'notifications/x' });
    assert.equal(res.status, 202);
    assert.equal(await res.text(), '');
  });

  it('MUST 94: GET and DELETE → 405 with Allow: POST', async () => {
    for (const method of ['GET', 'DELETE']) {
      const res = await fetch(url, { method });
      assert.equal(res.status, 405);
      assert.equal(res.headers.get('allow'), 'POST');
      await res.arrayBuffer();
    }
  });

  it('MUST 96: a foreign Origin → 403; MUST 145: header names in any case', async () => {
    const bad = await call(request('echo'), { Origin: 'https://evil.example.com' });
    assert.equal(bad.status, 403);
    await bad.arrayBuffer();
    const msg = request('tools/list');
    const { 'mcp-method': _drop, ...rest } = headersFor(msg);
    const ok = await fetch(url, { method: 'POST', headers: { ...rest, 'MCP-METHOD': 'tools/list', origin: `http://localhost:${server.port}` }, body: JSON.stringify(msg) });
    assert.equal(ok.status, 200);
    await ok.arrayBuffer();
  });

  it('a foreign Host → 403 (DNS rebinding), via raw node:http', async () => {
    const status = await new Promise<number>((resolve, reject) => {
      const body = JSON.stringify(request('echo'));
      const req = httpRequest(url, { method: 'POST', headers: { ...headersFor(request('echo')), host: 'evil.example.com' } }, (res) => {
        res.resume();
        resolve(res.statusCode ?? 0);
      });
      req.on('error', reject);
      req.end(body);
    });
    assert.equal(status, 403);
  });

  it('413 by Content-Length', async () => {
    const res = await call(request('echo', { pad: 'x'.repeat(10_000) }));
    assert.equal(res.status, 413);
    await res.arrayBuffer();
  });

  it('413 for a chunked body without Content-Length that outgrows the limit', async () => {
    const { status, body } = await rawStreamingPost(1024 * 1024);
    assert.equal(status, 413);
    assert.match(body, /larger than 8192 bytes/);
  });

  it('413 reaches a client that writes an oversized body in one go (lingering close), by Content-Length and while reading', async () => {
    for (const chunked of [false, true]) {
      const { received, error } = await oneShotPost(16 * 1024 * 1024, chunked);
      assert.match(received, /^HTTP\/1\.1 413 /, `chunked: ${chunked}, socket error: ${String(error)}`);
      assert.match(received, /connection: close/i);
      assert.match(received, /larger than 8192 bytes/);
    }
  });

  it('the server still answers after an oversized upload', async () => {
    const res = await call(request('echo'));
    assert.equal(res.status, 200);
    await res.arrayBuffer();
  });

  it('MUST 105/107: SSE with notifications then the response, X-Accel-Buffering: no', async () => {
    const res = await call(request('progress', { count: 3 }, 'sse-1'));
    assert.equal(res.status, 200);
    assert.equal(res.headers.get('content-type'), 'text/event-stream');
    assert.equal(res.headers.get('x-accel-buffering'), 'no');
    const events: { method?: string; id?: unknown }[] = [];
    const parser = new SseParser({ onEvent: (e) => events.push(JSON.parse(e.data) as never) });
    for await (const chunk of res.body as unknown as AsyncIterable<Uint8Array>) parser.push(chunk);
    parser.end();
    assert.equal(events.length, 4);
    assert.equal(events[3]?.id, 'sse-1');
  });

  it('MUST 109/110: aborting the fetch of a listen stream aborts env.signal', async () => {
    const before = d.aborted.length;
    const controller = new AbortController();
    const res = await call(request('listen', {}, 'L'), {}, { signal: controller.signal });
    const reader = (res.body as ReadableStream<Uint8Array>).getReader();
    const first = await reader.read();
    assert.match(new TextDecoder().decode(first.value), /acknowledged/);
    controller.abort();
    for (let i = 0; i < 50 && d.aborted.length === before; i++) await new Promise((r) => setTimeout(r, 10));
    assert.deepEqual(d.aborted.slice(before), ['listen']);
  });

  it('client disconnect during a JSON request aborts env.signal', async () => {
    const before = d.aborted.length;
    const controller = new AbortController();
    const pending = call(request('slow', { ms: 200 }), {}, { signal: controller.signal }).catch((e: unknown) => e);
    await new Promise((r) => setTimeout(r, 30));
    controller.abort();
    await pending;
    for (let i = 0; i < 50 && d.aborted.length === before; i++) await new Promise((r) => setTimeout(r, 10));
    assert.deepEqual(d.aborted.slice(before), ['slow']);
  });

  it('200 parallel requests each get their own answer', async () => {
    const results = await Promise.all(
      Array.from({ length: 200 }, async (_, i) => {
        const method = i % 3 === 0 ? 'progress' : 'slow';
        const res = await call(request(method, { ms: i % 7, count: 1, n: i }, `r${i}`));
        const text = await res.text();
        if (method === 'slow') return (JSON.parse(text) as { id: string }).id;
        const events: { id?: string }[] = [];
        const parser = new SseParser({ onEvent: (e) => events.push(JSON.parse(e.data) as never) });
        parser.push(text);
        parser.end();
        return events.at(-1)?.id;
      }),
    );
    assert.deepEqual(results, Array.from({ length: 200 }, (_, i) => `r${i}`));
  });
});

describe('adapters/nodeHttp: a client that disconnects mid-call', () => {
  it('is an ordinary end of the request: a debug entry, no error and no stack trace', async () => {
    const entries: { level: string; message: string; fields: Record<string, unknown> | undefined }[] = [];
    let logged!: () => void;
    const ended = new Promise<void>((resolve) => (logged = resolve));
    const at = (level: string) => (message: string, fields?: Record<string, unknown>) => {
      entries.push({ level, message, fields });
      if (message.startsWith('a request ended early')) logged();
    };
    const logger = { debug: at('debug'), info: at('info'), warn: at('warn'), error: at('error') };
    let started!: () => void;
    const inHandler = new Promise<void>((resolve) => (started = resolve));
    const mcp = new McpServer({ name: 'gone', version: '1.0.0' }, { logger });
    mcp.tool('wait', { inputSchema: { type: 'object' } }, (_args, ctx) => {
      started();
      return new Promise((_resolve, reject) => ctx.signal.addEventListener('abort', () => reject(ctx.signal.reason as Error), { once: true }));
    });
    const http = await listen(createStreamableHttpHandler(mcp, { logger }), { port: 0, logger });
    try {
      const controller = new AbortController();
      const body = request('tools/call', { name: 'wait', arguments: {} });
      const pending = fetch(`${http.url}mcp`, { method: 'POST', headers: headersFor(body), body: JSON.stringify(body), signal: controller.signal }).catch((e: unknown) => e);
      await inHandler;
      controller.abort();
      await pending;
      await ended;
      assert.deepEqual(entries.filter((e) => e.level === 'error' || e.level === 'warn'), []);
      const entry = entries.find((e) => e.message.startsWith('a request ended early'));
      assert.equal(entry?.level, 'debug');
      assert.doesNotMatch(String(entry?.fields?.['reason']), /\n\s+at /);
    } finally {
      await http.close();
      await mcp.close();
    }
  });
});
