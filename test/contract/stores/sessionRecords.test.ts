// Runs the SessionStore and SessionBus contracts against memory and Redis (two connections on
// one key prefix standing for two gateway instances). Redis missing: the suite fails, never skips.
import { after } from 'node:test';
import { RedisSessionBus, RedisSessionStore } from '../../../src/store/redis/redisSessionStore.js';
import { InMemorySessionStore, MemorySessionBus } from '../../../src/transport/http/server/sessionStore.js';
import { openTestRedis } from './backends.js';
import { sessionBusContract, sessionStoreContract } from './sessionRecords.contract.js';

const buses: RedisSessionBus[] = [];
after(async () => {
  for (const bus of buses.splice(0)) await bus.close();
});

async function twoRedis() {
  const first = await openTestRedis();
  const second = await openTestRedis({ prefix: first.prefix });
  return [first, second] as const;
}

sessionStoreContract('in memory', async (ttlMs) => ({ store: new InMemorySessionStore({ ttlMs }) }));
sessionStoreContract('Redis', async (ttlMs) => {
  const [a, b] = await twoRedis();
  return { store: new RedisSessionStore(a, { ttlMs }), peer: new RedisSessionStore(b, { ttlMs }) };
});

sessionBusContract('in memory', async () => {
  const bus = new MemorySessionBus();
  return { a: bus, b: bus };
});
sessionBusContract('Redis', async () => {
  const [x, y] = await twoRedis();
  const a = await RedisSessionBus.open(x);
  const b = await RedisSessionBus.open(y);
  buses.push(a, b);
  return { a, b };
});
