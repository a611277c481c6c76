// Runs the RateLimitStore and ConcurrencyStore contracts against memory and Redis (two
// connections on one key prefix standing for two gateway instances).
import { MemoryConcurrencyStore, MemoryRateLimitStore } from '../../../src/host/guards.js';
import { RedisConcurrencyStore, RedisRateLimitStore } from '../../../src/store/redis/redisRateLimitStore.js';
import { openTestRedis } from './backends.js';
import { concurrencyStoreContract, rateLimitStoreContract } from './guardStores.contract.js';

async function twoRedis() {
  const first = await openTestRedis();
  const second = await openTestRedis({ prefix: first.prefix });
  return [first, second] as const;
}

rateLimitStoreContract('memory', async () => ({ store: new MemoryRateLimitStore() }), { shared: false });
rateLimitStoreContract('Redis', async () => {
  const [a, b] = await twoRedis();
  return { store: new RedisRateLimitStore(a), peer: new RedisRateLimitStore(b) };
}, { shared: true });

concurrencyStoreContract('memory', async () => ({ store: new MemoryConcurrencyStore() }));
concurrencyStoreContract('Redis', async () => {
  const [a, b] = await twoRedis();
  return { store: new RedisConcurrencyStore(a), peer: new RedisConcurrencyStore(b) };
});
