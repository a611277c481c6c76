/**
 * `switchboard connections list | revoke`: the admin's view of the per-user downstream
 * connections (each principal's own sign-in at a remote server, issue #34), in the gateway's
 * store (`<stateDir>/connections.db`, or PostgreSQL with `--store` / `switchboard.store`).
 * `list` shows who is connected where, since when, with which scopes: never a token (it reads
 * only the stored summaries). `revoke` deletes connections by principal, by server or both; the
 * next call of that principal asks them to sign in again. It goes through
 * `host/connectionRevocation.ts` (as the console does), which then revokes the tokens at the
 * authorization server (RFC 7009) and reports each outcome.
 *
 * @module
 */
import { canonicalServerUrl } from '../../host/canonicalServerUrl.js';
import { describeAsRevoked, revokeConnections, type RevokedConnection } from '../../host/connectionRevocation.js';
import type { ConnectionFilter, ConnectionSummary } from '../../host/connections.js';
import type { HostConfig } from '../../host/configTypes.js';
import { counted } from '../../util/plural.js';
import { UsageError } from '../args.js';
import { defineCommand, type ParsedCommand } from '../command.js';
import { openConnectionStore } from '../connectionStores.js';
import { loadConfig } from '../hostSetup.js';
import { alignedRows } from '../listFormat.js';
import { configFileOption } from '../userFolder.js';

/** `switchboard connections`. */
export const command = defineCommand({
  name: 'connections',
  summary: "list or revoke the users' own sign-ins at remote servers: list | revoke",
  usage: ['list [--principal P] [--server S] [--tenant T] [--json] [--config FILE] [--store URL]', 'revoke (--principal P [--server S] | --server S) [--json] [--config FILE] [--store URL]'],
  description: `Shows and revokes the per-user connections of the gateway: for servers with
"auth": "per-user" or "token-exchange", each user's own credentials at that server.
list prints who is connected where, under which tenant, the mode, the scopes and when;
never a token.
revoke deletes the connections of a principal, of a server, or of one principal at one
server; that user's next call asks them to sign in again. Then it revokes their tokens at
the authorization server that issued them (RFC 7009: the refresh token, else the access
token), as the client that obtained them, and prints for each connection whether the
authorization server revoked them (or does not support revocation, or failed: the local
revocation stands either way).`,
  positionals: [
    { name: 'list', description: 'the connections (all, or those of --principal, --server and/or --tenant), oldest first' },
    { name: 'revoke', description: 'delete the connections of --principal, of --server, or of both together' },
  ],
  options: {
    principal: { type: 'string', value: 'P', description: 'the principal id (as the audit log names it)' },
    server: { type: 'string', value: 'S', description: "a server's id in the config, or its URL" },
    tenant: { type: 'string', value: 'T', description: 'list: only the connections made under this tenant (gateway.auth.oauth.tenantClaim)' },
    json: { type: 'boolean', description: 'print JSON (list: the summaries; revoke: {"revoked": N, "connections": [{principal, server, serverId, asRevoked, reason?}]})' },
    config: { type: 'string', value: 'FILE', description: "the gateway's config; its stateDir holds connections.db and connections.key", default: "./switchboard.json, else the running gateway's, else the per-user one" },
    store: { type: 'string', value: 'URL', description: 'the PostgreSQL store of several instances (postgres://...)', default: "the config's switchboard.store, else SQLite in the state folder" },
  },
  notes: `The tokens are sealed (AES-256-GCM) with the key in SWITCHBOARD_CONNECTIONS_KEY, else
<stateDir>/connections.key; a store opened with another key refuses to open them.`,
  run: runConnections,
});

async function runConnections({ options, positionals }: ParsedCommand): Promise<void> {
  const [action, ...extra] = positionals;
  if (action !== 'list' && action !== 'revoke') throw new UsageError(action === undefined ? 'which action: list or revoke?' : `unknown action ${JSON.stringify(action)}`);
  if (extra.length > 0) throw new UsageError(`unexpected argument ${JSON.stringify(extra[0])}`);
  const config = await loadConfig(await configFileOption(options['config'], true));
  const principal = typeof options['principal'] === 'string' ? options['principal'] : undefined;
  const server = typeof options['server'] === 'string' ? serverIdentity(config, options['server']) : undefined;
  const tenant = typeof options['tenant'] === 'string' ? options['tenant'] : undefined;
  if (action === 'revoke' && principal === undefined && server === undefined) throw new UsageError('revoke needs --principal, --server or both');
  if (action === 'revoke' && tenant !== undefined) throw new UsageError('--tenant filters list only; revoke by --principal and/or --server');
  const filter: ConnectionFilter = { ...(principal !== undefined ? { principal } : {}), ...(server !== undefined ? { server } : {}), ...(tenant !== undefined ? { tenant } : {}) };
  const storeUrl = typeof options['store'] === 'string' ? options['store'] : config.store;
  const { store } = await openConnectionStore({ stateDir: config.stateDir, ...(storeUrl !== undefined ? { store: storeUrl } : {}) });
  try {
    if (action === 'list') {
      const list = await store.list(filter);
      process.stdout.write(options['json'] === true ? `${JSON.stringify(list, null, 2)}\n` : formatConnections(list));
      return;
    }
    const revoked = await revokeConnections({ store, servers: () => config.servers }, filter);
    process.stdout.write(options['json'] === true ? `${JSON.stringify({ revoked: revoked.length, connections: revoked.map(revokedJson) }, null, 2)}\n` : formatRevoked(revoked, filter));
  } finally {
    await store.close();
  }
}

/** A config id names its remote server's URL; anything else is read as a URL (its canonical form). */
function serverIdentity(config: HostConfig, text: string): string {
  const configured = config.servers.find((s) => s.id === text);
  if (configured !== undefined) {
    if (configured.launch.kind === 'stdio') throw new UsageError(`${text} is a local (stdio) server: per-user connections are for remote servers`);
    return canonicalServerUrl(configured.launch.url);
  }
  if (!URL.canParse(text)) throw new UsageError(`--server ${JSON.stringify(text)} is neither a server of the config nor a URL`);
  return canonicalServerUrl(text);
}

/** One revoked connection as `--json` prints it (and the console answers it): no token. */
export function revokedJson(r: RevokedConnection): Record<string, unknown> {
  return { principal: r.summary.principal, server: r.summary.server, serverId: r.summary.serverId, asRevoked: r.asRevoked, ...(r.reason !== undefined ? { reason: r.reason } : {}) };
}

/** `Revoked N connections …`, then one line per connection saying what its authorization server did. */
function formatRevoked(revoked: readonly RevokedConnection[], filter: ConnectionFilter): string {
  const lines = revoked.map((r) => `  ${r.summary.principal} @ ${r.summary.server}${r.summary.scopes.length > 0 && r.summary.mode === 'token-exchange' ? ` (${r.summary.scopes.join(' ')})` : ''}: ${describeAsRevoked(r)}\n`);
  return `Revoked ${counted(revoked.length, 'connection')}${describeFilter(filter)}.\n${lines.join('')}`;
}

function describeFilter(filter: ConnectionFilter): string {
  const parts = [...(filter.principal !== undefined ? [`of ${filter.principal}`] : []), ...(filter.server !== undefined ? [`at ${filter.server}`] : []), ...(filter.tenant !== undefined ? [`in tenant ${filter.tenant}`] : [])];
  return parts.length > 0 ? ` ${parts.join(' ')}` : '';
}

/** The connections as text: one header line, then principal and server, and the details. */
export function formatConnections(list: readonly ConnectionSummary[]): string {
  if (list.length === 0) return 'No connections.\n';
  const rows = list.map((c): [string, string] => {
    const details = [
      c.serverId,
      c.mode,
      ...(c.tenant !== undefined ? [`tenant ${c.tenant}`] : []),
      c.scopes.length > 0 ? `scopes ${c.scopes.join(' ')}` : 'no scopes',
      `since ${new Date(c.createdAt).toISOString()}`,
      ...(c.expiresAt !== undefined ? [`expires ${new Date(c.expiresAt).toISOString()}`] : []),
      c.refreshable ? 'refreshable' : 'not refreshable',
    ];
    return [`${c.principal} @ ${c.server}`, details.join(', ')];
  });
  return `${counted(list.length, 'connection')}:\n${alignedRows(rows).map((r) => `  ${r}`).join('\n')}\n`;
}
