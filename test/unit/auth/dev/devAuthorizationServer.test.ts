import { describe, it, beforeEach } from 'node:test';
import assert from 'node:assert/strict';
import { createDevAuthorizationServer, type DevAuthorizationServer } from '../../../../src/auth/dev/devAuthorizationServer.js';
import { createPkce } from '../../../../src/auth/client/pkce.js';
import { dispatcher, type Handler } from '../helpers.js';

const ISSUER = 'https://auth.example.test/tenant1';
const REDIRECT = 'http://127.0.0.1:4000/cb';
const RESOURCE = 'https://mcp.example.test/mcp';

let as: DevAuthorizationServer;
let fetch: ReturnType<typeof dispatcher>;
const routes: Record<string, Handler> = {};

const form = (params: Record<string, string>): RequestInit => ({
  method: 'POST',
  headers: { 'content-type': 'application/x-www-form-urlencoded' },
  body: new URLSearchParams(params).toString(),
});

async function authorize(extra: Record<string, string> = {}): Promise<{ code: string; verifier: string; location: URL }> {
  const pkce = await createPkce();
  const url = new URL(`${ISSUER}/authorize`);
  const params = { response_type: 'code', client_id: 'pub', redirect_uri: REDIRECT, state: 'st', code_challenge: pkce.codeChallenge, code_challenge_method: 'S256', resource: RESOURCE, scope: 'mcp:read', ...extra };
  for (const [k, v] of Object.entries(params)) url.searchParams.set(k, v);
  const response = await fetch(url, { redirect: 'manual' });
  assert.equal(response.status, 302);
  const location = new URL(response.headers.get('location') ?? '');
  return { code: location.searchParams.get('code') ?? '', verifier: pkce.codeVerifier, location };
}

const redeem = (code: string, verifier: string, extra: Record<string, string> = {}): Promise<Response> =>
  fetch(`${ISSUER}/token`, form({ grant_type: 'authorization_code', code, code_verifier: verifier, redirect_uri: REDIRECT, client_id: 'pub', resource: RESOURCE, ...extra }));

describe('dev authorization server', () => {
  beforeEach(async () => {
    fetch = dispatcher(routes);
    as = await createDevAuthorizationServer({ issuer: ISSUER, fetch, clients: [{ clientId: 'pub', redirectUris: [REDIRECT] }] });
    routes['https://auth.example.test'] = as.handler;
  });

  it('serves RFC 8414 metadata at the path-inserted well-known URL', async () => {
    const response = await fetch('https://auth.example.test/.well-known/oauth-authorization-server/tenant1');
    const doc = (await response.json()) as Record<string, unknown>;
    assert.equal(doc['issuer'], ISSUER);
    assert.deepEqual(doc['code_challenge_methods_supported'], ['S256']);
    assert.equal(doc['authorization_response_iss_parameter_supported'], true);
    assert.equal(doc['client_id_metadata_document_supported'], true);
  });

  it('auto-approves with code, state and iss; issues an ES256 token with aud = resource', async () => {
    const { code, verifier, location } = await authorize();
    assert.equal(location.searchParams.get('state'), 'st');
    assert.equal(location.searchParams.get('iss'), ISSUER);
    const response = await redeem(code, verifier);
    assert.equal(response.status, 200);
    const body = (await response.json()) as { access_token: string; refresh_token: string };
    const [header, payload] = body.access_token.split('.').slice(0, 2).map((p) => JSON.parse(Buffer.from(p, 'base64url').toString()) as Record<string, unknown>);
    assert.equal(header?.['alg'], 'ES256');
    assert.equal(payload?.['aud'], RESOURCE);
    assert.ok(body.refresh_token);
  });

  it('open redirect: an unregistered redirect URI is answered with 400, never redirected to', async () => {
    const url = new URL(`${ISSUER}/authorize`);
    for (const [k, v] of Object.entries({ response_type: 'code', client_id: 'pub', redirect_uri: 'https://evil.example.test/cb', state: 's', code_challenge: 'x'.repeat(43), code_challenge_method: 'S256', resource: RESOURCE })) url.searchParams.set(k, v);
    const response = await fetch(url, { redirect: 'manual' });
    assert.equal(response.status, 400);
    assert.equal(response.headers.get('location'), null);
  });

  it('open redirect: a redirect URI differing only by a trailing path segment is refused', async () => {
    const url = new URL(`${ISSUER}/authorize`);
    for (const [k, v] of Object.entries({ response_type: 'code', client_id: 'pub', redirect_uri: `${REDIRECT}/../evil`, code_challenge: 'x'.repeat(43), code_challenge_method: 'S256', resource: RESOURCE })) url.searchParams.set(k, v);
    assert.equal((await fetch(url, { redirect: 'manual' })).status, 400);
  });

  it('code interception without PKCE: a request lacking S256 gets an error redirect, no code', async () => {
    const { location } = await authorize({ code_challenge_method: 'plain' });
    assert.equal(location.searchParams.get('error'), 'invalid_request');
    assert.equal(location.searchParams.get('code'), null);
  });

  it('code replay: the second redemption fails and revokes what the first produced', async () => {
    const { code, verifier } = await authorize();
    const first = (await (await redeem(code, verifier)).json()) as { refresh_token: string };
    const second = await redeem(code, verifier);
    assert.equal(second.status, 400);
    assert.equal(((await second.json()) as { error: string }).error, 'invalid_grant');
    const refresh = await fetch(`${ISSUER}/token`, form({ grant_type: 'refresh_token', refresh_token: first.refresh_token, client_id: 'pub' }));
    assert.equal(refresh.status, 400, 'tokens from a replayed code are revoked');
  });

  it('PKCE verifier mismatch (stolen code) → invalid_grant', async () => {
    const { code } = await authorize();
    const other = await createPkce();
    const response = await redeem(code, other.codeVerifier);
    assert.equal(response.status, 400);
    assert.equal(((await response.json()) as { error: string }).error, 'invalid_grant');
  });

  it('token audience swap: redeeming with a different resource → invalid_target', async () => {
    const { code, verifier } = await authorize();
    const response = await redeem(code, verifier, { resource: 'https://other.example.test/mcp' });
    assert.equal(((await response.json()) as { error: string }).error, 'invalid_target');
  });

  it('refresh token rotation: reuse of a rotated token revokes the whole family', async () => {
    const { code, verifier } = await authorize();
    const first = (await (await redeem(code, verifier)).json()) as { refresh_token: string };
    const rotated = (await (await fetch(`${ISSUER}/token`, form({ grant_type: 'refresh_token', refresh_token: first.refresh_token, client_id: 'pub' }))).json()) as { refresh_token: string };
    assert.notEqual(rotated.refresh_token, first.refresh_token);
    const reuse = await fetch(`${ISSUER}/token`, form({ grant_type: 'refresh_token', refresh_token: first.refresh_token, client_id: 'pub' }));
    assert.equal(reuse.status, 400);
    const legit = await fetch(`${ISSUER}/token`, form({ grant_type: 'refresh_token', refresh_token: rotated.refresh_token, client_id: 'pub' }));
    assert.equal(legit.status, 400, 'the family is revoked after reuse');
  });

  it('client_credentials for a public client is refused', async () => {
    const response = await fetch(`${ISSUER}/token`, form({ grant_type: 'client_credentials', client_id: 'pub', resource: RESOURCE }));
    assert.equal(response.status, 400);
  });

  it('client impersonation: a wrong client secret → 401 invalid_client', async () => {
    as.registerClient({ clientId: 'conf', clientSecret: 'right', redirectUris: [], grantTypes: ['client_credentials'] });
    const response = await fetch(`${ISSUER}/token`, {
      ...form({ grant_type: 'client_credentials', resource: RESOURCE }),
      headers: { 'content-type': 'application/x-www-form-urlencoded', authorization: `Basic ${btoa('conf:wrong')}` },
    });
    assert.equal(response.status, 401);
  });

  it('DCR: a web client with a localhost redirect is refused; native is accepted', async () => {
    const web = await fetch(`${ISSUER}/register`, { method: 'POST', headers: { 'content-type': 'application/json' }, body: JSON.stringify({ client_name: 'x', redirect_uris: [REDIRECT], application_type: 'web' }) });
    assert.equal(web.status, 400);
    const native = await fetch(`${ISSUER}/register`, { method: 'POST', headers: { 'content-type': 'application/json' }, body: JSON.stringify({ client_name: 'x', redirect_uris: [REDIRECT], application_type: 'native', token_endpoint_auth_method: 'none' }) });
    assert.equal(native.status, 201);
  });

  it('CIMD impersonation: a document whose client_id differs from its URL is refused', async () => {
    routes['https://client.example.test'] = () => Response.json({ client_id: 'https://victim.example.test/client.json', client_name: 'x', redirect_uris: [REDIRECT] });
    const url = new URL(`${ISSUER}/authorize`);
    for (const [k, v] of Object.entries({ response_type: 'code', client_id: 'https://client.example.test/client.json', redirect_uri: REDIRECT, code_challenge: 'x'.repeat(43), code_challenge_method: 'S256', resource: RESOURCE })) url.searchParams.set(k, v);
    const response = await fetch(url, { redirect: 'manual' });
    assert.equal(response.status, 400);
    assert.equal(response.headers.get('location'), null);
  });
});
