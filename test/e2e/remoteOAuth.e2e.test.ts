// Remote servers with OAuth, end to end over real HTTP: our MCP server protected by the
// resource-server layer and the dev authorization server, an unprotected server beside it,
// `switchboard login` (played by a test "browser"), and the host/gateway using the stored
// token unattended: the token file is 0600 and keyed by the server's identity, the gateway
// calls the tool, an expired token is refreshed, a renamed entry keeps its tokens, a
// different URL does not get them, and the upstream client's token never goes downstream.
// https://modelcontextprotocol.io/specification/2025-11-25/basic/authorization
import assert from 'node:assert/strict';
import { mkdtemp, readFile, readdir, rm, stat } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { basename, join } from 'node:path';
import { after, before, describe, it } from 'node:test';
import { defaultTransportFactory } from '../../src/adapters/hostTransports.js';
import type { DevAuthorizationServer } from '../../src/auth/dev/devAuthorizationServer.js';
import { McpClient } from '../../src/client/mcpClient.js';
import { parseConfig } from '../../src/host/config.js';
import type { HostConfig } from '../../src/host/configTypes.js';
import { Gateway, GATEWAY_CLIENT_CAPABILITIES } from '../../src/host/gateway.js';
import { Host } from '../../src/host/host.js';
import { canonicalServerUrl } from '../../src/host/canonicalServerUrl.js';
import { serveGatewayHttp } from '../../src/cli/gatewayHttp.js';
import { gatewayFrontDoor } from '../../src/host/openGateway.js';
import { tokenDigest } from '../../src/auth/resource/staticTokens.js';
import { hostOAuthHooks } from '../../src/cli/hostSetup.js';
import { login, logout } from '../../src/cli/oauthLogin.js';
import { StreamableHttpClientTransport } from '../../src/transport/http/client/client.js';
import { silentLogger } from '../../src/util/logger.js';
import { browser, clock, freePort, startAuthorizationServer, startServer, type RecordingServer } from './remoteOAuthSupport.js';

const time = clock();
let as: DevAuthorizationServer;
let remote: RecordingServer;
let other: RecordingServer;
let open: RecordingServer;
let dir: string;
let redirectPort: number;
const closers: (() => Promise<void>)[] = [];

before(async () => {
  const started = await startAuthorizationServer(time.now);
  as = started.as;
  closers.push(started.close);
  remote = await startServer('remote', { as, now: time.now });
  other = await startServer('other', { as, now: time.now });
  open = await startServer('open');
  closers.push(remote.close, other.close, open.close);
  dir = await mkdtemp(join(tmpdir(), 'sb-remote-oauth-'));
  redirectPort = await freePort();
});

after(async () => {
  for (const close of closers.reverse()) await close();
  await rm(dir, { recursive: true, force: true });
});

/** A config: `servers` id → URL, every one but `open` with an `oauth` section. */
function config(servers: Record<string, string>): HostConfig {
  const mcpServers = Object.fromEntries(Object.entries(servers).map(([id, url]) => [id, { type: 'http', url }]));
  const options = Object.fromEntries(Object.keys(servers).filter((id) => id !== 'open').map((id) => [id, { oauth: { redirectPort } }]));
  return parseConfig(JSON.stringify({ mcpServers, switchboard: { servers: options } }), { file: join(dir, 'switchboard.json'), env: {} });
}

/** The host the gateway runs on `cfg`, started (every server tried once). */
async function openHost(cfg: HostConfig): Promise<Host> {
  const host = await Host.open({
    servers: cfg.servers,
    transport: defaultTransportFactory({ environment: {}, auth: hostOAuthHooks(cfg) }),
    logger: silentLogger,
    capabilities: GATEWAY_CLIENT_CAPABILITIES,
    backoff: { maxMs: 60_000 },
  });
  await host.start();
  return host;
}

const stateOf = (host: Host, id: string): { state: string; lastError?: string } | undefined => host.health().find((h) => h.id === id);
const text = (result: unknown): string => (result as { content: { text?: string }[] }).content.map((c) => c.text ?? '').join('');
const events = (endpoint: string, grant?: string): number => as.events.filter((e) => e.endpoint === endpoint && (grant === undefined || e.params['grant_type'] === grant)).length;
const tokenFile = async (url: string): Promise<{ identity: string; tokens?: { accessToken: string; refreshToken?: string } }> => {
  const files = await readdir(join(dir, '.switchboard', 'oauth'));
  for (const name of files) {
    const data = JSON.parse(await readFile(join(dir, '.switchboard', 'oauth', name), 'utf8')) as { identity: string; tokens?: { accessToken: string; refreshToken?: string } };
    if (data.identity === canonicalServerUrl(url)) return data;
  }
  throw new Error(`no token file for ${url}`);
};

describe('e2e: remote servers with OAuth (login, token files, refresh, identity)', () => {
  it('a server that needs sign-in and has no token is marked needs-login ("run switchboard login"); the others keep working; nothing is sent to its AS', async () => {
    const host = await openHost(config({ remote: remote.url, open: open.url }));
    try {
      const health = stateOf(host, 'remote');
      assert.equal(health?.state, 'needs-login');
      assert.match(health?.lastError ?? '', /needs an OAuth sign-in: run `switchboard login remote --config .*switchboard\.json`/);
      assert.equal(stateOf(host, 'open')?.state, 'ready');
      assert.equal(text(await host.callTool('open_echo', { message: 'still here' })), 'open: still here');
      assert.equal(events('register') + events('authorize') + events('token'), 0, 'no registration or token request without a sign-in');
    } finally {
      await host.close();
    }
  });

  it('login runs the authorization code + PKCE flow over the loopback redirect and stores a 0600 token file keyed by the server identity', async () => {
    const user = browser();
    const result = await login({ config: config({ remote: remote.url }), serverId: 'remote', prompt: user.prompt });
    assert.deepEqual(user.failures, []);
    assert.equal(user.opened.length, 1);
    const authorizeUrl = user.opened[0] as URL;
    assert.equal(authorizeUrl.searchParams.get('code_challenge_method'), 'S256');
    assert.equal(authorizeUrl.searchParams.get('resource'), remote.url);
    assert.equal(authorizeUrl.searchParams.get('redirect_uri'), `http://127.0.0.1:${redirectPort}/callback`);
    assert.equal(result.signedIn, true);
    assert.equal(result.tools, 1);
    assert.equal(result.identity, canonicalServerUrl(remote.url));
    assert.equal((await stat(result.file)).mode & 0o777, 0o600);
    assert.equal((await stat(join(dir, '.switchboard', 'oauth'))).mode & 0o777, 0o700);
    assert.match(basename(result.file), /^[0-9a-f]{32}\.json$/, 'the file is named after (a hash of) the identity, not the display name');
    const stored = await tokenFile(remote.url);
    assert.ok(stored.tokens?.accessToken !== undefined && stored.tokens.refreshToken !== undefined, 'an access and a refresh token');
  });

  it('the gateway calls the tool with the stored token; token passthrough: the upstream client\'s bearer token never reaches the downstream server', async () => {
    const cfg = config({ remote: remote.url, open: open.url });
    const host = await openHost(cfg);
    const gateway = new Gateway(host);
    const upstreamToken = 'upstream-gateway-token-0123456789abcdef0123456789';
    const running = await serveGatewayHttp(gatewayFrontDoor(gateway, host), { host: '127.0.0.1', port: 0, path: '/mcp', logger: silentLogger, auth: { tokens: [{ name: 'upstream', sha256: tokenDigest(upstreamToken), scopes: [] }] } });
    const client = new McpClient({ name: 'upstream', version: '1' }, { logger: silentLogger });
    try {
      assert.equal(stateOf(host, 'remote')?.state, 'ready');
      remote.seen.length = 0;
      open.seen.length = 0;
      await client.connect(new StreamableHttpClientTransport({ url: new URL('/mcp', running.url).href, headers: { authorization: `Bearer ${upstreamToken}` } }));
      assert.equal(text(await client.callTool('remote_echo', { message: 'via gateway' })), 'remote: via gateway');
      assert.equal(text(await client.callTool('open_echo', { message: 'plain' })), 'open: plain');
      const stored = await tokenFile(remote.url);
      assert.ok(remote.seen.length > 0);
      for (const value of [...remote.seen, ...open.seen]) assert.ok(value === null || !value.includes(upstreamToken), 'the upstream token went downstream');
      assert.ok(remote.seen.every((value) => value === `Bearer ${stored.tokens?.accessToken}`), 'the remote server sees only its own token');
      assert.ok(open.seen.every((value) => value === null), 'a server without OAuth gets no Authorization header at all');
    } finally {
      await client.close();
      await gateway.close();
      await host.close();
      await running.close();
    }
  });

  it('an expired access token is refreshed automatically (refresh_token grant) and the call goes through', async () => {
    const host = await openHost(config({ remote: remote.url }));
    try {
      const before = await tokenFile(remote.url);
      const refreshes = events('token', 'refresh_token');
      time.advance(10 * 60_000); // past the 300 s lifetime: the resource would refuse the old token
      assert.equal(text(await host.callTool('remote_echo', { message: 'after expiry' })), 'remote: after expiry');
      assert.equal(events('token', 'refresh_token'), refreshes + 1);
      const afterRefresh = await tokenFile(remote.url);
      assert.notEqual(afterRefresh.tokens?.accessToken, before.tokens?.accessToken);
      assert.notEqual(afterRefresh.tokens?.refreshToken, before.tokens?.refreshToken, 'the rotated refresh token is stored');
      assert.equal(remote.seen.at(-1), `Bearer ${afterRefresh.tokens?.accessToken}`);
    } finally {
      await host.close();
    }
  });

  it('a renamed server keeps its tokens: they belong to its identity (URL), not its display name', async () => {
    const authorizations = events('authorize');
    const host = await openHost(config({ renamed: remote.url }));
    try {
      assert.equal(stateOf(host, 'renamed')?.state, 'ready');
      assert.equal(text(await host.callTool('remote_echo', { message: 'renamed' })), 'remote: renamed');
      assert.equal(events('authorize'), authorizations, 'no new sign-in');
    } finally {
      await host.close();
    }
  });

  it('token confusion: the same name on a different URL does not get the tokens (needs-login, no Authorization sent)', async () => {
    other.seen.length = 0;
    const host = await openHost(config({ remote: other.url }));
    try {
      assert.equal(stateOf(host, 'remote')?.state, 'needs-login');
      assert.ok(other.seen.length > 0 && other.seen.every((value) => value === null), 'the other server never saw a token');
    } finally {
      await host.close();
    }
  });

  it('a server that asks for OAuth but has no oauth section is needs-login with what to add to the config', async () => {
    const cfg = parseConfig(JSON.stringify({ mcpServers: { unset: { type: 'http', url: other.url } } }), { file: join(dir, 'switchboard.json'), env: {} });
    other.seen.length = 0;
    const host = await openHost(cfg);
    try {
      const health = stateOf(host, 'unset');
      assert.equal(health?.state, 'needs-login');
      assert.match(health?.lastError ?? '', /add "oauth": \{\} to switchboard\.servers\.unset in .*switchboard\.json, then run `switchboard login unset/);
      assert.ok(other.seen.every((value) => value === null));
    } finally {
      await host.close();
    }
  });

  it('logout deletes the token file; the server needs a sign-in again', async () => {
    const cfg = config({ remote: remote.url });
    const result = await logout(cfg, 'remote');
    assert.equal(result.removed, true);
    await assert.rejects(stat(result.file), { code: 'ENOENT' });
    assert.equal((await logout(cfg, 'remote')).removed, false);
    const host = await openHost(cfg);
    try {
      assert.equal(stateOf(host, 'remote')?.state, 'needs-login');
    } finally {
      await host.close();
    }
  });
});
