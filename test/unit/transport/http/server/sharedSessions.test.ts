// Stateful 2025-11-25 sessions served by ANY instance (no sticky sessions): two instances, each a
// real McpServer behind its own handler, sharing the session store, bus and event store, in
// memory and in Redis (the real one: the suite fails, never skips, when Redis is missing).
import assert from 'node:assert/strict';
import { after, describe, it } from 'node:test';
import { ErrorCode } from '../../../../../src/jsonrpc/errors.js';
import { RedisEventStore } from '../../../../../src/store/redis/redisEventStore.js';
import { RedisSessionBus, RedisSessionStore } from '../../../../../src/store/redis/redisSessionStore.js';
import { InMemoryEventStore } from '../../../../../src/transport/http/server/eventStore.js';
import { InMemorySessionStore, MemorySessionBus } from '../../../../../src/transport/http/server/sessionStore.js';
import { openTestRedis } from '../../../../contract/stores/backends.js';
import { Events, initialize, openGet, post, startInstance, type Instance, type SharedBackends } from './sharedSessionsSupport.js';

const closers: (() => Promise<void>)[] = [];
after(async () => {
  for (const close of closers.splice(0).reverse()) await close();
});

async function pair(backends: (ttlMs?: number) => Promise<SharedBackends>, ttlMs?: number): Promise<[Instance, Instance, SharedBackends]> {
  const shared = await backends(ttlMs);
  const a = await startInstance(shared);
  const b = await startInstance(shared);
  closers.push(() => a.close(), () => b.close());
  return [a, b, shared];
}

const memory = (ttlMs?: number): Promise<SharedBackends> =>
  Promise.resolve({ sessionStore: new InMemorySessionStore(ttlMs === undefined ? {} : { ttlMs }), sessionBus: new MemorySessionBus(), eventStore: new InMemoryEventStore() });
const redis = async (ttlMs?: number): Promise<SharedBackends> => {
  const cache = await openTestRedis();
  const bus = await RedisSessionBus.open(cache);
  closers.push(() => bus.close());
  return { sessionStore: new RedisSessionStore(cache, ttlMs === undefined ? {} : { ttlMs }), sessionBus: bus, eventStore: new RedisEventStore(cache) };
};

const text = (body: unknown): string => ((body as { result: { content: { text: string }[] } }).result.content[0] as { text: string }).text;

for (const [name, backends] of [
  ['in memory', memory],
  ['Redis', redis],
] as const) {
  describe(`shared stateful sessions (${name})`, () => {
    it('a session initialized on A serves tools/call on B (rehydrated from the record)', async () => {
      const [a, b] = await pair(backends);
      const id = await initialize(a.url);
      assert.equal((await post(b.url, { jsonrpc: '2.0', method: 'notifications/initialized' }, id)).status, 202);
      const res = await post(b.url, { jsonrpc: '2.0', id: 2, method: 'tools/call', params: { name: 'add', arguments: { a: 2, b: 3 } } }, id);
      assert.equal(res.status, 200);
      assert.equal(text(await res.json()), '5');
      assert.equal(b.handler.sessionCount, 1);
    });

    it('state set on one instance (logging/setLevel) is the session state on the other', async () => {
      const [a, b, shared] = await pair(backends);
      const id = await initialize(a.url);
      await post(a.url, { jsonrpc: '2.0', method: 'notifications/initialized' }, id);
      assert.equal((await post(b.url, { jsonrpc: '2.0', id: 3, method: 'logging/setLevel', params: { level: 'error' } }, id)).status, 200);
      const record = await shared.sessionStore.load(id);
      assert.equal(record?.state?.['logLevel'], 'error');
      assert.equal(record?.state?.['initialized'], true);
      assert.deepEqual(record?.state?.['clientInfo'], { name: 'shared-test', version: '1' });
      assert.equal(record?.principal, 'alice');
      // A third instance rehydrates from the record alone and serves the initialized session.
      const c = await startInstance(shared);
      closers.push(() => c.close());
      const list = await post(c.url, { jsonrpc: '2.0', id: 4, method: 'tools/list' }, id);
      assert.equal(list.status, 200);
      assert.ok(((await list.json()) as { result: { tools: unknown[] } }).result.tools.length >= 2);
    });

    it('the GET stream open on A receives a list_changed raised on B (bus)', async () => {
      const [a, b] = await pair(backends);
      const id = await initialize(a.url);
      await post(a.url, { jsonrpc: '2.0', method: 'notifications/initialized' }, id);
      await (await post(b.url, { jsonrpc: '2.0', id: 2, method: 'tools/list' }, id)).json();
      const events = new Events(await openGet(a.url, id));
      b.server.tool('late', {}, () => 'late');
      const changed = await events.next((m) => m['method'] === 'notifications/tools/list_changed');
      assert.equal(changed['method'], 'notifications/tools/list_changed');
      await events.cancel();
    });

    it('an elicitation sent on A is answered by a POST to B; the call completes on A', async () => {
      const [a, b] = await pair(backends);
      const id = await initialize(a.url);
      await post(a.url, { jsonrpc: '2.0', method: 'notifications/initialized' }, id);
      await (await post(b.url, { jsonrpc: '2.0', id: 2, method: 'tools/list' }, id)).json();
      const events = new Events(await post(a.url, { jsonrpc: '2.0', id: 10, method: 'tools/call', params: { name: 'ask', arguments: {} } }, id));
      const ask = await events.next((m) => m['method'] === 'elicitation/create');
      const answer = await post(b.url, { jsonrpc: '2.0', id: ask['id'], result: { action: 'accept', content: { name: 'Bob' } } }, id);
      assert.equal(answer.status, 202);
      const result = await events.next((m) => m['id'] === 10);
      assert.equal(text(result), 'Hello Bob');
    });

    it('a server→client request B sends on the session’s GET stream goes out on A (which holds it); the answer POSTed to A reaches B', async () => {
      const [a, b] = await pair(backends);
      const id = await initialize(a.url);
      await post(a.url, { jsonrpc: '2.0', method: 'notifications/initialized' }, id);
      const stream = new Events(await openGet(a.url, id));
      const call = post(b.url, { jsonrpc: '2.0', id: 11, method: 'tools/call', params: { name: 'roots', arguments: {} } }, id);
      const ask = await stream.next((m) => m['method'] === 'roots/list');
      assert.equal(typeof ask['id'], 'string', 'a shared session names the asking instance in the id');
      assert.equal((await post(a.url, { jsonrpc: '2.0', id: ask['id'], result: { roots: [{ uri: 'file:///work' }] } }, id)).status, 202);
      const res = await call;
      assert.equal(res.status, 200);
      assert.deepEqual(JSON.parse(text(await res.json())), { roots: [{ uri: 'file:///work' }] });
      await stream.cancel();
    });

    it('a GET stream closed on A is resumed on B with Last-Event-ID: the missed events are replayed', async () => {
      const [a, b] = await pair(backends);
      const id = await initialize(a.url);
      await post(a.url, { jsonrpc: '2.0', method: 'notifications/initialized' }, id);
      const first = new Events(await openGet(a.url, id));
      a.server.tool('late', {}, () => 'late');
      await first.next((m) => m['method'] === 'notifications/tools/list_changed');
      const primed = first.idOf();
      await first.cancel();
      // The client saw only the priming event: B replays the list_changed A sent after it.
      const resumed = new Events(await openGet(b.url, id, primed));
      const replayed = await resumed.next((m) => m['method'] === 'notifications/tools/list_changed');
      assert.equal(replayed['method'], 'notifications/tools/list_changed');
      assert.equal(resumed.idOf((m) => m['method'] === 'notifications/tools/list_changed'), first.idOf((m) => m['method'] === 'notifications/tools/list_changed'));
      // And B's stream goes on: a change raised on B arrives too.
      b.server.tool('later', {}, () => 'later');
      await resumed.next((m) => m['method'] === 'notifications/tools/list_changed' && resumed.list.filter((e) => e.data.includes('list_changed')).length >= 2);
      await resumed.cancel();
    });

    it('a session whose only traffic is an open GET stream outlives the record TTL (its record is kept alive)', async () => {
      const [a, b, shared] = await pair(backends, 1500);
      const id = await initialize(a.url);
      await post(a.url, { jsonrpc: '2.0', method: 'notifications/initialized' }, id);
      const stream = new Events(await openGet(a.url, id));
      // Twice the TTL with no request: the record lives because the stream is open (the expiry being tested is wall-clock time).
      await new Promise((r) => setTimeout(r, 3000));
      assert.ok((await shared.sessionStore.load(id)) !== undefined);
      assert.equal((await post(b.url, { jsonrpc: '2.0', id: 2, method: 'tools/list' }, id)).status, 200);
      await stream.cancel();
    });

    it('DELETE on B ends the session on A too', async () => {
      const [a, b] = await pair(backends);
      const id = await initialize(a.url);
      await post(a.url, { jsonrpc: '2.0', method: 'notifications/initialized' }, id);
      const del = await fetch(b.url, { method: 'DELETE', headers: { 'mcp-session-id': id, 'x-test-principal': 'alice', 'mcp-protocol-version': '2025-11-25' } });
      assert.equal(del.status, 200);
      assert.equal((await post(a.url, { jsonrpc: '2.0', id: 5, method: 'tools/list' }, id)).status, 404);
    });

    // ---- attacks ------------------------------------------------------------------------

    it('session hijack: another principal presenting the id on another instance gets 404', async () => {
      const [a, b] = await pair(backends);
      const id = await initialize(a.url, 'alice');
      const stolen = await post(b.url, { jsonrpc: '2.0', id: 2, method: 'tools/list' }, id, 'mallory');
      assert.equal(stolen.status, 404);
      assert.equal(((await stolen.json()) as { error: { code: number } }).error.code, ErrorCode.SessionNotFound);
      assert.equal(b.handler.sessionCount, 0, 'nothing was rehydrated for the attacker');
      assert.equal((await openGet(b.url, id, undefined, 'mallory')).status, 404);
    });

    it('session hijack after rehydration: the copy on B still refuses another principal', async () => {
      const [a, b] = await pair(backends);
      const id = await initialize(a.url, 'alice');
      await post(b.url, { jsonrpc: '2.0', method: 'notifications/initialized' }, id, 'alice');
      assert.equal((await post(b.url, { jsonrpc: '2.0', id: 2, method: 'tools/list' }, id, 'mallory')).status, 404);
    });

    it('forged session id: an id no instance created gets 404', async () => {
      const [, b] = await pair(backends);
      const res = await post(b.url, { jsonrpc: '2.0', id: 2, method: 'tools/list' }, globalThis.crypto.randomUUID());
      assert.equal(res.status, 404);
      assert.equal(b.handler.sessionCount, 0);
    });

    it('replayed answer: a response to an id no request waits for settles nothing and breaks nothing', async () => {
      const [a, b] = await pair(backends);
      const id = await initialize(a.url);
      await post(a.url, { jsonrpc: '2.0', method: 'notifications/initialized' }, id);
      assert.equal((await post(b.url, { jsonrpc: '2.0', id: 'zzzzzzzz-1', result: { action: 'accept' } }, id)).status, 202);
      const res = await post(a.url, { jsonrpc: '2.0', id: 6, method: 'tools/call', params: { name: 'add', arguments: { a: 1, b: 1 } } }, id);
      assert.equal(text(await res.json()), '2');
    });

    it('deleted session replayed: after DELETE on A, the id is refused on B (no rehydration)', async () => {
      const [a, b] = await pair(backends);
      const id = await initialize(a.url);
      assert.equal((await fetch(a.url, { method: 'DELETE', headers: { 'mcp-session-id': id, 'x-test-principal': 'alice' } })).status, 200);
      assert.equal((await post(b.url, { jsonrpc: '2.0', id: 2, method: 'tools/list' }, id)).status, 404);
    });
  });
}
