// Per-user downstream authority on two real `switchboard gateway` processes (dist/cli/main.js)
// sharing PostgreSQL (`--store …?schema=`, fresh per run) and one connections key, in front of
// audience-checking resource servers behind a real authorization server (oidc-provider). Issue
// #34: "a refresh under concurrent calls on two gateway instances happens once".
//
// A renewal is forced the way a server forces it when a token expires: the resource server
// answers 401 `invalid_token` to the token the gateways hold (no waiting for a clock). Then
// concurrent calls of one principal, spread over both instances, each refused once, must cost
// exactly ONE grant at the authorization server (counted there, by grant type), and every call
// must run downstream, as that principal, with the one renewed token (the resource server's
// own log). The AS holds its token endpoint until every call was refused, so both instances
// are renewing at once for certain. The same holds for a principal's first token exchange,
// which has no row to lock.
//
// https://datatracker.ietf.org/doc/html/rfc8693 (token exchange)
// https://datatracker.ietf.org/doc/html/rfc6749#section-6 (refresh)
import assert from 'node:assert/strict';
import { randomBytes } from 'node:crypto';
import { after, before, describe, it } from 'node:test';
import { Client as SdkClient } from '@modelcontextprotocol/sdk/client/index.js';
import { StreamableHTTPClientTransport as SdkTransport } from '@modelcontextprotocol/sdk/client/streamableHttp.js';
import { UrlElicitationRequiredError } from '@modelcontextprotocol/sdk/types.js';
import { nodeFetch } from '../../src/adapters/nodeFetch.js';
import { McpClient } from '../../src/client/mcpClient.js';
import { StreamableHttpClientTransport } from '../../src/transport/http/client/client.js';
import { freshSchema, openTestPostgres, POSTGRES_URL } from '../contract/stores/backends.js';
import { startAudienceResourceServer, type AudienceResourceServer } from '../fixtures/audienceResourceServer.js';
import { driveLogin, startOidcAuthServer, TOKEN_EXCHANGE_GRANT, type OidcAuthServer } from '../fixtures/oidcAuthServer.js';
import { serversReady, startGateway, writeConfig, type GatewayConfig, type RunningGateway } from '../interop/fixtures/gatewayHarness.js';

const T = { timeout: 90_000 };
/** Concurrent calls per renewal, spread over both instances. */
const CALLS = 10;
const schema = freshSchema();
const store = `${POSTGRES_URL}${POSTGRES_URL.includes('?') ? '&' : '?'}schema=${schema}`;
/** The gateways' audience (both behind one name, as behind a load balancer). */
const AUDIENCE = 'https://switchboard.test/mcp';
const ALICE_TOKEN = `alice-${randomBytes(16).toString('hex')}`;
/** The gateways' pre-registered client for per-user sign-ins (a restarted or second instance must refresh with the same client). */
const PER_USER_CLIENT = 'switchboard-per-user';

let as: OidcAuthServer;
let tx: AudienceResourceServer;
let pu: AudienceResourceServer;
/** Token exchange for a server whose exchanged tokens live {@link SHORT_TTL_SEC} seconds (a real expiry). */
let short: AudienceResourceServer;
/** The lifetime of tokens exchanged for `short`: the gateway renews 30 s before expiry, so 10 s after issue. */
const SHORT_TTL_SEC = 40;
let config: GatewayConfig;
const gateways: RunningGateway[] = [];

before(async () => {
  await openTestPostgres({ schema }); // opened here too, so the schema is dropped after the file
  const shortServer: { url?: string } = {}; // known once it listens, after the AS
  as = await startOidcAuthServer({ gatewayResources: [AUDIENCE], exchangedTokenTtlSec: (resource) => (resource === shortServer.url ? SHORT_TTL_SEC : undefined) });
  tx = await startAudienceResourceServer(as, { name: 'tx' });
  pu = await startAudienceResourceServer(as, { name: 'pu' });
  short = await startAudienceResourceServer(as, { name: 'short' });
  shortServer.url = short.url;
  config = await writeConfig(
    {
      // The catalog (lists only) is read with a token of its own; every call goes over the caller's.
      tx: { type: 'http', url: tx.url, headers: { Authorization: 'Bearer ${env:TX_CATALOG}' } },
      pu: { type: 'http', url: pu.url, headers: { Authorization: 'Bearer ${env:PU_CATALOG}' } },
      short: { type: 'http', url: short.url, headers: { Authorization: 'Bearer ${env:SHORT_CATALOG}' } },
    },
    {
      namespacing: 'always',
      gateway: { auth: { oauth: { issuer: as.issuer, audience: AUDIENCE, jwksUri: as.jwksUri }, tokens: [{ name: 'alice', token: '${env:ALICE_TOKEN}' }] } },
      servers: {
        tx: { auth: { mode: 'token-exchange', issuer: as.issuer, clientId: as.gatewayClient.clientId, clientSecret: '${env:TX_SECRET}', scopes: ['mcp:read'] } },
        pu: { auth: 'per-user', oauth: { clientId: PER_USER_CLIENT } },
        short: { auth: { mode: 'token-exchange', issuer: as.issuer, clientId: as.gatewayClient.clientId, clientSecret: '${env:TX_SECRET}', scopes: ['mcp:read'] } },
      },
    },
  );
  const env = {
    TX_CATALOG: await as.accessToken('catalog-reader', tx.url),
    PU_CATALOG: await as.accessToken('catalog-reader', pu.url),
    SHORT_CATALOG: await as.accessToken('catalog-reader', short.url),
    TX_SECRET: as.gatewayClient.clientSecret,
    ALICE_TOKEN,
    SWITCHBOARD_CONNECTIONS_KEY: randomBytes(32).toString('hex'),
  };
  for (const name of ['TX_CATALOG', 'PU_CATALOG', 'SHORT_CATALOG'] as const) catalogTokens.add(`Bearer ${env[name]}`);
  for (let i = 0; i < 2; i++) gateways.push(await startGateway(config, ['--store', store], [], env));
  for (const g of gateways) await serversReady(g, ALICE_TOKEN);
  await as.registerClient({
    client_id: PER_USER_CLIENT,
    token_endpoint_auth_method: 'none',
    grant_types: ['authorization_code', 'refresh_token'],
    response_types: ['code'],
    redirect_uris: gateways.map((g) => new URL('/oauth/callback', g.url).href),
  });
});

after(async () => {
  for (const g of gateways) await g.stop();
  await config?.remove();
  await tx?.close();
  await pu?.close();
  await short?.close();
  await as?.close();
});

const gateway = (i: number): RunningGateway => gateways[i % gateways.length] as RunningGateway;

/** Our client on gateway `i` with the caller's OAuth access token. */
async function oauthCaller(i: number, token: string): Promise<McpClient> {
  const client = new McpClient({ name: `caller-${i}`, version: '1' }, { defaultTimeoutMs: 30_000 });
  await client.connect(new StreamableHttpClientTransport({ url: gateway(i).url, fetch: nodeFetch(), headers: { authorization: `Bearer ${token}` } }));
  return client;
}

/** `whoami` of `server` through `client`: the subject the resource server ran it as. */
async function whoami(client: McpClient, server: string): Promise<string> {
  const result = await client.callTool(`${server}__whoami`, {});
  const text = result.content.map((c) => (c.type === 'text' ? c.text : '')).join('');
  assert.notEqual(result.isError, true, text);
  return String((JSON.parse(text) as { sub?: unknown }).sub);
}

/** The catalog connections' own tokens (lists only), left out of what {@link seenSince} reports. */
const catalogTokens = new Set<string>();

/** What `rs` saw since request `from` with a principal's token: the tokens of the requests it refused and of those it served. */
function seenSince(rs: AudienceResourceServer, from: number): { refused: Set<string>; served: Set<string> } {
  const refused = new Set<string>();
  const served = new Set<string>();
  for (const r of rs.requests.slice(from)) {
    // The catalog connection's own requests, and the metadata discovery (PRM) a refresh starts with, which carries no token.
    if (r.authorization === null || catalogTokens.has(r.authorization)) continue;
    (r.status === 401 ? refused : served).add(r.authorization);
  }
  return { refused, served };
}

/** The values of `settled`, or a failure naming every rejection. */
function allFulfilled<V>(settled: readonly PromiseSettledResult<V>[]): V[] {
  const failed = settled.filter((r): r is PromiseRejectedResult => r.status === 'rejected').map((r) => String(r.reason));
  assert.deepEqual(failed, [], 'every call succeeded');
  return settled.map((r) => (r as PromiseFulfilledResult<V>).value);
}

/** Polls `check` (what a server logged) every 10 ms until it holds; the test's timeout bounds the wait. */
async function until(check: () => boolean): Promise<void> {
  while (!check()) await new Promise((resolve) => setTimeout(resolve, 10));
}

/**
 * `CALLS` concurrent calls (`call(i)`, spread over both instances) while the AS holds its token
 * endpoint until `rs` has refused all of them with the old token: every renewal, on both
 * instances, is under way at once before any can finish.
 */
async function renewingAtOnce<V>(rs: AudienceResourceServer, call: (i: number) => Promise<V>): Promise<PromiseSettledResult<V>[]> {
  const from = rs.requests.length;
  const hold = as.holdTokenEndpoint();
  const settled = Promise.allSettled([...Array(CALLS).keys()].map((i) => call(i)));
  try {
    await until(() => rs.requests.slice(from).filter((r) => r.status === 401).length >= CALLS);
  } finally {
    hold.release();
  }
  return settled;
}

/** The token endpoint grants of `type` answered since `from`. */
const grantsSince = (from: number, type: string) => as.grants.slice(from).filter((g) => g.grantType === type);

describe('e2e: per-user authority on two gateway instances sharing PostgreSQL (oidc-provider, audience-checking servers)', () => {
  it(`token exchange: a new principal's ${CALLS} concurrent first calls over both instances make ONE exchange at the AS`, T, async () => {
    const token = await as.accessToken('erin@example.com', AUDIENCE);
    const clients = [await oauthCaller(0, token), await oauthCaller(1, token)];
    try {
      // No connection yet on either instance.
      const grants = as.grants.length;
      const requests = tx.requests.length;
      const calls = tx.calls.length;
      const settled = await Promise.allSettled([...Array(CALLS).keys()].map((i) => whoami(clients[i % 2] as McpClient, 'tx')));
      assert.deepEqual(
        grantsSince(grants, TOKEN_EXCHANGE_GRANT).map((g) => g.ok),
        [true],
        `one exchange at the AS for ${CALLS} first calls over two instances: ${JSON.stringify(as.grants.slice(grants))}`,
      );
      assert.deepEqual(new Set(allFulfilled(settled)), new Set(['erin@example.com']));
      const seen = seenSince(tx, requests);
      assert.equal(seen.served.size, 1, 'every call ran with the one exchanged token');
      assert.deepEqual(seen.refused, new Set());
      assert.equal(tx.calls.length - calls, CALLS);
      for (const c of tx.calls.slice(calls)) assert.deepEqual(c.aud, [tx.url], 'audience: that server alone');
    } finally {
      for (const c of clients) await c.close();
    }
  });

  it(`token exchange: a renewal forced under ${CALLS} concurrent calls over both instances makes ONE exchange at the AS; every call runs with the renewed token`, T, async () => {
    const token = await as.accessToken('frank@example.com', AUDIENCE);
    const clients = [await oauthCaller(0, token), await oauthCaller(1, token)];
    try {
      // One exchange through instance 0, which instance 1 then reads from the store.
      let requests = tx.requests.length;
      assert.equal(await whoami(clients[0] as McpClient, 'tx'), 'frank@example.com');
      assert.equal(await whoami(clients[1] as McpClient, 'tx'), 'frank@example.com');
      const first = seenSince(tx, requests);
      assert.equal(first.served.size, 1, 'both instances called with the one exchanged token');
      const t1 = [...first.served][0] as string;
      // The server now refuses that token, as once it expires: calls are refused and renew.
      tx.expire(t1.replace(/^Bearer /, ''));
      const grants = as.grants.length;
      requests = tx.requests.length;
      const calls = tx.calls.length;
      const settled = await renewingAtOnce(tx, (i) => whoami(clients[i % 2] as McpClient, 'tx'));
      assert.deepEqual(
        grantsSince(grants, TOKEN_EXCHANGE_GRANT).map((g) => g.ok),
        [true],
        `one exchange at the AS for the renewal under ${CALLS} concurrent calls on two instances: ${JSON.stringify(as.grants.slice(grants))}`,
      );
      assert.deepEqual(new Set(allFulfilled(settled)), new Set(['frank@example.com']));
      const renewal = seenSince(tx, requests);
      assert.deepEqual(renewal.refused, new Set([t1]), 'the old token alone was refused');
      assert.equal(renewal.served.size, 1, `every call ran with the one renewed token: ${renewal.served.size} tokens`);
      assert.ok(!renewal.served.has(t1));
      assert.equal(tx.calls.length - calls, CALLS);
      for (const c of tx.calls.slice(calls)) assert.deepEqual(c.aud, [tx.url], 'audience: that server alone');
      assert.deepEqual(as.serverErrors, []);
    } finally {
      for (const c of clients) await c.close();
    }
  });

  it(`token exchange: once the exchanged token is about to expire (a real ${SHORT_TTL_SEC} s lifetime), ${CALLS} concurrent calls over both instances renew with ONE exchange`, T, async () => {
    const token = await as.accessToken('gina@example.com', AUDIENCE);
    const clients = [await oauthCaller(0, token), await oauthCaller(1, token)];
    try {
      let requests = short.requests.length;
      assert.equal(await whoami(clients[0] as McpClient, 'short'), 'gina@example.com');
      // The gateway took the token's expiry from the exchange's answer, before this point.
      const renewFrom = Date.now() + (SHORT_TTL_SEC - 30) * 1000 + 250;
      assert.equal(await whoami(clients[1] as McpClient, 'short'), 'gina@example.com');
      const first = seenSince(short, requests);
      assert.equal(first.served.size, 1, 'both instances called with the one exchanged token');
      const t1 = [...first.served][0] as string;
      // A real expiry: wait for the clock (polled) to pass the point where the gateway renews before use.
      await until(() => Date.now() >= renewFrom);
      const grants = as.grants.length;
      requests = short.requests.length;
      const calls = short.calls.length;
      const settled = await Promise.allSettled([...Array(CALLS).keys()].map((i) => whoami(clients[i % 2] as McpClient, 'short')));
      assert.deepEqual(
        grantsSince(grants, TOKEN_EXCHANGE_GRANT).map((g) => g.ok),
        [true],
        `one exchange at the AS for the expiry under ${CALLS} concurrent calls on two instances: ${JSON.stringify(as.grants.slice(grants))}`,
      );
      assert.deepEqual(new Set(allFulfilled(settled)), new Set(['gina@example.com']));
      const renewal = seenSince(short, requests);
      assert.deepEqual(renewal.refused, new Set(), 'renewed before use: nothing refused');
      assert.equal(renewal.served.size, 1, `every call ran with the one renewed token: ${renewal.served.size} tokens`);
      assert.ok(!renewal.served.has(t1));
      assert.equal(short.calls.length - calls, CALLS);
    } finally {
      for (const c of clients) await c.close();
    }
  });

  it(`per-user: after a driven sign-in on one instance, a forced renewal under ${CALLS} concurrent calls over both makes ONE refresh_token grant`, T, async () => {
    const clients = await Promise.all(
      gateways.map(async (g) => {
        const client = new SdkClient({ name: 'alice', version: '1.0.0' }, { capabilities: { elicitation: { url: {} } } });
        await client.connect(new SdkTransport(new URL(g.url), { requestInit: { headers: { authorization: `Bearer ${ALICE_TOKEN}` } } }));
        return client;
      }),
    );
    const call = async (i: number): Promise<string> => {
      const result = await (clients[i % 2] as SdkClient).callTool({ name: 'pu__whoami', arguments: {} });
      const text = (result.content as { type: string; text?: string }[]).map((c) => c.text ?? '').join('');
      assert.notEqual(result.isError, true, text);
      return String((JSON.parse(text) as { sub?: unknown }).sub);
    };
    try {
      // The first call asks for a sign-in (URL elicitation); the person signs in through instance 0.
      const link = await call(0).then(
        () => assert.fail('a call before the sign-in went through'),
        (error: unknown) => {
          assert.ok(error instanceof UrlElicitationRequiredError, String(error));
          return (error.elicitations[0] as { url: string }).url;
        },
      );
      const origin = new URL(link).origin;
      const opened = await fetch(link, { method: 'POST', redirect: 'manual', headers: { 'content-type': 'application/x-www-form-urlencoded', origin }, body: new URLSearchParams({ token: ALICE_TOKEN }).toString() });
      assert.equal(opened.status, 303, await opened.text());
      const cookie = (opened.headers.get('set-cookie') ?? '').split(';')[0] as string;
      const callback = await driveLogin(opened.headers.get('location') ?? '', 'alice@example.com');
      const done = await fetch(callback, { redirect: 'manual', headers: { cookie } });
      assert.equal(done.status, 200, await done.text());

      // Both instances call with the stored connection (one token).
      let grants = as.grants.length;
      let requests = pu.requests.length;
      assert.deepEqual(await Promise.all([call(0), call(1)]), ['alice@example.com', 'alice@example.com']);
      const first = seenSince(pu, requests);
      assert.equal(first.served.size, 1);
      const [p1] = [...first.served];
      assert.deepEqual(grantsSince(grants, 'refresh_token'), []);

      pu.expire((p1 as string).replace(/^Bearer /, ''));
      grants = as.grants.length;
      requests = pu.requests.length;
      const calls = pu.calls.length;
      const settled = await renewingAtOnce(pu, call);
      assert.deepEqual(
        grantsSince(grants, 'refresh_token').map((g) => g.ok),
        [true],
        `one refresh at the AS for the renewal under ${CALLS} concurrent calls on two instances: ${JSON.stringify(as.grants.slice(grants))}`,
      );
      assert.deepEqual(new Set(allFulfilled(settled)), new Set(['alice@example.com']));
      const renewal = seenSince(pu, requests);
      assert.deepEqual(renewal.refused, new Set([p1]), 'the old token alone was refused');
      assert.equal(renewal.served.size, 1, `every call ran with the one refreshed token: ${JSON.stringify([...renewal.served].map((a) => a.slice(0, 24)))}`);
      assert.ok(!renewal.served.has(p1 as string));
      assert.equal(pu.calls.length - calls, CALLS);
      assert.deepEqual(as.serverErrors, []);
    } finally {
      for (const c of clients) await c.close();
    }
  });
});
