// The console's Connections routes (issue #34's admin view): the list never carries a token,
// whatever the store holds or hands back; a revocation needs the console's session, its CSRF
// token and the gateway's own Origin (each attack below is refused with nothing revoked, judged
// by what is left in the store); a revocation removes exactly what it names and is audited as
// console:admin.
import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { ConsoleHttpApi } from '../../../src/console/consoleApi.js';
import type { ConsoleConnections } from '../../../src/console/consoleTypes.js';
import { parseConfig } from '../../../src/host/config.js';
import { MemoryConnectionStore, summarizeConnection, type Connection, type ConnectionStore, type ConnectionSummary } from '../../../src/host/connections.js';
import { SqliteAuditLog } from '../../../src/store/sqliteAudit.js';
import type { HttpRequestLike, HttpResponseLike } from '../../../src/transport/http/server/types.js';
import type { FetchLike } from '../../../src/auth/http.js';
import { consoleOptions, fakeAs, jsonRequest, SAMPLE_ISSUER, sampleConnection } from './support.js';

const ADMIN = 'a'.repeat(43);
const MCP = 'm'.repeat(43);
const HOST = '127.0.0.1:8765';
const ORIGIN = `http://${HOST}`;
const NOW = Date.UTC(2026, 11, 5, 9);
const GH = 'https://gh.example/mcp';
const DOCS = 'https://docs.example/mcp';
const T = { timeout: 10_000 };

/** A connection whose tokens carry recognisable secret text. */
const conn = (principal: string, server: string, serverId: string, at: number): Connection => sampleConnection(principal, server, serverId, at, NOW, 'acme');

/** A console over a store with alice@gh, alice@docs, bob@gh, signed in; `audit` receives the records. */
async function setup(extra: { store?: ConnectionStore; inUse?: () => boolean; fetch?: FetchLike } = {}) {
  const store = new MemoryConnectionStore();
  await store.registerOnce({ issuer: AS, redirectUri: 'http://127.0.0.1:8765/oauth/callback' }, () => Promise.resolve({ issuer: AS, clientId: 'gw-client', tokenEndpointAuthMethod: 'none', source: 'dcr' }));
  await store.put(conn('alice', GH, 'gh', NOW - 3000));
  await store.put(conn('alice', DOCS, 'docs', NOW - 2000));
  await store.put({ ...conn('bob', GH, 'gh', NOW - 1000), tenant: 'globex' });
  const audit = SqliteAuditLog.open(':memory:');
  const config = parseConfig(JSON.stringify({ mcpServers: { gh: { url: GH }, docs: { url: DOCS } } }), { file: '/tmp/switchboard.json', env: {} });
  const as = fakeAs();
  const connections: ConsoleConnections = { store: extra.store ?? store, fetch: extra.fetch ?? as.fetch, ...(extra.inUse !== undefined ? { inUse: extra.inUse } : {}) };
  const api = new ConsoleHttpApi(await consoleOptions(ADMIN, ORIGIN, () => NOW, { mcpToken: MCP, config: () => config, connections, audit: { log: audit, reader: audit } }));
  const session = (await api.handle(req('POST', '/console/api/session', { origin: ORIGIN }, { token: ADMIN }))) as HttpResponseLike;
  const cookie = String(session.headers['set-cookie']).split(';')[0] as string;
  const csrf = String((JSON.parse(String(session.body)) as { csrf: string }).csrf);
  const headers = { cookie, origin: ORIGIN, 'x-csrf-token': csrf };
  const call = async (method: string, path: string, h: Record<string, string>, body?: unknown): Promise<HttpResponseLike> => (await api.handle(req(method, path, h, body))) as HttpResponseLike;
  const left = async (): Promise<string[]> => (await store.list()).map((c) => `${c.principal}@${c.serverId}`);
  const records = () => audit.tail(20).filter((r) => r.kind === 'connection');
  return { api, store, audit, headers, cookie, csrf, call, left, records, revocations: as.revocations };
}

const AS = SAMPLE_ISSUER;

const req = (method: string, path: string, headers: Record<string, string>, body?: unknown): HttpRequestLike => jsonRequest(HOST, method, path, headers, body);

const ALL = ['alice@gh', 'alice@docs', 'bob@gh'];

describe('console connections: the list', () => {
  it('shows every connection with principal, tenant, server id and identity, mode, scopes, times, expiry and refreshable: no token text', T, async () => {
    const { call, headers } = await setup();
    const res = await call('GET', '/console/api/connections', headers);
    assert.equal(res.status, 200);
    const text = String(res.body);
    assert.doesNotMatch(text, /SECRET/, 'no access or refresh token in the answer');
    const body = JSON.parse(text) as { enabled: boolean; connections: Record<string, unknown>[] };
    assert.equal(body.enabled, true);
    assert.deepEqual(body.connections[0], { principal: 'alice', tenant: 'acme', server: GH, serverId: 'gh', mode: 'per-user', scopes: ['repo', 'read:user'], issuer: 'https://as.example', createdAt: NOW - 3000, updatedAt: NOW - 2999, expiresAt: NOW + 3_600_000, refreshable: true });
    assert.deepEqual(body.connections.map((c) => `${String(c['principal'])}@${String(c['serverId'])}`), ALL);
  });

  it('token leak through a store that lists whole connections: the page still gets named fields only', T, async () => {
    const inner = new MemoryConnectionStore();
    await inner.put(conn('alice', GH, 'gh', NOW));
    // A buggy store: list hands back the summaries with the stored tokens still attached.
    const whole = async () => {
      const c = (await inner.get({ principal: 'alice', server: GH })) as Connection;
      return [{ ...summarizeConnection(c), tokens: c.tokens, accessToken: c.tokens.accessToken } as ConnectionSummary];
    };
    const leaky: ConnectionStore = { get: (k) => inner.get(k), put: (c) => inner.put(c), revoke: (f) => inner.revoke(f), take: (f) => inner.take(f), list: whole, refreshOnce: (k, s, r) => inner.refreshOnce(k, s, r), connectOnce: (k, c) => inner.connectOnce(k, c), beginSignIn: (p) => inner.beginSignIn(p), takeSignIn: (s, n) => inner.takeSignIn(s, n), registerOnce: (k, r) => inner.registerOnce(k, r), forgetRegistration: (k, c) => inner.forgetRegistration(k, c), registrations: (i) => inner.registrations(i), close: () => inner.close() };
    const { call, headers } = await setup({ store: leaky });
    const res = await call('GET', '/console/api/connections', headers);
    assert.equal(res.status, 200);
    assert.doesNotMatch(String(res.body), /SECRET|accessToken|refreshToken|tokens/);
  });

  it('filters by principal, by server id and by server URL', T, async () => {
    const { call, headers } = await setup();
    const names = async (q: string) => ((JSON.parse(String((await call('GET', `/console/api/connections?${q}`, headers)).body)) as { connections: { principal: string; serverId: string }[] }).connections.map((c) => `${c.principal}@${c.serverId}`));
    assert.deepEqual(await names('principal=alice'), ['alice@gh', 'alice@docs']);
    assert.deepEqual(await names('server=gh'), ['alice@gh', 'bob@gh']);
    assert.deepEqual(await names(`server=${encodeURIComponent(GH)}&principal=bob`), ['bob@gh']);
  });

  it('filters by the tenant a connection was made under', T, async () => {
    const { call, headers } = await setup();
    const names = async (q: string) => ((JSON.parse(String((await call('GET', `/console/api/connections?${q}`, headers)).body)) as { connections: { principal: string; serverId: string; tenant?: string }[] }).connections.map((c) => `${c.principal}@${c.serverId}/${c.tenant}`));
    assert.deepEqual(await names('tenant=acme'), ['alice@gh/acme', 'alice@docs/acme']);
    assert.deepEqual(await names('tenant=globex&server=gh'), ['bob@gh/globex']);
    assert.deepEqual(await names('tenant=initech'), []);
  });

  it('a gateway whose store is not in use: the list is empty and the store is not opened (no key made by a look)', T, async () => {
    let opened = 0;
    const store = new MemoryConnectionStore();
    const counting: ConnectionStore = { get: (k) => store.get(k), put: (c) => store.put(c), list: (f) => (opened++, store.list(f)), revoke: (f) => store.revoke(f), take: (f) => store.take(f), refreshOnce: (k, s, r) => store.refreshOnce(k, s, r), connectOnce: (k, c) => store.connectOnce(k, c), beginSignIn: (p) => store.beginSignIn(p), takeSignIn: (s, n) => store.takeSignIn(s, n), registerOnce: (k, r) => store.registerOnce(k, r), forgetRegistration: (k, c) => store.forgetRegistration(k, c), registrations: (i) => store.registrations(i), close: () => store.close() };
    const { call, headers } = await setup({ store: counting, inUse: () => false });
    const res = await call('GET', '/console/api/connections', headers);
    assert.deepEqual(JSON.parse(String(res.body)), { enabled: true, opened: false, connections: [] });
    assert.equal(opened, 0);
  });
});

describe('console connections: revoke', () => {
  it('one row (principal and server identity) removes exactly that connection, audited as console:admin; the chain verifies', T, async () => {
    const { call, headers, left, records, audit } = await setup();
    const res = await call('POST', '/console/api/connections/revoke', headers, { principal: 'alice', server: GH });
    assert.equal(res.status, 200);
    assert.deepEqual(JSON.parse(String(res.body)), { revoked: 1, connections: [{ principal: 'alice', server: GH, serverId: 'gh', asRevoked: true }] });
    assert.deepEqual(await left(), ['alice@docs', 'bob@gh']);
    const [record, ...more] = records();
    assert.equal(more.length, 0);
    assert.deepEqual([record?.method, record?.principal, record?.server, record?.name, record?.outcome], ['connections/revoke', 'console:admin', 'gh', 'alice', 'ok']);
    assert.deepEqual(record?.decisions[0]?.detail, { principal: 'alice', server: GH, revoked: [{ principal: 'alice', server: GH, serverId: 'gh', asRevoked: true }] });
    assert.doesNotMatch(JSON.stringify(record), /SECRET/);
    assert.equal(audit.verify().ok, true);
  });

  it('revokes the refresh token at the authorization server as the client that obtained it (RFC 7009)', T, async () => {
    const { call, headers, revocations } = await setup();
    assert.equal((await call('POST', '/console/api/connections/revoke', headers, { principal: 'alice', server: GH })).status, 200);
    assert.deepEqual(
      revocations.map((f) => Object.fromEntries(f)),
      [{ token: 'REFRESH-SECRET-alice-gh', token_type_hint: 'refresh_token', client_id: 'gw-client' }],
    );
  });

  it('an authorization server without a revocation endpoint: removed here, answered and audited as unsupported', T, async () => {
    const fetch: FetchLike = (input) => Promise.resolve(String(input) === `${AS}/.well-known/oauth-authorization-server` ? Response.json({ issuer: AS, token_endpoint: `${AS}/token` }) : new Response(null, { status: 404 }));
    const { call, headers, left, records } = await setup({ fetch });
    const res = await call('POST', '/console/api/connections/revoke', headers, { principal: 'alice', server: GH });
    assert.equal(res.status, 200);
    const [shown] = (JSON.parse(String(res.body)) as { connections: Record<string, unknown>[] }).connections;
    assert.equal(shown?.['asRevoked'], 'unsupported');
    assert.match(String(shown?.['reason']), /no revocation_endpoint/);
    assert.deepEqual(await left(), ['alice@docs', 'bob@gh']);
    const detail = records()[0]?.decisions[0]?.detail as { revoked: { asRevoked: unknown; reason?: string }[] };
    assert.equal(detail.revoked[0]?.asRevoked, 'unsupported');
    assert.match(records()[0]?.decisions[0]?.reason ?? '', /1 not revoked at the authorization server/);
  });

  it('an authorization server that errors: removed here all the same, the failure answered and audited with its reason', T, async () => {
    const fetch: FetchLike = (input) =>
      Promise.resolve(String(input) === `${AS}/.well-known/oauth-authorization-server` ? Response.json({ issuer: AS, token_endpoint: `${AS}/token`, revocation_endpoint: `${AS}/revoke` }) : Response.json({ error: 'server_error' }, { status: 500 }));
    const { call, headers, left, records } = await setup({ fetch });
    const res = await call('POST', '/console/api/connections/revoke', headers, { principal: 'alice' });
    assert.equal(res.status, 200);
    const body = JSON.parse(String(res.body)) as { revoked: number; connections: { asRevoked: unknown; reason: string }[] };
    assert.equal(body.revoked, 2);
    assert.deepEqual(body.connections.map((c) => c.asRevoked), [false, false]);
    assert.match(body.connections[0]?.reason ?? '', /500 server_error/);
    assert.deepEqual(await left(), ['bob@gh']);
    assert.deepEqual((records()[0]?.decisions[0]?.detail as { revoked: { asRevoked: unknown }[] }).revoked.map((r) => r.asRevoked), [false, false]);
  });

  it('a principal removes every connection of that principal and no other', T, async () => {
    const { call, headers, left, records } = await setup();
    const res = await call('POST', '/console/api/connections/revoke', headers, { principal: 'alice' });
    assert.equal(res.status, 200);
    assert.equal((JSON.parse(String(res.body)) as { revoked: number }).revoked, 2);
    assert.deepEqual(await left(), ['bob@gh']);
    assert.equal(records().length, 1);
  });

  it('a config id names its server: bob at gh', T, async () => {
    const { call, headers, left } = await setup();
    assert.equal((await call('POST', '/console/api/connections/revoke', headers, { principal: 'bob', server: 'gh' })).status, 200);
    assert.deepEqual(await left(), ['alice@gh', 'alice@docs']);
  });

  it('a connection that does not exist: 404, nothing removed, no audit record', T, async () => {
    const { call, headers, left, records } = await setup();
    assert.equal((await call('POST', '/console/api/connections/revoke', headers, { principal: 'carol', server: GH })).status, 404);
    assert.deepEqual(await left(), ALL);
    assert.equal(records().length, 0);
  });
});

describe('console connections: attacks on revoke (nothing is revoked)', () => {
  it('cross-site request forgery without the CSRF token (the cookie alone): 403', T, async () => {
    const { call, cookie, left, records } = await setup();
    const res = await call('POST', '/console/api/connections/revoke', { cookie, origin: ORIGIN }, { principal: 'alice' });
    assert.equal(res.status, 403);
    assert.deepEqual(await left(), ALL);
    assert.equal(records().length, 0);
  });

  it('cross-site request forgery with a guessed CSRF token: 403', T, async () => {
    const { call, cookie, left } = await setup();
    assert.equal((await call('POST', '/console/api/connections/revoke', { cookie, origin: ORIGIN, 'x-csrf-token': 'x'.repeat(43) }, { principal: 'alice' })).status, 403);
    assert.deepEqual(await left(), ALL);
  });

  it('a foreign Origin with the cookie and the right CSRF token (a page on another origin that learnt the token): 403', T, async () => {
    const { call, cookie, csrf, left, records } = await setup();
    const res = await call('POST', '/console/api/connections/revoke', { cookie, origin: 'http://evil.example', 'x-csrf-token': csrf }, { principal: 'alice', server: GH });
    assert.equal(res.status, 403);
    assert.deepEqual(await left(), ALL);
    assert.equal(records().length, 0);
  });

  it('Sec-Fetch-Site: cross-site with a matching Origin header: 403', T, async () => {
    const { call, headers, left } = await setup();
    assert.equal((await call('POST', '/console/api/connections/revoke', { ...headers, 'sec-fetch-site': 'cross-site' }, { principal: 'alice' })).status, 403);
    assert.deepEqual(await left(), ALL);
  });

  it('no session (no cookie, no admin token): 401', T, async () => {
    const { call, left } = await setup();
    assert.equal((await call('POST', '/console/api/connections/revoke', { origin: ORIGIN }, { principal: 'alice' })).status, 401);
    assert.deepEqual(await left(), ALL);
  });

  it("the agent's MCP bearer token used as the console credential: 403", T, async () => {
    const { call, left } = await setup();
    assert.equal((await call('POST', '/console/api/connections/revoke', { authorization: `Bearer ${MCP}` }, { principal: 'alice' })).status, 403);
    assert.deepEqual(await left(), ALL);
  });

  it('an empty filter (revoke everyone at once): 400', T, async () => {
    const { call, headers, left } = await setup();
    assert.equal((await call('POST', '/console/api/connections/revoke', headers, {})).status, 400);
    assert.equal((await call('POST', '/console/api/connections/revoke', headers, { principal: '' })).status, 400);
    assert.deepEqual(await left(), ALL);
  });

  it('a GET to the revoke path (a link or an <img> in a page): no route, nothing revoked', T, async () => {
    const { call, headers, left } = await setup();
    assert.equal((await call('GET', '/console/api/connections/revoke?principal=alice', headers)).status, 404);
    assert.deepEqual(await left(), ALL);
  });
});
