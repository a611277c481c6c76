/**
 * The taint snapshot in the state folder (`stateDir/taint.db`): the label sources of each taint
 * key and when it expires, so a gateway restart does not shed a session's taint (see
 * `PersistentTaintStore` in `host/policy/taintPersistence.ts`). Secret fingerprints are not
 * stored. A file that is not a database, or a row that is not ours, fails to open with
 * `ERR_MCP_STORE_CORRUPT` (the gateway does not start on taint it cannot read).
 *
 * @module
 */
import type Database from 'better-sqlite3';
import type { TaintSnapshotRow, TaintSnapshotStore } from '../host/policy/taintPersistence.js';
import type { TaintSource } from '../host/policy/taint.js';
import { McpError, McpErrorCode, describeError } from '../util/errors.js';
import { openCheckedDatabase } from './sqliteFile.js';
import { taintSourceFrom } from './taintRecord.js';

/** The SQLite {@link TaintSnapshotStore}. */
export class SqliteTaintSnapshot implements TaintSnapshotStore {
  readonly file: string;
  readonly #db: Database.Database;

  private constructor(file: string, db: Database.Database) {
    this.file = file;
    this.#db = db;
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
      db.exec('CREATE TABLE IF NOT EXISTS taint (key TEXT PRIMARY KEY, expires INTEGER NOT NULL, sources TEXT NOT NULL) STRICT');
      return new SqliteTaintSnapshot(file, db);
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

  save(rows: readonly TaintSnapshotRow[], now: number): void {
    const upsert = this.#db.prepare('INSERT INTO taint (key, expires, sources) VALUES (?, ?, ?) ON CONFLICT(key) DO UPDATE SET expires = excluded.expires, sources = excluded.sources');
    this.#db.transaction(() => {
      for (const row of rows) upsert.run(row.key, row.expires, JSON.stringify(row.sources));
      this.#db.prepare('DELETE FROM taint WHERE expires <= ?').run(now);
    })();
  }

  close(): void {
    this.#db.close();
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
