import { describe, it } from 'node:test';
import assert from 'node:assert/strict';
import * as jose from 'jose';
import { createDevAuthorizationServer, type DevAuthorizationServer } from '../../../../src/auth/dev/devAuthorizationServer.js';
import { createOAuthClientProvider, type OAuthClientProviderOptions } from '../../../../src/auth/client/oauthClientProvider.js';
import { followRedirectAuthorizer } from '../../../../src/auth/client/authorization.js';
import { MemoryTokenStore } from '../../../../src/auth/client/tokenStore.js';
import { isAuthError } from '../../../../src/auth/errors.js';
import { MCP_ORIGIN, MCP_URL, callWithAuth, dispatcher, protectedResource, type Handler } from '../helpers.js';

const AS1 = 'https://auth.example.test';
const AS2 = 'https://auth2.example.test';
const REDIRECT = 'http://127.0.0.1:33418/callback';
const CIMD_URL = 'https://client.example.test/client.json';

const policy = {
  methods: { 'tools/list': ['mcp:read'], 'tools/call': ['mcp:read'] },
  tools: { write_file: ['mcp:write'] },
};

interface World {
  as: DevAuthorizationServer;
  fetch: ReturnType<typeof dispatcher>;
  routes: Record<string, Handler>;
  store: MemoryTokenStore;
  clock: { now: number };
  provider(extra?: Partial<OAuthClientProviderOptions>): ReturnType<typeof createOAuthClientProvider>;
}

async function world(opts: { scopesSupported?: string[]; asScopes?: string[]; resource?: string } = {}): Promise<World> {
  const clock = { now: Date.now() };
  const routes: Record<string, Handler> = {};
  const fetch = dispatcher(routes);
  const as = await createDevAuthorizationServer({
    issuer: AS1,
    fetch,
    now: () => clock.now,
    ...(opts.asScopes !== undefined ? { scopesSupported: opts.asScopes } : {}),
  });
  routes[AS1] = as.handler;
  routes[MCP_ORIGIN] = protectedResource({
    issuers: [AS1],
    fetch,
    jwksUrl: as.jwksUri,
    policy,
    scopesSupported: opts.scopesSupported ?? ['mcp:read'],
    ...(opts.resource !== undefined ? { resource: opts.resource } : {}),
    verifier: { now: () => clock.now },
  }).handler;
  routes['https://client.example.test'] = () =>
    Response.json({ client_id: CIMD_URL, client_name: 'Test client', redirect_uris: [REDIRECT], grant_types: ['authorization_code', 'refresh_token'], token_endpoint_auth_method: 'none' });
  const store = new MemoryTokenStore();
  return {
    as,
    fetch,
    routes,
    store,
    clock,
    provider: (extra = {}) =>
      createOAuthClientProvider({
        serverUrl: MCP_URL,
        fetch,
        store,
        redirectUri: REDIRECT,
        authorize: followRedirectAuthorizer(fetch),
        clientMetadata: { client_name: 'Switchboard test' },
        now: () => clock.now,
        ...extra,
      }),
  };
}

const authorizeEvents = (as: DevAuthorizationServer) => as.events.filter((e) => e.endpoint === 'authorize');

describe('OAuth client provider, end to end against the dev AS', () => {
  it('discovery → CIMD → PKCE → token → verified at the resource', async () => {
    const w = await world();
    const provider = w.provider({ clientMetadataUrl: CIMD_URL });
    const response = await callWithAuth(provider, w.fetch, 'tools/list');
    assert.equal(response.status, 200);
    const body = (await response.json()) as { sub: string; scopes: string[] };
    assert.equal(body.sub, 'dev-user');
    assert.deepEqual(body.scopes, ['mcp:read', 'offline_access']);
    const [auth] = authorizeEvents(w.as);
    assert.equal(auth?.clientId, CIMD_URL);
    assert.equal(auth?.params['resource'], MCP_URL);
    assert.equal(auth?.params['code_challenge_method'], 'S256');
    assert.equal(auth?.params['scope'], 'mcp:read offline_access');
    assert.ok(!w.as.events.some((e) => e.endpoint === 'register'), 'CIMD preferred over DCR');
    // discovery order: path-based PRM first, root never needed; RFC 8414 metadata
    assert.ok(w.fetch.log.includes(`GET ${MCP_ORIGIN}/.well-known/oauth-protected-resource/mcp`));
    assert.ok(!w.fetch.log.includes(`GET ${MCP_ORIGIN}/.well-known/oauth-protected-resource`));
    const token = w.as.events.find((e) => e.endpoint === 'token');
    assert.equal(token?.params['resource'], MCP_URL);
    assert.ok(token?.params['code_verifier']);
  });

  it('falls back to DCR with application_type native and refresh_token grant', async () => {
    const w = await world();
    const provider = w.provider();
    assert.equal((await callWithAuth(provider, w.fetch, 'tools/list')).status, 200);
    const client = await w.store.getClient(AS1);
    assert.equal(client?.source, 'dcr');
    assert.equal(client?.issuer, AS1);
    const registration = w.as.events.find((e) => e.endpoint === 'register');
    assert.equal(registration?.params['application_type'], 'native');
    assert.equal(registration?.params['grant_types'], 'authorization_code refresh_token');
  });

  it('uses pre-registered credentials with client_secret_basic', async () => {
    const w = await world();
    w.as.registerClient({ clientId: 'pre-1', clientSecret: 's3cret', redirectUris: [REDIRECT], tokenEndpointAuthMethod: 'client_secret_basic' });
    const provider = w.provider({ preRegistered: { [AS1]: { clientId: 'pre-1', clientSecret: 's3cret' } } });
    assert.equal((await callWithAuth(provider, w.fetch, 'tools/list')).status, 200);
    assert.equal(w.as.events.find((e) => e.endpoint === 'token')?.clientId, 'pre-1');
  });

  it('refreshes before expiry, and re-authorizes without re-registering when the refresh token is rejected', async () => {
    const w = await world();
    const provider = w.provider();
    assert.equal((await callWithAuth(provider, w.fetch, 'tools/list')).status, 200);
    const first = await w.store.getTokens(MCP_URL);
    const clientId = (await w.store.getClient(AS1))?.clientId;
    w.clock.now += 280_000; // within the 60 s refresh skew of a 300 s token
    const token = await provider.getAccessToken();
    assert.notEqual(token, first?.accessToken);
    const second = await w.store.getTokens(MCP_URL);
    assert.notEqual(second?.refreshToken, first?.refreshToken, 'refresh token rotated');
    // Kill the refresh token family by replaying the old one (reuse detection), then expire.
    const replay = await w.fetch(`${AS1}/token`, {
      method: 'POST',
      headers: { 'content-type': 'application/x-www-form-urlencoded' },
      body: new URLSearchParams({ grant_type: 'refresh_token', refresh_token: first?.refreshToken ?? '', client_id: clientId ?? '' }).toString(),
    });
    assert.equal(replay.status, 400);
    w.clock.now += 600_000;
    assert.equal(await provider.getAccessToken(), undefined, 'dead refresh token: no token');
    assert.equal((await callWithAuth(provider, w.fetch, 'tools/list')).status, 200);
    assert.equal(w.as.events.filter((e) => e.endpoint === 'register').length, 1, 'registration kept');
    assert.equal(authorizeEvents(w.as).length, 2);
  });

  it('refresh token reuse: concurrent requests with an expiring token refresh once, so the AS never sees a replay (family kept)', async () => {
    const w = await world();
    const provider = w.provider();
    assert.equal((await callWithAuth(provider, w.fetch, 'tools/list')).status, 200);
    w.clock.now += 280_000;
    const tokens = await Promise.all([provider.getAccessToken(), provider.getAccessToken(), provider.authorizationHeaders('POST', MCP_URL)]);
    const refreshes = w.as.events.filter((e) => e.endpoint === 'token' && e.params['grant_type'] === 'refresh_token');
    assert.equal(refreshes.length, 1);
    assert.ok(tokens[0] !== undefined && tokens[0] === tokens[1]);
    assert.deepEqual(tokens[2], { authorization: `Bearer ${tokens[0]}` });
    w.clock.now += 280_000;
    assert.notEqual(await provider.getAccessToken(), undefined, 'the rotated refresh token still works: no family revocation');
  });

  it('concurrent challenges share one authorization (one user agent, one redirect listener)', async () => {
    const w = await world();
    const inner = followRedirectAuthorizer(w.fetch);
    let calls = 0;
    let entered!: () => void;
    const inAuthorize = new Promise<void>((resolve) => (entered = resolve));
    let release!: () => void;
    const approved = new Promise<void>((resolve) => (release = resolve));
    const provider = w.provider({
      authorize: async (url, context) => {
        calls++;
        entered();
        await approved;
        return inner(url, context);
      },
    });
    // The second challenge reads the store right before it decides whether to authorize.
    let secondReadStore!: () => void;
    const secondAtDecision = new Promise<void>((resolve) => (secondReadStore = resolve));
    const getTokens = w.store.getTokens.bind(w.store);
    const probe = await w.fetch(MCP_URL, { method: 'POST', headers: { 'content-type': 'application/json' }, body: '{"jsonrpc":"2.0","id":1,"method":"tools/list"}' });
    const challenge = { status: probe.status, wwwAuthenticate: probe.headers.get('www-authenticate') };
    const first = provider.handleChallenge(challenge);
    await inAuthorize;
    w.store.getTokens = async (url) => {
      const tokens = await getTokens(url);
      secondReadStore();
      return tokens;
    };
    const second = provider.handleChallenge(challenge);
    await secondAtDecision;
    await new Promise((resolve) => setImmediate(resolve));
    // The person approves while both requests wait.
    release();
    assert.deepEqual(await Promise.all([first, second]), [true, true]);
    assert.equal(calls, 1);
    assert.equal(authorizeEvents(w.as).length, 1);
    assert.equal((await callWithAuth(provider, w.fetch, 'tools/list')).status, 200);
  });

  it('client credentials grant with a client secret', async () => {
    const w = await world();
    w.as.registerClient({ clientId: 'svc', clientSecret: 'svc-secret', redirectUris: [], tokenEndpointAuthMethod: 'client_secret_post', grantTypes: ['client_credentials'] });
    const provider = createOAuthClientProvider({
      serverUrl: MCP_URL,
      fetch: w.fetch,
      grant: 'client_credentials',
      preRegistered: { [AS1]: { clientId: 'svc', clientSecret: 'svc-secret', tokenEndpointAuthMethod: 'client_secret_post' } },
    });
    const response = await callWithAuth(provider, w.fetch, 'tools/list');
    assert.equal(response.status, 200);
    assert.equal(((await response.json()) as { sub: string }).sub, 'svc');
    assert.equal(authorizeEvents(w.as).length, 0);
  });

  it('client credentials grant with private_key_jwt', async () => {
    const w = await world();
    const { privateKey, publicKey } = await jose.generateKeyPair('ES256');
    const jwk = { ...(await jose.exportJWK(publicKey)), kid: 'svc-key' };
    w.as.registerClient({ clientId: 'svc-jwt', redirectUris: [], tokenEndpointAuthMethod: 'private_key_jwt', grantTypes: ['client_credentials'], jwks: { keys: [jwk] } });
    const provider = createOAuthClientProvider({
      serverUrl: MCP_URL,
      fetch: w.fetch,
      grant: 'client_credentials',
      preRegistered: { [AS1]: { clientId: 'svc-jwt', privateKey, signingAlg: 'ES256' } },
    });
    assert.equal((await callWithAuth(provider, w.fetch, 'tools/list')).status, 200);
    assert.equal(w.as.events.find((e) => e.endpoint === 'token')?.params['client_assertion_type'], 'urn:ietf:params:oauth:client-assertion-type:jwt-bearer');
  });

  it('step-up: 403 insufficient_scope → re-authorize with the union of requested and challenged scopes', async () => {
    const w = await world();
    const provider = w.provider();
    assert.equal((await callWithAuth(provider, w.fetch, 'tools/list')).status, 200);
    const response = await callWithAuth(provider, w.fetch, 'tools/call', { name: 'write_file' });
    assert.equal(response.status, 200);
    const auths = authorizeEvents(w.as);
    assert.equal(auths.length, 2);
    assert.deepEqual(auths[1]?.params['scope']?.split(' ').sort(), ['mcp:read', 'mcp:write', 'offline_access']);
  });

  it('insufficient-scope loop: at most 3 authorizations, then the 403 is surfaced', async () => {
    const w = await world();
    // The resource always demands a scope the AS never grants.
    const always403: Handler = async (request) => {
      const prm = new URL(request.url).pathname.startsWith('/.well-known/');
      if (prm) return Response.json({ resource: MCP_URL, authorization_servers: [AS1] });
      if (request.headers.get('authorization') === null) {
        return new Response(null, { status: 401, headers: { 'www-authenticate': 'Bearer scope="mcp:read"' } });
      }
      return new Response(null, { status: 403, headers: { 'www-authenticate': 'Bearer error="insufficient_scope", scope="mcp:write"' } });
    };
    w.routes[MCP_ORIGIN] = always403;
    const provider = w.provider();
    for (let i = 0; i < 3; i++) assert.equal((await callWithAuth(provider, w.fetch, 'tools/call', {}, 10)).status, 403);
    assert.equal(authorizeEvents(w.as).length, 3);
  });

  it('AS migration: the first AS client id is never presented to the second AS', async () => {
    const w = await world();
    const provider = w.provider();
    assert.equal((await callWithAuth(provider, w.fetch, 'tools/list')).status, 200);
    const firstClient = (await w.store.getClient(AS1))?.clientId;
    const as2 = await createDevAuthorizationServer({ issuer: AS2, fetch: w.fetch, now: () => w.clock.now });
    w.routes[AS2] = as2.handler;
    w.routes[MCP_ORIGIN] = protectedResource({ issuers: [AS2], fetch: w.fetch, jwksUrl: as2.jwksUri, policy, verifier: { now: () => w.clock.now } }).handler;
    assert.equal((await callWithAuth(provider, w.fetch, 'tools/list')).status, 200);
    assert.ok(as2.events.every((e) => e.clientId !== firstClient), 'credentials reused at a different AS');
    assert.equal(as2.events.filter((e) => e.endpoint === 'register').length, 1);
    assert.equal((await w.store.getTokens(MCP_URL))?.issuer, AS2);
  });

  it('credentials reused at a different AS: pre-registered credentials for AS1 are not sent to AS2', async () => {
    const w = await world();
    const as2 = await createDevAuthorizationServer({ issuer: AS2, fetch: w.fetch, now: () => w.clock.now });
    w.routes[AS2] = as2.handler;
    w.routes[MCP_ORIGIN] = protectedResource({ issuers: [AS2], fetch: w.fetch, jwksUrl: as2.jwksUri, policy }).handler;
    const provider = w.provider({ preRegistered: { [AS1]: { clientId: 'as1-only', clientSecret: 'x' } } });
    assert.equal((await callWithAuth(provider, w.fetch, 'tools/list')).status, 200);
    assert.ok(as2.events.every((e) => e.clientId !== 'as1-only'));
  });

  it('offline_access is not requested when the AS does not list it', async () => {
    const w = await world({ asScopes: ['mcp:read', 'mcp:write'] });
    assert.equal((await callWithAuth(w.provider(), w.fetch, 'tools/list')).status, 200);
    assert.equal(authorizeEvents(w.as)[0]?.params['scope'], 'mcp:read');
  });

  it('resource mismatch: a PRM naming another resource aborts before any authorization request', async () => {
    const w = await world();
    w.routes[MCP_ORIGIN] = async (request) => {
      if (new URL(request.url).pathname.startsWith('/.well-known/')) return Response.json({ resource: 'https://evil.example.com/mcp', authorization_servers: [AS1] });
      return new Response(null, { status: 401, headers: { 'www-authenticate': 'Bearer' } });
    };
    await assert.rejects(callWithAuth(w.provider(), w.fetch, 'tools/list'), (e: unknown) => isAuthError(e, 'ERR_AUTH_RESOURCE_MISMATCH'));
    assert.equal(authorizeEvents(w.as).length, 0);
    assert.ok(!w.fetch.log.some((l) => l.includes(AS1)), 'not even AS metadata was fetched');
  });

  it('mix-up: an authorizer returning another issuer`s iss never reaches the token endpoint', async () => {
    const w = await world();
    const inner = followRedirectAuthorizer(w.fetch);
    const provider = w.provider({ authorize: async (url, ctx) => ({ ...(await inner(url, ctx)), iss: 'https://evil.example.test' }) });
    await assert.rejects(callWithAuth(provider, w.fetch, 'tools/list'), (e: unknown) => isAuthError(e, 'ERR_AUTH_ISSUER_MISMATCH'));
    assert.ok(!w.as.events.some((e) => e.endpoint === 'token'));
  });

  it('CSRF: a response with a foreign state is refused before the token request', async () => {
    const w = await world();
    const inner = followRedirectAuthorizer(w.fetch);
    const provider = w.provider({ authorize: async (url, ctx) => ({ ...(await inner(url, ctx)), state: 'attacker-state' }) });
    await assert.rejects(callWithAuth(provider, w.fetch, 'tools/list'), (e: unknown) => isAuthError(e, 'ERR_AUTH_STATE_MISMATCH'));
    assert.ok(!w.as.events.some((e) => e.endpoint === 'token'));
  });

  it('token from the former AS is not sent after the PRM moved (stale token passthrough)', async () => {
    const w = await world();
    const provider = w.provider();
    assert.equal((await callWithAuth(provider, w.fetch, 'tools/list')).status, 200);
    const old = (await w.store.getTokens(MCP_URL))?.accessToken;
    const as2 = await createDevAuthorizationServer({ issuer: AS2, fetch: w.fetch });
    w.routes[AS2] = as2.handler;
    w.routes[MCP_ORIGIN] = protectedResource({ issuers: [AS2], fetch: w.fetch, jwksUrl: as2.jwksUri, policy }).handler;
    assert.equal(await provider.handleChallenge({ status: 401, wwwAuthenticate: 'Bearer error="invalid_token"' }), true);
    assert.notEqual(await provider.getAccessToken(), old);
  });

  it('non-OAuth failures are declined (403 without insufficient_scope, 500)', async () => {
    const w = await world();
    const provider = w.provider();
    assert.equal(await provider.handleChallenge({ status: 403, wwwAuthenticate: 'Bearer error="invalid_token"' }), false);
    assert.equal(await provider.handleChallenge({ status: 500, wwwAuthenticate: null }), false);
    assert.equal(w.fetch.log.length, 0);
  });
});
