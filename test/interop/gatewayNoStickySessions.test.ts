// No sticky sessions: TWO gateway processes (each with its own state folder) sharing one Redis
// (`switchboard.cache`), both fronting the same downstream HTTP server (`shared`) plus one replica
// each of a server whose tool list grows (`local`: a change made through B is seen by B alone, so
// its list_changed can reach A's GET stream only over the bus), and an official SDK v1 client (stateful 2025-11-25) whose POSTs
// alternate between the instances (a custom fetch) while its GET stream is on A. Initialize on A,
// calls on B, a list_changed raised through B arriving on A's GET stream, an elicitation from the
// downstream server answered through the other instance, and the GET stream resumed with
// Last-Event-ID on B after A's connection dropped (an event it never delivered is replayed).
// Needs the real Redis: fails (never skips) when it is missing.
import assert from 'node:assert/strict';
import { randomBytes } from 'node:crypto';
import { after, before, describe, it } from 'node:test';
import { Client as ClientV1 } from '@modelcontextprotocol/sdk/client/index.js';
import { StreamableHTTPClientTransport as HttpV1 } from '@modelcontextprotocol/sdk/client/streamableHttp.js';
import { ElicitRequestSchema, ToolListChangedNotificationSchema } from '@modelcontextprotocol/sdk/types.js';
import { McpServer } from '../../src/server/mcpServer.js';
import { openTestRedis, REDIS_URL } from '../contract/stores/backends.js';
import { serveHttp, startGateway, writeConfig, type GatewayConfig, type RunningGateway } from './fixtures/gatewayHarness.js';

let configs: GatewayConfig[] = [];
let downstreams: Awaited<ReturnType<typeof serveHttp>>[] = [];
let a: RunningGateway;
let b: RunningGateway;

/** A replica of the server whose `grow` tool adds a tool (its clients see list_changed). */
function growingServer(): McpServer {
  const server = new McpServer({ name: 'growing', version: '1.0.0' });
  let grown = 0;
  server.tool('grow', { description: 'Adds a tool' }, () => {
    grown++;
    server.tool(`grown${grown}`, {}, () => 'new');
    return `grown ${grown}`;
  });
  return server;
}

before(async () => {
  // Fails here, with a message saying so, when Redis is not running.
  const cache = await openTestRedis({ prefix: `sbtest:${randomBytes(6).toString('hex')}:` });
  const server = new McpServer({ name: 'shared-downstream', version: '1.0.0' });
  server.tool('register', { description: 'Asks for a name' }, async (_args, ctx) => {
    const answer = await ctx.elicit({ message: 'Your name?', requestedSchema: { type: 'object', properties: { name: { type: 'string' } }, required: ['name'] } });
    return answer.action === 'accept' ? `registered ${String(answer.content?.['name'])}` : `not registered (${answer.action})`;
  });
  server.tool('add', { inputSchema: { type: 'object', properties: { a: { type: 'number' }, b: { type: 'number' } } } }, (args) => String(Number(args['a']) + Number(args['b'])));
  const shared = await serveHttp(server);
  const replicas = [await serveHttp(growingServer()), await serveHttp(growingServer())];
  downstreams = [shared, ...replicas];
  const url = new URL(REDIS_URL);
  url.searchParams.set('prefix', cache.prefix);
  configs = await Promise.all(replicas.map((replica) => writeConfig({ shared: { url: shared.url, type: 'http' }, local: { url: replica.url, type: 'http' } }, { namespacing: 'always', cache: url.toString(), pins: false })));
  const [first, second] = configs as [GatewayConfig, GatewayConfig];
  [a, b] = await Promise.all([startGateway(first), startGateway(second)]);
});

after(async () => {
  await a?.stop();
  await b?.stop();
  for (const d of downstreams) await d.close();
  for (const c of configs) await c.remove();
});

const text = (r: unknown): string => (r as { content: { text?: string }[] }).content.map((c) => c.text ?? '').join('');

/**
 * The SDK's fetch, routed: fresh GET streams to A, resumed ones (Last-Event-ID) to B;
 * `tools/call` POSTs to {@link calls}, answers to server requests to {@link answers}, other POSTs alternating A, B, A, …
 */
class Router {
  readonly log: string[] = [];
  calls: RunningGateway | undefined;
  answers: RunningGateway | undefined;
  /** Set to withhold the next list_changed event on A's GET stream and end that connection (a dropped connection). */
  dropNextListChanged = false;
  /** The SSE events the client was handed: instance, event id, JSON-RPC method. */
  readonly events: { readonly on: 'A' | 'B'; readonly id: string; readonly method: string }[] = [];
  #next = 0;

  readonly fetch = async (input: string | URL | Request, init?: RequestInit): Promise<Response> => {
    const method = (init?.method ?? 'GET').toUpperCase();
    const headers = new Headers(init?.headers);
    const body = typeof init?.body === 'string' ? (JSON.parse(init.body) as { method?: string; id?: unknown }) : undefined;
    let target: RunningGateway;
    if (method === 'GET') target = headers.has('last-event-id') ? b : a;
    else if (body?.method === 'tools/call' && this.calls !== undefined) target = this.calls;
    else if (body?.method === undefined && body?.id !== undefined && this.answers !== undefined) target = this.answers;
    else target = this.#next++ % 2 === 0 ? a : b;
    this.log.push(`${method} ${body?.method ?? (body?.id !== undefined ? 'answer' : '')} -> ${target === a ? 'A' : 'B'}`);
    // Each instance has its own gateway token (its own state folder).
    headers.set('authorization', `Bearer ${target.token}`);
    const response = await fetch(new URL(target.url.href), { ...init, headers });
    if (method !== 'GET' || response.body === null) return response;
    return new Response(this.#droppable(response.body, target === a ? 'A' : 'B'), { status: response.status, headers: response.headers });
  };

  /** Passes SSE events through until told to drop a list_changed: that one is withheld and the stream ends. */
  #droppable(body: ReadableStream<Uint8Array>, on: 'A' | 'B'): ReadableStream<Uint8Array> {
    const decoder = new TextDecoder();
    const encoder = new TextEncoder();
    let buffer = '';
    const reader = body.getReader();
    return new ReadableStream<Uint8Array>({
      pull: async (controller) => {
        const { done, value } = await reader.read();
        if (done) return controller.close();
        buffer += decoder.decode(value, { stream: true });
        let end: number;
        while ((end = buffer.indexOf('\n\n')) >= 0) {
          const event = buffer.slice(0, end + 2);
          buffer = buffer.slice(end + 2);
          if (on === 'A' && this.dropNextListChanged && event.includes('notifications/tools/list_changed')) {
            this.dropNextListChanged = false;
            await reader.cancel();
            controller.close();
            return;
          }
          const id = /^id: (.*)$/m.exec(event)?.[1];
          if (id !== undefined) this.events.push({ on, id, method: /"method":"([^"]+)"/.exec(event)?.[1] ?? '' });
          controller.enqueue(encoder.encode(event));
        }
      },
      cancel: () => reader.cancel(),
    });
  }
}

describe('two gateway instances sharing Redis, no sticky sessions (SDK v1 client, 2025-11-25)', () => {
  it('initialize on A, calls on B, list_changed via B on A’s GET stream, elicitation answered through the other instance, GET resumed on B', { timeout: 60_000 }, async () => {
    const router = new Router();
    const client = new ClientV1({ name: 'v1', version: '1' }, { capabilities: { elicitation: { form: {} } } });
    client.setRequestHandler(ElicitRequestSchema, () => ({ action: 'accept', content: { name: 'Ada' } }));
    let changed = 0;
    const waiters: (() => void)[] = [];
    client.setNotificationHandler(ToolListChangedNotificationSchema, () => {
      changed++;
      for (const w of waiters.splice(0)) w();
    });
    const nextChange = (): Promise<void> => new Promise((resolve) => waiters.push(resolve));
    const transport = new HttpV1(a.url, {
      fetch: router.fetch,
      requestInit: { headers: { authorization: `Bearer ${a.token}` } },
      reconnectionOptions: { initialReconnectionDelay: 20, maxReconnectionDelay: 200, reconnectionDelayGrowFactor: 1.5, maxRetries: 20 },
    });
    await client.connect(transport);
    assert.equal(client.getServerVersion()?.name !== undefined, true);

    assert.deepEqual(router.log.slice(0, 2), ['POST initialize -> A', 'POST notifications/initialized -> B']);
    // A call answered by B (the session was created on A).
    router.calls = b;
    const sum = await client.callTool({ name: 'shared__add', arguments: { a: 2, b: 40 } });
    assert.equal(text(sum), '42');

    // A list_changed raised through B (its replica grew; A's did not) reaches the GET stream on A.
    const first = nextChange();
    const grow = (): Promise<unknown> => client.callTool({ name: 'local__grow', arguments: {} });
    assert.equal(text(await grow()), 'grown 1');
    await first;
    assert.ok(router.log.includes('POST tools/call -> B'));

    // The downstream server's elicitation goes out on one instance's POST stream; the client's answer is POSTed to the other.
    router.calls = a;
    router.answers = b;
    const registered = await client.callTool({ name: 'shared__register', arguments: {} });
    assert.equal(text(registered), 'registered Ada');
    assert.ok(router.log.includes('POST answer -> B'));
    router.calls = b;

    // A's GET connection drops before delivering a list_changed: the SDK resumes with Last-Event-ID on B, which replays it.
    router.dropNextListChanged = true;
    const replayed = nextChange();
    const before = changed;
    await grow();
    await replayed;
    assert.ok(changed > before);
    assert.ok(router.log.some((l) => l === 'GET  -> B'), `the GET stream was resumed on B: ${router.log.join('; ')}`);
    // The list_changed arrived on B's connection with an id of A's stream: replayed from Redis, not sent anew.
    const streamOf = (id: string): string => id.slice(0, id.indexOf('_'));
    const aStream = streamOf(router.events.find((e) => e.on === 'A')?.id ?? '');
    assert.ok(router.events.some((e) => e.on === 'B' && e.method === 'notifications/tools/list_changed' && streamOf(e.id) === aStream), JSON.stringify(router.events));

    // After the resume, B's own GET stream carries what B raises.
    const third = nextChange();
    await grow();
    await third;
    await client.close();
  });

  it('session hijack: a stolen session id presented without the instance’s credential is refused (401) by the other instance', async () => {
    // Token mode has one principal per gateway credential; principal binding across instances is tested in test/unit/transport/http/server/sharedSessions.test.ts.
    const client = new ClientV1({ name: 'v1', version: '1' });
    const transport = new HttpV1(a.url, { requestInit: { headers: { authorization: `Bearer ${a.token}` } } });
    await client.connect(transport);
    const id = transport.sessionId;
    assert.ok(id !== undefined);
    const stolen = await fetch(b.url, {
      method: 'POST',
      headers: { 'content-type': 'application/json', accept: 'application/json, text/event-stream', 'mcp-session-id': id, 'mcp-protocol-version': '2025-11-25', authorization: 'Bearer stolen' },
      body: JSON.stringify({ jsonrpc: '2.0', id: 1, method: 'tools/list' }),
    });
    assert.equal(stolen.status, 401);
    await client.close();
  });

  it('forged session id: an id neither instance created gets 404 from both', async () => {
    for (const target of [a, b]) {
      const res = await fetch(target.url, {
        method: 'POST',
        headers: { 'content-type': 'application/json', accept: 'application/json, text/event-stream', 'mcp-session-id': globalThis.crypto.randomUUID(), 'mcp-protocol-version': '2025-11-25', authorization: `Bearer ${target.token}` },
        body: JSON.stringify({ jsonrpc: '2.0', id: 1, method: 'tools/list' }),
      });
      assert.equal(res.status, 404);
    }
  });
});
