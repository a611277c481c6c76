/**
 * Per-principal downstream connections in PostgreSQL, shared by every gateway instance
 * (`--store postgres://...`): tables `connections` and `pending_sign_ins` (migration 7) and
 * `client_registrations` (migration 8). Tokens, pending sign-ins and registrations are sealed (AES-256-GCM, `connectionSealer.ts`) with a key that is not in
 * the database: every instance must be given the same one (`SWITCHBOARD_CONNECTIONS_KEY`, or the
 * same key file).
 *
 * Single-flight refresh across instances: one refresh runs per connection in an instance
 * ({@link Flights}); across instances the refresh runs inside a transaction holding the
 * row's lock (`SELECT ... FOR UPDATE`), so an instance asking meanwhile waits on the lock and
 * then finds the new token stored (and uses it without refreshing).
 *
 * Registering once across instances: the gateway's dynamic client registration at an
 * authorization server runs inside a transaction holding an advisory lock on (issuer, redirect
 * URI), so an instance asking meanwhile waits and then reads the one stored.
 *
 * A principal's first connection ({@link PgConnectionStore.connectOnce}, e.g. its first token
 * exchange) has no row to lock yet: it is made inside a transaction holding an advisory lock
 * named after (schema, principal, server) (`pg_advisory_xact_lock`), so an instance asking
 * meanwhile waits and then finds the connection stored. No table of its own.
 *
 * @see https://www.postgresql.org/docs/current/explicit-locking.html#ADVISORY-LOCKS
 * @see https://www.postgresql.org/docs/current/explicit-locking.html#LOCKING-ROWS
 * @module
 */
import { createHash } from 'node:crypto';
import type { ClientRegistration, TokenSet } from '../../auth/client/tokenStore.js';
import { checkedConnection, Flights, registrationUsable, type Connection, type ConnectionFilter, type ConnectionKey, type ConnectionStore, type ConnectionSummary, type PendingSignIn, type RegistrationKey, type TakenConnection } from '../../host/connections.js';
import { connectionFromRow, connectionRow, openSignIn, registrationFromRow, registrationRow, sealSignIn, signInKey, summaryFromRow, takenFromRow, type ConnectionRow } from '../connectionRecords.js';
import type { ConnectionSealer } from '../connectionSealer.js';
import type { PgClient, PgDatabase } from './pgDatabase.js';

interface Row {
  principal: string;
  server: string;
  server_id: string;
  tenant: string | null;
  mode: Connection['mode'];
  summary: object;
  sealed: Buffer;
  created_at: string;
  updated_at: string;
}

interface RegistrationDbRow {
  issuer: string;
  redirect_uri: string;
  client_id: string;
  sealed: Buffer;
  created_at: string;
}

const INSERT = 'INSERT INTO connections (principal, server, server_id, tenant, mode, summary, sealed, created_at, updated_at) VALUES ($1, $2, $3, $4, $5, $6, $7, $8, $9)';

const UPSERT = `${INSERT}
ON CONFLICT (principal, server) DO UPDATE SET server_id = $3, tenant = $4, mode = $5, summary = $6, sealed = $7, created_at = $8, updated_at = $9`;

// A server's connections of every scope set too (`<server>#scopes=…`, see `scopedServerKey`).
const FILTER = "($1::text IS NULL OR principal = $1) AND ($2::text IS NULL OR server = $2 OR left(server, length($2) + 1) = $2 || '#')";

/** Per-principal connections in PostgreSQL (see the module comment). */
export class PgConnectionStore implements ConnectionStore {
  readonly #db: PgDatabase;
  readonly #sealer: ConnectionSealer;
  readonly #flights = new Flights<Connection | undefined>();
  readonly #registering = new Flights<ClientRegistration>();
  readonly #connecting = new Flights<Connection>();

  constructor(db: PgDatabase, sealer: ConnectionSealer) {
    this.#db = db;
    this.#sealer = sealer;
  }

  /** The connection of `key` (its tokens opened; `ConnectionSealError` when they do not open under this row and key). */
  async get(key: ConnectionKey): Promise<Connection | undefined> {
    const rows = await this.#db.query<Row>('reading a connection', 'SELECT * FROM connections WHERE principal = $1 AND server = $2', [key.principal, key.server]);
    return rows[0] === undefined ? undefined : connectionFromRow(this.#sealer, fromRow(rows[0]));
  }

  /** Stores (replaces) `connection`, its tokens sealed to its (principal, server). */
  async put(connection: Connection): Promise<void> {
    await this.#db.query('saving a connection', UPSERT, values(connectionRow(this.#sealer, connection)));
  }

  /** Token-free summaries matching `filter`, oldest first (no key needed). */
  async list(filter: ConnectionFilter = {}): Promise<readonly ConnectionSummary[]> {
    const rows = await this.#db.query<{ summary: object }>('listing connections', `SELECT summary FROM connections WHERE ${FILTER} AND ($3::text IS NULL OR tenant = $3) ORDER BY created_at, principal, server`, [
      filter.principal ?? null,
      filter.server ?? null,
      filter.tenant ?? null,
    ]);
    return rows.map((r) => summaryFromRow(r.summary));
  }

  /** Deletes the connections matching `filter` (a principal, a server or both); how many. */
  async revoke(filter: ConnectionFilter): Promise<number> {
    if (filter.principal === undefined && filter.server === undefined) throw new TypeError('revoke needs a principal or a server');
    const rows = await this.#db.query('revoking connections', `DELETE FROM connections WHERE ${FILTER} RETURNING principal`, [filter.principal ?? null, filter.server ?? null]);
    return rows.length;
  }

  /** Deletes the connections matching `filter` and returns them (`DELETE ... RETURNING`: each row taken once). */
  async take(filter: ConnectionFilter): Promise<readonly TakenConnection[]> {
    if (filter.principal === undefined && filter.server === undefined) throw new TypeError('revoke needs a principal or a server');
    const rows = await this.#db.query<Row>('revoking connections', `DELETE FROM connections WHERE ${FILTER} RETURNING *`, [filter.principal ?? null, filter.server ?? null]);
    return rows.map((row) => takenFromRow(this.#sealer, fromRow(row)));
  }

  /** Refreshes at most once for `stale` across every instance (see the module comment). */
  refreshOnce(key: ConnectionKey, stale: string, refresh: (current: Connection) => Promise<TokenSet>): Promise<Connection | undefined> {
    return this.#flights.run([key.principal, key.server], async () => {
      // Without the lock first: once another instance has refreshed, no one waits on the row.
      const seen = await this.get(key);
      if (seen === undefined || seen.tokens.accessToken !== stale) return seen;
      // The refresh's own failure is rethrown as is (the transaction would report it as the store's).
      let failed: { readonly error: unknown } | undefined;
      const result = await this.#db.transaction('refreshing a connection', async (client: PgClient) => {
        const row = (await client.query<Row>('SELECT * FROM connections WHERE principal = $1 AND server = $2 FOR UPDATE', [key.principal, key.server])).rows[0];
        if (row === undefined) return undefined;
        const current = connectionFromRow(this.#sealer, fromRow(row));
        if (current.tokens.accessToken !== stale) return current; // another instance refreshed while this one waited on the lock
        let tokens: TokenSet;
        try {
          tokens = await refresh(current);
        } catch (error) {
          failed = { error };
          return undefined;
        }
        const next: Connection = { ...current, tokens, updatedAt: Date.now() };
        await client.query(UPSERT, values(connectionRow(this.#sealer, next)));
        return next;
      });
      if (failed !== undefined) throw failed.error;
      return result;
    });
  }

  /** The connection of `key`, made by `connect` at most once across every instance when there is none (see the module comment). */
  connectOnce(key: ConnectionKey, connect: () => Promise<Connection>): Promise<Connection> {
    return this.#connecting.run([key.principal, key.server], async () => {
      // Without the lock first: a principal already connected never waits.
      const seen = await this.get(key);
      if (seen !== undefined) return seen;
      let failed: { readonly error: unknown } | undefined;
      const result = await this.#db.transaction('making a connection', async (client: PgClient) => {
        await client.query('SELECT pg_advisory_xact_lock($1::bigint)', [connectLockId(this.#db.schema, key)]);
        const row = (await client.query<Row>('SELECT * FROM connections WHERE principal = $1 AND server = $2', [key.principal, key.server])).rows[0];
        if (row !== undefined) return connectionFromRow(this.#sealer, fromRow(row)); // made by another instance while this one waited
        let made: Connection;
        try {
          made = checkedConnection(key, await connect());
        } catch (error) {
          failed = { error };
          return undefined;
        }
        // A sign-in (which takes no lock) may have stored one meanwhile: it is kept.
        const inserted = await client.query(`${INSERT} ON CONFLICT (principal, server) DO NOTHING RETURNING principal`, values(connectionRow(this.#sealer, made)));
        if (inserted.rows.length > 0) return made;
        const stored = (await client.query<Row>('SELECT * FROM connections WHERE principal = $1 AND server = $2', [key.principal, key.server])).rows[0];
        return stored === undefined ? made : connectionFromRow(this.#sealer, fromRow(stored));
      });
      if (failed !== undefined) throw failed.error;
      return result as Connection;
    });
  }

  /** Records a sign-in (sealed, keyed by its hashed `state`) and deletes the expired ones. */
  async beginSignIn(pending: PendingSignIn): Promise<void> {
    const { key, sealed } = sealSignIn(this.#sealer, pending);
    await this.#db.query('cleaning expired sign-ins', 'DELETE FROM pending_sign_ins WHERE expires_at <= $1', [Date.now()]);
    await this.#db.query('recording a sign-in', 'INSERT INTO pending_sign_ins (state_hash, sealed, expires_at) VALUES ($1, $2, $3) ON CONFLICT (state_hash) DO UPDATE SET sealed = $2, expires_at = $3', [key, sealed, pending.expiresAt]);
  }

  /** Takes and deletes the sign-in of `state` (one use); `undefined` when unknown, used or expired. */
  async takeSignIn(state: string, now: number): Promise<PendingSignIn | undefined> {
    const key = signInKey(state);
    // DELETE ... RETURNING: of two instances taking one state at once, one gets the row.
    const rows = await this.#db.query<{ sealed: Buffer; expires_at: string }>('taking a sign-in', 'DELETE FROM pending_sign_ins WHERE state_hash = $1 RETURNING sealed, expires_at', [key]);
    await this.#db.query('cleaning expired sign-ins', 'DELETE FROM pending_sign_ins WHERE expires_at <= $1', [now]);
    const row = rows[0];
    if (row === undefined || Number(row.expires_at) <= now) return undefined;
    const pending = openSignIn(this.#sealer, key, row.sealed);
    return pending.expiresAt > now ? pending : undefined;
  }

  /** The stored registration of `key` while usable, else `register`'s, run by one instance at a time (see the module comment). */
  registerOnce(key: RegistrationKey, register: () => Promise<ClientRegistration>): Promise<ClientRegistration> {
    return this.#registering.run([key.issuer, key.redirectUri], async () => {
      // Without the lock first: once registered, no instance waits.
      const seen = await this.#registration(key, (sql, params) => this.#db.query<RegistrationDbRow>('reading a client registration', sql, params));
      if (seen !== undefined && registrationUsable(seen, Date.now())) return seen;
      let failed: { readonly error: unknown } | undefined;
      const result = await this.#db.transaction('registering a client', async (client: PgClient) => {
        await client.query('SELECT pg_advisory_xact_lock(hashtextextended($1, 0))', [JSON.stringify(['switchboard_registrations', this.#db.schema, key.issuer, key.redirectUri])]);
        const current = await this.#registration(key, async (sql, params) => (await client.query<RegistrationDbRow>(sql, params)).rows);
        if (current !== undefined && registrationUsable(current, Date.now())) return current; // registered by another instance while this one waited
        let mine: ClientRegistration;
        try {
          mine = await register();
        } catch (error) {
          failed = { error };
          return undefined;
        }
        const r = registrationRow(this.#sealer, key, mine, Date.now());
        await client.query(
          'INSERT INTO client_registrations (issuer, redirect_uri, client_id, sealed, created_at) VALUES ($1, $2, $3, $4, $5) ON CONFLICT (issuer, redirect_uri) DO UPDATE SET client_id = $3, sealed = $4, created_at = $5',
          [r.issuer, r.redirectUri, r.clientId, Buffer.from(r.sealed), r.createdAt],
        );
        return mine;
      });
      if (failed !== undefined) throw failed.error;
      if (result === undefined) throw new Error('unreachable: a registration without a result');
      return result;
    });
  }

  /** Deletes the registration of `key` if it still names `clientId`. */
  async forgetRegistration(key: RegistrationKey, clientId: string): Promise<void> {
    await this.#db.query('forgetting a client registration', 'DELETE FROM client_registrations WHERE issuer = $1 AND redirect_uri = $2 AND client_id = $3', [key.issuer, key.redirectUri, clientId]);
  }

  /** The registrations stored at `issuer` that open under this key, oldest first. */
  async registrations(issuer: string): Promise<readonly ClientRegistration[]> {
    const rows = await this.#db.query<RegistrationDbRow>('reading client registrations', 'SELECT * FROM client_registrations WHERE issuer = $1 ORDER BY created_at', [issuer]);
    return rows.flatMap((row) => {
      try {
        return [registrationFromRow(this.#sealer, { issuer: row.issuer, redirectUri: row.redirect_uri, clientId: row.client_id, sealed: row.sealed, createdAt: Number(row.created_at) })];
      } catch {
        return [];
      }
    });
  }

  async #registration(key: RegistrationKey, query: (sql: string, params: unknown[]) => Promise<RegistrationDbRow[]>): Promise<ClientRegistration | undefined> {
    const [row] = await query('SELECT * FROM client_registrations WHERE issuer = $1 AND redirect_uri = $2', [key.issuer, key.redirectUri]);
    return row === undefined ? undefined : registrationFromRow(this.#sealer, { issuer: row.issuer, redirectUri: row.redirect_uri, clientId: row.client_id, sealed: row.sealed, createdAt: Number(row.created_at) });
  }

  /** The database is the caller's (shared with the other stores): nothing to close here. */
  close(): Promise<void> {
    return Promise.resolve();
  }
}

/** The advisory lock of the first connection of `key` in `schema`: 64 bits of a SHA-256 (a collision only serializes two first connections). */
function connectLockId(schema: string, key: ConnectionKey): string {
  return createHash('sha256').update(JSON.stringify(['switchboard.connect', schema, key.principal, key.server])).digest().readBigInt64BE(0).toString();
}

function fromRow(row: Row): ConnectionRow {
  return {
    principal: row.principal,
    server: row.server,
    serverId: row.server_id,
    tenant: row.tenant,
    mode: row.mode,
    summary: JSON.stringify(row.summary),
    sealed: row.sealed,
    createdAt: Number(row.created_at),
    updatedAt: Number(row.updated_at),
  };
}

function values(r: ConnectionRow): unknown[] {
  return [r.principal, r.server, r.serverId, r.tenant, r.mode, r.summary, Buffer.from(r.sealed), r.createdAt, r.updatedAt];
}
