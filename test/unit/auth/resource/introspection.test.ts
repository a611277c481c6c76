import { describe, it, before } from 'node:test';
import assert from 'node:assert/strict';
import { createBearerVerifier, type BearerVerifier } from '../../../../src/auth/resource/bearerVerifier.js';
import { createDevAuthorizationServer, type DevAuthorizationServer } from '../../../../src/auth/dev/devAuthorizationServer.js';
import { isAuthError } from '../../../../src/auth/errors.js';
import { dispatcher } from '../helpers.js';

const ISSUER = 'https://auth.example.test';
const RESOURCE = 'https://mcp.example.test/mcp';
let as: DevAuthorizationServer;
let verifier: BearerVerifier;
let fetch: ReturnType<typeof dispatcher>;

describe('createBearerVerifier (RFC 7662 introspection)', () => {
  before(async () => {
    as = await createDevAuthorizationServer({ issuer: ISSUER, clients: [{ clientId: 'rs', clientSecret: 'rs-secret', redirectUris: [] }] });
    fetch = dispatcher({ [ISSUER]: as.handler });
    verifier = createBearerVerifier({
      resource: RESOURCE,
      issuers: [ISSUER],
      introspection: { endpoint: `${ISSUER}/introspect`, clientId: 'rs', clientSecret: 'rs-secret', fetch },
    });
  });

  it('accepts an active token for this resource and caches the result (keyed by hash)', async () => {
    const token = await as.signAccessToken({ aud: RESOURCE, sub: 'bob', scope: 'mcp:read' });
    const principal = await verifier.verify(token);
    assert.equal(principal.subject, 'bob');
    assert.ok(!JSON.stringify(principal).includes(token));
    const calls = fetch.log.length;
    await verifier.verify(token);
    assert.equal(fetch.log.length, calls, 'second verification served from cache');
  });

  it('token minted for another audience → 401', async () => {
    const token = await as.signAccessToken({ aud: 'https://other.example.test/mcp' });
    await assert.rejects(verifier.verify(token), (e: unknown) => isAuthError(e, 'ERR_AUTH_INVALID_TOKEN') && e.status === 401);
  });

  it('inactive (forged or expired) token → 401', async () => {
    await assert.rejects(verifier.verify('not-a-real-token'), (e: unknown) => isAuthError(e, 'ERR_AUTH_INVALID_TOKEN'));
    const expired = await as.signAccessToken({ aud: RESOURCE, expiresInSec: -120 });
    await assert.rejects(verifier.verify(expired), (e: unknown) => isAuthError(e, 'ERR_AUTH_INVALID_TOKEN'));
  });

  it('a resource server with wrong introspection credentials fails closed (503, not accepted)', async () => {
    const bad = createBearerVerifier({ resource: RESOURCE, issuers: [ISSUER], introspection: { endpoint: `${ISSUER}/introspect`, clientId: 'rs', clientSecret: 'nope', fetch } });
    const token = await as.signAccessToken({ aud: RESOURCE });
    await assert.rejects(bad.verify(token), (e: unknown) => isAuthError(e, 'ERR_AUTH_VERIFIER_UNAVAILABLE') && e.status === 503);
  });
});
