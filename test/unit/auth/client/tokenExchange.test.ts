/**
 * RFC 8693 token exchange (`exchangeToken`) against a real authorization server: oidc-provider
 * with token exchange registered as its custom grant (`test/fixtures/oidcAuthServer.ts`).
 * Negatives are named after the attack and judged by what the AS answered (its exchange log).
 */
import { describe, it, before, after } from 'node:test';
import assert from 'node:assert/strict';
import * as jose from 'jose';
import { discoverAuthorizationServer } from '../../../../src/auth/client/discovery.js';
import type { TokenEndpointContext } from '../../../../src/auth/client/tokenEndpoint.js';
import { exchangeToken, TokenTypeUri } from '../../../../src/auth/client/tokenExchange.js';
import { AuthErrorCode, isAuthError, type AuthError } from '../../../../src/auth/errors.js';
import { allowInsecureRequests } from '../../../../src/auth/http.js';
import { startOidcAuthServer, type OidcAuthServer } from '../../../fixtures/oidcAuthServer.js';

const GATEWAY = 'http://127.0.0.1:1/mcp';
const SERVER_A = 'http://127.0.0.1:2/a/mcp';
const SERVER_B = 'http://127.0.0.1:3/b/mcp';
const T = { timeout: 30_000 };

let as: OidcAuthServer;
let ctx: TokenEndpointContext;
let inbound: string;

const context = (client: Partial<TokenEndpointContext['client']>): TokenEndpointContext => ({ ...ctx, client: { ...ctx.client, ...client } });

async function refused(promise: Promise<unknown>, code: string): Promise<AuthError> {
  try {
    await promise;
  } catch (error) {
    assert.ok(isAuthError(error), `expected AuthError, got ${String(error)}`);
    assert.equal(error.code, code, error.message);
    return error;
  }
  assert.fail('expected a refusal');
}

const oauthError = (error: AuthError): unknown => (error.cause as { error?: unknown } | undefined)?.error;

describe('exchangeToken (RFC 8693) against oidc-provider', T, () => {
  before(async () => {
    as = await startOidcAuthServer({ gatewayResources: [GATEWAY], resourceScopes: ['mcp:read', 'mcp:write'] });
    const metadata = await discoverAuthorizationServer(as.issuer, { fetch, requirePkce: false, [allowInsecureRequests]: true });
    ctx = {
      metadata,
      client: { issuer: as.issuer, clientId: as.gatewayClient.clientId, clientSecret: as.gatewayClient.clientSecret, tokenEndpointAuthMethod: 'client_secret_basic', source: 'pre-registered' },
      fetch,
    };
    inbound = await as.accessToken('alice', GATEWAY, { scope: 'mcp:read mcp:write' });
  });
  after(() => as.close());

  it('issues a token for the requested resource alone, as the subject, acted by the gateway, with the narrowed scope', T, async () => {
    const before = as.exchanges.length;
    const tokens = await exchangeToken(ctx, { subjectToken: inbound, resource: SERVER_A, scopes: ['mcp:read', 'files:delete'] });
    const claims = jose.decodeJwt(tokens.accessToken);
    assert.equal(claims.aud, SERVER_A, 'aud is exactly the requested resource');
    assert.equal(claims.sub, 'alice');
    assert.equal(claims.scope, 'mcp:read', 'requested ∩ allowed');
    assert.deepEqual(claims['act'], { sub: as.gatewayClient.clientId });
    assert.equal(claims['client_id'], as.gatewayClient.clientId);
    assert.notEqual(tokens.accessToken, inbound);
    assert.equal(tokens.tokenType, 'Bearer');
    assert.equal(tokens.issuer, as.issuer);
    assert.equal(tokens.resource, SERVER_A);
    assert.equal(tokens.grantedScope, 'mcp:read');
    assert.deepEqual(tokens.requestedScopes, ['mcp:read', 'files:delete']);
    assert.ok(tokens.expiresAt !== undefined && tokens.expiresAt > Date.now());
    assert.equal(tokens.refreshToken, undefined);
    assert.deepEqual(as.exchanges.slice(before), [{ clientId: as.gatewayClient.clientId, ok: true, sub: 'alice', resource: SERVER_A, scope: 'mcp:read' }]);
  });

  it('authenticates with client_secret_post as well', T, async () => {
    const tokens = await exchangeToken(context({ tokenEndpointAuthMethod: 'client_secret_post' }), { subjectToken: inbound, resource: SERVER_B });
    assert.equal(jose.decodeJwt(tokens.accessToken).aud, SERVER_B);
  });

  it('exchange-with-foreign-subject-token: a token signed by another key, naming this issuer and the gateway, is invalid_grant', T, async () => {
    const { privateKey } = await jose.generateKeyPair('RS256');
    const now = Math.floor(Date.now() / 1000);
    const forged = await new jose.SignJWT({ sub: 'alice', scope: 'mcp:read', client_id: as.publicClient.clientId })
      .setProtectedHeader({ alg: 'RS256', typ: 'at+jwt', kid: as.jwks.keys[0]?.kid ?? 'k' })
      .setIssuer(as.issuer)
      .setAudience(GATEWAY)
      .setIssuedAt(now)
      .setExpirationTime(now + 300)
      .sign(privateKey);
    const before = as.exchanges.length;
    await refused(exchangeToken(ctx, { subjectToken: forged, resource: SERVER_A }), AuthErrorCode.InvalidGrant);
    assert.deepEqual(as.exchanges.slice(before), [{ clientId: as.gatewayClient.clientId, ok: false, error: 'invalid_grant' }]);
  });

  it('exchange-with-subject-token-for-another-audience: a token minted for server A is no subject token (confused deputy upstream)', T, async () => {
    const forA = await as.accessToken('alice', SERVER_A);
    await refused(exchangeToken(ctx, { subjectToken: forA, resource: SERVER_B }), AuthErrorCode.InvalidGrant);
  });

  it('exchange-with-exchanged-token-as-subject: a downstream token cannot be exchanged again (no chaining to widen reach)', T, async () => {
    const downstream = await exchangeToken(ctx, { subjectToken: inbound, resource: SERVER_A });
    await refused(exchangeToken(ctx, { subjectToken: downstream.accessToken, resource: SERVER_B }), AuthErrorCode.InvalidGrant);
  });

  it('exchange-with-expired-subject-token is invalid_grant', T, async () => {
    const now = Math.floor(Date.now() / 1000);
    const expired = await as.sign({ iss: as.issuer, aud: GATEWAY, sub: 'alice', scope: 'mcp:read', iat: now - 600, exp: now - 300 });
    await refused(exchangeToken(ctx, { subjectToken: expired, resource: SERVER_A }), AuthErrorCode.InvalidGrant);
  });

  it('exchange-with-another-issuers-token: same key, other iss, is invalid_grant', T, async () => {
    const now = Math.floor(Date.now() / 1000);
    const other = await as.sign({ iss: 'https://evil.example', aud: GATEWAY, sub: 'alice', iat: now, exp: now + 300 });
    await refused(exchangeToken(ctx, { subjectToken: other, resource: SERVER_A }), AuthErrorCode.InvalidGrant);
  });

  it('exchange-with-id-token-type: another subject_token_type is refused (invalid_request)', T, async () => {
    const error = await refused(exchangeToken(ctx, { subjectToken: inbound, subjectTokenType: TokenTypeUri.IdToken, resource: SERVER_A }), AuthErrorCode.TokenRequestFailed);
    assert.equal(oauthError(error), 'invalid_request');
  });

  it('exchange-without-resource: audience alone is invalid_target at this AS (ERR_AUTH_INVALID_TARGET)', T, async () => {
    const error = await refused(exchangeToken(ctx, { subjectToken: inbound, audience: 'server-a' }), AuthErrorCode.InvalidTarget);
    assert.equal(oauthError(error), 'invalid_target');
  });

  it('exchange-without-target: no resource and no audience is refused before any request', T, async () => {
    const before = as.exchanges.length;
    await refused(exchangeToken(ctx, { subjectToken: inbound }), AuthErrorCode.Configuration);
    assert.equal(as.exchanges.length, before);
  });

  it('exchange-scope-escalation: only scopes the resource does not allow is invalid_scope', T, async () => {
    const error = await refused(exchangeToken(ctx, { subjectToken: inbound, resource: SERVER_A, scopes: ['admin:all'] }), AuthErrorCode.TokenRequestFailed);
    assert.equal(oauthError(error), 'invalid_scope');
  });

  it('exchange-by-unknown-client is invalid_client', T, async () => {
    const error = await refused(exchangeToken(context({ clientId: 'mallory' }), { subjectToken: inbound, resource: SERVER_A }), AuthErrorCode.TokenRequestFailed);
    assert.equal(oauthError(error), 'invalid_client');
  });

  it('exchange-with-wrong-client-secret is invalid_client', T, async () => {
    const error = await refused(exchangeToken(context({ clientSecret: 'guess' }), { subjectToken: inbound, resource: SERVER_A }), AuthErrorCode.TokenRequestFailed);
    assert.equal(oauthError(error), 'invalid_client');
  });

  it('exchange-by-client-not-allowed-the-grant: the public client cannot exchange', T, async () => {
    const error = await refused(
      exchangeToken(context({ clientId: as.publicClient.clientId, tokenEndpointAuthMethod: 'none', clientSecret: undefined as never }), { subjectToken: inbound, resource: SERVER_A }),
      AuthErrorCode.TokenRequestFailed,
    );
    // oidc-provider answers invalid_request "requested grant type is not allowed for this client".
    assert.match(JSON.stringify(error.cause), /grant type is not allowed/);
  });

  it('refuses an answer without issued_token_type, and does not put the token in the error', T, async () => {
    const fake: TokenEndpointContext = {
      ...ctx,
      fetch: () => Promise.resolve(Response.json({ access_token: 'secret-token', token_type: 'Bearer', expires_in: 60 })),
    };
    const error = await refused(exchangeToken(fake, { subjectToken: inbound, resource: SERVER_A }), AuthErrorCode.TokenRequestFailed);
    assert.ok(!JSON.stringify(error.cause).includes('secret-token'));
  });

  it('refuses an answer that issued something other than an access token', T, async () => {
    const fake: TokenEndpointContext = {
      ...ctx,
      fetch: () => Promise.resolve(Response.json({ access_token: 'x', token_type: 'Bearer', issued_token_type: TokenTypeUri.RefreshToken })),
    };
    await refused(exchangeToken(fake, { subjectToken: inbound, resource: SERVER_A }), AuthErrorCode.TokenRequestFailed);
  });
});
