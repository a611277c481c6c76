import { describe, it } from 'node:test';
import assert from 'node:assert/strict';
import {
  createAuthorizationRequest,
  followRedirectAuthorizer,
  parseAuthorizationResponse,
  validateAuthorizationResponse,
  type PendingAuthorization,
} from '../../../../src/auth/client/authorization.js';
import type { AuthorizationServerMetadata } from '../../../../src/auth/client/discovery.js';
import { codeChallengeS256 } from '../../../../src/auth/client/pkce.js';
import { isAuthError } from '../../../../src/auth/errors.js';

const ISSUER = 'https://auth.example.test';
const meta = (iss?: boolean): AuthorizationServerMetadata => ({
  issuer: ISSUER,
  authorization_endpoint: `${ISSUER}/authorize`,
  token_endpoint: `${ISSUER}/token`,
  code_challenge_methods_supported: ['S256'],
  ...(iss !== undefined ? { authorization_response_iss_parameter_supported: iss } : {}),
});

async function pending(iss?: boolean): Promise<PendingAuthorization> {
  return createAuthorizationRequest(meta(iss), { clientId: 'c', redirectUri: 'http://127.0.0.1:1/cb', resource: 'https://mcp.example.test/mcp', scopes: ['a', 'b'] });
}

const code = (p: PendingAuthorization, extra: Record<string, string | undefined>) => validateAuthorizationResponse(p, { code: 'the-code', state: p.state, ...extra } as never);
const fails = (fn: () => unknown, errorCode: string) => assert.throws(fn, (e: unknown) => isAuthError(e, errorCode as never));

describe('authorization request and RFC 9207 response validation', () => {
  it('builds the request with PKCE S256, state, resource verbatim and scope', async () => {
    const p = await pending(true);
    const q = p.url.searchParams;
    assert.equal(q.get('response_type'), 'code');
    assert.equal(q.get('code_challenge_method'), 'S256');
    assert.equal(q.get('code_challenge'), await codeChallengeS256(p.codeVerifier));
    assert.equal(q.get('resource'), 'https://mcp.example.test/mcp');
    assert.equal(q.get('scope'), 'a b');
    assert.equal(q.get('state'), p.state);
    assert.ok(p.codeVerifier.length >= 43);
    assert.equal(p.issuer, ISSUER);
  });

  it('omits scope when there is none to request', async () => {
    const p = await createAuthorizationRequest(meta(), { clientId: 'c', redirectUri: 'http://127.0.0.1:1/cb', resource: 'https://mcp.example.test', scopes: [] });
    assert.equal(p.url.searchParams.has('scope'), false);
  });

  it('advertised + matching iss → code', async () => {
    assert.equal(code(await pending(true), { iss: ISSUER }), 'the-code');
  });

  it('not advertised + absent iss → proceed', async () => {
    assert.equal(code(await pending(), {}), 'the-code');
    assert.equal(code(await pending(false), {}), 'the-code');
  });

  it('mix-up: iss of another AS → reject', async () => {
    const p = await pending(true);
    fails(() => code(p, { iss: 'https://evil.example.com' }), 'ERR_AUTH_ISSUER_MISMATCH');
  });

  it('mix-up: iss missing although advertised → reject', async () => {
    const p = await pending(true);
    fails(() => code(p, {}), 'ERR_AUTH_ISSUER_MISMATCH');
  });

  it('mix-up: iss with a trailing slash (normalisation bait) → reject', async () => {
    const p = await pending(true);
    fails(() => code(p, { iss: `${ISSUER}/` }), 'ERR_AUTH_ISSUER_MISMATCH');
  });

  it('mix-up: iss differing only by case, default port or percent-encoding → reject', async () => {
    const p = await pending(true);
    for (const iss of ['https://AUTH.example.test', 'https://auth.example.test:443', 'https://auth%2Eexample.test', 'HTTPS://auth.example.test']) {
      fails(() => code(p, { iss }), 'ERR_AUTH_ISSUER_MISMATCH');
    }
  });

  it('mix-up: unadvertised but present and wrong iss → reject', async () => {
    const p = await pending();
    fails(() => code(p, { iss: 'https://evil.example.com' }), 'ERR_AUTH_ISSUER_MISMATCH');
  });

  it('mix-up on an error response: error fields are not acted on when iss mismatches', async () => {
    const p = await pending(true);
    fails(() => validateAuthorizationResponse(p, { state: p.state, iss: 'https://evil.example.com', error: 'access_denied' }), 'ERR_AUTH_ISSUER_MISMATCH');
  });

  it('CSRF: state mismatch or missing → reject', async () => {
    const p = await pending();
    fails(() => validateAuthorizationResponse(p, { code: 'x', state: 'other' }), 'ERR_AUTH_STATE_MISMATCH');
    fails(() => validateAuthorizationResponse(p, { code: 'x' }), 'ERR_AUTH_STATE_MISMATCH');
  });

  it('parameter pollution: a repeated parameter in the redirect is refused', () => {
    assert.throws(() => parseAuthorizationResponse('http://127.0.0.1/cb?code=a&code=b&state=s'), (e: unknown) => isAuthError(e, 'ERR_AUTH_AUTHORIZATION_FAILED'));
  });

  it('refuses to build a request when S256 is not advertised (downgrade)', async () => {
    await assert.rejects(
      createAuthorizationRequest({ ...meta(), code_challenge_methods_supported: ['plain'] }, { clientId: 'c', redirectUri: 'http://127.0.0.1/cb', resource: 'https://m', scopes: [] }),
      (e: unknown) => isAuthError(e, 'ERR_AUTH_PKCE_UNSUPPORTED'),
    );
  });

  it('followRedirectAuthorizer: a redirect to a different URI than ours is refused (code exfiltration)', async () => {
    const authorizer = followRedirectAuthorizer(async () => new Response(null, { status: 302, headers: { location: 'https://evil.example.test/cb?code=x&state=s' } }));
    await assert.rejects(authorizer(new URL(`${ISSUER}/authorize`), { redirectUri: 'http://127.0.0.1:1/cb' }), (e: unknown) => isAuthError(e, 'ERR_AUTH_AUTHORIZATION_FAILED'));
  });

  it('followRedirectAuthorizer: parses code, state and iss from Location', async () => {
    const authorizer = followRedirectAuthorizer(async () => new Response(null, { status: 302, headers: { location: `http://127.0.0.1:1/cb?code=x&state=s&iss=${encodeURIComponent(ISSUER)}` } }));
    assert.deepEqual(await authorizer(new URL(`${ISSUER}/authorize`), { redirectUri: 'http://127.0.0.1:1/cb' }), { code: 'x', state: 's', iss: ISSUER });
  });
});
