// auth: "per-user" across gateway restarts, behind a reverse proxy and across tenants, over real
// HTTP: a real authorization server (oidc-provider, counting its dynamic client registrations), an
// audience-checking resource server that logs every call, and the gateway's own wiring
// (`gatewayDownstreamAuth` over the SQLite connection store, the HTTP listener with the sign-in
// routes). Judged by what reached the resource server and what the AS was asked.
// https://www.rfc-editor.org/rfc/rfc7591 (the gateway's client registration)
// https://modelcontextprotocol.io/specification/2025-11-25/client/elicitation#url-elicitation-required-error
import assert from 'node:assert/strict';
import { randomBytes } from 'node:crypto';
import { mkdir, mkdtemp, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { after, before, describe, it } from 'node:test';
import { defaultTransportFactory } from '../../src/adapters/hostTransports.js';
import type { ListeningServer } from '../../src/adapters/nodeHttp.js';
import { tokenDigest } from '../../src/auth/resource/staticTokens.js';
import { gatewayDownstreamAuth } from '../../src/cli/gatewayDownstreamAuth.js';
import { revokeConnections } from '../../src/host/connectionRevocation.js';
import type { Connection } from '../../src/host/connections.js';
import type { GatewayHttpAuth } from '../../src/cli/gatewayHttp.js';
import { serveGatewayHttp } from '../../src/cli/gatewayHttp.js';
import { McpClient } from '../../src/client/mcpClient.js';
import { parseConfig } from '../../src/host/config.js';
import { Gateway, GATEWAY_CLIENT_CAPABILITIES } from '../../src/host/gateway.js';
import { Host } from '../../src/host/host.js';
import { gatewayFrontDoor } from '../../src/host/openGateway.js';
import { URL_ELICITATION_REQUIRED } from '../../src/host/principalClients.js';
import { tenantFromClaim } from '../../src/host/tenantScope.js';
import { JsonRpcError } from '../../src/jsonrpc/errors.js';
import { ConnectionSealer } from '../../src/store/connectionSealer.js';
import { SqliteConnectionStore } from '../../src/store/sqliteConnectionStore.js';
import { StreamableHttpClientTransport } from '../../src/transport/http/client/client.js';
import { silentLogger } from '../../src/util/logger.js';
import { startAudienceResourceServer, type AudienceResourceServer } from '../fixtures/audienceResourceServer.js';
import { driveLogin, startOidcAuthServer, type OidcAuthServer } from '../fixtures/oidcAuthServer.js';
import { cli } from '../unit/cli/cliProcess.js';
import { freePort } from './remoteOAuthSupport.js';

const T = { timeout: 60_000 };
const ALICE = 'alice-gateway-token-0123456789abcdef0123';

let as: OidcAuthServer;
let rs: AudienceResourceServer;
let dir: string;
let catalogToken: string;
const key = new Uint8Array(randomBytes(32));

/** One running gateway: its listener, store and the URL a person's browser uses. */
interface RunningGateway {
  readonly listenUrl: string;
  readonly store: SqliteConnectionStore;
  close(): Promise<void>;
}

/** The gateway's config (one per-user server in front of the resource server); `stateDir` for the CLI's. */
function gatewayConfig(stateDir?: string) {
  return parseConfig(
    JSON.stringify({ mcpServers: { gh: { type: 'http', url: rs.url, headers: { Authorization: 'Bearer ${env:CATALOG_TOKEN}' } } }, switchboard: { ...(stateDir !== undefined ? { stateDir } : {}), servers: { gh: { auth: 'per-user' } } } }),
    { file: join(dir, 'switchboard.json'), env: { CATALOG_TOKEN: catalogToken } },
  );
}

/** Starts the gateway's per-user wiring over the SQLite store `file` (re-opened: a restarted process). */
async function startGateway(options: { readonly port: number; readonly file: string; readonly publicUrl?: string; readonly auth?: GatewayHttpAuth; readonly tenantClaim?: string }): Promise<RunningGateway> {
  const config = gatewayConfig();
  const store = SqliteConnectionStore.open(options.file, ConnectionSealer.fromKey(key));
  const downstream = gatewayDownstreamAuth(silentLogger, {
    store,
    ...(options.publicUrl !== undefined ? { publicUrl: options.publicUrl } : {}),
    ...(options.tenantClaim !== undefined ? { tenantOf: tenantFromClaim(options.tenantClaim) } : {}),
  });
  const host = await Host.open({ servers: config.servers, transport: defaultTransportFactory({ environment: {} }), logger: silentLogger, capabilities: GATEWAY_CLIENT_CAPABILITIES, authority: downstream.authority });
  await host.start();
  const running: ListeningServer = await serveGatewayHttp(gatewayFrontDoor(new Gateway(host), host), {
    host: '127.0.0.1',
    port: options.port,
    path: '/mcp',
    logger: silentLogger,
    auth: options.auth ?? { tokens: [{ name: 'alice', sha256: tokenDigest(ALICE), scopes: [] }] },
    ...(options.publicUrl !== undefined ? { publicUrl: options.publicUrl } : {}),
    personRoutes: (auth, url) => {
      downstream.setGatewayUrl(url);
      return downstream.routes(auth, false);
    },
  });
  return {
    listenUrl: running.url.replace(/\/$/, ''),
    store,
    close: async () => {
      await downstream.authority.close();
      await running.close();
      await host.close();
      await store.close();
    },
  };
}

/** Calls `whoami` through `gateway` with `token`: the subject the resource server saw, or the sign-in link. */
async function whoami(gateway: RunningGateway, token: string): Promise<{ kind: 'result'; sub: string } | { kind: 'sign-in'; url: string }> {
  const client = new McpClient({ name: 'caller', version: '1' }, { logger: silentLogger, era: 'stateful', capabilities: { elicitation: { url: {} } } });
  try {
    await client.connect(new StreamableHttpClientTransport({ url: `${gateway.listenUrl}/mcp`, headers: { authorization: `Bearer ${token}` } }));
    const name = (await client.listTools()).find((t) => t.name.endsWith('whoami'))?.name ?? 'whoami';
    const result = await client.callTool(name, {});
    const text = result.content.map((c) => (c.type === 'text' ? c.text : '')).join('');
    return { kind: 'result', sub: String((JSON.parse(text) as { sub?: unknown }).sub) };
  } catch (error) {
    if (!(error instanceof JsonRpcError) || error.code !== URL_ELICITATION_REQUIRED) throw error;
    const [first] = (error.data as { elicitations: { url: string }[] }).elicitations;
    return { kind: 'sign-in', url: String(first?.url) };
  } finally {
    await client.close();
  }
}

/**
 * The person's browser through the whole sign-in: opens `link` (rewritten to the listener, as a
 * proxy would forward it) with `token`, logs in at the AS as `account`, and follows the redirect
 * back (again through the "proxy"). Returns the AS's authorization request and the callback status.
 */
async function signIn(gateway: RunningGateway, link: string, token: string, account: string): Promise<{ authorization: URL; status: number; startStatus: number }> {
  const viaProxy = (url: string): string => `${gateway.listenUrl}${new URL(url).pathname}${new URL(url).search}`;
  const opened = await fetch(viaProxy(link), { method: 'POST', redirect: 'manual', headers: { 'content-type': 'application/x-www-form-urlencoded', origin: gateway.listenUrl }, body: new URLSearchParams({ token }).toString() });
  const location = opened.headers.get('location');
  if (opened.status !== 303 || location === null) return { authorization: new URL('about:blank'), status: 0, startStatus: opened.status };
  const cookie = (opened.headers.get('set-cookie') ?? '').split(';')[0] ?? '';
  const callback = await driveLogin(location, account);
  const done = await fetch(viaProxy(callback.href), { redirect: 'manual', headers: { cookie } });
  return { authorization: new URL(location), status: done.status, startStatus: opened.status };
}

before(async () => {
  as = await startOidcAuthServer();
  rs = await startAudienceResourceServer(as, { name: 'gh' });
  catalogToken = await as.accessToken('catalog-reader', rs.url);
  dir = await mkdtemp(join(tmpdir(), 'sb-peruser-durable-'));
});

after(async () => {
  await rs?.close();
  await as?.close();
  await rm(dir, { recursive: true, force: true });
});

describe('e2e: per-user sign-in that lasts (restart, reverse proxy, tenants)', () => {
  it('after a restart the refresh of an existing connection succeeds with the stored client registration; the AS saw one registration', T, async () => {
    const file = join(dir, 'restart.db');
    const port = await freePort();
    const first = await startGateway({ port, file });
    const registrationsBefore = as.registrations.length;
    let stale: string;
    try {
      const link = await whoami(first, ALICE);
      assert.equal(link.kind, 'sign-in');
      if (link.kind !== 'sign-in') return;
      assert.equal((await signIn(first, link.url, ALICE, 'alice@example.com')).status, 200);
      assert.equal(as.registrations.length - registrationsBefore, 1, 'the gateway registered itself once');
      const [summary] = await first.store.list();
      assert.ok(summary !== undefined && summary.refreshable);
      const connection = await first.store.get({ principal: 'alice', server: summary.server });
      assert.ok(connection !== undefined);
      // The resource server stops accepting the access token: the next call must refresh.
      stale = 'stale-access-token';
      await first.store.put({ ...connection, tokens: { ...connection.tokens, accessToken: stale } });
    } finally {
      await first.close();
    }
    // A new process: a fresh store object over the same file, nothing kept in memory.
    const second = await startGateway({ port, file });
    try {
      const from = rs.calls.length;
      const answer = await whoami(second, ALICE);
      assert.deepEqual(answer, { kind: 'result', sub: 'alice@example.com' }, 'refreshed, not asked to sign in again');
      assert.deepEqual(rs.calls.slice(from).map((c) => c.sub), ['alice@example.com']);
      assert.equal(as.registrations.length - registrationsBefore, 1, 'no new registration after the restart');
      const [summary] = await second.store.list();
      assert.notEqual((await second.store.get({ principal: 'alice', server: String(summary?.server) }))?.tokens.accessToken, stale);
    } finally {
      await second.close();
    }
  });

  it('a registration the AS forgot (invalid_client on refresh) is dropped from the store: the person signs in again under a new registration', T, async () => {
    const gateway = await startGateway({ port: 0, file: join(dir, 'forgotten.db') });
    try {
      const before = as.registrations.length;
      const link = await whoami(gateway, ALICE);
      if (link.kind !== 'sign-in') return assert.fail('expected a sign-in');
      assert.equal((await signIn(gateway, link.url, ALICE, 'alice@example.com')).status, 200);
      const forgotten = as.registrations.at(-1);
      assert.ok(forgotten !== undefined && as.registrations.length === before + 1);
      await as.forgetClient(forgotten);
      const [summary] = await gateway.store.list();
      const connection = await gateway.store.get({ principal: 'alice', server: String(summary?.server) });
      assert.ok(connection !== undefined);
      await gateway.store.put({ ...connection, tokens: { ...connection.tokens, accessToken: 'stale-access-token' } });
      const from = rs.calls.length;
      const again = await whoami(gateway, ALICE);
      assert.equal(again.kind, 'sign-in', 'the refresh was refused: sign in again');
      assert.deepEqual(rs.calls.slice(from), []);
      if (again.kind !== 'sign-in') return;
      assert.equal((await signIn(gateway, again.url, ALICE, 'alice@example.com')).status, 200);
      assert.equal(as.registrations.length, before + 2, 'registered anew');
      assert.notEqual(as.registrations.at(-1), forgotten);
      assert.deepEqual(await whoami(gateway, ALICE), { kind: 'result', sub: 'alice@example.com' });
    } finally {
      await gateway.close();
    }
  });

  it('behind a reverse proxy the sign-in link and the redirect_uri carry gateway.publicUrl; the flow completes through the proxy', T, async () => {
    const publicUrl = 'https://gw.proxy.example';
    const gateway = await startGateway({ port: 0, file: join(dir, 'proxy.db'), publicUrl });
    try {
      const link = await whoami(gateway, ALICE);
      assert.equal(link.kind, 'sign-in');
      if (link.kind !== 'sign-in') return;
      assert.ok(link.url.startsWith(`${publicUrl}/oauth/start/`), `the link names the public URL: ${link.url}`);
      assert.ok(!link.url.includes('127.0.0.1'), 'never the listening address');
      const { authorization, status } = await signIn(gateway, link.url, ALICE, 'alice@example.com');
      assert.equal(authorization.searchParams.get('redirect_uri'), `${publicUrl}/oauth/callback`);
      assert.equal(status, 200);
      const from = rs.calls.length;
      assert.deepEqual(await whoami(gateway, ALICE), { kind: 'result', sub: 'alice@example.com' });
      assert.deepEqual(rs.calls.slice(from).map((c) => c.sub), ['alice@example.com']);
    } finally {
      await gateway.close();
    }
  });

  it('connection-used-across-tenants: the same subject under another tenant claim gets a sign-in, never the stored token; the link of one tenant is refused to the other', T, async () => {
    const port = await freePort();
    const audience = `http://127.0.0.1:${port}/mcp`;
    const gateway = await startGateway({ port, file: join(dir, 'tenants.db'), auth: { oauth: { issuer: as.issuer, audience, jwksUri: as.jwksUri } }, tenantClaim: 'tid' });
    const now = Math.floor(Date.now() / 1000);
    const token = (tid: string): Promise<string> => as.sign({ iss: as.issuer, aud: audience, sub: 'alice', tid, client_id: 'mcp-public-client', scope: 'mcp:read', iat: now, exp: now + 600, jti: randomBytes(8).toString('hex') });
    const [acme, evil] = [await token('acme'), await token('evil')];
    try {
      const link = await whoami(gateway, acme);
      if (link.kind !== 'sign-in') return assert.fail('expected a sign-in');
      // Alice of tenant "evil" opening acme-alice's link: refused before the AS.
      const foreign = await signIn(gateway, link.url, evil, 'mallory@example.com');
      assert.equal(foreign.startStatus, 403);
      const again = await whoami(gateway, acme);
      if (again.kind !== 'sign-in') return assert.fail('expected a sign-in');
      assert.equal((await signIn(gateway, again.url, acme, 'alice@acme.example')).status, 200);
      const [summary] = await gateway.store.list({ tenant: 'acme' });
      assert.equal(summary?.tenant, 'acme');
      assert.deepEqual(await gateway.store.list({ tenant: 'evil' }), []);
      const stored = await gateway.store.get({ principal: 'alice', server: String(summary?.server) });
      assert.ok(stored !== undefined);
      const from = rs.calls.length;
      const requestsFrom = rs.requests.length;
      const other = await whoami(gateway, evil);
      assert.equal(other.kind, 'sign-in', 'another tenant is asked to sign in');
      assert.deepEqual(rs.calls.slice(from), [], 'no call reached the server for the other tenant');
      assert.ok(rs.requests.slice(requestsFrom).every((r) => r.authorization !== `Bearer ${stored.tokens.accessToken}`), 'the stored token never went out for the other tenant');
      // The tenant it was made under still uses it.
      assert.deepEqual(await whoami(gateway, acme), { kind: 'result', sub: 'alice@acme.example' });
    } finally {
      await gateway.close();
    }
  });
});

/** Alice signs in through `gateway`: her stored connection (refresh token included) and the client id the gateway registered. */
async function signedInAlice(gateway: RunningGateway): Promise<{ connection: Connection; clientId: string }> {
  const link = await whoami(gateway, ALICE);
  if (link.kind !== 'sign-in') return assert.fail('expected a sign-in');
  assert.equal((await signIn(gateway, link.url, ALICE, 'alice@example.com')).status, 200);
  const [summary] = await gateway.store.list();
  const connection = await gateway.store.get({ principal: 'alice', server: String(summary?.server) });
  const clientId = as.registrations.at(-1);
  assert.ok(connection?.tokens.refreshToken !== undefined && clientId !== undefined);
  return { connection, clientId };
}

/** A refresh grant at the AS with `connection`'s refresh token, as `clientId` (a public client): the AS's own answer. */
async function refreshAtAs(connection: Connection, clientId: string): Promise<{ status: number; error?: string }> {
  const body = new URLSearchParams({ grant_type: 'refresh_token', refresh_token: String(connection.tokens.refreshToken), client_id: clientId, resource: connection.tokens.resource });
  const response = await fetch(as.tokenEndpoint, { method: 'POST', headers: { 'content-type': 'application/x-www-form-urlencoded' }, body });
  const json = (await response.json()) as { error?: string };
  return { status: response.status, ...(json.error !== undefined ? { error: json.error } : {}) };
}

// https://www.rfc-editor.org/rfc/rfc7009: revoking a connection revokes its refresh token at the AS
// that issued it, judged at the AS (a refresh grant with the token is refused afterwards).
describe('e2e: revoking a per-user connection revokes its tokens at the authorization server (RFC 7009)', () => {
  it('`switchboard connections revoke` (a separate process over the gateway\'s store): the AS refuses the refresh token afterwards (invalid_grant)', T, async () => {
    const stateDir = join(dir, 'cli-state');
    await mkdir(stateDir, { recursive: true });
    const gateway = await startGateway({ port: 0, file: join(stateDir, 'connections.db') });
    try {
      const { connection, clientId } = await signedInAlice(gateway);
      const configFile = join(dir, 'cli-switchboard.json');
      await writeFile(configFile, JSON.stringify({ mcpServers: { gh: { type: 'http', url: rs.url } }, switchboard: { stateDir, servers: { gh: { auth: 'per-user' } } } }));
      const run = await cli(['connections', 'revoke', '--principal', 'alice', '--config', configFile, '--json'], { SWITCHBOARD_CONNECTIONS_KEY: Buffer.from(key).toString('hex') });
      assert.equal(run.code, 0, run.stderr);
      const answer = JSON.parse(run.stdout) as { revoked: number; connections: { principal: string; asRevoked: unknown }[] };
      assert.deepEqual([answer.revoked, answer.connections.map((c) => [c.principal, c.asRevoked])], [1, [['alice', true]]]);
      assert.ok(!run.stdout.includes(String(connection.tokens.refreshToken)) && !run.stdout.includes(connection.tokens.accessToken), 'no token printed');
      assert.deepEqual(await gateway.store.list(), [], 'removed locally');
      assert.deepEqual(await refreshAtAs(connection, clientId), { status: 400, error: 'invalid_grant' }, 'the AS no longer honours the refresh token');
    } finally {
      await gateway.close();
    }
  });

  it('an AS whose metadata names no revocation_endpoint: removed locally all the same, reported unsupported (and the token still works at the AS)', T, async () => {
    const gateway = await startGateway({ port: 0, file: join(dir, 'no-revocation.db') });
    try {
      const { connection, clientId } = await signedInAlice(gateway);
      const withoutRevocation: typeof fetch = async (input, init) => {
        const response = await fetch(input, init);
        if (!String(input).includes('/.well-known/') || !response.ok) return response;
        const { revocation_endpoint: _gone, ...metadata } = (await response.json()) as Record<string, unknown>;
        return Response.json(metadata);
      };
      const revoked = await revokeConnections({ store: gateway.store, servers: () => gatewayConfig().servers, fetch: withoutRevocation }, { principal: 'alice' });
      assert.deepEqual(revoked.map((r) => [r.summary.principal, r.asRevoked]), [['alice', 'unsupported']]);
      assert.match(revoked[0]?.reason ?? '', /no revocation_endpoint/);
      assert.deepEqual(await gateway.store.list(), []);
      assert.equal((await refreshAtAs(connection, clientId)).status, 200, 'nothing was revoked at the AS');
    } finally {
      await gateway.close();
    }
  });

  it('an AS that refuses the revocation (the client it was issued to is gone: invalid_client): removed locally all the same, the failure reported with its reason', T, async () => {
    const gateway = await startGateway({ port: 0, file: join(dir, 'revocation-error.db') });
    try {
      const { clientId } = await signedInAlice(gateway);
      await as.forgetClient(clientId);
      const revoked = await revokeConnections({ store: gateway.store, servers: () => gatewayConfig().servers }, { principal: 'alice' });
      assert.deepEqual(revoked.map((r) => [r.summary.principal, r.asRevoked]), [['alice', false]]);
      assert.match(revoked[0]?.reason ?? '', /invalid_client/);
      assert.deepEqual(await gateway.store.list(), [], 'the local revocation stands');
    } finally {
      await gateway.close();
    }
  });
});
