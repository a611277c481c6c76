/**
 * Opening a state-folder SQLite file the same way everywhere: a missing file is created with
 * mode 0600 (its folder 0700), a busy timeout lets a CLI and the gateway share it, and a
 * damaged file is refused by an integrity check before anything reads it. {@link WalSync}
 * syncs a WAL-mode database's commits off the event loop.
 *
 * @module
 */
import { chmodSync, closeSync, existsSync, fdatasync, fdatasyncSync, fsyncSync, mkdirSync, openSync } from 'node:fs';
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

/**
 * The disk sync of a WAL-mode database whose connection runs `synchronous = NORMAL` (SQLite does
 * not sync at commit): `fdatasync` of its `-wal` file, which is exactly the sync `FULL` makes at
 * each commit (SQLite's own sync on Linux is `fdatasync` too), so the commits written before
 * {@link sync} was called survive a power loss once it resolves. {@link sync} runs on libuv's
 * thread pool: the event loop keeps serving meanwhile. fdatasync(2) flushes the file's data and
 * the metadata needed to read it back (its size included), whichever descriptor wrote it; the
 * folder is synced once, when the WAL is first opened (after the first commit created it).
 */
export class WalSync {
  /** The database file (its WAL is `${file}-wal`). */
  readonly file: string;
  #fd: number | undefined;
  /** Syncs running on the thread pool: the descriptor is closed only after the last returns (its number could be reused). */
  #inFlight = 0;
  #closed = false;

  constructor(file: string) {
    this.file = file;
  }

  /** Syncs the WAL on the thread pool: the commits made so far are durable when it resolves. */
  sync(): Promise<void> {
    return new Promise((resolve, reject) => {
      let fd: number;
      try {
        fd = this.#open();
      } catch (error) {
        reject(error);
        return;
      }
      this.#inFlight++;
      fdatasync(fd, (error) => {
        if (--this.#inFlight === 0 && this.#closed) this.close();
        if (error === null) resolve();
        else reject(error);
      });
    });
  }

  /** {@link sync}, blocking (closing, retrying). */
  syncNow(): void {
    fdatasyncSync(this.#open());
  }

  /** Closes the WAL's descriptor (now, or when the syncs in flight return); later syncs reject. */
  close(): void {
    this.#closed = true;
    if (this.#inFlight > 0 || this.#fd === undefined) return;
    closeSync(this.#fd);
    this.#fd = undefined;
  }

  #open(): number {
    if (this.#closed) throw new Error(`the WAL of ${this.file} is closed`);
    if (this.#fd === undefined) {
      const fd = openSync(`${this.file}-wal`, 'r+');
      try {
        const folder = openSync(dirname(this.file), 'r');
        try {
          fsyncSync(folder);
        } finally {
          closeSync(folder);
        }
      } catch (error) {
        closeSync(fd);
        throw error;
      }
      this.#fd = fd;
    }
    return this.#fd;
  }
}
