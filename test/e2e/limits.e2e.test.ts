// Limits an attacker can exhaust (issue #31), end to end: the real `switchboard gateway` process
// with `gateway.limits`, raw sockets and fetch for the HTTP attacks, the official SDK v1 client
// for the notification floods, and a stdio server that floods on request and logs every request
// it receives (test/e2e/fixtures/floodServer.ts). Judged by what the wire carried and by what
// reached the server, never by what the gateway says about itself.
// https://modelcontextprotocol.io/specification/2025-11-25/basic/transports#session-management
import assert from 'node:assert/strict';
import { randomBytes } from 'node:crypto';
import { readFile } from 'node:fs/promises';
import { connect as connectSocket, type Socket } from 'node:net';
import { after, before, describe, it } from 'node:test';
import { fileURLToPath } from 'node:url';
import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { StreamableHTTPClientTransport } from '@modelcontextprotocol/sdk/client/streamableHttp.js';
import { LoggingMessageNotificationSchema, ToolListChangedNotificationSchema } from '@modelcontextprotocol/sdk/types.js';
import { startGateway, writeConfig, type GatewayConfig, type RunningGateway } from '../interop/fixtures/gatewayHarness.js';

const TIMEOUT = { timeout: 60_000 };
const SERVER = fileURLToPath(new URL('./fixtures/floodServer.ts', import.meta.url));
const ALICE_TOKEN = randomBytes(32).toString('hex');
const BOB_TOKEN = randomBytes(32).toString('hex');
const TOKENS = { tokens: [{ name: 'alice', token: '${env:ALICE_TOKEN}' }, { name: 'bob', token: '${env:BOB_TOKEN}' }] };
const FLOOD_SERVER = { command: process.execPath, args: ['--import', import.meta.resolve('tsx'), SERVER], cwd: '.', env: { CALL_LOG: 'calls.jsonl' } };
const INITIALIZE = JSON.stringify({ jsonrpc: '2.0', id: 1, method: 'initialize', params: { protocolVersion: '2025-11-25', capabilities: {}, clientInfo: { name: 'limits-e2e', version: '1.0.0' } } });

/** Starts a gateway fronting the flood server with `limits`; HOME and the config folder are temp folders. */
async function gatewayWith(limits: Record<string, number>): Promise<{ config: GatewayConfig; gateway: RunningGateway }> {
  const config = await writeConfig({ flood: FLOOD_SERVER }, { gateway: { auth: TOKENS, limits }, pins: false, servers: { flood: { era: 'stateful' } } });
  const gateway = await startGateway(config, [], [], { ALICE_TOKEN, BOB_TOKEN, HOME: config.dir, XDG_CONFIG_HOME: config.dir });
  return { config, gateway };
}

/** A raw `initialize` POST as `token`: the status, the session id, `Retry-After`. */
async function initialize(url: URL, token: string): Promise<{ status: number; session: string | null; retryAfter: string | null }> {
  const response = await fetch(url, {
    method: 'POST',
    headers: { authorization: `Bearer ${token}`, 'content-type': 'application/json', accept: 'application/json, text/event-stream' },
    body: INITIALIZE,
  });
  await response.text();
  return { status: response.status, session: response.headers.get('mcp-session-id'), retryAfter: response.headers.get('retry-after') };
}

/** A `ping` in session `session` as `token`: its HTTP status (404 for a session that is gone). */
async function ping(url: URL, token: string, session: string): Promise<number> {
  const response = await fetch(url, {
    method: 'POST',
    headers: { authorization: `Bearer ${token}`, 'content-type': 'application/json', accept: 'application/json, text/event-stream', 'mcp-session-id': session, 'mcp-protocol-version': '2025-11-25' },
    body: JSON.stringify({ jsonrpc: '2.0', id: 2, method: 'ping' }),
  });
  await response.text();
  return response.status;
}

/** Opens session `session`'s GET stream (the session is then busy while it stays open). */
async function openStream(url: URL, token: string, session: string, signal: AbortSignal): Promise<ReadableStreamDefaultReader<Uint8Array>> {
  const response = await fetch(url, { headers: { authorization: `Bearer ${token}`, accept: 'text/event-stream', 'mcp-session-id': session, 'mcp-protocol-version': '2025-11-25' }, signal });
  assert.equal(response.status, 200);
  assert.ok(response.body !== null);
  return response.body.getReader();
}

/** A raw socket to the gateway, once connected, with what it received and when it closed. */
async function socketTo(url: URL): Promise<{ socket: Socket; received: () => string; closed: Promise<number> }> {
  const socket = connectSocket(Number(url.port), url.hostname);
  let received = '';
  socket.on('data', (chunk: Buffer) => (received += chunk.toString('latin1')));
  socket.on('error', () => undefined);
  const started = Date.now();
  const closed = new Promise<number>((resolve) => socket.once('close', () => resolve(Date.now() - started)));
  await new Promise<void>((resolve, reject) => {
    socket.once('connect', resolve);
    socket.once('error', reject);
  });
  return { socket, received: () => received, closed };
}

/** An SDK v1 client of `url` as `token`. */
async function sdkClient(url: URL, token: string): Promise<Client> {
  const client = new Client({ name: 'limits-e2e', version: '1.0.0' });
  await client.connect(new StreamableHTTPClientTransport(url, { requestInit: { headers: { Authorization: `Bearer ${token}` } } }));
  return client;
}

describe('e2e: limits per caller (the real gateway, gateway.limits)', () => {
  let config: GatewayConfig;
  let gateway: RunningGateway;
  const HEADERS_MS = 1000;
  const REQUEST_MS = 2000;
  before(async () => {
    ({ config, gateway } = await gatewayWith({ maxSessions: 6, sessionsPerPrincipal: 3, headersTimeoutMs: HEADERS_MS, requestTimeoutMs: REQUEST_MS, maxConnections: 16 }));
  }, TIMEOUT);
  after(async () => {
    await gateway.stop();
    await config.remove();
  }, TIMEOUT);

  it('session exhaustion: one principal cannot hold all session slots (another principal still connects)', TIMEOUT, async () => {
    // alice opens twice the whole server's capacity and never ends a session.
    const alice: string[] = [];
    for (let i = 0; i < 12; i++) {
      const opened = await initialize(gateway.url, ALICE_TOKEN);
      assert.equal(opened.status, 200, `alice's initialize ${i}`);
      alice.push(opened.session as string);
    }
    const bob = await initialize(gateway.url, BOB_TOKEN);
    assert.equal(bob.status, 200, 'bob still gets a session');
    assert.equal(await ping(gateway.url, BOB_TOKEN, bob.session as string), 200);
    // alice holds her share only: her newest sessions live, her oldest idle ones were ended.
    for (const session of alice.slice(-3)) assert.equal(await ping(gateway.url, ALICE_TOKEN, session), 200);
    for (const session of alice.slice(0, 9)) assert.equal(await ping(gateway.url, ALICE_TOKEN, session), 404);
  });

  it('session exhaustion: a principal whose sessions are all busy gets 429 with Retry-After (not 503), and another principal still connects', TIMEOUT, async () => {
    const streams = new AbortController();
    try {
      const held: string[] = [];
      for (let i = 0; i < 3; i++) {
        const opened = await initialize(gateway.url, ALICE_TOKEN);
        assert.equal(opened.status, 200);
        held.push(opened.session as string);
        await openStream(gateway.url, ALICE_TOKEN, opened.session as string, streams.signal);
      }
      const refused = await initialize(gateway.url, ALICE_TOKEN);
      assert.equal(refused.status, 429);
      assert.equal(refused.retryAfter, '5');
      assert.equal(refused.session, null);
      // Her busy sessions were not ended to make room.
      for (const session of held) assert.equal(await ping(gateway.url, ALICE_TOKEN, session), 200);
      const bob = await initialize(gateway.url, BOB_TOKEN);
      assert.equal(bob.status, 200);
    } finally {
      streams.abort();
    }
  });

  it('slowloris: a client sending headers one byte at a time is disconnected within the header timeout', TIMEOUT, async () => {
    const { socket, received, closed } = await socketTo(gateway.url);
    const head = `POST /mcp HTTP/1.1\r\nHost: 127.0.0.1\r\nAuthorization: Bearer ${ALICE_TOKEN}\r\nX-Padding: ${'a'.repeat(200)}`;
    let sent = 0;
    const drip = setInterval(() => {
      if (!socket.destroyed && sent < head.length) socket.write(head[sent++] as string);
    }, 50);
    try {
      const elapsed = await closed;
      // Node checks the deadline on an interval (a quarter of the header timeout here): generous bounds.
      assert.ok(elapsed < HEADERS_MS + 3000, `closed after ${elapsed} ms`);
      assert.ok(sent < head.length, 'cut off before the headers were complete');
      assert.match(received(), /^HTTP\/1\.1 408 /);
    } finally {
      clearInterval(drip);
      socket.destroy();
    }
  });

  it('slow body: a client sending its body one byte at a time is disconnected within the request timeout', TIMEOUT, async () => {
    const { socket, received, closed } = await socketTo(gateway.url);
    socket.write(`POST /mcp HTTP/1.1\r\nHost: 127.0.0.1\r\nAuthorization: Bearer ${ALICE_TOKEN}\r\nContent-Type: application/json\r\nAccept: application/json, text/event-stream\r\nContent-Length: 100000\r\n\r\n`);
    let sent = 0;
    const drip = setInterval(() => {
      if (!socket.destroyed) socket.write(sent++ === 0 ? '[' : ' ');
    }, 50);
    try {
      const elapsed = await closed;
      assert.ok(elapsed < REQUEST_MS + 3000, `closed after ${elapsed} ms`);
      assert.ok(sent < 100_000);
      assert.match(received(), /^HTTP\/1\.1 408 /);
    } finally {
      clearInterval(drip);
      socket.destroy();
    }
  });

  it('slow body: the request timeout does not cut a GET stream (it bounds receiving the request, not the response)', TIMEOUT, async () => {
    const streams = new AbortController();
    try {
      const opened = await initialize(gateway.url, BOB_TOKEN);
      const reader = await openStream(gateway.url, BOB_TOKEN, opened.session as string, streams.signal);
      // Time is the subject here: the stream outlives the request timeout, then still carries a message.
      await new Promise((resolve) => setTimeout(resolve, REQUEST_MS + 1500));
      const storm = fetch(gateway.url, {
        method: 'POST',
        headers: { authorization: `Bearer ${BOB_TOKEN}`, 'content-type': 'application/json', accept: 'application/json, text/event-stream', 'mcp-session-id': opened.session as string, 'mcp-protocol-version': '2025-11-25' },
        body: JSON.stringify({ jsonrpc: '2.0', id: 3, method: 'tools/call', params: { name: 'storm', arguments: { count: 1 } } }),
      });
      let text = '';
      while (!text.includes('notifications/tools/list_changed')) {
        const { value, done } = await reader.read();
        assert.equal(done, false, 'the GET stream is still open');
        text += new TextDecoder().decode(value);
      }
      await (await storm).text();
    } finally {
      streams.abort();
    }
  });

  it('connection flood past the cap is refused (closed unread), and the cap frees up when the flood ends', TIMEOUT, async () => {
    // 20 silent sockets against a cap of 16 (connections of the earlier tests may still count).
    const flood = [];
    for (let i = 0; i < 20; i++) flood.push(await socketTo(gateway.url));
    try {
      // Time is the subject: refused means closed at once, long before the header timeout, with nothing written.
      const outcomes = await Promise.all(flood.map((f) => Promise.race([f.closed.then((ms) => ({ ms, received: f.received() })), new Promise<undefined>((resolve) => setTimeout(resolve, HEADERS_MS / 2))])));
      const refused = outcomes.filter((o) => o !== undefined);
      assert.ok(refused.length >= 4, `${refused.length} of 20 refused`);
      for (const o of refused) assert.equal(o.received, '', 'a refused connection reads nothing');
      // The ones refused are the last ones: the cap, not chance.
      assert.ok(outcomes.slice(0, 20 - refused.length).every((o) => o === undefined));
    } finally {
      for (const f of flood) f.socket.destroy();
    }
    await Promise.all(flood.map((f) => f.closed));
    const after = await initialize(gateway.url, BOB_TOKEN);
    assert.equal(after.status, 200);
  });
});

describe('e2e: limits per server (the real gateway, a flooding stdio server)', () => {
  let config: GatewayConfig;
  let gateway: RunningGateway;
  let client: Client;
  const reached = async (): Promise<{ method: string; name?: string }[]> =>
    (await readFile(`${config.dir}/calls.jsonl`, 'utf8'))
      .split('\n')
      .filter((line) => line !== '')
      .map((line) => JSON.parse(line) as { method: string; name?: string });
  before(async () => {
    ({ config, gateway } = await gatewayWith({ progressPerSecond: 10, logsPerSecond: 20, listChangedWindowMs: 500 }));
    client = await sdkClient(gateway.url, ALICE_TOKEN);
  }, TIMEOUT);
  after(async () => {
    await client.close();
    await gateway.stop();
    await config.remove();
  }, TIMEOUT);

  it('notification flood: a server sending 10,000 progress notifications for one call delivers at most N to the client, the last progress value arrives', TIMEOUT, async (t) => {
    const seen: number[] = [];
    const result = await client.callTool({ name: 'flood_progress', arguments: { count: 10_000 } }, undefined, { onprogress: (p) => seen.push(p.progress), timeout: 50_000 });
    assert.equal(result.isError, undefined);
    t.diagnostic(`${seen.length} of 10000 progress notifications reached the client`);
    assert.ok(seen.length >= 1 && seen.length <= 50, `${seen.length} progress notifications reached the client`);
    assert.equal(seen.at(-1), 10_000, 'the final progress value arrived, before the result');
    assert.deepEqual(
      seen,
      [...seen].sort((a, b) => a - b),
      'in order',
    );
  });

  it('notification flood: a server sending 5,000 log messages for one call delivers at most M, and one summary counts the dropped ones', TIMEOUT, async (t) => {
    const logs: string[] = [];
    client.setNotificationHandler(LoggingMessageNotificationSchema, (n) => {
      logs.push(String(n.params.data));
    });
    await client.setLoggingLevel('debug');
    const result = await client.callTool({ name: 'flood_logs', arguments: { count: 5000 } });
    assert.equal(result.isError, undefined);
    const relayed = logs.filter((l) => l.startsWith('log '));
    const summaries = logs.map((l) => /dropped (\d+) log messages from server flood/.exec(l)).filter((m) => m !== null);
    assert.ok(relayed.length >= 1 && relayed.length <= 100, `${relayed.length} log messages reached the client`);
    const dropped = summaries.reduce((sum, m) => sum + Number(m[1]), 0);
    t.diagnostic(`${relayed.length} of 5000 log messages relayed, ${dropped} dropped in ${summaries.length} summaries`);
    assert.ok(summaries.length >= 1 && summaries.length <= 5, `${summaries.length} summaries`);
    assert.equal(relayed.length + dropped, 5000, 'every message is either relayed or counted');
  });

  it('list_changed storm: 3,000 list_changed cause at most K re-lists (count tools/list requests reaching the downstream fixture server), and the last change is fetched', TIMEOUT, async (t) => {
    const before = (await reached()).filter((r) => r.method === 'tools/list').length;
    let changed: () => void = () => undefined;
    client.setNotificationHandler(ToolListChangedNotificationSchema, () => changed());
    const result = await client.callTool({ name: 'storm', arguments: { count: 3000 } });
    assert.equal(result.isError, undefined);
    // The gateway tells its client each time its list changes: wait for the list the last change left.
    for (;;) {
      const announced = new Promise<void>((resolve) => (changed = resolve));
      const names = (await client.listTools()).tools.map((t) => t.name);
      if (names.includes('v_3000')) break;
      await announced;
    }
    const relists = (await reached()).filter((r) => r.method === 'tools/list').length - before;
    t.diagnostic(`${relists} re-lists reached the server for 3000 list_changed`);
    assert.ok(relists >= 1 && relists <= 10, `${relists} re-lists reached the server`);
  });
});
