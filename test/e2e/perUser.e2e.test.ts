// auth: "per-user" end to end over real HTTP: a real authorization server (oidc-provider), an
// audience-checking resource server that logs the subject of every call, and the gateway (Host
// + Gateway + its HTTP listener with the sign-in routes) in front of it, called by the official
// SDK v1 client. Judged by what reached the resource server.
// https://modelcontextprotocol.io/specification/2025-11-25/client/elicitation#url-elicitation-required-error
import assert from 'node:assert/strict';
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { after, before, describe, it } from 'node:test';
import { Client as SdkClient } from '@modelcontextprotocol/sdk/client/index.js';
import { StreamableHTTPClientTransport as SdkTransport } from '@modelcontextprotocol/sdk/client/streamableHttp.js';
import { UrlElicitationRequiredError } from '@modelcontextprotocol/sdk/types.js';
import { defaultTransportFactory } from '../../src/adapters/hostTransports.js';
import { tokenDigest } from '../../src/auth/resource/staticTokens.js';
import { serveGatewayHttp } from '../../src/cli/gatewayHttp.js';
import { gatewayDownstreamAuth } from '../../src/cli/gatewayDownstreamAuth.js';
import type { ListeningServer } from '../../src/adapters/nodeHttp.js';
import { auditInterceptor } from '../../src/host/audit.js';
import { parseConfig } from '../../src/host/config.js';
import { MemoryConnectionStore } from '../../src/host/connections.js';
import { Gateway, GATEWAY_CLIENT_CAPABILITIES } from '../../src/host/gateway.js';
import { Host } from '../../src/host/host.js';
import { DeniedError } from '../../src/host/interceptors.js';
import { gatewayFrontDoor } from '../../src/host/openGateway.js';
import type { DownstreamAuthority } from '../../src/host/principalClients.js';
import { SqliteAuditLog } from '../../src/store/sqliteAudit.js';
import { silentLogger } from '../../src/util/logger.js';
import { McpClient } from '../../src/client/mcpClient.js';
import { StreamableHttpClientTransport } from '../../src/transport/http/client/client.js';
import { startAudienceResourceServer, type AudienceResourceServer } from '../fixtures/audienceResourceServer.js';
import { driveLogin, startOidcAuthServer, type OidcAuthServer } from '../fixtures/oidcAuthServer.js';

const T = { timeout: 60_000 };
const TOKENS = { alice: 'alice-gateway-token-0123456789abcdef0123', bob: 'bob-gateway-token-0123456789abcdef01234', mallory: 'mallory-gateway-token-0123456789abcdef012', carol: 'carol-gateway-token-0123456789abcdef01234' } as const;
type Who = keyof typeof TOKENS;

let as: OidcAuthServer;
let rs: AudienceResourceServer;
let dir: string;
let audit: SqliteAuditLog;
let host: Host;
let running: ListeningServer;
let store: MemoryConnectionStore;
/** Refreshes that ran (not those that waited for one). */
let refreshes = 0;

class CountingStore extends MemoryConnectionStore {
  override refreshOnce(...[key, stale, refresh]: Parameters<MemoryConnectionStore['refreshOnce']>): ReturnType<MemoryConnectionStore['refreshOnce']> {
    return super.refreshOnce(key, stale, (current) => {
      refreshes++;
      return refresh(current);
    });
  }
}
let authority: DownstreamAuthority;
let catalogToken: string;
let gatewayUrl: string;

before(async () => {
  as = await startOidcAuthServer();
  rs = await startAudienceResourceServer(as, { name: 'gh' });
  // The catalog connection's own credential (lists only): the one a per-user server's main client reads the tools with.
  catalogToken = await as.accessToken('catalog-reader', rs.url);
  dir = await mkdtemp(join(tmpdir(), 'sb-peruser-'));
  audit = SqliteAuditLog.open(join(dir, 'audit.db'));
  const config = parseConfig(
    JSON.stringify({ mcpServers: { gh: { type: 'http', url: rs.url, headers: { Authorization: 'Bearer ${env:CATALOG_TOKEN}' } } }, switchboard: { servers: { gh: { auth: 'per-user' } } } }),
    { file: join(dir, 'switchboard.json'), env: { CATALOG_TOKEN: catalogToken } },
  );
  store = new CountingStore();
  // The gateway command's own wiring: the authority, the per-user sign-ins and their routes.
  const downstream = gatewayDownstreamAuth(silentLogger, { store });
  authority = downstream.authority;
  host = await Host.open({
    servers: config.servers,
    transport: defaultTransportFactory({ environment: {} }),
    logger: silentLogger,
    capabilities: GATEWAY_CLIENT_CAPABILITIES,
    interceptors: [auditInterceptor(audit)],
    authority,
  });
  await host.start();
  const tokens = (Object.keys(TOKENS) as Who[]).map((name) => ({ name, sha256: tokenDigest(TOKENS[name]), scopes: [] }));
  const gateway = new Gateway(host);
  running = await serveGatewayHttp(gatewayFrontDoor(gateway, host), {
    host: '127.0.0.1',
    port: 0,
    path: '/mcp',
    logger: silentLogger,
    auth: { tokens },
    personRoutes: (auth, url) => {
      downstream.setGatewayUrl(url);
      return downstream.routes(auth, false);
    },
  });
  gatewayUrl = running.url.replace(/\/$/, '');
});

after(async () => {
  await authority?.close();
  await running?.close();
  await host?.close();
  await audit?.close();
  await rs?.close();
  await as?.close();
  await rm(dir, { recursive: true, force: true });
});

/** The official SDK v1 client connected to the gateway as `who` (or with no token). */
async function sdkClient(who: Who | undefined): Promise<SdkClient> {
  const client = new SdkClient({ name: `sdk-${who ?? 'anonymous'}`, version: '1.0.0' }, { capabilities: { elicitation: { url: {} } } });
  const headers: Record<string, string> = who === undefined ? {} : { authorization: `Bearer ${TOKENS[who]}` };
  await client.connect(new SdkTransport(new URL(`${gatewayUrl}/mcp`), { requestInit: { headers } }));
  return client;
}

/** Calls `gh__whoami` (or `whoami`) and returns the URL elicitation the SDK raised, or the result. */
async function call(client: SdkClient): Promise<{ kind: 'result'; sub: string; isError: boolean } | { kind: 'elicitation'; url: string; elicitationId: string; message: string }> {
  const tools = await client.listTools();
  const name = tools.tools.find((t) => t.name.endsWith('whoami'))?.name ?? 'whoami';
  try {
    const result = await client.callTool({ name, arguments: {} });
    const text = (result.content as { type: string; text?: string }[]).map((c) => c.text ?? '').join('');
    if (result.isError === true) return { kind: 'result', sub: text, isError: true };
    return { kind: 'result', sub: String((JSON.parse(text) as { sub?: unknown }).sub), isError: false };
  } catch (error) {
    if (!(error instanceof UrlElicitationRequiredError)) throw error;
    const [first] = error.elicitations;
    assert.ok(first !== undefined && first.mode === 'url');
    return { kind: 'elicitation', url: first.url, elicitationId: first.elicitationId, message: first.message };
  }
}

/** The browser of `who` opening the sign-in link: proves who it is, is sent to the AS; the redirect back and the cookie the gateway set. */
async function openLink(link: string, who: Who): Promise<{ response: Response; cookie?: string }> {
  const response = await fetch(link, { method: 'POST', redirect: 'manual', headers: { 'content-type': 'application/x-www-form-urlencoded', origin: gatewayUrl }, body: new URLSearchParams({ token: TOKENS[who] }).toString() });
  const setCookie = response.headers.get('set-cookie') ?? undefined;
  return { response, ...(setCookie !== undefined ? { cookie: setCookie.split(';')[0] } : {}) };
}

/** The whole sign-in of `who` as `account` at the AS: the callback URL the AS sent the browser back to, and the cookie. */
async function signIn(link: string, who: Who, account: string): Promise<{ callback: URL; cookie: string }> {
  const opened = await openLink(link, who);
  assert.equal(opened.response.status, 303, await opened.response.text());
  const location = opened.response.headers.get('location') ?? '';
  assert.ok(location.startsWith(as.issuer), `sent to the authorization server, not ${location}`);
  const callback = await driveLogin(location, account);
  assert.ok(opened.cookie !== undefined);
  return { callback, cookie: opened.cookie };
}

const finish = (callback: URL, cookie?: string): Promise<Response> => fetch(callback, { redirect: 'manual', headers: cookie === undefined ? {} : { cookie } });

/** The subjects of the tool calls that reached the resource server since `from`. */
const subjectsSince = (from: number): (string | undefined)[] => rs.calls.slice(from).map((c) => c.sub);

describe('e2e: auth per-user (oidc-provider, audience-checking resource server, SDK v1 client)', () => {
  it('a principal with no connection gets the sign-in URL through the SDK (-32042); after the sign-in driven at the AS, the retried call arrives downstream as that person', T, async () => {
    const alice = await sdkClient('alice');
    try {
      const before = rs.calls.length;
      const first = await call(alice);
      assert.equal(first.kind, 'elicitation');
      if (first.kind !== 'elicitation') return;
      assert.ok(first.url.startsWith(`${gatewayUrl}/oauth/start/`), `a gateway link, never the AS's: ${first.url}`);
      assert.deepEqual(subjectsSince(before), [], 'nothing reached the server before the sign-in');
      const { callback, cookie } = await signIn(first.url, 'alice', 'alice@example.com');
      const done = await finish(callback, cookie);
      assert.equal(done.status, 200, await done.text());
      const second = await call(alice);
      assert.deepEqual(second, { kind: 'result', sub: 'alice@example.com', isError: false });
      assert.deepEqual(subjectsSince(before), ['alice@example.com']);
    } finally {
      await alice.close();
    }
  });

  it('two principals, two connections: each arrives downstream with their own token; token-of-principal-A-never-sent-for-B', T, async () => {
    const bob = await sdkClient('bob');
    const alice = await sdkClient('alice');
    try {
      const link = await call(bob);
      assert.equal(link.kind, 'elicitation');
      if (link.kind !== 'elicitation') return;
      const { callback, cookie } = await signIn(link.url, 'bob', 'bob@example.com');
      assert.equal((await finish(callback, cookie)).status, 200);
      const from = rs.calls.length;
      const requestsFrom = rs.requests.length;
      const [a, b] = await Promise.all([call(alice), call(bob)]);
      assert.deepEqual(a, { kind: 'result', sub: 'alice@example.com', isError: false });
      assert.deepEqual(b, { kind: 'result', sub: 'bob@example.com', isError: false });
      assert.deepEqual(subjectsSince(from).sort(), ['alice@example.com', 'bob@example.com']);
      // What the resource server saw: each principal's requests carry that principal's token alone.
      const aliceToken = (await store.get({ principal: 'alice', server: new URL(rs.url).origin + new URL(rs.url).pathname }))?.tokens.accessToken;
      const bobToken = (await store.get({ principal: 'bob', server: new URL(rs.url).origin + new URL(rs.url).pathname }))?.tokens.accessToken;
      assert.ok(aliceToken !== undefined && bobToken !== undefined && aliceToken !== bobToken);
      const seen = rs.requests.slice(requestsFrom).map((r) => r.authorization);
      assert.ok(seen.includes(`Bearer ${aliceToken}`) && seen.includes(`Bearer ${bobToken}`));
      // The SDK clients above called in parallel; every call the server ran was under its own caller's subject.
      assert.equal(rs.calls.slice(from).filter((c) => c.sub === 'catalog-reader').length, 0, 'the catalog credential never made a call');
    } finally {
      await Promise.all([alice.close(), bob.close()]);
    }
  });

  it('inbound-token-never-forwarded: no gateway token of any principal reached the resource server', T, () => {
    const forwarded = rs.requests.filter((r) => Object.values(TOKENS).some((t) => r.authorization?.includes(t) === true));
    assert.deepEqual(forwarded, []);
  });

  it('sign-in-link-opened-by-another-principal: mallory\'s link opened by bob is refused before the AS; bob\'s account is never attached to mallory', T, async () => {
    const mallory = await sdkClient('mallory');
    try {
      const link = await call(mallory);
      assert.equal(link.kind, 'elicitation');
      if (link.kind !== 'elicitation') return;
      const opened = await openLink(link.url, 'bob');
      assert.equal(opened.response.status, 403);
      assert.equal(opened.response.headers.get('location'), null, 'not sent to the authorization server');
      assert.equal(opened.cookie, undefined);
      // The link is spent: mallory cannot hand it out again.
      assert.equal((await openLink(link.url, 'mallory')).response.status, 410);
      assert.equal(await store.get({ principal: 'mallory', server: new URL(rs.url).origin + new URL(rs.url).pathname }), undefined);
      const from = rs.calls.length;
      const again = await call(mallory);
      assert.equal(again.kind, 'elicitation', 'mallory still has no connection');
      assert.deepEqual(subjectsSince(from), []);
    } finally {
      await mallory.close();
    }
  });

  it('sign-in-form-posted-from-another-site (login CSRF: mallory\'s own token and link, submitted from her page in bob\'s browser) is refused by the front door\'s Origin check', T, async () => {
    const mallory = await sdkClient('mallory');
    try {
      const link = await call(mallory);
      if (link.kind !== 'elicitation') return assert.fail('expected a sign-in');
      const response = await fetch(link.url, { method: 'POST', redirect: 'manual', headers: { 'content-type': 'application/x-www-form-urlencoded', origin: 'https://evil.example' }, body: new URLSearchParams({ token: TOKENS.mallory }).toString() });
      assert.equal(response.status, 403);
      assert.equal(response.headers.get('location'), null);
      assert.equal(response.headers.get('set-cookie'), null);
    } finally {
      await mallory.close();
    }
  });

  it('callback-without-the-browser-cookie (a code and state copied to another browser) is refused and does not spend the sign-in', T, async () => {
    const mallory = await sdkClient('mallory');
    try {
      const link = await call(mallory);
      if (link.kind !== 'elicitation') return assert.fail('expected a sign-in');
      const { callback, cookie } = await signIn(link.url, 'mallory', 'mallory@example.com');
      assert.equal((await finish(callback)).status, 403, 'no cookie');
      assert.equal((await finish(callback, `${cookie.split('=')[0]}=forged-value`)).status, 403, 'a forged cookie');
      assert.equal(await store.get({ principal: 'mallory', server: new URL(rs.url).origin + new URL(rs.url).pathname }), undefined);
      // callback-state-replay: the real browser completes once; the same callback again is refused.
      assert.equal((await finish(callback, cookie)).status, 200);
      assert.equal((await finish(callback, cookie)).status, 400);
    } finally {
      await mallory.close();
    }
  });

  it('revoked-connection-is-never-used: after alice\'s connection is revoked her next call asks for a sign-in; neither her old token nor bob\'s goes out', T, async () => {
    const server = new URL(rs.url).origin + new URL(rs.url).pathname;
    const bobToken = (await store.get({ principal: 'bob', server }))?.tokens.accessToken;
    assert.equal(await store.revoke({ principal: 'alice', server }), 1);
    const alice = await sdkClient('alice');
    try {
      const from = rs.calls.length;
      const requestsFrom = rs.requests.length;
      const answer = await call(alice);
      assert.equal(answer.kind, 'elicitation');
      assert.deepEqual(subjectsSince(from), []);
      // Only the catalog reads (listTools is served from the gateway's catalog: none at all) went out.
      assert.ok(rs.requests.slice(requestsFrom).every((r) => r.authorization !== `Bearer ${bobToken}`));
    } finally {
      await alice.close();
    }
  });

  it('a 401 for a principal renews its token once (single-flight refresh) and the calls go through as that principal', T, async () => {
    const server = new URL(rs.url).origin + new URL(rs.url).pathname;
    const alice = await sdkClient('alice');
    try {
      const link = await call(alice);
      if (link.kind !== 'elicitation') return assert.fail('expected a sign-in (revoked above)');
      const { callback, cookie } = await signIn(link.url, 'alice', 'alice@example.com');
      assert.equal((await finish(callback, cookie)).status, 200);
      const current = await store.get({ principal: 'alice', server });
      assert.ok(current?.tokens.refreshToken !== undefined, 'a refresh token was issued');
      // The server stops accepting the access token (revoked at the AS, say): it is not a JWT it can verify.
      await store.put({ ...current, tokens: { ...current.tokens, accessToken: 'stale-access-token' } });
      const refreshesBefore = refreshes;
      const from = rs.calls.length;
      const [a, b] = await Promise.all([call(alice), call(alice)]);
      assert.deepEqual([a, b], [
        { kind: 'result', sub: 'alice@example.com', isError: false },
        { kind: 'result', sub: 'alice@example.com', isError: false },
      ]);
      assert.equal(refreshes - refreshesBefore, 1, 'one refresh for both calls');
      assert.deepEqual(subjectsSince(from), ['alice@example.com', 'alice@example.com']);
      assert.notEqual((await store.get({ principal: 'alice', server }))?.tokens.accessToken, 'stale-access-token');
    } finally {
      await alice.close();
    }
  });

  it('a 2026-07-28 client gets an input_required result carrying the URL-mode elicitation; its handler signs in; the retried call arrives as that person', T, async () => {
    const asked: { mode?: unknown; url?: unknown }[] = [];
    const carol = new McpClient(
      { name: 'carol-2026', version: '1' },
      {
        era: 'stateless',
        logger: silentLogger,
        capabilities: { elicitation: { url: {} } },
        handlers: {
          elicitation: async (params) => {
            asked.push(params as { mode?: unknown; url?: unknown });
            const url = String((params as { url?: unknown }).url);
            const { callback, cookie } = await signIn(url, 'carol', 'carol@example.com');
            assert.equal((await finish(callback, cookie)).status, 200);
            return { action: 'accept' };
          },
        },
      },
    );
    try {
      await carol.connect(new StreamableHttpClientTransport({ url: `${gatewayUrl}/mcp`, headers: { authorization: `Bearer ${TOKENS.carol}` } }));
      assert.equal(carol.era, 'stateless');
      const from = rs.calls.length;
      const name = (await carol.listTools()).find((t) => t.name.endsWith('whoami'))?.name ?? 'whoami';
      const result = await carol.callTool(name, {});
      const text = result.content.map((c) => (c.type === 'text' ? c.text : '')).join('');
      assert.equal((JSON.parse(text) as { sub: string }).sub, 'carol@example.com');
      assert.equal(asked.length, 1);
      assert.equal(asked[0]?.mode, 'url');
      assert.ok(String(asked[0]?.url).startsWith(`${gatewayUrl}/oauth/start/`));
      assert.deepEqual(subjectsSince(from), ['carol@example.com']);
    } finally {
      await carol.close();
    }
  });

  it('anonymous-caller-on-per-user-server is refused; nothing reaches the server', T, async () => {
    // An anonymous caller needs a gateway without client authentication: the host itself, as an embedder calls it.
    const from = rs.calls.length;
    const requestsFrom = rs.requests.length;
    const name = (await host.listTools()).find((t) => t.name.endsWith('whoami'))?.name ?? 'whoami';
    await assert.rejects(host.callTool(name, {}), (error: unknown) => error instanceof DeniedError && /acts as each caller/.test(error.message));
    assert.deepEqual(subjectsSince(from), []);
    assert.equal(rs.requests.length, requestsFrom);
  });

  it('the audit record of each call names the credential\'s principal and mode; the chain verifies', T, async () => {
    const records = audit.read().filter((r) => r.method === 'tools/call' && r.outcome === 'ok');
    assert.ok(records.length >= 3);
    for (const r of records) assert.deepEqual(r.credential, { principal: r.principal, mode: 'per-user' });
    assert.equal(audit.verify().ok, true);
  });
});
