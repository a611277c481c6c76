/**
 * The console's connections routes: the admin's view of every principal's own sign-in at a
 * remote server (servers with `auth: "per-user"` or `"token-exchange"`), read from the gateway's
 * `ConnectionStore` (the same store `switchboard connections` opens), and revocation per
 * connection, per principal or per server.
 *
 * - The list is built field by field from the store's summaries: never a token, whatever the
 *   store hands back.
 * - A revocation is a `POST` (so the console's Origin, session and CSRF checks in
 *   `consoleApi.ts` apply before it is routed) and is recorded in the audit log as
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
export async function revokeConnections(ctx: RouteContext): Promise<HttpResponseLike> {
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
  return json(200, { revoked: revoked.length, connections: revoked.map((c) => ({ principal: c.principal, server: c.server, serverId: c.serverId })) });
}

/**
 * Revokes the connections `filter` names (only rows of `filter.principal` when it is set, whatever
 * the store lists), tells open pages, and records it in the audit log as `actor`: the revoked
 * summaries, or the answer saying why not (404 `notFound`, 503).
 */
export async function revokeAudited(ctx: RouteContext, store: ConnectionStore, filter: ConnectionFilter, actor: string, notFound: string): Promise<readonly ConnectionSummary[] | HttpResponseLike> {
  let revoked: readonly ConnectionSummary[];
  try {
    revoked = (await store.list(filter)).filter((c) => filter.principal === undefined || c.principal === filter.principal);
    if (revoked.length === 0 || (await store.revoke(filter)) === 0) return failure(404, notFound);
  } catch (error) {
    return failure(503, `the connections could not be revoked: ${describeError(error)}`);
  }
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

/**
 * The `connection` audit record of one revocation from the console by `actor` (the admin,
 * `console:admin`, or a person revoking their own, `console:person:<id>`): the filter, how many
 * and which (principal, server identity) pairs were removed. No token is ever part of it.
 */
export function revocationEntry(filter: ConnectionFilter, revoked: readonly ConnectionSummary[], now: number, actor: string = CONSOLE_APPROVER): AuditEntry {
  const serverIds = [...new Set(revoked.map((c) => c.serverId))];
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
        reason: `${actor} revoked ${revoked.length === 1 ? 'a connection' : `${revoked.length} connections`}`,
        detail: { ...filter, revoked: revoked.map((c) => ({ principal: c.principal, server: c.server, serverId: c.serverId })) },
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
