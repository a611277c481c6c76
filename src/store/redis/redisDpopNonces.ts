/**
 * DPoP server nonces shared by every gateway instance
 * ({@link https://datatracker.ietf.org/doc/html/rfc9449#section-9 | RFC 9449 section 9}): a nonce
 * handed out by one instance is accepted by all the others, so a client behind a load balancer
 * is not challenged again at every instance it reaches.
 *
 * Time is cut into periods of `rotateSec`; the nonce of period `e` is one random value under
 * `<prefix>dpop-nonce:<e>`, set once by whichever instance needs it first (`SET NX`) and never
 * changed, so each instance keeps the values it read and asks Redis again only for a new period
 * or for a nonce it does not know (another instance's, after Redis lost its keys). A proof's
 * nonce is accepted when it is the value of the current or the previous period (and of the
 * next one when it exists already: an instance whose clock is a little ahead). While Redis
 * cannot be reached, a nonce that needs it rejects with `ERR_MCP_STORE_UNAVAILABLE`, and the
 * proof is refused (503).
 *
 * @module
 */
import type { DpopNonceSource } from '../../auth/resource/dpopProof.js';
import { randomToken, timingSafeEqual } from '../../auth/http.js';
import type { RedisCache } from './redisCache.js';

/** Options of {@link RedisDpopNonceSource}. */
export interface RedisDpopNonceOptions {
  /** Seconds a nonce is handed out (default 300); it is accepted for one more period after. */
  readonly rotateSec?: number;
  /** Clock in ms since the epoch (default `Date.now`). */
  readonly now?: () => number;
}

/** The DPoP nonces of every instance, in Redis (see the module comment). */
export class RedisDpopNonceSource implements DpopNonceSource {
  readonly #cache: RedisCache;
  readonly #period: number;
  readonly #now: () => number;
  /** Period → its nonce, as read from Redis (a period's value never changes there). */
  readonly #known = new Map<number, string>();

  constructor(cache: RedisCache, options: RedisDpopNonceOptions = {}) {
    const period = (options.rotateSec ?? 300) * 1000;
    if (!(period > 0)) throw new TypeError('rotateSec must be positive');
    this.#cache = cache;
    this.#period = period;
    this.#now = options.now ?? Date.now;
  }

  async current(): Promise<string> {
    const epoch = this.#epoch();
    return this.#known.get(epoch) ?? (await this.#read(epoch, true)) ?? this.#missing();
  }

  async accepts(nonce: string): Promise<boolean> {
    const epoch = this.#epoch();
    const periods = [epoch, epoch - 1, epoch + 1];
    if (periods.some((e) => this.#matches(this.#known.get(e), nonce))) return true;
    for (const e of periods) {
      if (this.#matches(await this.#read(e, e === epoch), nonce)) return true;
    }
    return false;
  }

  #epoch(): number {
    return Math.floor(this.#now() / this.#period);
  }

  #matches(value: string | undefined, nonce: string): boolean {
    return value !== undefined && timingSafeEqual(value, nonce);
  }

  /** Reads the nonce of `epoch` from Redis, creating it first when asked; remembers what Redis holds. */
  async #read(epoch: number, create: boolean): Promise<string | undefined> {
    const key = `${this.#cache.prefix}dpop-nonce:${epoch}`;
    const value = await this.#cache.run('the DPoP nonce', async (client) => {
      // Kept for the period it is handed out, the one it is still accepted in, and one of slack.
      if (create) await client.set(key, this.#known.get(epoch) ?? randomToken(16), 'PXAT', (epoch + 3) * this.#period, 'NX');
      return client.get(key);
    });
    for (const e of this.#known.keys()) if (e < epoch - 2) this.#known.delete(e);
    if (value === null) {
      this.#known.delete(epoch);
      return undefined;
    }
    this.#known.set(epoch, value);
    return value;
  }

  #missing(): never {
    throw new TypeError('the DPoP nonce of this period vanished from Redis as it was set');
  }
}
