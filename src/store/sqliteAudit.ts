/**
 * The embedded audit store: an append-only, hash-chained table in SQLite (better-sqlite3).
 *
 * - **Chain.** Each record's canonical text (RFC 8785) includes `prev`, its predecessor's hash;
 *   `hash` is `sha256:` of that text. Editing a record changes its hash; deleting, inserting or
 *   reordering breaks a link or the numbering. {@link SqliteAuditLog.verify} re-computes all of
 *   it. (Whoever can rewrite the whole file can also rewrite the whole chain: the keyed anchor
 *   of its head, kept outside the state folder, finds that; see `anchor/auditAnchor.ts`.)
 * - **Several writers.** Each write takes SQLite's write lock and continues the chain from the
 *   last record on disk, so processes sharing a state folder keep one chain.
 * - **Group commit, durable, without timers.** Appends are written in one transaction (one
 *   `INSERT` per up to 32 records) at the end of a turn of the event loop, and the WAL file is
 *   then synced with `fdatasync` on libuv's thread pool; every append resolves only once the
 *   sync that covers its record has returned. While one sync is in flight the event loop keeps
 *   serving, and the appends that arrive meanwhile form the next group. A group still growing
 *   from one turn to the next (under load, other calls' answers are arriving) waits another
 *   turn, up to 4, so one sync covers them: the group size follows the load, no timer waits
 *   for more, and a lone append (c=1) waits one turn. Where requests announce their appends
 *   ({@link SqliteAuditLog.announce}: the audit interceptor does), a group waits only while an
 *   announced append is still out, and the last one to arrive writes the group at once: alone
 *   (c=1) an append is written without waiting a turn. SQLite itself runs `synchronous = NORMAL`
 *   (it does not sync at commit; it still syncs the WAL before each checkpoint and the
 *   database after it), and our `fdatasync` of the WAL after each commit is exactly the sync
 *   that `FULL` would have made at commit (SQLite's own sync on Linux is `fdatasync` too), so a
 *   committed record that an append resolved for survives a power loss as it did with `FULL`
 *   (fdatasync(2) flushes the file's data and the metadata needed to read it back, its size
 *   included, whichever descriptor wrote it; the folder is synced once when the WAL first
 *   appears). What changes
 *   is only that the sync no longer blocks the event loop. An in-memory log has nothing to sync.
 * - **Durability `batch` (opt-in).** With `durability: 'batch'` an append resolves once its
 *   record survives the gateway being killed (SIGKILL, a crash), before any sync: on a file,
 *   once its group's rows are in this process's pending file (`sqliteAuditPending.ts`, which
 *   says what it gives up), committed to SQLite after the answers went out at most once per
 *   `syncIntervalMs`; in memory, once committed. The WAL is synced on the thread pool at most
 *   once per `syncIntervalMs` (default 10 ms); {@link SqliteAuditLog.synced} waits for it.
 * - **Failures.** A write that fails (a full disk, an I/O error) rejects the appends of its
 *   batch, keeps their records in memory and retries them every second; meanwhile `problem`
 *   says why, and the audit interceptor refuses new requests. A file that is not a database, or
 *   one whose table is not ours, fails to open with `ERR_MCP_STORE_CORRUPT`.
 *
 * @module
 */
import type { AuditEntry, AuditLog, AuditReader, AuditRecord, AuditVerification } from '../host/audit.js';
import type { ChainedRow } from './auditChain.js';
import type { AuditProcess } from './auditPending.js';
import { OPEN_PENDING, PendingRows } from './sqliteAuditPending.js';
import { DEFAULT_BATCH_SYNC_MS, type SqliteAuditOptions } from './sqliteAuditOptions.js';
import { AuditTable, writeProblem } from './sqliteAuditTable.js';

import { McpError, McpErrorCode, describeError } from '../util/errors.js';
import { WalSync } from './sqliteFile.js';
export { DEFAULT_BATCH_SYNC_MS, type SqliteAuditOptions } from './sqliteAuditOptions.js';
export type { AuditProcess } from './auditPending.js';
export { AUDIT_GENESIS } from './auditChain.js';

/** Most turns of the event loop a group of appends waits while it still grows (either durability; see the module comment). */
const MAX_GROUP_TURNS = 4;
/** `batch`: how often an open log looks for dead processes' pending files to commit (also done at open). */
const PEER_CHECK_MS = 30_000;

interface Pending {
  readonly entry: AuditEntry;
  readonly resolve: (record: AuditRecord) => void;
  readonly reject: (error: unknown) => void;
  /** Set once written (what {@link resolve} gets); a member from the start, so setting it does not reshape the object. */
  record: AuditRecord | undefined;
}

/** The SQLite audit log (see the module comment). */
export class SqliteAuditLog implements AuditLog, AuditReader {
  readonly file: string;
  readonly #table: AuditTable;
  readonly #retryMs: number;
  readonly #batch: boolean;
  /** Batch mode: commits made while a sync was in flight or waited, which the next sync must cover. */
  #unsynced = false;
  readonly #syncIntervalMs: number;
  /** Batch mode: when the last sync started (performance.now()), and the timer of the next one. */
  #lastSyncAt = -Infinity;
  #syncTimer: ReturnType<typeof setTimeout> | undefined;
  /** Batch mode: who waits in {@link synced} for the commits made so far to be synced. */
  #syncWaiters: { resolve: () => void; reject: (error: unknown) => void }[] = [];
  /** Batch mode: the waiters the sync in flight settles (it covers every commit made before it started). */
  #covered = this.#syncWaiters;
  #syncs = 0;
  #queue: Pending[] = [];
  /** Records whose write failed, kept for the retry. */
  #unwritten: Pending[] = [];
  #scheduled = false;
  /** Appends since {@link #flush} last looked, and the turns it has waited for the group to stop growing. */
  #arrived = 0;
  #waitedTurns = 0;
  /** Announced appends ({@link announce}) not yet arrived or withdrawn; whether anything ever announced. */
  #expected = 0;
  #announcing = false;
  #retry: ReturnType<typeof setTimeout> | undefined;
  #problem: string | undefined;
  #seq: number;
  #closed = false;
  #commits = 0;
  /** The WAL's sync (WAL mode on a file); undefined where SQLite synced the commits itself (or in memory). */
  readonly #wal: WalSync | undefined;
  /** The sync in flight (its group resolves when it returns), or undefined. */
  #syncing: Promise<void> | undefined;
  /** The hash of record {@link #seq} (the head this process chains its next group from). */
  #headHash: string;
  /** Groups written (to the pending file, or committed). */
  #groups = 0;
  /** `batch` on a file: this process's pending file (see `auditPending.ts`), and its rows not yet committed. */
  #pending: PendingRows | undefined;
  #commitScheduled = false;
  /** When the last commit of pending rows was made (performance.now()), and the timer of the next. */
  #lastCommitAt = -Infinity;
  #commitTimer: ReturnType<typeof setTimeout> | undefined;
  #peerTimer: ReturnType<typeof setInterval> | undefined;
  readonly #process: AuditProcess | undefined;
  readonly #fullHint: string | undefined;

  private constructor(table: AuditTable, options: SqliteAuditOptions) {
    this.file = table.file;
    this.#table = table;
    this.#wal = table.wal ? new WalSync(table.file) : undefined;
    this.#retryMs = options.retryMs ?? 1000;
    this.#batch = options.durability === 'batch';
    this.#syncIntervalMs = options.syncIntervalMs ?? DEFAULT_BATCH_SYNC_MS;
    this.#process = options.process;
    this.#fullHint = options.fullHint;
    const { seq, hash } = table.head();
    this.#seq = seq;
    this.#headHash = hash;
  }

  /**
   * `batch` on a file: commits what dead processes left in their pending files, then registers
   * this log's own (the row first: a file without one counts as fully committed), and looks for
   * dead processes' files again every {@link PEER_CHECK_MS}.
   */
  #startPending(me: AuditProcess): void {
    this.#recoverPeers(me);
    this.#pending = PendingRows.start(this.#table, me.pid);
    this.#peerTimer = setInterval(() => this.#checkPeers(), PEER_CHECK_MS);
    this.#peerTimer.unref?.();
  }

  /** Commits what dead processes left in their pending files (see {@link AuditTable.recoverPeers}); nothing of this log's is pending. */
  #recoverPeers(me: AuditProcess): void {
    try {
      this.#table.recoverPeers(me, OPEN_PENDING);
    } finally {
      this.#refreshHead();
    }
  }

  /** The timer's look for dead processes' pending files: first this log's own rows go in, so its chain is ahead of theirs. */
  #checkPeers(): void {
    if (this.#closed || this.#problem !== undefined || this.#process === undefined || !this.#commitPending()) return;
    try {
      this.#recoverPeers(this.#process);
    } catch (error) {
      this.#problem = writeProblem(error);
      if (this.#retry === undefined) this.#scheduleRetry();
    }
  }

  /** Reads the head of the chain on disk into {@link #seq} and {@link #headHash} (nothing of this log's is pending). */
  #refreshHead(): void {
    const { seq, hash } = this.#table.head();
    this.#seq = seq;
    this.#headHash = hash;
  }

  /**
   * Opens (creating when missing, with mode 0600 in a 0700 folder) the audit database `file`,
   * or `:memory:`.
   *
   * @throws McpError `ERR_MCP_STORE_CORRUPT` when the file is not a usable audit database.
   */
  static open(file: string, options: SqliteAuditOptions = {}): SqliteAuditLog {
    const log = new SqliteAuditLog(AuditTable.open(file, options.maxBytes), options);
    try {
      // Answered records that a killed process left uncommitted go in before anything else is written or read.
      const me = options.process;
      if (me !== undefined && log.#batch && log.#wal !== undefined) log.#startPending(me);
      else if (me !== undefined && file !== ':memory:') log.#recoverPeers(me);
    } catch (error) {
      log.#dispose();
      throw error instanceof McpError ? error : new McpError(McpErrorCode.StoreWriteFailed, `The audit log ${file} cannot be opened: ${describeError(error)}`, { cause: error });
    }
    return log;
  }

  get problem(): string | undefined {
    return this.#problem === 'disk full' && this.#fullHint !== undefined ? `disk full (${this.#fullHint})` : this.#problem;
  }

  /** The number of records written. */
  get size(): number {
    return this.#seq;
  }

  /**
   * Transactions committed by this instance: one per group of appends, except with `batch` on a
   * file, where the groups written to the pending file in one turn share one.
   */
  get commits(): number {
    return this.#commits;
  }

  /** Groups of appends written (committed, or with `batch` on a file written to the pending file). */
  get groups(): number {
    return this.#groups;
  }

  /** Syncs of the WAL this instance started (`sync`: one per group; `batch`: at most one per interval, and one at close). */
  get syncs(): number {
    return this.#syncs;
  }

  /**
   * Resolves once every record committed so far is synced to disk. With `sync` durability that
   * is already true of every resolved append; with `batch` it waits for the next sync, at most
   * {@link SqliteAuditOptions.syncIntervalMs} after the last. Rejects when that sync fails.
   */
  synced(): Promise<void> {
    if (this.#problem !== undefined || !this.#commitPending()) return Promise.reject(new McpError(McpErrorCode.StoreWriteFailed, `The audit log ${this.file} cannot be synced to disk: ${this.problem ?? 'commit failed'}`));
    if (!this.#batch) return this.#syncing ?? Promise.resolve();
    if (!this.#unsynced) {
      if (this.#syncing === undefined) return Promise.resolve();
      // Nothing committed since the sync in flight started: it covers everything.
      return new Promise((resolve, reject) => this.#covered.push({ resolve, reject }));
    }
    return new Promise((resolve, reject) => this.#syncWaiters.push({ resolve, reject }));
  }

  /**
   * A request that will append when it ends has started (see {@link AuditLog.announce}): while
   * announced appends are outstanding a group waits for them as it grows; when the last one
   * arrives the group is written at once (alone, at c=1, no turn of the event loop is waited).
   */
  announce(): void {
    this.#expected++;
    this.#announcing = true;
  }

  withdraw(): void {
    if (this.#expected > 0) this.#expected--;
  }

  append(entry: AuditEntry, announced = false): Promise<AuditRecord> {
    if (announced && this.#expected > 0) this.#expected--;
    if (this.#closed) return Promise.reject(new McpError(McpErrorCode.StoreWriteFailed, `The audit log ${this.file} is closed`));
    return new Promise((resolve, reject) => {
      this.#queue.push({ entry, resolve, reject, record: undefined });
      this.#arrived++;
      // The last announced append: no request in flight is left to join the group, so it is written now.
      if (announced && this.#expected === 0 && this.#writable()) return this.#writeGroup();
      if (!this.#scheduled) {
        this.#scheduled = true;
        setImmediate(() => this.#flush());
      }
    });
  }

  read(options: { readonly from?: number; readonly limit?: number } = {}): AuditRecord[] {
    this.#commitForReading();
    return this.#table.read(options.from, options.limit);
  }

  tail(count: number): AuditRecord[] {
    this.#commitForReading();
    return this.#table.tail(count);
  }

  verify(): AuditVerification {
    this.#commitForReading();
    return this.#table.verify();
  }

  /** Before a read: this log's own answered rows go in first, so it reads what it wrote (a failure leaves them pending). */
  #commitForReading(): void {
    if (!this.#closed && this.#problem === undefined) this.#commitPending();
  }

  /**
   * Writes what is queued, then closes the database. With `batch`, rows that cannot be committed
   * now stay in the pending file: the next open commits them.
   */
  async close(): Promise<void> {
    if (this.#closed) return;
    this.#closed = true;
    if (this.#retry !== undefined) clearTimeout(this.#retry);
    if (this.#syncTimer !== undefined) {
      clearTimeout(this.#syncTimer);
      this.#syncTimer = undefined;
    }
    if (this.#peerTimer !== undefined) clearInterval(this.#peerTimer);
    if (this.#commitTimer !== undefined) clearTimeout(this.#commitTimer);
    await this.#syncing;
    const pendingError = this.#tryCommit();
    if (pendingError !== undefined) this.#problem = writeProblem(pendingError);
    const left = [...this.#unwritten.splice(0), ...this.#queue.splice(0)];
    const stillPending = this.#pending?.count ?? 0;
    let written = pendingError === undefined && this.#write(left);
    if (written && (left.length > 0 || this.#unsynced)) {
      try {
        this.#syncNow();
      } catch (error) {
        this.#problem = writeProblem(error);
        written = false;
      }
    }
    if (written) for (const p of left) p.resolve(p.record as AuditRecord);
    for (const w of this.#syncWaiters.splice(0)) {
      if (written) w.resolve();
      else w.reject(new McpError(McpErrorCode.StoreWriteFailed, `The audit log ${this.file} cannot be synced to disk: ${this.problem ?? 'write failed'}`));
    }
    if (!written && pendingError !== undefined) for (const p of left) p.reject(new McpError(McpErrorCode.StoreWriteFailed, `The audit log ${this.file} cannot be written: ${this.problem ?? 'write failed'}`));
    this.#dispose(pendingError === undefined);
    if (stillPending > 0) throw new McpError(McpErrorCode.StoreWriteFailed, `${stillPending} answered audit records could not be committed before closing ${this.file} (${this.problem ?? 'write failed'}); they stay in ${this.#pending?.path ?? 'its pending file'} and are committed when the log is next opened`);
    if (!written) throw new McpError(McpErrorCode.StoreWriteFailed, `${left.length} audit records could not be written before closing ${this.file}: ${this.problem ?? 'write failed'}`);
  }

  /**
   * Releases the database, the WAL's descriptor, the timers and the pending file: removed with
   * its row when everything in it is committed (`committed`), else left for the next open.
   */
  #dispose(committed = false): void {
    this.#closed = true;
    if (this.#peerTimer !== undefined) clearInterval(this.#peerTimer);
    this.#pending?.close(committed);
    this.#wal?.close();
    this.#table.close();
  }

  /** Whether a group can be written now: open, and (sync durability) no sync in flight (what is queued then forms the next group, written when it returns). */
  #writable(): boolean {
    return !this.#closed && (this.#batch || this.#syncing === undefined);
  }

  #flush(): void {
    this.#scheduled = false;
    if (!this.#writable()) return;
    // While the group still grows from one turn of the event loop to the next (under load the
    // answers of other calls are arriving), wait a turn, up to MAX_GROUP_TURNS: one sync then
    // covers them all. Alone (c=1) it waits one turn, in which nothing else arrives. Where
    // requests announce their appends, it waits only while some announced append is still out.
    if (this.#arrived > 0 && this.#waitedTurns < MAX_GROUP_TURNS && (!this.#announcing || this.#expected > 0)) {
      this.#arrived = 0;
      this.#waitedTurns++;
      this.#scheduled = true;
      setImmediate(() => this.#flush());
      return;
    }
    this.#writeGroup();
  }

  /** Writes what is queued as one group ({@link #writable} holds). */
  #writeGroup(): void {
    this.#arrived = 0;
    this.#waitedTurns = 0;
    if (this.#batch) return this.#flushBatch();
    const batch = this.#queue.splice(0);
    if (batch.length === 0) return;
    if (this.#unwritten.length > 0) {
      // Earlier records first, or the chain would be out of order: wait for the retry.
      this.#unwritten.push(...batch);
      for (const p of batch) p.reject(new McpError(McpErrorCode.StoreWriteFailed, `The audit log cannot be written: ${this.problem ?? 'an earlier write failed'}`));
      return;
    }
    if (!this.#write(batch)) {
      if (this.#retry === undefined) this.#scheduleRetry();
      return;
    }
    this.#syncing = this.#sync().then(
      () => {
        for (const p of batch) p.resolve(p.record as AuditRecord);
      },
      (error: unknown) => {
        // Committed but maybe not on disk: refuse until a later sync succeeds (the retry).
        this.#problem = writeProblem(error);
        for (const p of batch) p.reject(new McpError(McpErrorCode.StoreWriteFailed, `The audit log ${this.file} cannot be synced to disk: ${this.problem}`, { cause: error }));
        if (this.#retry === undefined) this.#scheduleRetry();
      },
    );
    void this.#syncing.then(() => {
      this.#syncing = undefined;
      // The next group is looked at the end of this turn of the event loop, not now: the appends
      // of the other I/O this turn delivers (answers from downstream) join it. Having grown while
      // the sync ran, it then waits at least one more turn (#flush's growth wait).
      if (!this.#scheduled) {
        this.#scheduled = true;
        setImmediate(() => this.#flush());
      }
    });
  }

  /** Batch durability ({@link #writable} holds): commit what is queued and resolve it now; the sync follows (at most one per interval). */
  #flushBatch(): void {
    const batch = this.#queue.splice(0);
    if (batch.length === 0) return;
    if (this.#unwritten.length > 0 || this.#problem !== undefined) {
      // An earlier write or sync failed: nothing is answered until the retry has it on disk.
      if (this.#unwritten.length > 0) this.#unwritten.push(...batch);
      for (const p of batch) p.reject(new McpError(McpErrorCode.StoreWriteFailed, `The audit log cannot be written: ${this.problem ?? 'an earlier write failed'}`));
      return;
    }
    if (this.#pending?.active === true) return this.#pendGroup(batch, this.#pending);
    if (!this.#write(batch)) {
      if (this.#retry === undefined) this.#scheduleRetry();
      return;
    }
    for (const p of batch) p.resolve(p.record as AuditRecord);
    this.#syncBatch();
  }

  /**
   * `batch` on a file: chains the group from this process's head, writes its rows to the pending
   * file with one `write` (now they survive the process being killed), resolves the appends,
   * and commits after the answers went out ({@link #scheduleCommit}).
   * A failed write withholds the group's answers and keeps its records for the retry.
   */
  #pendGroup(batch: Pending[], pending: PendingRows): void {
    let rows: ChainedRow[];
    try {
      rows = pending.append(
        batch.map((p) => p.entry),
        this.#seq,
        this.#headHash,
      );
    } catch (error) {
      this.#fail(batch, error);
      if (this.#retry === undefined) this.#scheduleRetry();
      return;
    }
    for (let i = 0; i < batch.length; i++) (batch[i] as Pending).record = (rows[i] as ChainedRow).record;
    const end = rows[rows.length - 1] as ChainedRow;
    this.#seq = end.seq;
    this.#headHash = end.hash;
    this.#groups++;
    for (const p of batch) p.resolve(p.record as AuditRecord);
    this.#scheduleCommit();
  }

  /**
   * Commits the pending rows after the answers went out, at most once per
   * {@link #syncIntervalMs} (the sync that follows a commit has the same bound): a commit costs
   * SQLite's locks and page writes, a dozen system calls whatever it holds, so under load one
   * commit covers the rows of many answers. When the last commit is older than that, the
   * commit runs two checks of the event loop later, since a writer that batches its output to
   * the end of the turn (stdio) schedules it after this.
   */
  #scheduleCommit(): void {
    if (this.#commitScheduled) return;
    this.#commitScheduled = true;
    const wait = this.#lastCommitAt + this.#syncIntervalMs - performance.now();
    if (wait > 0) this.#commitTimer = setTimeout(this.#scheduledCommit, wait);
    else setImmediate(() => setImmediate(this.#scheduledCommit));
  }

  readonly #scheduledCommit = (): void => {
    this.#commitScheduled = false;
    this.#commitTimer = undefined;
    if (this.#problem === undefined && !this.#closed) this.#commitPending();
  };

  /**
   * Commits the pending rows (answered, in the pending file) and moves the file's mark; then
   * the batch sync follows. On failure the rows stay pending (in memory and in the file), the
   * problem refuses new requests, and the retry commits them. True when nothing is left pending.
   */
  #commitPending(): boolean {
    const error = this.#tryCommit();
    if (error === undefined) return true;
    this.#problem = writeProblem(error);
    if (this.#retry === undefined) this.#scheduleRetry();
    return false;
  }

  /** {@link #commitPending} without the failure's handling: the error, or undefined when nothing is left pending. */
  #tryCommit(): unknown {
    let end: ChainedRow | undefined;
    try {
      end = this.#pending?.commit();
    } catch (error) {
      return error ?? new Error('commit failed');
    }
    if (end === undefined) return undefined;
    this.#seq = end.seq;
    this.#headHash = end.hash;
    this.#commits++;
    this.#lastCommitAt = performance.now();
    // Closing syncs once at its end (it sees #unsynced); otherwise the batch sync follows as after any commit.
    if (this.#closed) this.#unsynced = true;
    else this.#syncBatch();
    return undefined;
  }

  /**
   * Starts a sync of the WAL, or marks that the next one must cover a commit: when one is in
   * flight, or the last started less than {@link #syncIntervalMs} ago (then a timer starts it).
   */
  #syncBatch(): void {
    if (this.#syncing !== undefined || this.#syncTimer !== undefined) {
      this.#unsynced = true;
      return;
    }
    const wait = this.#lastSyncAt + this.#syncIntervalMs - performance.now();
    if (wait > 0) {
      this.#unsynced = true;
      this.#syncTimer = setTimeout(() => {
        this.#syncTimer = undefined;
        if (this.#unsynced && !this.#closed) this.#syncBatch();
      }, wait);
      return;
    }
    this.#unsynced = false;
    this.#lastSyncAt = performance.now();
    const waiters = this.#syncWaiters.splice(0);
    this.#covered = waiters;
    this.#syncing = this.#sync().then(
      () => {
        this.#syncing = undefined;
        for (const w of waiters) w.resolve();
        if (this.#unsynced && !this.#closed) this.#syncBatch();
      },
      (error: unknown) => {
        this.#syncing = undefined;
        // Answers already went out; refuse new requests until the retry syncs.
        this.#problem = writeProblem(error);
        for (const w of waiters) w.reject(error);
        if (this.#retry === undefined) this.#scheduleRetry();
      },
    );
  }

  /** One transaction for `batch` (not yet synced: see {@link #sync}); on failure the records wait for the retry. */
  #write(batch: Pending[]): boolean {
    if (batch.length === 0) return true;
    let rows: ChainedRow[];
    try {
      rows = this.#table.writeGroup(batch.map((p) => p.entry));
    } catch (error) {
      this.#fail(batch, error);
      return false;
    }
    for (let i = 0; i < batch.length; i++) (batch[i] as Pending).record = (rows[i] as ChainedRow).record;
    const end = rows[rows.length - 1] as ChainedRow;
    this.#seq = end.seq;
    this.#headHash = end.hash;
    this.#commits++;
    this.#groups++;
    return true;
  }

  /** A group that could not be written: the problem is set, its appends rejected, its records kept for the retry. */
  #fail(batch: Pending[], error: unknown): void {
    this.#problem = writeProblem(error);
    this.#unwritten.push(...batch);
    for (const p of batch) p.reject(new McpError(McpErrorCode.StoreWriteFailed, `The audit log ${this.file} cannot be written: ${this.problem}`, { cause: error }));
  }

  /** Syncs the WAL on the thread pool (see {@link WalSync}): the commits written so far are durable when it resolves. */
  #sync(): Promise<void> {
    this.#syncs++;
    return this.#wal === undefined ? Promise.resolve() : this.#wal.sync();
  }

  /** {@link #sync}, blocking (closing, retrying). */
  #syncNow(): void {
    this.#syncs++;
    this.#wal?.syncNow();
  }

  #scheduleRetry(): void {
    this.#retry = setTimeout(() => {
      this.#retry = undefined;
      // Answered rows still pending go in first: they come before the rejected ones.
      const pendingError = this.#tryCommit();
      if (pendingError !== undefined) {
        this.#problem = writeProblem(pendingError);
        if (!this.#closed) this.#scheduleRetry();
        return;
      }
      const records = this.#unwritten.splice(0);
      // Already rejected: a success now only records them (and syncs what an earlier sync may have missed).
      let ok = this.#write(records.map((p) => ({ entry: p.entry, resolve: () => undefined, reject: () => undefined, record: undefined })));
      if (ok) {
        try {
          this.#syncNow();
        } catch (error) {
          this.#problem = writeProblem(error);
          ok = false;
        }
      }
      if (ok) this.#problem = undefined;
      else if (!this.#closed) this.#scheduleRetry();
    }, this.#retryMs);
    this.#retry.unref?.();
  }
}
