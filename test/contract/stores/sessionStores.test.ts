// Runs the EventStore, single-use (MRTR nonces, DPoP replay cache) and DPoP nonce contracts against memory
// and Redis (two connections on one key prefix standing for two gateway instances).
import { InMemoryDpopReplayCache, createDpopNonceSource } from '../../../src/auth/resource/dpopProof.js';
import { MemoryNonceStore } from '../../../src/server/requestState.js';
import { RedisDpopNonceSource } from '../../../src/store/redis/redisDpopNonces.js';
import { RedisEventStore } from '../../../src/store/redis/redisEventStore.js';
import { RedisDpopReplayCache, RedisNonceStore } from '../../../src/store/redis/redisSingleUse.js';
import { InMemoryEventStore } from '../../../src/transport/http/server/eventStore.js';
import { openTestRedis } from './backends.js';
import { dpopNonceContract, eventStoreContract, singleUseContract } from './sessionStores.contract.js';

async function twoRedis() {
  const first = await openTestRedis();
  const second = await openTestRedis({ prefix: first.prefix });
  return [first, second] as const;
}

eventStoreContract('in memory', async (max) => ({ store: new InMemoryEventStore({ maxEventsPerSession: max }) }));
eventStoreContract('Redis', async (max) => {
  const [a, b] = await twoRedis();
  return { store: new RedisEventStore(a, { maxEventsPerSession: max }), peer: new RedisEventStore(b, { maxEventsPerSession: max }) };
});

singleUseContract('MRTR nonces in memory', async () => {
  const store = new MemoryNonceStore();
  return { store: (v, at) => store.consume(v, at) };
}, { shared: false });
singleUseContract('MRTR nonces in Redis', async () => {
  const [a, b] = await twoRedis();
  const [x, y] = [new RedisNonceStore(a), new RedisNonceStore(b)];
  return { store: (v, at) => x.consume(v, at), peer: (v, at) => y.consume(v, at) };
}, { shared: true });
singleUseContract('DPoP replay cache in memory', async () => {
  const store = new InMemoryDpopReplayCache();
  return { store: (v, at) => store.remember(v, at) };
}, { shared: false });
singleUseContract('DPoP replay cache in Redis', async () => {
  const [a, b] = await twoRedis();
  const [x, y] = [new RedisDpopReplayCache(a), new RedisDpopReplayCache(b)];
  return { store: (v, at) => x.remember(v, at), peer: (v, at) => y.remember(v, at) };
}, { shared: true });
dpopNonceContract('in memory', async (now) => ({ store: createDpopNonceSource({ rotateSec: 60, now }) }), { shared: false });
dpopNonceContract('Redis', async (now) => {
  const [a, b] = await twoRedis();
  return { store: new RedisDpopNonceSource(a, { rotateSec: 60, now }), peer: new RedisDpopNonceSource(b, { rotateSec: 60, now }) };
}, { shared: true });
