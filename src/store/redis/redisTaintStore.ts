/**
 * Taint shared by every gateway instance, in Redis (`switchboard gateway --cache redis://...`):
 * the {@link TaintStore} the policy engine reads before every call and writes after every call
 * that brought something into a session. Without it each instance keeps its own taint, and an
 * agent could shed its session's taint by having its next request land on another instance.
 *
 * - **Layout.** One hash per taint key (`<prefix>taint:<key>`): field `exp` (when the key
 *   expires, epoch ms of the callers' clocks), one field per source (`s|[label,server,tool]`,
 *   the latest source of that triple) and one per secret fingerprint (`f|<fingerprint>`), each
 *   a JSON record, plus the counts `ns` and `nf`. Redis expires the hash with the key's window.
 * - **Round trips.** A request's reads (the session's and the principal's taint, one `HGETALL`
 *   each) are sent back to back on the one connection, so they cost one round trip; the writes
 *   a call makes in one tick (every label and secret its result brought, to both keys) are
 *   collected and sent at the end of the tick as one Lua script (atomic per key, so two
 *   instances adding at once lose nothing): one more round trip, only after a call that taints.
 * - **Bounded** like the memory store: at most `maxSources` sources and `maxSecrets`
 *   fingerprints per key (the oldest dropped); the number of keys is bounded by their windows.
 * - **Fail closed.** While Redis cannot be reached every read and write rejects with
 *   `ERR_MCP_STORE_UNAVAILABLE`, and a record that is not ours with `ERR_MCP_STORE_CORRUPT`;
 *   the policy engine then refuses the call (or withholds its answer), never takes "no taint".
 * - **Durability** is Redis's: {@link redisTaintWarnings} says when a restart or an eviction
 *   policy would forget taint.
 *
 * @see https://redis.io/docs/latest/develop/use/pipelining/
 * @see https://redis.io/docs/latest/develop/interact/programmability/eval-intro/
 * @module
 */
import { randomBytes } from 'node:crypto';
import type { SecretOrigin, TaintSource, TaintState, TaintStore } from '../../host/policy/taint.js';
import { McpError, McpErrorCode } from '../../util/errors.js';
import { secretOriginFrom, taintSourceFrom } from '../taintRecord.js';
import { redisScript, type RedisCache } from './redisCache.js';

// KEYS the taint hashes; ARGV[1] maxSources, ARGV[2] maxSecrets, ARGV[3] the ops as JSON:
// [[key index, field, record, ttlMs, now], ...]. An expired hash is emptied before a write.
const ADD = redisScript(`
local maxS = tonumber(ARGV[1])
local maxF = tonumber(ARGV[2])
local ops = cjson.decode(ARGV[3])
for _, op in ipairs(ops) do
  local key = KEYS[op[1]]
  local field = op[2]
  local now = tonumber(op[5])
  local exp = tonumber(redis.call('HGET', key, 'exp'))
  if exp == nil or exp <= now then
    redis.call('DEL', key)
    exp = 0
  end
  local kind = string.sub(field, 1, 2)
  if redis.call('HSET', key, field, op[3]) == 1 then
    local countField = (kind == 's|') and 'ns' or 'nf'
    local cap = (kind == 's|') and maxS or maxF
    if redis.call('HINCRBY', key, countField, 1) > cap then
      local all = redis.call('HGETALL', key)
      local oldest, oldestAt = nil, nil
      for i = 1, #all, 2 do
        local f = all[i]
        if f ~= field and string.sub(f, 1, 2) == kind then
          local at = cjson.decode(all[i + 1]).at
          if oldestAt == nil or at < oldestAt then
            oldest, oldestAt = f, at
          end
        end
      end
      if oldest ~= nil then
        redis.call('HDEL', key, oldest)
        redis.call('HINCRBY', key, countField, -1)
      end
    end
  end
  local until_ = math.max(exp, now + tonumber(op[4]))
  redis.call('HSET', key, 'exp', string.format('%.0f', until_))
  redis.call('PEXPIRE', key, math.max(1, math.ceil(until_ - now)))
end
return #ops
`);

/** Options of {@link RedisTaintStore}. */
export interface RedisTaintStoreOptions {
  /** Most sources per key (oldest dropped). Default 64. */
  readonly maxSources?: number;
  /** Most secret fingerprints per key (oldest dropped). Default 1024. */
  readonly maxSecrets?: number;
}

interface Write {
  readonly key: string;
  readonly field: string;
  readonly record: string;
  readonly ttlMs: number;
  readonly now: number;
  readonly resolve: () => void;
  readonly reject: (error: unknown) => void;
}

/** Taint in Redis (see the module comment). */
export class RedisTaintStore implements TaintStore {
  readonly #cache: RedisCache;
  readonly #maxSources: number;
  readonly #maxSecrets: number;
  #writes: Write[] = [];
  #scheduled = false;

  constructor(cache: RedisCache, options: RedisTaintStoreOptions = {}) {
    this.#cache = cache;
    this.#maxSources = options.maxSources ?? 64;
    this.#maxSecrets = options.maxSecrets ?? 1024;
  }

  async get(key: string, now: number): Promise<TaintState | undefined> {
    const hash = await this.#cache.run('the taint store', (client) => client.hgetall(this.#keyOf(key)));
    return this.#state(key, hash, now);
  }

  addSource(key: string, source: TaintSource, ttlMs: number, now: number): Promise<void> {
    return this.#write(key, `s|${JSON.stringify([source.label, source.server, source.tool ?? null])}`, JSON.stringify(source), ttlMs, now);
  }

  addSecret(key: string, fingerprint: string, origin: SecretOrigin, ttlMs: number, now: number): Promise<void> {
    return this.#write(key, `f|${fingerprint}`, JSON.stringify(origin), ttlMs, now);
  }

  #write(key: string, field: string, record: string, ttlMs: number, now: number): Promise<void> {
    return new Promise((resolve, reject) => {
      this.#writes.push({ key, field, record, ttlMs, now, resolve, reject });
      this.#schedule();
    });
  }

  #schedule(): void {
    if (this.#scheduled) return;
    this.#scheduled = true;
    queueMicrotask(() => void this.#flush());
  }

  #keyOf(key: string): string {
    return `${this.#cache.prefix}taint:${key}`;
  }

  /** Sends the writes of this tick as one script. */
  async #flush(): Promise<void> {
    this.#scheduled = false;
    const writes = this.#writes;
    this.#writes = [];
    const keys: string[] = [];
    const index = new Map<string, number>();
    const ops = writes.map((w) => {
      let i = index.get(w.key);
      if (i === undefined) index.set(w.key, (i = keys.push(this.#keyOf(w.key))));
      return [i, w.field, w.record, w.ttlMs, w.now];
    });
    try {
      await this.#cache.eval('the taint store', ADD, keys, [this.#maxSources, this.#maxSecrets, JSON.stringify(ops)]);
      for (const w of writes) w.resolve();
    } catch (error) {
      for (const w of writes) w.reject(error);
    }
  }

  /** The taint of one hash, checked (a record that is not ours: `ERR_MCP_STORE_CORRUPT`). */
  #state(key: string, hash: Record<string, string>, now: number): TaintState | undefined {
    const exp = hash['exp'];
    if (exp === undefined || !(Number(exp) > now)) return undefined;
    const corrupt = (field: string): never => {
      throw new McpError(McpErrorCode.StoreCorrupt, `The taint of ${JSON.stringify(key)} in Redis is damaged (${JSON.stringify(field)} is not a record Switchboard wrote); calls in that session are refused until it is deleted`);
    };
    const sources: TaintSource[] = [];
    const secrets: [string, SecretOrigin][] = [];
    for (const [field, text] of Object.entries(hash)) {
      const kind = field.slice(0, 2);
      if (kind !== 's|' && kind !== 'f|') continue;
      let value: unknown;
      try {
        value = JSON.parse(text);
      } catch {
        corrupt(field);
      }
      if (kind === 's|') sources.push(taintSourceFrom(value) ?? corrupt(field));
      else secrets.push([field.slice(2), secretOriginFrom(value) ?? corrupt(field)]);
    }
    // Oldest first, as the memory store keeps them.
    sources.sort((a, b) => a.at - b.at);
    secrets.sort((a, b) => a[1].at - b[1].at);
    return { sources, secrets: new Map(secrets) };
  }
}

/**
 * The key of the secret fingerprints every instance shares when they share taint in Redis
 * (created by the first, `SET NX`): without it a secret read through one instance would not be
 * recognised in a request through another. With `--store` the gateway keeps it in PostgreSQL
 * instead, apart from the fingerprints.
 */
export async function redisFingerprintKey(cache: RedisCache): Promise<string> {
  const key = `${cache.prefix}taint-fingerprint-key`;
  return cache.run('the taint fingerprint key', async (client) => {
    await client.set(key, randomBytes(32).toString('hex'), 'NX');
    const value = await client.get(key);
    if (value === null || !/^[0-9a-f]{64}$/.test(value)) throw new McpError(McpErrorCode.StoreCorrupt, `The taint fingerprint key ${key} in Redis is not 32 bytes of hex; it is not replaced: delete it on purpose`);
    return value;
  });
}

/** What in the Redis server's settings would let it forget taint (empty when nothing). */
export async function redisTaintWarnings(cache: RedisCache): Promise<string[]> {
  const info = await cache.run('reading the Redis settings', (client) => client.info());
  const field = (name: string): string | undefined => new RegExp(`^${name}:(.*)$`, 'm').exec(info)?.[1]?.trim();
  const warnings: string[] = [];
  if (field('aof_enabled') === '0') warnings.push('Redis runs without its append-only file (appendonly no): a Redis restart forgets the taint written since its last snapshot, and sessions shed it; set appendonly yes');
  const policy = field('maxmemory_policy');
  if (policy !== undefined && policy !== 'noeviction') warnings.push(`Redis evicts keys when full (maxmemory-policy ${policy}): taint can be evicted and shed; set maxmemory-policy noeviction (writes then fail and calls are refused)`);
  return warnings;
}
