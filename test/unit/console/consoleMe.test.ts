// A person's own console view (issue #34's "My connections"): a person signs in with their
// named token (gateway.auth.tokens) and gets a session that sees and revokes only their own
// principal's connections, and nothing else of the console. Each attack is judged by what is
// left in the connection store and the audit log, not by the answer's wording.
import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { tokenDigest } from '../../../src/auth/resource/staticTokens.js';
import { ConsoleHttpApi } from '../../../src/console/consoleApi.js';
import { ME_ROUTES } from '../../../src/console/consoleMe.js';
import { ROUTES } from '../../../src/console/consoleRoutes.js';
import { MAX_FAILURES } from '../../../src/console/consoleSession.js';
import { parseConfig } from '../../../src/host/config.js';
import { MemoryConnectionStore, type Connection } from '../../../src/host/connections.js';
import { SqliteAuditLog } from '../../../src/store/sqliteAudit.js';
import type { HttpRequestLike, HttpResponseLike } from '../../../src/transport/http/server/types.js';
import { consoleOptions, fakeAs, jsonRequest, sampleConnection } from './support.js';

const ADMIN = 'a'.repeat(43);
const MCP = 'm'.repeat(43);
const ALICE = 'alice-token-'.padEnd(43, 'A');
const BOB = 'bob-token-'.padEnd(43, 'B');
const HOST = '127.0.0.1:8765';
const ORIGIN = `http://${HOST}`;
const NOW = Date.UTC(2026, 11, 5, 9);
const GH = 'https://gh.example/mcp';
const DOCS = 'https://docs.example/mcp';
const T = { timeout: 10_000 };

const conn = (principal: string, server: string, serverId: string, at: number): Connection => sampleConnection(principal, server, serverId, at, NOW);
const req = (method: string, path: string, headers: Record<string, string>, body?: unknown): HttpRequestLike => jsonRequest(HOST, method, path, headers, body);

/** A console with named tokens alice and bob over a store with alice@gh, alice@docs, bob@gh. */
async function setup(now: { t: number } = { t: NOW }) {
  const store = new MemoryConnectionStore();
  await store.put(conn('alice', GH, 'gh', NOW - 3000));
  await store.put(conn('alice', DOCS, 'docs', NOW - 2000));
  await store.put(conn('bob', GH, 'gh', NOW - 1000));
  const audit = SqliteAuditLog.open(':memory:');
  const config = parseConfig(JSON.stringify({ mcpServers: { gh: { url: GH }, docs: { url: DOCS } } }), { file: '/tmp/switchboard.json', env: {} });
  const namedTokens = [
    { name: 'alice', sha256: tokenDigest(ALICE), scopes: [] },
    { name: 'bob', sha256: tokenDigest(BOB), scopes: [] },
  ];
  const api = new ConsoleHttpApi(await consoleOptions(ADMIN, ORIGIN, () => now.t, { mcpToken: MCP, namedTokens, config: () => config, connections: { store, fetch: fakeAs().fetch }, audit: { log: audit, reader: audit } }));
  const call = async (method: string, path: string, h: Record<string, string>, body?: unknown): Promise<HttpResponseLike> => (await api.handle(req(method, path, h, body))) as HttpResponseLike;
  const signIn = async (token: string) => {
    const res = await call('POST', '/console/api/session', { origin: ORIGIN }, { token });
    if (res.status !== 200) return { res, headers: undefined };
    const cookie = String(res.headers['set-cookie']).split(';')[0] as string;
    const csrf = String((JSON.parse(String(res.body)) as { csrf: string }).csrf);
    return { res, headers: { cookie, origin: ORIGIN, 'x-csrf-token': csrf } };
  };
  const left = async (): Promise<string[]> => (await store.list()).map((c) => `${c.principal}@${c.serverId}`);
  const records = () => audit.tail(20).filter((r) => r.kind === 'connection');
  return { api, store, audit, call, signIn, left, records, now };
}

const ALL = ['alice@gh', 'alice@docs', 'bob@gh'];
const body = (r: HttpResponseLike): Record<string, unknown> => JSON.parse(String(r.body)) as Record<string, unknown>;

describe('console person sessions: sign-in', () => {
  it('a named token opens a person session for its name only (role person, principal alice, static-token issuer)', T, async () => {
    const { call, signIn } = await setup();
    const { res, headers } = await signIn(ALICE);
    assert.equal(res.status, 200);
    assert.equal(body(res)['role'], 'person');
    assert.deepEqual(body(res)['principal'], { id: 'alice', issuer: 'switchboard:static-token' });
    const session = body(await call('GET', '/console/api/session', { cookie: headers?.cookie ?? '' }));
    assert.deepEqual([session['role'], (session['principal'] as { id: string }).id], ['person', 'alice']);
  });

  it('the admin token still opens an admin session (no principal)', T, async () => {
    const { signIn } = await setup();
    const { res } = await signIn(ADMIN);
    assert.equal(body(res)['role'], 'admin');
    assert.equal(body(res)['principal'], undefined);
  });

  it("the MCP bearer token (the agent's unnamed credential) still never opens the console: 403, no cookie", T, async () => {
    const { signIn } = await setup();
    const { res } = await signIn(MCP);
    assert.equal(res.status, 403);
    assert.equal(res.headers['set-cookie'], undefined);
  });

  it('brute force across both kinds of token shares one limit: after the allowed failures even a good named token is 429', T, async () => {
    const { signIn, now } = await setup();
    for (let i = 0; i < MAX_FAILURES; i++) assert.equal((await signIn(`guess-${i}-`.padEnd(43, 'x'))).res.status, 401);
    const locked = await signIn(ALICE);
    assert.equal(locked.res.status, 429);
    assert.equal(locked.res.headers['set-cookie'], undefined);
    now.t += 61_000;
    assert.equal((await signIn(ALICE)).res.status, 200);
  });

  it('the ways of signing in are told without a session: admin, named tokens, no OAuth', T, async () => {
    const { call } = await setup();
    assert.deepEqual(body(await call('GET', '/console/api/session/ways', {})), { admin: true, namedTokens: true, oauth: null });
  });
});

describe('console person sessions: My connections', () => {
  it('lists only the signed-in principal’s connections, field by field, with no token', T, async () => {
    const { call, signIn } = await setup();
    const { headers } = await signIn(ALICE);
    const res = await call('GET', '/console/api/me/connections', headers ?? {});
    assert.equal(res.status, 200);
    const answer = body(res) as { principal: { id: string }; connections: { serverId: string; since: number; refreshedAt: number; scopes: string[]; mode: string }[] };
    assert.equal(answer.principal.id, 'alice');
    assert.deepEqual(answer.connections.map((c) => c.serverId), ['gh', 'docs']);
    assert.deepEqual([answer.connections[0]?.since, answer.connections[0]?.refreshedAt, answer.connections[0]?.scopes, answer.connections[0]?.mode], [NOW - 3000, NOW - 2999, ['repo', 'read:user'], 'per-user']);
    assert.doesNotMatch(String(res.body), /SECRET|bob/);
  });

  it('person A lists with ?principal=bob in the query: still only A’s rows', T, async () => {
    const { call, signIn } = await setup();
    const { headers } = await signIn(ALICE);
    const res = await call('GET', '/console/api/me/connections?principal=bob', headers ?? {});
    assert.doesNotMatch(String(res.body), /bob/);
  });

  it('revokes one of their own by config id, audited with the person as the actor', T, async () => {
    const { call, signIn, left, records, audit } = await setup();
    const { headers } = await signIn(ALICE);
    const res = await call('POST', '/console/api/me/connections/revoke', headers ?? {}, { server: 'gh' });
    assert.equal(res.status, 200);
    // No registration stored at the authorization server in this store: removed here, and the answer says why not there.
    const [shown] = (body(res) as { connections: Record<string, unknown>[] }).connections;
    assert.deepEqual([shown?.['serverId'], shown?.['asRevoked']], ['gh', false]);
    assert.match(String(shown?.['reason']), /no client to revoke with/);
    assert.deepEqual(await left(), ['alice@docs', 'bob@gh']);
    const [record, ...more] = records();
    assert.equal(more.length, 0);
    assert.deepEqual([record?.method, record?.principal, record?.name, record?.server], ['connections/revoke', 'console:person:alice', 'alice', 'gh']);
    assert.doesNotMatch(JSON.stringify(record), /SECRET/);
    assert.equal(audit.verify().ok, true);
  });

  it('an empty body revokes all of their own and no one else’s', T, async () => {
    const { call, signIn, left } = await setup();
    const { headers } = await signIn(ALICE);
    assert.equal((await call('POST', '/console/api/me/connections/revoke', headers ?? {}, {})).status, 200);
    assert.deepEqual(await left(), ['bob@gh']);
  });
});

describe('console person sessions: attacks (nothing changes)', () => {
  it("person A revokes person B's connection by naming B and B's server in the body: 403, B's row is still in the store, no audit record", T, async () => {
    const { call, signIn, left, records } = await setup();
    const { headers } = await signIn(ALICE);
    const res = await call('POST', '/console/api/me/connections/revoke', headers ?? {}, { principal: 'bob', server: GH });
    assert.equal(res.status, 403);
    assert.deepEqual(await left(), ALL);
    assert.equal(records().length, 0);
  });

  it("person B revokes a server only A is connected to: 404, A's rows stay", T, async () => {
    const { call, signIn, left } = await setup();
    const { headers } = await signIn(BOB);
    assert.equal((await call('POST', '/console/api/me/connections/revoke', headers ?? {}, { server: DOCS })).status, 404);
    assert.deepEqual(await left(), ALL);
  });

  it('person A uses the admin revoke route with B as principal: 403, nothing revoked', T, async () => {
    const { call, signIn, left, records } = await setup();
    const { headers } = await signIn(ALICE);
    assert.equal((await call('POST', '/console/api/connections/revoke', headers ?? {}, { principal: 'bob', server: GH })).status, 403);
    assert.deepEqual(await left(), ALL);
    assert.equal(records().length, 0);
  });

  it('a person session is refused by every admin route and the event stream (403 before the route runs), the store and the audit log unchanged', T, async () => {
    const { call, signIn, left, audit } = await setup();
    const { headers } = await signIn(ALICE);
    const before = audit.tail(100).length;
    for (const route of ROUTES) {
      const path = route.path.replace(/:([a-z]+)/g, (_m, name: string) => (name === 'server' ? 'gh' : name === 'verb' ? 'approve' : 'x'));
      const res = await call(route.method, `/console/api/${path}`, headers ?? {}, route.method === 'GET' ? undefined : { principal: 'bob', server: GH, digest: 'x', names: ['x'] });
      assert.equal(res.status, 403, `${route.method} ${route.path}`);
    }
    assert.equal((await call('GET', '/console/api/events', headers ?? {})).status, 403);
    assert.deepEqual(await left(), ALL);
    assert.equal(audit.tail(100).length, before);
  });

  it('an admin session on the person routes: 403 with a clear message (the admin has no principal), nothing revoked', T, async () => {
    const { call, signIn, left } = await setup();
    const { headers } = await signIn(ADMIN);
    for (const route of ME_ROUTES) {
      const res = await call(route.method, `/console/api/me/${route.path}`, headers ?? {}, route.method === 'POST' ? {} : undefined);
      assert.equal(res.status, 403);
      assert.match(String(body(res)['error']), /admin has no connections of their own/);
    }
    assert.deepEqual(await left(), ALL);
  });

  it("a person's revoke without the CSRF token, or from a foreign Origin: 403, nothing revoked", T, async () => {
    const { call, signIn, left } = await setup();
    const { headers } = await signIn(ALICE);
    const cookie = headers?.cookie ?? '';
    assert.equal((await call('POST', '/console/api/me/connections/revoke', { cookie, origin: ORIGIN }, {})).status, 403);
    assert.equal((await call('POST', '/console/api/me/connections/revoke', { ...headers, origin: 'http://evil.example' }, {})).status, 403);
    assert.deepEqual(await left(), ALL);
  });

  it("the agent's named token as a bearer on the API (a script, no session): 401 on admin and person routes alike, nothing revoked", T, async () => {
    const { call, left } = await setup();
    assert.equal((await call('POST', '/console/api/me/connections/revoke', { authorization: `Bearer ${ALICE}` }, {})).status, 401);
    assert.equal((await call('POST', '/console/api/connections/revoke', { authorization: `Bearer ${ALICE}` }, { principal: 'bob' })).status, 401);
    assert.deepEqual(await left(), ALL);
  });

  it('a person signed out: the old cookie no longer lists or revokes', T, async () => {
    const { call, signIn, left } = await setup();
    const { headers } = await signIn(ALICE);
    assert.equal((await call('DELETE', '/console/api/session', headers ?? {})).status, 204);
    assert.equal((await call('POST', '/console/api/me/connections/revoke', headers ?? {}, {})).status, 401);
    assert.deepEqual(await left(), ALL);
  });
});
