/**
 * The `dpop` option of `createBearerVerifier` (RFC 9449 section 7): DPoP-scheme tokens bound by
 * `cnf.jkt` (JWT claim or introspection member), the bearer downgrade, challenges. Negative
 * cases are named after the attack they stop.
 *
 * @module
 */
import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import * as jose from 'jose';
import { createDpopProofer, generateDpopKey } from '../../../../src/auth/client/dpop.js';
import { type AuthError, isAuthError } from '../../../../src/auth/errors.js';
import { createBearerVerifier, type DpopVerifierOptions } from '../../../../src/auth/resource/bearerVerifier.js';
import { parseWwwAuthenticate } from '../../../../src/auth/wwwAuthenticate.js';

const NOW = Date.UTC(2026, 6, 28, 12, 0, 0);
const ISSUER = 'https://auth.example.test';
const RESOURCE = 'https://mcp.example.test/mcp';
const PRM = 'https://mcp.example.test/.well-known/oauth-protected-resource/mcp';

const signing = await jose.generateKeyPair('ES256', { extractable: true });
const jwks = { keys: [{ ...(await jose.exportJWK(signing.publicKey)), kid: 'k1', alg: 'ES256' }] };
const clientKey = await generateDpopKey();
const proofer = createDpopProofer(clientKey, () => NOW);
const jkt = await proofer.thumbprint();

async function token(claims: Record<string, unknown> = {}): Promise<string> {
  const iat = Math.floor(NOW / 1000);
  return new jose.SignJWT({ sub: 'alice', scope: 'mcp:read', iss: ISSUER, aud: RESOURCE, iat, exp: iat + 300, ...claims })
    .setProtectedHeader({ alg: 'ES256', kid: 'k1', typ: 'at+jwt' })
    .sign(signing.privateKey);
}

/** A JWT verifier; `null` leaves the `dpop` option out. */
function verifier(dpop: DpopVerifierOptions | null = {}): ReturnType<typeof createBearerVerifier> {
  return createBearerVerifier({ resource: RESOURCE, issuers: [ISSUER], jwks, now: () => NOW, ...(dpop !== null ? { dpop } : {}) });
}

async function dpopRequest(at: string, proof?: string | null, method = 'POST', url = RESOURCE): Promise<Request> {
  const headers: Record<string, string> = { authorization: `DPoP ${at}` };
  const value = proof === undefined ? await proofer.proof(method, url, at) : proof;
  if (value !== null) headers['dpop'] = value;
  return new Request(url, { method, headers });
}

async function refused(promise: Promise<unknown>, code: string): Promise<{ error: AuthError; challenges: ReturnType<typeof parseWwwAuthenticate> }> {
  try {
    await promise;
  } catch (error) {
    assert.ok(isAuthError(error), `expected AuthError, got ${String(error)}`);
    assert.equal(error.code, code, error.message);
    return { error, challenges: parseWwwAuthenticate(error.wwwAuthenticate) };
  }
  assert.fail('expected a refusal');
}

describe('createBearerVerifier with dpop: accepted', () => {
  it('accepts Authorization: DPoP with a proof by the cnf.jkt key; the principal carries jkt', async () => {
    const at = await token({ cnf: { jkt } });
    const principal = await verifier().authenticate(await dpopRequest(at));
    assert.equal(principal.subject, 'alice');
    assert.equal(principal.jkt, jkt);
    assert.ok(Object.isFrozen(principal));
    assert.ok(!JSON.stringify(principal).includes(at), 'no token in the principal');
  });

  it('accepts an introspected opaque token whose response carries cnf.jkt', async () => {
    const introspected = createBearerVerifier({
      resource: RESOURCE,
      issuers: [ISSUER],
      now: () => NOW,
      dpop: {},
      introspection: {
        endpoint: `${ISSUER}/introspect`,
        clientId: 'rs',
        clientSecret: 's',
        fetch: async () => Response.json({ active: true, iss: ISSUER, aud: RESOURCE, sub: 'bob', exp: NOW / 1000 + 60, cnf: { jkt } }),
      },
    });
    const principal = await introspected.authenticate(await dpopRequest('opaque-token-1'));
    assert.equal(principal.jkt, jkt);
    // ... and the same token is refused as a bearer token (downgrade), cache hit or not.
    await refused(introspected.authenticate(new Request(RESOURCE, { headers: { authorization: 'Bearer opaque-token-1' } })), 'ERR_AUTH_INVALID_TOKEN');
  });

  it('still accepts unbound bearer tokens when DPoP is optional; a missing token gets both challenges', async () => {
    const v = verifier();
    const principal = await v.authenticate(new Request(RESOURCE, { headers: { authorization: `Bearer ${await token()}` } }));
    assert.equal(principal.jkt, undefined);
    const { challenges } = await refused(v.authenticate(new Request(RESOURCE)), 'ERR_AUTH_MISSING_TOKEN');
    assert.deepEqual(
      challenges.map((c) => c.scheme),
      ['bearer', 'dpop'],
    );
    assert.equal(challenges[1]?.params['algs'], 'ES256 ES384 PS256 RS256 EdDSA');
    assert.equal(challenges[1]?.params['resource_metadata'], PRM);
    assert.deepEqual(v.dpop, { algorithms: ['ES256', 'ES384', 'PS256', 'RS256', 'EdDSA'], required: false });
  });
});

describe('createBearerVerifier with dpop: attacks', () => {
  it('DPoP-bound token downgraded to Bearer: refused with a DPoP challenge', async () => {
    const at = await token({ cnf: { jkt } });
    const { error, challenges } = await refused(verifier().authenticate(new Request(RESOURCE, { headers: { authorization: `Bearer ${at}` } })), 'ERR_AUTH_INVALID_TOKEN');
    assert.equal(error.status, 401);
    assert.deepEqual(
      challenges.map((c) => c.scheme),
      ['dpop'],
    );
    assert.equal(challenges[0]?.params['error'], 'invalid_token');
    await refused(verifier().verify(at), 'ERR_AUTH_INVALID_TOKEN');
  });

  it('DPoP-bound token downgraded to Bearer at a verifier without the dpop option: refused too', async () => {
    const v = verifier(null);
    await refused(v.authenticate(new Request(RESOURCE, { headers: { authorization: `Bearer ${await token({ cnf: { jkt } })}` } })), 'ERR_AUTH_INVALID_TOKEN');
    // mTLS-bound (RFC 8705) tokens cannot be checked here either.
    await refused(v.verify(await token({ cnf: { 'x5t#S256': 'abc' } })), 'ERR_AUTH_INVALID_TOKEN');
  });

  it('DPoP scheme with an unbound token (no cnf.jkt): refused', async () => {
    const { challenges } = await refused(verifier().authenticate(await dpopRequest(await token())), 'ERR_AUTH_INVALID_TOKEN');
    assert.equal(challenges[0]?.scheme, 'dpop');
    await refused(verifier().authenticate(await dpopRequest(await token({ cnf: { jkt: 42 } }))), 'ERR_AUTH_INVALID_TOKEN');
  });

  it('stolen token with an attacker key: refused with invalid_dpop_proof', async () => {
    const at = await token({ cnf: { jkt } });
    const thief = createDpopProofer(await generateDpopKey(), () => NOW);
    const { challenges } = await refused(verifier().authenticate(await dpopRequest(at, await thief.proof('POST', RESOURCE, at))), 'ERR_AUTH_INVALID_DPOP_PROOF');
    assert.equal(challenges[0]?.params['error'], 'invalid_dpop_proof');
    assert.equal(challenges[0]?.params['resource_metadata'], PRM);
  });

  it('DPoP token without a proof header: refused with invalid_dpop_proof', async () => {
    await refused(verifier().authenticate(await dpopRequest(await token({ cnf: { jkt } }), null)), 'ERR_AUTH_INVALID_DPOP_PROOF');
  });

  it('bearer token where DPoP is required: refused as "no credentials" with only the DPoP challenge', async () => {
    const v = verifier({ required: true });
    const { error, challenges } = await refused(v.authenticate(new Request(RESOURCE, { headers: { authorization: `Bearer ${await token()}` } })), 'ERR_AUTH_MISSING_TOKEN');
    assert.equal(error.status, 401);
    assert.deepEqual(
      challenges.map((c) => [c.scheme, c.params['error']]),
      [['dpop', undefined]],
    );
    await refused(v.verify(await token()), 'ERR_AUTH_MISSING_TOKEN');
  });

  it('DPoP scheme at a verifier without the dpop option: treated as no bearer token', async () => {
    await refused(verifier(null).authenticate(await dpopRequest(await token({ cnf: { jkt } }))), 'ERR_AUTH_MISSING_TOKEN');
  });

  it('insufficient scope on a DPoP request: 403 with the DPoP challenge, after the proof is checked', async () => {
    const { error, challenges } = await refused(
      verifier().authenticate(await dpopRequest(await token({ cnf: { jkt } })), { requiredScopes: ['mcp:admin'] }),
      'ERR_AUTH_INSUFFICIENT_SCOPE',
    );
    assert.equal(error.status, 403);
    assert.equal(challenges[0]?.scheme, 'dpop');
  });

  it('unsafe configuration: HS256 or none as DPoP algorithms is refused at creation', () => {
    assert.throws(() => verifier({ algorithms: ['HS256'] }), (e: unknown) => isAuthError(e, 'ERR_AUTH_CONFIGURATION'));
    assert.throws(() => verifier({ algorithms: ['none'] }), (e: unknown) => isAuthError(e, 'ERR_AUTH_CONFIGURATION'));
  });
});
