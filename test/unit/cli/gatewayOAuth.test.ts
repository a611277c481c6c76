// The gateway in OAuth mode (gateway.auth { oauth }), over real HTTP with the dev authorization
// server as the issuer: the resource-server layer verifies every request, serves the Protected
// Resource Metadata and challenges with WWW-Authenticate; the token's principal reaches the
// host's interceptors; and each refused token is named after the attack it stands for.
// https://modelcontextprotocol.io/specification/2025-11-25/basic/authorization
import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import type { ListeningServer } from '../../../src/adapters/nodeHttp.js';
import type { DevAuthorizationServer } from '../../../src/auth/dev/devAuthorizationServer.js';
import { serveGatewayHttp } from '../../../src/cli/gatewayHttp.js';
import { gatewayFrontDoor } from '../../../src/host/openGateway.js';
import { Gateway } from '../../../src/host/gateway.js';
import { Host } from '../../../src/host/host.js';
import type { InterceptContext } from '../../../src/host/interceptors.js';
import { McpServer } from '../../../src/server/mcpServer.js';
import type { HttpExtra } from '../../../src/transport/http/server/types.js';
import { silentLogger } from '../../../src/util/logger.js';
import { clock, startAuthorizationServer, startServer, type RecordingServer } from '../../e2e/remoteOAuthSupport.js';
import { defaultTransportFactory } from '../../../src/adapters/hostTransports.js';
import { memoryServers, memorySpec } from '../host/support/memoryServers.js';
import { postToolCall } from './support/toolCall.js';

const time = clock();
let as: DevAuthorizationServer;
let foreign: DevAuthorizationServer;
let host: Host;
let gateway: Gateway;
let running: ListeningServer;
let endpoint: string;
let web: RecordingServer;
const seenPrincipals: InterceptContext['principal'][] = [];
const seenByServer: { authorization: string | undefined; principal: unknown }[] = [];
const closers: (() => Promise<void>)[] = [];

before(async () => {
  const a = await startAuthorizationServer(time.now);
  const b = await startAuthorizationServer(time.now);
  as = a.as;
  foreign = b.as;
  closers.push(a.close, b.close);
  const servers = memoryServers((id) => {
    const server = new McpServer({ name: id, version: '1' });
    server.tool('probe', { description: 'What the downstream server sees of the caller.' }, (_args, ctx) => {
      const http = ctx.extra?.['http'] as HttpExtra | undefined;
      seenByServer.push({ authorization: http?.getHeader('authorization'), principal: ctx.principal ?? null });
      return 'probed';
    });
    return server;
  });
  web = await startServer('web');
  closers.push(web.close);
  const http = defaultTransportFactory({ environment: {} });
  host = await Host.open({
    servers: [memorySpec('inner'), { ...memorySpec('web'), launch: { kind: 'http', url: web.url, headers: {} } }],
    transport: (spec, io) => (spec.launch.kind === 'http' ? http(spec, io) : servers.factory(spec, io)),
    logger: silentLogger,
    interceptors: [
      {
        id: 'test.principal',
        phase: 'audit',
        intercept: (ctx, next) => {
          seenPrincipals.push(ctx.principal);
          return next();
        },
      },
    ],
  });
  await host.start();
  gateway = new Gateway(host);
  // The audience is the gateway's public URL: known before it listens, so a fixed name is used.
  running = await serveGatewayHttp(gatewayFrontDoor(gateway, host), {
    host: '127.0.0.1',
    port: 0,
    path: '/mcp',
    logger: silentLogger,
    auth: { oauth: { issuer: as.issuer, audience: 'https://gateway.example.test/mcp', jwksUri: undefined, now: time.now } },
  });
  endpoint = new URL('/mcp', running.url).href;
  closers.push(async () => {
    await gateway.close();
    await host.close();
    await running.close();
  });
});

after(async () => {
  for (const close of closers.reverse()) await close();
});

const AUDIENCE = 'https://gateway.example.test/mcp';
const METADATA = 'https://gateway.example.test/.well-known/oauth-protected-resource/mcp';

function call(token: string | undefined, tool = 'probe'): Promise<Response> {
  return postToolCall(endpoint, tool, token === undefined ? {} : { authorization: `Bearer ${token}` });
}

function assertRefused(response: Response, error?: string): void {
  assert.equal(response.status, 401);
  const challenge = response.headers.get('www-authenticate') ?? '';
  assert.match(challenge, /^Bearer /);
  assert.ok(challenge.includes(`resource_metadata="${METADATA}"`), challenge);
  if (error !== undefined) assert.ok(challenge.includes(`error="${error}"`), challenge);
}

describe('gateway OAuth mode (resource server behind the dev authorization server)', () => {
  it('serves its Protected Resource Metadata naming the issuer', async () => {
    const response = await fetch(new URL('/.well-known/oauth-protected-resource/mcp', running.url));
    assert.equal(response.status, 200);
    const document = (await response.json()) as { resource: string; authorization_servers: string[] };
    assert.equal(document.resource, AUDIENCE);
    assert.deepEqual(document.authorization_servers, [as.issuer]);
  });

  it('accepts a valid token, and its principal reaches the host (typed Principal with the verified claims)', async () => {
    const token = await as.signAccessToken({ aud: AUDIENCE, sub: 'alice', scope: 'mcp:read' });
    seenPrincipals.length = 0;
    const response = await call(token);
    assert.equal(response.status, 200, await response.clone().text());
    assert.match(await response.text(), /probed/);
    const principal = seenPrincipals.find((p) => p !== undefined);
    assert.equal(principal?.id, 'alice');
    assert.equal(principal?.auth?.subject, 'alice');
    assert.equal(principal?.auth?.issuer, as.issuer);
    assert.deepEqual(principal?.auth?.scopes, ['mcp:read']);
  });

  it('token passthrough: the gateway never forwards the upstream access token (or its principal) to a downstream server', async () => {
    const token = await as.signAccessToken({ aud: AUDIENCE, sub: 'bob' });
    seenByServer.length = 0;
    const response = await call(token);
    assert.equal(response.status, 200);
    await response.text();
    assert.equal(seenByServer.length, 1);
    assert.equal(seenByServer[0]?.authorization, undefined);
    assert.equal(seenByServer[0]?.principal, null, 'the downstream server is not told who the upstream caller is');
    web.seen.length = 0;
    const overHttp = await call(token, 'web_echo');
    assert.equal(overHttp.status, 200);
    assert.match(await overHttp.text(), /web: undefined/);
    assert.ok(web.seen.length > 0 && web.seen.every((value) => value === null), 'an HTTP downstream server got an Authorization header');
  });

  it('missing token: 401 with a challenge pointing at the resource metadata', async () => {
    assertRefused(await call(undefined));
  });

  it('audience confusion: a token minted for another resource is refused', async () => {
    assertRefused(await call(await as.signAccessToken({ aud: 'https://other.example.test/mcp', sub: 'alice' })), 'invalid_token');
  });

  it('expired token replay: a token past its lifetime is refused', async () => {
    assertRefused(await call(await as.signAccessToken({ aud: AUDIENCE, sub: 'alice', expiresInSec: -120 })), 'invalid_token');
  });

  it('issuer spoofing: a token signed by another authorization server is refused', async () => {
    assertRefused(await call(await foreign.signAccessToken({ aud: AUDIENCE, sub: 'alice' })), 'invalid_token');
    assertRefused(await call(await foreign.signAccessToken({ aud: AUDIENCE, sub: 'alice', iss: as.issuer })), 'invalid_token');
  });

  it('static-token confusion: a made-up bearer string (e.g. the token-mode secret) is not an access token', async () => {
    assertRefused(await call('0123456789abcdef0123456789abcdef0123456789a'), 'invalid_token');
  });

  it('anonymous subject: a valid signature without a subject is refused (sessions are bound to it)', async () => {
    assertRefused(await call(await as.signAccessToken({ aud: AUDIENCE, sub: '' })), 'invalid_token');
  });
});
