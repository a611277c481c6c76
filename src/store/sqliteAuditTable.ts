/**
 * The SQLite side of the audit log (`sqliteAudit.ts`): the file (mode 0600 in a 0700 folder),
 * the schema, and every statement and transaction on it. Each write takes SQLite's write lock
 * (`BEGIN IMMEDIATE`) and continues the chain from the last record on disk, so processes
 * sharing a state folder keep one chain. Also the marks of the `batch` pending files
 * (`audit_pending`, see `auditPending.ts`) and the commit of what dead processes left in theirs.
 *
 * **Schema 2** (a version 1 file is migrated when opened, in place, without rewriting a row: a
 * column and a table are added). What is stored is what it takes to restore each record's
 * canonical text exactly and verify it, without repeating what the chain already holds:
 * - `hash` is kept for the last record of each write only (`''` for the others): every other
 *   record's hash is the `prev` in the line after it. The last one's stays for {@link head}
 *   and a naive edit of the tail; the verifier names an edited record either way.
 * - Decisions recorded on many calls (frozen ones: the policy's default allow) are kept once in
 *   `audit_decisions`; a row referring to one (`decisions`) holds its line without the
 *   `decisions` member, which reading puts back ({@link withDecisions}). What is hashed, read,
 *   exported and verified is the canonical text, unchanged.
 * Version 1 rows (every hash stored, every line whole) read and verify as they always did.
 *
 * @module
 */
import { chmodSync, closeSync, mkdirSync, openSync } from 'node:fs';
import { hostname } from 'node:os';
import { dirname, join } from 'node:path';
import Database from 'better-sqlite3';
import type { AuditEntry, AuditRecord, AuditVerification } from '../host/audit.js';
import { McpError, McpErrorCode, describeError } from '../util/errors.js';
import { AUDIT_GENESIS, ChainVerifier, chainRecord, parseAuditRow, compactLine, fullLine, rechainLine, sha256Text, withHash, type AuditRow, type ChainedRow } from './auditChain.js';
import { pendingFileNames, readPendingRows, removePendingFile, type AuditProcess } from './auditPending.js';

const SCHEMA_VERSION = 2;
/** Each schema version's change from the one before, applied in order (index = version - 1; see the module comment). */
const SCHEMA_STEPS: readonly string[] = [
  'CREATE TABLE audit (seq INTEGER PRIMARY KEY, line TEXT NOT NULL, hash TEXT NOT NULL) STRICT',
  'ALTER TABLE audit ADD COLUMN digest BLOB; ALTER TABLE audit ADD COLUMN decisions INTEGER; CREATE TABLE audit_decisions (id INTEGER PRIMARY KEY, text TEXT NOT NULL UNIQUE) STRICT',
];
/** Most records one `INSERT` statement writes (5 parameters each, well under SQLite's limit of 32766). */
const MAX_ROWS_PER_INSERT = 32;
/** Most decision texts kept once (`audit_decisions`); past it a row holds its decisions whole (frozen decisions are few: this only bounds a surprise). */
const MAX_SHARED_DECISIONS = 4096;

/** What a reference to a decision text that is not there reads as (`decisions: null`): the record then fails its hash, as edited. */
const MISSING_TEXT = 'null';

/** A row as stored (see the module comment). */
interface StoredRow {
  readonly seq: number;
  readonly line: string;
  readonly hash: string;
  /** Read back as a Buffer (better-sqlite3's blobs). */
  readonly digest: Buffer | null;
  readonly decisions: number | null;
}

/** The head of the chain: the last record's number and hash (0 and the genesis hash when empty). */
export interface ChainHead {
  readonly seq: number;
  readonly hash: string;
}

/** One line of a failed write, for `problem`: a full disk and I/O errors named as such. */
export function writeProblem(error: unknown): string {
  const code = (error as { code?: unknown }).code;
  if (code === 'SQLITE_FULL' || code === 'ENOSPC') return 'disk full';
  if (typeof code === 'string' && code.startsWith('SQLITE_IOERR')) return `I/O error (${code})`;
  return describeError(error);
}

/** The audit table of one database file (see the module comment). */
export class AuditTable {
  readonly file: string;
  /** Whether the database runs in WAL mode (then the log syncs the WAL itself after commits). */
  readonly wal: boolean;
  readonly #db: Database.Database;
  /** `INSERT` statements of 1 to {@link MAX_ROWS_PER_INSERT} rows, prepared on first use (index = rows - 1). */
  readonly #inserts: (Database.Statement<(number | string | null)[]> | undefined)[] = [];
  /** The decision texts kept once: by text (writing) and by id (reading); refilled from the table when one is missing. */
  #decisionIds = new Map<string, number>();
  #decisionTexts = new Map<number, string>();
  readonly #addDecisions: Database.Statement;
  readonly #decisionsTable: Database.Statement;
  readonly #last: Database.Statement;
  readonly #markCommitted: Database.Statement;
  /** A pending file's row: added before anything is written to the file, removed once it is fully committed. */
  readonly #register: Database.Statement;
  readonly #unregister: Database.Statement;
  readonly #writeGroup: (entries: readonly AuditEntry[]) => ChainedRow[];
  readonly #commitPending: (rows: readonly ChainedRow[], file: { readonly size: number; readonly name: string }) => ChainedRow;

  private constructor(file: string, db: Database.Database, wal: boolean) {
    this.file = file;
    this.#db = db;
    this.wal = wal;
    // Raw (an array, no object with named members) and only what a head needs: read at every write.
    this.#last = db.prepare('SELECT seq, hash FROM audit ORDER BY seq DESC LIMIT 1').raw(true);
    this.#addDecisions = db.prepare('INSERT INTO audit_decisions (text) VALUES (?) ON CONFLICT (text) DO UPDATE SET text = excluded.text RETURNING id');
    this.#decisionsTable = db.prepare('SELECT id, text FROM audit_decisions');
    this.#markCommitted = db.prepare('UPDATE audit_pending SET committed = ? WHERE name = ?');
    this.#register = db.prepare('INSERT INTO audit_pending (name, host, pid, committed) VALUES (?, ?, ?, 0)');
    this.#unregister = db.prepare('DELETE FROM audit_pending WHERE name = ?');
    this.#writeGroup = this.#forgettingOnFailure(db.transaction((entries: readonly AuditEntry[]) => this.#writeRows(entries)).immediate);
    this.#commitPending = this.#forgettingOnFailure(db.transaction((rows: readonly ChainedRow[], pending: { readonly size: number; readonly name: string }) => this.#commitRows(rows, pending)).immediate);
  }

  /**
   * Opens (creating when missing, with mode 0600 in a 0700 folder) the audit database `file`,
   * or `:memory:`; `maxBytes` bounds its size (reaching it reads as a full disk).
   *
   * @throws McpError `ERR_MCP_STORE_CORRUPT` when the file is not a usable audit database.
   */
  static open(file: string, maxBytes?: number): AuditTable {
    if (file !== ':memory:') {
      mkdirSync(dirname(file), { recursive: true, mode: 0o700 });
      closeSync(openSync(file, 'a', 0o600));
      chmodSync(file, 0o600);
    }
    let db: Database.Database | undefined;
    try {
      db = new Database(file);
      // In WAL mode commits are synced by the log (fdatasync of the WAL before any append of the group
      // resolves); where WAL is not available SQLite syncs at commit itself (FULL).
      const wal = db.pragma('journal_mode = WAL', { simple: true }) === 'wal' && file !== ':memory:';
      db.pragma(wal ? 'synchronous = NORMAL' : 'synchronous = FULL');
      migrate(db);
      // The pending files' marks (`batch`; see auditPending.ts). Not part of the chain, so no new schema version.
      db.exec('CREATE TABLE IF NOT EXISTS audit_pending (name TEXT PRIMARY KEY, host TEXT NOT NULL, pid INTEGER NOT NULL, committed INTEGER NOT NULL) STRICT');
      // The prune marker (`auditArchive.ts`): records up to `seq` were archived and removed; `hash` is record `seq`'s.
      db.exec('CREATE TABLE IF NOT EXISTS audit_pruned (id INTEGER PRIMARY KEY CHECK (id = 1), seq INTEGER NOT NULL, hash TEXT NOT NULL) STRICT');
      if (maxBytes !== undefined) {
        const pageSize = db.pragma('page_size', { simple: true }) as number;
        db.pragma(`max_page_count = ${Math.max(1, Math.ceil(maxBytes / pageSize))}`);
      }
      return new AuditTable(file, db, wal);
    } catch (error) {
      db?.close();
      throw new McpError(McpErrorCode.StoreCorrupt, `The audit log ${file} cannot be opened: ${describeError(error)}`, { cause: error });
    }
  }

  /** The head of the chain on disk: the last row (its hash is stored: it ends a write), or where every record was pruned, the prune marker (the chain continues from it). */
  head(): ChainHead {
    // Read at every write: only the number and the stored hash; the line only where no hash is stored.
    const last = this.#last.get() as [seq: number, hash: string] | undefined;
    if (last === undefined) return this.pruned();
    const [seq, hash] = last;
    if (hash !== '') return { seq, hash };
    const [row] = this.rows(seq, seq, 1);
    // (Gone between the two reads, outside a write's transaction: pruned meanwhile; read the head again.)
    return row !== undefined ? { seq, hash: sha256Text(row.line) } : this.head();
  }

  /** The prune marker: the last record archived and removed (0 and the genesis hash when none was). */
  pruned(): ChainHead {
    const marker = this.#db.prepare('SELECT seq, hash FROM audit_pruned WHERE id = 1').get() as ChainHead | undefined;
    return marker ?? { seq: 0, hash: AUDIT_GENESIS };
  }

  /** The rows from `from` to `to` (inclusive), oldest first, at most `limit`: each with its canonical line and its stored hash (`''` where the compact row keeps none: {@link rowHash}). */
  rows(from: number, to: number, limit: number): AuditRow[] {
    return (this.#db.prepare('SELECT seq, line, hash, digest, decisions FROM audit WHERE seq >= ? AND seq <= ? ORDER BY seq LIMIT ?').all(from, to, limit) as StoredRow[]).map((row) => this.#restore(row));
  }

  /**
   * Removes the records up to `upTo` (archived elsewhere) and moves the prune marker to it, in
   * one `IMMEDIATE` transaction, provided record `upTo` is still there with `hash` and is not
   * the last record (the head stays). Returns how many records were removed.
   *
   * @throws Error when record `upTo` is missing, has another hash, or is the head.
   */
  prune(upTo: number, hash: string): number {
    return this.#db
      .transaction(() => {
        const [stored] = this.rows(upTo, upTo, 1);
        const row = stored !== undefined ? withHash(stored) : undefined;
        if (row?.hash !== hash) throw new Error(`record ${upTo} is ${row === undefined ? 'not in the live log' : 'not the record archived (another hash)'}`);
        if (upTo >= this.head().seq) throw new Error(`record ${upTo} is the head of the chain; it stays in the live log`);
        const removed = this.#db.prepare('DELETE FROM audit WHERE seq <= ?').run(upTo).changes;
        this.#db.prepare('INSERT INTO audit_pruned (id, seq, hash) VALUES (1, ?, ?) ON CONFLICT (id) DO UPDATE SET seq = excluded.seq, hash = excluded.hash').run(upTo, hash);
        return removed;
      })
      .immediate();
  }

  /** Bytes the database's pages in use take (free pages left by removed records not counted). */
  usedBytes(): number {
    const pages = (this.#db.pragma('page_count', { simple: true }) as number) - (this.#db.pragma('freelist_count', { simple: true }) as number);
    return pages * (this.#db.pragma('page_size', { simple: true }) as number);
  }

  /**
   * Chains `entries` after the last record on disk and inserts them, in one `IMMEDIATE`
   * transaction (not yet synced); resolves nothing, returns the rows with their records.
   */
  writeGroup(entries: readonly AuditEntry[]): ChainedRow[] {
    return this.#writeGroup(entries);
  }

  #writeRows(entries: readonly AuditEntry[]): ChainedRow[] {
    let { seq, hash } = this.head();
    const rows: ChainedRow[] = [];
    for (const entry of entries) {
      const row = chainRecord(entry, ++seq, hash);
      hash = row.hash;
      rows.push(row);
    }
    this.#insertRows(rows);
    return rows;
  }

  /**
   * Commits a pending file's answered `rows` in one transaction with the file's `committed`
   * mark: as chained when the chain on disk still ends where they were chained from,
   * re-chained after its end when another writer has extended it meanwhile (then the appends
   * resolved with numbers the rows no longer have). Returns the last row as committed.
   */
  commitPending(rows: readonly ChainedRow[], file: { readonly size: number; readonly name: string }): ChainedRow {
    return this.#commitPending(rows, file);
  }

  #commitRows(pending: readonly ChainedRow[], file: { readonly size: number; readonly name: string }): ChainedRow {
    let rows = pending;
    const first = rows[0] as ChainedRow;
    const { seq, hash } = this.head();
    if (first.seq !== seq + 1 || first.record.prev !== hash) {
      let prev = hash;
      rows = rows.map((row, i) => {
        const moved = rechainLine(row.line, seq + 1 + i, prev);
        prev = moved.hash;
        return moved;
      });
    }
    this.#insertRows(rows);
    if (this.#markCommitted.run(file.size, file.name).changes !== 1) {
      throw new Error(`the pending file ${file.name} is no longer registered (another process took it over)`);
    }
    return rows[rows.length - 1] as ChainedRow;
  }

  /** Registers a pending file of process `pid` on this host (before anything is written to it). */
  register(name: string, pid: number): void {
    this.#register.run(name, hostname(), pid);
  }

  /** Removes a fully committed pending file's row. */
  unregister(name: string): void {
    this.#unregister.run(name);
  }

  /** Registers `name` and removes `old`'s row in one transaction (a large pending file replaced). */
  replaceRegistration(name: string, old: string, pid: number): void {
    this.#db
      .transaction(() => {
        this.register(name, pid);
        this.unregister(old);
      })
      .immediate();
  }

  /**
   * Commits the rows that processes which are gone left past their `committed` mark, re-chained
   * at the end where the chain has moved on, and removes their files and rows; removes files
   * that have no row (fully committed). A process counts as gone when it ran on this host (by
   * name) and its pid is not running, or is this process's pid without the file being open
   * here (`open`: a restart that got the same pid). Throws when a file cannot be read or committed.
   */
  recoverPeers(me: AuditProcess, open: ReadonlySet<string>): void {
    const rows = this.#db.prepare('SELECT name, host, pid, committed FROM audit_pending').all() as { name: string; host: string; pid: number; committed: number }[];
    const dir = dirname(this.file);
    const registered = new Set(rows.map((r) => r.name));
    for (const name of pendingFileNames(this.file)) if (!registered.has(name) && !open.has(join(dir, name))) removePendingFile(join(dir, name));
    const here = hostname();
    for (const row of rows) {
      const path = join(dir, row.name);
      if (open.has(path) || row.host !== here || (row.pid !== me.pid && me.isRunning(row.pid))) continue;
      try {
        const lines = readPendingRows(path, row.committed);
        this.#db.transaction(() => {
          let { seq, hash } = this.head();
          const chained: AuditRow[] = [];
          for (const line of lines) {
            const parsed = JSON.parse(line) as { seq?: unknown; prev?: unknown };
            // A row continues the chain at its own number when nothing was written since; else it is re-chained.
            const next = parsed.seq === seq + 1 && parsed.prev === hash ? { seq: seq + 1, line, hash: sha256Text(line) } : rechainLine(line, seq + 1, hash);
            seq = next.seq;
            hash = next.hash;
            chained.push(next);
          }
          this.#insertRows(chained);
          this.unregister(row.name);
        }).immediate();
      } catch (error) {
        throw new McpError(McpErrorCode.StoreWriteFailed, `The audit log ${this.file} holds answered records in ${row.name} that cannot be committed: ${writeProblem(error)}`, { cause: error });
      }
      removePendingFile(path);
    }
  }

  /** Records from `from` on (default 1), at most `limit` (default all). */
  read(from = 1, limit = -1): AuditRecord[] {
    return (this.#db.prepare('SELECT seq, line, hash, digest, decisions FROM audit WHERE seq >= ? ORDER BY seq LIMIT ?').all(from, limit) as StoredRow[]).map((row) => parseAuditRow(this.#restore(row)));
  }

  /** The newest `count` records, oldest first. */
  tail(count: number): AuditRecord[] {
    return (this.#db.prepare('SELECT seq, line, hash, digest, decisions FROM audit ORDER BY seq DESC LIMIT ?').all(count) as StoredRow[]).reverse().map((row) => parseAuditRow(this.#restore(row)));
  }

  /** Re-computes every hash and link of the chain (from the prune marker, when records were archived). */
  verify(): AuditVerification {
    const pruned = this.pruned();
    const verifier = new ChainVerifier(pruned.seq > 0 ? pruned : undefined);
    for (const row of this.#db.prepare('SELECT seq, line, hash, digest, decisions FROM audit ORDER BY seq').iterate() as IterableIterator<StoredRow>) verifier.add(this.#restore(row));
    return verifier.result();
  }

  /**
   * The row with its canonical line (its digest and decisions put back). A reference to a text
   * that is not in `audit_decisions` gives a line that fails its hash (verify says edited).
   */
  #restore(row: StoredRow): AuditRow {
    if (row.decisions === null && row.digest === null) return row;
    const text = row.decisions === null ? undefined : (this.#decisionTexts.get(row.decisions) ?? (this.#loadDecisions(), this.#decisionTexts.get(row.decisions)) ?? MISSING_TEXT);
    return { seq: row.seq, line: fullLine(row.line, row.digest?.toString('hex'), text), hash: row.hash };
  }

  /** Reads `audit_decisions` into the maps (another process may have added texts). */
  #loadDecisions(): void {
    this.#decisionIds = new Map();
    this.#decisionTexts = new Map();
    for (const { id, text } of this.#decisionsTable.all() as { id: number; text: string }[]) {
      this.#decisionIds.set(text, id);
      this.#decisionTexts.set(id, text);
    }
  }

  /** The id of a decision text kept once, added in the write's transaction when new; undefined past {@link MAX_SHARED_DECISIONS}. */
  #decisionId(text: string): number | undefined {
    const known = this.#decisionIds.get(text);
    if (known !== undefined || this.#decisionIds.size >= MAX_SHARED_DECISIONS) return known;
    const { id } = this.#addDecisions.get(text) as { id: number };
    this.#decisionIds.set(text, id);
    this.#decisionTexts.set(id, text);
    return id;
  }

  /** `write` whose failure (the transaction rolled back) also forgets the decision ids: ids it added are gone with it. */
  #forgettingOnFailure<A extends unknown[], R>(write: (...args: A) => R): (...args: A) => R {
    return (...args) => {
      try {
        return write(...args);
      } catch (error) {
        this.#loadDecisionsAfterFailure();
        throw error;
      }
    };
  }

  #loadDecisionsAfterFailure(): void {
    try {
      this.#loadDecisions();
    } catch {
      // The database cannot be read now: start empty (ids are looked up again, in the write's transaction).
      this.#decisionIds = new Map();
      this.#decisionTexts = new Map();
    }
  }

  /** Closes the database. */
  close(): void {
    this.#db.close();
  }

  /**
   * Inserts chained rows, one statement per up to {@link MAX_ROWS_PER_INSERT}: a group costs a
   * few statement runs, not one per record. Stored as the module comment says: the hash of the
   * last row only, the arguments' digest as bytes, shared decisions by reference.
   */
  #insertRows(rows: readonly (AuditRow | ChainedRow)[]): void {
    const last = rows.length - 1;
    for (let from = 0; from < rows.length; from += MAX_ROWS_PER_INSERT) {
      const count = Math.min(MAX_ROWS_PER_INSERT, rows.length - from);
      // Sized once (no growth while it fills): five values a row.
      const values = new Array<number | string | null>(count * 5);
      let at = 0;
      for (let i = from; i < from + count; i++) {
        const row = rows[i] as AuditRow | ChainedRow;
        values[at++] = row.seq;
        if (!('memberwise' in row)) {
          values[at++] = row.line;
          values[at++] = i === last ? row.hash : '';
          values[at++] = null;
          values[at++] = null;
          continue;
        }
        const shared = row.sharedDecisions;
        const id = shared !== undefined ? this.#decisionId(shared) : undefined;
        const compact = compactLine(row, id !== undefined ? shared : undefined);
        values[at++] = compact.line;
        values[at++] = i === last ? row.hash : '';
        values[at++] = compact.digest ?? null;
        values[at++] = compact.decisions ? (id as number) : null;
      }
      this.#insertOf(count).run(...values);
    }
  }

  /** The statement inserting `rows` records. */
  #insertOf(rows: number): Database.Statement<(number | string | null)[]> {
    let statement = this.#inserts[rows - 1];
    if (statement === undefined) {
      statement = this.#db.prepare<(number | string | null)[]>(`INSERT INTO audit (seq, line, hash, digest, decisions) VALUES ${Array.from({ length: rows }, () => '(?, ?, ?, unhex(?), ?)').join(', ')}`);
      this.#inserts[rows - 1] = statement;
    }
    return statement;
  }
}

/**
 * Brings `db` to {@link SCHEMA_VERSION} (a new file from nothing), each step and the version in
 * one transaction (another process opening the same file waits, then finds it done). A file
 * already at the version is only read (no write lock taken).
 *
 * @throws Error when the file's version is unknown or its audit table is missing.
 */
function migrate(db: Database.Database): void {
  const state = (): { version: number; table: boolean } => {
    const version = db.pragma('user_version', { simple: true }) as number;
    const table = db.prepare("SELECT name FROM sqlite_master WHERE type = 'table' AND name = 'audit'").all().length > 0;
    if (!table && version !== 0) throw new Error(`user_version is ${version} but the audit table is missing`);
    if (table && (version < 1 || version > SCHEMA_VERSION)) throw new Error(`unknown audit schema version ${version}`);
    return { version, table };
  };
  const now = state();
  if (now.table && now.version === SCHEMA_VERSION) return;
  db.transaction(() => {
    const { version, table } = state();
    for (let v = table ? version : 0; v < SCHEMA_VERSION; v++) db.exec(SCHEMA_STEPS[v] as string);
    if (version !== SCHEMA_VERSION) db.pragma(`user_version = ${SCHEMA_VERSION}`);
  }).immediate();
}
