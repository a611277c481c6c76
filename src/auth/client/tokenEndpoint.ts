/**
 * Token endpoint requests: grants and client authentication
 * ({@link https://datatracker.ietf.org/doc/html/draft-ietf-oauth-v2-1-13#section-3.2 | OAuth 2.1 section 3.2}).
 *
 * Grants: `authorization_code` (with `code_verifier` and the same `resource`), `refresh_token`,
 * `client_credentials`, and the JWT bearer grant
 * ({@link https://datatracker.ietf.org/doc/html/rfc7523#section-2.1 | RFC 7523 section 2.1}, used by
 * workload identity federation). Every request carries `resource` (RFC 8707).
 *
 * Client authentication: `client_secret_basic` (RFC 6749 section 2.3.1 form-encoding),
 * `client_secret_post`, `none`, and `private_key_jwt`
 * ({@link https://datatracker.ietf.org/doc/html/rfc7523#section-2.2 | RFC 7523 section 2.2}; `aud` is the
 * issuer). With a {@link DpopProofer}, every request carries a `DPoP` proof and one
 * `use_dpop_nonce` retry is made.
 *
 * @module
 */

import * as jose from 'jose';
import { AuthError, AuthErrorCode } from '../errors.js';
import { type FetchLike, basicAuthorization, isObject, randomToken, str } from '../http.js';
import type { AuthorizationServerMetadata } from './discovery.js';
import type { DpopProofer } from './dpop.js';
import type { ClientRegistration, TokenEndpointAuthMethod } from './tokenStore.js';

/** A successful token response (RFC 6749 section 5.1). */
export interface TokenResponse {
  readonly access_token: string;
  readonly token_type: string;
  readonly expires_in?: number;
  readonly refresh_token?: string;
  readonly scope?: string;
  readonly [member: string]: unknown;
}

/** What a token request needs. */
export interface TokenEndpointContext {
  readonly metadata: AuthorizationServerMetadata;
  readonly client: ClientRegistration;
  readonly fetch: FetchLike;
  readonly dpop?: DpopProofer;
  readonly now?: () => number;
  readonly signal?: AbortSignal;
}

/**
 * Chooses a token endpoint authentication method for a client with or without a secret, from
 * the AS's `token_endpoint_auth_methods_supported` (RFC 8414 default: `client_secret_basic`).
 */
export function selectTokenEndpointAuthMethod(metadata: AuthorizationServerMetadata, hasSecret: boolean): TokenEndpointAuthMethod {
  const supported = metadata.token_endpoint_auth_methods_supported ?? ['client_secret_basic'];
  if (!hasSecret) return 'none';
  if (supported.includes('client_secret_basic')) return 'client_secret_basic';
  if (supported.includes('client_secret_post')) return 'client_secret_post';
  return 'client_secret_basic';
}

async function clientAssertion(ctx: TokenEndpointContext): Promise<string> {
  const { client } = ctx;
  if (client.privateKey === undefined) throw new AuthError(AuthErrorCode.Configuration, 'private_key_jwt needs a private key');
  const alg = client.signingAlg ?? 'ES256';
  const key = 'kty' in client.privateKey ? await jose.importJWK(client.privateKey, alg) : client.privateKey;
  const iat = Math.floor((ctx.now ?? Date.now)() / 1000);
  const header: jose.JWTHeaderParameters = { alg, typ: 'JWT' };
  if ('kid' in client.privateKey && typeof client.privateKey.kid === 'string') header.kid = client.privateKey.kid;
  return new jose.SignJWT({ jti: randomToken(16) })
    .setProtectedHeader(header)
    .setIssuer(client.clientId)
    .setSubject(client.clientId)
    .setAudience(ctx.metadata.issuer)
    .setIssuedAt(iat)
    .setExpirationTime(iat + 60)
    .sign(key);
}

/**
 * Adds the client authentication of `ctx.client` to a request to one of the authorization
 * server's endpoints (token, revocation: RFC 7009 section 2.1 uses the token endpoint's methods).
 */
export async function authenticateClient(ctx: TokenEndpointContext, body: URLSearchParams, headers: Record<string, string>): Promise<void> {
  const { client } = ctx;
  switch (client.tokenEndpointAuthMethod) {
    case 'client_secret_basic':
      if (client.clientSecret === undefined) throw new AuthError(AuthErrorCode.Configuration, 'client_secret_basic needs a client secret');
      headers['authorization'] = basicAuthorization(client.clientId, client.clientSecret);
      break;
    case 'client_secret_post':
      if (client.clientSecret === undefined) throw new AuthError(AuthErrorCode.Configuration, 'client_secret_post needs a client secret');
      body.set('client_id', client.clientId);
      body.set('client_secret', client.clientSecret);
      break;
    case 'none':
      body.set('client_id', client.clientId);
      break;
    case 'private_key_jwt':
      body.set('client_id', client.clientId);
      body.set('client_assertion_type', 'urn:ietf:params:oauth:client-assertion-type:jwt-bearer');
      body.set('client_assertion', await clientAssertion(ctx));
      break;
  }
}

/**
 * Posts `params` to the token endpoint with client authentication and returns the validated
 * response. `invalid_grant` becomes `ERR_AUTH_INVALID_GRANT`, `invalid_target` (RFC 8707)
 * `ERR_AUTH_INVALID_TARGET`; other errors `ERR_AUTH_TOKEN_REQUEST_FAILED` (`cause` = the error
 * body or response).
 */
export async function tokenRequest(ctx: TokenEndpointContext, params: Readonly<Record<string, string>>): Promise<TokenResponse> {
  const body = new URLSearchParams(params);
  const headers: Record<string, string> = { accept: 'application/json', 'content-type': 'application/x-www-form-urlencoded' };
  await authenticateClient(ctx, body, headers);
  const endpoint = ctx.metadata.token_endpoint;
  for (let attempt = 0; ; attempt++) {
    if (ctx.dpop !== undefined) headers['dpop'] = await ctx.dpop.proof('POST', endpoint);
    const init: RequestInit = { method: 'POST', headers, body: body.toString(), redirect: 'error' };
    if (ctx.signal !== undefined) init.signal = ctx.signal;
    const response = await ctx.fetch(endpoint, init);
    const nonceChanged = ctx.dpop?.observe(endpoint, response) === true;
    let data: unknown;
    try {
      data = await response.json();
    } catch {
      data = undefined;
    }
    if (!response.ok) {
      const error = isObject(data) ? str(data, 'error') : undefined;
      if (error === 'use_dpop_nonce' && nonceChanged && attempt === 0) continue;
      const code = error === 'invalid_grant' ? AuthErrorCode.InvalidGrant : error === 'invalid_target' ? AuthErrorCode.InvalidTarget : AuthErrorCode.TokenRequestFailed;
      throw new AuthError(code, `token endpoint refused the request: ${error ?? response.status}`, { cause: data ?? response });
    }
    if (!isObject(data) || typeof data['access_token'] !== 'string' || data['access_token'] === '' || typeof data['token_type'] !== 'string') {
      throw new AuthError(AuthErrorCode.TokenRequestFailed, 'token response lacks access_token or token_type', { cause: data });
    }
    const type = data['token_type'].toLowerCase();
    if (type !== 'bearer' && !(type === 'dpop' && ctx.dpop !== undefined)) {
      throw new AuthError(AuthErrorCode.TokenRequestFailed, `unsupported token_type ${data['token_type']}`, { cause: data });
    }
    if (data['expires_in'] !== undefined && (typeof data['expires_in'] !== 'number' || data['expires_in'] < 0)) {
      throw new AuthError(AuthErrorCode.TokenRequestFailed, 'token response has an invalid expires_in', { cause: data });
    }
    return data as TokenResponse;
  }
}

/** Redeems an authorization code (after `validateAuthorizationResponse`). */
export function exchangeAuthorizationCode(
  ctx: TokenEndpointContext,
  grant: { code: string; codeVerifier: string; redirectUri: string; resource: string },
): Promise<TokenResponse> {
  return tokenRequest(ctx, {
    grant_type: 'authorization_code',
    code: grant.code,
    code_verifier: grant.codeVerifier,
    redirect_uri: grant.redirectUri,
    resource: grant.resource,
  });
}

/** Uses a refresh token (the AS may rotate it: keep the new one). */
export function refreshAccessToken(ctx: TokenEndpointContext, grant: { refreshToken: string; resource: string; scopes?: readonly string[] }): Promise<TokenResponse> {
  const params: Record<string, string> = { grant_type: 'refresh_token', refresh_token: grant.refreshToken, resource: grant.resource };
  if (grant.scopes !== undefined && grant.scopes.length > 0) params['scope'] = grant.scopes.join(' ');
  return tokenRequest(ctx, params);
}

/** The client credentials grant (confidential clients: secret or `private_key_jwt`). */
export function clientCredentialsGrant(ctx: TokenEndpointContext, grant: { resource: string; scopes?: readonly string[] }): Promise<TokenResponse> {
  if (ctx.client.tokenEndpointAuthMethod === 'none') {
    throw new AuthError(AuthErrorCode.Configuration, 'client_credentials needs an authenticated (confidential) client');
  }
  const params: Record<string, string> = { grant_type: 'client_credentials', resource: grant.resource };
  if (grant.scopes !== undefined && grant.scopes.length > 0) params['scope'] = grant.scopes.join(' ');
  return tokenRequest(ctx, params);
}

/** The JWT bearer authorization grant (RFC 7523 section 2.1), e.g. a workload identity token. */
export function jwtBearerGrant(ctx: TokenEndpointContext, grant: { assertion: string; resource: string; scopes?: readonly string[] }): Promise<TokenResponse> {
  const params: Record<string, string> = {
    grant_type: 'urn:ietf:params:oauth:grant-type:jwt-bearer',
    assertion: grant.assertion,
    resource: grant.resource,
  };
  if (grant.scopes !== undefined && grant.scopes.length > 0) params['scope'] = grant.scopes.join(' ');
  return tokenRequest(ctx, params);
}
