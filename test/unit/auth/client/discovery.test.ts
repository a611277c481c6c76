import { describe, it } from 'node:test';
import assert from 'node:assert/strict';
import {
  authorizationServerMetadataCandidates,
  discoverAuthorizationServer,
  discoverProtectedResource,
  protectedResourceMetadataCandidates,
  resourceMatchesServer,
} from '../../../../src/auth/client/discovery.js';
import { allowInsecureRequests } from '../../../../src/auth/http.js';
import { isAuthError } from '../../../../src/auth/errors.js';
import { dispatcher } from '../helpers.js';

const asDoc = (issuer: string, extra: Record<string, unknown> = {}) => ({
  issuer,
  authorization_endpoint: 'https://as.example.test/authorize',
  token_endpoint: 'https://as.example.test/token',
  code_challenge_methods_supported: ['S256'],
  ...extra,
});

describe('discovery', () => {
  it('PRM candidates: path-based first, then root', () => {
    assert.deepEqual(protectedResourceMetadataCandidates('https://h.test/mcp'), ['https://h.test/.well-known/oauth-protected-resource/mcp', 'https://h.test/.well-known/oauth-protected-resource']);
    assert.deepEqual(protectedResourceMetadataCandidates('https://h.test'), ['https://h.test/.well-known/oauth-protected-resource']);
  });

  it('AS candidates: RFC 8414 and OIDC with path insertion, in the spec order', () => {
    assert.deepEqual(authorizationServerMetadataCandidates('https://as.test/tenant1'), [
      'https://as.test/.well-known/oauth-authorization-server/tenant1',
      'https://as.test/.well-known/openid-configuration/tenant1',
      'https://as.test/tenant1/.well-known/openid-configuration',
    ]);
    assert.deepEqual(authorizationServerMetadataCandidates('https://as.test'), ['https://as.test/.well-known/oauth-authorization-server', 'https://as.test/.well-known/openid-configuration']);
  });

  it('falls back through the AS candidates and never requests the root document for a path issuer', async () => {
    const f = dispatcher({ 'https://as.example.test': (r) => (r.url.endsWith('/tenant1/.well-known/openid-configuration') ? Response.json(asDoc('https://as.example.test/tenant1')) : new Response(null, { status: 404 })) });
    const meta = await discoverAuthorizationServer('https://as.example.test/tenant1', { fetch: f });
    assert.equal(meta.issuer, 'https://as.example.test/tenant1');
    assert.equal(f.log.length, 3);
    assert.ok(!f.log.includes('GET https://as.example.test/.well-known/oauth-authorization-server'));
  });

  it('uses the challenge resource_metadata URL first', async () => {
    const f = dispatcher({ 'https://mcp.example.test': () => Response.json({ resource: 'https://mcp.example.test/mcp', authorization_servers: ['https://as.example.test'] }) });
    const { url } = await discoverProtectedResource('https://mcp.example.test/mcp', 'https://mcp.example.test/custom-prm', { fetch: f });
    assert.equal(url, 'https://mcp.example.test/custom-prm');
    assert.equal(f.log.length, 1);
  });

  it('resource matching: same origin and path prefix; case and default port tolerated', () => {
    assert.ok(resourceMatchesServer('https://mcp.example.test/mcp', 'https://mcp.example.test/mcp'));
    assert.ok(resourceMatchesServer('https://mcp.example.test', 'https://mcp.example.test/mcp'));
    assert.ok(resourceMatchesServer('HTTPS://MCP.example.test:443/mcp', 'https://mcp.example.test/mcp'));
  });

  it('resource mismatch attack: another host, a sibling path, a prefix trick or a query → no match', () => {
    assert.ok(!resourceMatchesServer('https://evil.example.com/mcp', 'https://mcp.example.test/mcp'));
    assert.ok(!resourceMatchesServer('https://mcp.example.test/other', 'https://mcp.example.test/mcp'));
    assert.ok(!resourceMatchesServer('https://mcp.example.test/m', 'https://mcp.example.test/mcp'));
    assert.ok(!resourceMatchesServer('https://mcp.example.test.evil.com/mcp', 'https://mcp.example.test/mcp'));
    assert.ok(!resourceMatchesServer('https://mcp.example.test/mcp?x=1', 'https://mcp.example.test/mcp'));
    assert.ok(!resourceMatchesServer('http://mcp.example.test/mcp', 'https://mcp.example.test/mcp'));
  });

  it('resource mismatch attack: discovery aborts with ERR_AUTH_RESOURCE_MISMATCH', async () => {
    const f = dispatcher({ 'https://mcp.example.test': () => Response.json({ resource: 'https://evil.example.com/mcp', authorization_servers: ['https://as.example.test'] }) });
    await assert.rejects(discoverProtectedResource('https://mcp.example.test/mcp', undefined, { fetch: f }), (e: unknown) => isAuthError(e, 'ERR_AUTH_RESOURCE_MISMATCH'));
  });

  it('AS metadata issuer mismatch (poisoned metadata) → abort, no further candidates', async () => {
    const f = dispatcher({ 'https://as.example.test': () => Response.json(asDoc('https://attacker.example.com')) });
    await assert.rejects(discoverAuthorizationServer('https://as.example.test', { fetch: f }), (e: unknown) => isAuthError(e, 'ERR_AUTH_ISSUER_MISMATCH'));
    assert.equal(f.log.length, 1);
  });

  it('AS metadata issuer differing by a trailing slash → mismatch', async () => {
    const f = dispatcher({ 'https://as.example.test': () => Response.json(asDoc('https://as.example.test/')) });
    await assert.rejects(discoverAuthorizationServer('https://as.example.test', { fetch: f }), (e: unknown) => isAuthError(e, 'ERR_AUTH_ISSUER_MISMATCH'));
  });

  it('PKCE downgrade: metadata without code_challenge_methods_supported or without S256 → refuse', async () => {
    for (const extra of [{ code_challenge_methods_supported: undefined }, { code_challenge_methods_supported: ['plain'] }]) {
      const f = dispatcher({ 'https://as.example.test': () => Response.json(asDoc('https://as.example.test', extra)) });
      await assert.rejects(discoverAuthorizationServer('https://as.example.test', { fetch: f }), (e: unknown) => isAuthError(e, 'ERR_AUTH_PKCE_UNSUPPORTED'));
    }
  });

  it('insecure transport: http issuers and endpoints are refused unless the symbol switch is set', async () => {
    await assert.rejects(discoverAuthorizationServer('http://as.example.test', { fetch: dispatcher({}) }), (e: unknown) => isAuthError(e, 'ERR_AUTH_INSECURE_URL'));
    const f = dispatcher({ 'https://as.example.test': () => Response.json(asDoc('https://as.example.test', { token_endpoint: 'http://as.example.test/token' })) });
    await assert.rejects(discoverAuthorizationServer('https://as.example.test', { fetch: f }), (e: unknown) => isAuthError(e, 'ERR_AUTH_INSECURE_URL'));
    const g = dispatcher({ 'http://localhost:9': () => Response.json({ ...asDoc('http://localhost:9'), authorization_endpoint: 'http://localhost:9/a', token_endpoint: 'http://localhost:9/t' }) });
    assert.equal((await discoverAuthorizationServer('http://localhost:9', { fetch: g, [allowInsecureRequests]: true })).issuer, 'http://localhost:9');
  });

  it('PRM without authorization_servers → invalid metadata', async () => {
    const f = dispatcher({ 'https://mcp.example.test': () => Response.json({ resource: 'https://mcp.example.test/mcp', authorization_servers: [] }) });
    await assert.rejects(discoverProtectedResource('https://mcp.example.test/mcp', undefined, { fetch: f }), (e: unknown) => isAuthError(e, 'ERR_AUTH_INVALID_METADATA'));
  });
});
