/**
 * The client's cache of cacheable results (2026-07-28 `CacheableResult`): list pages and
 * resource reads, each entry fresh while `now < received + ttlMs`.
 *
 * - `ttlMs` absent, negative or 0 ⇒ not stored (stale immediately).
 * - `cacheScope: "public"` entries are shared; `private` ones (and those without a scope) are
 *   only reused under the same authorization context (`cacheKey`).
 * - Each page is its own entry (method + cursor); reads are keyed by URI.
 * - Change notifications invalidate: list_changed drops that list's pages, resources/updated
 *   drops reads of that URI and of its sub-resources.
 *
 * Results of MRTR retries are never offered to the cache (the caller's job).
 *
 * @see https://modelcontextprotocol.io/specification/2026-07-28/basic/patterns/caching
 * @module
 */
import { effectiveTtlMs } from '../protocol/codec.js';

interface Entry {
  readonly method: string;
  readonly arg: string;
  readonly value: Record<string, unknown>;
  readonly expires: number;
}

/** Options of a {@link ResultCache}. */
export interface ResultCacheOptions {
  /** Most entries kept; the oldest go first. Default 1,000. */
  readonly maxEntries?: number;
  /** The clock (tests freeze it). Default `Date.now`. */
  readonly now?: () => number;
}

const SEP = '\u0000';

/** A TTL- and scope-aware cache of results, keyed by method and one argument (cursor or URI). */
export class ResultCache {
  readonly #entries = new Map<string, Entry>();
  readonly #maxEntries: number;
  readonly #now: () => number;

  constructor(options: ResultCacheOptions = {}) {
    this.#maxEntries = options.maxEntries ?? 1000;
    this.#now = options.now ?? Date.now;
  }

  /** How many entries are stored (fresh or not). */
  get size(): number {
    return this.#entries.size;
  }

  static #partition(scope: 'public' | 'private', cacheKey: string | undefined): string {
    return scope === 'public' ? 'public' : `private:${cacheKey ?? ''}`;
  }

  /** A fresh entry for `method` + `arg` visible under `cacheKey`, or undefined. */
  get(method: string, arg: string, cacheKey: string | undefined): Record<string, unknown> | undefined {
    for (const partition of [ResultCache.#partition('private', cacheKey), 'public']) {
      const key = partition + SEP + method + SEP + arg;
      const entry = this.#entries.get(key);
      if (entry === undefined) continue;
      if (this.#now() < entry.expires) return entry.value;
      this.#entries.delete(key);
    }
    return undefined;
  }

  /** Stores a complete result when its hints allow it. */
  set(method: string, arg: string, value: Record<string, unknown>, cacheKey: string | undefined): void {
    const ttl = effectiveTtlMs(value);
    if (ttl <= 0) return;
    const partition = ResultCache.#partition(value['cacheScope'] === 'public' ? 'public' : 'private', cacheKey);
    const key = partition + SEP + method + SEP + arg;
    this.#entries.delete(key);
    this.#entries.set(key, { method, arg, value, expires: this.#now() + ttl });
    while (this.#entries.size > this.#maxEntries) {
      const oldest = this.#entries.keys().next();
      if (oldest.done === true) break;
      this.#entries.delete(oldest.value);
    }
  }

  /** Drops every entry of the given methods. */
  invalidate(...methods: string[]): void {
    for (const [key, entry] of this.#entries) if (methods.includes(entry.method)) this.#entries.delete(key);
  }

  /** Drops cached reads of `uri` and of resources under it. */
  invalidateResource(uri: string): void {
    const prefix = uri.endsWith('/') ? uri : `${uri}/`;
    for (const [key, entry] of this.#entries) {
      if (entry.method === 'resources/read' && (entry.arg === uri || entry.arg.startsWith(prefix) || uri.startsWith(entry.arg.endsWith('/') ? entry.arg : `${entry.arg}/`))) {
        this.#entries.delete(key);
      }
    }
  }

  /** Drops everything. */
  clear(): void {
    this.#entries.clear();
  }
}
