/**
 * `revokeToken` (RFC 7009) against a recording fetch: client authentication methods, the token
 * type hint, the endpoint policy (https, no redirects), the timeout, and how answers are read.
 */
import { describe, it } from 'node:test';
import assert from 'node:assert/strict';
import type { AuthorizationServerMetadata } from '../../../../src/auth/client/discovery.js';
import type { ClientRegistration } from '../../../../src/auth/client/tokenStore.js';
import { revokeToken, type RevocationContext } from '../../../../src/auth/client/tokenRevocation.js';
import { allowInsecureRequests, type FetchLike } from '../../../../src/auth/http.js';

const T = { timeout: 10_000 };
const METADATA: AuthorizationServerMetadata = { issuer: 'https://as.example', token_endpoint: 'https://as.example/token', revocation_endpoint: 'https://as.example/revoke' };
const PUBLIC: ClientRegistration = { issuer: 'https://as.example', clientId: 'gw', tokenEndpointAuthMethod: 'none', source: 'dcr' };

interface Seen {
  url: string;
  init: RequestInit;
  body: URLSearchParams;
  headers: Record<string, string>;
}

function recording(answer: () => Response | Promise<Response>): { fetch: FetchLike; seen: Seen[] } {
  const seen: Seen[] = [];
  const fetch: FetchLike = async (input, init = {}) => {
    seen.push({ url: String(input), init, body: new URLSearchParams(String(init.body)), headers: init.headers as Record<string, string> });
    return answer();
  };
  return { fetch, seen };
}

const ctx = (fetch: FetchLike, more: Partial<RevocationContext> = {}): RevocationContext => ({ metadata: METADATA, client: PUBLIC, fetch, ...more });

describe('revokeToken (RFC 7009)', T, () => {
  it('posts the token with token_type_hint and client_id for a public client (none)', async () => {
    const { fetch, seen } = recording(() => new Response(null, { status: 200 }));
    assert.deepEqual(await revokeToken(ctx(fetch), 'rt-1', 'refresh_token'), { revoked: true });
    assert.equal(seen.length, 1);
    assert.equal(seen[0]?.url, 'https://as.example/revoke');
    assert.equal(seen[0]?.init.method, 'POST');
    assert.equal(seen[0]?.init.redirect, 'error');
    assert.equal(seen[0]?.body.get('token'), 'rt-1');
    assert.equal(seen[0]?.body.get('token_type_hint'), 'refresh_token');
    assert.equal(seen[0]?.body.get('client_id'), 'gw');
    assert.equal(seen[0]?.headers['authorization'], undefined);
  });

  it('authenticates with client_secret_basic (Authorization header, no secret in the body)', async () => {
    const { fetch, seen } = recording(() => new Response(null, { status: 200 }));
    const client: ClientRegistration = { ...PUBLIC, tokenEndpointAuthMethod: 'client_secret_basic', clientSecret: 's3cret' };
    assert.deepEqual(await revokeToken(ctx(fetch, { client }), 'at-1', 'access_token'), { revoked: true });
    assert.equal(seen[0]?.headers['authorization'], `Basic ${btoa('gw:s3cret')}`);
    assert.equal(seen[0]?.body.get('client_secret'), null);
    assert.equal(seen[0]?.body.get('token_type_hint'), 'access_token');
  });

  it('authenticates with client_secret_post (client_id and client_secret in the body)', async () => {
    const { fetch, seen } = recording(() => new Response(null, { status: 200 }));
    const client: ClientRegistration = { ...PUBLIC, tokenEndpointAuthMethod: 'client_secret_post', clientSecret: 's3cret' };
    await revokeToken(ctx(fetch, { client }), 'rt-1', 'refresh_token');
    assert.equal(seen[0]?.body.get('client_id'), 'gw');
    assert.equal(seen[0]?.body.get('client_secret'), 's3cret');
    assert.equal(seen[0]?.headers['authorization'], undefined);
  });

  it('is unsupported without a revocation_endpoint, and sends nothing', async () => {
    const { fetch, seen } = recording(() => new Response(null, { status: 200 }));
    const { revocation_endpoint: _none, ...metadata } = METADATA;
    const result = await revokeToken(ctx(fetch, { metadata }), 'rt-1', 'refresh_token');
    assert.equal(result.revoked, 'unsupported');
    assert.equal(seen.length, 0);
  });

  it('reads unsupported_token_type as unsupported', async () => {
    const { fetch } = recording(() => Response.json({ error: 'unsupported_token_type' }, { status: 400 }));
    assert.equal((await revokeToken(ctx(fetch), 'rt-1', 'refresh_token')).revoked, 'unsupported');
  });

  it('reports an error answer with its status and error code', async () => {
    const { fetch } = recording(() => Response.json({ error: 'invalid_client', error_description: 'who are you' }, { status: 401 }));
    const result = await revokeToken(ctx(fetch), 'rt-1', 'refresh_token');
    assert.equal(result.revoked, false);
    assert.match('reason' in result ? result.reason : '', /401 invalid_client: who are you/);
  });

  it('reports a network failure instead of throwing', async () => {
    const result = await revokeToken(ctx(() => Promise.reject(new TypeError('fetch failed'))), 'rt-1', 'refresh_token');
    assert.deepEqual(result, { revoked: false, reason: 'fetch failed' });
  });

  it('gives up after the timeout when the endpoint never answers', async () => {
    const hanging: FetchLike = (_input, init) =>
      new Promise((_resolve, reject) => {
        init?.signal?.addEventListener('abort', () => reject(init.signal?.reason as Error));
      });
    const started = Date.now();
    const result = await revokeToken(ctx(hanging, { timeoutMs: 100 }), 'rt-1', 'refresh_token');
    assert.equal(result.revoked, false);
    assert.match('reason' in result ? result.reason : '', /did not answer within 100 ms/);
    assert.ok(Date.now() - started < 5_000);
  });

  it('token sent over plain http to a revocation endpoint is refused unless the insecure switch is set', async () => {
    const { fetch, seen } = recording(() => new Response(null, { status: 200 }));
    const metadata = { ...METADATA, revocation_endpoint: 'http://as.example/revoke' };
    const refused = await revokeToken(ctx(fetch, { metadata }), 'rt-1', 'refresh_token');
    assert.equal(refused.revoked, false);
    assert.equal(seen.length, 0, 'the token never left over plain http');
    assert.deepEqual(await revokeToken(ctx(fetch, { metadata, [allowInsecureRequests]: true }), 'rt-1', 'refresh_token'), { revoked: true });
  });
});
