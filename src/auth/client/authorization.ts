/**
 * The authorization-code leg: building the authorization request, the user-agent seam, and
 * validating the authorization response before the code goes anywhere
 * ({@link https://modelcontextprotocol.io/specification/2026-07-28/basic/authorization#authorization-response-validation | MCP authorization response validation},
 * {@link https://datatracker.ietf.org/doc/html/rfc9207 | RFC 9207}).
 *
 * The request carries PKCE S256, `state`, `resource` (exactly the PRM `resource`) and the
 * selected scopes. The expected issuer is recorded with the verifier and state *before* the
 * user agent is sent away; the response's `iss` is then checked per the RFC 9207 table with a
 * plain string comparison (no case folding, port elision, trailing-slash or percent-encoding
 * normalisation), and on mismatch the `error*` fields are not acted on.
 *
 * @module
 */

import { AuthError, AuthErrorCode } from '../errors.js';
import { type FetchLike, randomToken, timingSafeEqual } from '../http.js';
import type { AuthorizationServerMetadata } from './discovery.js';
import { createPkce } from './pkce.js';

/** The parameters of an authorization response (query of the redirect). */
export interface AuthorizationResponse {
  readonly code?: string;
  readonly state?: string;
  readonly iss?: string;
  readonly error?: string;
  readonly error_description?: string;
  readonly error_uri?: string;
}

/** Context given to an {@link Authorizer}. */
export interface AuthorizerContext {
  /** The redirect URI the response will come back to. */
  readonly redirectUri: string;
  readonly signal?: AbortSignal;
}

/**
 * The user-agent seam, supplied by the application: send the user to `url` (a browser, a
 * device prompt) and resolve with the parameters that arrived at the redirect URI. A CLI uses a
 * loopback listener (Node-specific, implemented outside `auth/`). Only `http:`/`https:` URLs
 * are ever passed; never hand them to a shell.
 */
export type Authorizer = (url: URL, context: AuthorizerContext) => Promise<AuthorizationResponse>;

/** A pending authorization: everything needed to validate and redeem the response. */
export interface PendingAuthorization {
  readonly url: URL;
  readonly state: string;
  readonly codeVerifier: string;
  /** The issuer recorded before redirecting (from validated metadata). */
  readonly issuer: string;
  /** Whether the AS advertised `authorization_response_iss_parameter_supported: true`. */
  readonly issParameterSupported: boolean;
  readonly redirectUri: string;
  readonly resource: string;
  readonly scopes: readonly string[];
}

/** Options of {@link createAuthorizationRequest}. */
export interface AuthorizationRequestOptions {
  readonly clientId: string;
  readonly redirectUri: string;
  /** The PRM `resource`, sent verbatim (RFC 8707). */
  readonly resource: string;
  /** Scopes to request; omitted from the request when empty. */
  readonly scopes: readonly string[];
  /** Extra parameters (e.g. `prompt`). Cannot override the security parameters. */
  readonly extra?: Readonly<Record<string, string>>;
}

/** Builds an authorization request with PKCE S256 and a fresh `state`. */
export async function createAuthorizationRequest(metadata: AuthorizationServerMetadata, options: AuthorizationRequestOptions): Promise<PendingAuthorization> {
  if (metadata.authorization_endpoint === undefined) {
    throw new AuthError(AuthErrorCode.InvalidMetadata, 'authorization_endpoint is missing', { cause: metadata });
  }
  if (metadata.code_challenge_methods_supported?.includes('S256') !== true) {
    throw new AuthError(AuthErrorCode.PkceUnsupported, 'the authorization server does not advertise PKCE S256', { cause: metadata });
  }
  const pkce = await createPkce();
  const state = randomToken(32);
  const url = new URL(metadata.authorization_endpoint);
  for (const [k, v] of Object.entries(options.extra ?? {})) url.searchParams.set(k, v);
  url.searchParams.set('response_type', 'code');
  url.searchParams.set('client_id', options.clientId);
  url.searchParams.set('redirect_uri', options.redirectUri);
  url.searchParams.set('state', state);
  url.searchParams.set('code_challenge', pkce.codeChallenge);
  url.searchParams.set('code_challenge_method', 'S256');
  url.searchParams.set('resource', options.resource);
  if (options.scopes.length > 0) url.searchParams.set('scope', options.scopes.join(' '));
  else url.searchParams.delete('scope');
  return {
    url,
    state,
    codeVerifier: pkce.codeVerifier,
    issuer: metadata.issuer,
    issParameterSupported: metadata.authorization_response_iss_parameter_supported === true,
    redirectUri: options.redirectUri,
    resource: options.resource,
    scopes: [...options.scopes],
  };
}

/**
 * Reads the authorization response from a redirect URL's query. A repeated parameter is
 * refused (RFC 6749 section 3.1: parameters MUST NOT be included more than once).
 */
export function parseAuthorizationResponse(redirect: string | URL): AuthorizationResponse {
  const params = new URL(redirect).searchParams;
  const out: Record<string, string> = {};
  for (const name of ['code', 'state', 'iss', 'error', 'error_description', 'error_uri']) {
    const all = params.getAll(name);
    if (all.length > 1) throw new AuthError(AuthErrorCode.AuthorizationFailed, `authorization response repeats ${name}`, { cause: String(redirect) });
    if (all[0] !== undefined) out[name] = all[0];
  }
  return out;
}

/**
 * Validates an authorization response and returns the code. Order: RFC 9207 `iss` (mix-up),
 * then `state` (CSRF), then `error`, then `code`. Throws `ERR_AUTH_ISSUER_MISMATCH`,
 * `ERR_AUTH_STATE_MISMATCH` or `ERR_AUTH_AUTHORIZATION_FAILED`.
 */
export function validateAuthorizationResponse(pending: PendingAuthorization, response: AuthorizationResponse): string {
  if (response.iss !== undefined) {
    // Simple string comparison, RFC 3986 section 6.2.1: no normalisation at all.
    if (response.iss !== pending.issuer) {
      throw new AuthError(AuthErrorCode.IssuerMismatch, 'authorization response iss does not match the recorded issuer (mix-up)', {
        cause: { expected: pending.issuer, received: response.iss },
      });
    }
  } else if (pending.issParameterSupported) {
    throw new AuthError(AuthErrorCode.IssuerMismatch, 'authorization response lacks iss although the authorization server advertises it', {
      cause: { expected: pending.issuer },
    });
  }
  if (response.state === undefined || !timingSafeEqual(response.state, pending.state)) {
    throw new AuthError(AuthErrorCode.StateMismatch, 'authorization response state does not match', { cause: { received: response.state } });
  }
  if (response.error !== undefined) {
    throw new AuthError(AuthErrorCode.AuthorizationFailed, `authorization failed: ${response.error}`, { cause: response });
  }
  if (response.code === undefined || response.code === '') {
    throw new AuthError(AuthErrorCode.AuthorizationFailed, 'authorization response has no code', { cause: response });
  }
  return response.code;
}

/**
 * An {@link Authorizer} for authorization servers that answer the authorization GET
 * immediately with a redirect (the conformance referee, the dev AS, tests): it GETs the URL
 * with `redirect: 'manual'` and parses the `Location`. The `Location` must point at the
 * expected redirect URI (same origin and path).
 */
export function followRedirectAuthorizer(fetch: FetchLike): Authorizer {
  return async (url, context) => {
    const init: RequestInit = { method: 'GET', redirect: 'manual' };
    if (context.signal !== undefined) init.signal = context.signal;
    const response = await fetch(url.href, init);
    await response.body?.cancel();
    const location = response.headers.get('location');
    if (response.status < 300 || response.status > 399 || location === null) {
      throw new AuthError(AuthErrorCode.AuthorizationFailed, `authorization endpoint answered ${response.status} without a redirect`, { cause: response });
    }
    const target = new URL(location, url);
    const expected = new URL(context.redirectUri);
    if (target.origin !== expected.origin || target.pathname !== expected.pathname) {
      throw new AuthError(AuthErrorCode.AuthorizationFailed, 'authorization endpoint redirected somewhere other than the redirect URI', { cause: target.href });
    }
    return parseAuthorizationResponse(target);
  };
}
