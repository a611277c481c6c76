import { describe, it, before } from 'node:test';
import assert from 'node:assert/strict';
import * as jose from 'jose';
import { createBearerVerifier, unsafeSymmetricSecret, type BearerVerifier } from '../../../../src/auth/resource/bearerVerifier.js';
import { createDevAuthorizationServer, type DevAuthorizationServer } from '../../../../src/auth/dev/devAuthorizationServer.js';
import { type AuthError, isAuthError } from '../../../../src/auth/errors.js';
import { parseWwwAuthenticate } from '../../../../src/auth/wwwAuthenticate.js';

const NOW = Date.UTC(2026, 6, 28, 12, 0, 0);
const ISSUER = 'https://auth.example.test';
const RESOURCE = 'https://mcp.example.test/mcp';
const b64u = (v: unknown): string => Buffer.from(JSON.stringify(v)).toString('base64url');

let as: DevAuthorizationServer;
let verifier: BearerVerifier;

async function rejects(promise: Promise<unknown>, code: string, status: number): Promise<AuthError> {
  try {
    await promise;
  } catch (error) {
    assert.ok(isAuthError(error), `expected AuthError, got ${String(error)}`);
    assert.equal(error.code, code);
    assert.equal(error.status, status);
    return error;
  }
  assert.fail('expected a rejection');
}

function params(error: AuthError): Readonly<Record<string, string>> {
  const [challenge] = parseWwwAuthenticate(error.wwwAuthenticate);
  assert.equal(challenge?.scheme, 'bearer');
  return challenge.params;
}

describe('createBearerVerifier (JWT)', () => {
  before(async () => {
    as = await createDevAuthorizationServer({ issuer: ISSUER, now: () => NOW });
    verifier = createBearerVerifier({
      resource: RESOURCE,
      issuers: [ISSUER],
      jwks: as.jwks(),
      now: () => NOW,
      requiredScopes: ['mcp:read'],
      scopeImplies: { 'mcp:admin': ['mcp:write'], 'mcp:write': ['mcp:read'] },
    });
  });

  it('accepts a token for this resource and returns the principal', async () => {
    const token = await as.signAccessToken({ aud: RESOURCE, sub: 'alice', client_id: 'c1', scope: 'mcp:read' });
    const principal = await verifier.verify(token);
    assert.equal(principal.subject, 'alice');
    assert.equal(principal.clientId, 'c1');
    assert.deepEqual(principal.scopes, ['mcp:read']);
    assert.equal(principal.issuer, ISSUER);
    assert.deepEqual(principal.audience, [RESOURCE]);
    assert.equal(principal.expiresAt, Math.floor(NOW / 1000) + 300);
    assert.ok(Object.isFrozen(principal));
  });

  it('honours scope hierarchies (mcp:admin implies mcp:write implies mcp:read)', async () => {
    const token = await as.signAccessToken({ aud: RESOURCE, scope: 'mcp:admin' });
    const principal = await verifier.verify(token, { requiredScopes: ['mcp:write'] });
    assert.deepEqual(principal.scopes, ['mcp:admin']);
  });

  it('authenticate() reads Authorization: Bearer (scheme case-insensitive)', async () => {
    const token = await as.signAccessToken({ aud: RESOURCE, scope: 'mcp:read' });
    const principal = await verifier.authenticate(new Request(RESOURCE, { headers: { authorization: `bearer ${token}` } }));
    assert.equal(principal.subject, undefined);
  });

  it('token passthrough: the principal carries no copy of the token', async () => {
    const token = await as.signAccessToken({ aud: RESOURCE, sub: 'alice', scope: 'mcp:read' });
    const principal = await verifier.verify(token);
    const serialized = JSON.stringify(principal);
    assert.ok(!serialized.includes(token), 'principal must not contain the raw token');
    assert.ok(!serialized.includes(token.split('.')[2] as string), 'principal must not contain the signature');
  });

  it('token minted for another audience → 401 invalid_token', async () => {
    const token = await as.signAccessToken({ aud: 'https://other.example.test/mcp', scope: 'mcp:read' });
    const error = await rejects(verifier.verify(token), 'ERR_AUTH_INVALID_TOKEN', 401);
    assert.equal(params(error)['error'], 'invalid_token');
    assert.equal(params(error)['error_description'], 'audience mismatch');
    assert.equal(params(error)['resource_metadata'], 'https://mcp.example.test/.well-known/oauth-protected-resource/mcp');
  });

  it('expired token → 401', async () => {
    const token = await as.signAccessToken({ aud: RESOURCE, scope: 'mcp:read', expiresInSec: -31 });
    const error = await rejects(verifier.verify(token), 'ERR_AUTH_INVALID_TOKEN', 401);
    assert.equal(params(error)['error_description'], 'token expired');
  });

  it('expired within the 30 s clock skew is still accepted', async () => {
    const token = await as.signAccessToken({ aud: RESOURCE, scope: 'mcp:read', expiresInSec: -20 });
    await verifier.verify(token);
  });

  it('not-yet-valid token (nbf beyond skew) → 401', async () => {
    const token = await as.signAccessToken({ aud: RESOURCE, scope: 'mcp:read', notBeforeSec: 120 });
    const error = await rejects(verifier.verify(token), 'ERR_AUTH_INVALID_TOKEN', 401);
    assert.equal(params(error)['error_description'], 'token not yet valid');
  });

  it('token from an untrusted issuer (same key, wrong iss) → 401', async () => {
    const token = await as.signAccessToken({ aud: RESOURCE, scope: 'mcp:read', iss: 'https://evil.example.test' });
    await rejects(verifier.verify(token), 'ERR_AUTH_INVALID_TOKEN', 401);
  });

  it('alg "none" (unsecured JWT) → 401', async () => {
    const exp = Math.floor(NOW / 1000) + 300;
    const token = `${b64u({ alg: 'none', typ: 'JWT' })}.${b64u({ iss: ISSUER, aud: RESOURCE, exp, scope: 'mcp:read' })}.`;
    await rejects(verifier.verify(token), 'ERR_AUTH_INVALID_TOKEN', 401);
  });

  it('algorithm confusion: HS256 signed with the RSA public key as HMAC secret → 401', async () => {
    const { publicKey, privateKey } = await jose.generateKeyPair('RS256', { extractable: true });
    void privateKey;
    const jwk = { ...(await jose.exportJWK(publicKey)), kid: 'rsa-1', alg: 'RS256' };
    const pem = await jose.exportSPKI(publicKey);
    const rsVerifier = createBearerVerifier({ resource: RESOURCE, issuers: [ISSUER], jwks: { keys: [jwk] }, now: () => NOW });
    for (const secret of [new TextEncoder().encode(pem), new TextEncoder().encode(JSON.stringify(jwk))]) {
      const forged = await new jose.SignJWT({ scope: 'mcp:read' })
        .setProtectedHeader({ alg: 'HS256', kid: 'rsa-1' })
        .setIssuer(ISSUER)
        .setAudience(RESOURCE)
        .setExpirationTime(Math.floor(NOW / 1000) + 300)
        .sign(secret);
      const error = await rejects(rsVerifier.verify(forged), 'ERR_AUTH_INVALID_TOKEN', 401);
      assert.equal(params(error)['error_description'], 'algorithm not allowed');
    }
  });

  it('algorithm confusion with HMAC enabled: an HS256 token is checked only against the secret, never a public key', async () => {
    const { publicKey } = await jose.generateKeyPair('RS256', { extractable: true });
    const jwk = { ...(await jose.exportJWK(publicKey)), kid: 'rsa-1' };
    const pem = new TextEncoder().encode(await jose.exportSPKI(publicKey));
    const v = createBearerVerifier({
      resource: RESOURCE,
      issuers: [ISSUER],
      jwks: { keys: [jwk] },
      algorithms: ['RS256', 'HS256'],
      [unsafeSymmetricSecret]: crypto.getRandomValues(new Uint8Array(32)),
      now: () => NOW,
    });
    const forged = await new jose.SignJWT({})
      .setProtectedHeader({ alg: 'HS256', kid: 'rsa-1' })
      .setIssuer(ISSUER)
      .setAudience(RESOURCE)
      .setExpirationTime(Math.floor(NOW / 1000) + 300)
      .sign(pem);
    await rejects(v.verify(forged), 'ERR_AUTH_INVALID_TOKEN', 401);
  });

  it('unknown kid (attacker key) → 401', async () => {
    const { privateKey } = await jose.generateKeyPair('ES256');
    const token = await new jose.SignJWT({ scope: 'mcp:read' })
      .setProtectedHeader({ alg: 'ES256', kid: 'attacker' })
      .setIssuer(ISSUER)
      .setAudience(RESOURCE)
      .setExpirationTime(Math.floor(NOW / 1000) + 300)
      .sign(privateKey);
    const error = await rejects(verifier.verify(token), 'ERR_AUTH_INVALID_TOKEN', 401);
    assert.equal(params(error)['error_description'], 'unknown signing key');
  });

  it('signature stripped / tampered payload → 401', async () => {
    const token = await as.signAccessToken({ aud: RESOURCE, scope: 'mcp:read' });
    const [h, , s] = token.split('.');
    const tampered = `${h}.${b64u({ iss: ISSUER, aud: RESOURCE, exp: Math.floor(NOW / 1000) + 300, scope: 'mcp:admin' })}.${s}`;
    await rejects(verifier.verify(tampered), 'ERR_AUTH_INVALID_TOKEN', 401);
  });

  it('token without exp (non-expiring) → 401', async () => {
    const { privateKey, publicKey } = await jose.generateKeyPair('ES256');
    const jwk = { ...(await jose.exportJWK(publicKey)), kid: 'k' };
    const v = createBearerVerifier({ resource: RESOURCE, issuers: [ISSUER], jwks: { keys: [jwk] }, now: () => NOW });
    const token = await new jose.SignJWT({}).setProtectedHeader({ alg: 'ES256', kid: 'k' }).setIssuer(ISSUER).setAudience(RESOURCE).sign(privateKey);
    await rejects(v.verify(token), 'ERR_AUTH_INVALID_TOKEN', 401);
  });

  it('insufficient scope → 403 insufficient_scope with all needed scopes in one challenge', async () => {
    const token = await as.signAccessToken({ aud: RESOURCE, scope: 'mcp:read' });
    const error = await rejects(verifier.verify(token, { requiredScopes: ['mcp:write', 'files:write'] }), 'ERR_AUTH_INSUFFICIENT_SCOPE', 403);
    const p = params(error);
    assert.equal(p['error'], 'insufficient_scope');
    assert.equal(p['scope'], 'mcp:read mcp:write files:write');
    assert.ok(p['resource_metadata']);
    assert.equal(error.toResponse().status, 403);
  });

  it('missing token → 401 challenge without error code, with resource_metadata and scope', async () => {
    const error = await rejects(verifier.authenticate(new Request(RESOURCE)), 'ERR_AUTH_MISSING_TOKEN', 401);
    const p = params(error);
    assert.equal(p['error'], undefined);
    assert.equal(p['scope'], 'mcp:read');
    assert.equal(p['resource_metadata'], 'https://mcp.example.test/.well-known/oauth-protected-resource/mcp');
  });

  it('token leaked into the query string → 400 invalid_request', async () => {
    const token = await as.signAccessToken({ aud: RESOURCE, scope: 'mcp:read' });
    const error = await rejects(verifier.authenticate(new Request(`${RESOURCE}?access_token=${token}`)), 'ERR_AUTH_INVALID_REQUEST', 400);
    assert.equal(params(error)['error'], 'invalid_request');
  });

  it('malformed Authorization header (two credentials) → 400', async () => {
    await rejects(verifier.authenticate(new Request(RESOURCE, { headers: { authorization: 'Bearer a, Bearer b' } })), 'ERR_AUTH_INVALID_REQUEST', 400);
    await rejects(verifier.authenticate(new Request(RESOURCE, { headers: { authorization: 'Bearer a b' } })), 'ERR_AUTH_INVALID_REQUEST', 400);
  });

  it('refuses unsafe configurations: alg none, HS* without the symbol switch, empty issuers, http resource', () => {
    assert.throws(() => createBearerVerifier({ resource: RESOURCE, issuers: [ISSUER], jwks: { keys: [] }, algorithms: ['none'] }), /none/);
    assert.throws(() => createBearerVerifier({ resource: RESOURCE, issuers: [ISSUER], jwks: { keys: [] }, algorithms: ['HS256'] }), /unsafeSymmetricSecret/);
    assert.throws(() => createBearerVerifier({ resource: RESOURCE, issuers: [], jwks: { keys: [] } }), /issuers/);
    assert.throws(() => createBearerVerifier({ resource: 'http://mcp.example.test/mcp', issuers: [ISSUER], jwks: { keys: [] } }), /https/);
    // JSON configuration cannot carry the symbol switch
    const fromJson = JSON.parse(JSON.stringify({ resource: RESOURCE, issuers: [ISSUER], jwks: { keys: [] }, unsafeSymmetricSecret: 'x', algorithms: ['HS256'] })) as object;
    assert.throws(() => createBearerVerifier(fromJson as never), /unsafeSymmetricSecret/);
  });
});
