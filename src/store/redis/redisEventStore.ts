/**
 * The SSE event store of stateful sessions in Redis, so that a client reconnecting with
 * `Last-Event-ID` to ANY gateway instance gets the events of its stream it missed.
 *
 * Per session (all keys share the hash tag `{<session>}`, so they stay in one slot): a sorted
 * set per stream (score = the event's seq, member = the event as JSON), the list of stream ids
 * in append order (the eviction order: the oldest events of the session go first, as in
 * `InMemoryEventStore`), and the set of its streams (for {@link RedisEventStore.dropSession}).
 * Appending is one Lua script; every key of the session expires `ttlMs` after its last event.
 *
 * @see https://modelcontextprotocol.io/specification/2025-11-25/basic/transports#resumability-and-redelivery
 * @module
 */
import type { EventStore, StoredEvent } from '../../transport/http/server/eventStore.js';
import { McpError, McpErrorCode } from '../../util/errors.js';
import { redisScript, type RedisCache } from './redisCache.js';

/** Options of {@link RedisEventStore}. */
export interface RedisEventStoreOptions {
  /** Events kept per session, across its streams; the oldest are dropped first. Default 1,000. */
  readonly maxEventsPerSession?: number;
  /** How long a session's events live after its last one, in ms. Default 1 hour. */
  readonly ttlMs?: number;
}

// KEYS[1] the stream's set, KEYS[2] the order list, KEYS[3] the stream-id set;
// ARGV seq, event JSON, stream id, max events, ttl ms, the stream key prefix.
const APPEND = redisScript(`
redis.call('ZADD', KEYS[1], ARGV[1], ARGV[2])
redis.call('RPUSH', KEYS[2], ARGV[3])
redis.call('SADD', KEYS[3], ARGV[3])
local max = tonumber(ARGV[4])
while redis.call('LLEN', KEYS[2]) > max do
  local oldest = redis.call('LPOP', KEYS[2])
  redis.call('ZPOPMIN', ARGV[6] .. oldest)
end
local ttl = ARGV[5]
redis.call('PEXPIRE', KEYS[2], ttl)
redis.call('PEXPIRE', KEYS[3], ttl)
for _, id in ipairs(redis.call('SMEMBERS', KEYS[3])) do redis.call('PEXPIRE', ARGV[6] .. id, ttl) end
return 1
`);

/** SSE events in Redis (see the module comment). */
export class RedisEventStore implements EventStore {
  readonly #cache: RedisCache;
  readonly #max: number;
  readonly #ttlMs: number;

  constructor(cache: RedisCache, options: RedisEventStoreOptions = {}) {
    this.#cache = cache;
    this.#max = Math.max(1, options.maxEventsPerSession ?? 1000);
    this.#ttlMs = options.ttlMs ?? 3_600_000;
  }

  async append(sessionId: string, streamId: string, event: StoredEvent): Promise<void> {
    const base = this.#base(sessionId);
    await this.#cache.eval('storing an SSE event', APPEND, [`${base}s:${streamId}`, `${base}order`, `${base}streams`], [event.seq, JSON.stringify({ seq: event.seq, message: event.message }), streamId, this.#max, this.#ttlMs, `${base}s:`]);
  }

  async replayAfter(sessionId: string, streamId: string, afterSeq: number): Promise<readonly StoredEvent[]> {
    const members = await this.#cache.run('replaying SSE events', (client) => client.zrangebyscore(`${this.#base(sessionId)}s:${streamId}`, `(${afterSeq}`, '+inf'));
    return members.map((text) => {
      try {
        return JSON.parse(text) as StoredEvent;
      } catch (error) {
        throw new McpError(McpErrorCode.StoreCorrupt, `an SSE event of session ${sessionId} in Redis is not JSON`, { cause: error });
      }
    });
  }

  async dropSession(sessionId: string): Promise<void> {
    const base = this.#base(sessionId);
    await this.#cache.run('dropping SSE events', async (client) => {
      const streams = await client.smembers(`${base}streams`);
      await client.del(`${base}order`, `${base}streams`, ...streams.map((id) => `${base}s:${id}`));
    });
  }

  #base(sessionId: string): string {
    return `${this.#cache.prefix}ev:{${sessionId}}:`;
  }
}
