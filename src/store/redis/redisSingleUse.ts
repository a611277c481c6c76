/**
 * Single-use values shared by every gateway instance, each one `SET key 1 NX PXAT expiry`:
 * the first instance to see a value wins, every later sight of it (on any instance) until it
 * expires is a replay. {@link RedisNonceStore} holds the MRTR `requestState` nonces,
 * {@link RedisDpopReplayCache} the DPoP proofs' `jti`s. When Redis cannot be reached both
 * reject, and the caller refuses the request (fail closed).
 *
 * @see https://modelcontextprotocol.io/specification/2026-07-28/basic/patterns/mrtr
 * @see https://datatracker.ietf.org/doc/html/rfc9449#section-11.1
 * @module
 */
import type { DpopReplayCache } from '../../auth/resource/dpopProof.js';
import type { NonceStore } from '../../server/requestState.js';
import type { RedisCache } from './redisCache.js';

/** Records `key` until `expiresAt` unless recorded; true when it was new. */
async function firstUse(cache: RedisCache, what: string, key: string, expiresAt: number): Promise<boolean> {
  // PXAT in the past would make the SET fail; such a value is already worthless, so it is kept 1 ms.
  const at = Math.max(Math.ceil(expiresAt), Date.now() + 1);
  const answer = await cache.run(what, (client) => client.set(key, '1', 'PXAT', at, 'NX'));
  return answer === 'OK';
}

/** MRTR single-use `requestState` nonces in Redis. */
export class RedisNonceStore implements NonceStore {
  readonly #cache: RedisCache;

  constructor(cache: RedisCache) {
    this.#cache = cache;
  }

  consume(nonce: string, expiresAt: number): Promise<boolean> {
    return firstUse(this.#cache, 'a single-use request state', `${this.#cache.prefix}nonce:${nonce}`, expiresAt);
  }
}

/** The DPoP proof replay cache in Redis. */
export class RedisDpopReplayCache implements DpopReplayCache {
  readonly #cache: RedisCache;

  constructor(cache: RedisCache) {
    this.#cache = cache;
  }

  remember(key: string, expiresAt: number): Promise<boolean> {
    return firstUse(this.#cache, 'the DPoP replay check', `${this.#cache.prefix}dpop:${key}`, expiresAt);
  }
}
