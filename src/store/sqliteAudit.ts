/**
 * The embedded audit store: an append-only, hash-chained table in SQLite (better-sqlite3).
 *
 * - **Chain.** Each record's canonical text (RFC 8785) includes `prev`, its predecessor's hash;
 *   `hash` is `sha256:` of that text. Editing a record changes its hash; deleting, inserting or
 *   reordering breaks a link or the numbering. {@link SqliteAuditLog.verify} re-computes all of
 *   it. (Whoever can rewrite the whole file can also rewrite the whole chain: compare the head
 *   hash `verify` prints with a copy kept elsewhere, or export the records regularly.)
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
 *   group is committed (written to the WAL, in the operating system's page cache), before the
 *   sync; groups form as above (one growing over turns waits up to 4). The WAL is synced on
 *   the thread pool at most once per `syncIntervalMs` (default 10 ms; 0: after every commit,
 *   one sync in flight at a time), so a burst of commits shares one sync; a failed sync sets `problem` (requests are refused until a retry syncs), and
 *   {@link SqliteAuditLog.synced} waits for the next one. What it keeps: a record whose answer
 *   went out survives the gateway being killed (SIGKILL, a crash): the kernel holds the
 *   committed WAL. What it gives up: a power loss or an operating-system crash can lose the
 *   records of answers sent in the last interval and one sync (10 ms plus about a millisecond
 *   on common disks, by default). The default `sync` waits for the sync and survives both.
 * - **Failures.** A write that fails (a full disk, an I/O error) rejects the appends of its
 *   batch, keeps their records in memory and retries them every second; meanwhile `problem`
 *   says why, and the audit interceptor refuses new requests. A file that is not a database, or
 *   one whose table is not ours, fails to open with `ERR_MCP_STORE_CORRUPT`.
 *
 * @module
 */
import { chmodSync, closeSync, mkdirSync, openSync } from 'node:fs';
import { dirname } from 'node:path';
import Database from 'better-sqlite3';
import type { AuditDurability, AuditEntry, AuditLog, AuditReader, AuditRecord, AuditVerification } from '../host/audit.js';
import { AUDIT_GENESIS, ChainVerifier, chainRecord, parseAuditRow, type AuditRow } from './auditChain.js';
import { McpError, McpErrorCode, describeError } from '../util/errors.js';
import { WalSync } from './sqliteFile.js';

export { AUDIT_GENESIS } from './auditChain.js';

const SCHEMA_VERSION = 1;
/** Most turns of the event loop a group of appends waits while it still grows (either durability; see the module comment). */
const MAX_GROUP_TURNS = 4;
/** Most records one `INSERT` statement writes (3 parameters each, well under SQLite's limit of 32766). */
const MAX_ROWS_PER_INSERT = 32;

/** Options of {@link SqliteAuditLog.open}. */
export interface SqliteAuditOptions {
  /** Retry interval after a failed write, in ms. Default 1000. */
  readonly retryMs?: number;
  /**
   * Most bytes the database may grow to. Reaching it is handled as a full disk: the log says
   * "disk full" and the gateway refuses requests until there is room. Default: no limit.
   */
  readonly maxBytes?: number;
  /**
   * `sync` (default): an append resolves after the sync that makes its record survive a power
   * loss. `batch`: once its record is committed; it survives the process being killed, the sync
   * follows (see the module comment).
   */
  readonly durability?: AuditDurability;
  /**
   * `batch` only: the least time, in ms, from the start of one sync of the WAL to the start of
   * the next, so that a burst of commits shares one sync (default {@link DEFAULT_BATCH_SYNC_MS}).
   * It bounds what a power loss can take: the records committed in one interval and one sync.
   * 0 syncs after every commit (one sync in flight at a time).
   */
  readonly syncIntervalMs?: number;
}

/** {@link SqliteAuditOptions.syncIntervalMs}'s default. */
export const DEFAULT_BATCH_SYNC_MS = 10;

type Row = AuditRow;

interface Pending {
  readonly entry: AuditEntry;
  readonly resolve: (record: AuditRecord) => void;
  readonly reject: (error: unknown) => void;
  /** Set once written (what {@link resolve} gets). */
  record?: AuditRecord;
}

const NOTHING: readonly Pending[] = Object.freeze([]);

/** The SQLite audit log (see the module comment). */
export class SqliteAuditLog implements AuditLog, AuditReader {
  readonly file: string;
  readonly #db: Database.Database;
  /** `INSERT` statements of 1 to {@link MAX_ROWS_PER_INSERT} rows, prepared on first use (index = rows - 1). */
  readonly #inserts: (Database.Statement<(number | string)[]> | undefined)[] = [];
  readonly #last: Database.Statement;
  /** The write transaction (`BEGIN IMMEDIATE`), made once: it writes {@link #writing}. */
  readonly #writeTransaction: () => void;
  /** The group {@link #writeTransaction} writes, and the number of the last record it wrote. */
  #writing: readonly Pending[] = NOTHING;
  #writtenSeq = 0;
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

  private constructor(file: string, db: Database.Database, options: SqliteAuditOptions, wal: boolean) {
    this.file = file;
    this.#wal = wal ? new WalSync(file) : undefined;
    this.#db = db;
    this.#retryMs = options.retryMs ?? 1000;
    this.#batch = options.durability === 'batch';
    this.#syncIntervalMs = options.syncIntervalMs ?? DEFAULT_BATCH_SYNC_MS;
    this.#last = db.prepare('SELECT seq, line, hash FROM audit ORDER BY seq DESC LIMIT 1');
    this.#writeTransaction = db.transaction(() => this.#writeRows()).immediate;
    const last = this.#last.get() as Row | undefined;
    this.#seq = last?.seq ?? 0;
  }

  /**
   * Opens (creating when missing, with mode 0600 in a 0700 folder) the audit database `file`,
   * or `:memory:`.
   *
   * @throws McpError `ERR_MCP_STORE_CORRUPT` when the file is not a usable audit database.
   */
  static open(file: string, options: SqliteAuditOptions = {}): SqliteAuditLog {
    if (file !== ':memory:') {
      mkdirSync(dirname(file), { recursive: true, mode: 0o700 });
      closeSync(openSync(file, 'a', 0o600));
      chmodSync(file, 0o600);
    }
    let db: Database.Database | undefined;
    try {
      db = new Database(file);
      // In WAL mode commits are synced by #sync (fdatasync of the WAL before any append of the group
      // resolves); where WAL is not available SQLite syncs at commit itself (FULL).
      const wal = db.pragma('journal_mode = WAL', { simple: true }) === 'wal' && file !== ':memory:';
      db.pragma(wal ? 'synchronous = NORMAL' : 'synchronous = FULL');
      const version = db.pragma('user_version', { simple: true }) as number;
      const tables = db.prepare("SELECT name FROM sqlite_master WHERE type = 'table' AND name = 'audit'").all();
      if (tables.length === 0) {
        if (version !== 0) throw new Error(`user_version is ${version} but the audit table is missing`);
        db.exec('CREATE TABLE audit (seq INTEGER PRIMARY KEY, line TEXT NOT NULL, hash TEXT NOT NULL) STRICT');
        db.pragma(`user_version = ${SCHEMA_VERSION}`);
      } else if (version !== SCHEMA_VERSION) {
        throw new Error(`unknown audit schema version ${version}`);
      }
      if (options.maxBytes !== undefined) {
        const pageSize = db.pragma('page_size', { simple: true }) as number;
        db.pragma(`max_page_count = ${Math.max(1, Math.ceil(options.maxBytes / pageSize))}`);
      }
      return new SqliteAuditLog(file, db, options, wal);
    } catch (error) {
      db?.close();
      throw new McpError(McpErrorCode.StoreCorrupt, `The audit log ${file} cannot be opened: ${describeError(error)}`, { cause: error });
    }
  }

  get problem(): string | undefined {
    return this.#problem;
  }

  /** The number of records written. */
  get size(): number {
    return this.#seq;
  }

  /** Transactions committed by this instance (one per group of appends). */
  get commits(): number {
    return this.#commits;
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
    if (this.#problem !== undefined) return Promise.reject(new McpError(McpErrorCode.StoreWriteFailed, `The audit log ${this.file} cannot be synced to disk: ${this.#problem}`));
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
      this.#queue.push({ entry, resolve, reject });
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
    const rows = this.#db.prepare('SELECT seq, line, hash FROM audit WHERE seq >= ? ORDER BY seq LIMIT ?').all(options.from ?? 1, options.limit ?? -1) as Row[];
    return rows.map(parseAuditRow);
  }

  tail(count: number): AuditRecord[] {
    const rows = this.#db.prepare('SELECT seq, line, hash FROM audit ORDER BY seq DESC LIMIT ?').all(count) as Row[];
    return rows.reverse().map(parseAuditRow);
  }

  verify(): AuditVerification {
    const verifier = new ChainVerifier();
    for (const row of this.#db.prepare('SELECT seq, line, hash FROM audit ORDER BY seq').iterate() as IterableIterator<Row>) verifier.add(row);
    return verifier.result();
  }

  /** Writes what is queued, then closes the database. */
  async close(): Promise<void> {
    if (this.#closed) return;
    this.#closed = true;
    if (this.#retry !== undefined) clearTimeout(this.#retry);
    if (this.#syncTimer !== undefined) {
      clearTimeout(this.#syncTimer);
      this.#syncTimer = undefined;
    }
    await this.#syncing;
    const left = [...this.#unwritten.splice(0), ...this.#queue.splice(0)];
    let written = this.#write(left);
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
      else w.reject(new McpError(McpErrorCode.StoreWriteFailed, `The audit log ${this.file} cannot be synced to disk: ${this.#problem ?? 'write failed'}`));
    }
    this.#wal?.close();
    this.#db.close();
    if (!written) throw new McpError(McpErrorCode.StoreWriteFailed, `${left.length} audit records could not be written before closing ${this.file}: ${this.#problem ?? 'write failed'}`);
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
      for (const p of batch) p.reject(new McpError(McpErrorCode.StoreWriteFailed, `The audit log cannot be written: ${this.#problem ?? 'an earlier write failed'}`));
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
        for (const p of batch) p.reject(new McpError(McpErrorCode.StoreWriteFailed, `The audit log ${this.file} cannot be synced to disk: ${this.#problem}`, { cause: error }));
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
      for (const p of batch) p.reject(new McpError(McpErrorCode.StoreWriteFailed, `The audit log cannot be written: ${this.#problem ?? 'an earlier write failed'}`));
      return;
    }
    if (!this.#write(batch)) {
      if (this.#retry === undefined) this.#scheduleRetry();
      return;
    }
    for (const p of batch) p.resolve(p.record as AuditRecord);
    this.#syncBatch();
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
    this.#writing = batch;
    try {
      this.#writeTransaction();
    } catch (error) {
      this.#problem = writeProblem(error);
      this.#unwritten.push(...batch);
      for (const p of batch) p.reject(new McpError(McpErrorCode.StoreWriteFailed, `The audit log ${this.file} cannot be written: ${this.#problem}`, { cause: error }));
      return false;
    } finally {
      this.#writing = NOTHING;
    }
    this.#seq = this.#writtenSeq;
    this.#commits++;
    return true;
  }

  /**
   * The body of {@link #writeTransaction}: chains and inserts {@link #writing}. `IMMEDIATE` took
   * the write lock first, and the chain continues from the last record on disk, so several
   * processes on one state folder (a gateway over HTTP and one over stdio) share it.
   */
  #writeRows(): void {
    const batch = this.#writing;
    const last = this.#last.get() as Row | undefined;
    let seq = last?.seq ?? 0;
    let head = last?.hash ?? AUDIT_GENESIS;
    // One statement per up to MAX_ROWS_PER_INSERT records: a group costs a few statement runs, not one per record.
    for (let from = 0; from < batch.length; from += MAX_ROWS_PER_INSERT) {
      const rows = Math.min(MAX_ROWS_PER_INSERT, batch.length - from);
      const values: (number | string)[] = [];
      for (let i = from; i < from + rows; i++) {
        const p = batch[i] as Pending;
        const row = chainRecord(p.entry, ++seq, head);
        head = row.hash;
        values.push(seq, row.line, head);
        p.record = row.record;
      }
      this.#insertOf(rows).run(...values);
    }
    this.#writtenSeq = seq;
  }

  /** The statement inserting `rows` records. */
  #insertOf(rows: number): Database.Statement<(number | string)[]> {
    let statement = this.#inserts[rows - 1];
    if (statement === undefined) {
      statement = this.#db.prepare(`INSERT INTO audit (seq, line, hash) VALUES ${Array.from({ length: rows }, () => '(?, ?, ?)').join(', ')}`);
      this.#inserts[rows - 1] = statement;
    }
    return statement;
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
      const records = this.#unwritten.splice(0);
      // Already rejected: a success now only records them (and syncs what an earlier sync may have missed).
      let ok = this.#write(records.map((p) => ({ entry: p.entry, resolve: () => undefined, reject: () => undefined })));
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

function writeProblem(error: unknown): string {
  const code = (error as { code?: unknown }).code;
  if (code === 'SQLITE_FULL') return 'disk full';
  if (typeof code === 'string' && code.startsWith('SQLITE_IOERR')) return `I/O error (${code})`;
  return describeError(error);
}
