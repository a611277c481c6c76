/**
 * OAuth 2.0 Token Exchange, the client side
 * ({@link https://datatracker.ietf.org/doc/html/rfc8693 | RFC 8693}): trades a token the caller
 * presented (the `subject_token`) for a new access token addressed to one downstream resource.
 *
 * The request ({@link https://datatracker.ietf.org/doc/html/rfc8693#section-2.1 | section 2.1})
 * goes through {@link tokenRequest}, so client authentication, DPoP and error mapping are the
 * token endpoint's: `invalid_grant` (the subject token was refused) is `ERR_AUTH_INVALID_GRANT`,
 * `invalid_target` (the resource or audience was refused) `ERR_AUTH_INVALID_TARGET`, anything
 * else `ERR_AUTH_TOKEN_REQUEST_FAILED` with the error body as `cause`.
 *
 * The response ({@link https://datatracker.ietf.org/doc/html/rfc8693#section-2.2.1 | section 2.2.1})
 * must carry `issued_token_type`; only access tokens are accepted here (a token used as a bearer
 * credential downstream), and a refresh token in the answer is ignored: the caller exchanges
 * again when the token expires, so the downstream grant never outlives the subject token's.
 *
 * @module
 */

import { AuthError, AuthErrorCode } from '../errors.js';
import { type TokenEndpointContext, tokenRequest } from './tokenEndpoint.js';
import type { TokenSet } from './tokenStore.js';

/** The grant type of a token exchange (RFC 8693 section 2.1). */
export const TOKEN_EXCHANGE_GRANT_TYPE = 'urn:ietf:params:oauth:grant-type:token-exchange';

/** Token type identifiers ({@link https://datatracker.ietf.org/doc/html/rfc8693#section-3 | RFC 8693 section 3}). */
export const TokenTypeUri = {
  AccessToken: 'urn:ietf:params:oauth:token-type:access_token',
  RefreshToken: 'urn:ietf:params:oauth:token-type:refresh_token',
  IdToken: 'urn:ietf:params:oauth:token-type:id_token',
  Jwt: 'urn:ietf:params:oauth:token-type:jwt',
} as const;

/** What to exchange, and for what. At least one of `resource` and `audience` is required. */
export interface TokenExchangeRequest {
  /** The token to exchange (e.g. the inbound access token, from `subjectTokenOf`). A secret. */
  readonly subjectToken: string;
  /** Its type (default: an access token). */
  readonly subjectTokenType?: string;
  /** The downstream resource's canonical URI (RFC 8707); the issued token's audience. */
  readonly resource?: string;
  /** The downstream service's logical name, when the AS knows it by one. */
  readonly audience?: string;
  /** The scopes wanted (the narrowest the downstream call needs). */
  readonly scopes?: readonly string[];
  /** The type wanted (default and only accepted: an access token). */
  readonly requestedTokenType?: string;
}

/**
 * Exchanges `request.subjectToken` at the token endpoint of `ctx.metadata` and returns the issued
 * access token as a {@link TokenSet} (`resource` = the requested resource, else the audience;
 * `issuer` = the AS's). Throws {@link AuthError}.
 *
 * @example
 * ```ts
 * const tokens = await exchangeToken(ctx, { subjectToken, resource: 'https://mcp.example.com/mcp', scopes: ['files:read'] });
 * ```
 */
export async function exchangeToken(ctx: TokenEndpointContext, request: TokenExchangeRequest): Promise<TokenSet> {
  const target = request.resource ?? request.audience;
  if (target === undefined || target === '') throw new AuthError(AuthErrorCode.Configuration, 'a token exchange needs a resource or an audience');
  if (request.subjectToken === '') throw new AuthError(AuthErrorCode.Configuration, 'a token exchange needs a subject token');
  const requestedType = request.requestedTokenType ?? TokenTypeUri.AccessToken;
  if (requestedType !== TokenTypeUri.AccessToken) throw new AuthError(AuthErrorCode.Configuration, 'only access tokens can be requested');
  const params: Record<string, string> = {
    grant_type: TOKEN_EXCHANGE_GRANT_TYPE,
    subject_token: request.subjectToken,
    subject_token_type: request.subjectTokenType ?? TokenTypeUri.AccessToken,
    requested_token_type: requestedType,
  };
  if (request.resource !== undefined) params['resource'] = request.resource;
  if (request.audience !== undefined) params['audience'] = request.audience;
  const scopes = request.scopes ?? [];
  if (scopes.length > 0) params['scope'] = scopes.join(' ');
  const response = await tokenRequest(ctx, params);
  const issued = response['issued_token_type'];
  if (typeof issued !== 'string' || issued === '') {
    throw new AuthError(AuthErrorCode.TokenRequestFailed, 'token exchange response lacks issued_token_type', { cause: redacted(response) });
  }
  if (issued !== TokenTypeUri.AccessToken) {
    throw new AuthError(AuthErrorCode.TokenRequestFailed, `token exchange issued a ${issued}, not an access token`, { cause: redacted(response) });
  }
  const now = (ctx.now ?? Date.now)();
  return {
    accessToken: response.access_token,
    tokenType: response.token_type.toLowerCase() === 'dpop' ? 'DPoP' : 'Bearer',
    requestedScopes: [...scopes],
    issuer: ctx.metadata.issuer,
    resource: target,
    ...(response.expires_in !== undefined ? { expiresAt: now + response.expires_in * 1000 } : {}),
    ...(response.scope !== undefined ? { grantedScope: response.scope } : {}),
  };
}

/** A response without its tokens, for an error's `cause`. */
function redacted(response: Readonly<Record<string, unknown>>): Record<string, unknown> {
  const { access_token: _a, refresh_token: _r, ...rest } = response;
  return rest;
}
