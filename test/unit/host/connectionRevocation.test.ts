/**
 * `revokeConnections` (RFC 7009) over the in-memory store and a recording authorization server:
 * which token and hint, which client, how many at once, and that the local revocation stands
 * whatever the authorization server does.
 */
import { describe, it } from 'node:test';
import assert from 'node:assert/strict';
import type { FetchLike } from '../../../src/auth/http.js';
import { parseConfig } from '../../../src/host/config.js';
import { revokeConnections } from '../../../src/host/connectionRevocation.js';
import { MemoryConnectionStore, type Connection, type ConnectionStore } from '../../../src/host/connections.js';

const T = { timeout: 10_000 };
const AS = 'https://as.example';
const GH = 'https://gh.example/mcp';
const NOTES = 'https://notes.example/mcp';

const config = parseConfig(
  JSON.stringify({
    mcpServers: { gh: { url: GH }, notes: { url: NOTES } },
    switchboard: { servers: { gh: { auth: 'per-user', oauth: { clientId: 'gw-public' } }, notes: { auth: { mode: 'token-exchange', issuer: AS, clientId: 'gw-exchange', clientSecret: '${env:EXCHANGE_SECRET}' } } } },
  }),
  { file: '/tmp/switchboard.json', env: { EXCHANGE_SECRET: 'exchange-secret' } },
);

const conn = (principal: string, server: string, mode: Connection['mode'], refresh: boolean): Connection => ({
  principal,
  server,
  serverId: server === GH ? 'gh' : 'notes',
  mode,
  tokens: { accessToken: `AT-${principal}`, tokenType: 'Bearer', ...(refresh ? { refreshToken: `RT-${principal}` } : {}), requestedScopes: [], issuer: AS, resource: server },
  createdAt: 1,
  updatedAt: 1,
});

/** An AS recording each revocation (form and Authorization header); `delay` holds each answer until released, counting those in flight. */
function recordingAs(answer: () => Response = () => new Response(null, { status: 200 })) {
  const seen: { form: Record<string, string>; authorization: string | undefined }[] = [];
  let inFlight = 0;
  let maxInFlight = 0;
  const fetch: FetchLike = async (input, init) => {
    if (String(input).endsWith('/.well-known/oauth-authorization-server')) return Response.json({ issuer: AS, token_endpoint: `${AS}/token`, revocation_endpoint: `${AS}/revoke` });
    inFlight++;
    maxInFlight = Math.max(maxInFlight, inFlight);
    await new Promise((resolve) => setImmediate(resolve));
    seen.push({ form: Object.fromEntries(new URLSearchParams(String(init?.body))), authorization: (init?.headers as Record<string, string>)['authorization'] });
    inFlight--;
    return answer();
  };
  return { fetch, seen, maxInFlight: () => maxInFlight };
}

const servers = () => config.servers;

describe('revokeConnections', T, () => {
  it('per-user with a configured client: the refresh token, hinted, as that public client (none)', async () => {
    const store = new MemoryConnectionStore();
    await store.put(conn('alice', GH, 'per-user', true));
    const as = recordingAs();
    const revoked = await revokeConnections({ store, servers, fetch: as.fetch }, { principal: 'alice' });
    assert.deepEqual(revoked.map((r) => r.asRevoked), [true]);
    assert.deepEqual(as.seen, [{ form: { token: 'RT-alice', token_type_hint: 'refresh_token', client_id: 'gw-public' }, authorization: undefined }]);
  });

  it('token-exchange without a refresh token: the access token, hinted, as the configured confidential client (client_secret_basic)', async () => {
    const store = new MemoryConnectionStore();
    await store.put(conn('alice', NOTES, 'token-exchange', false));
    const as = recordingAs();
    await revokeConnections({ store, servers, fetch: as.fetch }, { server: NOTES });
    assert.deepEqual(as.seen, [{ form: { token: 'AT-alice', token_type_hint: 'access_token' }, authorization: `Basic ${btoa('gw-exchange:exchange-secret')}` }]);
  });

  it('a token-exchange server no longer configured: removed, reported false (no client to revoke with), nothing sent', async () => {
    const store = new MemoryConnectionStore();
    await store.put(conn('alice', NOTES, 'token-exchange', false));
    const as = recordingAs();
    const revoked = await revokeConnections({ store, servers: () => [], fetch: as.fetch }, { principal: 'alice' });
    assert.equal(revoked[0]?.asRevoked, false);
    assert.match(revoked[0]?.reason ?? '', /no client to revoke with/);
    assert.deepEqual(as.seen, []);
    assert.deepEqual(await store.list(), []);
  });

  it('per-user without a configured client: the dynamic registrations at the issuer are tried in turn until one is accepted', async () => {
    const store = new MemoryConnectionStore();
    const register = (clientId: string, redirectUri: string) => store.registerOnce({ issuer: AS, redirectUri }, () => Promise.resolve({ issuer: AS, clientId, tokenEndpointAuthMethod: 'none', source: 'dcr' }));
    await register('old-client', 'https://old.example/oauth/callback');
    await register('new-client', 'https://new.example/oauth/callback');
    await store.put(conn('alice', 'https://other.example/mcp', 'per-user', true));
    const as = recordingAs();
    let calls = 0;
    const picky = recordingAs(() => (++calls === 1 ? Response.json({ error: 'invalid_request', error_description: 'this token does not belong to you' }, { status: 400 }) : new Response(null, { status: 200 })));
    const revoked = await revokeConnections({ store, servers, fetch: picky.fetch }, { principal: 'alice' });
    assert.deepEqual(revoked.map((r) => r.asRevoked), [true]);
    assert.deepEqual(picky.seen.map((s) => s.form['client_id']), ['old-client', 'new-client']);
    assert.deepEqual(as.seen, []);
  });

  it('many connections: at most `concurrency` revocations at once, every one reported', async () => {
    const store = new MemoryConnectionStore();
    for (let i = 0; i < 10; i++) await store.put(conn(`p${i}`, GH, 'per-user', true));
    const as = recordingAs();
    const revoked = await revokeConnections({ store, servers, fetch: as.fetch, concurrency: 3 }, { server: GH });
    assert.equal(revoked.length, 10);
    assert.ok(revoked.every((r) => r.asRevoked === true));
    assert.equal(as.seen.length, 10);
    assert.ok(as.maxInFlight() <= 3, `at most 3 at once, saw ${as.maxInFlight()}`);
  });

  it('a row whose tokens do not open is removed all the same and reported false with why', async () => {
    const inner = new MemoryConnectionStore();
    await inner.put(conn('alice', GH, 'per-user', true));
    const store: ConnectionStore = Object.assign(Object.create(inner) as ConnectionStore, {
      take: async (f: Parameters<ConnectionStore['take']>[0]) => (await inner.take(f)).map((t) => ({ summary: t.summary, unreadable: 'sealed under another key' })),
    });
    const as = recordingAs();
    const revoked = await revokeConnections({ store, servers, fetch: as.fetch }, { principal: 'alice' });
    assert.deepEqual([revoked[0]?.asRevoked, revoked[0]?.reason], [false, 'its tokens could not be read (sealed under another key)']);
    assert.deepEqual(await inner.list(), []);
    assert.deepEqual(as.seen, []);
  });
});
