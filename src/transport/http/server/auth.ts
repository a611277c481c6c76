/**
 * OAuth 2.1 resource-server protection for the Streamable HTTP server
 * ({@link https://modelcontextprotocol.io/specification/2026-07-28/basic/authorization | MCP authorization}).
 *
 * {@link createHttpAuth} turns the `auth` option of `createStreamableHttpHandler` into the
 * handler's hooks:
 *
 * | Request | Answer |
 * |---|---|
 * | GET/HEAD/OPTIONS on a Protected Resource Metadata well-known path | the RFC 9728 document, CORS `*`, no auth |
 * | `access_token` in the query string (RFC 6750 section 2.3; MCP forbids it) | 400 `invalid_request` |
 * | no `Authorization: Bearer` | 401 `Bearer resource_metadata="…", scope="…"` (plus `DPoP algs="…", …` when the verifier accepts DPoP) |
 * | malformed `Authorization` header | 400 `invalid_request` |
 * | invalid, expired, foreign-audience, foreign-issuer, `alg: none`, confused-algorithm token | 401 `error="invalid_token"` |
 * | a `cnf`-bound (DPoP) token sent as `Bearer` (downgrade) | 401 `DPoP …, error="invalid_token"` |
 * | `Authorization: DPoP` with a missing, replayed, foreign-key, wrong-URL/method, stale proof | 401 `DPoP …, error="invalid_dpop_proof"` |
 * | `Authorization: DPoP` without the server nonce (when the verifier demands one) | 401 `DPoP …, error="use_dpop_nonce"` plus `DPoP-Nonce` |
 * | token lacks a scope the method, tool, prompt or resource needs | 403 `error="insufficient_scope", scope="<all needed>"` |
 * | the verifier cannot check tokens (JWKS/introspection down) | 503, no challenge |
 * | `tokens` set: `Bearer` with one of the static named tokens (`staticTokens.ts`) | accepted without the verifier (`auth.subject` = the name); a missing scope is 403 |
 * | no `verifier` (static tokens only): no token / another token | 401 `Bearer realm="…"` / plus `error="invalid_token"` |
 * | accepted | dispatched with `DispatchEnv.principal` = `{ id, auth }` (`auth` the frozen {@link VerifiedPrincipal}) |
 *
 * POST bodies are authenticated after they are decoded, so the required scopes can depend on
 * the JSON-RPC method and the tool name ({@link scopesForRequest}); GET streams and DELETE need
 * the policy's `always` scopes. DPoP proofs (RFC 9449) are checked against the request method
 * and the URL made of the configured `resource`'s origin and the request path: never the `Host`
 * header, which the client controls, so a spoofed `Host` cannot move the proof's `htu`. Handlers never see the token: `extra.http.getHeader` answers
 * `undefined` for `Authorization`, `Proxy-Authorization` and `DPoP`, and the principal holds
 * claims only (no token passthrough, see the security considerations).
 *
 * @see https://modelcontextprotocol.io/specification/2026-07-28/basic/authorization/security-considerations
 * @see https://datatracker.ietf.org/doc/html/rfc9728
 * @module
 */
import { AuthError, AuthErrorCode, oauthErrorName } from '../../../auth/errors.js';
import type { BearerVerifier } from '../../../auth/resource/bearerVerifier.js';
import type { VerifiedPrincipal } from '../../../auth/resource/principal.js';
import type { StaticTokenVerifier } from '../../../auth/resource/staticTokens.js';
import { withPrincipal } from '../../principal.js';
import type { ProtectedResourceMetadata } from '../../../auth/resource/protectedResourceMetadata.js';
import { scopesForRequest, type ScopePolicy } from '../../../auth/resource/scopesForRequest.js';
import { missingScopes, unionScopes } from '../../../auth/scopes.js';
import type { MessageExtra } from '../../../jsonrpc/channel.js';
import { decodeFrame, isBatchResult, type DecodeLimits, type DecodeResult, type DecodedItem } from '../../../jsonrpc/decode.js';
import type { Logger } from '../../../util/logger.js';
import type { HeaderGetter, HttpRequestLike, HttpResponseLike } from './types.js';

/**
 * The `auth` option of `createStreamableHttpHandler`: an OAuth `verifier` (with its
 * `resourceMetadata`), static named `tokens`, or both (a bearer token that is one of the
 * static ones is accepted without the verifier; any other goes to the verifier).
 */
export interface HttpAuthOptions {
  /**
   * Verifies OAuth access tokens (`createBearerVerifier`); its audience must be this server. With its
   * `dpop` option, DPoP-bound tokens are accepted too; the metadata's DPoP members must agree.
   * Needs `resourceMetadata`.
   */
  readonly verifier?: BearerVerifier;
  /** This server's Protected Resource Metadata (`protectedResourceMetadata`), served at its well-known paths. */
  readonly resourceMetadata?: ProtectedResourceMetadata;
  /**
   * Static named bearer tokens (`createStaticTokenVerifier`): the token's name is the
   * principal's `subject` (so its id), its scopes the principal's. Refusals without a
   * `verifier` challenge with `Bearer realm="<realm>"`.
   */
  readonly tokens?: StaticTokenVerifier;
  /** The `realm` of the static tokens' challenge. Default `mcp`. */
  readonly realm?: string;
  /** A sentence added to 401 bodies as `error_description`: where a client gets its credential. */
  readonly refusalHint?: string;
  /**
   * Scopes per method, tool, prompt and resource (see `scopesForRequest`). Its `implies`
   * hierarchy is honoured next to the verifier's `scopeImplies`. Default: no per-request scopes.
   */
  readonly scopes?: ScopePolicy;
  /**
   * JSON-RPC methods served without a token (e.g. `ping`). A POST is public only when every
   * message in it is; a token that is present is still verified (and must be valid). A
   * 2025-11-25 session opened by a public `initialize` without a token belongs to nobody, so
   * later requests that do carry a token get 404 on it: keep `initialize` protected.
   */
  readonly publicMethods?: readonly string[];
  /**
   * The id of `DispatchEnv.principal` (sessions, `requestState` and tasks are bound to it).
   * Default: the token's `sub`; a token without one is refused (401). Pass e.g. `(p) => \`${p.issuer} ${p.subject}\`` when the
   * verifier trusts several issuers whose subjects could collide.
   */
  readonly principalId?: (principal: VerifiedPrincipal) => string | undefined;
}

/** The hooks the HTTP handler calls; built by {@link createHttpAuth}. */
export interface HttpAuth {
  /** The PRM document for GET/HEAD/OPTIONS on one of its well-known paths, else undefined. */
  wellKnown(request: HttpRequestLike): HttpResponseLike | undefined;
  /**
   * Authenticates one MCP request: undefined when it may proceed (the principal is then
   * remembered for {@link HttpAuth.extra}), else the refusal to send. `body` is the POST's
   * bytes and decoded form (undefined for GET/DELETE).
   */
  authenticate(request: HttpRequestLike, body: { readonly bytes: Uint8Array; readonly decoded: DecodeResult } | undefined): Promise<HttpResponseLike | undefined>;
  /** The header view handlers get: credentials redacted. */
  redact(header: HeaderGetter): HeaderGetter;
  /** `base` carrying the verified token's principal (see `transport/principal.ts`), or none: never a hook's. */
  extra(request: HttpRequestLike, base: MessageExtra): MessageExtra;
  /** When the token a request was authenticated with expires (ms since the epoch), if it does. */
  expiresAt(request: HttpRequestLike): number | undefined;
}

/** Headers handlers must never read: the credentials themselves. */
const CREDENTIAL_HEADERS: ReadonlySet<string> = new Set(['authorization', 'proxy-authorization', 'dpop']);

const PRM_CORS: Readonly<Record<string, string>> = Object.freeze({
  'access-control-allow-origin': '*',
  'access-control-allow-methods': 'GET, HEAD, OPTIONS',
});

/**
 * The HTTP answer for an {@link AuthError}: its status, `WWW-Authenticate` and `DPoP-Nonce`
 * (readable by browser clients through `Access-Control-Expose-Headers`) and a body without details.
 */
export function authErrorResponse(error: AuthError): HttpResponseLike {
  const headers: Record<string, string> = { 'content-type': 'application/json', 'cache-control': 'no-store' };
  const exposed: string[] = [];
  if (error.wwwAuthenticate !== undefined) {
    headers['www-authenticate'] = error.wwwAuthenticate;
    exposed.push('WWW-Authenticate');
  }
  if (error.dpopNonce !== undefined) {
    headers['dpop-nonce'] = error.dpopNonce;
    exposed.push('DPoP-Nonce');
  }
  if (exposed.length > 0) headers['access-control-expose-headers'] = exposed.join(', ');
  return { status: error.status, headers, body: JSON.stringify({ error: oauthErrorName(error) }) };
}

/** Throws when the metadata advertises DPoP choices the verifier does not make (clients would be misled). */
function checkDpopAdvertisement(verifier: BearerVerifier, resourceMetadata: ProtectedResourceMetadata): void {
  const advertised = resourceMetadata.document.dpop_signing_alg_values_supported;
  const accepted = verifier.dpop?.algorithms ?? [];
  const foreign = advertised?.filter((alg) => !accepted.includes(alg)) ?? [];
  if (foreign.length > 0) throw new TypeError(`the resource metadata advertises DPoP algorithms the verifier does not accept: ${foreign.join(', ')}`);
  if (resourceMetadata.document.dpop_bound_access_tokens_required === true && verifier.dpop?.required !== true) {
    throw new TypeError('the resource metadata says DPoP-bound tokens are required but the verifier accepts bearer tokens');
  }
}

function startsWithBracket(bytes: Uint8Array): boolean {
  for (const b of bytes) {
    if (b === 0x20 || b === 0x09 || b === 0x0a || b === 0x0d) continue;
    return b === 0x5b;
  }
  return false;
}

/** The JSON-RPC requests and notifications of a POST body (a 2025-03-26 batch included); responses count as `undefined`. */
function messagesOf(bytes: Uint8Array, decoded: DecodeResult, limits: DecodeLimits): ({ method: string; params: unknown } | undefined)[] {
  let items: readonly DecodedItem[];
  if (isBatchResult(decoded)) items = decoded.batch;
  else if (!decoded.ok && startsWithBracket(bytes)) {
    const batch = decodeFrame(bytes, { ...limits, allowBatch: true });
    items = isBatchResult(batch) ? batch.batch : [batch];
  } else items = [decoded];
  return items.map((item) => (item.ok && 'method' in item.message ? { method: item.message.method, params: item.message.params } : undefined));
}

/**
 * Builds the handler hooks for the `auth` option. Throws a `TypeError` when the verifier's
 * `resource_metadata` URL is not one this handler serves (clients would be sent nowhere).
 */
export function createHttpAuth(options: HttpAuthOptions, limits: DecodeLimits, logger: Logger): HttpAuth {
  const { verifier, resourceMetadata, tokens } = options;
  if (verifier === undefined && tokens === undefined) throw new TypeError('auth needs a verifier, static tokens, or both');
  if ((verifier === undefined) !== (resourceMetadata === undefined)) throw new TypeError('auth: a verifier and its resourceMetadata go together');
  const policy: ScopePolicy = options.scopes ?? {};
  const implies = policy.implies;
  const always = unionScopes(policy.always ?? []);
  const publicMethods: ReadonlySet<string> = new Set(options.publicMethods ?? []);
  const principalId = options.principalId ?? ((p: VerifiedPrincipal) => p.subject);
  const wellKnownPaths: ReadonlySet<string> = new Set(resourceMetadata?.wellKnownPaths ?? []);
  const document = resourceMetadata === undefined ? '' : JSON.stringify(resourceMetadata.document);
  const baseline = resourceMetadata?.document.scopes_supported ?? [];
  const verified = new WeakMap<HttpRequestLike, { readonly id: string; readonly principal: VerifiedPrincipal }>();
  // DPoP `htu` is checked against this origin plus the request path, never against `Host`.
  const origin = resourceMetadata === undefined ? '' : new URL(resourceMetadata.document.resource).origin;
  if (verifier !== undefined && resourceMetadata !== undefined) {
    checkDpopAdvertisement(verifier, resourceMetadata);
    const metadataPath = new URL(verifier.resourceMetadataUrl).pathname;
    if (!wellKnownPaths.has(metadataPath)) {
      throw new TypeError(`the verifier's resource_metadata URL ${verifier.resourceMetadataUrl} is not served by this handler (${[...wellKnownPaths].join(', ')})`);
    }
  }
  const realm = options.realm ?? 'mcp';
  const hint = options.refusalHint;

  const refuse = (error: unknown): HttpResponseLike => {
    if (!(error instanceof AuthError)) throw error;
    logger.debug('http request not authorized', { status: error.status, code: error.code, detail: error.message });
    const response = authErrorResponse(error);
    if (hint === undefined || error.status !== 401) return response;
    return { ...response, body: JSON.stringify({ error: oauthErrorName(error), error_description: hint }) };
  };

  /** The static tokens' refusal (no verifier): RFC 6750 section 3 challenge with the realm. */
  const staticRefusal = (code: AuthErrorCode, message: string, error?: 'invalid_token' | 'invalid_request' | 'insufficient_scope', scopes?: readonly string[]): HttpResponseLike => {
    const params = [`realm="${realm}"`, ...(error !== undefined ? [`error="${error}"`] : []), ...(scopes !== undefined && scopes.length > 0 ? [`scope="${scopes.join(' ')}"`] : [])];
    return refuse(new AuthError(code, message, { wwwAuthenticate: `Bearer ${params.join(', ')}` }));
  };

  /**
   * A static token's verdict: a principal (accepted, or refused for scope), or undefined when
   * the request carries no static token (then the verifier, if any, decides).
   */
  const staticVerdict = (request: HttpRequestLike, authorization: string, required: readonly string[]): HttpResponseLike | 'accepted' | undefined => {
    const m = /^Bearer +([^\s,]+)\s*$/i.exec(authorization.trim());
    const principal = m === null ? undefined : tokens?.verify(m[1] as string);
    if (principal === undefined) return undefined;
    const missing = missingScopes(principal.scopes, required, implies);
    if (missing.length > 0) return staticRefusal(AuthErrorCode.InsufficientScope, `insufficient scope: missing ${missing.join(' ')}`, 'insufficient_scope', required);
    const id = principalId(principal);
    if (id === undefined || id === '') return staticRefusal(AuthErrorCode.InvalidToken, 'the token names no subject', 'invalid_token');
    verified.set(request, { id, principal });
    return 'accepted';
  };

  const verify = async (request: HttpRequestLike, required: readonly string[], optional: boolean): Promise<HttpResponseLike | undefined> => {
    const authorization = request.header('authorization');
    const query = request.query;
    const queryToken = query !== undefined && query.includes('access_token') && new URLSearchParams(query).has('access_token');
    if (optional && authorization === undefined && !queryToken) return undefined;
    if (tokens !== undefined && !queryToken && authorization !== undefined) {
      const verdict = staticVerdict(request, authorization, required);
      if (verdict === 'accepted') return undefined;
      if (verdict !== undefined) return verdict;
    }
    if (verifier === undefined) {
      // RFC 6750 section 2.3 is forbidden by MCP: tokens MUST NOT be in the query string.
      if (queryToken) return staticRefusal(AuthErrorCode.InvalidRequest, 'access token in the query string', 'invalid_request');
      if (authorization === undefined || authorization.trim() === '') return staticRefusal(AuthErrorCode.MissingToken, 'no bearer token');
      return staticRefusal(AuthErrorCode.InvalidToken, 'the bearer token is not one of this server', 'invalid_token');
    }
    let synthetic: Request;
    try {
      const headers = new Headers();
      if (authorization !== undefined) headers.set('authorization', authorization);
      const dpop = request.header('dpop');
      if (dpop !== undefined) headers.set('dpop', dpop);
      const url = new URL(`${origin}${request.path}${query === undefined || query === '' ? '' : `?${query}`}`);
      // A path not starting with "/" (e.g. "@evil.example/mcp") could move the authority.
      if (!request.path.startsWith('/') || url.origin !== origin) throw new TypeError('request path outside the resource origin');
      synthetic = new Request(url, { method: request.method, headers });
    } catch {
      return refuse(new AuthError(AuthErrorCode.InvalidRequest, 'malformed request', { wwwAuthenticate: verifier.challenge({ error: 'invalid_request' }) }));
    }
    try {
      const principal = await verifier.authenticate(synthetic, {
        requiredScopes: optional ? [] : required,
        ...(implies !== undefined ? { scopeImplies: implies } : {}),
      });
      const id = principalId(principal);
      if (id === undefined || id === '') {
        // Sessions, requestState and tasks are bound to this string: never to "nobody".
        return refuse(
          new AuthError(AuthErrorCode.InvalidToken, 'the access token names no subject', {
            wwwAuthenticate: verifier.challenge({
              error: 'invalid_token',
              description: 'the token names no subject',
              scopes: required,
              scheme: principal.jkt === undefined ? 'Bearer' : 'DPoP',
            }),
          }),
        );
      }
      verified.set(request, { id, principal });
      return undefined;
    } catch (error) {
      // No per-request scope to name: point the client at the baseline (the spec's SHOULD).
      if (error instanceof AuthError && error.code === AuthErrorCode.MissingToken && required.length === 0 && baseline.length > 0) {
        return refuse(new AuthError(error.code, error.message, { wwwAuthenticate: verifier.challenge({ scopes: baseline }), cause: error }));
      }
      return refuse(error);
    }
  };

  return {
    wellKnown(request) {
      if (!wellKnownPaths.has(request.path)) return undefined;
      const method = request.method;
      if (method === 'OPTIONS') return { status: 204, headers: PRM_CORS };
      if (method !== 'GET' && method !== 'HEAD') return { status: 405, headers: { allow: 'GET, HEAD, OPTIONS' } };
      const headers = { 'content-type': 'application/json', 'cache-control': 'max-age=300', ...PRM_CORS };
      return method === 'HEAD' ? { status: 200, headers } : { status: 200, headers, body: document };
    },

    authenticate(request, body) {
      if (body === undefined) return verify(request, always, false);
      const messages = messagesOf(body.bytes, body.decoded, limits);
      const isPublic = publicMethods.size > 0 && messages.length > 0 && messages.every((m) => m !== undefined && publicMethods.has(m.method));
      const required = isPublic ? always : unionScopes(always, ...messages.map((m) => (m === undefined ? [] : scopesForRequest(policy, m))));
      return verify(request, required, isPublic);
    },

    redact(header) {
      return (name) => (CREDENTIAL_HEADERS.has(name.toLowerCase()) ? undefined : header(name));
    },

    expiresAt(request) {
      const exp = verified.get(request)?.principal.expiresAt;
      return exp === undefined ? undefined : exp * 1000;
    },

    extra(request, base) {
      const found = verified.get(request);
      // This option owns the principal: whatever a hook put there is dropped.
      return withPrincipal(base, found === undefined ? undefined : Object.freeze({ id: found.id, auth: found.principal }));
    },
  };
}
