/**
 * The embedded {@link ConnectionStore}: each principal's downstream connections in one SQLite
 * file (better-sqlite3), `connections.db` under the state folder, mode 0600, WAL. Tokens and
 * pending sign-ins are sealed (AES-256-GCM, `connectionSealer.ts`) with a key kept apart from
 * the file; what {@link SqliteConnectionStore.list} reads is a token-free summary.
 *
 * Single-flight refresh across the processes sharing the file (gateways on one machine, the
 * CLI): one refresh runs per connection in a process ({@link Flights}), and across
 * processes a lease on the row, taken under the file's write lock (`BEGIN IMMEDIATE`) after
 * re-reading the row: a process that finds the stored token already changed uses it, one that
 * finds another's lease waits for its result (or for the lease to lapse, when its holder died).
 * The result is written only if the row still holds the stale token (re-read under the lock).
 *
 * The gateway's client registrations (`client_registrations`, one per authorization server and
 * redirect URI, sealed) are shared the same way: one registration runs per key in a process, and
 * across processes the first one stored wins (`INSERT` under the write lock after re-reading);
 * a process that lost the race discards its own before using it.
 *
 * A principal's first connection ({@link SqliteConnectionStore.connectOnce}, e.g. its first token
 * exchange) is single-flight the same way, with the lease in `connection_leases` since there is no
 * row yet: taken under the write lock when neither a connection nor a live lease is found, and
 * dropped when the connection is stored (unless a sign-in stored one first, which is kept).
 *
 * @see https://www.sqlite.org/lang_transaction.html
 * @module
 */
import { join } from 'node:path';
import { randomBytes } from 'node:crypto';
import type Database from 'better-sqlite3';
import type { ClientRegistration, TokenSet } from '../auth/client/tokenStore.js';
import { checkedConnection, Flights, registrationUsable, type Connection, type ConnectionFilter, type ConnectionKey, type ConnectionStore, type ConnectionSummary, type PendingSignIn, type RegistrationKey, type TakenConnection } from '../host/connections.js';
import { McpError, McpErrorCode } from '../util/errors.js';
import { connectionFromRow, connectionRow, openSignIn, registrationFromRow, registrationRow, sealSignIn, signInKey, summaryFromRow, takenFromRow, type ConnectionRow } from './connectionRecords.js';
import type { ConnectionSealer } from './connectionSealer.js';
import { openCheckedDatabase } from './sqliteFile.js';

/** The file's name in the state folder. */
export const CONNECTIONS_DB_FILE = 'connections.db';

/** 1: connections and pending sign-ins; 2: client registrations, the tenant index. */
const SCHEMA_VERSION = 2;
/** A server's connections of every scope set too (`<server>#scopes=…`, see `scopedServerKey`). */
const SERVER_FILTER = "(@server IS NULL OR server = @server OR substr(server, 1, length(@server) + 1) = @server || '#')";

const SCHEMA = `
CREATE TABLE IF NOT EXISTS connections (
  principal TEXT NOT NULL,
  server TEXT NOT NULL,
  server_id TEXT NOT NULL,
  tenant TEXT,
  mode TEXT NOT NULL CHECK (mode IN ('per-user', 'token-exchange')),
  summary TEXT NOT NULL,
  sealed BLOB NOT NULL,
  created_at INTEGER NOT NULL,
  updated_at INTEGER NOT NULL,
  lease_holder TEXT,
  lease_until INTEGER,
  PRIMARY KEY (principal, server)
);
CREATE TABLE IF NOT EXISTS pending_sign_ins (
  state_hash TEXT PRIMARY KEY,
  sealed BLOB NOT NULL,
  expires_at INTEGER NOT NULL
);
CREATE INDEX IF NOT EXISTS pending_sign_ins_expiry ON pending_sign_ins (expires_at);
CREATE INDEX IF NOT EXISTS connections_tenant ON connections (tenant);
CREATE TABLE IF NOT EXISTS client_registrations (
  issuer TEXT NOT NULL,
  redirect_uri TEXT NOT NULL,
  client_id TEXT NOT NULL,
  sealed BLOB NOT NULL,
  created_at INTEGER NOT NULL,
  PRIMARY KEY (issuer, redirect_uri)
);
CREATE TABLE IF NOT EXISTS connection_leases (
  principal TEXT NOT NULL,
  server TEXT NOT NULL,
  holder TEXT NOT NULL,
  lease_until INTEGER NOT NULL,
  PRIMARY KEY (principal, server)
);
`;

/** Options of {@link SqliteConnectionStore.open}. */
export interface SqliteConnectionStoreOptions {
  /** How long a refresh (or first-connection) lease holds before another process may take over, in ms. Default 60 000. */
  readonly refreshLeaseMs?: number;
  /** How often a process waiting on another's refresh looks at the row, in ms. Default 25. */
  readonly pollMs?: number;
}

interface Row {
  principal: string;
  server: string;
  server_id: string;
  tenant: string | null;
  mode: Connection['mode'];
  summary: string;
  sealed: Buffer;
  created_at: number;
  updated_at: number;
  lease_holder: string | null;
  lease_until: number | null;
}

type Step = { readonly done: Connection | undefined } | { readonly wait: true } | { readonly go: Connection };
type ConnectStep = { readonly done: Connection } | { readonly wait: true } | { readonly go: true };

/** Per-principal connections in one SQLite file (see the module comment). */
export class SqliteConnectionStore implements ConnectionStore {
  /** The file. */
  readonly path: string;
  readonly #db: Database.Database;
  readonly #sealer: ConnectionSealer;
  readonly #flights = new Flights<Connection | undefined>();
  readonly #registering = new Flights<ClientRegistration>();
  readonly #connecting = new Flights<Connection>();
  readonly #holder = randomBytes(8).toString('hex');
  readonly #leaseMs: number;
  readonly #pollMs: number;

  private constructor(path: string, db: Database.Database, sealer: ConnectionSealer, options: SqliteConnectionStoreOptions) {
    this.path = path;
    this.#db = db;
    this.#sealer = sealer;
    this.#leaseMs = options.refreshLeaseMs ?? 60_000;
    this.#pollMs = options.pollMs ?? 25;
  }

  /** Opens (or creates) the store at `path`; `ERR_MCP_STORE_CORRUPT` for a damaged file or a newer schema. */
  static open(path: string, sealer: ConnectionSealer, options: SqliteConnectionStoreOptions = {}): SqliteConnectionStore {
    let db: Database.Database | undefined;
    try {
      db = openCheckedDatabase(path, (detail) => new Error(detail));
      const version = db.pragma('user_version', { simple: true }) as number;
      if (version > SCHEMA_VERSION) throw new Error(`schema version ${version} was written by a newer Switchboard`);
      db.pragma('journal_mode = WAL');
      db.exec(SCHEMA);
      if (version < SCHEMA_VERSION) db.pragma(`user_version = ${SCHEMA_VERSION}`);
      return new SqliteConnectionStore(path, db, sealer, options);
    } catch (error) {
      db?.close();
      const detail = error instanceof Error ? error.message : String(error);
      throw new McpError(McpErrorCode.StoreCorrupt, `The connections in ${path} are damaged (SQLite: ${detail}). Move the file away to start with none (every user signs in again).`, { cause: error });
    }
  }

  /** The connection of `key` (its tokens opened; `ConnectionSealError` when they do not open under this row and key). */
  get(key: ConnectionKey): Promise<Connection | undefined> {
    return Promise.resolve().then(() => this.#read(key));
  }

  /** Stores (replaces) `connection`, its tokens sealed to its (principal, server). */
  put(connection: Connection): Promise<void> {
    return Promise.resolve().then(() => {
      this.#write(connectionRow(this.#sealer, connection));
    });
  }

  /** Token-free summaries matching `filter`, oldest first (no key needed). */
  list(filter: ConnectionFilter = {}): Promise<readonly ConnectionSummary[]> {
    return Promise.resolve().then(() => {
      const rows = this.#db
        .prepare(`SELECT summary FROM connections WHERE (@principal IS NULL OR principal = @principal) AND ${SERVER_FILTER} AND (@tenant IS NULL OR tenant = @tenant) ORDER BY created_at, principal, server`)
        .all({ principal: filter.principal ?? null, server: filter.server ?? null, tenant: filter.tenant ?? null }) as { summary: string }[];
      return rows.map((r) => summaryFromRow(r.summary));
    });
  }

  /** Deletes the connections matching `filter` (a principal, a server or both); how many. */
  revoke(filter: ConnectionFilter): Promise<number> {
    if (filter.principal === undefined && filter.server === undefined) return Promise.reject(new TypeError('revoke needs a principal or a server'));
    return Promise.resolve().then(
      () =>
        this.#db.prepare(`DELETE FROM connections WHERE (@principal IS NULL OR principal = @principal) AND ${SERVER_FILTER}`).run({ principal: filter.principal ?? null, server: filter.server ?? null })
          .changes,
    );
  }

  /** Deletes the connections matching `filter` and returns them (`DELETE ... RETURNING`: each row taken once). */
  take(filter: ConnectionFilter): Promise<readonly TakenConnection[]> {
    if (filter.principal === undefined && filter.server === undefined) return Promise.reject(new TypeError('revoke needs a principal or a server'));
    return Promise.resolve().then(() => {
      const rows = this.#db.prepare(`DELETE FROM connections WHERE (@principal IS NULL OR principal = @principal) AND ${SERVER_FILTER} RETURNING *`).all({ principal: filter.principal ?? null, server: filter.server ?? null }) as Row[];
      return rows.map((row) => takenFromRow(this.#sealer, fromRow(row)));
    });
  }

  /** Refreshes at most once for `stale` across every instance (see the module comment). */
  refreshOnce(key: ConnectionKey, stale: string, refresh: (current: Connection) => Promise<TokenSet>): Promise<Connection | undefined> {
    return this.#flights.run([key.principal, key.server], async () => {
      for (;;) {
        const step = this.#begin(key, stale);
        if ('done' in step) return step.done;
        if ('go' in step) return this.#finish(key, stale, step.go, refresh);
        await new Promise((resolve) => setTimeout(resolve, this.#pollMs));
      }
    });
  }

  /** The connection of `key`, made by `connect` at most once across every process when there is none (see the module comment). */
  connectOnce(key: ConnectionKey, connect: () => Promise<Connection>): Promise<Connection> {
    return this.#connecting.run([key.principal, key.server], async () => {
      for (;;) {
        const step = this.#beginConnect(key);
        if ('done' in step) return step.done;
        if ('go' in step) return this.#finishConnect(key, connect);
        await new Promise((resolve) => setTimeout(resolve, this.#pollMs));
      }
    });
  }

  /** Records a sign-in (sealed, keyed by its hashed `state`) and deletes the expired ones. */
  beginSignIn(pending: PendingSignIn): Promise<void> {
    return Promise.resolve().then(() => {
      const { key, sealed } = sealSignIn(this.#sealer, pending);
      this.#db.prepare('DELETE FROM pending_sign_ins WHERE expires_at <= ?').run(Date.now());
      this.#db.prepare('INSERT OR REPLACE INTO pending_sign_ins (state_hash, sealed, expires_at) VALUES (?, ?, ?)').run(key, sealed, pending.expiresAt);
    });
  }

  /** Takes and deletes the sign-in of `state` (one use); `undefined` when unknown, used or expired. */
  takeSignIn(state: string, now: number): Promise<PendingSignIn | undefined> {
    return Promise.resolve().then(() => {
      const key = signInKey(state);
      // Deleted as it is read (one statement): a state is used at most once, by whichever process asks first.
      const row = this.#db.prepare('DELETE FROM pending_sign_ins WHERE state_hash = ? RETURNING sealed, expires_at').get(key) as { sealed: Buffer; expires_at: number } | undefined;
      this.#db.prepare('DELETE FROM pending_sign_ins WHERE expires_at <= ?').run(now);
      if (row === undefined || row.expires_at <= now) return undefined;
      const pending = openSignIn(this.#sealer, key, row.sealed);
      return pending.expiresAt > now ? pending : undefined;
    });
  }

  /** The stored registration of `key` while usable, else `register`'s, unless another process stored one first (see the module comment). */
  registerOnce(key: RegistrationKey, register: () => Promise<ClientRegistration>): Promise<ClientRegistration> {
    return this.#registering.run([key.issuer, key.redirectUri], async () => {
      const stored = this.#registration(key);
      if (stored !== undefined && registrationUsable(stored, Date.now())) return stored;
      const mine = await register();
      return this.#db
        .transaction((): ClientRegistration => {
          const now = Date.now();
          const current = this.#registration(key);
          // Another process stored a usable one meanwhile: first writer wins, this one is discarded unused.
          if (current !== undefined && registrationUsable(current, now) && (stored === undefined || current.clientId !== stored.clientId)) return current;
          const r = registrationRow(this.#sealer, key, mine, now);
          this.#db.prepare('INSERT OR REPLACE INTO client_registrations (issuer, redirect_uri, client_id, sealed, created_at) VALUES (?, ?, ?, ?, ?)').run(r.issuer, r.redirectUri, r.clientId, r.sealed, r.createdAt);
          return mine;
        })
        .immediate();
    });
  }

  /** Deletes the registration of `key` if it still names `clientId`. */
  forgetRegistration(key: RegistrationKey, clientId: string): Promise<void> {
    return Promise.resolve().then(() => {
      this.#db.prepare('DELETE FROM client_registrations WHERE issuer = ? AND redirect_uri = ? AND client_id = ?').run(key.issuer, key.redirectUri, clientId);
    });
  }

  /** The registrations stored at `issuer` that open under this key, oldest first. */
  registrations(issuer: string): Promise<readonly ClientRegistration[]> {
    return Promise.resolve().then(() => {
      const rows = this.#db.prepare('SELECT * FROM client_registrations WHERE issuer = ? ORDER BY created_at').all(issuer) as { issuer: string; redirect_uri: string; client_id: string; sealed: Buffer; created_at: number }[];
      return rows.flatMap((row) => {
        try {
          return [registrationFromRow(this.#sealer, { issuer: row.issuer, redirectUri: row.redirect_uri, clientId: row.client_id, sealed: row.sealed, createdAt: row.created_at })];
        } catch {
          return [];
        }
      });
    });
  }

  /** Closes the file. */
  close(): Promise<void> {
    this.#db.close();
    return Promise.resolve();
  }

  /** Under the write lock: the stored answer, a lease taken (go), or another's lease to wait for. */
  #begin(key: ConnectionKey, stale: string): Step {
    return this.#db
      .transaction((): Step => {
        const row = this.#row(key);
        if (row === undefined) return { done: undefined };
        const current = connectionFromRow(this.#sealer, fromRow(row));
        if (current.tokens.accessToken !== stale) return { done: current };
        const now = Date.now();
        if (row.lease_holder !== null && row.lease_holder !== this.#holder && (row.lease_until ?? 0) > now) return { wait: true };
        this.#db.prepare('UPDATE connections SET lease_holder = ?, lease_until = ? WHERE principal = ? AND server = ?').run(this.#holder, now + this.#leaseMs, key.principal, key.server);
        return { go: current };
      })
      .immediate();
  }

  /** Runs the refresh (no lock held), then stores it if the row still holds the stale token. */
  async #finish(key: ConnectionKey, stale: string, current: Connection, refresh: (current: Connection) => Promise<TokenSet>): Promise<Connection | undefined> {
    let tokens: TokenSet;
    try {
      tokens = await refresh(current);
    } catch (error) {
      this.#db.prepare('UPDATE connections SET lease_holder = NULL, lease_until = NULL WHERE principal = ? AND server = ? AND lease_holder = ?').run(key.principal, key.server, this.#holder);
      throw error;
    }
    return this.#db
      .transaction((): Connection | undefined => {
        const row = this.#row(key);
        if (row === undefined) return undefined; // revoked meanwhile: the new tokens are dropped
        const stored = connectionFromRow(this.#sealer, fromRow(row));
        if (stored.tokens.accessToken !== stale) return stored; // replaced meanwhile (a new sign-in, or a lapsed lease's other holder)
        const next: Connection = { ...stored, tokens, updatedAt: Date.now() };
        this.#write(connectionRow(this.#sealer, next));
        return next;
      })
      .immediate();
  }

  /** Under the write lock: the stored connection, a first-connection lease taken (go), or another's to wait for. */
  #beginConnect(key: ConnectionKey): ConnectStep {
    return this.#db
      .transaction((): ConnectStep => {
        const stored = this.#read(key);
        if (stored !== undefined) return { done: stored };
        const now = Date.now();
        const lease = this.#db.prepare('SELECT holder, lease_until FROM connection_leases WHERE principal = ? AND server = ?').get(key.principal, key.server) as { holder: string; lease_until: number } | undefined;
        if (lease !== undefined && lease.holder !== this.#holder && lease.lease_until > now) return { wait: true };
        this.#db.prepare('INSERT OR REPLACE INTO connection_leases (principal, server, holder, lease_until) VALUES (?, ?, ?, ?)').run(key.principal, key.server, this.#holder, now + this.#leaseMs);
        return { go: true };
      })
      .immediate();
  }

  /** Runs `connect` (no lock held), then stores its connection unless one was stored meanwhile; drops the lease either way. */
  async #finishConnect(key: ConnectionKey, connect: () => Promise<Connection>): Promise<Connection> {
    const release = (): void => void this.#db.prepare('DELETE FROM connection_leases WHERE principal = ? AND server = ? AND holder = ?').run(key.principal, key.server, this.#holder);
    let made: Connection;
    try {
      made = checkedConnection(key, await connect());
    } catch (error) {
      release();
      throw error;
    }
    return this.#db
      .transaction((): Connection => {
        release();
        const stored = this.#read(key);
        if (stored !== undefined) return stored; // a sign-in, or a lapsed lease's other holder, stored first
        this.#write(connectionRow(this.#sealer, made));
        return made;
      })
      .immediate();
  }

  #row(key: ConnectionKey): Row | undefined {
    return this.#db.prepare('SELECT * FROM connections WHERE principal = ? AND server = ?').get(key.principal, key.server) as Row | undefined;
  }

  #registration(key: RegistrationKey): ClientRegistration | undefined {
    const row = this.#db.prepare('SELECT * FROM client_registrations WHERE issuer = ? AND redirect_uri = ?').get(key.issuer, key.redirectUri) as
      | { issuer: string; redirect_uri: string; client_id: string; sealed: Buffer; created_at: number }
      | undefined;
    return row === undefined ? undefined : registrationFromRow(this.#sealer, { issuer: row.issuer, redirectUri: row.redirect_uri, clientId: row.client_id, sealed: row.sealed, createdAt: row.created_at });
  }

  #read(key: ConnectionKey): Connection | undefined {
    const row = this.#row(key);
    return row === undefined ? undefined : connectionFromRow(this.#sealer, fromRow(row));
  }

  #write(r: ConnectionRow): void {
    this.#db
      .prepare(
        'INSERT OR REPLACE INTO connections (principal, server, server_id, tenant, mode, summary, sealed, created_at, updated_at, lease_holder, lease_until) VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, NULL, NULL)',
      )
      .run(r.principal, r.server, r.serverId, r.tenant, r.mode, r.summary, r.sealed, r.createdAt, r.updatedAt);
  }
}

function fromRow(row: Row): ConnectionRow {
  return { principal: row.principal, server: row.server, serverId: row.server_id, tenant: row.tenant, mode: row.mode, summary: row.summary, sealed: row.sealed, createdAt: row.created_at, updatedAt: row.updated_at };
}

/** The store under `stateDir` (`connections.db`). */
export function openSqliteConnectionStore(stateDir: string, sealer: ConnectionSealer, options: SqliteConnectionStoreOptions = {}): SqliteConnectionStore {
  return SqliteConnectionStore.open(join(stateDir, CONNECTIONS_DB_FILE), sealer, options);
}
