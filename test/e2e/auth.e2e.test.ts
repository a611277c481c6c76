/**
 * OAuth end to end over real HTTP on 127.0.0.1: our `McpClient` obtains a token from the
 * development authorization server (DCR, PKCE S256, `resource`, RFC 9207 `iss`, the redirect
 * followed in-process) and calls protected tools on our server; then the attacks of the
 * 2026-07-28 security considerations, each named after the attack.
 *
 * @see https://modelcontextprotocol.io/specification/2026-07-28/basic/authorization
 * @see https://modelcontextprotocol.io/specification/2026-07-28/basic/authorization/security-considerations
 * @module
 */
import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import * as jose from 'jose';
import { followRedirectAuthorizer } from '../../src/auth/client/authorization.js';
import { createOAuthClientProvider } from '../../src/auth/client/oauthClientProvider.js';
import { createDevAuthorizationServer } from '../../src/auth/dev/devAuthorizationServer.js';
import { McpClient } from '../../src/client/mcpClient.js';
import { StreamableHttpClientTransport } from '../../src/transport/http/client/client.js';
import { assertChallenge, insecure, post2026, startAuthWorld, textOf, type AuthWorld } from './authSupport.js';

const REDIRECT_URI = 'http://127.0.0.1:53682/callback';
const ELICIT = { elicitation: {} };

let world: AuthWorld;
before(async () => {
  world = await startAuthWorld();
});
after(async () => {
  await world.close();
});

/** Our client with the OAuth client provider wired into the HTTP transport. */
async function connectClient(options: { era?: 'stateful' } = {}): Promise<{ client: McpClient; transport: StreamableHttpClientTransport }> {
  const provider = createOAuthClientProvider({
    serverUrl: world.mcpUrl,
    redirectUri: REDIRECT_URI,
    authorize: followRedirectAuthorizer((input, init) => fetch(input, init)),
    clientMetadata: { client_name: 'switchboard-e2e', redirect_uris: [REDIRECT_URI] },
    requestOfflineAccess: false,
    ...insecure,
  });
  const transport = new StreamableHttpClientTransport({
    url: world.mcpUrl,
    authorize: () => provider.getAccessToken(),
    onUnauthorized: (info) => provider.handleChallenge({ status: info.status, wwwAuthenticate: info.wwwAuthenticate ?? null }),
  });
  const client = new McpClient({ name: 'switchboard-e2e', version: '1.0.0' }, { defaultTimeoutMs: 10_000, ...(options.era !== undefined ? { era: options.era } : {}) });
  await client.connect(transport);
  return { client, transport };
}

const token = (claims: { sub?: string; scope?: string; aud?: string; expiresInSec?: number; iss?: string } = {}): Promise<string> =>
  world.as.signAccessToken({ aud: claims.aud ?? world.mcpUrl, sub: claims.sub ?? 'alice', client_id: 'e2e', scope: claims.scope ?? 'mcp:read', ...(claims.expiresInSec !== undefined ? { expiresInSec: claims.expiresInSec } : {}), ...(claims.iss !== undefined ? { iss: claims.iss } : {}) });

const b64u = (value: unknown): string => Buffer.from(JSON.stringify(value)).toString('base64url');

async function rpcBody(response: Response): Promise<{ result?: Record<string, unknown>; error?: { code: number; message: string } }> {
  return (await response.json()) as never;
}

describe('oauth e2e: our client, the dev AS, our protected server', () => {
  it('obtains a token (DCR, PKCE S256, resource, iss) and calls a protected tool as its subject', async () => {
    const before = world.as.events.length;
    const { client } = await connectClient();
    try {
      const me = JSON.parse(textOf(await client.callTool('whoami', {}))) as { principal: string; subject: string; scopes: string[]; frozen: boolean };
      assert.equal(me.principal, 'dev-user');
      assert.equal(me.subject, 'dev-user');
      assert.ok(me.scopes.includes('mcp:read'));
      assert.equal(me.frozen, true);
      const events = world.as.events.slice(before);
      assert.ok(events.some((e) => e.endpoint === 'register'), 'dynamic client registration');
      const authorize = events.find((e) => e.endpoint === 'authorize');
      assert.equal(authorize?.params['code_challenge_method'], 'S256');
      assert.equal(authorize?.params['resource'], world.mcpUrl);
      assert.equal(events.find((e) => e.endpoint === 'token')?.params['resource'], world.mcpUrl);
    } finally {
      await client.close();
    }
  });

  it('steps up: 403 insufficient_scope, re-authorizes with the union of scopes, then succeeds', async () => {
    const { client } = await connectClient();
    try {
      const before = world.as.events.length;
      assert.equal(textOf(await client.callTool('deploy', {})), 'deployed');
      const reauth = world.as.events.slice(before).find((e) => e.endpoint === 'authorize');
      assert.ok(reauth !== undefined, 'a second authorization');
      const scopes = (reauth.params['scope'] ?? '').split(' ');
      assert.ok(scopes.includes('mcp:read') && scopes.includes('mcp:deploy'), reauth.params['scope']);
    } finally {
      await client.close();
    }
  });

  it('serves a 2025-11-25 session to its authenticated owner', async () => {
    const { client, transport } = await connectClient({ era: 'stateful' });
    try {
      assert.equal(client.era, 'stateful');
      assert.ok(transport.sessionId !== undefined);
      const me = JSON.parse(textOf(await client.callTool('whoami', {}))) as { principal: string };
      assert.equal(me.principal, 'dev-user');
    } finally {
      await client.close();
    }
  });

  it('points an unauthenticated client at discoverable metadata that names this resource and its AS', async () => {
    const r = await post2026(world.mcpUrl, undefined, 'tools/call', { name: 'whoami', arguments: {} });
    const challenge = assertChallenge(r, 401, world.metadataUrl);
    assert.ok(challenge.includes('scope="mcp:read"'), challenge);
    const prm = (await (await fetch(world.metadataUrl)).json()) as Record<string, unknown>;
    assert.equal(prm['resource'], world.mcpUrl);
    assert.deepEqual(prm['authorization_servers'], [world.issuer]);
  });
});

describe('oauth e2e: attacks', () => {
  it('token audience confusion: a token for another resource gets 401 with a challenge to re-discover', async () => {
    const stolen = await token({ aud: 'http://127.0.0.1:1/other-mcp' });
    assertChallenge(await post2026(world.mcpUrl, stolen, 'tools/call', { name: 'whoami', arguments: {} }), 401, world.metadataUrl, 'invalid_token');
  });

  it('expired token replay: 401 invalid_token', async () => {
    assertChallenge(await post2026(world.mcpUrl, await token({ expiresInSec: -600 }), 'tools/call', { name: 'whoami', arguments: {} }), 401, world.metadataUrl, 'invalid_token');
  });

  it('wrong issuer: a token from another authorization server, or with a forged iss, gets 401', async () => {
    const rogue = await createDevAuthorizationServer({ issuer: 'http://127.0.0.1:1', ...insecure });
    const foreign = await rogue.signAccessToken({ aud: world.mcpUrl, sub: 'alice', scope: 'mcp:read mcp:deploy' });
    assertChallenge(await post2026(world.mcpUrl, foreign, 'tools/call', { name: 'deploy', arguments: {} }), 401, world.metadataUrl, 'invalid_token');
    const forgedIss = await token({ iss: 'http://127.0.0.1:1' });
    assertChallenge(await post2026(world.mcpUrl, forgedIss, 'tools/call', { name: 'whoami', arguments: {} }), 401, world.metadataUrl, 'invalid_token');
  });

  it('alg none: an unsigned token naming this resource is refused', async () => {
    const now = Math.floor(Date.now() / 1000);
    const unsigned = `${b64u({ alg: 'none', typ: 'at+jwt' })}.${b64u({ iss: world.issuer, aud: world.mcpUrl, sub: 'alice', scope: 'mcp:read mcp:deploy', exp: now + 300 })}.`;
    const r = await post2026(world.mcpUrl, unsigned, 'tools/call', { name: 'deploy', arguments: {} });
    assert.ok(r.status === 401 || r.status === 400, String(r.status));
    assert.ok(r.headers.get('www-authenticate')?.includes(`resource_metadata="${world.metadataUrl}"`));
  });

  it('algorithm confusion: HS256 keyed with the AS public key is refused', async () => {
    const jwk = world.as.jwks().keys[0];
    const now = Math.floor(Date.now() / 1000);
    const confused = await new jose.SignJWT({ sub: 'alice', scope: 'mcp:read mcp:deploy' })
      .setProtectedHeader({ alg: 'HS256', kid: jwk?.kid ?? 'k', typ: 'at+jwt' })
      .setIssuer(world.issuer)
      .setAudience(world.mcpUrl)
      .setExpirationTime(now + 300)
      .sign(new TextEncoder().encode(JSON.stringify(jwk)));
    assertChallenge(await post2026(world.mcpUrl, confused, 'tools/call', { name: 'deploy', arguments: {} }), 401, world.metadataUrl, 'invalid_token');
  });

  it('privilege escalation with a read-only token: 403 insufficient_scope naming every scope needed', async () => {
    const r = await post2026(world.mcpUrl, await token({ scope: 'mcp:read' }), 'tools/call', { name: 'deploy', arguments: {} });
    const challenge = assertChallenge(r, 403, world.metadataUrl, 'insufficient_scope');
    assert.ok(challenge.includes('scope="mcp:read mcp:deploy"'), challenge);
  });

  it('token passthrough: a tool that reads the incoming Authorization header gets nothing', async () => {
    const t = await token();
    const r = await post2026(world.mcpUrl, t, 'tools/call', { name: 'forward', arguments: {} });
    assert.equal(r.status, 200);
    const text = textOf((await rpcBody(r)).result ?? {});
    assert.deepEqual((JSON.parse(text) as { seen: unknown[] }).seen, [null, null, null, null]);
    assert.ok(!text.includes(t), 'the token appears nowhere in what handlers can see');
    assert.ok(!text.includes(t.split('.')[2] ?? t), 'not even its signature');
  });

  it('session hijack across principals: B’s valid token on A’s 2025-11-25 session gets 404', async () => {
    const headers = (t: string, sid?: string): Record<string, string> => ({
      'content-type': 'application/json',
      accept: 'application/json, text/event-stream',
      authorization: `Bearer ${t}`,
      ...(sid === undefined ? {} : { 'mcp-session-id': sid, 'mcp-protocol-version': '2025-11-25' }),
    });
    const alice = await token({ sub: 'alice' });
    const init = await fetch(world.mcpUrl, {
      method: 'POST',
      headers: headers(alice),
      body: JSON.stringify({ jsonrpc: '2.0', id: 1, method: 'initialize', params: { protocolVersion: '2025-11-25', capabilities: {}, clientInfo: { name: 'a', version: '1' } } }),
    });
    assert.equal(init.status, 200);
    await init.body?.cancel();
    const sid = init.headers.get('mcp-session-id');
    assert.ok(sid !== null);
    const call = { jsonrpc: '2.0', id: 2, method: 'tools/call', params: { name: 'whoami', arguments: {} } };
    const bob = await token({ sub: 'bob' });
    const hijack = await fetch(world.mcpUrl, { method: 'POST', headers: headers(bob, sid), body: JSON.stringify(call) });
    assert.equal(hijack.status, 404);
    await hijack.body?.cancel();
    const kill = await fetch(world.mcpUrl, { method: 'DELETE', headers: headers(bob, sid) });
    assert.equal(kill.status, 404);
    const own = await fetch(world.mcpUrl, { method: 'POST', headers: headers(alice, sid), body: JSON.stringify(call) });
    assert.equal(own.status, 200, 'the owner keeps the session');
    await own.body?.cancel();
    await fetch(world.mcpUrl, { method: 'DELETE', headers: headers(alice, sid) });
  });

  it('requestState minted for A replayed by B: -32602, while A may still redeem it', async () => {
    const alice = await token({ sub: 'alice' });
    const first = (await rpcBody(await post2026(world.mcpUrl, alice, 'tools/call', { name: 'ask', arguments: {} }, { caps: ELICIT }))).result ?? {};
    assert.equal(first['resultType'], 'input_required', JSON.stringify(first));
    const answer = { name: 'ask', arguments: {}, inputResponses: { user_name: { action: 'accept', content: { name: 'Mallory' } } }, requestState: first['requestState'] };
    const stolen = await rpcBody(await post2026(world.mcpUrl, await token({ sub: 'bob' }), 'tools/call', answer, { caps: ELICIT, id: 2 }));
    assert.equal(stolen.error?.code, -32602, JSON.stringify(stolen));
    const own = await rpcBody(await post2026(world.mcpUrl, alice, 'tools/call', { ...answer, inputResponses: { user_name: { action: 'accept', content: { name: 'Alice' } } } }, { caps: ELICIT, id: 3 }));
    assert.equal(textOf(own.result ?? {}), 'Hello Alice');
  });

  it('token in the query string: 400 invalid_request', async () => {
    const t = await token();
    const r = await post2026(`${world.mcpUrl}?access_token=${t}`, undefined, 'tools/call', { name: 'whoami', arguments: {} });
    assertChallenge(r, 400, world.metadataUrl, 'invalid_request');
  });

  it('anonymous call to a privileged tool: 401 naming every scope it needs, no error code', async () => {
    const r = await post2026(world.mcpUrl, undefined, 'tools/call', { name: 'deploy', arguments: {} });
    const challenge = assertChallenge(r, 401, world.metadataUrl);
    assert.ok(!challenge.includes('error='), 'no error code without a token (RFC 6750 section 3.1)');
    assert.ok(challenge.includes('scope="mcp:read mcp:deploy"'), challenge);
  });
});
