// auth: { mode: "token-exchange" } through the gateway's own wiring (the gateway command's
// DownstreamAuthority, its OAuth front door with exchangeable tokens): a caller signed in at a
// real authorization server (oidc-provider) calls a tool; the gateway exchanges the caller's
// token (RFC 8693) for one whose audience is the downstream server alone, and the audience-
// checking resource server runs the call as the caller. Judged by what reached the server.
// https://datatracker.ietf.org/doc/html/rfc8693
import assert from 'node:assert/strict';
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { after, before, describe, it } from 'node:test';
import { defaultTransportFactory } from '../../src/adapters/hostTransports.js';
import type { ListeningServer } from '../../src/adapters/nodeHttp.js';
import { McpClient } from '../../src/client/mcpClient.js';
import { gatewayDownstreamAuth } from '../../src/cli/gatewayDownstreamAuth.js';
import { serveGatewayHttp } from '../../src/cli/gatewayHttp.js';
import { auditInterceptor } from '../../src/host/audit.js';
import { parseConfig } from '../../src/host/config.js';
import { Gateway, GATEWAY_CLIENT_CAPABILITIES } from '../../src/host/gateway.js';
import { Host } from '../../src/host/host.js';
import { gatewayFrontDoor } from '../../src/host/openGateway.js';
import { SqliteAuditLog } from '../../src/store/sqliteAudit.js';
import { StreamableHttpClientTransport } from '../../src/transport/http/client/client.js';
import { silentLogger } from '../../src/util/logger.js';
import { startAudienceResourceServer, type AudienceResourceServer } from '../fixtures/audienceResourceServer.js';
import { startOidcAuthServer, type OidcAuthServer } from '../fixtures/oidcAuthServer.js';
import { freePort } from './remoteOAuthSupport.js';

const T = { timeout: 60_000 };
let as: OidcAuthServer;
let rs: AudienceResourceServer;
/** A server whose tools need different scopes (`toolScopes`). */
let notes: AudienceResourceServer;
let dir: string;
let audit: SqliteAuditLog;
let host: Host;
let running: ListeningServer;
let downstream: ReturnType<typeof gatewayDownstreamAuth>;
let audience: string;

before(async () => {
  as = await startOidcAuthServer();
  rs = await startAudienceResourceServer(as, { name: 'tx' });
  notes = await startAudienceResourceServer(as, { name: 'notes', tools: ['read_note', 'write_note', 'admin_note'] });
  const catalogToken = await as.accessToken('catalog-reader', rs.url);
  const notesCatalogToken = await as.accessToken('catalog-reader', notes.url);
  const port = await freePort();
  audience = `http://127.0.0.1:${port}/mcp`;
  as.gatewayResources.add(audience);
  dir = await mkdtemp(join(tmpdir(), 'sb-tx-gateway-'));
  audit = SqliteAuditLog.open(join(dir, 'audit.db'));
  const config = parseConfig(
    JSON.stringify({
      mcpServers: {
        tx: { type: 'http', url: rs.url, headers: { Authorization: 'Bearer ${env:CATALOG_TOKEN}' } },
        notes: { type: 'http', url: notes.url, headers: { Authorization: 'Bearer ${env:NOTES_CATALOG_TOKEN}' } },
      },
      switchboard: {
        servers: {
          tx: { auth: { mode: 'token-exchange', issuer: as.issuer, clientId: as.gatewayClient.clientId, clientSecret: '${env:TX_SECRET}', scopes: ['mcp:read'] } },
          notes: {
            auth: {
              mode: 'token-exchange',
              issuer: as.issuer,
              clientId: as.gatewayClient.clientId,
              clientSecret: '${env:TX_SECRET}',
              scopes: ['mcp:read'],
              toolScopes: { write_note: ['mcp:read', 'mcp:write'], admin_note: ['mcp:admin', 'mcp:read'] },
            },
          },
        },
      },
    }),
    { file: join(dir, 'switchboard.json'), env: { CATALOG_TOKEN: catalogToken, NOTES_CATALOG_TOKEN: notesCatalogToken, TX_SECRET: as.gatewayClient.clientSecret } },
  );
  downstream = gatewayDownstreamAuth(silentLogger);
  host = await Host.open({ servers: config.servers, transport: defaultTransportFactory({ environment: {} }), logger: silentLogger, capabilities: GATEWAY_CLIENT_CAPABILITIES, interceptors: [auditInterceptor(audit)], authority: downstream.authority });
  await host.start();
  running = await serveGatewayHttp(gatewayFrontDoor(new Gateway(host), host), {
    host: '127.0.0.1',
    port,
    path: '/mcp',
    logger: silentLogger,
    auth: { oauth: { issuer: as.issuer, audience, jwksUri: as.jwksUri, exchangeable: true } },
  });
});

after(async () => {
  await downstream?.authority.close();
  await running?.close();
  await host?.close();
  await audit?.close();
  await rs?.close();
  await notes?.close();
  await as?.close();
  await rm(dir, { recursive: true, force: true });
});

/** Calls each of `tools` (the server's own names; the gateway's exposed name ends with it) as the holder of `token`, one after another. */
async function callEach(token: string, tools: readonly string[]): Promise<void> {
  const client = new McpClient({ name: 'caller', version: '1' }, { logger: silentLogger });
  try {
    await client.connect(new StreamableHttpClientTransport({ url: audience, headers: { authorization: `Bearer ${token}` } }));
    const listed = await client.listTools();
    for (const tool of tools) {
      const name = listed.find((t) => t.name.endsWith(tool))?.name;
      assert.ok(name !== undefined, `${tool} is listed: ${listed.map((t) => t.name).join(', ')}`);
      assert.equal((await client.callTool(name, {})).isError ?? false, false);
    }
  } finally {
    await client.close();
  }
}

async function whoami(token: string): Promise<{ sub: string; aud: string[] }> {
  const client = new McpClient({ name: 'caller', version: '1' }, { logger: silentLogger });
  try {
    await client.connect(new StreamableHttpClientTransport({ url: audience, headers: { authorization: `Bearer ${token}` } }));
    const name = (await client.listTools()).find((t) => t.name.endsWith('whoami'))?.name ?? 'whoami';
    const result = await client.callTool(name, {});
    const text = result.content.map((c) => (c.type === 'text' ? c.text : '')).join('');
    return JSON.parse(text) as { sub: string; aud: string[] };
  } finally {
    await client.close();
  }
}

describe('e2e: auth token-exchange through the gateway (oidc-provider, audience-checking resource server)', () => {
  it('each caller arrives downstream as itself, with a token whose audience is that server alone; inbound-token-never-forwarded', T, async () => {
    const erin = await as.accessToken('erin@example.com', audience);
    const finn = await as.accessToken('finn@example.com', audience);
    const from = rs.calls.length;
    const [e, f] = await Promise.all([whoami(erin), whoami(finn)]);
    assert.equal(e.sub, 'erin@example.com');
    assert.equal(f.sub, 'finn@example.com');
    const calls = rs.calls.slice(from);
    assert.deepEqual(calls.map((c) => c.sub).sort(), ['erin@example.com', 'finn@example.com']);
    for (const c of calls) {
      assert.deepEqual(c.aud, [rs.url], 'audience: the downstream server alone');
      assert.equal(c.clientId, as.gatewayClient.clientId, 'issued to the gateway, acting for the caller');
    }
    const forwarded = rs.requests.filter((r) => r.authorization === `Bearer ${erin}` || r.authorization === `Bearer ${finn}`);
    assert.deepEqual(forwarded, []);
  });

  it('the audit record of each call names the caller as the credential\'s principal, mode token-exchange', T, async () => {
    const records = (await audit.read()).filter((r) => r.method === 'tools/call' && r.outcome === 'ok');
    assert.ok(records.length >= 2);
    for (const r of records) assert.deepEqual(r.credential, { principal: r.principal, mode: 'token-exchange' });
  });
  it('toolScopes: each tool\'s call reaches the server with a token of exactly that tool\'s scopes; an unlisted tool gets the server default (counted at the AS, judged by the resource server)', T, async () => {
    const gil = await as.accessToken('gil@example.com', audience);
    const [calls, exchanges] = [notes.calls.length, as.exchanges.length];
    await callEach(gil, ['write_note', 'read_note', 'admin_note', 'write_note', 'read_note']);
    const sorted = (scopes: string | readonly string[] | undefined): string => (typeof scopes === 'string' ? scopes.split(' ') : [...(scopes ?? [])]).sort().join(' ');
    // The AS: one exchange per scope set, each for exactly that set, for the caller, at that server.
    const made = as.exchanges.slice(exchanges).filter((e) => e.resource === notes.url);
    assert.deepEqual(made.map((e) => sorted(e.scope)).sort(), ['mcp:admin mcp:read', 'mcp:read', 'mcp:read mcp:write']);
    for (const e of made) assert.equal(e.sub, 'gil@example.com');
    // The resource server: what each call arrived with.
    const seen = notes.calls.slice(calls).map((c) => [c.tool, sorted(c.scopes), c.sub]);
    assert.deepEqual(seen, [
      ['write_note', 'mcp:read mcp:write', 'gil@example.com'],
      ['read_note', 'mcp:read', 'gil@example.com'],
      ['admin_note', 'mcp:admin mcp:read', 'gil@example.com'],
      ['write_note', 'mcp:read mcp:write', 'gil@example.com'],
      ['read_note', 'mcp:read', 'gil@example.com'],
    ]);
    // Connections: listed as the server's, one per scope set; revoking the server revokes them all.
    const listed = await downstream.store.list({ principal: 'gil@example.com' });
    assert.deepEqual(listed.map((c) => [c.server, sorted(c.scopes)]).sort(), [[notes.url, 'mcp:admin mcp:read'], [notes.url, 'mcp:read'], [notes.url, 'mcp:read mcp:write']]);
    assert.equal(await downstream.store.revoke({ server: notes.url }), 3);
  });
});
