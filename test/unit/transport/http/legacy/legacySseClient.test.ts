// The 2024-11-05 HTTP+SSE client transport against a small hand-written legacy server:
// GET /sse opens the stream and names the endpoint; POSTs are answered 202 and the replies
// travel on the stream as `message` events.
import assert from 'node:assert/strict';
import { createServer, type IncomingHttpHeaders, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';
import { after, describe, it } from 'node:test';
import type { ChannelSink } from '../../../../../src/jsonrpc/channel.js';
import { Connection } from '../../../../../src/jsonrpc/connection.js';
import type { DecodeResult } from '../../../../../src/jsonrpc/decode.js';
import type { JsonRpcMessage, JsonRpcRequest } from '../../../../../src/jsonrpc/messages.js';
import { LegacySseClientTransport, type LegacySseClientOptions } from '../../../../../src/transport/http/legacy/legacySseClient.js';
import { isMcpError, McpErrorCode } from '../../../../../src/util/errors.js';

interface Seen {
  readonly method: string;
  readonly url: string;
  readonly headers: IncomingHttpHeaders;
  readonly body: string;
}

interface LegacyOptions {
  /** The `endpoint` event's data; a function of the server's origin; null sends none. */
  readonly endpoint?: string | ((origin: string) => string) | null;
  /** Answers the GET instead of the default stream (return true when handled). */
  readonly onGet?: (req: Seen, res: ServerResponse) => boolean;
  /** Answers a POST instead of the default 202 (return true when handled). */
  readonly onPost?: (req: Seen, res: ServerResponse) => boolean;
  /** Called with each accepted message; `reply` writes on the stream. */
  readonly onMessage?: (message: JsonRpcMessage, reply: (m: unknown) => void) => void;
}

interface LegacyServer {
  readonly origin: string;
  readonly url: string;
  readonly seen: Seen[];
  /** Writes raw text on every open stream. */
  write(text: string): void;
  /** Writes a message event on every open stream. */
  push(message: unknown): void;
  /** Ends every open stream. */
  endStreams(): void;
  /** Resolves when a GET stream was closed by the client. */
  readonly streamClosed: Promise<void>;
}

/** A tiny legacy HTTP+SSE server. */
async function legacyServer(options: LegacyOptions = {}): Promise<LegacyServer> {
  const seen: Seen[] = [];
  const streams = new Set<ServerResponse>();
  let onStreamClosed!: () => void;
  const streamClosed = new Promise<void>((resolve) => (onStreamClosed = resolve));
  let origin = '';
  const write = (text: string): void => {
    for (const s of streams) s.write(text);
  };
  const push = (message: unknown): void => write(`event: message\ndata: ${JSON.stringify(message)}\n\n`);
  const server = createServer((req, res) => {
    const chunks: Buffer[] = [];
    req.on('data', (c: Buffer) => chunks.push(c));
    req.on('end', () => {
      const entry: Seen = { method: req.method ?? '', url: req.url ?? '', headers: req.headers, body: Buffer.concat(chunks).toString('utf8') };
      seen.push(entry);
      if (req.method === 'GET') {
        if (options.onGet?.(entry, res) === true) return;
        res.writeHead(200, { 'content-type': 'text/event-stream', 'cache-control': 'no-cache' });
        res.write(': hello\n\n');
        const endpoint = options.endpoint === undefined ? '/messages?sessionId=s1' : options.endpoint;
        if (endpoint !== null) res.write(`event: endpoint\ndata: ${typeof endpoint === 'function' ? endpoint(origin) : endpoint}\n\n`);
        streams.add(res);
        res.on('close', () => {
          streams.delete(res);
          onStreamClosed();
        });
        return;
      }
      if (options.onPost?.(entry, res) === true) return;
      res.writeHead(202).end('Accepted');
      options.onMessage?.(JSON.parse(entry.body) as JsonRpcMessage, push);
    });
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  origin = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
  after(() => {
    server.closeAllConnections();
    server.close();
  });
  return {
    origin,
    url: `${origin}/sse`,
    seen,
    write,
    push,
    endStreams: () => {
      for (const s of streams) s.end();
    },
    streamClosed,
  };
}

/** A server that answers every request with `{ echo: method }` on the stream. */
function echo(message: JsonRpcMessage, reply: (m: unknown) => void): void {
  if ('method' in message && 'id' in message) reply({ jsonrpc: '2.0', id: message.id, result: { echo: message.method } });
}

function collector(): ChannelSink & { messages: JsonRpcMessage[]; frames: DecodeResult[]; reasons: (Error | undefined)[] } {
  const messages: JsonRpcMessage[] = [];
  const frames: DecodeResult[] = [];
  const reasons: (Error | undefined)[] = [];
  return {
    messages,
    frames,
    reasons,
    receive(frame) {
      frames.push(frame);
      if ('message' in frame) messages.push(frame.message);
    },
    closed(reason) {
      reasons.push(reason);
    },
  };
}

function open(url: string, options: Partial<LegacySseClientOptions> = {}): { t: LegacySseClientTransport; sink: ReturnType<typeof collector> } {
  const t = new LegacySseClientTransport({ url, connectTimeoutMs: 2000, ...options });
  after(() => t.close());
  return { t, sink: collector() };
}

async function connected(url: string, options: Partial<LegacySseClientOptions> = {}): Promise<{ t: LegacySseClientTransport; connection: Connection }> {
  const t = new LegacySseClientTransport({ url, connectTimeoutMs: 2000, ...options });
  const connection = new Connection(t, { defaultTimeoutMs: 5000 });
  after(() => connection.close());
  await connection.start();
  return { t, connection };
}

async function until(check: () => boolean, ms = 2000): Promise<void> {
  const deadline = Date.now() + ms;
  while (!check()) {
    if (Date.now() > deadline) throw new Error('timed out waiting');
    await new Promise((resolve) => setTimeout(resolve, 5));
  }
}

let nextId = 1;
function request(method: string): JsonRpcRequest {
  return { jsonrpc: '2.0', id: nextId++, method, params: {} };
}

describe('legacy HTTP+SSE client · handshake and messages', () => {
  it('opens the stream, learns the endpoint and round-trips a request', async () => {
    const server = await legacyServer({ onMessage: echo });
    const { t, connection } = await connected(server.url, { headers: { 'X-Trace': 'abc' } });
    assert.equal(t.endpoint, `${server.origin}/messages?sessionId=s1`);
    assert.deepEqual(await connection.request('tools/list', {}), { echo: 'tools/list' });
    const get = server.seen[0]!;
    assert.equal(get.method, 'GET');
    assert.equal(get.url, '/sse');
    assert.equal(get.headers['accept'], 'text/event-stream');
    assert.equal(get.headers['x-trace'], 'abc');
    const post = server.seen[1]!;
    assert.equal(post.method, 'POST');
    assert.equal(post.url, '/messages?sessionId=s1');
    assert.equal(post.headers['content-type'], 'application/json');
    assert.equal(post.headers['x-trace'], 'abc');
    assert.equal((JSON.parse(post.body) as JsonRpcRequest).method, 'tools/list');
  });

  it('delivers server→client requests and notifications to the sink, and ignores other event names', async () => {
    const server = await legacyServer();
    const { t, sink } = open(server.url);
    await t.start(sink);
    server.write('event: ping\ndata: {"jsonrpc":"2.0","method":"not/delivered"}\n\n');
    server.push({ jsonrpc: '2.0', method: 'notifications/message', params: { level: 'info', data: 'hi' } });
    server.push({ jsonrpc: '2.0', id: 'srv-1', method: 'roots/list' });
    server.write('data: {"jsonrpc":"2.0","method":"notifications/progress","params":{"progressToken":1,"progress":1}}\n\n');
    await until(() => sink.messages.length === 3);
    assert.deepEqual(
      sink.messages.map((m) => ('method' in m ? m.method : '')),
      ['notifications/message', 'roots/list', 'notifications/progress'],
    );
    // The client answers the server's request with a POST.
    await t.send({ jsonrpc: '2.0', id: 'srv-1', result: { roots: [] } });
    assert.deepEqual(JSON.parse(server.seen.at(-1)!.body), { jsonrpc: '2.0', id: 'srv-1', result: { roots: [] } });
  });

  it('hands invalid JSON in a message event to the sink as a failed frame and keeps going', async () => {
    const server = await legacyServer();
    const { t, sink } = open(server.url);
    await t.start(sink);
    server.write('event: message\ndata: {not json\n\n');
    server.push({ jsonrpc: '2.0', method: 'notifications/tools/list_changed' });
    await until(() => sink.frames.length === 2);
    assert.equal(sink.frames[0]!.ok, false);
    assert.equal(sink.messages.length, 1);
  });

  it('resolves a relative endpoint against the SSE URL', async () => {
    const server = await legacyServer({ endpoint: 'messages?sessionId=rel', onMessage: echo });
    const { t, connection } = await connected(`${server.origin}/mcp/sse`);
    assert.equal(t.endpoint, `${server.origin}/mcp/messages?sessionId=rel`);
    await connection.request('ping', {});
    assert.equal(server.seen[1]!.url, '/mcp/messages?sessionId=rel');
  });

  it('accepts an absolute endpoint on the same origin (and drops its fragment)', async () => {
    const server = await legacyServer({ endpoint: (origin) => `${origin}/abs/post?sessionId=abs#frag`, onMessage: echo });
    const { t, connection } = await connected(server.url);
    assert.equal(t.endpoint, `${server.origin}/abs/post?sessionId=abs`);
    await connection.request('ping', {});
    assert.equal(server.seen[1]!.url, '/abs/post?sessionId=abs');
  });
});

describe('legacy HTTP+SSE client · endpoint origin', () => {
  async function refused(endpoint: string | ((origin: string) => string)): Promise<{ attacker: LegacyServer }> {
    const attacker = await legacyServer();
    const server = await legacyServer({ endpoint: typeof endpoint === 'string' ? endpoint.replace('ATTACKER', attacker.origin) : endpoint });
    const { t, sink } = open(server.url, { authorize: () => Promise.resolve('secret') });
    await assert.rejects(t.start(sink), (e) => {
      assert.ok(isMcpError(e, McpErrorCode.InvalidResponse));
      assert.match(e.message, /Refused the message endpoint/);
      return true;
    });
    assert.equal(sink.reasons.length, 1);
    assert.ok(isMcpError(sink.reasons[0], McpErrorCode.InvalidResponse));
    await assert.rejects(t.send(request('ping')), (e) => isMcpError(e, McpErrorCode.ConnectionClosed));
    assert.equal(attacker.seen.length, 0);
    assert.deepEqual(server.seen.map((r) => r.method), ['GET']);
    await server.streamClosed;
    return { attacker };
  }

  it('endpoint hijack: an absolute endpoint on another server is refused; nothing is POSTed there', async () => {
    await refused('ATTACKER/collect');
  });

  it('endpoint hijack: a protocol-relative endpoint naming another host is refused', async () => {
    await refused('//evil.example/collect');
  });

  it('endpoint hijack: another port on the same host is another origin and is refused', async () => {
    await refused((origin) => `${origin.replace(/:\d+$/, ':1')}/messages`);
  });

  it('endpoint hijack: the same host under another name (localhost vs 127.0.0.1) is refused', async () => {
    await refused((origin) => `${origin.replace('127.0.0.1', 'localhost')}/messages`);
  });

  it('endpoint hijack: a scheme change (https) is another origin and is refused', async () => {
    await refused((origin) => `${origin.replace('http:', 'https:')}/messages`);
  });

  it('endpoint hijack: a second endpoint event cannot redirect later POSTs', async () => {
    const attacker = await legacyServer();
    const server = await legacyServer({ onMessage: echo });
    const { connection } = await connected(server.url);
    server.write(`event: endpoint\ndata: ${attacker.origin}/collect\n\n`);
    server.write('event: endpoint\ndata: /elsewhere\n\n');
    assert.deepEqual(await connection.request('ping', {}), { echo: 'ping' });
    assert.equal(server.seen.at(-1)!.url, '/messages?sessionId=s1');
    assert.equal(attacker.seen.length, 0);
  });

  it('an endpoint that is not a URI reference is refused', async () => {
    const server = await legacyServer({ endpoint: 'http://[bad' });
    const { t, sink } = open(server.url);
    await assert.rejects(t.start(sink), (e) => isMcpError(e, McpErrorCode.InvalidResponse));
  });
});

describe('legacy HTTP+SSE client · failures', () => {
  it('fails start with ERR_MCP_REQUEST_TIMEOUT when no endpoint event arrives', async () => {
    const server = await legacyServer({ endpoint: null });
    const { t, sink } = open(server.url, { connectTimeoutMs: 100 });
    await assert.rejects(t.start(sink), (e) => isMcpError(e, McpErrorCode.RequestTimeout));
    assert.ok(isMcpError(sink.reasons[0], McpErrorCode.RequestTimeout));
    await server.streamClosed;
  });

  it('fails start with ERR_MCP_CONNECTION_CLOSED when the stream ends before the endpoint', async () => {
    const server = await legacyServer({ onGet: (_r, res) => (res.writeHead(200, { 'content-type': 'text/event-stream' }).end(': bye\n\n'), true) });
    const { t, sink } = open(server.url);
    await assert.rejects(t.start(sink), (e) => isMcpError(e, McpErrorCode.ConnectionClosed));
  });

  it('fails start with ERR_MCP_HTTP_STATUS on a non-2xx GET or a GET that is not an event stream', async () => {
    const notFound = await legacyServer({ onGet: (_r, res) => (res.writeHead(404).end('no such thing'), true) });
    const a = open(notFound.url);
    await assert.rejects(a.t.start(a.sink), (e) => {
      assert.ok(isMcpError(e, McpErrorCode.HttpStatus));
      assert.deepEqual(e.cause, { status: 404, body: 'no such thing' });
      return true;
    });
    const json = await legacyServer({ onGet: (_r, res) => (res.writeHead(200, { 'content-type': 'application/json' }).end('{}'), true) });
    const b = open(json.url);
    await assert.rejects(b.t.start(b.sink), (e) => isMcpError(e, McpErrorCode.HttpStatus) && /content type "application\/json"/.test(e.message));
  });

  it('fails start with ERR_MCP_SEND_FAILED when the server cannot be reached', async () => {
    const { t, sink } = open('http://127.0.0.1:1/sse');
    await assert.rejects(t.start(sink), (e) => isMcpError(e, McpErrorCode.SendFailed));
  });

  it('closes with a reason when the stream ends; pending requests and later sends fail', async () => {
    const server = await legacyServer();
    const { t, connection } = await connected(server.url);
    const reasons: (Error | undefined)[] = [];
    connection.onClose((reason) => reasons.push(reason));
    const pending = connection.request('tools/call', { name: 'slow' });
    await until(() => server.seen.length === 2);
    server.endStreams();
    await assert.rejects(pending, (e) => isMcpError(e, McpErrorCode.ConnectionClosed) && /ended the SSE stream/.test(e.message));
    assert.ok(isMcpError(reasons[0], McpErrorCode.ConnectionClosed));
    await assert.rejects(t.send(request('ping')), (e) => isMcpError(e, McpErrorCode.ConnectionClosed) && /ended the SSE stream/.test(e.message));
  });

  it('rejects a send with ERR_MCP_HTTP_STATUS when the POST is refused', async () => {
    const server = await legacyServer({ onPost: (_r, res) => (res.writeHead(400).end('Invalid message'), true) });
    const { t, sink } = open(server.url);
    await t.start(sink);
    await assert.rejects(t.send(request('tools/list')), (e) => {
      assert.ok(isMcpError(e, McpErrorCode.HttpStatus));
      assert.deepEqual(e.cause, { status: 400, body: 'Invalid message' });
      assert.match(e.message, /refused tools\/list/);
      return true;
    });
    // A refused POST does not end the transport.
    assert.deepEqual(sink.reasons, []);
  });

  it('oversized event: an event larger than limits.maxBytes closes the transport with ERR_MCP_LIMIT_EXCEEDED', async () => {
    const server = await legacyServer();
    const { t, sink } = open(server.url, { limits: { maxBytes: 1024 } });
    await t.start(sink);
    server.push({ jsonrpc: '2.0', method: 'notifications/message', params: { level: 'info', data: 'x'.repeat(4096) } });
    await until(() => sink.reasons.length === 1);
    assert.ok(isMcpError(sink.reasons[0], McpErrorCode.LimitExceeded));
    assert.equal(sink.messages.length, 0);
    await server.streamClosed;
  });

  it('oversized message: a message over limits.maxBytes in UTF-8 (but not in characters) becomes a failed frame', async () => {
    const server = await legacyServer();
    const { t, sink } = open(server.url, { limits: { maxBytes: 1024 } });
    await t.start(sink);
    server.push({ jsonrpc: '2.0', method: 'notifications/message', params: { level: 'info', data: 'é'.repeat(600) } });
    await until(() => sink.frames.length === 1);
    assert.equal(sink.frames[0]!.ok, false);
    assert.deepEqual(sink.reasons, []);
  });
});

describe('legacy HTTP+SSE client · close', () => {
  it('close() aborts the stream, closes the sink once, is idempotent, and refuses later sends', async () => {
    const server = await legacyServer();
    const { t, sink } = open(server.url);
    await t.start(sink);
    await t.close();
    await t.close();
    assert.deepEqual(sink.reasons, [undefined]);
    await server.streamClosed;
    await assert.rejects(t.send(request('ping')), (e) => isMcpError(e, McpErrorCode.ConnectionClosed));
    await assert.rejects(t.start(collector()), (e) => isMcpError(e, McpErrorCode.AlreadyStarted));
  });

  it('close() during start rejects start; a closed transport cannot start', async () => {
    const server = await legacyServer({ endpoint: null });
    const { t, sink } = open(server.url);
    const starting = t.start(sink);
    await until(() => server.seen.length === 1);
    await t.close();
    await assert.rejects(starting, (e) => isMcpError(e, McpErrorCode.ConnectionClosed));
    const fresh = new LegacySseClientTransport({ url: server.url });
    await fresh.close();
    await assert.rejects(fresh.start(collector()), (e) => isMcpError(e, McpErrorCode.ConnectionClosed));
  });

  it('close() aborts a POST under way, which rejects with ERR_MCP_CONNECTION_CLOSED', async () => {
    const server = await legacyServer({ onPost: () => true });
    const { t, sink } = open(server.url);
    await t.start(sink);
    const sending = t.send(request('ping'));
    await until(() => server.seen.length === 2);
    await t.close();
    await assert.rejects(sending, (e) => isMcpError(e, McpErrorCode.ConnectionClosed));
  });

  it('rejects a non-http(s) URL at construction', () => {
    assert.throws(() => new LegacySseClientTransport({ url: 'file:///etc/passwd' }), (e) => isMcpError(e, McpErrorCode.InvalidArgument));
    assert.throws(() => new LegacySseClientTransport({ url: 'not a url' }), (e) => isMcpError(e, McpErrorCode.InvalidArgument));
  });
});

describe('legacy HTTP+SSE client · auth', () => {
  it('sends the bearer token on the GET and on every POST', async () => {
    const server = await legacyServer({ onMessage: echo });
    const { connection } = await connected(server.url, { authorize: () => Promise.resolve('tok') });
    await connection.request('ping', {});
    await connection.notify('notifications/initialized');
    assert.equal(server.seen.length, 3);
    for (const seen of server.seen) assert.equal(seen.headers['authorization'], 'Bearer tok', seen.method);
  });

  it('a 401 on the GET and on a POST goes through onUnauthorized and is retried', async () => {
    const bad = (r: Seen, res: ServerResponse): boolean => {
      if (r.headers['authorization'] === 'Bearer good') return false;
      res.writeHead(401, { 'www-authenticate': 'Bearer resource_metadata="x"' }).end();
      return true;
    };
    const server = await legacyServer({ onGet: bad, onPost: bad, onMessage: echo });
    let token = 'stale';
    const infos: unknown[] = [];
    const { connection } = await connected(server.url, {
      authorize: () => Promise.resolve(token),
      onUnauthorized: (info) => {
        infos.push(info);
        token = 'good';
        return Promise.resolve(true);
      },
    });
    token = 'stale'; // the token expired since the stream opened
    assert.deepEqual(await connection.request('ping', {}), { echo: 'ping' });
    assert.deepEqual(infos, [
      { status: 401, wwwAuthenticate: 'Bearer resource_metadata="x"', url: server.url, authorization: 'Bearer stale' },
      { status: 401, wwwAuthenticate: 'Bearer resource_metadata="x"', url: `${server.origin}/messages?sessionId=s1`, authorization: 'Bearer stale' },
    ]);
    assert.deepEqual(
      server.seen.map((r) => `${r.method} ${r.headers['authorization'] ?? ''}`),
      ['GET Bearer stale', 'GET Bearer good', 'POST Bearer stale', 'POST Bearer good'],
    );
  });

  it('authorizationHeaders gets the method and URL of each request', async () => {
    const server = await legacyServer({ onMessage: echo });
    const calls: string[] = [];
    const { connection } = await connected(server.url, {
      authorizationHeaders: (method, url) => {
        calls.push(`${method} ${url}`);
        return Promise.resolve({ Authorization: 'DPoP tok', DPoP: `proof-${method}` });
      },
    });
    await connection.request('ping', {});
    assert.deepEqual(calls, [`GET ${server.url}`, `POST ${server.origin}/messages?sessionId=s1`]);
    assert.equal(server.seen[1]!.headers['dpop'], 'proof-POST');
  });

  it('a 401 that onUnauthorized cannot fix fails start with the challenge', async () => {
    const server = await legacyServer({ onGet: (_r, res) => (res.writeHead(401, { 'www-authenticate': 'Bearer scope="a"' }).end(), true) });
    const { t, sink } = open(server.url, { onUnauthorized: () => Promise.resolve(false) });
    await assert.rejects(t.start(sink), (e) => {
      assert.ok(isMcpError(e, McpErrorCode.HttpStatus));
      assert.deepEqual(e.cause, { status: 401, body: '', wwwAuthenticate: 'Bearer scope="a"' });
      return true;
    });
  });
});
