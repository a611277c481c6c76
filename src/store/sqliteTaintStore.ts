/**
 * The taint snapshot in the state folder (`stateDir/taint.db`): the label sources of each taint
 * key and when it expires, so a gateway restart does not shed a session's taint (see
 * `PersistentTaintStore` in `host/policy/taintPersistence.ts`). Secret fingerprints are not
 * stored. A file that is not a database, or a row that is not ours, fails to open with
 * `ERR_MCP_STORE_CORRUPT` (the gateway does not start on taint it cannot read).
 *
 * A save runs on the event loop (the gateway's, once a second while taint changes), so it must
 * not wait for the disk: the file is in WAL mode with `synchronous = NORMAL`, and the WAL is synced
 * after each save on libuv's thread pool ({@link WalSync}), which keeps what a rollback journal
 * with `FULL` kept (a save survives a power loss one sync after it returns) without blocking the
 * loop for the two or three syncs of a rollback-journal commit (2–5 ms here). A sync that fails is
 * reported by the next save (which syncs first, and fails, so its rows stay dirty and are retried)
 * or by {@link SqliteTaintSnapshot.close}.
 *
 * @module
 */
import type Database from 'better-sqlite3';
import type { TaintSnapshotRow, TaintSnapshotStore } from '../host/policy/taintPersistence.js';
import type { TaintSource } from '../host/policy/taint.js';
import { McpError, McpErrorCode, describeError } from '../util/errors.js';
import { openCheckedDatabase, WalSync } from './sqliteFile.js';
import { taintSourceFrom } from './taintRecord.js';

/** The SQLite {@link TaintSnapshotStore}. */
export class SqliteTaintSnapshot implements TaintSnapshotStore {
  readonly file: string;
  readonly #db: Database.Database;
  readonly #save: (rows: readonly TaintSnapshotRow[], now: number) => void;
  /** The WAL's sync (undefined where the file could not be put in WAL mode: SQLite then syncs at commit). */
  readonly #wal: WalSync | undefined;
  /** Why the last background sync failed, until a sync succeeds. */
  #syncFailure: unknown;

  private constructor(file: string, db: Database.Database, wal: boolean) {
    this.file = file;
    this.#db = db;
    this.#wal = wal ? new WalSync(file) : undefined;
    const upsert = db.prepare('INSERT INTO taint (key, expires, sources) VALUES (?, ?, ?) ON CONFLICT(key) DO UPDATE SET expires = excluded.expires, sources = excluded.sources');
    const expired = db.prepare('DELETE FROM taint WHERE expires <= ?');
    this.#save = db.transaction((rows: readonly TaintSnapshotRow[], now: number) => {
      for (const row of rows) upsert.run(row.key, row.expires, JSON.stringify(row.sources));
      expired.run(now);
    });
  }

  /**
   * Opens (creating when missing, mode 0600) the snapshot `file`.
   *
   * @throws McpError `ERR_MCP_STORE_CORRUPT` when it is not a usable taint database.
   */
  static open(file: string): SqliteTaintSnapshot {
    const corrupt = (detail: string): McpError => new McpError(McpErrorCode.StoreCorrupt, `The taint store ${file} is damaged: ${detail}`);
    let db: Database.Database | undefined;
    try {
      db = openCheckedDatabase(file, corrupt);
      // Commits are synced by WalSync off the event loop; where WAL is not available SQLite syncs at commit itself (FULL).
      const wal = db.pragma('journal_mode = WAL', { simple: true }) === 'wal';
      db.pragma(wal ? 'synchronous = NORMAL' : 'synchronous = FULL');
      db.exec('CREATE TABLE IF NOT EXISTS taint (key TEXT PRIMARY KEY, expires INTEGER NOT NULL, sources TEXT NOT NULL) STRICT');
      return new SqliteTaintSnapshot(file, db, wal);
    } catch (error) {
      db?.close();
      if (error instanceof McpError) throw error;
      throw new McpError(McpErrorCode.StoreCorrupt, `The taint store ${file} cannot be opened: ${describeError(error)}`, { cause: error });
    }
  }

  load(now: number): TaintSnapshotRow[] {
    const rows = this.#db.prepare('SELECT key, expires, sources FROM taint WHERE expires > ?').all(now) as { key: string; expires: number; sources: string }[];
    return rows.map((row) => ({ key: row.key, expires: row.expires, sources: parseSources(row.sources, row.key, this.file) }));
  }

  /**
   * Writes `rows` and starts the sync of the WAL (see the module comment). Throws when the write
   * fails, or when an earlier sync failed and a sync now fails too (the rows are then committed
   * but not known to be on disk: the caller keeps them to save again).
   */
  save(rows: readonly TaintSnapshotRow[], now: number): void {
    const wal = this.#wal;
    if (wal !== undefined && this.#syncFailure !== undefined) {
      // What the failed sync should have covered is synced first (a sync covers every earlier commit).
      wal.syncNow();
      this.#syncFailure = undefined;
    }
    this.#save(rows, now);
    if (wal === undefined) return;
    wal.sync().catch((error: unknown) => {
      this.#syncFailure = error;
    });
  }

  /** Syncs what the last save's sync may have missed, then closes the file (throws when that sync fails). */
  close(): void {
    try {
      if (this.#wal !== undefined && this.#syncFailure !== undefined) this.#wal.syncNow();
    } finally {
      this.#wal?.close();
      this.#db.close();
    }
  }
}

function parseSources(text: string, key: string, file: string): TaintSource[] {
  const fail = (): never => {
    throw new McpError(McpErrorCode.StoreCorrupt, `The taint store ${file} is damaged: the sources of ${JSON.stringify(key)} are not a list of taint sources`);
  };
  let value: unknown;
  try {
    value = JSON.parse(text);
  } catch {
    return fail();
  }
  if (!Array.isArray(value)) return fail();
  return value.map((s: unknown): TaintSource => taintSourceFrom(s) ?? fail());
}
