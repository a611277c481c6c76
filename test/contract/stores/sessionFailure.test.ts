// Shared stateful sessions while Redis is down: every request of a shared session (held here or
// to be rehydrated), a new `initialize` and a DELETE are refused with HTTP 503 and a JSON-RPC
// error naming ERR_MCP_STORE_UNAVAILABLE (nothing is served from a copy that cannot be checked,
// no session is handed out that another instance could not find), and service resumes by itself
// once Redis is back. "Down" is a TCP gate between the instances and the real Redis.
import assert from 'node:assert/strict';
import { after, describe, it } from 'node:test';
import { ErrorCode } from '../../../src/jsonrpc/errors.js';
import { RedisEventStore } from '../../../src/store/redis/redisEventStore.js';
import { RedisSessionBus, RedisSessionStore } from '../../../src/store/redis/redisSessionStore.js';
import { initialize, post, startInstance, type Instance } from '../../unit/transport/http/server/sharedSessionsSupport.js';
import { REDIS_URL, TcpGate, openTestRedis } from './backends.js';

const closers: (() => Promise<void>)[] = [];
after(async () => {
  for (const close of closers.splice(0).reverse()) await close();
});

/** Retries `fn` until it yields a non-503 status, at most `ms` (Redis reconnects with a capped backoff). */
async function whenBack(fn: () => Promise<Response>, ms = 10_000): Promise<Response> {
  const deadline = Date.now() + ms;
  for (;;) {
    const res = await fn();
    if (res.status !== 503 || Date.now() > deadline) return res;
    await res.body?.cancel();
    await new Promise((r) => setTimeout(r, 50));
  }
}

async function refusedAsUnavailable(res: Response): Promise<void> {
  assert.equal(res.status, 503);
  const body = (await res.json()) as { error: { code: number; message: string; data?: { code?: string } } };
  assert.equal(body.error.code, ErrorCode.ServiceUnavailable);
  assert.match(body.error.message, /ERR_MCP_STORE_UNAVAILABLE/);
  assert.equal(body.error.data?.code, 'ERR_MCP_STORE_UNAVAILABLE');
}

describe('shared sessions while Redis is down', () => {
  it('refuses with 503 ERR_MCP_STORE_UNAVAILABLE on every instance (fail closed), then resumes by itself', async () => {
    const gate = new TcpGate(REDIS_URL);
    await gate.open();
    closers.push(() => gate.close());
    const cache = await openTestRedis({ url: gate.via(REDIS_URL) });
    const bus = await RedisSessionBus.open(cache);
    closers.push(() => bus.close());
    const shared = { sessionStore: new RedisSessionStore(cache), sessionBus: bus, eventStore: new RedisEventStore(cache) };
    const instances: Instance[] = [await startInstance(shared), await startInstance(shared)];
    for (const i of instances) closers.push(() => i.close());
    const [a, b] = instances as [Instance, Instance];
    const id = await initialize(a.url);
    assert.equal((await post(a.url, { jsonrpc: '2.0', method: 'notifications/initialized' }, id)).status, 202);

    await gate.close();
    const call = { jsonrpc: '2.0', id: 7, method: 'tools/call', params: { name: 'add', arguments: { a: 1, b: 2 } } };
    // The instance holding the session cannot check it: refused, not served from its copy.
    await refusedAsUnavailable(await post(a.url, call, id));
    // The other instance cannot load it: refused, not a 404 that would make the client start over.
    await refusedAsUnavailable(await post(b.url, call, id));
    // No new session is handed out that the other instances could not find.
    const init = await post(b.url, { jsonrpc: '2.0', id: 1, method: 'initialize', params: { protocolVersion: '2025-11-25', capabilities: {}, clientInfo: { name: 'x', version: '1' } } });
    await refusedAsUnavailable(init);
    assert.equal(init.headers.get('mcp-session-id'), null);
    // A DELETE that cannot reach the store is refused (the session would live on elsewhere).
    const del = await fetch(a.url, { method: 'DELETE', headers: { 'mcp-session-id': id, 'x-test-principal': 'alice', 'mcp-protocol-version': '2025-11-25' } });
    await refusedAsUnavailable(del);

    await gate.open();
    const back = await whenBack(() => post(b.url, call, id));
    assert.equal(back.status, 200);
    assert.equal(((await back.json()) as { result: { content: { text: string }[] } }).result.content[0]?.text, '3');
    assert.equal((await whenBack(() => post(a.url, call, id))).status, 200);
  });
});
