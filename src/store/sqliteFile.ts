/**
 * Opening a state-folder SQLite file the same way everywhere: a missing file is created with
 * mode 0600 (its folder 0700), a busy timeout lets a CLI and the gateway share it, and a
 * damaged file is refused by an integrity check before anything reads it.
 *
 * @module
 */
import { chmodSync, existsSync, mkdirSync } from 'node:fs';
import { dirname } from 'node:path';
import Database from 'better-sqlite3';

/**
 * Opens (or creates) `path` and checks it. A failed integrity check throws `corrupt(detail)`;
 * SQLite's own errors (e.g. "file is not a database") propagate. The database is closed on any failure.
 */
export function openCheckedDatabase(path: string, corrupt: (detail: string) => Error): Database.Database {
  const created = !existsSync(path);
  if (created) mkdirSync(dirname(path), { recursive: true, mode: 0o700 });
  const db = new Database(path);
  try {
    if (created) chmodSync(path, 0o600);
    db.pragma('busy_timeout = 2000');
    const check = db.pragma('quick_check', { simple: true });
    if (check !== 'ok') throw corrupt(`the integrity check says ${JSON.stringify(check)}`);
    return db;
  } catch (error) {
    db.close();
    throw error;
  }
}
