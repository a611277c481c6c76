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
 * **DPoP** ({@link https://datatracker.ietf.org/doc/html/rfc9449 | RFC 9449}): with the `dpop`
 * option, `Authorization: DPoP <token>` plus a `DPoP` proof header is accepted too. The token is
 * checked as above, then the proof (`dpopProof.ts`), which must be signed by the key the token's
 * `cnf.jkt` names (a JWT claim or an introspection member); a DPoP-scheme token without
 * `cnf.jkt` is refused. With `dpop.required`, `Bearer` is refused altogether. With or without the
 * option, a token carrying a `cnf` claim is never accepted as a bearer token: that would
 * downgrade a sender-constrained token to a bearer one (RFC 9449 section 7.2).
 *
 * Failures throw an {@link AuthError} whose `status` (401 / 403 / 400) and `wwwAuthenticate`
 * are ready to send (and `dpopNonce`, the `DPoP-Nonce` header of a `use_dpop_nonce` challenge). The verifier returns a {@link VerifiedPrincipal} that does not contain the
 * token: never forward the client's token anywhere.
 *
 * @module
 */

import * as jose from 'jose';
import { AuthError, AuthErrorCode } from '../errors.js';
import { type FetchLike, type InsecureOption, allowInsecureRequests, isObject, requireUrl } from '../http.js';
import { type ScopeImplies, missingScopes, unionScopes } from '../scopes.js';
import { formatChallenge } from '../wwwAuthenticate.js';
import { type DpopNonceSource, type DpopReplayCache, InMemoryDpopReplayCache, dpopAlgorithms, verifyDpopProof } from './dpopProof.js';
import { type IntrospectionOptions, createIntrospector } from './introspection.js';
import { type VerifiedPrincipal, principalFromClaims } from './principal.js';
import { protectedResourceMetadataUrl } from './protectedResourceMetadata.js';
import { rememberSubjectToken } from './subjectToken.js';

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

/**
 * The `dpop` option of {@link createBearerVerifier}: accept DPoP-bound access tokens
 * ({@link https://datatracker.ietf.org/doc/html/rfc9449 | RFC 9449}). Advertise the same choices in the
 * Protected Resource Metadata (`dpopSigningAlgValuesSupported`, `dpopBoundAccessTokensRequired`).
 */
export interface DpopVerifierOptions {
  /** Refuse `Bearer` altogether: only DPoP-bound tokens with a proof are accepted. Default false. */
  required?: boolean;
  /** Proof algorithm allow-list (default `DEFAULT_DPOP_ALGORITHMS`: ES256, ES384, PS256, RS256, EdDSA); asymmetric only. */
  algorithms?: readonly string[];
  /**
   * Where proof `jti`s are remembered (default: an `InMemoryDpopReplayCache` on the verifier's
   * clock). Several processes serving one resource need one shared cache.
   */
  replayCache?: DpopReplayCache;
  /** Demand server nonces in proofs (`createDpopNonceSource`; RFC 9449 section 9). Default: none. */
  nonce?: DpopNonceSource;
  /** Oldest proof accepted, seconds after its `iat` (default 300). The verifier's `clockToleranceSec` applies too. */
  maxAgeSec?: number;
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
  /** Accept DPoP-bound tokens too (see {@link DpopVerifierOptions}). Default: `Bearer` only. */
  dpop?: DpopVerifierOptions;
  /**
   * Keep each verified token as the principal's RFC 8693 subject token, readable only through
   * `subjectTokenOf(principal)` (`subjectToken.ts`; never a property of the principal). Set it
   * when this resource exchanges its callers' tokens for downstream ones. Default false.
   */
  exchangeable?: boolean;
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

/** An authentication scheme of the `Authorization` header this verifier may accept. */
export type AuthScheme = 'Bearer' | 'DPoP';

/** Parameters of a challenge. */
export interface ChallengeParams {
  error?: 'invalid_token' | 'insufficient_scope' | 'invalid_request';
  description?: string;
  scopes?: readonly string[];
  /**
   * The scheme the request used: only its challenge is built. Default (or when that scheme is
   * not accepted): one challenge per accepted scheme, `Bearer` first, comma-joined in one value.
   */
  scheme?: AuthScheme;
}

/** A bearer (and optionally DPoP) verifier bound to one resource. */
export interface BearerVerifier {
  /** The `resource_metadata` URL used in challenges. */
  readonly resourceMetadataUrl: string;
  /** The DPoP policy when the `dpop` option is set: the proof algorithms and whether `Bearer` is refused. */
  readonly dpop?: { readonly algorithms: readonly string[]; readonly required: boolean };
  /**
   * Verifies a raw access token presented as a bearer token. Throws {@link AuthError}; a token
   * bound by `cnf` is refused (its proof can only be checked by {@link BearerVerifier.authenticate}),
   * and so is every token when DPoP is required.
   */
  verify(token: string, options?: VerifyOptions): Promise<VerifiedPrincipal>;
  /**
   * Extracts the token from `Authorization: Bearer`, or with the `dpop` option from
   * `Authorization: DPoP` (checking the `DPoP` proof against the request's method and URL), and
   * verifies it. Throws {@link AuthError}.
   */
  authenticate(request: Request, options?: VerifyOptions): Promise<VerifiedPrincipal>;
  /** Builds a `WWW-Authenticate` value for this resource. */
  challenge(params?: ChallengeParams): string;
}

/** Where a failure's challenge goes: the scopes to name and the scheme the request used. */
interface ChallengeContext {
  readonly scopes: readonly string[];
  readonly scheme: AuthScheme;
}

type Invalid = (description: string, cause: unknown, ctx: ChallengeContext) => AuthError;

/** How the token was presented. */
type Presentation = { readonly scheme: 'Bearer' } | { readonly scheme: 'DPoP'; readonly proof: string | null; readonly method: string; readonly url: string };

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
 * // Also accept DPoP-bound tokens (principal.jkt is then set); `required: true` refuses Bearer:
 * createBearerVerifier({ resource, issuers, jwks, dpop: { nonce: createDpopNonceSource() } });
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
  const dpop =
    options.dpop === undefined
      ? undefined
      : {
          algorithms: dpopAlgorithms(options.dpop.algorithms),
          required: options.dpop.required === true,
          replayCache: options.dpop.replayCache ?? new InMemoryDpopReplayCache({ now }),
          nonce: options.dpop.nonce,
          maxAgeSec: options.dpop.maxAgeSec,
        };
  const accepted: readonly AuthScheme[] = dpop === undefined ? ['Bearer'] : dpop.required ? ['DPoP'] : ['Bearer', 'DPoP'];

  const schemeChallenge = (scheme: AuthScheme, params: { error?: string | undefined; description?: string | undefined; scopes?: readonly string[] | undefined }): string =>
    formatChallenge(scheme, {
      algs: scheme === 'DPoP' ? dpop?.algorithms.join(' ') : undefined,
      resource_metadata: resourceMetadataUrl,
      scope: params.scopes !== undefined && params.scopes.length > 0 ? unionScopes(params.scopes).join(' ') : undefined,
      error: params.error,
      error_description: params.description,
    });

  const challenge = (params: ChallengeParams = {}): string => {
    const schemes = params.scheme !== undefined && accepted.includes(params.scheme) ? [params.scheme] : accepted;
    return schemes.map((scheme) => schemeChallenge(scheme, params)).join(', ');
  };

  const invalid: Invalid = (description, cause, ctx) =>
    new AuthError(AuthErrorCode.InvalidToken, `invalid access token: ${description}`, {
      cause,
      wwwAuthenticate: challenge({ error: 'invalid_token', description, scopes: ctx.scopes, scheme: ctx.scheme }),
    });

  let check: (token: string, ctx: ChallengeContext) => Promise<VerifiedPrincipal>;
  if ('introspection' in options) {
    const introspect = createIntrospector(options.introspection, { audiences, issuers: options.issuers, now, tolerance, insecure });
    check = async (token, ctx) => {
      const result = await introspect(token);
      if (!result.ok) {
        if (result.unavailable) {
          throw new AuthError(AuthErrorCode.VerifierUnavailable, 'token introspection failed', { cause: result.cause });
        }
        throw invalid(result.reason, result.cause, ctx);
      }
      return result.principal;
    };
  } else {
    check = createJwtCheck(options, audiences, now, tolerance, insecure, invalid);
  }

  const noBearer = (scopes: readonly string[]): AuthError =>
    // RFC 6750 section 3.1: an unsupported scheme is a request without credentials (no error code).
    new AuthError(AuthErrorCode.MissingToken, 'bearer tokens are not accepted: this resource requires DPoP', { wwwAuthenticate: challenge({ scopes }) });

  const verifyPresented = async (token: string, callOptions: VerifyOptions, presentation: Presentation): Promise<VerifiedPrincipal> => {
    const required = unionScopes(baseScopes, callOptions.requiredScopes ?? []);
    const ctx: ChallengeContext = { scopes: required, scheme: presentation.scheme };
    if (presentation.scheme === 'Bearer' && dpop?.required === true) throw noBearer(required);
    if (token === '' || !TOKEN68.test(token)) throw invalid('malformed token', undefined, ctx);
    let principal = await check(token, ctx);
    const cnf = principal.claims['cnf'];
    if (presentation.scheme === 'Bearer') {
      if (cnf !== undefined) {
        // Downgrade: a sender-constrained token used without its proof (RFC 9449 section 7.2).
        const dpopBound = isObject(cnf) && typeof cnf['jkt'] === 'string';
        const description = dpopBound ? 'DPoP-bound token presented as a bearer token' : 'sender-constrained token presented as a bearer token';
        throw new AuthError(AuthErrorCode.InvalidToken, `invalid access token: ${description}`, {
          cause: cnf,
          wwwAuthenticate: challenge({ error: 'invalid_token', description, scopes: required, scheme: dpopBound ? 'DPoP' : 'Bearer' }),
        });
      }
    } else {
      if (dpop === undefined) throw invalid('DPoP is not accepted', undefined, ctx);
      const jkt = isObject(cnf) ? cnf['jkt'] : undefined;
      if (typeof jkt !== 'string' || jkt === '') throw invalid('the token is not DPoP-bound (no cnf.jkt)', cnf, ctx);
      const proof = await verifyDpopProof(presentation.proof, {
        method: presentation.method,
        url: presentation.url,
        accessToken: token,
        jkt,
        replayCache: dpop.replayCache,
        algorithms: dpop.algorithms,
        clockToleranceSec: tolerance,
        now,
        ...(dpop.maxAgeSec !== undefined ? { maxAgeSec: dpop.maxAgeSec } : {}),
        ...(dpop.nonce !== undefined ? { nonce: dpop.nonce } : {}),
        challenge: (error, description) => schemeChallenge('DPoP', { error, description, scopes: required }),
      });
      principal = Object.freeze({ ...principal, jkt: proof.jkt });
    }
    const missing = missingScopes(principal.scopes, required, mergeImplies(implies, callOptions.scopeImplies));
    if (missing.length > 0) {
      const scopes = options.includeGrantedScopesInChallenge === true ? unionScopes(principal.scopes, required) : required;
      throw new AuthError(AuthErrorCode.InsufficientScope, `insufficient scope: missing ${missing.join(' ')}`, {
        cause: { missing },
        wwwAuthenticate: challenge({ error: 'insufficient_scope', description: 'additional scope required', scopes, scheme: ctx.scheme }),
      });
    }
    return options.exchangeable === true ? rememberSubjectToken(principal, token) : principal;
  };

  return {
    resourceMetadataUrl,
    ...(dpop !== undefined ? { dpop: Object.freeze({ algorithms: dpop.algorithms, required: dpop.required }) } : {}),
    verify: (token, callOptions = {}) => verifyPresented(token, callOptions, { scheme: 'Bearer' }),
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
      const scheme = m[1]?.toLowerCase();
      const presentation: Presentation | undefined =
        scheme === 'bearer'
          ? { scheme: 'Bearer' }
          : scheme === 'dpop' && dpop !== undefined
            ? { scheme: 'DPoP', proof: request.headers.get('dpop'), method: request.method, url: request.url }
            : undefined;
      if (presentation === undefined) {
        throw new AuthError(AuthErrorCode.MissingToken, 'no bearer access token', { wwwAuthenticate: challenge({ scopes: required }) });
      }
      if (presentation.scheme === 'Bearer' && dpop?.required === true) throw noBearer(required);
      const token = (m[2] ?? '').trim();
      if (!TOKEN68.test(token)) {
        const description = `malformed ${presentation.scheme === 'DPoP' ? 'DPoP' : 'bearer'} token`;
        throw new AuthError(AuthErrorCode.InvalidRequest, description, {
          wwwAuthenticate: challenge({ error: 'invalid_request', description, scopes: required, scheme: presentation.scheme }),
        });
      }
      return verifyPresented(token, callOptions, presentation);
    },
  };
}

function createJwtCheck(
  options: JwtBearerVerifierOptions,
  audiences: string[],
  now: () => number,
  tolerance: number,
  insecure: InsecureOption,
  invalid: Invalid,
): (token: string, ctx: ChallengeContext) => Promise<VerifiedPrincipal> {
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

  return async (token, ctx) => {
    try {
      const { payload } = await jose.jwtVerify(token, getKey, { ...verifyOptions, currentDate: new Date(now()) });
      return principalFromClaims(payload as Record<string, unknown>, payload.iss as string);
    } catch (error) {
      throw mapJoseError(error, ctx, invalid);
    }
  };
}

function mapJoseError(error: unknown, ctx: ChallengeContext, invalid: Invalid): AuthError {
  const code = (error as { code?: unknown } | null)?.code;
  switch (code) {
    case 'ERR_JWT_EXPIRED':
      return invalid('token expired', error, ctx);
    case 'ERR_JWT_CLAIM_VALIDATION_FAILED': {
      const claim = (error as { claim?: unknown }).claim;
      const what = claim === 'aud' ? 'audience mismatch' : claim === 'iss' ? 'issuer not trusted' : claim === 'nbf' || claim === 'iat' ? 'token not yet valid' : 'claim check failed';
      return invalid(what, error, ctx);
    }
    case 'ERR_JOSE_ALG_NOT_ALLOWED':
      return invalid('algorithm not allowed', error, ctx);
    case 'ERR_JWKS_NO_MATCHING_KEY':
    case 'ERR_JWKS_MULTIPLE_MATCHING_KEYS':
      return invalid('unknown signing key', error, ctx);
    case 'ERR_JWS_SIGNATURE_VERIFICATION_FAILED':
      return invalid('bad signature', error, ctx);
    case 'ERR_JWKS_TIMEOUT':
    case 'ERR_JWKS_INVALID':
      return new AuthError(AuthErrorCode.VerifierUnavailable, 'the key set could not be loaded', { cause: error });
    default:
      if (typeof code === 'string' && code.startsWith('ERR_J')) return invalid('malformed token', error, ctx);
      if (error instanceof TypeError) {
        return new AuthError(AuthErrorCode.VerifierUnavailable, 'the key set could not be loaded', { cause: error });
      }
      return invalid('malformed token', error, ctx);
  }
}

