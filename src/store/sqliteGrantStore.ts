/**
 * A persistent {@link ConsentGrantStore}: kept consent approvals in one SQLite file
 * (better-sqlite3), `consent.db` under the state folder, mode 0600. Approvals bound to a
 * session are dropped when the store opens (sessions do not outlive the process); approvals
 * with an expiry are deleted once expired. A damaged file is refused with
 * `ERR_MCP_STORE_CORRUPT`, and a row that does not read back as a grant is dropped rather than
 * trusted.
 *
 * @module
 */
import { join } from 'node:path';
import type Database from 'better-sqlite3';
import { openCheckedDatabase } from './sqliteFile.js';
import type { ConsentGrant, ConsentGrantStore } from '../host/consent/consentGrants.js';
import { McpError, McpErrorCode } from '../util/errors.js';
import { grantFromRecord } from './grantRecord.js';

const SCHEMA = `
CREATE TABLE IF NOT EXISTS grants (
  id TEXT PRIMARY KEY,
  record TEXT NOT NULL,
  expires_at INTEGER
);
`;

/** Kept approvals in one SQLite file. */
export class SqliteGrantStore implements ConsentGrantStore {
  /** The file. */
  readonly path: string;
  readonly #db: Database.Database;

  private constructor(path: string, db: Database.Database) {
    this.path = path;
    this.#db = db;
  }

  /** Opens (or creates) the store at `path`; throws `ERR_MCP_STORE_CORRUPT` for a damaged file. */
  static open(path: string): SqliteGrantStore {
    let db: Database.Database | undefined;
    try {
      db = openCheckedDatabase(path, (detail) => new Error(detail));
      db.pragma('journal_mode = WAL');
      db.exec(SCHEMA);
      // Session-bound approvals cannot apply to a new process's sessions.
      db.prepare("DELETE FROM grants WHERE json_extract(record, '$.scope.duration') = 'session'").run();
      return new SqliteGrantStore(path, db);
    } catch (error) {
      db?.close();
      const detail = error instanceof Error ? error.message : String(error);
      throw new McpError(McpErrorCode.StoreCorrupt, `The consent approvals in ${path} are damaged (SQLite: ${detail}). Move the file away to start with no kept approvals.`, { cause: error });
    }
  }

  /** Keeps `grant`. */
  add(grant: ConsentGrant): Promise<void> {
    const expires = grant.expiresAt === undefined ? null : Date.parse(grant.expiresAt);
    this.#db.prepare('INSERT OR REPLACE INTO grants (id, record, expires_at) VALUES (?, ?, ?)').run(grant.id, JSON.stringify(grant), expires);
    return Promise.resolve();
  }

  /** The grants not expired at `now`; expired ones are deleted. */
  list(now: number): Promise<readonly ConsentGrant[]> {
    this.#db.prepare('DELETE FROM grants WHERE expires_at IS NOT NULL AND expires_at <= ?').run(now);
    const rows = this.#db.prepare('SELECT record FROM grants ORDER BY rowid').all() as { record: string }[];
    const out: ConsentGrant[] = [];
    for (const row of rows) {
      const grant = readGrant(row.record);
      if (grant !== undefined) out.push(grant);
    }
    return Promise.resolve(out);
  }

  /** Removes grant `id`. */
  revoke(id: string): Promise<boolean> {
    return Promise.resolve(this.#db.prepare('DELETE FROM grants WHERE id = ?').run(id).changes > 0);
  }

  /** Closes the file. */
  close(): Promise<void> {
    this.#db.close();
    return Promise.resolve();
  }
}

/** The store under `stateDir` (`consent.db`). */
export function openGrantStore(stateDir: string): SqliteGrantStore {
  return SqliteGrantStore.open(join(stateDir, 'consent.db'));
}

/** A stored record, or undefined when it is not JSON or lacks what a grant must bind. */
function readGrant(text: string): ConsentGrant | undefined {
  try {
    return grantFromRecord(JSON.parse(text));
  } catch {
    return undefined;
  }
}
