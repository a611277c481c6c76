/**
 * Revoking per-user connections: the one path the CLI (`switchboard connections revoke`), the
 * console's admin revocation and a person's own revocation all take.
 *
 * 1. The matching connections are removed from the store first ({@link ConnectionStore.take}):
 *    the local revocation always happens and is never undone, whatever the authorization
 *    server answers next.
 * 2. Then each removed connection's tokens are revoked at the authorization server that issued
 *    them ({@link https://www.rfc-editor.org/rfc/rfc7009 | RFC 7009}): its refresh token
 *    (`token_type_hint=refresh_token`; the server drops the grant's access tokens too, section
 *    2.1), else its access token, at the `revocation_endpoint` of its issuer's metadata
 *    (RFC 8414), authenticated as the client that obtained them:
 *    - `per-user`: the server's configured `oauth.clientId` (a public client, `none`), else the
 *      gateway's dynamic registrations stored at that issuer (tried in turn: one per redirect URI);
 *    - `token-exchange`: the server's configured `auth.clientId` / `clientSecret` (an RFC 8693
 *      token is revoked like any other, where the server supports it).
 *    https only, plain http to a loopback issuer; each request bounded
 *    ({@link REVOCATION_TIMEOUT_MS}), at most {@link REVOCATION_CONCURRENCY} at once.
 * 3. Each connection's outcome is reported (`asRevoked: true | false | "unsupported"` with the
 *    reason), never swallowed. Nothing here throws after step 1.
 *
 * @module
 */
import { discoverAuthorizationServer, type AuthorizationServerMetadata } from '../auth/client/discovery.js';
import { selectTokenEndpointAuthMethod } from '../auth/client/tokenEndpoint.js';
import { REVOCATION_TIMEOUT_MS, revokeToken, type RevocationResult } from '../auth/client/tokenRevocation.js';
import type { ClientRegistration } from '../auth/client/tokenStore.js';
import { allowInsecureRequests, type FetchLike } from '../auth/http.js';
import { describeError } from '../util/errors.js';
import { canonicalServerUrl, isLoopbackHttp } from './canonicalServerUrl.js';
import type { ServerConfig } from './configTypes.js';
import { serverOfKey, type Connection, type ConnectionFilter, type ConnectionStore, type ConnectionSummary, type TakenConnection } from './connections.js';

/** How many connections are revoked at the authorization server at once: 4. */
export const REVOCATION_CONCURRENCY = 4;

/** What the authorization server said about one removed connection: `true`, `false` (failed) or `"unsupported"`. */
export type AsRevoked = RevocationResult['revoked'];

/** One removed connection and the outcome of its revocation at the authorization server. */
export interface RevokedConnection {
  readonly summary: ConnectionSummary;
  readonly asRevoked: AsRevoked;
  /** Why it was not revoked there (`asRevoked` false or unsupported). */
  readonly reason?: string;
}

/** Options of {@link revokeConnections}. */
export interface ConnectionRevocationOptions {
  readonly store: ConnectionStore;
  /** The servers of the config: which client obtained a connection's tokens. */
  readonly servers: () => readonly ServerConfig[];
  readonly fetch?: FetchLike;
  /** Per request (default {@link REVOCATION_TIMEOUT_MS}). */
  readonly timeoutMs?: number;
  /** Default {@link REVOCATION_CONCURRENCY}. */
  readonly concurrency?: number;
}

/**
 * Removes the connections `filter` names (only rows of `filter.principal` when it is set), then
 * revokes their tokens at their authorization servers; every removed connection with its outcome.
 * Throws only when the store could not remove them (then nothing was revoked anywhere).
 */
export async function revokeConnections(options: ConnectionRevocationOptions, filter: ConnectionFilter): Promise<readonly RevokedConnection[]> {
  const taken = await options.store.take(filter);
  const metadata = new Map<string, Promise<AuthorizationServerMetadata>>();
  const results: RevokedConnection[] = new Array<RevokedConnection>(taken.length);
  let next = 0;
  const worker = async (): Promise<void> => {
    for (let i = next++; i < taken.length; i = next++) {
      const item = taken[i] as TakenConnection;
      results[i] = { summary: item.summary, ...(await atAuthorizationServer(options, item, metadata)) };
    }
  };
  const workers = Math.max(1, Math.min(options.concurrency ?? REVOCATION_CONCURRENCY, taken.length));
  await Promise.all(Array.from({ length: workers }, worker));
  return results;
}

/** A short text of one outcome, e.g. `revoked at the authorization server` (CLI lines, audit reasons). */
export function describeAsRevoked(r: Pick<RevokedConnection, 'asRevoked' | 'reason'>): string {
  if (r.asRevoked === true) return 'revoked at the authorization server';
  const why = r.reason !== undefined ? `: ${r.reason}` : '';
  return r.asRevoked === 'unsupported' ? `not revoked at the authorization server (unsupported${why})` : `NOT revoked at the authorization server${why}`;
}

async function atAuthorizationServer(options: ConnectionRevocationOptions, item: TakenConnection, metadata: Map<string, Promise<AuthorizationServerMetadata>>): Promise<Omit<RevokedConnection, 'summary'>> {
  const connection = item.connection;
  if (connection === undefined) return { asRevoked: false, reason: `its tokens could not be read (${item.unreadable ?? 'unknown'})` };
  try {
    const fetch = options.fetch ?? ((input, init) => globalThis.fetch(input, init));
    const issuer = connection.tokens.issuer;
    const insecure = { [allowInsecureRequests]: isLoopbackHttp(issuer) };
    let found = metadata.get(issuer);
    if (found === undefined) {
      found = discoverAuthorizationServer(issuer, { fetch, requirePkce: false, signal: AbortSignal.timeout(options.timeoutMs ?? REVOCATION_TIMEOUT_MS), ...insecure });
      metadata.set(issuer, found);
    }
    const as = await found;
    if (as.revocation_endpoint === undefined) return { asRevoked: 'unsupported', reason: `${issuer} advertises no revocation_endpoint` };
    const clients = await clientsOf(options, connection, as);
    if (clients.length === 0) return { asRevoked: false, reason: `no client to revoke with: the server of ${serverOfKey(connection.server)} is no longer configured for ${connection.mode}, and no registration at ${issuer} is stored` };
    const { token, hint } = connection.tokens.refreshToken !== undefined ? { token: connection.tokens.refreshToken, hint: 'refresh_token' as const } : { token: connection.tokens.accessToken, hint: 'access_token' as const };
    let result: RevocationResult = { revoked: false, reason: 'not tried' };
    for (const client of clients) {
      result = await revokeToken({ metadata: as, client, fetch, ...insecure, ...(options.timeoutMs !== undefined ? { timeoutMs: options.timeoutMs } : {}) }, token, hint);
      if (result.revoked !== false) break;
    }
    return result.revoked === true ? { asRevoked: true } : { asRevoked: result.revoked, reason: result.reason };
  } catch (error) {
    return { asRevoked: false, reason: describeError(error) };
  }
}

/** The clients that may have obtained `connection`'s tokens, most likely first. */
async function clientsOf(options: ConnectionRevocationOptions, connection: Connection, as: AuthorizationServerMetadata): Promise<readonly ClientRegistration[]> {
  const identity = serverOfKey(connection.server);
  const server = options.servers().find((s) => s.launch.kind !== 'stdio' && sameIdentity(s.launch.url, identity));
  const auth = server?.options.auth;
  if (connection.mode === 'token-exchange') {
    if (auth?.mode !== 'token-exchange') return [];
    const hasSecret = auth.clientSecret !== undefined;
    return [{ issuer: as.issuer, clientId: auth.clientId, ...(hasSecret ? { clientSecret: auth.clientSecret } : {}), tokenEndpointAuthMethod: selectTokenEndpointAuthMethod(as, hasSecret), source: 'pre-registered' }];
  }
  const configured = auth?.mode === 'per-user' ? server?.options.oauth?.clientId : undefined;
  if (configured !== undefined) return [{ issuer: as.issuer, clientId: configured, tokenEndpointAuthMethod: 'none', source: 'pre-registered' }];
  return options.store.registrations(as.issuer);
}

function sameIdentity(url: string, identity: string): boolean {
  try {
    return canonicalServerUrl(url) === identity;
  } catch {
    return false;
  }
}
