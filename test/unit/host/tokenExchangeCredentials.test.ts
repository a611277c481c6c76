/**
 * The `token-exchange` downstream credentials against real components: oidc-provider with token
 * exchange as its custom grant (`test/fixtures/oidcAuthServer.ts`) and audience-checking
 * resource servers, ours and the official SDK's (`test/fixtures/audienceResourceServer.ts`,
 * `sdkAudienceServer.mjs`). Exchanges are counted at the AS; attacks are judged by the
 * resource servers' own logs.
 */
import { describe, it, before, after } from 'node:test';
import { randomBytes } from 'node:crypto';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import assert from 'node:assert/strict';
import * as jose from 'jose';
import { allowInsecureRequests } from '../../../src/auth/http.js';
import { createBearerVerifier, type BearerVerifier } from '../../../src/auth/resource/bearerVerifier.js';
import { MemoryConnectionStore, scopedServerKey, type Connection, type ConnectionStore } from '../../../src/host/connections.js';
import { ConnectionSealer } from '../../../src/store/connectionSealer.js';
import { PgConnectionStore } from '../../../src/store/postgres/pgConnectionStore.js';
import { SqliteConnectionStore } from '../../../src/store/sqliteConnectionStore.js';
import { freshSchema, openTestPostgres } from '../../contract/stores/backends.js';
import { CredentialUnavailableError, TokenExchangeCredentials, type TokenExchangeOptions } from '../../../src/host/tokenExchangeCredentials.js';
import type { Principal } from '../../../src/transport/principal.js';
import { isMcpError, McpErrorCode } from '../../../src/util/errors.js';
import { callWhoami, startAudienceResourceServer, type AudienceResourceServer } from '../../fixtures/audienceResourceServer.js';
import { startOidcAuthServer, type OidcAuthServer } from '../../fixtures/oidcAuthServer.js';
import { startSdkAudienceServer } from '../../fixtures/sdkAudienceServer.mjs';

const GATEWAY = 'http://127.0.0.1:1/mcp';
const T = { timeout: 60_000 };

let as: OidcAuthServer;
let serverA: AudienceResourceServer;
let serverB: AudienceResourceServer;
let sdkB: AudienceResourceServer;
let front: BearerVerifier;
let frontKeepsNothing: BearerVerifier;

/** A clock tests move (the credentials' view of expiry). */
function clock(): { now: () => number; advance(ms: number): void } {
  let offset = 0;
  return { now: () => Date.now() + offset, advance: (ms) => void (offset += ms) };
}

/** A principal as the gateway's front door makes it: the verified inbound token's. */
async function caller(account: string, verifier = front): Promise<{ principal: Principal; inbound: string }> {
  const inbound = await as.accessToken(account, GATEWAY, { scope: 'mcp:read' });
  return { principal: Object.freeze({ id: account, auth: await verifier.verify(inbound) }), inbound };
}

function credentials(server: AudienceResourceServer, store: ConnectionStore = new MemoryConnectionStore(), extra: { now?: () => number; options?: Partial<TokenExchangeOptions> } = {}) {
  return new TokenExchangeCredentials({
    server: server.url,
    serverId: server === serverA ? 'a' : 'b',
    options: { issuer: as.issuer, clientId: as.gatewayClient.clientId, clientSecret: as.gatewayClient.clientSecret, scopes: ['mcp:read'], [allowInsecureRequests]: true, ...extra.options },
    store,
    ...(extra.now !== undefined ? { now: extra.now } : {}),
  });
}

async function tokenOf(c: TokenExchangeCredentials, principal: Principal, tool?: string): Promise<Connection> {
  const answer = await c.credentialFor(principal, tool);
  assert.equal(answer.kind, 'token');
  return answer.connection;
}

const exchangesSince = (n: number) => as.exchanges.slice(n);

const storeDir = mkdtempSync(join(tmpdir(), 'sb-tx-stores-'));
const closers: (() => Promise<void>)[] = [];
after(async () => {
  for (const close of closers.splice(0)) await close();
  rmSync(storeDir, { recursive: true, force: true });
});

/** Two instances of one persistent store (two gateways): two SQLite stores on one file, or two pools on one PostgreSQL schema. */
async function twoStores(backend: 'SQLite' | 'PostgreSQL'): Promise<[ConnectionStore, ConnectionStore]> {
  const sealer = ConnectionSealer.fromKey(randomBytes(32));
  if (backend === 'SQLite') {
    const file = join(storeDir, `connections-${randomBytes(4).toString('hex')}.db`);
    const stores = [SqliteConnectionStore.open(file, sealer, { pollMs: 5 }), SqliteConnectionStore.open(file, sealer, { pollMs: 5 })] as const;
    for (const st of stores) closers.push(() => st.close());
    return [...stores];
  }
  const schema = freshSchema();
  return [new PgConnectionStore(await openTestPostgres({ schema }), sealer), new PgConnectionStore(await openTestPostgres({ schema }), sealer)];
}

describe('TokenExchangeCredentials (RFC 8693) with oidc-provider and audience-checking servers', T, () => {
  before(async () => {
    as = await startOidcAuthServer({ gatewayResources: [GATEWAY] });
    [serverA, serverB, sdkB] = await Promise.all([
      startAudienceResourceServer(as, { name: 'a' }),
      startAudienceResourceServer(as, { name: 'b' }),
      startSdkAudienceServer(as, { name: 'sdk-b' }),
    ]);
    const base = { resource: GATEWAY, issuers: [as.issuer], jwks: { url: as.jwksUri }, typ: 'at+jwt', [allowInsecureRequests]: true } as const;
    front = createBearerVerifier({ ...base, exchangeable: true });
    frontKeepsNothing = createBearerVerifier(base);
  });
  after(async () => {
    assert.deepEqual(as.serverErrors, []);
    await Promise.all([serverA.close(), serverB.close(), sdkB.close()]);
    await as.close();
  });

  it('exchanges the caller token for one addressed to the server alone, which the server accepts as the caller', T, async () => {
    const { principal } = await caller('alice');
    const start = as.exchanges.length;
    const c = credentials(serverA);
    const connection = await tokenOf(c, principal);
    assert.equal(connection.mode, 'token-exchange');
    assert.equal(connection.principal, 'alice');
    assert.equal(connection.server, serverA.url);
    assert.equal(jose.decodeJwt(connection.tokens.accessToken).aud, serverA.url);
    assert.deepEqual(exchangesSince(start), [{ clientId: as.gatewayClient.clientId, ok: true, sub: 'alice', resource: serverA.url, scope: 'mcp:read' }]);
    const answer = await callWhoami(serverA.url, connection.tokens.accessToken);
    assert.deepEqual(answer, { ok: true, sub: 'alice' });
    assert.deepEqual(serverA.calls.at(-1), { tool: 'whoami', sub: 'alice', aud: [serverA.url], clientId: as.gatewayClient.clientId, act: { sub: as.gatewayClient.clientId }, scopes: ['mcp:read'] });
  });

  it('caches the connection until it is about to expire, then exchanges again', T, async () => {
    const { principal } = await caller('carol');
    const time = clock();
    const c = credentials(serverA, new MemoryConnectionStore(), { now: time.now });
    const start = as.exchanges.length;
    const first = await tokenOf(c, principal);
    const again = await tokenOf(c, principal);
    assert.equal(again.tokens.accessToken, first.tokens.accessToken);
    assert.equal(exchangesSince(start).length, 1);
    time.advance(300_000 - 29_000); // inside the 30 s renewal window
    const renewed = await tokenOf(c, principal);
    assert.notEqual(renewed.tokens.accessToken, first.tokens.accessToken);
    assert.equal(renewed.createdAt, first.createdAt, 'the same connection, renewed');
    assert.equal(exchangesSince(start).length, 2);
  });

  it('10 concurrent first calls exchange once (counted at the AS)', T, async () => {
    const { principal } = await caller('dave');
    const c = credentials(serverA);
    const start = as.exchanges.length;
    const connections = await Promise.all(Array.from({ length: 10 }, () => tokenOf(c, principal)));
    assert.equal(new Set(connections.map((x) => x.tokens.accessToken)).size, 1);
    assert.equal(exchangesSince(start).length, 1);
  });

  it('10 concurrent calls on an expired connection re-exchange once', T, async () => {
    const { principal } = await caller('erin');
    const time = clock();
    const c = credentials(serverA, new MemoryConnectionStore(), { now: time.now });
    await tokenOf(c, principal);
    time.advance(600_000);
    const start = as.exchanges.length;
    const connections = await Promise.all(Array.from({ length: 10 }, () => tokenOf(c, principal)));
    assert.equal(new Set(connections.map((x) => x.tokens.accessToken)).size, 1);
    assert.equal(exchangesSince(start).length, 1);
  });

  it('two credential instances (two gateways) on one store: one exchange, and one re-exchange under 10 concurrent calls', T, async () => {
    const { principal } = await caller('frank');
    const store = new MemoryConnectionStore();
    const time = clock();
    const [g1, g2] = [credentials(serverA, store, { now: time.now }), credentials(serverA, store, { now: time.now })];
    const start = as.exchanges.length;
    const first = await tokenOf(g1, principal);
    assert.equal((await tokenOf(g2, principal)).tokens.accessToken, first.tokens.accessToken);
    assert.equal(exchangesSince(start).length, 1);
    time.advance(600_000);
    const renewed = await Promise.all(Array.from({ length: 10 }, (_, i) => tokenOf(i % 2 === 0 ? g1 : g2, principal)));
    assert.equal(new Set(renewed.map((x) => x.tokens.accessToken)).size, 1);
    assert.equal(exchangesSince(start).length, 2);
  });

  for (const backend of ['SQLite', 'PostgreSQL'] as const) {
    it(`two gateways on one ${backend} store (two store instances): 10 concurrent first calls over both exchange once, and a renewal under 10 more once`, T, async () => {
      const { principal } = await caller(`ivan-${backend}`);
      const [one, two] = await twoStores(backend);
      const time = clock();
      const [g1, g2] = [credentials(serverA, one, { now: time.now }), credentials(serverA, two, { now: time.now })];
      const start = as.exchanges.length;
      const first = await Promise.all(Array.from({ length: 10 }, (_, i) => tokenOf(i % 2 === 0 ? g1 : g2, principal)));
      assert.equal(new Set(first.map((x) => x.tokens.accessToken)).size, 1);
      assert.equal(exchangesSince(start).length, 1, 'one first exchange across both');
      time.advance(600_000);
      const renewed = await Promise.all(Array.from({ length: 10 }, (_, i) => tokenOf(i % 2 === 0 ? g1 : g2, principal)));
      assert.equal(new Set(renewed.map((x) => x.tokens.accessToken)).size, 1);
      assert.notEqual(renewed[0]?.tokens.accessToken, first[0]?.tokens.accessToken);
      assert.equal(exchangesSince(start).length, 2, 'one re-exchange across both');
      assert.equal((await callWhoami(serverA.url, renewed[0]?.tokens.accessToken ?? '')).ok, true);
    });
  }

  it('renew after a 401 re-exchanges once for concurrent renewals of the same stale token', T, async () => {
    const { principal } = await caller('grace');
    const c = credentials(serverA);
    const stale = await tokenOf(c, principal);
    const start = as.exchanges.length;
    const renewed = await Promise.all(Array.from({ length: 5 }, () => c.renew(principal, stale)));
    assert.equal(new Set(renewed.map((x) => x?.tokens.accessToken)).size, 1);
    assert.notEqual(renewed[0]?.tokens.accessToken, stale.tokens.accessToken);
    assert.equal(exchangesSince(start).length, 1);
  });

  it('discovers nothing when given the token endpoint', T, async () => {
    const { principal } = await caller('heidi');
    const c = credentials(serverA, new MemoryConnectionStore(), { options: { issuer: undefined as never, tokenEndpoint: as.tokenEndpoint } });
    const connection = await tokenOf(c, principal);
    assert.equal(jose.decodeJwt(connection.tokens.accessToken).sub, 'heidi');
  });

  it('confused-deputy-token-for-A-replayed-at-B: B (ours and the SDK\'s) refuses the token exchanged for A', T, async () => {
    const { principal } = await caller('ivan');
    const forA = (await tokenOf(credentials(serverA), principal)).tokens.accessToken;
    const [oursBefore, sdkBefore] = [serverB.requests.length, sdkB.requests.length];
    const [callsB, callsSdk] = [serverB.calls.length, sdkB.calls.length];
    assert.equal((await callWhoami(serverB.url, forA)).ok, false);
    assert.equal((await callWhoami(sdkB.url, forA)).ok, false);
    // Judged by B's own logs: it saw the token, answered 401 every time, and ran nothing.
    const ours = serverB.requests.slice(oursBefore).filter((r) => r.authorization === `Bearer ${forA}`);
    const sdk = sdkB.requests.slice(sdkBefore).filter((r) => r.authorization === `Bearer ${forA}`);
    assert.ok(ours.length > 0 && ours.every((r) => r.status === 401), JSON.stringify(ours.map((r) => r.status)));
    assert.ok(sdk.length > 0 && sdk.every((r) => r.status === 401), JSON.stringify(sdk.map((r) => r.status)));
    assert.equal(serverB.calls.length, callsB);
    assert.equal(sdkB.calls.length, callsSdk);
    // And B's own exchange is a different token that B accepts as the same person.
    const forB = (await tokenOf(credentials(serverB), principal)).tokens.accessToken;
    assert.notEqual(forB, forA);
    assert.deepEqual(await callWhoami(serverB.url, forB), { ok: true, sub: 'ivan' });
  });

  it('token-passthrough-inbound-token-never-downstream: what reaches the server is the exchanged token, never the inbound one', T, async () => {
    const { principal, inbound } = await caller('judy');
    const before = serverA.requests.length;
    const connection = await tokenOf(credentials(serverA), principal);
    assert.notEqual(connection.tokens.accessToken, inbound);
    assert.ok(!JSON.stringify(connection).includes(inbound), 'the stored connection holds no inbound token');
    await callWhoami(serverA.url, connection.tokens.accessToken);
    const seen = serverA.requests.slice(before);
    assert.ok(seen.length > 0);
    assert.ok(seen.every((r) => r.authorization !== null && !r.authorization.includes(inbound)));
    // The inbound token itself would not even be accepted there: its audience is the gateway.
    assert.equal((await callWhoami(serverA.url, inbound)).ok, false);
    assert.equal(serverA.requests.at(-1)?.status, 401);
  });

  it('cross-principal: one principal\'s connection is never another\'s (each arrives as themself)', T, async () => {
    const [alice, bob] = await Promise.all([caller('alice2'), caller('bob2')]);
    const c = credentials(serverA);
    const [ca, cb] = await Promise.all([tokenOf(c, alice.principal), tokenOf(c, bob.principal)]);
    assert.deepEqual(await callWhoami(serverA.url, ca.tokens.accessToken), { ok: true, sub: 'alice2' });
    assert.deepEqual(await callWhoami(serverA.url, cb.tokens.accessToken), { ok: true, sub: 'bob2' });
  });

  it('principal-without-exchangeable-token gets CredentialUnavailableError, no exchange, no sign-in', T, async () => {
    const { principal } = await caller('mallory', frontKeepsNothing);
    const start = as.exchanges.length;
    const c = credentials(serverA);
    await assert.rejects(c.credentialFor(principal), (e: unknown) => e instanceof CredentialUnavailableError && isMcpError(e, McpErrorCode.CredentialUnavailable));
    await assert.rejects(c.credentialFor({ id: 'named-token' }), CredentialUnavailableError);
    assert.equal(exchangesSince(start).length, 0);
  });

  it('copied-principal-is-no-capability: a principal rebuilt from the same claims cannot exchange', T, async () => {
    const { principal } = await caller('niaj');
    const forged: Principal = { id: principal.id, ...(principal.auth !== undefined ? { auth: structuredClone(principal.auth) } : {}) };
    const start = as.exchanges.length;
    await assert.rejects(credentials(serverA).credentialFor(forged), CredentialUnavailableError);
    assert.equal(exchangesSince(start).length, 0);
  });

  it('cached-connection-of-another-mode-is-not-used: a per-user connection is replaced by an exchange', T, async () => {
    const { principal } = await caller('olivia');
    const store = new MemoryConnectionStore();
    await store.put({ principal: 'olivia', server: serverA.url, serverId: 'a', mode: 'per-user', tokens: { accessToken: 'signed-in-token', tokenType: 'Bearer', requestedScopes: [], issuer: as.issuer, resource: serverA.url }, createdAt: 1, updatedAt: 1 });
    const connection = await tokenOf(credentials(serverA, store), principal);
    assert.equal(connection.mode, 'token-exchange');
    assert.notEqual(connection.tokens.accessToken, 'signed-in-token');
  });

  it('a subject token the AS refuses surfaces as ERR_AUTH_INVALID_GRANT and stores nothing', T, async () => {
    const store = new MemoryConnectionStore();
    const c = credentials(serverA, store);
    // The gateway's front door trusts the token (same issuer), but the AS no longer accepts this audience.
    const { principal } = await caller('peggy');
    as.gatewayResources.delete(GATEWAY);
    try {
      await assert.rejects(c.credentialFor(principal), (e: unknown) => (e as { code?: string }).code === 'ERR_AUTH_INVALID_GRANT');
    } finally {
      as.gatewayResources.add(GATEWAY);
    }
    assert.deepEqual(await store.list(), []);
  });
  describe('toolScopes: each tool\'s calls exchanged for exactly its scopes', () => {
    const toolScopes = { write_note: ['mcp:write', 'mcp:read'], read_note: ['mcp:read'], admin_op: ['mcp:read', 'mcp:admin'] };
    const scoped = (server: AudienceResourceServer, store?: ConnectionStore, extra: { now?: () => number } = {}) => credentials(server, store, { ...extra, options: { toolScopes } });
    const writeKey = () => scopedServerKey(serverA.url, ['mcp:read', 'mcp:write']);
    /** A scope set in one order (the AS answers in the order asked). */
    const sorted = (scopes: string | readonly string[] | undefined): string => (typeof scopes === 'string' ? scopes.split(' ') : [...(scopes ?? [])]).sort().join(' ');

    it('a listed tool gets exactly its scope set, under its own key; an unlisted tool, a tool listed with the default set and a non-call get the default under the server\'s own key (judged at the resource server)', T, async () => {
      const { principal } = await caller('tess');
      const c = scoped(serverA);
      const start = as.exchanges.length;
      const write = await tokenOf(c, principal, 'write_note');
      assert.equal(write.server, writeKey());
      assert.equal(c.credentialId('write_note'), writeKey());
      assert.deepEqual(exchangesSince(start).map((e) => sorted(e.scope)), ['mcp:read mcp:write']);
      const read = await tokenOf(c, principal, 'read_note');
      assert.equal(read.server, serverA.url, 'the default set keeps the server\'s own key');
      assert.equal(c.credentialId('read_note'), '');
      for (const tool of ['other', undefined]) {
        assert.equal((await tokenOf(c, principal, tool)).tokens.accessToken, read.tokens.accessToken, `${tool ?? 'a non-call'}: the default token`);
        assert.equal(c.credentialId(tool), '');
      }
      assert.deepEqual(exchangesSince(start).map((e) => sorted(e.scope)), ['mcp:read mcp:write', 'mcp:read'], 'one exchange per scope set');
      await callWhoami(serverA.url, write.tokens.accessToken);
      assert.equal(sorted(serverA.calls.at(-1)?.scopes), 'mcp:read mcp:write');
      await callWhoami(serverA.url, read.tokens.accessToken);
      assert.equal(sorted(serverA.calls.at(-1)?.scopes), 'mcp:read');
    });

    it('read-tool-never-carries-write-scopes: with the write tool\'s token cached, a read call\'s token is read-only at the resource server', T, async () => {
      const { principal } = await caller('uma');
      const store = new MemoryConnectionStore();
      const c = scoped(serverA, store);
      await tokenOf(c, principal, 'write_note');
      const read = await tokenOf(c, principal, 'read_note');
      assert.deepEqual(jose.decodeJwt(read.tokens.accessToken)['scope'], 'mcp:read');
      await callWhoami(serverA.url, read.tokens.accessToken);
      assert.equal(sorted(serverA.calls.at(-1)?.scopes), 'mcp:read');
      // Listed as the server's connections, told apart by their scopes; revoking the server revokes both.
      const listed = await store.list({ server: serverA.url });
      assert.deepEqual(listed.map((l) => [l.server, sorted(l.scopes)]).sort(), [[serverA.url, 'mcp:read'], [serverA.url, 'mcp:read mcp:write']]);
      assert.equal(await store.revoke({ server: serverA.url }), 2);
    });

    it('tool-named-like-an-Object-prototype-member (constructor, __proto__, toString) gets the default scopes', T, async () => {
      const { principal } = await caller('vic');
      const c = scoped(serverA);
      const start = as.exchanges.length;
      for (const tool of ['constructor', '__proto__', 'toString', 'hasOwnProperty']) {
        assert.equal(c.credentialId(tool), '');
        assert.equal((await tokenOf(c, principal, tool)).server, serverA.url);
      }
      assert.deepEqual(exchangesSince(start).map((e) => sorted(e.scope)), ['mcp:read']);
    });

    it('renewal of a tool\'s token (expiry, or renew after a 401) re-exchanges once for that tool\'s scopes under its key; the default is untouched', T, async () => {
      const { principal } = await caller('walt');
      const time = clock();
      const c = scoped(serverA, new MemoryConnectionStore(), { now: time.now });
      const write = await tokenOf(c, principal, 'write_note');
      const read = await tokenOf(c, principal, 'read_note');
      const start = as.exchanges.length;
      const renewed = await Promise.all(Array.from({ length: 5 }, () => c.renew(principal, write)));
      assert.equal(new Set(renewed.map((x) => x?.tokens.accessToken)).size, 1);
      assert.equal(renewed[0]?.server, writeKey());
      assert.deepEqual(exchangesSince(start).map((e) => sorted(e.scope)), ['mcp:read mcp:write']);
      assert.equal((await tokenOf(c, principal, 'read_note')).tokens.accessToken, read.tokens.accessToken);
      time.advance(600_000);
      const both = await Promise.all(Array.from({ length: 10 }, (_, i) => tokenOf(c, principal, i % 2 === 0 ? 'write_note' : 'read_note')));
      assert.equal(new Set(both.map((x) => x.tokens.accessToken)).size, 2);
      assert.deepEqual(exchangesSince(start).map((e) => sorted(e.scope)).sort(), ['mcp:read', 'mcp:read mcp:write', 'mcp:read mcp:write'], 'one re-exchange per set');
      // A connection that is none of this server's scope sets is never renewed.
      assert.equal(await c.renew(principal, { ...write, server: scopedServerKey(serverA.url, ['mcp:admin']) }), undefined);
    });

    it('a connection made before toolScopes was configured stays the default (same key), used by unlisted tools', T, async () => {
      const { principal } = await caller('xena');
      const store = new MemoryConnectionStore();
      const before = await tokenOf(credentials(serverA, store), principal);
      const start = as.exchanges.length;
      assert.equal((await tokenOf(scoped(serverA, store), principal, 'unlisted')).tokens.accessToken, before.tokens.accessToken);
      assert.equal(exchangesSince(start).length, 0);
    });

    for (const backend of ['SQLite', 'PostgreSQL'] as const) {
      it(`two gateways on one ${backend} store: 10 concurrent first calls of two tools exchange once per scope set; revoking the server revokes every set`, T, async () => {
        const { principal } = await caller(`yuri-${backend}`);
        const [one, two] = await twoStores(backend);
        const [g1, g2] = [scoped(serverA, one), scoped(serverA, two)];
        const start = as.exchanges.length;
        const made = await Promise.all(Array.from({ length: 10 }, (_, i) => tokenOf(i % 2 === 0 ? g1 : g2, principal, i % 4 < 2 ? 'write_note' : 'admin_op')));
        assert.equal(new Set(made.map((x) => x.tokens.accessToken)).size, 2);
        assert.deepEqual(exchangesSince(start).map((e) => sorted(e.scope)).sort(), ['mcp:admin mcp:read', 'mcp:read mcp:write'], 'one exchange per scope set across both');
        const listed = await two.list({ server: serverA.url, principal: principal.id });
        assert.deepEqual(listed.map((l) => l.server), [serverA.url, serverA.url], 'listed as the server\'s connections');
        assert.equal(await one.revoke({ server: serverA.url }), 2);
        assert.deepEqual(await two.list({ principal: principal.id }), []);
      });
    }
  });
});
