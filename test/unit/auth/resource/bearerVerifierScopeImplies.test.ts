/**
 * `VerifyOptions.scopeImplies`: a per-call scope hierarchy (a `ScopePolicy`'s `implies`, as the
 * HTTP transport passes it) merged with the verifier's own `scopeImplies`.
 *
 * @module
 */
import assert from 'node:assert/strict';
import { before, describe, it } from 'node:test';
import { createDevAuthorizationServer, type DevAuthorizationServer } from '../../../../src/auth/dev/devAuthorizationServer.js';
import { isAuthError } from '../../../../src/auth/errors.js';
import { createBearerVerifier, type BearerVerifier } from '../../../../src/auth/resource/bearerVerifier.js';

const NOW = Date.UTC(2026, 6, 28, 12, 0, 0);
const ISSUER = 'https://auth.example.test';
const RESOURCE = 'https://mcp.example.test/mcp';

let as: DevAuthorizationServer;
let verifier: BearerVerifier;

describe('createBearerVerifier: per-call scopeImplies', () => {
  before(async () => {
    as = await createDevAuthorizationServer({ issuer: ISSUER, now: () => NOW });
    verifier = createBearerVerifier({ resource: RESOURCE, issuers: [ISSUER], jwks: as.jwks(), now: () => NOW, scopeImplies: { 'mcp:write': ['mcp:read'] } });
  });

  it('a broad scope from the per-call hierarchy covers a narrower required scope', async () => {
    const token = await as.signAccessToken({ aud: RESOURCE, sub: 'alice', scope: 'mcp:admin' });
    const principal = await verifier.verify(token, { requiredScopes: ['mcp:deploy'], scopeImplies: { 'mcp:admin': ['mcp:deploy', 'mcp:write'] } });
    assert.equal(principal.subject, 'alice');
    // Merged with the verifier's own hierarchy: admin → write → read.
    await verifier.verify(token, { requiredScopes: ['mcp:read'], scopeImplies: { 'mcp:admin': ['mcp:write'] } });
  });

  it('scope escalation: without the per-call hierarchy a broad-but-unrelated scope still gets 403', async () => {
    const token = await as.signAccessToken({ aud: RESOURCE, sub: 'alice', scope: 'mcp:admin' });
    await assert.rejects(verifier.verify(token, { requiredScopes: ['mcp:deploy'] }), (e) => isAuthError(e, 'ERR_AUTH_INSUFFICIENT_SCOPE') && e.status === 403);
    // A per-call hierarchy cannot widen an unrelated scope.
    await assert.rejects(
      verifier.verify(token, { requiredScopes: ['mcp:deploy'], scopeImplies: { 'mcp:write': ['mcp:deploy'] } }),
      (e) => isAuthError(e, 'ERR_AUTH_INSUFFICIENT_SCOPE'),
    );
  });
});
