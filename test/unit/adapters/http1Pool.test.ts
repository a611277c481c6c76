/**
 * `nodeFetch`'s POSTs to `http:` origins run on the lean HTTP/1.1 pool (`http1Pool.ts`).
 * Checked against a raw TCP server that answers with exact bytes: every body framing
 * (length, chunked with trailers, until close, none), interim answers, keep-alive reuse and
 * its limits, abort, and the attacks a hand-written HTTP client must stop: header injection
 * in the request, and desynchronising answers (conflicting lengths, stray bytes, malformed
 * heads, oversized heads, unasked upgrades) that must fail the call and never be reused.
 */
import assert from 'node:assert/strict';
import { createServer, type Server, type Socket } from 'node:net';
import { after, before, describe, it, mock } from 'node:test';
import { gzipSync } from 'node:zlib';
import { nodeFetch } from '../../../src/adapters/nodeFetch.js';
import { requestHead } from '../../../src/adapters/http1Pool.js';
import { Cancellation } from '../../../src/transport/http/client/clientCancel.js';
import { FETCH_ABORT_HOOK } from '../../../src/transport/http/client/clientOptions.js';

interface Seen {
  readonly path: string;
  readonly head: string;
  readonly body: Buffer;
  readonly socket: number;
}

let server: Server;
let base: string;
const seen: Seen[] = [];
let sockets = 0;
/** Called once `/stall` has sent part of its body. */
let onStalled: (() => void) | undefined;

const json = (body: string, extra = ''): string => `HTTP/1.1 200 OK\r\ncontent-type: application/json\r\ncontent-length: ${Buffer.byteLength(body)}\r\n${extra}\r\n${body}`;

/** The answer to one request: bytes, or a function that writes them itself. */
function answer(path: string, body: Buffer): string | Buffer | ((socket: Socket) => void) {
  switch (path) {
    case '/echo':
      return json(JSON.stringify({ body: body.toString('utf8') }));
    case '/multi':
      return json('{}', 'X-Multi: a\r\nx-multi: b\r\nset-cookie: c=1\r\nset-cookie: d=2\r\n');
    case '/chunked':
      return 'HTTP/1.1 200 OK\r\ncontent-type: application/json\r\ntransfer-encoding: chunked\r\n\r\n5;ext=1\r\n{"a":\r\n2\r\n1}\r\n0\r\nx-trailer: t\r\n\r\n';
    case '/gzip': {
      const zipped = gzipSync('compressed hello');
      return Buffer.concat([Buffer.from(`HTTP/1.1 200 OK\r\ncontent-type: text/plain\r\ncontent-encoding: gzip\r\ncontent-length: ${zipped.length}\r\n\r\n`), zipped]);
    }
    case '/early-hints':
      return 'HTTP/1.1 103 Early Hints\r\nlink: </x>\r\n\r\n' + json('{"after":"hints"}');
    case '/empty':
      return 'HTTP/1.1 204 No Content\r\n\r\n';
    case '/until-close':
      return (socket) => socket.end('HTTP/1.1 200 OK\r\ncontent-type: text/plain\r\n\r\nall of it');
    case '/close':
      return json('{"closing":true}', 'connection: close\r\n');
    case '/short-keepalive':
      return json('{"short":true}', 'keep-alive: timeout=1\r\n');
    case '/keepalive-5':
      return json('{"hint":5}', 'keep-alive: timeout=5\r\n');
    case '/sse':
      return (socket) => {
        socket.write('HTTP/1.1 200 OK\r\ncontent-type: text/event-stream\r\ntransfer-encoding: chunked\r\n\r\n');
        socket.write('b\r\ndata: one\n\n\r\n');
        setTimeout(() => socket.write('b\r\ndata: two\n\n\r\n0\r\n\r\n'), 150);
      };
    case '/hang':
      return (socket) => socket.write('HTTP/1.1 200 OK\r\ncontent-type: text/event-stream\r\ntransfer-encoding: chunked\r\n\r\n9\r\n: open\n\n\r\n');
    case '/stall':
      return (socket) => socket.write('HTTP/1.1 200 OK\r\ncontent-type: application/json\r\ncontent-length: 100\r\n\r\n{"partial"', () => onStalled?.());
    case '/truncated':
      return (socket) => socket.end('HTTP/1.1 200 OK\r\ncontent-type: application/json\r\ncontent-length: 100\r\n\r\n{"partial"');
    case '/two-lengths':
      return 'HTTP/1.1 200 OK\r\ncontent-length: 2\r\ncontent-length: 20\r\n\r\n{}';
    case '/stray':
      // A complete answer, then bytes that would pass for the next request's answer.
      return json('{"first":true}') + json('{"smuggled":true}');
    case '/bad-status':
      return 'HTTP/1.1 2xx Fine\r\ncontent-length: 2\r\n\r\n{}';
    case '/bad-version':
      return 'HTTP/1.2 200 OK\r\ncontent-length: 2\r\n\r\n{}';
    case '/long-code':
      return 'HTTP/1.1 2000 OK\r\ncontent-length: 2\r\n\r\n{}';
    case '/split-reason':
      // A lone LF in the reason phrase: the status line ends at the first CRLF, so it is malformed.
      return 'HTTP/1.1 200 O\nK\r\ncontent-length: 2\r\n\r\n{}';
    case '/no-reason':
      return 'HTTP/1.1 201\r\nx-padded: \t  spaced out \t\r\ncontent-length: 2\r\n\r\n{}';
    case '/http10':
      return 'HTTP/1.0 200 Fine Thanks\r\ncontent-length: 2\r\n\r\n{}';
    case '/folded':
      return 'HTTP/1.1 200 OK\r\nx-a: one\r\n  folded\r\ncontent-length: 2\r\n\r\n{}';
    case '/huge-head':
      return (socket) => socket.write(`HTTP/1.1 200 OK\r\nx-big: ${'a'.repeat(70 * 1024)}`);
    case '/upgrade':
      return 'HTTP/1.1 101 Switching Protocols\r\nupgrade: websocket\r\nconnection: upgrade\r\n\r\n';
    case '/bad-chunk':
      return 'HTTP/1.1 200 OK\r\ncontent-type: application/json\r\ntransfer-encoding: chunked\r\n\r\nzz\r\n{}\r\n0\r\n\r\n';
    default:
      return 'HTTP/1.1 404 Not Found\r\ncontent-length: 0\r\n\r\n';
  }
}

const open = new Set<Socket>();

function serve(socket: Socket): void {
  const id = ++sockets;
  open.add(socket);
  socket.on('close', () => open.delete(socket));
  let buffer = Buffer.alloc(0);
  socket.on('error', () => undefined);
  socket.on('data', (chunk: Buffer) => {
    buffer = Buffer.concat([buffer, chunk]);
    for (;;) {
      const end = buffer.indexOf('\r\n\r\n');
      if (end < 0) return;
      const head = buffer.toString('latin1', 0, end);
      const length = Number(/content-length: (\d+)/i.exec(head)?.[1] ?? 0);
      if (buffer.length < end + 4 + length) return;
      const body = buffer.subarray(end + 4, end + 4 + length);
      buffer = buffer.subarray(end + 4 + length);
      const path = head.split(' ')[1] ?? '/';
      seen.push({ path, head, body, socket: id });
      const reply = answer(path, body);
      if (typeof reply === 'function') reply(socket);
      else socket.write(reply);
    }
  });
}

before(async () => {
  server = createServer(serve);
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const address = server.address() as { port: number };
  base = `http://127.0.0.1:${address.port}`;
});

after(async () => {
  // The pools' idle keep-alive connections would hold the server open.
  for (const socket of open) socket.destroy();
  await new Promise<void>((resolve) => server.close(() => resolve()));
});

const post = (f: ReturnType<typeof nodeFetch>, path: string, init: { body?: string; headers?: Record<string, string>; signal?: AbortSignal } = {}): Promise<Response> =>
  f(`${base}${path}`, { method: 'POST', body: init.body ?? '{}', headers: { 'content-type': 'application/json', ...init.headers }, ...(init.signal !== undefined ? { signal: init.signal } : {}) });

const socketsOf = (from: number): Set<number> => new Set(seen.slice(from).map((s) => s.socket));

const failed = (e: unknown): boolean => e instanceof TypeError && e.message === 'fetch failed' && e.cause instanceof Error;

describe('nodeFetch POST on the HTTP/1.1 pool: framings and keep-alive', () => {
  const f = nodeFetch();

  it('sends the head and a UTF-8 body in one request, with Host and Content-Length', async () => {
    const from = seen.length;
    const r = await post(f, '/echo', { body: '{"text":"héllo ☃"}', headers: { 'x-custom': 'v' } });
    assert.equal(r.status, 200);
    assert.deepEqual(await r.json(), { body: '{"text":"héllo ☃"}' });
    const head = `${(seen[from] as Seen).head}\r\n`;
    assert.match(head, /^POST \/echo HTTP\/1\.1\r\n/);
    assert.match(head, new RegExp(`\\r\\nhost: ${base.slice('http://'.length)}\\r\\n`));
    assert.match(head, /\r\nx-custom: v\r\n/);
    assert.match(head, new RegExp(`\\r\\ncontent-length: ${Buffer.byteLength('{"text":"héllo ☃"}')}\\r\\n`));
  });

  it('answers have Headers semantics: any-case names, repeated fields joined, sorted iteration, read-only; a Response made from them agrees', async () => {
    const r = await post(f, '/multi');
    assert.equal(r.headers.get('X-MULTI'), 'a, b');
    assert.equal(r.headers.has('Content-Type'), true);
    assert.equal(r.headers.get('absent'), null);
    assert.deepEqual(r.headers.getSetCookie(), ['c=1', 'd=2']);
    const pairsOf = (headers: Headers): [string, string][] => {
      const out: [string, string][] = [];
      headers.forEach((value, name) => out.push([name, value]));
      return out;
    };
    const pairs = pairsOf(r.headers);
    assert.deepEqual(pairs, [['content-length', '2'], ['content-type', 'application/json'], ['set-cookie', 'c=1'], ['set-cookie', 'd=2'], ['x-multi', 'a, b']]);
    assert.throws(() => r.headers.append('x-new', 'v'), TypeError);
    assert.deepEqual(pairsOf(r.clone().headers), pairs);
  });

  it('reads chunked bodies (extensions and trailers), gzip, answers read to the close, and 204', async () => {
    assert.deepEqual(await (await post(f, '/chunked')).json(), { a: 1 });
    assert.equal(await (await post(f, '/gzip')).text(), 'compressed hello');
    assert.equal(await (await post(f, '/until-close')).text(), 'all of it');
    const empty = await post(f, '/empty');
    assert.equal(empty.status, 204);
    assert.equal(empty.body, null);
  });

  it('skips an interim 103 answer and returns the final one', async () => {
    const r = await post(f, '/early-hints');
    assert.equal(r.status, 200);
    assert.deepEqual(await r.json(), { after: 'hints' });
  });

  it('streams: an SSE event of a POST is readable before the answer ends', async () => {
    const r = await post(f, '/sse');
    const reader = (r.body as ReadableStream<Uint8Array>).getReader();
    const first = await reader.read();
    assert.match(new TextDecoder().decode(first.value), /data: one/);
    let rest = '';
    for (let c = await reader.read(); !c.done; c = await reader.read()) rest += new TextDecoder().decode(c.value);
    assert.match(rest, /data: two/);
  });

  it('keeps connections alive: sequential POSTs reuse one socket, a burst of 32 opens at most 32', async () => {
    let from = seen.length;
    for (let i = 0; i < 5; i++) await (await post(f, '/echo')).text();
    assert.equal(socketsOf(from).size, 1);
    from = seen.length;
    for (let round = 0; round < 2; round++) await Promise.all(Array.from({ length: 32 }, async () => (await post(f, '/echo')).text()));
    assert.ok(socketsOf(from).size <= 32, `sockets used: ${socketsOf(from).size}`);
  });

  it('beyond maxSockets, requests wait for a connection and all complete', async () => {
    const small = nodeFetch({ maxSockets: 2 });
    const from = seen.length;
    const bodies = await Promise.all(Array.from({ length: 6 }, async (_, i) => (await post(small, '/echo', { body: `{"i":${i}}` })).json()));
    assert.deepEqual(bodies, Array.from({ length: 6 }, (_, i) => ({ body: `{"i":${i}}` })));
    assert.equal(socketsOf(from).size, 2);
  });

  it('writes a request at the end of its turn: one aborted in the turn it was made is never sent, the others of that turn are', async () => {
    const g = nodeFetch();
    // Three connected idle sockets: a request on a connecting one is held back by the socket anyway.
    await Promise.all([1, 2, 3].map(async () => (await post(g, '/echo')).text()));
    const from = seen.length;
    const withdrawn = new AbortController();
    const kept = post(g, '/echo', { body: '{"n":1}' });
    const dropped = post(g, '/echo', { body: '{"n":2}', signal: withdrawn.signal });
    const also = post(g, '/echo', { body: '{"n":3}' });
    withdrawn.abort(new Error('withdrawn'));
    await assert.rejects(dropped, /withdrawn/);
    assert.deepEqual(await Promise.all([(await kept).json(), (await also).json()]), [{ body: '{"n":1}' }, { body: '{"n":3}' }]);
    assert.deepEqual(seen.slice(from).map((s) => s.body.toString('utf8')).sort(), ['{"n":1}', '{"n":3}']);
  });

  it('status lines without a reason and HTTP/1.0 answers are read; header values lose their surrounding white space', async () => {
    const g = nodeFetch();
    const bare = await post(g, '/no-reason');
    assert.equal(bare.status, 201);
    assert.equal(bare.statusText, '');
    assert.equal(bare.headers.get('x-padded'), 'spaced out');
    assert.deepEqual(await bare.json(), {});
    const from = seen.length;
    const old = await post(g, '/http10');
    assert.equal(old.statusText, 'Fine Thanks');
    await old.text();
    // HTTP/1.0 without keep-alive: the connection is not reused.
    await (await post(g, '/echo')).text();
    assert.equal(socketsOf(from).size, 2);
  });

  it('does not reuse a connection after Connection: close, an answer read to the close, or a keep-alive hint of 1 s', async () => {
    for (const path of ['/close', '/until-close', '/short-keepalive']) {
      const g = nodeFetch();
      const from = seen.length;
      await (await post(g, path)).text();
      await (await post(g, '/echo')).text();
      assert.equal(socketsOf(from).size, 2, path);
    }
  });

  it('abort before the answer rejects with the signal reason; abort during a streamed body errors the stream', async () => {
    const early = new AbortController();
    early.abort(new Error('stop early'));
    await assert.rejects(post(f, '/echo', { signal: early.signal }), /stop early/);
    const late = new AbortController();
    const r = await post(f, '/hang', { signal: late.signal });
    const reader = (r.body as ReadableStream<Uint8Array>).getReader();
    await reader.read();
    late.abort(new Error('stop late'));
    await assert.rejects(reader.read());
  });

  it('a sized answer that stalls mid-body rejects with the signal reason on abort, and its connection is not reused', async () => {
    const g = nodeFetch();
    const controller = new AbortController();
    const stalled = new Promise<void>((resolve) => (onStalled = resolve));
    const from = seen.length;
    const pending = post(g, '/stall', { signal: controller.signal });
    await stalled;
    controller.abort(new Error('stop stalled'));
    await assert.rejects(pending, /stop stalled/);
    await (await post(g, '/echo')).text();
    assert.equal(socketsOf(from).size, 2);
  });

  it('an idle connection is not taken once the keep-alive hint (less a second) has run out', async (t) => {
    const g = nodeFetch();
    t.after(() => mock.timers.reset());
    mock.timers.enable({ apis: ['Date'], now: Date.now() });
    let from = seen.length;
    await (await post(g, '/keepalive-5')).text();
    mock.timers.tick(3_999);
    await (await post(g, '/keepalive-5')).text();
    assert.equal(socketsOf(from).size, 1, 'reused within the hint');
    from = seen.length;
    mock.timers.tick(4_001);
    await (await post(g, '/echo')).text();
    assert.equal(socketsOf(from).size, 1);
    assert.notEqual(seen.at(-1)?.socket, seen.at(-2)?.socket, 'a new connection after the hint ran out');
  });

  it('takes a FETCH_ABORT_HOOK in place of a signal: abort before the answer, during a sized body, and the callback is dropped after the answer', async () => {
    assert.equal(f[FETCH_ABORT_HOOK], true);
    const hooked = (path: string, cancel: Cancellation): Promise<Response> =>
      f(`${base}${path}`, { method: 'POST', body: '{}', headers: { 'content-type': 'application/json' }, [FETCH_ABORT_HOOK]: cancel });
    const early = new Cancellation();
    early.abort(new Error('hook early'));
    await assert.rejects(hooked('/echo', early), /hook early/);
    const g = nodeFetch();
    const stalling = new Cancellation();
    const stalled = new Promise<void>((resolve) => (onStalled = resolve));
    const from = seen.length;
    const pending = g(`${base}/stall`, { method: 'POST', body: '{}', [FETCH_ABORT_HOOK]: stalling });
    await stalled;
    stalling.abort(new Error('hook stalled'));
    await assert.rejects(pending, /hook stalled/);
    await (await post(g, '/echo')).text();
    assert.equal(socketsOf(from).size, 2, 'the aborted connection is not reused');
    // After a complete answer the request's callback is taken off the hook.
    const calls: string[] = [];
    let set: ((reason: unknown) => void) | undefined;
    const recording = {
      aborted: false,
      reason: undefined,
      onAbort(callback: (reason: unknown) => void) {
        calls.push('on');
        set = callback;
      },
      offAbort(callback: (reason: unknown) => void) {
        calls.push(callback === set ? 'off' : 'off-other');
      },
    };
    await (await hooked('/echo', recording as unknown as Cancellation)).text();
    assert.deepEqual(calls, ['on', 'off']);
  });

  it('network failure rejects with TypeError("fetch failed") carrying the cause', async () => {
    const closed = createServer();
    await new Promise<void>((resolve) => closed.listen(0, '127.0.0.1', resolve));
    const port = (closed.address() as { port: number }).port;
    await new Promise<void>((resolve) => closed.close(() => resolve()));
    await assert.rejects(f(`http://127.0.0.1:${port}/`, { method: 'POST', body: '{}' }), failed);
  });
});

describe('nodeFetch POST on the HTTP/1.1 pool: attacks', () => {
  it('header injection: a CR/LF in a header value is refused before anything is sent', async () => {
    const f = nodeFetch();
    const from = seen.length;
    await assert.rejects(post(f, '/echo', { headers: { 'x-evil': 'v\r\nx-injected: 1' } }), TypeError);
    await assert.rejects(post(f, '/echo', { headers: { 'x-evil': 'v\nPOST /other HTTP/1.1' } }), TypeError);
    await assert.rejects(post(f, '/echo', { headers: { 'x-evil': 'nul\u0000byte' } }), TypeError);
    assert.equal(seen.length, from, 'nothing reached the server');
    // A header whose checked lines are kept (Mcp-Name): a known good value does not vouch for a bad one.
    await (await post(f, '/echo', { headers: { 'mcp-name': 'echo' } })).text();
    const sent = seen.length;
    await assert.rejects(post(f, '/echo', { headers: { 'mcp-name': 'echo\r\nx-injected: 1' } }), TypeError);
    await assert.rejects(post(f, '/echo', { headers: { 'mcp-name': 'echo\r\n' } }), TypeError);
    assert.equal(seen.length, sent, 'nothing more reached the server');
    assert.equal(seen.at(-1)?.head.includes('mcp-name: echo\r\n'), true);
  });

  it('header injection: a header name that is not a token (space, colon, CRLF) is refused', () => {
    const request = { host: 'h', port: 80, authority: 'h', method: 'POST', path: '/', body: undefined };
    for (const name of ['x evil', 'x:evil', 'x\r\nevil', '']) {
      assert.throws(() => requestHead({ ...request, headers: { [name]: 'v' } }, undefined), TypeError, JSON.stringify(name));
    }
  });

  it('response smuggling: two different Content-Length values fail the call', async () => {
    await assert.rejects(post(nodeFetch(), '/two-lengths'), failed);
  });

  it('desync: bytes after a complete answer never become the next answer (the connection is dropped)', async () => {
    const f = nodeFetch();
    const from = seen.length;
    assert.deepEqual(await (await post(f, '/stray')).json(), { first: true });
    assert.deepEqual(await (await post(f, '/echo', { body: '{"second":1}' })).json(), { body: '{"second":1}' });
    assert.equal(socketsOf(from).size, 2);
  });

  it('malformed answers fail the call: bad status line, folded header, oversized head, unasked upgrade, bad chunk size, truncated body', async () => {
    for (const path of ['/bad-status', '/bad-version', '/long-code', '/split-reason', '/folded', '/huge-head', '/upgrade', '/truncated']) {
      await assert.rejects(post(nodeFetch(), path), failed, path);
    }
    // A chunked body is streamed: its framing error errors the stream.
    const chunked = await post(nodeFetch(), '/bad-chunk');
    await assert.rejects(chunked.text());
  });
});
