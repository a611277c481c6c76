import { describe, it } from 'node:test';
import assert from 'node:assert/strict';
import * as jose from 'jose';
import { createDpopProofer, generateDpopKey } from '../../../../src/auth/client/dpop.js';
import { jwtBearerGrant, tokenRequest, type TokenEndpointContext } from '../../../../src/auth/client/tokenEndpoint.js';
import type { AuthorizationServerMetadata } from '../../../../src/auth/client/discovery.js';
import { isAuthError } from '../../../../src/auth/errors.js';

const metadata: AuthorizationServerMetadata = { issuer: 'https://as.example.test', token_endpoint: 'https://as.example.test/token' };

describe('DPoP (RFC 9449) and JWT bearer grant (RFC 7523)', () => {
  it('proofs carry typ, jwk, htm, htu without query, iat, jti and ath', async () => {
    const key = await generateDpopKey();
    const proofer = createDpopProofer(key);
    const proof = await proofer.proof('post', 'https://mcp.example.test/mcp?x=1#f', 'the-token');
    const header = jose.decodeProtectedHeader(proof);
    assert.equal(header.typ, 'dpop+jwt');
    assert.equal((header.jwk as Record<string, unknown> | undefined)?.['d'], undefined, 'private key never in the header');
    const { payload } = await jose.jwtVerify(proof, await jose.importJWK(header.jwk as jose.JWK, 'ES256'));
    assert.equal(payload['htm'], 'POST');
    assert.equal(payload['htu'], 'https://mcp.example.test/mcp');
    assert.equal(payload['ath'], Buffer.from(await crypto.subtle.digest('SHA-256', new TextEncoder().encode('the-token'))).toString('base64url'));
    assert.ok(typeof payload.jti === 'string' && payload.jti.length > 10);
  });

  it('token request retries once with the server nonce on use_dpop_nonce', async () => {
    const proofer = createDpopProofer(await generateDpopKey());
    const seen: (string | undefined)[] = [];
    const ctx: TokenEndpointContext = {
      metadata,
      client: { issuer: metadata.issuer, clientId: 'c', tokenEndpointAuthMethod: 'none', source: 'dcr' },
      dpop: proofer,
      fetch: async (_url, init) => {
        const proof = new Headers(init?.headers).get('dpop') ?? '';
        const nonce = jose.decodeJwt(proof)['nonce'] as string | undefined;
        seen.push(nonce);
        if (nonce !== 'n-1') return Response.json({ error: 'use_dpop_nonce' }, { status: 400, headers: { 'dpop-nonce': 'n-1' } });
        return Response.json({ access_token: 'at', token_type: 'DPoP', expires_in: 60 });
      },
    };
    const response = await tokenRequest(ctx, { grant_type: 'client_credentials' });
    assert.equal(response.token_type, 'DPoP');
    assert.deepEqual(seen, [undefined, 'n-1']);
  });

  it('nonce loop: a server that keeps demanding a new nonce gets one retry only', async () => {
    const proofer = createDpopProofer(await generateDpopKey());
    let calls = 0;
    const ctx: TokenEndpointContext = {
      metadata,
      client: { issuer: metadata.issuer, clientId: 'c', tokenEndpointAuthMethod: 'none', source: 'dcr' },
      dpop: proofer,
      fetch: async () => Response.json({ error: 'use_dpop_nonce' }, { status: 400, headers: { 'dpop-nonce': `n-${++calls}` } }),
    };
    await assert.rejects(tokenRequest(ctx, { grant_type: 'client_credentials' }), (e: unknown) => isAuthError(e, 'ERR_AUTH_TOKEN_REQUEST_FAILED'));
    assert.equal(calls, 2);
  });

  it('token type downgrade: a DPoP token_type without a DPoP key is refused', async () => {
    const ctx: TokenEndpointContext = {
      metadata,
      client: { issuer: metadata.issuer, clientId: 'c', tokenEndpointAuthMethod: 'none', source: 'dcr' },
      fetch: async () => Response.json({ access_token: 'at', token_type: 'DPoP' }),
    };
    await assert.rejects(tokenRequest(ctx, { grant_type: 'client_credentials' }), (e: unknown) => isAuthError(e, 'ERR_AUTH_TOKEN_REQUEST_FAILED'));
  });

  it('JWT bearer grant posts the assertion with resource', async () => {
    let body: URLSearchParams | undefined;
    const ctx: TokenEndpointContext = {
      metadata,
      client: { issuer: metadata.issuer, clientId: 'wl', tokenEndpointAuthMethod: 'none', source: 'pre-registered' },
      fetch: async (_url, init) => {
        body = new URLSearchParams(String(init?.body));
        return Response.json({ access_token: 'at', token_type: 'Bearer' });
      },
    };
    await jwtBearerGrant(ctx, { assertion: 'eyJ.workload.jwt', resource: 'https://mcp.example.test/mcp', scopes: ['mcp:read'] });
    assert.equal(body?.get('grant_type'), 'urn:ietf:params:oauth:grant-type:jwt-bearer');
    assert.equal(body?.get('assertion'), 'eyJ.workload.jwt');
    assert.equal(body?.get('resource'), 'https://mcp.example.test/mcp');
  });
});
