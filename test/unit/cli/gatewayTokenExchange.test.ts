// The gateway's front door in OAuth mode with `exchangeable`: the caller's verified principal,
// the very object, reaches the host's call scope (an interceptor) where the token-exchange
// credentials turn it into a token for one downstream server (RFC 8693) at a real authorization
// server (oidc-provider, test/fixtures/oidcAuthServer.ts); the downstream server itself is
// still sent no token by the gateway (no passthrough), and without `exchangeable` nothing is kept.
// https://datatracker.ietf.org/doc/html/rfc8693
// https://modelcontextprotocol.io/specification/2025-11-25/basic/security_best_practices#token-passthrough
import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import * as jose from 'jose';
import type { ListeningServer } from '../../../src/adapters/nodeHttp.js';
import { allowInsecureRequests } from '../../../src/auth/http.js';
import { subjectTokenOf } from '../../../src/auth/resource/subjectToken.js';
import { serveGatewayHttp } from '../../../src/cli/gatewayHttp.js';
import { MemoryConnectionStore } from '../../../src/host/connections.js';
import { Gateway } from '../../../src/host/gateway.js';
import { Host } from '../../../src/host/host.js';
import { gatewayFrontDoor } from '../../../src/host/openGateway.js';
import { TokenExchangeCredentials } from '../../../src/host/tokenExchangeCredentials.js';
import { McpServer } from '../../../src/server/mcpServer.js';
import type { HttpExtra } from '../../../src/transport/http/server/types.js';
import { silentLogger } from '../../../src/util/logger.js';
import { callWhoami, startAudienceResourceServer, type AudienceResourceServer } from '../../fixtures/audienceResourceServer.js';
import { startOidcAuthServer, type OidcAuthServer } from '../../fixtures/oidcAuthServer.js';
import { memoryServers, memorySpec } from '../host/support/memoryServers.js';
import { postToolCall } from './support/toolCall.js';

const AUDIENCE = 'https://gateway.example.test/mcp';
const T = { timeout: 60_000 };

let as: OidcAuthServer;
let downstream: AudienceResourceServer;
const closers: (() => Promise<void>)[] = [];

/** What the host's call scope could do with each call's principal. */
interface Seen {
  readonly hadSubjectToken: boolean;
  readonly exchanged?: { readonly aud: unknown; readonly sub: unknown; readonly token: string };
  readonly error?: unknown;
}

/** A gateway (one memory server, tool `probe`) whose audit-phase interceptor exchanges the caller's token for `downstream`. */
async function gatewayWith(exchangeable: boolean): Promise<{ endpoint: string; seen: Seen[]; seenByServer: (string | undefined)[] }> {
  const seen: Seen[] = [];
  const seenByServer: (string | undefined)[] = [];
  const credentials = new TokenExchangeCredentials({
    server: downstream.url,
    serverId: 'downstream',
    options: { issuer: as.issuer, clientId: as.gatewayClient.clientId, clientSecret: as.gatewayClient.clientSecret, scopes: ['mcp:read'], [allowInsecureRequests]: true },
    store: new MemoryConnectionStore(),
  });
  const servers = memoryServers((id) => {
    const server = new McpServer({ name: id, version: '1' });
    server.tool('probe', { description: 'What the downstream server sees of the caller.' }, (_args, ctx) => {
      seenByServer.push((ctx.extra?.['http'] as HttpExtra | undefined)?.getHeader('authorization'));
      return 'probed';
    });
    return server;
  });
  const host = await Host.open({
    servers: [memorySpec('inner')],
    transport: servers.factory,
    logger: silentLogger,
    interceptors: [
      {
        id: 'test.exchange',
        phase: 'audit',
        intercept: async (ctx, next) => {
          const principal = ctx.principal;
          if (principal !== undefined && ctx.method === 'tools/call') {
            try {
              const answer = await credentials.credentialFor(principal);
              const token = answer.kind === 'token' ? answer.connection.tokens.accessToken : '';
              const claims = jose.decodeJwt(token);
              seen.push({ hadSubjectToken: true, exchanged: { aud: claims.aud, sub: claims.sub, token } });
            } catch (error) {
              seen.push({ hadSubjectToken: subjectTokenOf(principal.auth) !== undefined, error });
            }
          }
          return next();
        },
      },
    ],
  });
  await host.start();
  const gateway = new Gateway(host);
  const running: ListeningServer = await serveGatewayHttp(gatewayFrontDoor(gateway, host), {
    host: '127.0.0.1',
    port: 0,
    path: '/mcp',
    logger: silentLogger,
    auth: { oauth: { issuer: as.issuer, audience: AUDIENCE, jwksUri: as.jwksUri, exchangeable } },
  });
  closers.push(async () => {
    await gateway.close();
    await host.close();
    await running.close();
  });
  return { endpoint: new URL('/mcp', running.url).href, seen, seenByServer };
}

before(async () => {
  as = await startOidcAuthServer({ gatewayResources: [AUDIENCE] });
  downstream = await startAudienceResourceServer(as, { name: 'downstream' });
  closers.push(() => as.close(), () => downstream.close());
});

after(async () => {
  for (const close of closers.reverse()) await close();
});

describe('gateway front door with exchangeable: the principal reaches the host call scope as a capability', T, () => {
  it('the call scope exchanges the caller token for one addressed to the downstream server, which accepts it as the caller', T, async () => {
    const { endpoint, seen, seenByServer } = await gatewayWith(true);
    const inbound = await as.accessToken('alice', AUDIENCE);
    const response = await postToolCall(endpoint, 'probe', { authorization: `Bearer ${inbound}` });
    assert.equal(response.status, 200, await response.clone().text());
    assert.match(await response.text(), /probed/);
    assert.equal(seen.length, 1, JSON.stringify(seen));
    const exchanged = seen[0]?.exchanged;
    assert.deepEqual({ aud: exchanged?.aud, sub: exchanged?.sub }, { aud: downstream.url, sub: 'alice' });
    assert.notEqual(exchanged?.token, inbound);
    assert.deepEqual(await callWhoami(downstream.url, exchanged?.token ?? ''), { ok: true, sub: 'alice' });
    // token-passthrough: the gateway's downstream server got no Authorization header at all.
    assert.deepEqual(seenByServer, [undefined]);
  });

  it('front-door-without-exchangeable keeps no subject token: the call scope gets CredentialUnavailableError, the AS sees no exchange', T, async () => {
    const { endpoint, seen } = await gatewayWith(false);
    const inbound = await as.accessToken('bob', AUDIENCE);
    const before = as.exchanges.length;
    const response = await postToolCall(endpoint, 'probe', { authorization: `Bearer ${inbound}` });
    assert.equal(response.status, 200);
    await response.text();
    assert.equal(seen.length, 1);
    assert.equal(seen[0]?.hadSubjectToken, false);
    assert.equal((seen[0]?.error as { code?: string } | undefined)?.code, 'ERR_MCP_CREDENTIAL_UNAVAILABLE');
    assert.equal(as.exchanges.length, before);
  });
});
