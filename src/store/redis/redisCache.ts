/**
 * The Redis connection of the shared fast-changing state (`switchboard gateway --cache
 * redis://...`): rate-limit buckets, concurrency leases, SSE events, single-use nonces.
 *
 * - Every key starts with a prefix (default `switchboard:`), so one Redis can serve several
 *   deployments, and tests a fresh one per run.
 * - **Fail closed, fast.** No offline queue and a command timeout: while Redis cannot be
 *   reached each operation rejects at once with `ERR_MCP_STORE_UNAVAILABLE` (the caller
 *   refuses what needed it) instead of waiting in a queue or being allowed. ioredis reconnects
 *   by itself with a capped backoff, and service resumes when Redis is back.
 * - Scripts run with `EVALSHA`, loaded again after a Redis restart emptied the script cache.
 *
 * @see https://redis.io/docs/latest/develop/interact/programmability/eval-intro/
 * @module
 */
import { createHash } from 'node:crypto';
import { Redis } from 'ioredis';
import { McpError, McpErrorCode, describeError } from '../../util/errors.js';

/** Options of {@link RedisCache.open}. */
export interface RedisCacheOptions {
  /** Prefix of every key. Default `switchboard:`. */
  readonly prefix?: string;
  /** Longest wait for one command, in ms. Default 2000. */
  readonly commandTimeoutMs?: number;
  /** Longest wait for the first connection, in ms. Default 3000. */
  readonly connectTimeoutMs?: number;
}

/** The error of an operation that could not reach Redis. */
export function cacheUnavailable(what: string, error: unknown): McpError {
  if (error instanceof McpError) return error;
  return new McpError(McpErrorCode.StoreUnavailable, `Redis is unavailable for ${what}: ${describeError(error)}; refused until it is back`, { cause: error });
}

/** A Lua script run by its SHA-1. */
export interface RedisScript {
  readonly source: string;
  readonly sha: string;
}

/** Prepares a script. */
export function redisScript(source: string): RedisScript {
  return { source, sha: createHash('sha1').update(source).digest('hex') };
}

/** One instance's connection to the shared Redis (see the module comment). */
export class RedisCache {
  /** Prefix of every key. */
  readonly prefix: string;
  /** The client (for stores built on this cache). */
  readonly client: Redis;
  #closed = false;

  private constructor(client: Redis, prefix: string) {
    this.client = client;
    this.prefix = prefix;
  }

  /** Connects to `url` (`redis://[:password@]host:port[/db][?prefix=p:]`). Rejects with `ERR_MCP_STORE_UNAVAILABLE` when Redis cannot be reached. */
  static async open(url: string, options: RedisCacheOptions = {}): Promise<RedisCache> {
    const settings = {
      lazyConnect: true,
      enableOfflineQueue: false,
      maxRetriesPerRequest: 0,
      commandTimeout: options.commandTimeoutMs ?? 2000,
      connectTimeout: options.connectTimeoutMs ?? 3000,
      retryStrategy: (times: number) => Math.min(2000, 50 * 2 ** Math.min(times, 6)),
    };
    // `?prefix=...` in the URL sets the key prefix (the option wins); ioredis must not see it.
    let connection = url;
    let fromUrl: string | undefined;
    if (URL.canParse(url)) {
      const parsed = new URL(url);
      fromUrl = parsed.searchParams.get('prefix') ?? undefined;
      parsed.searchParams.delete('prefix');
      connection = parsed.toString();
    }
    const client = new Redis(connection, settings);
    // Connection errors are reported per command; without a listener they would be logged.
    let cause: unknown;
    client.on('error', (error: unknown) => void (cause ??= error));
    try {
      await client.connect();
    } catch (error) {
      client.disconnect();
      throw cacheUnavailable('opening the cache', cause ?? error);
    }
    return new RedisCache(client, options.prefix ?? fromUrl ?? 'switchboard:');
  }

  /** Runs one command, turning any failure into `ERR_MCP_STORE_UNAVAILABLE`. */
  async run<T>(what: string, fn: (client: Redis) => Promise<T>): Promise<T> {
    try {
      return await fn(this.client);
    } catch (error) {
      throw cacheUnavailable(what, error);
    }
  }

  /** Runs `script` with `keys` and `args` (loading it when Redis lost it). */
  eval(what: string, script: RedisScript, keys: readonly string[], args: readonly (string | number)[]): Promise<unknown> {
    return this.run(what, async (client) => {
      try {
        return await client.evalsha(script.sha, keys.length, ...keys, ...args);
      } catch (error) {
        if (!(error instanceof Error) || !error.message.startsWith('NOSCRIPT')) throw error;
        return await client.eval(script.source, keys.length, ...keys, ...args);
      }
    });
  }

  /** Deletes every key under this cache's prefix (a deployment taken down, a test run); resolves with how many. */
  async deleteAll(): Promise<number> {
    return this.run('deleting the cache', async (client) => {
      let cursor = '0';
      let deleted = 0;
      do {
        const [next, keys] = await client.scan(cursor, 'MATCH', `${this.prefix.replace(/[*?[\]\\]/g, '\\$&')}*`, 'COUNT', 1000);
        cursor = next;
        if (keys.length > 0) deleted += await client.del(...keys);
      } while (cursor !== '0');
      return deleted;
    });
  }

  /** Closes the connection. */
  async close(): Promise<void> {
    if (this.#closed) return;
    this.#closed = true;
    await this.client.quit().catch(() => this.client.disconnect());
  }
}
