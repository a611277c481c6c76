// The host's OAuth wiring per remote server: own tokens on own requests, and an unattended host
// that needs a sign-in fails with ERR_MCP_LOGIN_REQUIRED before it contacts anyone.
import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { downstreamOAuth, unconfiguredOAuthHooks, type DownstreamOAuthOptions } from '../../../src/adapters/hostOAuth.js';
import { MemoryTokenStore, type TokenSet } from '../../../src/auth/client/tokenStore.js';
import type { DownstreamSpec } from '../../../src/host/spec.js';
import { McpError } from '../../../src/util/errors.js';

const spec = (id: string, url: string, oauth: DownstreamSpec['options']['oauth'] = { clientId: undefined, scopes: undefined, redirectPort: undefined }): DownstreamSpec => ({
  id,
  launch: { kind: 'http', url, headers: {} },
  options: { tools: { allow: undefined, deny: [] }, timeoutMs: 1000, maxConcurrency: 1, era: 'auto', oauth },
});
const tokens = (accessToken: string, refresh: boolean): TokenSet => ({
  accessToken,
  tokenType: 'Bearer',
  requestedScopes: [],
  issuer: 'https://as.example.com',
  resource: 'https://a.example.com/mcp',
  ...(refresh ? { refreshToken: 'r' } : {}),
});

function wiring(stores: Map<string, MemoryTokenStore>): { options: DownstreamOAuthOptions; fetched: string[] } {
  const fetched: string[] = [];
  return {
    fetched,
    options: {
      store: (url) => {
        let store = stores.get(url);
        if (store === undefined) stores.set(url, (store = new MemoryTokenStore()));
        return store;
      },
      redirectUri: () => 'http://127.0.0.1:33418/callback',
      fetch: async (input) => {
        fetched.push(String(input));
        return new Response('{}', { status: 404 });
      },
    },
  };
}

const challenge = { status: 401, wwwAuthenticate: 'Bearer resource_metadata="https://a.example.com/.well-known/oauth-protected-resource/mcp"' } as const;
const loginRequired = (id: string) => (error: unknown) => error instanceof McpError && error.code === 'ERR_MCP_LOGIN_REQUIRED' && error.message.includes(`switchboard login ${id}`);

describe('adapters/hostOAuth', () => {
  it('a stdio server, or a remote one without an oauth section, gets no OAuth client', () => {
    const { options } = wiring(new Map());
    const plain = spec('a', 'https://a.example.com/mcp');
    assert.equal(downstreamOAuth({ ...plain, options: { ...plain.options, oauth: undefined } }, options), undefined);
    assert.equal(downstreamOAuth({ ...spec('s', 'https://x'), launch: { kind: 'stdio', command: 'x', args: [], env: {}, cwd: undefined } }, options), undefined);
  });

  it('each server sends its own token and only its own', async () => {
    const stores = new Map<string, MemoryTokenStore>();
    const { options } = wiring(stores);
    const a = downstreamOAuth(spec('a', 'https://a.example.com/mcp'), options);
    const b = downstreamOAuth(spec('b', 'https://b.example.com/mcp'), options);
    await a?.store.saveTokens('https://a.example.com/mcp', tokens('token-a', true));
    assert.deepEqual(await a?.hooks.authorizationHeaders('POST', 'https://a.example.com/mcp'), { authorization: 'Bearer token-a' });
    assert.deepEqual(await b?.hooks.authorizationHeaders('POST', 'https://b.example.com/mcp'), {}, 'server b got server a\'s token');
  });

  it('unattended sign-in: no token and a 401 fail with ERR_MCP_LOGIN_REQUIRED, without registering or contacting the AS', async () => {
    const { options, fetched } = wiring(new Map());
    const a = downstreamOAuth(spec('a', 'https://a.example.com/mcp'), options);
    await assert.rejects(a?.hooks.onUnauthorized(challenge) ?? Promise.resolve(), loginRequired('a'));
    assert.deepEqual(fetched, []);
  });

  it('unattended sign-in: an access token without a refresh token, refused with 401, needs a sign-in too', async () => {
    const { options, fetched } = wiring(new Map());
    const a = downstreamOAuth(spec('a', 'https://a.example.com/mcp'), { ...options, loginHint: (id) => `run \`switchboard login ${id} --config /x.json\`` });
    await a?.store.saveTokens('https://a.example.com/mcp', tokens('stale', false));
    await assert.rejects(a?.hooks.onUnauthorized(challenge) ?? Promise.resolve(), (error) => loginRequired('a')(error) && /--config \/x\.json/.test((error as Error).message));
    assert.deepEqual(fetched, []);
  });

  it('a remote server without an oauth section: a Bearer 401 is a needs-login hint, anything else stays an HTTP error', async () => {
    const plain = spec('u', 'https://u.example.com/mcp');
    const unset = { ...plain, options: { ...plain.options, oauth: undefined } };
    const hooks = unconfiguredOAuthHooks(unset, 'add "oauth": {}');
    assert.equal(hooks?.authorizationHeaders, undefined, 'no credentials to add: requests go out without an auth step');
    await assert.rejects(hooks?.onUnauthorized(challenge) ?? Promise.resolve(), (error) => error instanceof McpError && error.code === 'ERR_MCP_LOGIN_REQUIRED' && error.message.includes('add "oauth": {}'));
    assert.equal(await hooks?.onUnauthorized({ status: 401, wwwAuthenticate: 'Basic realm="x"' }), false);
    assert.equal(await hooks?.onUnauthorized({ status: 403, wwwAuthenticate: challenge.wwwAuthenticate }), false);
    const withHeader = { ...unset, launch: { kind: 'http' as const, url: 'https://u.example.com/mcp', headers: { Authorization: 'Bearer static' } } };
    assert.equal(unconfiguredOAuthHooks(withHeader, 'x'), undefined, 'a static Authorization header is the server\'s own credential: left alone');
  });
});
