// "Sign in with <issuer>" for a person's console session (issue #34's "My connections"),
// against a real, independent authorization server (oidc-provider, test/fixtures/oidcAuthServer.ts):
// authorization code + PKCE S256 with resource = the gateway's resource, the callback bound to
// the browser that started it, the access token verified by the gateway's own inbound verifier
// (built by the CLI's gatewayResourceAuth, wired by consoleOAuthSignIn as the gateway does).
// Attacks are judged by whether a session cookie came out (and what it opens), not by wording.
import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import { consoleOAuthSignIn } from '../../../src/cli/gatewayConsole.js';
import { gatewayResourceAuth } from '../../../src/cli/gatewayOAuth.js';
import { ConsoleHttpApi } from '../../../src/console/consoleApi.js';
import { MAX_FAILURES } from '../../../src/console/consoleSession.js';
import type { GatewayAuth } from '../../../src/host/configTypes.js';
import { MemoryConnectionStore } from '../../../src/host/connections.js';
import type { HttpRequestLike, HttpResponseLike } from '../../../src/transport/http/server/types.js';
import { silentLogger } from '../../../src/util/logger.js';
import { driveLogin, startOidcAuthServer, type OidcAuthServer } from '../../fixtures/oidcAuthServer.js';
import { consoleOptions, jsonRequest } from './support.js';

const ADMIN = 'a'.repeat(43);
const HOST = '127.0.0.1:8765';
const ORIGIN = `http://${HOST}`;
const GATEWAY = `${ORIGIN}/mcp`;
const CALLBACK = `${ORIGIN}/console/oauth/callback`;
const T = { timeout: 30_000 };

let as: OidcAuthServer;

before(async () => {
  as = await startOidcAuthServer();
  await as.registerClient({ client_id: 'switchboard-console', token_endpoint_auth_method: 'none', grant_types: ['authorization_code'], response_types: ['code'], redirect_uris: [CALLBACK] });
});
after(() => as?.close());

const req = (method: string, path: string, headers: Record<string, string>, body?: unknown): HttpRequestLike => jsonRequest(HOST, method, path, headers, body);

/** A console wired like the gateway's: the front door's OAuth verifier for GATEWAY, the console client (pre-registered, or dynamic). */
async function setup(options: { dynamic?: boolean; swapToken?: () => Promise<string> } = {}) {
  const store = new MemoryConnectionStore();
  await store.put({ principal: 'alice@example.com', server: 'https://gh.example/mcp', serverId: 'gh', mode: 'per-user', tokens: { accessToken: 'ACCESS-SECRET', tokenType: 'Bearer', requestedScopes: ['repo'], issuer: 'https://gh-as.example', resource: 'https://gh.example/mcp' }, createdAt: 1, updatedAt: 2 });
  await store.put({ principal: 'bob@example.com', server: 'https://gh.example/mcp', serverId: 'gh', mode: 'per-user', tokens: { accessToken: 'ACCESS-SECRET', tokenType: 'Bearer', requestedScopes: ['repo'], issuer: 'https://gh-as.example', resource: 'https://gh.example/mcp' }, createdAt: 1, updatedAt: 2 });
  const auth: GatewayAuth = { kind: 'oauth', issuer: as.issuer, audience: GATEWAY, jwksUri: as.jwksUri, dpop: undefined, console: { ...(options.dynamic === true ? {} : { clientId: 'switchboard-console' }), scopes: ['mcp:read'] } };
  // The AS's token answer, with the access token swapped for another one (a token minted for another audience).
  const fetchThrough: typeof fetch = async (input, init) => {
    const response = await fetch(input, init);
    if (options.swapToken === undefined || !String(input instanceof Request ? input.url : input).endsWith('/token')) return response;
    const json = (await response.json()) as Record<string, unknown>;
    return Response.json({ ...json, access_token: await options.swapToken() }, { status: response.status });
  };
  const door = await gatewayResourceAuth({ issuer: as.issuer, audience: GATEWAY, jwksUri: as.jwksUri }, GATEWAY);
  const oauth = consoleOAuthSignIn(auth, door, silentLogger);
  assert.ok(oauth !== undefined);
  const api = new ConsoleHttpApi(await consoleOptions(ADMIN, ORIGIN, Date.now, { connections: { store } }));
  // The token endpoint is reached through fetchThrough only when a test swaps the token.
  api.signInWith(options.swapToken === undefined ? oauth : withFetch(auth, door, fetchThrough));
  const call = async (method: string, path: string, h: Record<string, string>, body?: unknown): Promise<HttpResponseLike> => (await api.handle(req(method, path, h, body))) as HttpResponseLike;
  /** The browser: starts the sign-in, returns its binding cookie and the AS's redirect back (after `account` signed in). */
  const begin = async (account: string) => {
    const started = await call('POST', '/console/api/session/oauth', { origin: ORIGIN });
    assert.equal(started.status, 200, String(started.body));
    const binding = String(started.headers['set-cookie']).split(';')[0] as string;
    const location = String((JSON.parse(String(started.body)) as { location: string }).location);
    const back = await driveLogin(location, account);
    return { binding, back, location: new URL(location) };
  };
  const callback = (back: URL, cookie: string | undefined) => call('GET', `/console/oauth/callback${back.search}`, cookie === undefined ? {} : { cookie });
  const session = async (res: HttpResponseLike) => {
    const setCookie = res.headers['set-cookie'];
    if (res.status !== 303 || setCookie === undefined || !setCookie.startsWith('sb_console=')) return undefined;
    const cookie = setCookie.split(';')[0] as string;
    return { cookie, state: JSON.parse(String((await call('GET', '/console/api/session', { cookie })).body)) as { role: string; principal: { id: string; issuer: string }; csrf: string } };
  };
  return { api, call, begin, callback, session, store };
}

/** The same sign-in with another fetch (a seam only the swapped-token test needs). */
function withFetch(auth: GatewayAuth, door: Awaited<ReturnType<typeof gatewayResourceAuth>>, fetchThrough: typeof fetch) {
  const oauth = consoleOAuthSignIn(auth, door, silentLogger, fetchThrough);
  assert.ok(oauth !== undefined);
  return oauth;
}

describe('console OAuth sign-in against oidc-provider', () => {
  it('the authorization request: code + PKCE S256, resource = the gateway, redirect under /console, state from the HttpOnly SameSite cookie', T, async () => {
    const { call } = await setup();
    const started = await call('POST', '/console/api/session/oauth', { origin: ORIGIN });
    const url = new URL(String((JSON.parse(String(started.body)) as { location: string }).location));
    assert.equal(url.origin, as.issuer);
    assert.deepEqual([url.searchParams.get('response_type'), url.searchParams.get('code_challenge_method'), url.searchParams.get('resource'), url.searchParams.get('redirect_uri'), url.searchParams.get('client_id')], ['code', 'S256', GATEWAY, CALLBACK, 'switchboard-console']);
    assert.match(String(started.headers['set-cookie']), /^sb_console_signin=[^;]+; HttpOnly; SameSite=Lax; Path=\/console\/oauth\/callback; Max-Age=600$/);
  });

  it("yields a person session whose principal is the AS subject, and My connections shows that subject's rows only", T, async () => {
    const { begin, callback, session, call } = await setup();
    const { binding, back } = await begin('alice@example.com');
    const res = await callback(back, binding);
    assert.equal(res.headers['location'], '/console/#/me');
    const signedIn = await session(res);
    assert.deepEqual([signedIn?.state.role, signedIn?.state.principal.id, signedIn?.state.principal.issuer], ['person', 'alice@example.com', as.issuer]);
    const mine = await call('GET', '/console/api/me/connections', { cookie: signedIn?.cookie ?? '' });
    assert.match(String(mine.body), /"serverId":"gh"/);
    assert.doesNotMatch(String(mine.body), /bob@example\.com|SECRET/);
    // The person session is still no admin session.
    assert.equal((await call('GET', '/console/api/connections', { cookie: signedIn?.cookie ?? '' })).status, 403);
    assert.deepEqual(as.serverErrors, []);
  });

  it('with dynamic client registration (no clientId configured) the same sign-in works', T, async () => {
    const { begin, callback, session } = await setup({ dynamic: true });
    const { binding, back, location } = await begin('carol@example.com');
    assert.notEqual(location.searchParams.get('client_id'), 'switchboard-console');
    const signedIn = await session(await callback(back, binding));
    assert.equal(signedIn?.state.principal.id, 'carol@example.com');
  });

  it("a forged callback: the attacker's own code and state delivered to the victim's browser (login CSRF) is refused, no session", T, async () => {
    const { begin, callback, session } = await setup();
    const attacker = await begin('mallory@example.com');
    const victim = await begin('alice@example.com');
    const res = await callback(attacker.back, victim.binding);
    assert.equal(res.status, 403);
    assert.equal(await session(res), undefined);
    // The attacker's sign-in was not spent by the refusal: nothing was taken before the binding check.
    assert.equal((await session(await callback(attacker.back, attacker.binding)))?.state.principal.id, 'mallory@example.com');
  });

  it('a callback without the binding cookie (a copied callback URL opened elsewhere): 403, no session', T, async () => {
    const { begin, callback, session } = await setup();
    const { back } = await begin('alice@example.com');
    const res = await callback(back, undefined);
    assert.equal(res.status, 403);
    assert.equal(await session(res), undefined);
  });

  it('a replayed callback (the same URL and cookie again after it signed in): refused, no second session', T, async () => {
    const { begin, callback, session } = await setup();
    const { binding, back } = await begin('alice@example.com');
    assert.notEqual(await session(await callback(back, binding)), undefined);
    const again = await callback(back, binding);
    assert.equal(again.status, 400);
    assert.equal(await session(again), undefined);
  });

  it('a state changed in the callback (a guess matching no sign-in) with a made-up cookie: refused, no session', T, async () => {
    const { begin, callback, session } = await setup();
    const { back } = await begin('alice@example.com');
    const forged = new URL(back);
    forged.searchParams.set('state', 'x'.repeat(43));
    const res = await callback(forged, `sb_console_signin=${'y'.repeat(43)}`);
    assert.equal(res.status, 403);
    assert.equal(await session(res), undefined);
  });

  it('a token the AS minted for another audience, handed back at the token endpoint: refused by the gateway verifier, no session', T, async () => {
    const { begin, callback, session } = await setup({ swapToken: () => as.accessToken('alice@example.com', 'http://127.0.0.1:9/other/mcp', { scope: 'mcp:read' }) });
    const { binding, back } = await begin('alice@example.com');
    const res = await callback(back, binding);
    assert.equal(res.status, 403);
    assert.match(String(res.body), /not one this gateway accepts/);
    assert.doesNotMatch(String(res.body), /eyJ/, 'no token text on the page');
    assert.equal(await session(res), undefined);
  });

  it('failed callbacks count towards the sign-in limit: after the allowed failures even the admin token is 429', T, async () => {
    const { begin, callback, call } = await setup();
    const { back } = await begin('alice@example.com');
    for (let i = 0; i < MAX_FAILURES; i++) assert.equal((await callback(back, undefined)).status, 403);
    assert.equal((await call('POST', '/console/api/session', { origin: ORIGIN }, { token: ADMIN })).status, 429);
    assert.equal((await callback(back, undefined)).status, 429);
  });

  it('the sign-in is started only from the console page: a cross-origin POST is refused before anything is sent to the AS', T, async () => {
    const { call } = await setup();
    const res = await call('POST', '/console/api/session/oauth', { origin: 'http://evil.example' });
    assert.equal(res.status, 403);
    assert.equal(res.headers['set-cookie'], undefined);
  });
});
