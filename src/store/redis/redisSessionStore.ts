/**
 * Stateful-session records and the session bus in Redis, so that a 2025-11-25 session
 * (`Mcp-Session-Id`) is served by ANY gateway instance behind a load balancer (no sticky
 * sessions).
 *
 * - {@link RedisSessionStore}: one hash per session, `<prefix>sess:{<id>}` with the record's
 *   JSON (`rec`) and its last use (`seen`), expiring `ttlMs` after the last use (each
 *   instance extends it at most once a second per session it serves). About 0.3–1 KB a
 *   session (the client's info and capabilities make up most of it).
 * - {@link RedisSessionBus}: Redis pub/sub, one channel per session, `<prefix>bus:{<id>}`;
 *   every instance holding a session listens to its channel on a second connection of its own
 *   (a subscribed connection cannot run other commands). Pub/sub keeps nothing: a message
 *   published while no instance listens is lost (documented in `docs/scaling.md`).
 *
 * Both fail closed: while Redis cannot be reached every call rejects with
 * `ERR_MCP_STORE_UNAVAILABLE` and the transport refuses the request (HTTP 503).
 *
 * @see https://modelcontextprotocol.io/specification/2025-11-25/basic/transports#session-management
 * @see https://redis.io/docs/latest/develop/interact/pubsub/
 * @module
 */
import type { Redis } from 'ioredis';
import type { SessionBus, SessionBusEnvelope, SessionRecord, SessionStore } from '../../transport/http/server/sessionStore.js';
import { McpError, McpErrorCode } from '../../util/errors.js';
import { cacheUnavailable, redisScript, type RedisCache } from './redisCache.js';

/** Options of {@link RedisSessionStore}. */
export interface RedisSessionStoreOptions {
  /** How long a record lives after its last use, in ms. Default 30 minutes (the handler's idle timeout). */
  readonly ttlMs?: number;
}

// KEYS[1] the session's hash; ARGV the use time, the ttl in ms. 1 when the record exists.
const TOUCH = redisScript(`
if redis.call('EXISTS', KEYS[1]) == 0 then return 0 end
local seen = tonumber(redis.call('HGET', KEYS[1], 'seen') or '0')
if tonumber(ARGV[1]) > seen then redis.call('HSET', KEYS[1], 'seen', ARGV[1]) end
redis.call('PEXPIRE', KEYS[1], ARGV[2])
return 1
`);

function corrupt(id: string, cause?: unknown): McpError {
  return new McpError(McpErrorCode.StoreCorrupt, `the record of session ${id} in Redis is not one Switchboard wrote`, { cause });
}

function parseRecord(id: string, text: string, seen: number): SessionRecord {
  let value: unknown;
  try {
    value = JSON.parse(text);
  } catch (error) {
    throw corrupt(id, error);
  }
  if (typeof value !== 'object' || value === null) throw corrupt(id);
  const r = value as Record<string, unknown>;
  const principal = r['principal'];
  const state = r['state'];
  if (r['id'] !== id || typeof r['version'] !== 'string' || (principal !== null && typeof principal !== 'string') || typeof r['createdAt'] !== 'number') throw corrupt(id);
  if (state !== undefined && (typeof state !== 'object' || state === null || Array.isArray(state))) throw corrupt(id);
  return {
    id,
    principal: principal as string | null,
    version: r['version'] as string,
    createdAt: r['createdAt'] as number,
    lastSeen: Math.max(seen, typeof r['lastSeen'] === 'number' ? r['lastSeen'] : 0),
    ...(state === undefined ? {} : { state: state as Record<string, unknown> }),
  };
}

/** Session records in Redis (see the module comment). */
export class RedisSessionStore implements SessionStore {
  readonly ttlMs: number;
  readonly #cache: RedisCache;

  constructor(cache: RedisCache, options: RedisSessionStoreOptions = {}) {
    this.#cache = cache;
    this.ttlMs = options.ttlMs ?? 30 * 60_000;
  }

  #key(id: string): string {
    return `${this.#cache.prefix}sess:{${id}}`;
  }

  /** {@inheritDoc SessionStore.save} */
  async save(record: SessionRecord): Promise<void> {
    const key = this.#key(record.id);
    const left = Math.ceil(record.lastSeen + this.ttlMs - Date.now());
    await this.#cache.run('saving a session', async (client) => {
      if (left <= 0) {
        await client.del(key);
        return;
      }
      await client.multi().hset(key, 'rec', JSON.stringify(record), 'seen', String(record.lastSeen)).pexpire(key, left).exec();
    });
  }

  /** {@inheritDoc SessionStore.load} */
  async load(id: string): Promise<SessionRecord | undefined> {
    const [text, seen] = await this.#cache.run('loading a session', (client) => client.hmget(this.#key(id), 'rec', 'seen'));
    if (text === null || text === undefined) return undefined;
    return parseRecord(id, text, Number(seen ?? 0));
  }

  /** {@inheritDoc SessionStore.touch} */
  async touch(id: string, at: number): Promise<boolean> {
    return (await this.#cache.eval('extending a session', TOUCH, [this.#key(id)], [Math.floor(at), this.ttlMs])) === 1;
  }

  /** {@inheritDoc SessionStore.delete} */
  async delete(id: string): Promise<void> {
    await this.#cache.run('deleting a session', (client) => client.del(this.#key(id)));
  }
}

/** The session bus on Redis pub/sub (see the module comment). */
export class RedisSessionBus implements SessionBus {
  readonly #cache: RedisCache;
  readonly #subscriber: Redis;
  readonly #listeners = new Map<string, Set<(envelope: SessionBusEnvelope) => void>>();

  private constructor(cache: RedisCache, subscriber: Redis) {
    this.#cache = cache;
    this.#subscriber = subscriber;
    subscriber.on('message', (channel: string, text: string) => this.#deliver(channel, text));
  }

  /** Opens the bus's subscriber connection (a duplicate of `cache`'s). Rejects with `ERR_MCP_STORE_UNAVAILABLE` when Redis cannot be reached. */
  static async open(cache: RedisCache): Promise<RedisSessionBus> {
    const subscriber = cache.client.duplicate({ lazyConnect: true });
    subscriber.on('error', () => undefined);
    try {
      await subscriber.connect();
    } catch (error) {
      subscriber.disconnect();
      throw cacheUnavailable('opening the session bus', error);
    }
    return new RedisSessionBus(cache, subscriber);
  }

  #channel(sessionId: string): string {
    return `${this.#cache.prefix}bus:{${sessionId}}`;
  }

  /** {@inheritDoc SessionBus.publish} */
  async publish(sessionId: string, envelope: SessionBusEnvelope): Promise<void> {
    await this.#cache.run('publishing to the session bus', (client) => client.publish(this.#channel(sessionId), JSON.stringify(envelope)));
  }

  /** {@inheritDoc SessionBus.subscribe} */
  async subscribe(sessionId: string, listener: (envelope: SessionBusEnvelope) => void): Promise<() => void> {
    const channel = this.#channel(sessionId);
    let set = this.#listeners.get(channel);
    if (set === undefined) {
      set = new Set();
      this.#listeners.set(channel, set);
      try {
        await this.#subscriber.subscribe(channel);
      } catch (error) {
        if (this.#listeners.get(channel) === set && set.size === 0) this.#listeners.delete(channel);
        throw cacheUnavailable('listening to the session bus', error);
      }
    }
    const own = set;
    const wrapped = (envelope: SessionBusEnvelope): void => listener(envelope);
    own.add(wrapped);
    return () => {
      own.delete(wrapped);
      if (own.size > 0 || this.#listeners.get(channel) !== own) return;
      this.#listeners.delete(channel);
      this.#subscriber.unsubscribe(channel).catch(() => undefined);
    };
  }

  #deliver(channel: string, text: string): void {
    const set = this.#listeners.get(channel);
    if (set === undefined) return;
    let envelope: SessionBusEnvelope;
    try {
      envelope = JSON.parse(text) as SessionBusEnvelope;
    } catch {
      return;
    }
    if (typeof envelope !== 'object' || envelope === null || typeof envelope.from !== 'string' || typeof envelope.body !== 'object' || envelope.body === null) return;
    for (const listener of [...set]) listener(envelope);
  }

  /** Closes the subscriber connection. */
  async close(): Promise<void> {
    this.#listeners.clear();
    await this.#subscriber.quit().catch(() => this.#subscriber.disconnect());
  }
}
