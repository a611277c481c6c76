/**
 * OAuth 2.0 Token Introspection for opaque access tokens
 * ({@link https://datatracker.ietf.org/doc/html/rfc7662 | RFC 7662}).
 *
 * The resource server authenticates to the introspection endpoint with its own client
 * credentials (`client_secret_basic` by default), then checks `active`, `exp`/`nbf` (with
 * skew), the issuer allow-list and the audience (RFC 8707: the token must be for this
 * resource; a response without `aud` is refused unless `requireAudience: false`).
 * Positive results are cached in memory, keyed by the SHA-256 of the token (the cache never
 * holds a raw token), for at most `cacheTtlSec` and never past `exp`.
 *
 * @module
 */

import { type FetchLike, type InsecureOption, basicAuthorization, defaultFetch, isObject, requireUrl, sha256b64u } from '../http.js';
import { type VerifiedPrincipal, principalFromClaims } from './principal.js';

/** Options of the introspection strategy. */
export interface IntrospectionOptions {
  /** The RFC 7662 endpoint (HTTPS). */
  endpoint: string;
  /** This resource server's client id at the authorization server. */
  clientId: string;
  /** Its client secret. */
  clientSecret: string;
  /** Client authentication method (default `client_secret_basic`). */
  authMethod?: 'client_secret_basic' | 'client_secret_post';
  /** Custom fetch. */
  fetch?: FetchLike;
  /** Upper bound of a cached positive result, seconds (default 60; 0 disables caching). */
  cacheTtlSec?: number;
  /** Max cached entries (default 1000; oldest evicted first). */
  cacheMaxEntries?: number;
  /** Require an `aud` member naming this resource (default true). */
  requireAudience?: boolean;
}

/** Outcome of one introspection. */
export type IntrospectionResult =
  | { ok: true; principal: VerifiedPrincipal }
  | { ok: false; unavailable: boolean; reason: string; cause?: unknown };

interface Context {
  audiences: readonly string[];
  issuers: readonly string[];
  now: () => number;
  tolerance: number;
  insecure: InsecureOption;
}

/** Creates the introspection function used by `createBearerVerifier`. */
export function createIntrospector(options: IntrospectionOptions, ctx: Context): (token: string) => Promise<IntrospectionResult> {
  const endpoint = requireUrl(options.endpoint, 'introspection endpoint', ctx.insecure);
  const fetchFn = options.fetch ?? defaultFetch();
  const ttl = options.cacheTtlSec ?? 60;
  const maxEntries = options.cacheMaxEntries ?? 1000;
  const requireAudience = options.requireAudience ?? true;
  const cache = new Map<string, { principal: VerifiedPrincipal; until: number }>();

  return async (token) => {
    const key = await sha256b64u(token);
    const nowMs = ctx.now();
    const hit = cache.get(key);
    if (hit !== undefined) {
      if (hit.until > nowMs) return { ok: true, principal: hit.principal };
      cache.delete(key);
    }
    const body = new URLSearchParams({ token, token_type_hint: 'access_token' });
    const headers: Record<string, string> = { accept: 'application/json', 'content-type': 'application/x-www-form-urlencoded' };
    if ((options.authMethod ?? 'client_secret_basic') === 'client_secret_basic') {
      headers['authorization'] = basicAuthorization(options.clientId, options.clientSecret);
    } else {
      body.set('client_id', options.clientId);
      body.set('client_secret', options.clientSecret);
    }
    let data: unknown;
    try {
      const response = await fetchFn(endpoint.href, { method: 'POST', headers, body: body.toString(), redirect: 'error' });
      if (!response.ok) return { ok: false, unavailable: true, reason: `introspection endpoint answered ${response.status}`, cause: response };
      data = await response.json();
    } catch (cause) {
      return { ok: false, unavailable: true, reason: 'introspection endpoint unreachable', cause };
    }
    if (!isObject(data)) return { ok: false, unavailable: true, reason: 'introspection response is not an object', cause: data };
    if (data['active'] !== true) return { ok: false, unavailable: false, reason: 'token is not active' };
    const nowSec = nowMs / 1000;
    const exp = data['exp'];
    if (exp !== undefined && (typeof exp !== 'number' || exp + ctx.tolerance <= nowSec)) {
      return { ok: false, unavailable: false, reason: 'token expired' };
    }
    const nbf = data['nbf'];
    if (typeof nbf === 'number' && nbf - ctx.tolerance > nowSec) return { ok: false, unavailable: false, reason: 'token not yet valid' };
    const iss = data['iss'];
    let issuer: string;
    if (iss === undefined) {
      if (ctx.issuers.length !== 1) return { ok: false, unavailable: false, reason: 'issuer missing' };
      issuer = ctx.issuers[0] as string;
    } else if (typeof iss === 'string' && ctx.issuers.includes(iss)) {
      issuer = iss;
    } else {
      return { ok: false, unavailable: false, reason: 'issuer not trusted' };
    }
    const aud = data['aud'];
    const audList = typeof aud === 'string' ? [aud] : Array.isArray(aud) ? aud : [];
    if (aud === undefined ? requireAudience : !audList.some((a) => typeof a === 'string' && ctx.audiences.includes(a))) {
      return { ok: false, unavailable: false, reason: 'audience mismatch' };
    }
    const principal = principalFromClaims(data, issuer);
    if (ttl > 0) {
      const until = Math.min(nowMs + ttl * 1000, typeof exp === 'number' ? exp * 1000 : Infinity);
      if (cache.size >= maxEntries) {
        const oldest = cache.keys().next();
        if (oldest.done !== true) cache.delete(oldest.value);
      }
      cache.set(key, { principal, until });
    }
    return { ok: true, principal };
  };
}
