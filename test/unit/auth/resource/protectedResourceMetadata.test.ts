import { describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { protectedResourceMetadata } from '../../../../src/auth/resource/protectedResourceMetadata.js';
import { isAuthorizedFor, scopesForRequest } from '../../../../src/auth/resource/scopesForRequest.js';
import { allowInsecureRequests } from '../../../../src/auth/http.js';

describe('protectedResourceMetadata', () => {
  const prm = protectedResourceMetadata({ resource: 'https://mcp.example.test/mcp', authorizationServers: ['https://auth.example.test'], scopesSupported: ['mcp:read'] });

  it('builds the RFC 9728 document with header-only bearer methods', () => {
    assert.deepEqual(prm.document, {
      resource: 'https://mcp.example.test/mcp',
      authorization_servers: ['https://auth.example.test'],
      bearer_methods_supported: ['header'],
      scopes_supported: ['mcp:read'],
    });
    assert.equal(prm.metadataUrl, 'https://mcp.example.test/.well-known/oauth-protected-resource/mcp');
    assert.deepEqual(prm.wellKnownPaths, ['/.well-known/oauth-protected-resource/mcp', '/.well-known/oauth-protected-resource']);
  });

  it('serves the document at both well-known paths and nothing else', async () => {
    for (const path of prm.wellKnownPaths) {
      const response = prm.handle(new Request(`https://mcp.example.test${path}`));
      assert.equal(response?.status, 200);
      assert.equal(((await response?.json()) as { resource: string }).resource, 'https://mcp.example.test/mcp');
    }
    assert.equal(prm.handle(new Request('https://mcp.example.test/mcp')), undefined);
  });

  it('refuses insecure or ambiguous resources and offline_access in scopes_supported', () => {
    assert.throws(() => protectedResourceMetadata({ resource: 'http://mcp.example.test/mcp', authorizationServers: ['https://a'] }));
    assert.throws(() => protectedResourceMetadata({ resource: 'https://mcp.example.test/mcp#f', authorizationServers: ['https://a'] }));
    assert.throws(() => protectedResourceMetadata({ resource: 'https://mcp.example.test/mcp', authorizationServers: [] }));
    assert.throws(() => protectedResourceMetadata({ resource: 'https://mcp.example.test/mcp', authorizationServers: ['https://a'], scopesSupported: ['offline_access'] }));
    assert.doesNotThrow(() => protectedResourceMetadata({ resource: 'http://localhost:3000/mcp', authorizationServers: ['http://localhost:3001'], [allowInsecureRequests]: true }));
  });
});

describe('scopesForRequest', () => {
  const policy = {
    always: ['mcp'],
    methods: { 'tools/list': ['mcp:read'], 'tools/call': ['mcp:read'] },
    tools: { delete_repo: ['repo:admin'] },
    default: ['mcp:read'],
    implies: { 'repo:admin': ['repo:write'], 'repo:write': ['mcp:read'] },
  };

  it('unions always, method and tool scopes', () => {
    assert.deepEqual(scopesForRequest(policy, { method: 'tools/call', params: { name: 'delete_repo' } }), ['mcp', 'mcp:read', 'repo:admin']);
    assert.deepEqual(scopesForRequest(policy, { method: 'prompts/list' }), ['mcp', 'mcp:read']);
  });

  it('honours hierarchies', () => {
    assert.ok(isAuthorizedFor(policy, ['mcp', 'repo:admin'], { method: 'tools/call', params: { name: 'delete_repo' } }));
    assert.ok(!isAuthorizedFor(policy, ['mcp', 'repo:write'], { method: 'tools/call', params: { name: 'delete_repo' } }));
  });

  it('prototype pollution: a tool named __proto__ or constructor gets no inherited scopes', () => {
    assert.deepEqual(scopesForRequest(policy, { method: 'tools/call', params: { name: '__proto__' } }), ['mcp', 'mcp:read']);
    assert.deepEqual(scopesForRequest(policy, { method: 'constructor' }), ['mcp', 'mcp:read']);
  });
});
