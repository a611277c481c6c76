/**
 * DPoP-bound access tokens (RFC 9449) at the Streamable HTTP server: the `auth` option with a
 * verifier that accepts DPoP, real keys, real proofs from the client's proof generator, and the
 * client transport end to end. Negative cases are named after the attack they stop.
 *
 * @module
 */
import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import * as jose from 'jose';
import { createDpopProofer, generateDpopKey } from '../../../../../src/auth/client/dpop.js';
import { createOAuthClientProvider } from '../../../../../src/auth/client/oauthClientProvider.js';
import { MemoryTokenStore } from '../../../../../src/auth/client/tokenStore.js';
import { allowInsecureRequests } from '../../../../../src/auth/http.js';
import { createBearerVerifier, type DpopVerifierOptions } from '../../../../../src/auth/resource/bearerVerifier.js';
import { createDpopNonceSource } from '../../../../../src/auth/resource/dpopProof.js';
import type { VerifiedPrincipal } from '../../../../../src/auth/resource/principal.js';
import { protectedResourceMetadata } from '../../../../../src/auth/resource/protectedResourceMetadata.js';
import { parseWwwAuthenticate } from '../../../../../src/auth/wwwAuthenticate.js';
import { oauthTransportHooks } from '../../../../../src/cli/oauthTransport.js';
import { Connection } from '../../../../../src/jsonrpc/connection.js';
import { StreamableHttpClientTransport } from '../../../../../src/transport/http/client/client.js';
import { createStreamableHttpHandler, type StreamableHttpServerOptions } from '../../../../../src/transport/http/server/server.js';
import type { HttpExtra, HttpResponseLike } from '../../../../../src/transport/http/server/types.js';
import type { McpDispatcher } from '../../../../../src/transport/types.js';
import { fakeDispatcher, json, post, request } from './support.js';

const RESOURCE = 'http://localhost:3000/mcp';
const ISSUER = 'http://localhost:4000';
const PRM_URL = 'http://localhost:3000/.well-known/oauth-protected-resource/mcp';
const insecure = { [allowInsecureRequests]: true } as const;

const signing = await jose.generateKeyPair('ES256', { extractable: true });
const jwks = { keys: [{ ...(await jose.exportJWK(signing.publicKey)), kid: 'k1', alg: 'ES256' }] };
const clientKey = await generateDpopKey();
const client = createDpopProofer(clientKey);
const jkt = await client.thumbprint();
const thief = createDpopProofer(await generateDpopKey());

async function token(claims: Record<string, unknown> = { cnf: { jkt } }): Promise<string> {
  const now = Math.floor(Date.now() / 1000);
  return new jose.SignJWT({ sub: 'alice', client_id: 'c1', scope: 'mcp:read', iss: ISSUER, aud: RESOURCE, iat: now, exp: now + 300, ...claims })
    .setProtectedHeader({ alg: 'ES256', kid: 'k1', typ: 'at+jwt' })
    .sign(signing.privateKey);
}

function protect(dispatcher: McpDispatcher, dpop: DpopVerifierOptions = {}, options: StreamableHttpServerOptions = {}): ReturnType<typeof createStreamableHttpHandler> {
  const verifier = createBearerVerifier({ resource: RESOURCE, issuers: [ISSUER], jwks, dpop, ...insecure });
  const resourceMetadata = protectedResourceMetadata({
    resource: RESOURCE,
    authorizationServers: [ISSUER],
    scopesSupported: ['mcp:read'],
    dpopSigningAlgValuesSupported: verifier.dpop?.algorithms ?? [],
    dpopBoundAccessTokensRequired: dpop.required === true,
    ...insecure,
  });
  return createStreamableHttpHandler(dispatcher, { ...options, auth: { verifier, resourceMetadata } });
}

/** The headers of a DPoP request for POST /mcp with `at`, the proof made by `proofer` for `method` and `url`. */
async function dpopHeaders(at: string, proofer = client, method = 'POST', url = RESOURCE): Promise<Record<string, string>> {
  return { authorization: `DPoP ${at}`, dpop: await proofer.proof(method, url, at) };
}

function challenges(r: HttpResponseLike): ReturnType<typeof parseWwwAuthenticate> {
  return parseWwwAuthenticate(r.headers['www-authenticate']);
}

function assertDpopRefusal(r: HttpResponseLike, error: string, status = 401): void {
  assert.equal(r.status, status, JSON.stringify(r.headers));
  const [challenge, ...rest] = challenges(r);
  assert.equal(rest.length, 0, 'only the DPoP challenge');
  assert.equal(challenge?.scheme, 'dpop');
  assert.equal(challenge.params['error'], error);
  assert.equal(challenge.params['resource_metadata'], PRM_URL);
  assert.equal(challenge.params['algs'], 'ES256 ES384 PS256 RS256 EdDSA');
  assert.equal(r.headers['cache-control'], 'no-store');
}

describe('http auth with DPoP: positives', () => {
  it('dispatches a DPoP request with env.principal.auth.jkt; handlers cannot read the DPoP or Authorization header', async () => {
    const d = fakeDispatcher();
    const r = await protect(d).handle(post(request('echo'), { ...(await dpopHeaders(await token())), 'x-trace': 't1' }));
    assert.equal(r.status, 200, JSON.stringify(json(r)));
    const extra = d.envs[0]?.extra ?? {};
    assert.equal(d.envs[0]?.principal?.id, 'alice');
    assert.equal((d.envs[0]?.principal?.auth as VerifiedPrincipal).jkt, jkt);
    const http = extra['http'] as HttpExtra;
    for (const name of ['dpop', 'DPoP', 'authorization']) assert.equal(http.getHeader(name), undefined, name);
    assert.equal(http.getHeader('x-trace'), 't1');
  });

  it('advertises DPoP in the Protected Resource Metadata and challenges with Bearer and DPoP', async () => {
    const handler = protect(fakeDispatcher());
    const doc = json(await handler.handle({ method: 'GET', path: '/.well-known/oauth-protected-resource/mcp', header: () => undefined })) as Record<string, unknown>;
    assert.deepEqual(doc['dpop_signing_alg_values_supported'], ['ES256', 'ES384', 'PS256', 'RS256', 'EdDSA']);
    assert.equal(doc['dpop_bound_access_tokens_required'], false);
    const r = await handler.handle(post(request('echo')));
    assert.equal(r.status, 401);
    assert.deepEqual(
      challenges(r).map((c) => [c.scheme, c.params['resource_metadata'], c.params['scope']]),
      [
        ['bearer', PRM_URL, 'mcp:read'],
        ['dpop', PRM_URL, 'mcp:read'],
      ],
    );
  });

  it('unbound bearer tokens still work when DPoP is optional', async () => {
    const d = fakeDispatcher();
    const r = await protect(d).handle(post(request('echo'), { authorization: `Bearer ${await token({})}` }));
    assert.equal(r.status, 200);
    assert.equal((d.envs[0]?.principal?.auth as VerifiedPrincipal).jkt, undefined);
  });

  it('end to end: the client transport with the OAuth provider (DPoP key, DPoP token) answers the use_dpop_nonce challenge and gets through', async () => {
    const d = fakeDispatcher();
    const handler = protect(d, { nonce: createDpopNonceSource() });
    const store = new MemoryTokenStore();
    await store.saveTokens(RESOURCE, { accessToken: await token(), tokenType: 'DPoP', requestedScopes: [], issuer: ISSUER, resource: RESOURCE });
    const provider = createOAuthClientProvider({ serverUrl: RESOURCE, grant: 'client_credentials', store, dpop: clientKey, ...insecure });
    const statuses: number[] = [];
    const transport = new StreamableHttpClientTransport({
      url: RESOURCE,
      fetch: async (url, init) => {
        const response = await handler.fetch(new Request(url, init));
        statuses.push(response.status);
        return response;
      },
      ...oauthTransportHooks(provider),
    });
    const connection = new Connection(transport);
    await connection.start();
    const meta = { 'io.modelcontextprotocol/protocolVersion': '2026-07-28', 'io.modelcontextprotocol/clientCapabilities': {}, 'io.modelcontextprotocol/clientInfo': { name: 't', version: '1' } };
    await connection.request('tools/list', { _meta: meta });
    await connection.request('tools/list', { _meta: meta });
    assert.deepEqual(statuses, [401, 200, 200], 'one nonce round trip, then the remembered nonce is used');
    assert.equal((d.envs[0]?.principal?.auth as VerifiedPrincipal).jkt, jkt);
    await connection.close();
  });
});

describe('http auth with DPoP: attacks', () => {
  it('DPoP-bound token downgraded to Bearer: 401 with the DPoP challenge, nothing dispatched', async () => {
    const d = fakeDispatcher();
    const r = await protect(d).handle(post(request('echo'), { authorization: `Bearer ${await token()}` }));
    assertDpopRefusal(r, 'invalid_token');
    assert.equal(d.envs.length, 0);
  });

  it('stolen token used with the attacker key: 401 invalid_dpop_proof', async () => {
    const d = fakeDispatcher();
    const at = await token();
    const r = await protect(d).handle(post(request('echo'), await dpopHeaders(at, thief)));
    assertDpopRefusal(r, 'invalid_dpop_proof');
    assert.equal(d.envs.length, 0);
  });

  it('proof replay: the same request (token and proof) sent twice is refused the second time', async () => {
    const d = fakeDispatcher();
    const handler = protect(d);
    const headers = await dpopHeaders(await token());
    assert.equal((await handler.handle(post(request('echo'), headers))).status, 200);
    assertDpopRefusal(await handler.handle(post(request('echo'), headers)), 'invalid_dpop_proof');
    assert.equal(d.envs.length, 1);
  });

  it('proof for another method: a proof made for GET is refused on a POST', async () => {
    const at = await token();
    assertDpopRefusal(await protect(fakeDispatcher()).handle(post(request('echo'), await dpopHeaders(at, client, 'GET'))), 'invalid_dpop_proof');
  });

  it('proof for another server or endpoint (htu) is refused', async () => {
    const at = await token();
    for (const url of ['http://localhost:3001/mcp', 'http://localhost:3000/other', 'https://localhost:3000/mcp']) {
      assertDpopRefusal(await protect(fakeDispatcher()).handle(post(request('echo'), await dpopHeaders(at, client, 'POST', url))), 'invalid_dpop_proof');
    }
  });

  it('Host header spoofing cannot move htu: a proof for the spoofed host is refused, one for the configured origin is judged on it', async () => {
    const handler = protect(fakeDispatcher(), {}, { allowedHosts: ['localhost', 'evil.example'] });
    const at = await token();
    const spoofed = await handler.handle(post(request('echo'), { ...(await dpopHeaders(at, client, 'POST', 'http://evil.example/mcp')), host: 'evil.example' }));
    assertDpopRefusal(spoofed, 'invalid_dpop_proof');
    const honest = await handler.handle(post(request('echo'), { ...(await dpopHeaders(at)), host: 'evil.example' }));
    assert.equal(honest.status, 200);
    // Through the web entry the URL authority plays the Host role: same outcome.
    const viaFetch = (headers: Record<string, string>): Promise<Response> =>
      handler.fetch(
        new Request('http://evil.example/mcp', {
          method: 'POST',
          headers: { 'content-type': 'application/json', accept: 'application/json, text/event-stream', 'mcp-protocol-version': '2026-07-28', 'mcp-method': 'echo', ...headers },
          body: JSON.stringify(request('echo')),
        }),
      );
    assert.equal((await viaFetch(await dpopHeaders(at, client, 'POST', 'http://evil.example/mcp'))).status, 401);
    assert.equal((await viaFetch(await dpopHeaders(at))).status, 200);
  });

  it('authority confusion through the request path: a path that is not origin-relative is refused', async () => {
    const handler = protect(fakeDispatcher());
    const r = await handler.handle({ ...post(request('echo'), await dpopHeaders(await token(), client, 'POST', 'http://localhost:3000@evil.example/mcp')), path: '@evil.example/mcp' });
    assert.equal(r.status, 400);
    assert.ok(r.headers['www-authenticate']?.includes('error="invalid_request"'));
  });

  it('two DPoP headers (joined by the adapter): 401 invalid_dpop_proof', async () => {
    const at = await token();
    const proofs = `${await client.proof('POST', RESOURCE, at)}, ${await client.proof('POST', RESOURCE, at)}`;
    assertDpopRefusal(await protect(fakeDispatcher()).handle(post(request('echo'), { authorization: `DPoP ${at}`, dpop: proofs })), 'invalid_dpop_proof');
  });

  it('DPoP token without any proof: 401 invalid_dpop_proof', async () => {
    assertDpopRefusal(await protect(fakeDispatcher()).handle(post(request('echo'), { authorization: `DPoP ${await token()}` })), 'invalid_dpop_proof');
  });

  it('proof bound to another token (ath): 401 invalid_dpop_proof', async () => {
    const at = await token();
    const other = await token({ cnf: { jkt }, jti: 'other' });
    assertDpopRefusal(await protect(fakeDispatcher()).handle(post(request('echo'), { authorization: `DPoP ${at}`, dpop: await client.proof('POST', RESOURCE, other) })), 'invalid_dpop_proof');
  });

  it('missing nonce when required: 401 use_dpop_nonce with a DPoP-Nonce header browsers may read', async () => {
    const nonces = createDpopNonceSource();
    const fresh = createDpopProofer(clientKey);
    const r = await protect(fakeDispatcher(), { nonce: nonces }).handle(post(request('echo'), await dpopHeaders(await token(), fresh)));
    assertDpopRefusal(r, 'use_dpop_nonce');
    assert.equal(r.headers['dpop-nonce'], nonces.current());
    assert.equal(r.headers['access-control-expose-headers'], 'WWW-Authenticate, DPoP-Nonce');
    assert.deepEqual(json(r), { error: 'use_dpop_nonce' });
  });

  it('bearer token where DPoP is required: 401 with only the DPoP challenge', async () => {
    const d = fakeDispatcher();
    const r = await protect(d, { required: true }).handle(post(request('echo'), { authorization: `Bearer ${await token({})}` }));
    assert.equal(r.status, 401);
    assert.deepEqual(
      challenges(r).map((c) => [c.scheme, c.params['error']]),
      [['dpop', undefined]],
    );
    assert.equal(d.envs.length, 0);
  });

  it('misleading metadata: advertising DPoP the verifier does not do is refused at startup', () => {
    const verifier = createBearerVerifier({ resource: RESOURCE, issuers: [ISSUER], jwks, ...insecure });
    for (const extra of [{ dpopSigningAlgValuesSupported: ['ES256'] }, { dpopBoundAccessTokensRequired: true }]) {
      const resourceMetadata = protectedResourceMetadata({ resource: RESOURCE, authorizationServers: [ISSUER], ...extra, ...insecure });
      assert.throws(() => createStreamableHttpHandler(fakeDispatcher(), { auth: { verifier, resourceMetadata } }), TypeError);
    }
  });
});
