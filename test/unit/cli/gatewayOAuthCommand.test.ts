// `switchboard gateway` with gateway.auth { oauth } as a real process, the dev authorization
// server as the issuer (its JWKS found through its metadata): it starts (no longer refused),
// serves the Protected Resource Metadata, refuses a request without a token with a challenge,
// and accepts one the issuer minted for the configured audience.
import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import type { DevAuthorizationServer } from '../../../src/auth/dev/devAuthorizationServer.js';
import type { RunningCli } from './cliProcess.js';
import { startOAuthGateway, type OAuthGatewayProcess } from './oauthGatewayProcess.js';

const AUDIENCE = 'https://gateway.example.test/mcp';
let running: OAuthGatewayProcess;
let as: DevAuthorizationServer;
let gateway: RunningCli;
let url: string;

before(async () => {
  running = await startOAuthGateway('sb-gw-oauth-', (issuer) => ({ port: 0, auth: { oauth: { issuer, audience: AUDIENCE } } }));
  ({ as, gateway, url } = running);
});

after(async () => {
  await running.close();
});

const post = (token?: string): Promise<Response> =>
  fetch(url, {
    method: 'POST',
    headers: { 'content-type': 'application/json', accept: 'application/json, text/event-stream', ...(token === undefined ? {} : { authorization: `Bearer ${token}` }) },
    body: JSON.stringify({ jsonrpc: '2.0', id: 1, method: 'initialize', params: { protocolVersion: '2025-11-25', capabilities: {}, clientInfo: { name: 't', version: '1' } } }),
  });

describe('switchboard gateway with gateway.auth oauth', () => {
  it('starts, says which issuer it trusts, and serves its Protected Resource Metadata', async () => {
    // The line follows the URL line in its own write: wait for it rather than read too early.
    assert.match(await gateway.waitFor(/OAuth: access tokens from \S+ for audience \S+/), new RegExp(`OAuth: access tokens from ${as.issuer.replace(/[.]/g, '\\.')} for audience ${AUDIENCE.replace(/[.]/g, '\\.')}`));
    assert.doesNotMatch(gateway.output(), /Bearer token/);
    const prm = (await (await fetch(new URL('/.well-known/oauth-protected-resource/mcp', url))).json()) as { resource: string; authorization_servers: string[] };
    assert.deepEqual(prm, { ...prm, resource: AUDIENCE, authorization_servers: [as.issuer] });
  });

  it('missing token: 401 with a WWW-Authenticate challenge naming the resource metadata', async () => {
    const response = await post();
    assert.equal(response.status, 401);
    assert.match(response.headers.get('www-authenticate') ?? '', /^Bearer resource_metadata="https:\/\/gateway\.example\.test\/\.well-known\/oauth-protected-resource\/mcp"/);
  });

  it('audience confusion: a token for another audience is refused; one for the configured audience is accepted', async () => {
    const wrong = await post(await as.signAccessToken({ aud: 'https://elsewhere.example.test/mcp', sub: 'alice' }));
    assert.equal(wrong.status, 401);
    assert.match(wrong.headers.get('www-authenticate') ?? '', /error="invalid_token"/);
    const right = await post(await as.signAccessToken({ aud: AUDIENCE, sub: 'alice' }));
    assert.equal(right.status, 200, await right.clone().text());
    assert.match(await right.text(), /"serverInfo"/);
  });
});
