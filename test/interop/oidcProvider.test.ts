// Our OAuth client against a certified OpenID Provider (oidc-provider@8, test/fixtures/oidcAuthServer.ts)
// and the resource servers that check audience (ours and the official SDK's): discovery from the
// Protected Resource Metadata, Dynamic Client Registration, authorization code + PKCE S256 with
// `resource` (RFC 8707), the login driven through the AS's own interaction, refresh; and the
// harness's own guarantees the per-user and token-exchange tests lean on.
// https://modelcontextprotocol.io/specification/2025-11-25/basic/authorization
import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import * as jose from 'jose';
import { parseAuthorizationResponse } from '../../src/auth/client/authorization.js';
import { createOAuthClientProvider } from '../../src/auth/client/oauthClientProvider.js';
import { allowInsecureRequests } from '../../src/auth/http.js';
import { McpClient } from '../../src/client/mcpClient.js';
import { StreamableHttpClientTransport } from '../../src/transport/http/client/client.js';
import { startAudienceResourceServer, type AudienceResourceServer } from '../fixtures/audienceResourceServer.js';
import { driveLogin, startOidcAuthServer, type OidcAuthServer } from '../fixtures/oidcAuthServer.js';
import { startSdkAudienceServer } from '../fixtures/sdkAudienceServer.mjs';

const T = { timeout: 60_000 };
const REDIRECT = 'http://127.0.0.1:1/callback';

let as: OidcAuthServer;
let ours: AudienceResourceServer;
let sdk: AudienceResourceServer;

before(async () => {
  as = await startOidcAuthServer();
  [ours, sdk] = await Promise.all([startAudienceResourceServer(as, { name: 'ours' }), startSdkAudienceServer(as, { name: 'sdk' })]);
});

after(async () => {
  await Promise.all([ours.close(), sdk.close()]);
  await as.close();
});

/** Our client signed in as `account` to `server` through the AS's login. */
function connect(server: AudienceResourceServer, account: string, now: () => number = Date.now) {
  const opened: URL[] = [];
  const provider = createOAuthClientProvider({
    serverUrl: server.url,
    redirectUri: REDIRECT,
    authorize: async (url) => {
      opened.push(url);
      return parseAuthorizationResponse(await driveLogin(url, account));
    },
    now,
    [allowInsecureRequests]: true,
  });
  const transport = new StreamableHttpClientTransport({
    url: server.url,
    authorize: () => provider.getAccessToken(),
    onUnauthorized: (info) => provider.handleChallenge({ status: info.status, wwwAuthenticate: info.wwwAuthenticate ?? null }),
  });
  const client = new McpClient({ name: 'interop', version: '1' }, { defaultTimeoutMs: 15_000 });
  return { client, transport, provider, opened };
}

const whoami = async (client: McpClient): Promise<{ sub: string; aud: string[] }> => {
  const result = await client.callTool('whoami', {});
  const first = result.content[0];
  return JSON.parse(first !== undefined && first.type === 'text' ? first.text : '{}') as { sub: string; aud: string[] };
};

for (const which of ['ours', 'sdk'] as const) {
  describe(`our OAuth client, oidc-provider and the ${which} resource server`, T, () => {
    it('signs in (DCR, PKCE S256, resource), calls as the person, the token audience is the server alone', T, async () => {
      const server = which === 'ours' ? ours : sdk;
      const { client, transport, provider, opened } = connect(server, `person-${which}`);
      try {
        await client.connect(transport);
        const me = await whoami(client);
        assert.equal(me.sub, `person-${which}`);
        assert.deepEqual(me.aud, [server.url]);
        const url = opened[0];
        assert.equal(url?.searchParams.get('code_challenge_method'), 'S256');
        assert.equal(url?.searchParams.get('resource'), server.url);
        const token = await provider.getAccessToken();
        assert.equal(jose.decodeProtectedHeader(token ?? '').typ, 'at+jwt');
      } finally {
        await client.close();
      }
    });
  });
}

describe('our OAuth client refreshes at oidc-provider', T, () => {
  it('a token about to expire is refreshed (rotated), without a new sign-in', T, async () => {
    let offset = 0;
    const { client, transport, provider, opened } = connect(ours, 'refresher', () => Date.now() + offset);
    try {
      await client.connect(transport);
      const first = await provider.getAccessToken();
      offset = 299_000; // inside the client's 60 s refresh skew
      const second = await provider.getAccessToken();
      assert.notEqual(second, first);
      assert.equal(opened.length, 1, 'no second sign-in');
      assert.equal((await whoami(client)).sub, 'refresher');
    } finally {
      await client.close();
    }
  });
});

describe('the oidc-provider harness', T, () => {
  it('consent-refused: the person refusing answers access_denied to the client, no code', T, async () => {
    const url = new URL(`${as.issuer}/auth`);
    const challenge = Buffer.from(await crypto.subtle.digest('SHA-256', new TextEncoder().encode('v'.repeat(43)))).toString('base64url');
    for (const [k, v] of Object.entries({ client_id: as.publicClient.clientId, response_type: 'code', redirect_uri: as.publicClient.redirectUri, scope: 'mcp:read', resource: ours.url, state: 's', code_challenge: challenge, code_challenge_method: 'S256' })) url.searchParams.set(k, v);
    const back = await driveLogin(url, 'refuser', { refuse: true });
    assert.equal(back.searchParams.get('error'), 'access_denied');
    assert.equal(back.searchParams.get('code'), null);
    assert.equal(back.searchParams.get('state'), 's');
  });

  it('pkce-downgrade: an authorization request without code_challenge is refused', T, async () => {
    const url = new URL(`${as.issuer}/auth`);
    for (const [k, v] of Object.entries({ client_id: as.publicClient.clientId, response_type: 'code', redirect_uri: as.publicClient.redirectUri, scope: 'mcp:read', resource: ours.url, state: 's' })) url.searchParams.set(k, v);
    const back = await driveLogin(url, 'nopkce');
    assert.equal(back.searchParams.get('error'), 'invalid_request');
    assert.equal(back.searchParams.get('code'), null);
  });

  it('registerClient: a client registered late (the gateway callback known once it listens) can sign in', T, async () => {
    await as.registerClient({ client_id: 'late', token_endpoint_auth_method: 'none', grant_types: ['authorization_code'], response_types: ['code'], redirect_uris: ['http://127.0.0.1:7/late/callback'] });
    const token = await as.accessToken('late-user', ours.url, { client: { clientId: 'late', redirectUri: 'http://127.0.0.1:7/late/callback' } });
    assert.equal(jose.decodeJwt(token)['client_id'], 'late');
  });

  it('publishes its JWKS and metadata (token exchange among the grant types)', T, async () => {
    const metadata = (await (await fetch(`${as.issuer}/.well-known/openid-configuration`)).json()) as { jwks_uri: string; grant_types_supported: string[]; token_endpoint: string };
    assert.equal(metadata.jwks_uri, as.jwksUri);
    assert.equal(metadata.token_endpoint, as.tokenEndpoint);
    assert.ok(metadata.grant_types_supported.includes('urn:ietf:params:oauth:grant-type:token-exchange'));
    const jwks = (await (await fetch(as.jwksUri)).json()) as { keys: { kid: string }[] };
    assert.deepEqual(jwks.keys.map((k) => k.kid), as.jwks.keys.map((k) => k.kid));
  });
});
