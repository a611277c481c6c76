// "Sign in with <issuer>" on a real `switchboard gateway` (dist/cli/main.js, so `npm run build`
// first) with inbound OAuth at a real authorization server (oidc-provider): the console's
// sign-in is wired to the front door's own verifier once the port is bound, and a person who
// signs in at the AS gets a person session whose principal is their subject there; an MCP
// request with an access token for the same person carries that same principal (the key of
// their connections). The single MCP bearer token never opens the console.
import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import { McpClient } from '../../src/client/mcpClient.js';
import { StreamableHttpClientTransport } from '../../src/transport/http/client/client.js';
import { freePort } from '../e2e/remoteOAuthSupport.js';
import { driveLogin, startOidcAuthServer, type OidcAuthServer } from '../fixtures/oidcAuthServer.js';
import { everythingEntry, startGateway, writeConfig, type GatewayConfig, type RunningGateway } from './fixtures/gatewayHarness.js';

let as: OidcAuthServer;
let config: GatewayConfig;
let gateway: RunningGateway;
let origin: string;
let audience: string;

before(async () => {
  as = await startOidcAuthServer();
  const port = await freePort();
  origin = `http://127.0.0.1:${port}`;
  audience = `${origin}/mcp`;
  await as.registerClient({ client_id: 'switchboard-console', token_endpoint_auth_method: 'none', grant_types: ['authorization_code'], response_types: ['code'], redirect_uris: [`${origin}/console/oauth/callback`] });
  config = await writeConfig({ everything: everythingEntry() }, { gateway: { auth: { oauth: { issuer: as.issuer, audience, jwksUri: as.jwksUri, console: { clientId: 'switchboard-console', scopes: ['mcp:read'] } } } } });
  gateway = await startGateway(config, ['--port', String(port)]);
}, { timeout: 60_000 });

after(async () => {
  await gateway?.stop();
  await config?.remove();
  await as?.close();
}, { timeout: 30_000 });

const post = (path: string, headers: Record<string, string> = {}, body?: unknown) =>
  fetch(new URL(path, origin), { method: 'POST', redirect: 'manual', headers: { origin, 'content-type': 'application/json', ...headers }, ...(body !== undefined ? { body: JSON.stringify(body) } : {}) });

describe('gateway console: Sign in with the inbound authorization server', () => {
  it('the sign-in page is offered the issuer; a person signs in at the AS and gets a person session for their subject, the one their MCP requests carry', { timeout: 60_000 }, async () => {
    const ways = (await (await fetch(new URL('/console/api/session/ways', origin))).json()) as { oauth: { issuer: string } | null; namedTokens: boolean };
    assert.deepEqual(ways.oauth, { issuer: as.issuer });
    const started = await post('/console/api/session/oauth');
    assert.equal(started.status, 200);
    const binding = (started.headers.get('set-cookie') ?? '').split(';')[0] as string;
    const { location } = (await started.json()) as { location: string };
    assert.equal(new URL(location).searchParams.get('resource'), audience);
    const back = await driveLogin(location, 'dana@example.com');
    const callback = await fetch(new URL(`/console/oauth/callback${back.search}`, origin), { redirect: 'manual', headers: { cookie: binding } });
    assert.equal(callback.status, 303);
    const cookie = (callback.headers.get('set-cookie') ?? '').split(';')[0] as string;
    assert.match(cookie, /^sb_console=/);
    const session = (await (await fetch(new URL('/console/api/session', origin), { headers: { cookie } })).json()) as { role: string; principal: { id: string; issuer: string } };
    assert.deepEqual([session.role, session.principal.id, session.principal.issuer], ['person', 'dana@example.com', as.issuer]);
    assert.equal((await fetch(new URL('/console/api/overview', origin), { headers: { cookie } })).status, 403, 'no admin page for a person');
    const mine = (await (await fetch(new URL('/console/api/me/connections', origin), { headers: { cookie } })).json()) as { principal: { id: string } };
    assert.equal(mine.principal.id, 'dana@example.com');
    // The same person's MCP request is accepted by the same verifier: the principal the connections are keyed by.
    const token = await as.accessToken('dana@example.com', audience, { scope: 'mcp:read' });
    const client = new McpClient({ name: 'dana', version: '1' });
    await client.connect(new StreamableHttpClientTransport({ url: audience, headers: { authorization: `Bearer ${token}` } }));
    await client.close();
    assert.deepEqual(as.serverErrors, []);
  });

  it('an access token of the AS pasted into the token form (not the sign-in flow) does not open the console', { timeout: 30_000 }, async () => {
    const token = await as.accessToken('dana@example.com', audience, { scope: 'mcp:read' });
    const res = await post('/console/api/session', {}, { token });
    assert.equal(res.status, 401);
    assert.equal(res.headers.get('set-cookie'), null);
  });
});
