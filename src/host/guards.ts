/**
 * Guards: the `guard`-phase interceptor that bounds what reaches a server and what comes back.
 *
 * - **Rate limits** per principal, server and tool (any combination), as token buckets: `max`
 *   requests per `perMs`, refilled continuously. Buckets live in a {@link RateLimitStore}
 *   (in memory here; a shared store can implement it for several gateway instances).
 * - **Concurrency caps** per principal (a server's own cap is its `maxConcurrency`), counted in a
 *   {@link ConcurrencyStore} (in memory here; a shared one holds leases that expire, so a killed
 *   instance does not keep its slots).
 * - **Circuit breaker** per server: after `failures` consecutive failed requests (errors and
 *   timeouts, not tool errors) the server's requests are refused for `openMs`; then one trial
 *   request is let through (half-open), and its success closes the circuit again.
 * - **Response size cap**: a result larger than `maxResultBytes` (UTF-8 JSON) is replaced by an
 *   error, so a server cannot flood the model's context or the gateway's memory.
 *
 * Every refusal is a {@link DeniedError} naming the guard, the limit and when to retry, and a
 * refused request never reaches the server. Timeouts that cancel the downstream request are the
 * per-server `timeoutMs` of each server (the client sends `notifications/cancelled`).
 *
 * @module
 */
import { McpError, McpErrorCode } from '../util/errors.js';
import { RecencyMap } from '../util/recencyMap.js';
import { DeniedError, type InterceptContext, type InterceptedMethod, type Interceptor } from './interceptors.js';

/** What a rate limit counts by. */
export type RateLimitScope = 'principal' | 'server' | 'tool';

/** One token-bucket rule. */
export interface RateLimitRule {
  /** The bucket key: e.g. `['principal', 'tool']` = one bucket per principal and tool. Empty = one global bucket. */
  readonly by: readonly RateLimitScope[];
  /** Requests allowed per window (the bucket's capacity). */
  readonly max: number;
  /** The window in ms over which `max` tokens refill. */
  readonly perMs: number;
  /** Which methods count. Default `['tools/call']`. */
  readonly methods?: readonly InterceptedMethod[];
}

/** What {@link RateLimitStore.take} answers. */
export interface RateLimitVerdict {
  readonly allowed: boolean;
  /** When refused: ms until a token is there again. */
  readonly retryAfterMs: number;
}

/**
 * Token buckets by key. Implementations must be atomic per key. A shared store answers
 * asynchronously, and rejects when it cannot decide (the guard then refuses: fail closed).
 */
export interface RateLimitStore {
  /** Takes one token from `key`'s bucket; says whether it was there, and if not, when one will be. */
  take(key: string, rule: RateLimitRule, now: number): RateLimitVerdict | Promise<RateLimitVerdict>;
}

/** A slot taken by {@link ConcurrencyStore.acquire}. */
export type ConcurrencyGrant = { readonly allowed: true; readonly release: () => Promise<void> } | { readonly allowed: false; readonly inFlight: number };

/**
 * In-flight counts by key (the per-principal cap). Implementations must be atomic per key; a
 * shared one holds each slot as a lease that expires unless renewed, so the slots of an
 * instance that died come back by themselves. Rejecting means the cap cannot be checked (the
 * guard refuses).
 */
export interface ConcurrencyStore {
  /** Takes a slot of `key` when fewer than `max` are taken (`now` is the caller's clock, epoch ms). */
  acquire(key: string, max: number, now: number): ConcurrencyGrant | Promise<ConcurrencyGrant>;
}

/** Counts in this process's memory (no leases needed: the process holding them is this one). */
export class MemoryConcurrencyStore implements ConcurrencyStore {
  readonly #counts = new Map<string, number>();

  acquire(key: string, max: number): ConcurrencyGrant {
    const count = this.#counts.get(key) ?? 0;
    if (count >= max) return { allowed: false, inFlight: count };
    this.#counts.set(key, count + 1);
    let released = false;
    return {
      allowed: true,
      release: () => {
        if (!released) {
          released = true;
          const left = (this.#counts.get(key) ?? 1) - 1;
          if (left <= 0) this.#counts.delete(key);
          else this.#counts.set(key, left);
        }
        return Promise.resolve();
      },
    };
  }
}

/** What a bucket with a token answers (one object for every allowed request). */
const ALLOWED: RateLimitVerdict = Object.freeze({ allowed: true, retryAfterMs: 0 });

/** Buckets in this process's memory (idle buckets are dropped when full again). */
export class MemoryRateLimitStore implements RateLimitStore {
  /** Most recently used last; beyond `maxBuckets` the oldest are dropped (they were idle). */
  readonly #buckets: RecencyMap<string, { tokens: number; at: number }>;

  constructor(maxBuckets = 100_000) {
    this.#buckets = new RecencyMap(maxBuckets);
  }

  take(key: string, rule: RateLimitRule, now: number): RateLimitVerdict {
    const rate = rule.max / rule.perMs;
    const bucket = this.#buckets.get(key) ?? { tokens: rule.max, at: now };
    this.#buckets.use(key, bucket);
    bucket.tokens = Math.min(rule.max, bucket.tokens + (now - bucket.at) * rate);
    bucket.at = now;
    if (bucket.tokens >= 1) {
      bucket.tokens -= 1;
      return ALLOWED;
    }
    return { allowed: false, retryAfterMs: Math.ceil((1 - bucket.tokens) / rate) };
  }
}

/** Options of {@link guardInterceptor}. */
export interface GuardOptions {
  readonly rateLimits?: readonly RateLimitRule[];
  readonly rateLimitStore?: RateLimitStore;
  /** Most requests in flight per principal (anonymous callers share one count). Default: no cap. */
  readonly maxConcurrentPerPrincipal?: number;
  /** Where the in-flight counts live. Default: this process's memory. */
  readonly concurrencyStore?: ConcurrencyStore;
  /** Per-server circuit breaker. Default: off. */
  readonly circuitBreaker?: { readonly failures: number; readonly openMs: number };
  /** Largest result in bytes of JSON (calls, gets, reads). Default: no cap. */
  readonly maxResultBytes?: number;
  /** The clock (tests). Default `Date.now`. */
  readonly now?: () => number;
}

/** The ids the guards record and refuse under. */
export const GUARD_IDS = Object.freeze({ rate: 'guard.rate', concurrency: 'guard.concurrency', circuit: 'guard.circuit', size: 'guard.size' });

// `tasks/get` carries a task's tool result once it completed: the size limit applies to it too.
const SIZED: ReadonlySet<InterceptedMethod> = new Set(['tools/call', 'prompts/get', 'resources/read', 'tasks/get']);
const ROUTED: ReadonlySet<InterceptedMethod> = new Set(['tools/call', 'prompts/get', 'resources/read', 'completion/complete', 'tasks/get', 'tasks/update', 'tasks/cancel']);

/** A rate-limit rule's bucket key for one caller, server and tool, and the parts a refusal names. */
interface BucketKey {
  readonly principal: string;
  readonly server: string;
  readonly tool: string;
  readonly parts: readonly string[];
  readonly key: string;
}

/** Whether a store answered with a promise (or any thenable) rather than the answer itself. */
function isThenable<T>(value: T | PromiseLike<T>): value is PromiseLike<T> {
  return typeof (value as { then?: unknown } | null)?.then === 'function';
}

function refuseRate(rule: RateLimitRule, parts: readonly string[], { allowed, retryAfterMs }: RateLimitVerdict): void {
  if (allowed) return;
  const what = rule.by.length === 0 ? 'in all' : `per ${rule.by.join(' and ')} (${parts.join(', ')})`;
  throw new DeniedError(GUARD_IDS.rate, `rate limit of ${rule.max} per ${rule.perMs} ms ${what} reached; retry in ${Math.ceil(retryAfterMs / 1000)} s`);
}

/** Deepest nesting {@link jsonBytesAtMost} follows before it gives up (the caller then serialises). */
const MAX_BOUND_DEPTH = 64;

/**
 * An upper bound of the UTF-8 size of `JSON.stringify(value)`, summed from the value without
 * serialising it: a string counts 6 bytes a UTF-16 unit (the longest escape, `\u001f`; no
 * character takes more in UTF-8) plus its quotes, a number 25 bytes, the rest exactly. Stops
 * once the sum passes `limit`, and is `Infinity` for what it does not follow (a value with
 * `toJSON`, one that is not a plain object or array, nesting deeper than 64): the caller then
 * serialises it to know.
 */
export function jsonBytesAtMost(value: unknown, limit: number, depth = 0): number {
  switch (typeof value) {
    case 'string':
      return value.length * 6 + 2;
    case 'number':
      return 25;
    case 'boolean':
      return 5;
    case 'undefined':
      return 9; // `null` in an array, nothing in an object: 9 bounds both
    case 'object':
      break;
    default:
      return Infinity;
  }
  if (value === null) return 4;
  if (depth >= MAX_BOUND_DEPTH || typeof (value as { toJSON?: unknown }).toJSON === 'function') return Infinity;
  let bytes = 2;
  if (Array.isArray(value)) {
    for (const item of value as unknown[]) {
      bytes += jsonBytesAtMost(item, limit - bytes, depth + 1) + 1;
      if (bytes > limit) return bytes;
    }
    return bytes;
  }
  const proto = Object.getPrototypeOf(value) as unknown;
  if (proto !== Object.prototype && proto !== null) return Infinity;
  for (const key in value) {
    bytes += key.length * 6 + 4 + jsonBytesAtMost((value as Record<string, unknown>)[key], limit - bytes, depth + 1);
    if (bytes > limit) return bytes;
  }
  return bytes;
}

/** The `guard`-phase interceptor (see the module comment). */
export function guardInterceptor(options: GuardOptions): Interceptor {
  const now = options.now ?? Date.now;
  const store = options.rateLimitStore ?? new MemoryRateLimitStore();
  const rules = (options.rateLimits ?? []).map((rule, index) => {
    if (!(rule.max >= 1) || !(rule.perMs >= 1)) throw new McpError(McpErrorCode.InvalidArgument, `rate limit ${index}: max and perMs must be at least 1`);
    return { rule, index, methods: new Set(rule.methods ?? ['tools/call']), last: undefined as BucketKey | undefined };
  });
  const concurrency = options.concurrencyStore ?? new MemoryConcurrencyStore();
  const memoryConcurrency = concurrency instanceof MemoryConcurrencyStore;
  const circuits = new Map<string, { failures: number; openUntil: number; trial: boolean }>();
  const encoder = new TextEncoder();

  /**
   * Takes a token of every rule that counts `ctx`'s method; throws the refusal of the first
   * bucket that is empty. Synchronous while the store answers synchronously (this process's
   * memory): a promise only once a shared store answers with one.
   */
  const checkRate = (ctx: InterceptContext, from = 0): Promise<void> | undefined => {
    for (let i = from; i < rules.length; i++) {
      const entry = rules[i] as (typeof rules)[number];
      const { rule, methods } = entry;
      if (!methods.has(ctx.method)) continue;
      const principal = ctx.principal?.id ?? '';
      const server = ctx.server?.id ?? '';
      const tool = ctx.exposedName ?? '';
      // The same caller, server and tool as the rule's last request (a client calling in a loop): same bucket key.
      let key = entry.last;
      if (key === undefined || key.principal !== principal || key.server !== server || key.tool !== tool) {
        const parts = rule.by.map((scope) => `${scope}=${scope === 'principal' ? principal : scope === 'server' ? server : tool}`);
        entry.last = key = { principal, server, tool, parts, key: `${entry.index}|${parts.join('|')}` };
      }
      const { parts } = key;
      const taken = store.take(key.key, rule, now());
      if (isThenable(taken)) return Promise.resolve(taken).then((verdict) => (refuseRate(rule, parts, verdict), checkRate(ctx, i + 1)));
      refuseRate(rule, parts, taken);
    }
    return undefined;
  };

  const circuitOf = (server: string) => {
    let c = circuits.get(server);
    if (c === undefined) circuits.set(server, (c = { failures: 0, openUntil: 0, trial: false }));
    return c;
  };

  return {
    id: 'guard',
    phase: 'guard',
    async intercept(ctx, next) {
      if (!ROUTED.has(ctx.method)) return next();
      const rated = checkRate(ctx);
      if (rated !== undefined) await rated;
      const breaker = options.circuitBreaker;
      const server = ctx.server?.id;
      let trial = false;
      if (breaker !== undefined && server !== undefined) {
        const c = circuitOf(server);
        if (c.failures >= breaker.failures) {
          if (now() < c.openUntil || c.trial) {
            throw new DeniedError(GUARD_IDS.circuit, `server ${server} failed ${c.failures} times in a row; its requests are refused until ${new Date(c.openUntil).toISOString()}`);
          }
          c.trial = trial = true; // half-open: this request is the trial
        }
      }
      const who = ctx.principal?.id ?? '';
      const cap = options.maxConcurrentPerPrincipal;
      let release: (() => Promise<void>) | undefined;
      if (cap !== undefined) {
        const acquired = concurrency.acquire(`principal=${who}`, cap, now());
        const grant = isThenable(acquired) ? await acquired : acquired;
        if (!grant.allowed) throw new DeniedError(GUARD_IDS.concurrency, `at most ${cap} requests in flight per caller; ${who === '' ? 'this caller' : who} has ${grant.inFlight}`);
        release = grant.release;
      }
      try {
        const result = await next();
        if (breaker !== undefined && server !== undefined) {
          const c = circuitOf(server);
          c.failures = 0;
          c.trial = false;
        }
        // Most results are far under the cap: a bound on their JSON size, summed without serialising, shows it.
        if (options.maxResultBytes !== undefined && SIZED.has(ctx.method) && !(jsonBytesAtMost(result, options.maxResultBytes) <= options.maxResultBytes)) {
          const text = JSON.stringify(result) ?? '';
          // UTF-8 takes at most 3 bytes per UTF-16 unit: a text that short is under the cap without encoding it.
          const bytes = text.length * 3 <= options.maxResultBytes ? 0 : encoder.encode(text).byteLength;
          if (bytes > options.maxResultBytes) {
            ctx.record({ interceptor: GUARD_IDS.size, outcome: 'deny', reason: `result of ${bytes} bytes` });
            throw new DeniedError(GUARD_IDS.size, `the result of ${bytes} bytes is over the ${options.maxResultBytes}-byte limit`);
          }
        }
        return result;
      } catch (error) {
        if (breaker !== undefined && server !== undefined && !(error instanceof DeniedError)) {
          const c = circuitOf(server);
          c.failures++;
          c.trial = false;
          if (c.failures >= breaker.failures) c.openUntil = now() + breaker.openMs;
        } else if (trial && server !== undefined) {
          circuitOf(server).trial = false;
        }
        throw error;
      } finally {
        // A release that fails is left to the lease's expiry (shared stores). This process's
        // memory has released when the call returns: nothing to wait for.
        const released = release?.();
        if (released !== undefined && !memoryConcurrency) await released.catch(() => undefined);
      }
    },
  };
}
