/**
 * The embedded default {@link PinStore}: one SQLite file (better-sqlite3), `pins.db` under the
 * state folder (`.switchboard/`), mode 0600. A missing file is created; a damaged one (not a
 * database, failed integrity check, unknown schema, unreadable rows) is refused with
 * {@link PinStoreCorruptError}, so the host fails closed instead of trusting on first use again.
 *
 * The gateway and `switchboard pins approve` may have the file open at the same time (WAL
 * mode, a busy timeout); {@link SqlitePinStore.update} reads and writes a record under the
 * file's write lock (`BEGIN IMMEDIATE`), so a writer never overwrites a change it did not see
 * (an approval by `switchboard pins approve`). {@link SqlitePinStore.watch} notices the other's commits through
 * `PRAGMA data_version`, which changes only when another connection wrote.
 *
 * @see https://www.sqlite.org/pragma.html#pragma_data_version
 * @module
 */
import { join } from 'node:path';
import type Database from 'better-sqlite3';
import { isMcpError } from '../util/errors.js';
import { openCheckedDatabase } from './sqliteFile.js';
import { checkServerPins, PinStoreCorruptError, type PinStore, type ServerPins } from '../host/pins/pinStore.js';

const SCHEMA_VERSION = 1;

const SCHEMA = `
CREATE TABLE IF NOT EXISTS servers (
  identity TEXT PRIMARY KEY,
  alias TEXT NOT NULL,
  record TEXT NOT NULL,
  updated_at INTEGER NOT NULL
);
CREATE TABLE IF NOT EXISTS items (
  identity TEXT NOT NULL REFERENCES servers(identity) ON DELETE CASCADE,
  item_key TEXT NOT NULL,
  state TEXT NOT NULL CHECK (state IN ('approved', 'pending')),
  record TEXT NOT NULL,
  PRIMARY KEY (identity, item_key, state)
);
`;

/** Options of {@link SqlitePinStore.open}. */
export interface SqlitePinStoreOptions {
  /** How often {@link SqlitePinStore.watch} looks for other writers, in ms. Default 1000. */
  readonly pollMs?: number;
}

/** Pins in one SQLite file. */
export class SqlitePinStore implements PinStore {
  /** The file. */
  readonly path: string;
  readonly #db: Database.Database;
  readonly #pollMs: number;

  private constructor(path: string, db: Database.Database, options: SqlitePinStoreOptions) {
    this.path = path;
    this.#db = db;
    this.#pollMs = options.pollMs ?? 1000;
  }

  /** Opens (or creates) the store at `path`. Throws {@link PinStoreCorruptError} for a damaged file. */
  static open(path: string, options: SqlitePinStoreOptions = {}): SqlitePinStore {
    let db: Database.Database | undefined;
    try {
      db = openCheckedDatabase(path, (detail) => new PinStoreCorruptError(path, detail));
      const version = db.pragma('user_version', { simple: true }) as number;
      if (version > SCHEMA_VERSION) throw new PinStoreCorruptError(path, `schema version ${version} was written by a newer Switchboard`);
      db.pragma('journal_mode = WAL');
      db.pragma('foreign_keys = ON');
      if (version === 0) {
        db.exec(SCHEMA);
        db.pragma(`user_version = ${SCHEMA_VERSION}`);
      } else {
        const tables = db.prepare("SELECT name FROM sqlite_master WHERE type = 'table' AND name IN ('servers', 'items')").all();
        if (tables.length !== 2) throw new PinStoreCorruptError(path, 'its tables are missing');
      }
      return new SqlitePinStore(path, db, options);
    } catch (error) {
      db?.close();
      if (error instanceof PinStoreCorruptError) throw error;
      throw new PinStoreCorruptError(path, `SQLite: ${error instanceof Error ? error.message : String(error)}`, { cause: error });
    }
  }

  /** Every server's pins. Rejects with {@link PinStoreCorruptError} for unreadable rows. */
  load(): Promise<readonly ServerPins[]> {
    return this.#run(() => this.#read(undefined));
  }

  /** Replaces one server's record (one transaction). */
  save(pins: ServerPins): Promise<void> {
    return this.#run(() => void this.#db.transaction(() => this.#write(pins)).immediate());
  }

  /**
   * Read-modify-write of one server's record in one `BEGIN IMMEDIATE` transaction: it takes the
   * file's write lock before reading, so no other connection writes in between.
   */
  update(identity: string, change: (current: ServerPins | undefined) => ServerPins | undefined): Promise<ServerPins | undefined> {
    return this.#run(() =>
      this.#db
        .transaction(() => {
          const [current] = this.#read(identity);
          const next = change(current);
          if (next === undefined) return current;
          this.#write(next);
          return next;
        })
        .immediate(),
    );
  }

  /** The records (of one identity, or all), checked. */
  #read(identity: string | undefined): ServerPins[] {
    const where = identity === undefined ? '' : ' WHERE identity = ?';
    const args = identity === undefined ? [] : [identity];
    const servers = this.#db.prepare(`SELECT identity, record FROM servers${where} ORDER BY rowid`).all(...args) as { identity: string; record: string }[];
    const items = this.#db.prepare(`SELECT identity, item_key, state, record FROM items${where} ORDER BY rowid`).all(...args) as { identity: string; item_key: string; state: string; record: string }[];
    const byServer = new Map<string, { items: Record<string, unknown>; pending: Record<string, unknown> }>();
    for (const row of items) {
      let entry = byServer.get(row.identity);
      if (entry === undefined) byServer.set(row.identity, (entry = { items: {}, pending: {} }));
      const target = row.state === 'approved' ? entry.items : entry.pending;
      Object.defineProperty(target, row.item_key, { value: this.#parse(row.record), enumerable: true, writable: true, configurable: true });
    }
    return servers.map((row) => {
      const base = this.#parse(row.record) as Record<string, unknown>;
      const own = byServer.get(row.identity) ?? { items: {}, pending: {} };
      return checkServerPins({ ...base, identity: row.identity, items: own.items, pending: own.pending }, this.path);
    });
  }

  /** Replaces one server's rows (inside the caller's transaction). */
  #write(pins: ServerPins): void {
    const { items, pending, identity, ...base } = pins;
    this.#db.prepare('INSERT INTO servers (identity, alias, record, updated_at) VALUES (?, ?, ?, ?) ON CONFLICT(identity) DO UPDATE SET alias = excluded.alias, record = excluded.record, updated_at = excluded.updated_at').run(
      identity,
      pins.alias,
      JSON.stringify(base),
      pins.updatedAt,
    );
    this.#db.prepare('DELETE FROM items WHERE identity = ?').run(identity);
    const insert = this.#db.prepare('INSERT INTO items (identity, item_key, state, record) VALUES (?, ?, ?, ?)');
    for (const [key, item] of Object.entries(items)) insert.run(identity, key, 'approved', JSON.stringify(item));
    for (const [key, item] of Object.entries(pending)) insert.run(identity, key, 'pending', JSON.stringify(item));
  }

  /** Forgets a server identity and its items. */
  remove(identity: string): Promise<void> {
    return this.#run(() => void this.#db.prepare('DELETE FROM servers WHERE identity = ?').run(identity));
  }

  /** Polls `PRAGMA data_version`: `listener` runs after another connection committed. */
  watch(listener: () => void): () => void {
    let last = this.#db.pragma('data_version', { simple: true });
    const timer = setInterval(() => {
      try {
        const now = this.#db.pragma('data_version', { simple: true });
        if (now !== last) {
          last = now;
          listener();
        }
      } catch {
        listener(); // the reload will report what is wrong
      }
    }, this.#pollMs);
    timer.unref();
    return () => clearInterval(timer);
  }

  /** Closes the database. */
  close(): Promise<void> {
    this.#db.close();
    return Promise.resolve();
  }

  #parse(text: string): unknown {
    try {
      return JSON.parse(text) as unknown;
    } catch (error) {
      throw new PinStoreCorruptError(this.path, 'a row is not valid JSON', { cause: error });
    }
  }

  #run<T>(fn: () => T): Promise<T> {
    try {
      return Promise.resolve(fn());
    } catch (error) {
      if (isMcpError(error)) return Promise.reject(error); // corrupt, or thrown by an update's change
      return Promise.reject(new PinStoreCorruptError(this.path, `SQLite: ${error instanceof Error ? error.message : String(error)}`, { cause: error }));
    }
  }
}

/** The default pin store of a state folder: `<stateDir>/pins.db`. */
export function openPinStore(stateDir: string, options: SqlitePinStoreOptions = {}): SqlitePinStore {
  return SqlitePinStore.open(join(stateDir, 'pins.db'), options);
}
