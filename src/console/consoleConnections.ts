/**
 * The console's connections routes: the admin's view of every principal's own sign-in at a
 * remote server (servers with `auth: "per-user"` or `"token-exchange"`), read from the gateway's
 * `ConnectionStore` (the same store `switchboard connections` opens), and revocation per
 * connection, per principal or per server.
 *
 * - The list is built field by field from the store's summaries: never a token, whatever the
 *   store hands back.
 * - A revocation is a `POST` (so the console's Origin, session and CSRF checks in
 *   `consoleApi.ts` apply before it is routed), goes through `host/connectionRevocation.ts` (the
 *   CLI's path: the store first, then RFC 7009 at the authorization server, each outcome in the
 *   answer as `asRevoked`), and is recorded in the audit log as
 *   `console:admin` (`kind: "connection"`, `connections/revoke`), like the console's pin
 *   decisions. The next call of a revoked principal asks them to sign in again
 *   (`host/principalClients.ts` reads the store on every call).
 * - A gateway with no per-user server never created the store (nor its key): the list is then
 *   empty and says so, without creating them.
 *
 * @module
 */
import type { AuditEntry } from '../host/audit.js';
import { canonicalServerUrl } from '../host/canonicalServerUrl.js';
import { revokeConnections, type RevokedConnection } from '../host/connectionRevocation.js';
import type { ConnectionFilter, ConnectionStore, ConnectionSummary } from '../host/connections.js';
import type { HttpResponseLike } from '../transport/http/server/types.js';
import { describeError } from '../util/errors.js';
import { CONSOLE_APPROVER } from './consoleConsent.js';
import { failure, json } from './consoleResponses.js';
import type { RouteContext } from './consoleTypes.js';

/** The interceptor id a revocation's audit decision is recorded under. */
export const CONNECTION_REVOKE_ID = 'connections.revoke';

/** `GET connections?principal=&server=&tenant=`: `server` is a config id or a server identity (URL); `tenant` the tenant a connection was made under. */
export async function connectionsState(ctx: RouteContext): Promise<HttpResponseLike> {
  const connections = ctx.options.connections;
  if (connections === undefined) return json(200, { enabled: false, connections: [] });
  if (connections.inUse !== undefined && !connections.inUse()) return json(200, { enabled: true, opened: false, connections: [] });
  const principal = ctx.query.get('principal')?.trim() ?? '';
  const server = ctx.query.get('server')?.trim() ?? '';
  const tenant = ctx.query.get('tenant')?.trim() ?? '';
  let list: readonly ConnectionSummary[];
  try {
    list = await connections.store.list({ ...(principal !== '' ? { principal } : {}), ...(tenant !== '' ? { tenant } : {}) });
  } catch (error) {
    return failure(503, `the connections could not be read: ${describeError(error)}`);
  }
  const identity = server === '' ? undefined : identityOf(server);
  const shown = server === '' ? list : list.filter((c) => c.serverId === server || c.server === identity);
  return json(200, { enabled: true, opened: true, connections: shown.map(shownSummary) });
}

/** `POST connections/revoke` `{ principal?, server? }` (at least one; `server` is the identity from the list, or a config id). */
export async function revokeConnectionsRoute(ctx: RouteContext): Promise<HttpResponseLike> {
  const connections = ctx.options.connections;
  if (connections === undefined) return failure(404, 'this gateway keeps no per-user connections');
  const body = await ctx.body();
  const { principal, server } = body;
  if (principal !== undefined && (typeof principal !== 'string' || principal === '')) return failure(400, '"principal" must be a non-empty string');
  if (server !== undefined && (typeof server !== 'string' || server === '')) return failure(400, '"server" must be a non-empty string (a server identity from GET connections, or a config id)');
  if (principal === undefined && server === undefined) return failure(400, 'the body needs "principal", "server" or both');
  const filter: ConnectionFilter = { ...(principal !== undefined ? { principal } : {}), ...(server !== undefined ? { server: configuredIdentity(ctx, server) ?? identityOf(server) ?? server } : {}) };
  const revoked = await revokeAudited(ctx, connections.store, filter, CONSOLE_APPROVER, 'no such connection');
  if (!Array.isArray(revoked)) return revoked as HttpResponseLike;
  return json(200, { revoked: revoked.length, connections: revoked.map((r) => revokedShown(r, true)) });
}

/**
 * Revokes the connections `filter` names through `host/connectionRevocation.ts` (the CLI's path:
 * removed from the store first, then revoked at their authorization servers, RFC 7009), tells
 * open pages, and records it in the audit log as `actor` with each connection's `asRevoked`
 * outcome: the revoked connections, or the answer saying why not (404 `notFound`, 503).
 */
export async function revokeAudited(ctx: RouteContext, store: ConnectionStore, filter: ConnectionFilter, actor: string, notFound: string): Promise<readonly RevokedConnection[] | HttpResponseLike> {
  let revoked: readonly RevokedConnection[];
  try {
    const fetch = ctx.options.connections?.fetch;
    revoked = await revokeConnections({ store, servers: () => ctx.options.config().servers, ...(fetch !== undefined ? { fetch } : {}) }, filter);
  } catch (error) {
    return failure(503, `the connections could not be revoked: ${describeError(error)}`);
  }
  if (revoked.length === 0) return failure(404, notFound);
  ctx.changed('connections');
  const audit = ctx.options.audit;
  if (audit !== undefined) {
    try {
      await audit.log.append(revocationEntry(filter, revoked, (ctx.options.now ?? Date.now)(), actor));
    } catch (error) {
      return failure(503, `revoked ${revoked.length}, but the audit record could not be written: ${describeError(error)}`);
    }
  }
  return revoked;
}

/** What a revocation answer shows of one revoked connection: who, where, and what its authorization server did. */
export function revokedShown(r: RevokedConnection, withPrincipal: boolean): Record<string, unknown> {
  return {
    ...(withPrincipal ? { principal: r.summary.principal } : {}),
    server: r.summary.server,
    serverId: r.summary.serverId,
    asRevoked: r.asRevoked,
    ...(r.reason !== undefined ? { reason: r.reason } : {}),
  };
}

/**
 * The `connection` audit record of one revocation from the console by `actor` (the admin,
 * `console:admin`, or a person revoking their own, `console:person:<id>`): the filter, how many
 * and which (principal, server identity) pairs were removed, and for each whether its
 * authorization server revoked the tokens (`asRevoked: true | false | "unsupported"`, with the
 * reason). No token is ever part of it.
 */
export function revocationEntry(filter: ConnectionFilter, revoked: readonly RevokedConnection[], now: number, actor: string = CONSOLE_APPROVER): AuditEntry {
  const serverIds = [...new Set(revoked.map((c) => c.summary.serverId))];
  const notAtAs = revoked.filter((r) => r.asRevoked !== true).length;
  return {
    time: new Date(now).toISOString(),
    kind: 'connection',
    method: 'connections/revoke',
    principal: actor,
    ...(serverIds.length === 1 ? { server: serverIds[0] as string } : {}),
    ...(filter.principal !== undefined ? { name: filter.principal } : {}),
    decisions: [
      {
        interceptor: CONNECTION_REVOKE_ID,
        outcome: 'deny',
        reason: `${actor} revoked ${revoked.length === 1 ? 'a connection' : `${revoked.length} connections`}${notAtAs > 0 ? ` (${notAtAs} not revoked at the authorization server)` : ''}`,
        detail: { ...filter, revoked: revoked.map((r) => ({ principal: r.summary.principal, ...revokedShown(r, false) })) },
      },
    ],
    outcome: 'ok',
    latencyMs: 0,
  };
}

/** What the page may see of a summary: named fields only (a store that handed back more shows no more). */
function shownSummary(c: ConnectionSummary): Record<string, unknown> {
  return {
    principal: c.principal,
    ...(c.tenant !== undefined ? { tenant: c.tenant } : {}),
    server: c.server,
    serverId: c.serverId,
    mode: c.mode,
    scopes: [...c.scopes],
    issuer: c.issuer,
    createdAt: c.createdAt,
    updatedAt: c.updatedAt,
    ...(c.expiresAt !== undefined ? { expiresAt: c.expiresAt } : {}),
    refreshable: c.refreshable,
  };
}

/** The identity of a remote server of the live config named by its id. */
export function configuredIdentity(ctx: RouteContext, id: string): string | undefined {
  const configured = ctx.options.config().servers.find((s) => s.id === id);
  return configured === undefined || configured.launch.kind === 'stdio' ? undefined : canonicalServerUrl(configured.launch.url);
}

/** A URL's canonical form (server identities are stored that way), or undefined. */
export function identityOf(text: string): string | undefined {
  if (!URL.canParse(text)) return undefined;
  try {
    return canonicalServerUrl(text);
  } catch {
    return undefined;
  }
}
