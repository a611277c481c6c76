/**
 * Bearer token verification for an MCP server acting as an OAuth 2.1 resource server
 * ({@link https://datatracker.ietf.org/doc/html/draft-ietf-oauth-v2-1-13#section-5.2 | OAuth 2.1 section 5.2};
 * {@link https://modelcontextprotocol.io/specification/2026-07-28/basic/authorization#token-handling | MCP token handling}).
 *
 * Two strategies:
 * - **JWT** access tokens ({@link https://datatracker.ietf.org/doc/html/rfc9068 | RFC 9068}) checked
 *   with `jose` against a remote JWKS (cached by jose) or a local key set;
 * - **introspection** ({@link https://datatracker.ietf.org/doc/html/rfc7662 | RFC 7662}), see `introspection.ts`.
 *
 * Defaults are strict: the audience **MUST** be this resource
 * ({@link https://www.rfc-editor.org/rfc/rfc8707.html#section-2 | RFC 8707}), the issuer must be
 * allow-listed, `exp` is required, clock skew is 30 s, and only asymmetric algorithms are accepted
 * (RS256, PS256, ES256, EdDSA). `none` is never accepted. HMAC (`HS*`) needs the
 * {@link unsafeSymmetricSecret} switch, and then HMAC tokens are only ever checked against that
 * secret, asymmetric ones only against the JWKS (no algorithm confusion).
 *
 * Failures throw an {@link AuthError} whose `status` (401 / 403 / 400) and `wwwAuthenticate`
 * are ready to send. The verifier returns a {@link VerifiedPrincipal} that does not contain the
 * token: never forward the client's token anywhere.
 *
 * @module
 */

import * as jose from 'jose';
import { AuthError, AuthErrorCode } from '../errors.js';
import { type FetchLike, type InsecureOption, allowInsecureRequests, requireUrl } from '../http.js';
import { type ScopeImplies, missingScopes, unionScopes } from '../scopes.js';
import { formatChallenge } from '../wwwAuthenticate.js';
import { type IntrospectionOptions, createIntrospector } from './introspection.js';
import { type VerifiedPrincipal, principalFromClaims } from './principal.js';
import { protectedResourceMetadataUrl } from './protectedResourceMetadata.js';

export type { VerifiedPrincipal } from './principal.js';

/**
 * Unsafe switch: a shared secret for `HS*` JWTs. A `unique symbol` key, so JSON configuration
 * cannot enable symmetric verification. HS algorithms must also be listed in `algorithms`.
 */
export const unsafeSymmetricSecret: unique symbol = Symbol('switchboard.auth.unsafeSymmetricSecret');

/** The default algorithm allow-list: asymmetric only. */
export const DEFAULT_ALGORITHMS: readonly string[] = Object.freeze(['RS256', 'PS256', 'ES256', 'EdDSA']);

/** A remote JWKS (fetched and cached by jose's `createRemoteJWKSet`). */
export interface RemoteJwksOptions {
  /** The `jwks_uri` (HTTPS). */
  url: string;
  /** Cache lifetime in ms (jose default 10 min). */
  cacheMaxAgeMs?: number;
  /** Minimum ms between refetches on an unknown `kid` (jose default 30 s). */
  cooldownMs?: number;
  /** Fetch timeout in ms (jose default 5 s). */
  timeoutMs?: number;
  /** Custom fetch (tests, in-process servers). */
  fetch?: FetchLike;
}

/** Options shared by both strategies. */
export interface BearerVerifierCommonOptions extends InsecureOption {
  /** The canonical URI of this MCP server (the PRM `resource`). The default audience. */
  resource: string;
  /** Accepted audiences (default: `[resource]`). A token must name at least one. */
  audience?: string | readonly string[];
  /** Issuer allow-list (byte-exact). */
  issuers: readonly string[];
  /** The `resource_metadata` URL for challenges (default: the path-based well-known URL). */
  resourceMetadataUrl?: string;
  /** Scopes every request needs (merged with per-call scopes). */
  requiredScopes?: readonly string[];
  /** Scope hierarchy: broad scope → narrower scopes it implies. */
  scopeImplies?: ScopeImplies;
  /** Clock skew tolerance in seconds (default 30). */
  clockToleranceSec?: number;
  /** Clock in ms since the epoch (default `Date.now`). Freeze it in tests. */
  now?: () => number;
  /**
   * When true, a 403 challenge lists the already granted scopes as well as the required ones
   * (2025-11-25 guidance). Default false: the required scopes of the operation, all in one challenge.
   */
  includeGrantedScopesInChallenge?: boolean;
}

/** JWT strategy options. */
export interface JwtBearerVerifierOptions extends BearerVerifierCommonOptions {
  /** The key set: remote (`{ url }`) or local (`{ keys }`). Optional only with a symmetric secret. */
  jwks?: RemoteJwksOptions | jose.JSONWebKeySet;
  /** Algorithm allow-list (default {@link DEFAULT_ALGORITHMS}). `none` is always refused. */
  algorithms?: readonly string[];
  /** Required JOSE `typ` header (e.g. `at+jwt`); unchecked by default. */
  typ?: string;
  /** See {@link unsafeSymmetricSecret}. */
  [unsafeSymmetricSecret]?: Uint8Array;
}

/** Introspection strategy options. */
export interface IntrospectionBearerVerifierOptions extends BearerVerifierCommonOptions {
  /** The RFC 7662 endpoint and this resource server's client credentials there. */
  introspection: IntrospectionOptions;
}

/** Options of {@link createBearerVerifier}. */
export type BearerVerifierOptions = JwtBearerVerifierOptions | IntrospectionBearerVerifierOptions;

/** Per-call options. */
export interface VerifyOptions {
  /** Scopes this operation needs (e.g. from `scopesForRequest`), added to the verifier's `requiredScopes`. */
  requiredScopes?: readonly string[];
  /**
   * A further scope hierarchy for this call (e.g. a `ScopePolicy`'s `implies`), merged with the
   * verifier's `scopeImplies`: a broad scope implies the narrower ones listed in either.
   */
  scopeImplies?: ScopeImplies;
}

function mergeImplies(a: ScopeImplies, b: ScopeImplies | undefined): ScopeImplies {
  if (b === undefined) return a;
  const out: Record<string, readonly string[]> = { ...a };
  for (const key of Object.keys(b)) out[key] = Object.hasOwn(a, key) ? unionScopes(a[key] ?? [], b[key] ?? []) : (b[key] ?? []);
  return out;
}

/** Parameters of a challenge. */
export interface ChallengeParams {
  error?: 'invalid_token' | 'insufficient_scope' | 'invalid_request';
  description?: string;
  scopes?: readonly string[];
}

/** A bearer verifier bound to one resource. */
export interface BearerVerifier {
  /** The `resource_metadata` URL used in challenges. */
  readonly resourceMetadataUrl: string;
  /** Verifies a raw access token. Throws {@link AuthError}. */
  verify(token: string, options?: VerifyOptions): Promise<VerifiedPrincipal>;
  /** Extracts the token from `Authorization: Bearer` and verifies it. Throws {@link AuthError}. */
  authenticate(request: Request, options?: VerifyOptions): Promise<VerifiedPrincipal>;
  /** Builds a `WWW-Authenticate` value for this resource. */
  challenge(params?: ChallengeParams): string;
}

const TOKEN68 = /^[A-Za-z0-9\-._~+/]+=*$/;

/**
 * Creates a bearer verifier. Throws `ERR_AUTH_CONFIGURATION` on unsafe or inconsistent options.
 *
 * @example
 * ```ts
 * const verifier = createBearerVerifier({
 *   resource: 'https://mcp.example.com/mcp',
 *   issuers: ['https://auth.example.com'],
 *   jwks: { url: 'https://auth.example.com/jwks' },
 * });
 * try { const principal = await verifier.authenticate(request); } catch (e) { if (isAuthError(e)) return e.toResponse(); throw e; }
 * ```
 */
export function createBearerVerifier(options: BearerVerifierOptions): BearerVerifier {
  const insecure = { [allowInsecureRequests]: options[allowInsecureRequests] === true };
  requireUrl(options.resource, 'resource', insecure);
  if (options.issuers.length === 0) throw new AuthError(AuthErrorCode.Configuration, 'issuers must not be empty');
  const audiences = options.audience === undefined ? [options.resource] : typeof options.audience === 'string' ? [options.audience] : [...options.audience];
  if (audiences.length === 0) throw new AuthError(AuthErrorCode.Configuration, 'audience must not be empty');
  const resourceMetadataUrl = options.resourceMetadataUrl ?? protectedResourceMetadataUrl(options.resource);
  const implies = options.scopeImplies ?? {};
  const baseScopes = options.requiredScopes ?? [];
  const now = options.now ?? Date.now;
  const tolerance = options.clockToleranceSec ?? 30;

  const challenge = (params: ChallengeParams = {}): string =>
    formatChallenge('Bearer', {
      resource_metadata: resourceMetadataUrl,
      scope: params.scopes !== undefined && params.scopes.length > 0 ? unionScopes(params.scopes).join(' ') : undefined,
      error: params.error,
      error_description: params.description,
    });

  const invalid = (description: string, cause: unknown, scopes: readonly string[]): AuthError =>
    new AuthError(AuthErrorCode.InvalidToken, `invalid access token: ${description}`, {
      cause,
      wwwAuthenticate: challenge({ error: 'invalid_token', description, scopes }),
    });

  let check: (token: string, scopes: readonly string[]) => Promise<VerifiedPrincipal>;
  if ('introspection' in options) {
    const introspect = createIntrospector(options.introspection, { audiences, issuers: options.issuers, now, tolerance, insecure });
    check = async (token, scopes) => {
      const result = await introspect(token);
      if (!result.ok) {
        if (result.unavailable) {
          throw new AuthError(AuthErrorCode.VerifierUnavailable, 'token introspection failed', { cause: result.cause });
        }
        throw invalid(result.reason, result.cause, scopes);
      }
      return result.principal;
    };
  } else {
    check = createJwtCheck(options, audiences, now, tolerance, insecure, invalid);
  }

  const verify = async (token: string, callOptions: VerifyOptions = {}): Promise<VerifiedPrincipal> => {
    const required = unionScopes(baseScopes, callOptions.requiredScopes ?? []);
    if (token === '' || !TOKEN68.test(token)) throw invalid('malformed token', undefined, required);
    const principal = await check(token, required);
    const missing = missingScopes(principal.scopes, required, mergeImplies(implies, callOptions.scopeImplies));
    if (missing.length > 0) {
      const scopes = options.includeGrantedScopesInChallenge === true ? unionScopes(principal.scopes, required) : required;
      throw new AuthError(AuthErrorCode.InsufficientScope, `insufficient scope: missing ${missing.join(' ')}`, {
        cause: { missing },
        wwwAuthenticate: challenge({ error: 'insufficient_scope', description: 'additional scope required', scopes }),
      });
    }
    return principal;
  };

  return {
    resourceMetadataUrl,
    verify,
    challenge,
    async authenticate(request, callOptions = {}) {
      const required = unionScopes(baseScopes, callOptions.requiredScopes ?? []);
      const url = new URL(request.url);
      if (url.searchParams.has('access_token')) {
        // RFC 6750 section 2.3 is forbidden by MCP: tokens MUST NOT be in the query string.
        throw new AuthError(AuthErrorCode.InvalidRequest, 'access token in the query string', {
          wwwAuthenticate: challenge({ error: 'invalid_request', description: 'access tokens are accepted only in the Authorization header', scopes: required }),
        });
      }
      const header = request.headers.get('authorization');
      if (header === null || header.trim() === '') {
        throw new AuthError(AuthErrorCode.MissingToken, 'no access token', { wwwAuthenticate: challenge({ scopes: required }) });
      }
      const m = /^([A-Za-z0-9!#$%&'*+.^_`|~-]+)(?: +(.*))?$/.exec(header.trim());
      if (m === null || header.includes(',')) {
        throw new AuthError(AuthErrorCode.InvalidRequest, 'malformed Authorization header', {
          wwwAuthenticate: challenge({ error: 'invalid_request', description: 'malformed Authorization header', scopes: required }),
        });
      }
      if (m[1]?.toLowerCase() !== 'bearer') {
        throw new AuthError(AuthErrorCode.MissingToken, 'no bearer access token', { wwwAuthenticate: challenge({ scopes: required }) });
      }
      const token = (m[2] ?? '').trim();
      if (!TOKEN68.test(token)) {
        throw new AuthError(AuthErrorCode.InvalidRequest, 'malformed bearer token', {
          wwwAuthenticate: challenge({ error: 'invalid_request', description: 'malformed bearer token', scopes: required }),
        });
      }
      return verify(token, callOptions);
    },
  };
}

function createJwtCheck(
  options: JwtBearerVerifierOptions,
  audiences: string[],
  now: () => number,
  tolerance: number,
  insecure: InsecureOption,
  invalid: (description: string, cause: unknown, scopes: readonly string[]) => AuthError,
): (token: string, scopes: readonly string[]) => Promise<VerifiedPrincipal> {
  const algorithms = [...(options.algorithms ?? DEFAULT_ALGORITHMS)];
  const secret = options[unsafeSymmetricSecret];
  if (algorithms.length === 0) throw new AuthError(AuthErrorCode.Configuration, 'algorithms must not be empty');
  if (algorithms.some((a) => a.toLowerCase() === 'none')) {
    throw new AuthError(AuthErrorCode.Configuration, 'alg "none" can never be allowed');
  }
  const hmac = algorithms.filter((a) => a.startsWith('HS'));
  if (hmac.length > 0 && secret === undefined) {
    throw new AuthError(AuthErrorCode.Configuration, `${hmac.join(', ')} need the unsafeSymmetricSecret switch`);
  }
  if (secret !== undefined && hmac.length === 0) {
    throw new AuthError(AuthErrorCode.Configuration, 'unsafeSymmetricSecret given but no HS* algorithm is allowed');
  }
  if (secret !== undefined && secret.byteLength < 32) {
    throw new AuthError(AuthErrorCode.Configuration, 'the symmetric secret must be at least 32 bytes');
  }
  let keySet: jose.JWTVerifyGetKey | undefined;
  if (options.jwks !== undefined) {
    if ('url' in options.jwks) {
      const r = options.jwks;
      const url = requireUrl(r.url, 'jwks url', insecure);
      const remote: jose.RemoteJWKSetOptions = {};
      if (r.cacheMaxAgeMs !== undefined) remote.cacheMaxAge = r.cacheMaxAgeMs;
      if (r.cooldownMs !== undefined) remote.cooldownDuration = r.cooldownMs;
      if (r.timeoutMs !== undefined) remote.timeoutDuration = r.timeoutMs;
      if (r.fetch !== undefined) {
        const f = r.fetch;
        remote[jose.customFetch] = (u, init) => f(u, init as RequestInit);
      }
      keySet = jose.createRemoteJWKSet(url, remote);
    } else {
      keySet = jose.createLocalJWKSet(options.jwks);
    }
  } else if (secret === undefined) {
    throw new AuthError(AuthErrorCode.Configuration, 'jwks is required');
  }
  const asymmetric = keySet;
  // Keys are chosen by the header's algorithm family: an HS token is never checked against a
  // public key and an RS/ES/PS/EdDSA token never against the secret (algorithm confusion).
  const getKey: jose.JWTVerifyGetKey = async (header, token) => {
    if (header.alg.startsWith('HS')) {
      if (secret === undefined) throw new jose.errors.JOSEAlgNotAllowed('HMAC is not allowed');
      return secret;
    }
    if (asymmetric === undefined) throw new jose.errors.JOSEAlgNotAllowed('asymmetric algorithms are not configured');
    return asymmetric(header, token);
  };
  const verifyOptions: jose.JWTVerifyOptions = {
    algorithms,
    audience: audiences,
    issuer: [...options.issuers],
    clockTolerance: tolerance,
    requiredClaims: ['exp', 'iss', 'aud'],
  };
  if (options.typ !== undefined) verifyOptions.typ = options.typ;

  return async (token, scopes) => {
    try {
      const { payload } = await jose.jwtVerify(token, getKey, { ...verifyOptions, currentDate: new Date(now()) });
      return principalFromClaims(payload as Record<string, unknown>, payload.iss as string);
    } catch (error) {
      throw mapJoseError(error, scopes, invalid);
    }
  };
}

function mapJoseError(
  error: unknown,
  scopes: readonly string[],
  invalid: (description: string, cause: unknown, scopes: readonly string[]) => AuthError,
): AuthError {
  const code = (error as { code?: unknown } | null)?.code;
  switch (code) {
    case 'ERR_JWT_EXPIRED':
      return invalid('token expired', error, scopes);
    case 'ERR_JWT_CLAIM_VALIDATION_FAILED': {
      const claim = (error as { claim?: unknown }).claim;
      const what = claim === 'aud' ? 'audience mismatch' : claim === 'iss' ? 'issuer not trusted' : claim === 'nbf' || claim === 'iat' ? 'token not yet valid' : 'claim check failed';
      return invalid(what, error, scopes);
    }
    case 'ERR_JOSE_ALG_NOT_ALLOWED':
      return invalid('algorithm not allowed', error, scopes);
    case 'ERR_JWKS_NO_MATCHING_KEY':
    case 'ERR_JWKS_MULTIPLE_MATCHING_KEYS':
      return invalid('unknown signing key', error, scopes);
    case 'ERR_JWS_SIGNATURE_VERIFICATION_FAILED':
      return invalid('bad signature', error, scopes);
    case 'ERR_JWKS_TIMEOUT':
    case 'ERR_JWKS_INVALID':
      return new AuthError(AuthErrorCode.VerifierUnavailable, 'the key set could not be loaded', { cause: error });
    default:
      if (typeof code === 'string' && code.startsWith('ERR_J')) return invalid('malformed token', error, scopes);
      if (error instanceof TypeError) {
        return new AuthError(AuthErrorCode.VerifierUnavailable, 'the key set could not be loaded', { cause: error });
      }
      return invalid('malformed token', error, scopes);
  }
}

