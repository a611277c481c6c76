/**
 * The guard phase's shared counters (`switchboard.guards`) in Redis, atomic per key because each
 * check is one Lua script:
 *
 * - {@link RedisRateLimitStore}: the token bucket of `MemoryRateLimitStore` (capacity `max`,
 *   refilled continuously at `max / perMs`), so a limit holds per principal across every
 *   instance instead of per instance. An idle bucket expires once it would be full again.
 * - {@link RedisConcurrencyStore}: in-flight slots as leases in a sorted set (member = lease id,
 *   score = expiry). A slot held by a call still running is renewed every third of the lease;
 *   one held by an instance that was killed expires after `leaseMs`, so it is not leaked.
 *
 * Times are the callers' clocks (epoch ms), as for the in-memory stores; instances should keep
 * their clocks in sync (NTP). A bucket never refills backwards when a caller's clock is behind.
 *
 * @module
 */
import { randomUUID } from 'node:crypto';
import type { ConcurrencyGrant, ConcurrencyStore, RateLimitRule, RateLimitStore, RateLimitVerdict } from '../../host/guards.js';
import { redisScript, type RedisCache } from './redisCache.js';

// KEYS[1] bucket; ARGV max, perMs, now. Returns {allowed (0/1), retryAfterMs}.
const TAKE = redisScript(`
local max = tonumber(ARGV[1])
local per = tonumber(ARGV[2])
local now = tonumber(ARGV[3])
local rate = max / per
local state = redis.call('HMGET', KEYS[1], 'tokens', 'at')
local tokens = tonumber(state[1])
local at = tonumber(state[2])
if tokens == nil or at == nil then
  tokens = max
  at = now
end
if now > at then
  tokens = math.min(max, tokens + (now - at) * rate)
  at = now
end
local allowed = 0
local retry = 0
if tokens >= 1 then
  tokens = tokens - 1
  allowed = 1
else
  retry = math.ceil((1 - tokens) / rate)
end
redis.call('HSET', KEYS[1], 'tokens', tostring(tokens), 'at', tostring(at))
redis.call('PEXPIRE', KEYS[1], math.ceil((max - tokens) / rate) + 1000)
return {allowed, retry}
`);

/** Token buckets in Redis (see the module comment). */
export class RedisRateLimitStore implements RateLimitStore {
  readonly #cache: RedisCache;

  constructor(cache: RedisCache) {
    this.#cache = cache;
  }

  async take(key: string, rule: RateLimitRule, now: number): Promise<RateLimitVerdict> {
    const [allowed, retryAfterMs] = (await this.#cache.eval('the rate limit', TAKE, [`${this.#cache.prefix}rate:${key}`], [rule.max, rule.perMs, now])) as [number, number];
    return { allowed: allowed === 1, retryAfterMs };
  }
}

// KEYS[1] the slot set; ARGV max, now, leaseMs, id. Returns {granted (0/1), inFlight}.
const ACQUIRE = redisScript(`
local max = tonumber(ARGV[1])
local now = tonumber(ARGV[2])
local lease = tonumber(ARGV[3])
redis.call('ZREMRANGEBYSCORE', KEYS[1], '-inf', now)
local count = redis.call('ZCARD', KEYS[1])
if count >= max then return {0, count} end
redis.call('ZADD', KEYS[1], now + lease, ARGV[4])
redis.call('PEXPIRE', KEYS[1], lease)
return {1, count + 1}
`);

// KEYS[1] the slot set; ARGV expiry, id, leaseMs. Renews a lease still held.
const RENEW = redisScript(`
if redis.call('ZADD', KEYS[1], 'XX', 'CH', ARGV[1], ARGV[2]) == 1 then redis.call('PEXPIRE', KEYS[1], ARGV[3]) end
return 1
`);

/** Options of {@link RedisConcurrencyStore}. */
export interface RedisConcurrencyOptions {
  /** How long a slot lives without renewal, in ms. Default 30,000. */
  readonly leaseMs?: number;
  /** The clock of renewals (tests). Default `Date.now`. */
  readonly now?: () => number;
}

/** In-flight slots as expiring leases in Redis (see the module comment). */
export class RedisConcurrencyStore implements ConcurrencyStore {
  readonly #cache: RedisCache;
  readonly #leaseMs: number;
  readonly #now: () => number;

  constructor(cache: RedisCache, options: RedisConcurrencyOptions = {}) {
    this.#cache = cache;
    this.#leaseMs = options.leaseMs ?? 30_000;
    this.#now = options.now ?? Date.now;
  }

  async acquire(key: string, max: number, now: number): Promise<ConcurrencyGrant> {
    const redisKey = `${this.#cache.prefix}slots:${key}`;
    const id = randomUUID();
    const [granted, inFlight] = (await this.#cache.eval('the concurrency cap', ACQUIRE, [redisKey], [max, now, this.#leaseMs, id])) as [number, number];
    if (granted !== 1) return { allowed: false, inFlight };
    const renew = setInterval(() => {
      this.#cache.eval('renewing a concurrency slot', RENEW, [redisKey], [this.#now() + this.#leaseMs, id, this.#leaseMs]).catch(() => undefined);
    }, Math.max(1, Math.floor(this.#leaseMs / 3)));
    renew.unref?.();
    let released = false;
    return {
      allowed: true,
      release: async () => {
        if (released) return;
        released = true;
        clearInterval(renew);
        await this.#cache.run('releasing a concurrency slot', (client) => client.zrem(redisKey, id));
      },
    };
  }
}
