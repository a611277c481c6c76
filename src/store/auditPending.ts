/**
 * The audit log's pending file (`batch` durability): rows whose answers went out before their
 * SQLite commit, kept where a killed process leaves them.
 *
 * With `batch` an answer may go out once its record survives the gateway being killed; the
 * kernel holding the record's bytes is enough for that. So {@link SqliteAuditLog} writes a
 * group's chained rows to this file with one `write` (no transaction, no lock, no sync), lets
 * the answers go, and commits the rows to SQLite after them, at most once per `syncIntervalMs`. Each
 * process that writes has a file of its own beside the database, `<db>-pending-<pid>-<random>`,
 * and a row in the table `audit_pending` (the file's name, its process, and how many of its
 * bytes are committed). That row is updated in the same transaction that commits the file's
 * rows, so the two never disagree: whatever lies past `committed` was answered but not
 * committed. A file is registered in the table before anything is written to it; a file with
 * no row is therefore fully committed (it was replaced, or its process closed it), and goes.
 *
 * When a log opens, and from time to time while it is open, it commits what the files of dead
 * processes hold past their `committed` mark ({@link readPendingRows}): each row continues the
 * chain at its own number when nothing was written since, and is re-chained at the end (same
 * content, new number and link) when something was. A last line without its newline is
 * dropped: its `write` did not complete, so no answer went out for it.
 *
 * @module
 */
import { closeSync, ftruncateSync, openSync, readdirSync, readFileSync, unlinkSync, writeSync } from 'node:fs';
import { randomBytes } from 'node:crypto';
import { basename, dirname, join } from 'node:path';

/** The prefix of the pending files of the database `file` (their names go on with `<pid>-<random>`). */
export function pendingPrefix(file: string): string {
  return `${basename(file)}-pending-`;
}

/** The names (not paths) of the pending files beside the database `file`. */
export function pendingFileNames(file: string): string[] {
  const prefix = pendingPrefix(file);
  try {
    return readdirSync(dirname(file)).filter((name) => name.startsWith(prefix));
  } catch {
    return [];
  }
}

/**
 * The process a log runs in, as its pending files need it (a store takes no process globals:
 * `switchboard`'s commands pass theirs). Without one, a `batch` log commits each group before
 * its answers (no pending file) and an open leaves other processes' files alone.
 */
export interface AuditProcess {
  /** This process's id (in the pending file's name and its row). */
  readonly pid: number;
  /** Whether another process `pid` is running (signal 0 in Node: it exists, even when it is not ours to signal). */
  isRunning(pid: number): boolean;
}

/** A new pending file's name for process `pid`. */
export function newPendingName(file: string, pid: number): string {
  return `${pendingPrefix(file)}${pid}-${randomBytes(6).toString('hex')}`;
}

/**
 * The complete lines of `path` past byte `from` (a missing file has none). A last line without
 * its newline is left out: its write did not complete, so its answer never went out.
 */
export function readPendingRows(path: string, from: number): string[] {
  let data: Buffer;
  try {
    data = readFileSync(path);
  } catch (error) {
    if ((error as { code?: unknown }).code === 'ENOENT') return [];
    throw error;
  }
  if (from >= data.length) return [];
  const text = data.subarray(from).toString('utf8');
  const end = text.lastIndexOf('\n');
  if (end < 0) return [];
  return text.slice(0, end).split('\n').filter((line) => line !== '');
}

/** Removes `path`; one that is already gone is fine. */
export function removePendingFile(path: string): void {
  try {
    unlinkSync(path);
  } catch (error) {
    if ((error as { code?: unknown }).code !== 'ENOENT') throw error;
  }
}

/** One process's open pending file: rows are appended with one `write` each group. */
export class PendingFile {
  /** The file's name (beside the database) and path. */
  readonly name: string;
  readonly path: string;
  readonly #fd: number;
  #size = 0;

  /** Creates the file `name` beside the database `file` (mode 0600; it must not exist). */
  constructor(file: string, name: string) {
    this.name = name;
    this.path = join(dirname(file), name);
    this.#fd = openSync(this.path, 'wx', 0o600);
  }

  /** Bytes written so far (the file's size). */
  get size(): number {
    return this.#size;
  }

  /**
   * Appends `text` (whole lines). On failure (a full disk) the file is cut back to where it was,
   * so no line of a group whose answers are withheld stays behind, and the error is thrown.
   */
  append(text: string): void {
    let written = 0;
    try {
      written = writeSync(this.#fd, text, this.#size, 'utf8');
      const length = Buffer.byteLength(text, 'utf8');
      // A regular file takes a whole write or fails; a short one means it ran out of room.
      if (written !== length) throw Object.assign(new Error(`short write to ${this.path}: ${written} of ${length} bytes`), { code: 'ENOSPC' });
    } catch (error) {
      try {
        if (written > 0) ftruncateSync(this.#fd, this.#size);
      } catch {
        // The cut failed too. Recovery then commits the group's whole lines, records of calls
        // whose answers were withheld (their last line, if torn, is dropped).
      }
      throw error;
    }
    this.#size += written;
  }

  /** Closes the descriptor (the file stays). */
  close(): void {
    closeSync(this.#fd);
  }
}
