/**
 * What the SQLite and PostgreSQL connection stores share: a {@link Connection} as a row (its
 * tokens sealed and bound to the row's principal and server, a token-free summary in the clear
 * for listing), a pending sign-in as a row keyed by the SHA-256 of its `state` (the database
 * never holds a usable `state`), the gateway's client registrations at authorization servers
 * (the whole registration sealed and bound to its issuer and redirect URI), and the in-process
 * single flights of refreshes and registrations.
 *
 * @module
 */
import { createHash } from 'node:crypto';
import type { ClientRegistration, TokenSet } from '../auth/client/tokenStore.js';
import { summarizeConnection, type Connection, type ConnectionKey, type ConnectionSummary, type PendingSignIn, type RegistrationKey, type TakenConnection } from '../host/connections.js';
import { describeError } from '../util/errors.js';
import { McpError, McpErrorCode } from '../util/errors.js';
import type { ConnectionSealer } from './connectionSealer.js';

/** A connection's columns (both stores; timestamps as numbers). */
export interface ConnectionRow {
  readonly principal: string;
  readonly server: string;
  readonly serverId: string;
  readonly tenant: string | null;
  readonly mode: Connection['mode'];
  /** JSON of its {@link ConnectionSummary} (no secrets). */
  readonly summary: string;
  /** The sealed {@link TokenSet}. */
  readonly sealed: Uint8Array;
  readonly createdAt: number;
  readonly updatedAt: number;
}

/** The sealing context of a connection's tokens: its row. */
function tokenContext(key: ConnectionKey): string[] {
  return ['connection', key.principal, key.server];
}

/** `c` as a row, its tokens sealed to its (principal, server). */
export function connectionRow(sealer: ConnectionSealer, c: Connection): ConnectionRow {
  return {
    principal: c.principal,
    server: c.server,
    serverId: c.serverId,
    tenant: c.tenant ?? null,
    mode: c.mode,
    summary: JSON.stringify(summarizeConnection(c)),
    sealed: sealer.seal(JSON.stringify(c.tokens), tokenContext(c)),
    createdAt: c.createdAt,
    updatedAt: c.updatedAt,
  };
}

/** The connection of `row`; `ConnectionSealError` when its tokens do not open under this row and key. */
export function connectionFromRow(sealer: ConnectionSealer, row: ConnectionRow): Connection {
  const where = `the connection of ${JSON.stringify(row.principal)} at ${row.server}`;
  const tokens = tokenSetFrom(JSON.parse(sealer.open(row.sealed, tokenContext(row), where)), where);
  if (row.mode !== 'per-user' && row.mode !== 'token-exchange') throw new McpError(McpErrorCode.StoreCorrupt, `${where} has the unknown mode ${JSON.stringify(row.mode)}`);
  return {
    principal: row.principal,
    server: row.server,
    serverId: row.serverId,
    ...(row.tenant !== null ? { tenant: row.tenant } : {}),
    mode: row.mode,
    tokens,
    createdAt: row.createdAt,
    updatedAt: row.updatedAt,
  };
}

/** A removed row as {@link TakenConnection}: its summary, and its connection when its tokens open (else why not). */
export function takenFromRow(sealer: ConnectionSealer, row: ConnectionRow): TakenConnection {
  const summary = summaryFromRow(row.summary);
  try {
    return { summary, connection: connectionFromRow(sealer, row) };
  } catch (error) {
    return { summary, unreadable: describeError(error) };
  }
}

/** The summary column read back: only the summary's own fields (a column edited by hand shows nothing more). */
export function summaryFromRow(summary: string | object): ConnectionSummary {
  const s = (typeof summary === 'string' ? JSON.parse(summary) : summary) as ConnectionSummary;
  return {
    principal: String(s.principal),
    server: String(s.server),
    serverId: String(s.serverId),
    ...(typeof s.tenant === 'string' ? { tenant: s.tenant } : {}),
    mode: s.mode,
    scopes: Array.isArray(s.scopes) ? s.scopes.map(String) : [],
    issuer: String(s.issuer),
    ...(typeof s.expiresAt === 'number' ? { expiresAt: s.expiresAt } : {}),
    refreshable: s.refreshable === true,
    createdAt: Number(s.createdAt),
    updatedAt: Number(s.updatedAt),
  };
}

/** A sealed token set read back, checked field by field. */
function tokenSetFrom(value: unknown, where: string): TokenSet {
  const bad = (): never => {
    throw new McpError(McpErrorCode.StoreCorrupt, `${where} holds tokens of the wrong shape`);
  };
  if (typeof value !== 'object' || value === null) return bad();
  const v = value as Record<string, unknown>;
  const str = (k: string): string => (typeof v[k] === 'string' ? (v[k] as string) : bad());
  const opt = <T>(k: string, type: 'string' | 'number'): T | undefined => (v[k] === undefined ? undefined : typeof v[k] === type ? (v[k] as T) : bad());
  const scopes = Array.isArray(v['requestedScopes']) && v['requestedScopes'].every((s) => typeof s === 'string') ? (v['requestedScopes'] as string[]) : bad();
  const expiresAt = opt<number>('expiresAt', 'number');
  const refreshToken = opt<string>('refreshToken', 'string');
  const grantedScope = opt<string>('grantedScope', 'string');
  return {
    accessToken: str('accessToken'),
    tokenType: str('tokenType'),
    ...(expiresAt !== undefined ? { expiresAt } : {}),
    ...(refreshToken !== undefined ? { refreshToken } : {}),
    ...(grantedScope !== undefined ? { grantedScope } : {}),
    requestedScopes: scopes,
    issuer: str('issuer'),
    resource: str('resource'),
  };
}

/** The row key of a sign-in's `state`: its SHA-256 (hex). A database reader learns no usable `state`. */
export function signInKey(state: string): string {
  return createHash('sha256').update(state, 'utf8').digest('hex');
}

/** `pending` sealed, bound to its hashed `state`. */
export function sealSignIn(sealer: ConnectionSealer, pending: PendingSignIn): { readonly key: string; readonly sealed: Uint8Array } {
  const key = signInKey(pending.state);
  return { key, sealed: sealer.seal(JSON.stringify(pending), ['sign-in', key]) };
}

/** The sign-in sealed under `key`; `ConnectionSealError` when it does not open there. */
export function openSignIn(sealer: ConnectionSealer, key: string, sealed: Uint8Array): PendingSignIn {
  const pending = JSON.parse(sealer.open(sealed, ['sign-in', key], 'a pending sign-in')) as PendingSignIn;
  if (typeof pending.state !== 'string' || signInKey(pending.state) !== key || typeof pending.principal !== 'string' || typeof pending.expiresAt !== 'number') {
    throw new McpError(McpErrorCode.StoreCorrupt, 'a pending sign-in holds a record of the wrong shape');
  }
  return pending;
}

/** A client registration's columns (both stores). */
export interface RegistrationRow {
  readonly issuer: string;
  readonly redirectUri: string;
  /** In the clear (not a secret): what an operator looks for at the authorization server. */
  readonly clientId: string;
  /** The sealed {@link ClientRegistration} (its secret, if any, inside). */
  readonly sealed: Uint8Array;
  readonly createdAt: number;
}

/** The sealing context of a registration: its row (issuer and redirect URI). */
function registrationContext(key: RegistrationKey): string[] {
  return ['client-registration', key.issuer, key.redirectUri];
}

/** `registration` as the row of `key`, sealed to it. A registration holding a private key is refused (only dynamic ones are stored). */
export function registrationRow(sealer: ConnectionSealer, key: RegistrationKey, registration: ClientRegistration, now: number): RegistrationRow {
  if (registration.privateKey !== undefined || registration.issuer !== key.issuer) throw new TypeError('only a dynamic registration at the key\'s issuer is stored');
  return { issuer: key.issuer, redirectUri: key.redirectUri, clientId: registration.clientId, sealed: sealer.seal(JSON.stringify(registration), registrationContext(key)), createdAt: now };
}

/** The registration of `row`; `ConnectionSealError` when it does not open under this row and key, `ERR_MCP_STORE_CORRUPT` for a wrong shape. */
export function registrationFromRow(sealer: ConnectionSealer, row: RegistrationRow): ClientRegistration {
  const where = `the client registration at ${row.issuer} for ${row.redirectUri}`;
  const v = JSON.parse(sealer.open(row.sealed, registrationContext(row), where)) as Record<string, unknown>;
  const method = v['tokenEndpointAuthMethod'];
  const secret = v['clientSecret'];
  const expires = v['clientSecretExpiresAt'];
  if (
    v['issuer'] !== row.issuer ||
    v['clientId'] !== row.clientId ||
    (method !== 'none' && method !== 'client_secret_basic' && method !== 'client_secret_post') ||
    (secret !== undefined && typeof secret !== 'string') ||
    (expires !== undefined && typeof expires !== 'number')
  ) {
    throw new McpError(McpErrorCode.StoreCorrupt, `${where} holds a record of the wrong shape`);
  }
  return {
    issuer: row.issuer,
    clientId: row.clientId,
    tokenEndpointAuthMethod: method,
    source: 'dcr',
    ...(typeof secret === 'string' ? { clientSecret: secret } : {}),
    ...(typeof expires === 'number' ? { clientSecretExpiresAt: expires } : {}),
  };
}
