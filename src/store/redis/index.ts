/**
 * The Redis stores shared by several gateway instances: {@link RedisCache} (connection, key
 * prefix, scripts), and on it the rate-limit buckets, concurrency leases, SSE events and
 * single-use nonces.
 *
 * @module
 */
export { RedisCache, cacheUnavailable, type RedisCacheOptions } from './redisCache.js';
export { RedisRateLimitStore, RedisConcurrencyStore, type RedisConcurrencyOptions } from './redisGuards.js';
export { RedisEventStore, type RedisEventStoreOptions } from './redisEventStore.js';
export { RedisNonceStore, RedisDpopReplayCache } from './redisSingleUse.js';
