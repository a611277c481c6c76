/**
 * The person's own routes (`/console/api/me/*`, issue #34's "My connections"): a `person`
 * session (`consoleSession.ts`: a named token, or a sign-in at the inbound authorization
 * server) sees and revokes only its own principal's connections. An `admin` session has no
 * principal and is refused here (403); a person is refused every admin route
 * (`consoleApi.ts`).
 *
 * - `GET me/connections`: the principal and its connections, field by field (server id and
 *   identity, mode, scopes, issuer, since, last refreshed, expiry, whether refreshable): never
 *   a token, whatever the store hands back.
 * - `POST me/connections/revoke` `{ server? }`: the caller's connection at `server` (a config
 *   id or a server identity), or all of the caller's connections when `server` is absent. The
 *   store is always asked with the session's principal; a body naming another principal is
 *   refused (403) and revokes nothing. Audited like the admin's revocation, with the person's
 *   principal as the actor.
 *
 * @module
 */
import type { ConnectionFilter, ConnectionSummary } from '../host/connections.js';
import type { HttpResponseLike } from '../transport/http/server/types.js';
import { describeError } from '../util/errors.js';
import { configuredIdentity, identityOf, revokeAudited, revokedShown } from './consoleConnections.js';
import { failure, json } from './consoleResponses.js';
import type { ConsolePrincipal } from './consoleSession.js';
import type { RouteContext } from './consoleTypes.js';

/** One person route: like a {@link Route}, with the session's principal. */
export interface MeRoute {
  readonly method: 'GET' | 'POST';
  /** Below `me/`. */
  readonly path: string;
  run(ctx: RouteContext, me: ConsolePrincipal): Promise<HttpResponseLike>;
}

/** The person's routes, below `me/`. */
export const ME_ROUTES: readonly MeRoute[] = [
  { method: 'GET', path: 'connections', run: myConnections },
  { method: 'POST', path: 'connections/revoke', run: revokeMine },
];

/** The audit actor of a person's own revocation. */
export function personActor(me: ConsolePrincipal): string {
  return `console:person:${me.id}`;
}

/** `GET me/connections`. */
async function myConnections(ctx: RouteContext, me: ConsolePrincipal): Promise<HttpResponseLike> {
  const principal = { id: me.id, ...(me.tenant !== undefined ? { tenant: me.tenant } : {}), issuer: me.issuer };
  const connections = ctx.options.connections;
  if (connections === undefined || (connections.inUse !== undefined && !connections.inUse())) return json(200, { principal, enabled: connections !== undefined, connections: [] });
  let list: readonly ConnectionSummary[];
  try {
    list = await connections.store.list({ principal: me.id });
  } catch (error) {
    return failure(503, `your connections could not be read: ${describeError(error)}`);
  }
  // The store was asked for this principal; a store that hands back more still shows no one else's.
  return json(200, { principal, enabled: true, connections: list.filter((c) => c.principal === me.id).map(mine) });
}

/** `POST me/connections/revoke` `{ server? }`. */
async function revokeMine(ctx: RouteContext, me: ConsolePrincipal): Promise<HttpResponseLike> {
  const connections = ctx.options.connections;
  if (connections === undefined) return failure(404, 'this gateway keeps no per-user connections');
  const { principal, server } = await ctx.body();
  if (principal !== undefined && principal !== me.id) return failure(403, 'you may revoke only your own connections');
  if (server !== undefined && (typeof server !== 'string' || server === '')) return failure(400, '"server" must be a non-empty string (a server identity from GET me/connections, or a config id)');
  const filter: ConnectionFilter = { principal: me.id, ...(server !== undefined ? { server: configuredIdentity(ctx, server) ?? identityOf(server) ?? server } : {}) };
  const revoked = await revokeAudited(ctx, connections.store, filter, personActor(me), 'no such connection of yours');
  if (!Array.isArray(revoked)) return revoked as HttpResponseLike;
  return json(200, { revoked: revoked.length, connections: revoked.map((r) => revokedShown(r, false)) });
}

/** What a person sees of one of their connections: named fields only (no principal: it is theirs). */
function mine(c: ConnectionSummary): Record<string, unknown> {
  return {
    server: c.server,
    serverId: c.serverId,
    mode: c.mode,
    scopes: [...c.scopes],
    issuer: c.issuer,
    since: c.createdAt,
    refreshedAt: c.updatedAt,
    ...(c.expiresAt !== undefined ? { expiresAt: c.expiresAt } : {}),
    refreshable: c.refreshable,
  };
}
