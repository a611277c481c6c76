/**
 * `batch` durability on a file: this process's pending file (`auditPending.ts`) and the rows in
 * it not yet committed to the audit table. A group's rows, chained, are written to the file with
 * one `write` (then they survive the process being killed) before their appends resolve, and
 * committed to SQLite later, in one transaction with the file's `committed` mark
 * (`sqliteAudit.ts` decides when). A fully committed file grown large is replaced by a new one.
 *
 * How the log uses it:
 *
 * **Durability `batch` (opt-in).** With `durability: 'batch'` an append resolves once its
 * record survives the gateway being killed (SIGKILL, a crash), before any sync. On a file,
 * that is once its group's rows, chained, are written with one `write` to this process's
 * pending file beside the database (see `auditPending.ts`): no transaction and no lock on the
 * answer's path. The rows are committed to SQLite after the answers went out, in one
 * transaction with the file's `committed` mark, at most once per `syncIntervalMs` (a commit
 * costs a dozen system calls whatever it holds, and system calls are what a lone call pays
 * for most): two checks of the event loop after the group when the last commit is older,
 * else when the interval ends. Other processes read the rows from then; the log's own reads
 * commit first. A process killed in between leaves the rows in its file, and
 * the next open of the log (by any process on the host) commits them, re-chained after the
 * end when another writer has extended the chain meanwhile (then the appends had resolved
 * with numbers the rows no longer have: a telemetry record emitted for them names the old
 * ones). A live process's file is left to it; an open log also looks for dead processes'
 * files every 30 s. In memory there is no file: a group is committed, then resolved. Groups
 * form as `sqliteAudit.ts` says (one growing over turns waits up to 4). The WAL is synced on
 * the thread pool at most once per `syncIntervalMs` (default 10 ms; 0: after every commit,
 * one sync in flight at a time), so a burst of commits shares one sync; a failed sync sets `problem` (requests are refused until a retry syncs), and
 * `SqliteAuditLog.synced` commits and waits for the next one. A commit that fails (a
 * full disk) sets `problem` too: the rows it held were answered and stay in the pending file
 * (and in memory for the retry, which commits them before anything else), and `close` leaves
 * them there for the next open. What it gives up: a power loss or an operating-system crash
 * can lose the records of answers sent in the last interval and one sync (10 ms plus about a
 * millisecond on common disks, by default). The default `sync` waits for the sync and
 * survives both.
 *
 * @module
 */
import type { AuditEntry } from '../host/audit.js';
import { chainRecord, type ChainedRow } from './auditChain.js';
import { PendingFile, newPendingName, removePendingFile } from './auditPending.js';
import type { AuditTable } from './sqliteAuditTable.js';

/** A pending file fully committed and this large is replaced by a new one. */
const PENDING_ROTATE_BYTES = 4 * 1024 * 1024;

/** The pending files open in this process (their owners are alive, whatever their pid says). */
export const OPEN_PENDING = new Set<string>();

/** This process's pending file and its uncommitted rows. */
export class PendingRows {
  readonly #table: AuditTable;
  readonly #pid: number;
  #file: PendingFile | undefined;
  #rows: ChainedRow[] = [];
  /** The file's path, kept for messages after close. */
  #path: string;

  private constructor(table: AuditTable, pid: number, file: PendingFile) {
    this.#table = table;
    this.#pid = pid;
    this.#file = file;
    this.#path = file.path;
    OPEN_PENDING.add(file.path);
  }

  /** Registers a new pending file of process `pid` (the row first: a file without one counts as fully committed) and opens it. */
  static start(table: AuditTable, pid: number): PendingRows {
    const name = newPendingName(table.file, pid);
    table.register(name, pid);
    return new PendingRows(table, pid, new PendingFile(table.file, name));
  }

  /** Whether groups go to the file (false once closed, or when a replacement file could not be opened). */
  get active(): boolean {
    return this.#file !== undefined;
  }

  /** Rows written to the file and not yet committed. */
  get count(): number {
    return this.#rows.length;
  }

  /** The file's path. */
  get path(): string {
    return this.#path;
  }

  /**
   * Chains `entries` after `seq`/`head` (this process's head) and writes their rows to the file
   * with one `write`. Throws when the write fails (then nothing is kept).
   */
  append(entries: readonly AuditEntry[], seq: number, head: string): ChainedRow[] {
    const file = this.#file;
    if (file === undefined) throw new Error('the pending file is closed');
    const rows: ChainedRow[] = [];
    let text = '';
    for (const entry of entries) {
      const row = chainRecord(entry, ++seq, head);
      head = row.hash;
      text += `${row.line}\n`;
      rows.push(row);
    }
    file.append(text);
    for (const row of rows) this.#rows.push(row);
    return rows;
  }

  /**
   * Commits the uncommitted rows and moves the file's mark (see {@link AuditTable.commitPending});
   * returns the last row as committed, or undefined when there was nothing to commit. Throws
   * when the commit fails: the rows stay pending. Replaces the file when it has grown large.
   */
  commit(): ChainedRow | undefined {
    const file = this.#file;
    if (this.#rows.length === 0 || file === undefined) return undefined;
    const end = this.#table.commitPending(this.#rows, file);
    this.#rows = [];
    if (file.size >= PENDING_ROTATE_BYTES) this.#rotate(file);
    return end;
  }

  /** Replaces a large, fully committed pending file by a new one (registered first); a failure keeps the old one. */
  #rotate(old: PendingFile): void {
    const name = newPendingName(this.#table.file, this.#pid);
    try {
      this.#table.replaceRegistration(name, old.name, this.#pid);
    } catch {
      return;
    }
    try {
      this.#file = new PendingFile(this.#table.file, name);
      this.#path = this.#file.path;
      OPEN_PENDING.add(this.#file.path);
    } catch {
      // The old file's row is gone (it is fully committed): later groups are committed before their answers, as with no pending file.
      this.#file = undefined;
    }
    OPEN_PENDING.delete(old.path);
    old.close();
    removePendingFile(old.path);
  }

  /** Closes the file: removed with its row when everything in it is committed (`committed`), else left for the next open. */
  close(committed: boolean): void {
    const file = this.#file;
    if (file === undefined) return;
    this.#file = undefined;
    OPEN_PENDING.delete(file.path);
    file.close();
    if (!committed) return;
    try {
      this.#table.unregister(file.name);
      removePendingFile(file.path);
    } catch {
      // Left for the next open: the file's mark says it is fully committed, so nothing is committed twice.
    }
  }
}
