/**
 * DPoP proof checking at a resource server
 * ({@link https://datatracker.ietf.org/doc/html/rfc9449 | RFC 9449}).
 *
 * {@link verifyDpopProof} runs the checks of
 * {@link https://datatracker.ietf.org/doc/html/rfc9449#section-4.3 | section 4.3} on the value of
 * the `DPoP` request header: one proof, a compact JWS with `typ: dpop+jwt`, an allow-listed
 * asymmetric `alg`, a public `jwk` header that verifies the signature, `jti`, `htm` (the request
 * method), `htu` (the request URL without query and fragment, compared after RFC 3986 section 6.2.2
 * and 6.2.3 normalisation), `iat` within the acceptance window, `ath` (the hash of the access
 * token, {@link https://datatracker.ietf.org/doc/html/rfc9449#section-7 | section 7}), the
 * server nonce when one is demanded ({@link https://datatracker.ietf.org/doc/html/rfc9449#section-9 | section 9}),
 * the key the access token is bound to (`cnf.jkt`, {@link https://datatracker.ietf.org/doc/html/rfc9449#section-6 | section 6}),
 * and last, once everything else holds, that the `jti` was not seen before
 * ({@link https://datatracker.ietf.org/doc/html/rfc9449#section-11.1 | section 11.1}).
 *
 * The acceptance window is `iat` in `[now − maxAgeSec − clockToleranceSec, now + clockToleranceSec]`
 * (defaults 300 s and 30 s, the tolerance matching the access-token check of `createBearerVerifier`
 * so one clock budget covers both). A `jti` is remembered until the proof would be refused as
 * stale anyway, so the tolerance never opens a replay window.
 *
 * The replay cache is keyed by key thumbprint and `jti`: a replayed proof is the same signed
 * JWT, so it always repeats both, while one client's poor `jti` generator, or an attacker who
 * learns another client's `jti` values, cannot make another key's proofs fail.
 *
 * @module
 */

import * as jose from 'jose';
import { AuthError, AuthErrorCode } from '../errors.js';
import { isObject, randomToken, sha256b64u, timingSafeEqual } from '../http.js';
import { formatChallenge } from '../wwwAuthenticate.js';

/** The default DPoP proof algorithm allow-list: asymmetric only. */
export const DEFAULT_DPOP_ALGORITHMS: readonly string[] = Object.freeze(['ES256', 'ES384', 'PS256', 'RS256', 'EdDSA']);

/** Every algorithm that may be allowed for proofs: asymmetric JWS algorithms only (never `none`, never `HS*`). */
const ASYMMETRIC: ReadonlySet<string> = new Set(['ES256', 'ES384', 'ES512', 'PS256', 'PS384', 'PS512', 'RS256', 'RS384', 'RS512', 'EdDSA', 'Ed25519']);

/** Longest `DPoP` header value accepted (an RSA-4096 proof is about 2 KB). */
const MAX_PROOF_LENGTH = 8192;
/** Longest `jti` accepted: bounds the replay cache's memory per entry. */
export const MAX_JTI_LENGTH = 256;
/** Private or symmetric JWK members: their presence means the header leaks a secret. */
const PRIVATE_MEMBERS = ['d', 'p', 'q', 'dp', 'dq', 'qi', 'oth', 'k', 'priv'] as const;
const COMPACT_JWS = /^[A-Za-z0-9_-]+\.[A-Za-z0-9_-]+\.[A-Za-z0-9_-]+$/;
/** `nonce = 1*NQCHAR` (RFC 9449 section 8.1). */
const NONCE = /^[\x21\x23-\x5B\x5D-\x7E]+$/;

/**
 * Remembers the proofs already used. Implementations shared by several server processes (e.g.
 * Redis `SET key 1 NX PXAT expiresAt`) make replay detection hold across all of them.
 */
export interface DpopReplayCache {
  /**
   * Records `key` until `expiresAt` (ms since the epoch). Returns true when the key was new (or
   * its record expired), false when it is recorded and unexpired: a replay. Throwing or
   * rejecting means the proof cannot be checked, and the request is refused (fail closed, 503).
   */
  remember(key: string, expiresAt: number): boolean | Promise<boolean>;
}

/** Options of {@link InMemoryDpopReplayCache}. */
export interface InMemoryDpopReplayCacheOptions {
  /** Most unexpired entries held (default 100,000). When full, new proofs are refused with 503 rather than forgetting a live entry. */
  maxEntries?: number;
  /** Clock in ms since the epoch (default `Date.now`). */
  now?: () => number;
}

/**
 * A bounded in-process {@link DpopReplayCache}. Entries expire with the acceptance window of the
 * proof they record; expired ones are swept at most once a second. When `maxEntries` unexpired
 * entries are held it fails closed (an evicted live entry would let that proof be replayed).
 * One process only: several instances behind a load balancer need a shared cache.
 */
export class InMemoryDpopReplayCache implements DpopReplayCache {
  readonly #entries = new Map<string, number>();
  readonly #maxEntries: number;
  readonly #now: () => number;
  #nextSweep = 0;

  constructor(options: InMemoryDpopReplayCacheOptions = {}) {
    const max = options.maxEntries ?? 100_000;
    if (!Number.isInteger(max) || max < 1) throw new AuthError(AuthErrorCode.Configuration, 'maxEntries must be a positive integer');
    this.#maxEntries = max;
    this.#now = options.now ?? Date.now;
  }

  /** The number of entries held (expired ones included until the next sweep). */
  get size(): number {
    return this.#entries.size;
  }

  remember(key: string, expiresAt: number): boolean {
    const now = this.#now();
    const seen = this.#entries.get(key);
    if (seen !== undefined && seen >= now) return false;
    // Expired entries are swept at most once a second: never a full scan per request.
    if (now >= this.#nextSweep) this.#sweep(now);
    if (seen === undefined && this.#entries.size >= this.#maxEntries) {
      throw new AuthError(AuthErrorCode.VerifierUnavailable, 'the DPoP replay cache is full');
    }
    this.#entries.delete(key);
    this.#entries.set(key, expiresAt);
    return true;
  }

  #sweep(now: number): void {
    this.#nextSweep = now + 1000;
    for (const [key, expiresAt] of this.#entries) if (expiresAt < now) this.#entries.delete(key);
  }
}

/**
 * Server-provided nonces ({@link https://datatracker.ietf.org/doc/html/rfc9449#section-9 | RFC 9449 section 9}):
 * proofs must carry one the server handed out, which bounds their lifetime by the server's clock
 * instead of the client's (pre-generated proofs, section 11.2). A source shared by several server
 * processes (e.g. in Redis) may answer asynchronously; when it throws or rejects, the proof cannot
 * be checked and the request is refused (fail closed, 503).
 */
export interface DpopNonceSource {
  /** The nonce clients must use now, sent as `DPoP-Nonce` with a `use_dpop_nonce` challenge. `1*NQCHAR`. */
  current(): string | Promise<string>;
  /** True when a proof's `nonce` is acceptable now. */
  accepts(nonce: string): boolean | Promise<boolean>;
}

/** A {@link DpopNonceSource} that answers at once (the in-process one). */
export interface SyncDpopNonceSource extends DpopNonceSource {
  current(): string;
  accepts(nonce: string): boolean;
}

/** Options of {@link createDpopNonceSource}. */
export interface DpopNonceSourceOptions {
  /** Seconds between nonce rotations (default 300). The previous nonce stays valid for one more period. */
  rotateSec?: number;
  /** Clock in ms since the epoch (default `Date.now`). */
  now?: () => number;
}

/**
 * A rotating in-process {@link DpopNonceSource}: a fresh random nonce every `rotateSec`, the
 * previous one still accepted for one period so clients are not all challenged at a rotation.
 * One process only (several instances need a shared or stateless source).
 */
export function createDpopNonceSource(options: DpopNonceSourceOptions = {}): SyncDpopNonceSource {
  const period = (options.rotateSec ?? 300) * 1000;
  if (!(period > 0)) throw new AuthError(AuthErrorCode.Configuration, 'rotateSec must be positive');
  const now = options.now ?? Date.now;
  let current = randomToken(16);
  let previous: string | undefined;
  let rotatedAt = now();
  const rotate = (): void => {
    const t = now();
    if (t - rotatedAt < period) return;
    previous = t - rotatedAt < 2 * period ? current : undefined;
    current = randomToken(16);
    rotatedAt = t;
  };
  return {
    current() {
      rotate();
      return current;
    },
    accepts(nonce) {
      rotate();
      return timingSafeEqual(nonce, current) || (previous !== undefined && timingSafeEqual(nonce, previous));
    },
  };
}

/** The `error` of a proof failure's challenge. */
export type DpopProofChallengeError = 'invalid_dpop_proof' | 'use_dpop_nonce';

/** Options of {@link verifyDpopProof}. */
export interface DpopProofOptions {
  /** The request method, compared byte for byte with `htm` (methods are case-sensitive). */
  method: string;
  /**
   * The request URL as this server knows it: its configured origin plus the request path (never
   * built from the `Host` header, which the client controls). Query and fragment are ignored.
   */
  url: string;
  /** The access token sent with the proof: the proof's `ath` must be its SHA-256 hash. */
  accessToken?: string;
  /** The thumbprint the proof must be signed with: the access token's `cnf.jkt`. */
  jkt?: string;
  /** Where `jti` values are remembered. */
  replayCache: DpopReplayCache;
  /** Algorithm allow-list (default {@link DEFAULT_DPOP_ALGORITHMS}); asymmetric algorithms only. */
  algorithms?: readonly string[];
  /** The nonce the proof must carry: a fixed value or a {@link DpopNonceSource}. Default: none demanded. */
  nonce?: string | DpopNonceSource;
  /** Oldest proof accepted, seconds after its `iat` (default 300). */
  maxAgeSec?: number;
  /** Clock skew tolerance in seconds (default 30), on both sides of the window. */
  clockToleranceSec?: number;
  /** Clock in ms since the epoch (default `Date.now`). */
  now?: () => number;
  /** Builds the `WWW-Authenticate` value of a failure. Default: `DPoP algs="…", error="…", error_description="…"`. */
  challenge?: (error: DpopProofChallengeError, description: string) => string;
}

/** A proof that passed every check. */
export interface VerifiedDpopProof {
  /** The RFC 7638 SHA-256 thumbprint of the proof key. */
  readonly jkt: string;
  /** The proof's `jti`. */
  readonly jti: string;
  /** The proof's `iat`, seconds since the epoch. */
  readonly iat: number;
}

/**
 * Validates an algorithm allow-list for proofs: not empty, asymmetric only. Throws
 * `ERR_AUTH_CONFIGURATION`; returns a frozen copy.
 */
export function dpopAlgorithms(algorithms: readonly string[] = DEFAULT_DPOP_ALGORITHMS): readonly string[] {
  if (algorithms.length === 0) throw new AuthError(AuthErrorCode.Configuration, 'DPoP algorithms must not be empty');
  for (const alg of algorithms) {
    if (!ASYMMETRIC.has(alg)) throw new AuthError(AuthErrorCode.Configuration, `DPoP algorithm ${alg} is not an asymmetric JWS algorithm`);
  }
  return Object.freeze([...algorithms]);
}

/**
 * The comparable form of an `htu` or request URL: scheme and host lowercased, default port
 * dropped, dot segments resolved (WHATWG URL), percent-encodings uppercased and those of
 * unreserved characters decoded (RFC 3986 sections 6.2.2.1 and 6.2.2.2), query and fragment
 * dropped. Undefined for a non-HTTP(S) URL or one with userinfo.
 */
export function normalizeHtu(value: string): string | undefined {
  let url: URL;
  try {
    url = new URL(value);
  } catch {
    return undefined;
  }
  if ((url.protocol !== 'https:' && url.protocol !== 'http:') || url.username !== '' || url.password !== '') return undefined;
  const path = url.pathname.replace(/%([0-9A-Fa-f]{2})/g, (_, hex: string) => {
    const c = String.fromCharCode(parseInt(hex, 16));
    return /^[A-Za-z0-9\-._~]$/.test(c) ? c : `%${hex.toUpperCase()}`;
  });
  return `${url.protocol}//${url.host}${path}`;
}

/**
 * Checks one DPoP proof (the `DPoP` header value) for a request. Resolves with the proof's key
 * thumbprint, `jti` and `iat`; throws an {@link AuthError}: `ERR_AUTH_INVALID_DPOP_PROOF` (401),
 * `ERR_AUTH_USE_DPOP_NONCE` (401, with `dpopNonce` to send as `DPoP-Nonce`),
 * `ERR_AUTH_VERIFIER_UNAVAILABLE` (503, the replay cache failed) or `ERR_AUTH_CONFIGURATION`.
 *
 * @example
 * ```ts
 * const replayCache = new InMemoryDpopReplayCache();
 * const { jkt } = await verifyDpopProof(request.headers.get('dpop'), {
 *   method: 'POST', url: 'https://mcp.example.com/mcp', accessToken, jkt: cnfJkt, replayCache,
 * });
 * ```
 */
export async function verifyDpopProof(proof: string | null | undefined, options: DpopProofOptions): Promise<VerifiedDpopProof> {
  const algorithms = dpopAlgorithms(options.algorithms);
  const maxAge = options.maxAgeSec ?? 300;
  const tolerance = options.clockToleranceSec ?? 30;
  if (!(maxAge > 0) || !(tolerance >= 0)) throw new AuthError(AuthErrorCode.Configuration, 'maxAgeSec must be positive and clockToleranceSec not negative');
  const challenge = options.challenge ?? ((error, description) => formatChallenge('DPoP', { algs: algorithms.join(' '), error, error_description: description }));
  const fail = (description: string, cause?: unknown): AuthError =>
    new AuthError(AuthErrorCode.InvalidDpopProof, `invalid DPoP proof: ${description}`, {
      cause,
      wwwAuthenticate: challenge('invalid_dpop_proof', description),
    });

  // Exactly one proof: repeated headers arrive joined with ", ", which no compact JWS contains.
  if (proof === null || proof === undefined || proof.trim() === '') throw fail('missing DPoP proof');
  const value = proof.trim();
  if (value.includes(',')) throw fail('more than one DPoP proof', value);
  if (value.length > MAX_PROOF_LENGTH || !COMPACT_JWS.test(value)) throw fail('malformed DPoP proof');

  let header: jose.ProtectedHeaderParameters;
  try {
    header = jose.decodeProtectedHeader(value);
  } catch (cause) {
    throw fail('malformed DPoP proof', cause);
  }
  const typ = header.typ;
  if (typeof typ !== 'string' || !['dpop+jwt', 'application/dpop+jwt'].includes(typ.toLowerCase())) throw fail('typ is not dpop+jwt', typ);
  if (typeof header.alg !== 'string' || !algorithms.includes(header.alg)) throw fail('algorithm not allowed', header.alg);
  if (header.crit !== undefined) throw fail('unsupported crit header', header.crit);
  const jwk: unknown = header.jwk;
  if (!isObject(jwk)) throw fail('the jwk header is missing');
  if (PRIVATE_MEMBERS.some((member) => Object.hasOwn(jwk, member))) throw fail('the jwk header must be a public key');

  let payloadBytes: Uint8Array;
  try {
    ({ payload: payloadBytes } = await jose.compactVerify(value, jose.EmbeddedJWK, { algorithms: [...algorithms] }));
  } catch (cause) {
    const code = (cause as { code?: unknown } | null)?.code;
    throw fail(code === 'ERR_JWS_SIGNATURE_VERIFICATION_FAILED' ? 'bad signature' : 'the proof signature could not be checked', cause);
  }
  let claims: unknown;
  try {
    claims = JSON.parse(new TextDecoder('utf-8', { fatal: true }).decode(payloadBytes));
  } catch (cause) {
    throw fail('malformed DPoP proof', cause);
  }
  if (!isObject(claims)) throw fail('malformed DPoP proof');

  const jti = claims['jti'];
  if (typeof jti !== 'string' || jti === '' || jti.length > MAX_JTI_LENGTH) throw fail('jti is missing or too long');
  if (claims['htm'] !== options.method) throw fail('htm does not match the request method');
  const htu = claims['htu'];
  const expected = normalizeHtu(options.url);
  if (expected === undefined) throw new AuthError(AuthErrorCode.Configuration, 'the request URL is not an absolute http(s) URL', { cause: options.url });
  if (typeof htu !== 'string' || normalizeHtu(htu) !== expected) throw fail('htu does not match the request URL');
  const iat = claims['iat'];
  const nowMs = (options.now ?? Date.now)();
  const nowSec = nowMs / 1000;
  if (typeof iat !== 'number' || !Number.isFinite(iat)) throw fail('iat is missing');
  if (iat > nowSec + tolerance) throw fail('iat is in the future');
  if (iat < nowSec - maxAge - tolerance) throw fail('the proof is too old');
  if (options.accessToken !== undefined) {
    const ath = claims['ath'];
    if (typeof ath !== 'string' || !timingSafeEqual(ath, await sha256b64u(options.accessToken))) throw fail('ath does not match the access token');
  }

  const jkt = await jose.calculateJwkThumbprint(jwk as jose.JWK, 'sha256');
  if (options.jkt !== undefined && !timingSafeEqual(jkt, options.jkt)) {
    throw fail('the proof is not signed with the key the access token is bound to');
  }

  if (options.nonce !== undefined) {
    const source: DpopNonceSource = typeof options.nonce === 'string' ? fixedNonce(options.nonce) : options.nonce;
    const nonce = claims['nonce'];
    const unavailable = (cause: unknown): AuthError =>
      cause instanceof AuthError ? cause : new AuthError(AuthErrorCode.VerifierUnavailable, 'the DPoP nonce source failed', { cause });
    let accepted: boolean;
    try {
      accepted = typeof nonce === 'string' && (await source.accepts(nonce));
    } catch (cause) {
      throw unavailable(cause);
    }
    if (!accepted) {
      let fresh: string;
      try {
        fresh = await source.current();
      } catch (cause) {
        throw unavailable(cause);
      }
      if (!NONCE.test(fresh)) throw new AuthError(AuthErrorCode.Configuration, 'a DPoP nonce must be 1*NQCHAR (RFC 9449 section 8.1)');
      const description = nonce === undefined ? 'the resource server requires a nonce in the DPoP proof' : 'the DPoP nonce is stale';
      throw new AuthError(AuthErrorCode.UseDpopNonce, description, { wwwAuthenticate: challenge('use_dpop_nonce', description), dpopNonce: fresh });
    }
  }

  // Last: only a proof that passed every other check takes a place in the cache.
  let fresh: boolean;
  try {
    fresh = await options.replayCache.remember(`${jkt}:${jti}`, Math.ceil((iat + maxAge + tolerance) * 1000) + 1000);
  } catch (cause) {
    if (cause instanceof AuthError) throw cause;
    throw new AuthError(AuthErrorCode.VerifierUnavailable, 'the DPoP replay cache failed', { cause });
  }
  if (!fresh) throw fail('the proof was already used (replay)');
  return Object.freeze({ jkt, jti, iat });
}

function fixedNonce(value: string): SyncDpopNonceSource {
  return { current: () => value, accepts: (nonce) => timingSafeEqual(nonce, value) };
}
