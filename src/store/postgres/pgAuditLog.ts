/**
 * The shared audit log on PostgreSQL: ONE hash chain for every gateway instance.
 *
 * - **Design: a single chain, serialised on its head row.** Each write locks the one row of
 *   `audit_head` (`SELECT ... FOR UPDATE`), continues the chain from it, inserts its records
 *   and moves the head, in one transaction. The log stays one total order that
 *   `switchboard audit verify` checks exactly as it checks the SQLite file, and the head row
 *   also reveals records cut off the end. Per-instance chains anchored into a root would avoid
 *   the lock, but need an anchoring job, leave a window where an instance's tail is not yet
 *   anchored, and give no order across instances; with group commit the lock is held once per
 *   batch for a millisecond or two, far from being the limit at a thousand calls a second.
 * - **Group commit.** Appends queue; one batch is in flight per instance at a time, and the
 *   appends that arrive meanwhile form the next batch: one transaction per batch, not per
 *   call. Each append resolves only after its batch's COMMIT returned (`synchronous_commit` on
 *   for these transactions: the WAL is flushed), so an answer the caller got has its record.
 * - **Compact rows** (migration 5, as the SQLite log's schema 2): a row keeps its line without
 *   the arguments' digest (kept as bytes in `digest`) and without decisions decided once and
 *   recorded on many calls (kept once in `audit_decisions`, referred to by `decisions`); its
 *   `hash` is `''` (each hash is the next line's `prev`, the last one is `audit_head`'s). Reading
 *   restores the canonical text exactly; rows written before keep their whole line and hash.
 * - **Failures.** A batch that cannot be written rejects its appends with
 *   `ERR_MCP_STORE_UNAVAILABLE` (the audit interceptor withholds their answers) and keeps the
 *   records for a retry every `retryMs`; meanwhile `problem` says why and the interceptor refuses
 *   new requests. When the database is back the retry writes them and service resumes. (A
 *   connection lost during COMMIT leaves it unknown whether the batch was written; the retry
 *   then may record those requests twice, never zero times.)
 *
 * @module
 */
import type { AuditEntry, AuditLog, AuditReader, AuditRecord, AuditVerification } from '../../host/audit.js';
import { McpError, McpErrorCode } from '../../util/errors.js';
import { AUDIT_GENESIS, ChainVerifier, chainRecord, compactLine, fullLine, parseAuditRow, rowHash, withHash, type AuditRow, type ChainedRow } from '../auditChain.js';
import { storeUnavailable, type PgDatabase } from './pgDatabase.js';

/** Options of {@link PgAuditLog}. */
export interface PgAuditOptions {
  /** Retry interval after a failed write, in ms. Default 1000. */
  readonly retryMs?: number;
  /** Most records per transaction. Default 500. */
  readonly maxBatch?: number;
}

interface Pending {
  readonly entry: AuditEntry;
  readonly resolve: (record: AuditRecord) => void;
  readonly reject: (error: unknown) => void;
}

interface DbRow {
  readonly seq: string;
  readonly line: string;
  readonly hash: string;
  /** The digest's hex (`encode(digest, 'hex')`), when kept apart. */
  readonly digest: string | null;
  readonly decisions: string | null;
}

const PAGE = 5000;
/** The stored parts of a row, as {@link restore} reads them. */
const COLUMNS = "seq, line, hash, encode(digest, 'hex') AS digest, decisions";
/** Most decision texts kept once; past it a row holds its decisions whole (frozen decisions are few: this only bounds a surprise). */
const MAX_SHARED_DECISIONS = 4096;

/** The PostgreSQL audit log (see the module comment). */
export class PgAuditLog implements AuditLog, AuditReader {
  readonly #db: PgDatabase;
  readonly #retryMs: number;
  readonly #maxBatch: number;
  #queue: Pending[] = [];
  /** Records whose write failed (their appends were rejected), kept for the retry. */
  #unwritten: AuditEntry[] = [];
  #pumping: Promise<void> | undefined;
  #retry: ReturnType<typeof setTimeout> | undefined;
  #problem: string | undefined;
  #closed = false;
  #commits = 0;
  /** The decision texts kept once: by text (writing) and by id (reading); refilled from the table when one is missing. */
  #decisionIds = new Map<string, string>();
  #decisionTexts = new Map<string, string>();

  constructor(db: PgDatabase, options: PgAuditOptions = {}) {
    this.#db = db;
    this.#retryMs = options.retryMs ?? 1000;
    this.#maxBatch = options.maxBatch ?? 500;
  }

  get problem(): string | undefined {
    return this.#problem;
  }

  /** Transactions committed by this instance (one per batch of appends). */
  get commits(): number {
    return this.#commits;
  }

  append(entry: AuditEntry): Promise<AuditRecord> {
    if (this.#closed) return Promise.reject(new McpError(McpErrorCode.StoreWriteFailed, 'The PostgreSQL audit log is closed'));
    return new Promise((resolve, reject) => {
      this.#queue.push({ entry, resolve, reject });
      this.#kick();
    });
  }

  async read(options: { readonly from?: number; readonly limit?: number } = {}): Promise<AuditRecord[]> {
    const rows = await this.#db.query<DbRow>('reading the audit log', `SELECT ${COLUMNS} FROM audit WHERE seq >= $1 ORDER BY seq LIMIT $2`, [options.from ?? 1, options.limit ?? null]);
    return (await this.#restore(rows)).map(parseAuditRow);
  }

  async tail(count: number): Promise<AuditRecord[]> {
    const rows = await this.#db.query<DbRow>('reading the audit log', `SELECT ${COLUMNS} FROM audit ORDER BY seq DESC LIMIT $1`, [count]);
    return (await this.#restore(rows.reverse())).map(parseAuditRow);
  }

  /** Checks the whole cluster's chain (from the prune marker, when records were archived), up to the head as it was when the check began. */
  async verify(): Promise<AuditVerification> {
    const [head] = await this.#db.query<{ seq: string; hash: string }>('verifying the audit log', 'SELECT seq, hash FROM audit_head');
    const headSeq = Number(head?.seq ?? 0);
    const pruned = await this.pruned();
    const verifier = new ChainVerifier(pruned.seq > 0 ? pruned : undefined);
    let after = pruned.seq;
    let last: AuditRow | undefined;
    for (;;) {
      const rows = await this.#db.query<DbRow>('verifying the audit log', `SELECT ${COLUMNS} FROM audit WHERE seq > $1 AND seq <= $2 ORDER BY seq LIMIT $3`, [after, headSeq, PAGE]);
      for (const r of await this.#restore(rows)) verifier.add((last = r));
      if (rows.length < PAGE || last === undefined) break;
      after = last.seq;
    }
    if (head === undefined) verifier.problem(0, 'the head record of the chain is missing (deleted)');
    else if ((last?.seq ?? 0) !== headSeq || (last !== undefined && rowHash(last) !== head.hash)) {
      verifier.problem(headSeq, `the chain's head says record ${headSeq} is the last, but the log ends at ${last?.seq ?? 0}: records at the end were deleted or rewritten`);
    }
    return verifier.result();
  }

  /** The head of the chain: the last record's number and hash. */
  async head(): Promise<{ seq: number; hash: string }> {
    const [head] = await this.#db.query<{ seq: string; hash: string }>('reading the audit head', 'SELECT seq, hash FROM audit_head');
    return { seq: Number(head?.seq ?? 0), hash: head?.hash ?? AUDIT_GENESIS };
  }

  /** The prune marker: the last record archived and removed (0 and the genesis hash when none was). */
  async pruned(): Promise<{ seq: number; hash: string }> {
    const [marker] = await this.#db.query<{ seq: string; hash: string }>('reading the audit prune marker', 'SELECT seq, hash FROM audit_pruned');
    return marker !== undefined ? { seq: Number(marker.seq), hash: marker.hash } : { seq: 0, hash: AUDIT_GENESIS };
  }

  /** The rows from `from` to `to` (inclusive), oldest first, at most `limit`: each with its canonical line and its stored hash (`''` where the compact row keeps none: `rowHash`). */
  async rows(from: number, to: number, limit: number): Promise<AuditRow[]> {
    return (await this.#restore(await this.#db.query<DbRow>('reading the audit log', `SELECT ${COLUMNS} FROM audit WHERE seq >= $1 AND seq <= $2 ORDER BY seq LIMIT $3`, [from, to, limit])));
  }

  /**
   * Removes the records up to `upTo` (archived elsewhere) and moves the prune marker to it, in
   * one transaction, provided record `upTo` is still there with `hash` and is not the head.
   * Returns how many records were removed.
   */
  async prune(upTo: number, hash: string): Promise<number> {
    let removed = 0;
    await this.#db.transaction('pruning the audit log', async (client) => {
      // The marker's row lock serialises archivers; appends (the head's lock) are not held up.
      await client.query('INSERT INTO audit_pruned (seq, hash) VALUES (0, $1) ON CONFLICT (id) DO NOTHING', [AUDIT_GENESIS]);
      await client.query('SELECT seq FROM audit_pruned FOR UPDATE');
      const stored = (await client.query<DbRow>(`SELECT ${COLUMNS} FROM audit WHERE seq = $1`, [upTo])).rows;
      const [row] = (await this.#restore(stored)).map(withHash);
      if (row?.hash !== hash) throw new McpError(McpErrorCode.StoreCorrupt, `record ${upTo} is ${row === undefined ? 'not in the live log' : 'not the record archived (another hash)'}`);
      const head = (await client.query<{ seq: string }>('SELECT seq FROM audit_head')).rows[0];
      if (upTo >= Number(head?.seq ?? 0)) throw new McpError(McpErrorCode.StoreCorrupt, `record ${upTo} is the head of the chain; it stays in the live log`);
      removed = (await client.query('DELETE FROM audit WHERE seq <= $1', [upTo])).rowCount ?? 0;
      await client.query('UPDATE audit_pruned SET seq = $1, hash = $2', [upTo, hash]);
    });
    return removed;
  }

  /** Bytes the audit table takes (its indexes and TOAST included). */
  async usedBytes(): Promise<number> {
    const [size] = await this.#db.query<{ bytes: string }>('measuring the audit log', "SELECT pg_total_relation_size('audit') AS bytes");
    return Number(size?.bytes ?? 0);
  }

  /** Writes what is queued (waiting for the batch in flight); rejects when records stay unwritten. */
  async close(): Promise<void> {
    if (this.#closed) return;
    this.#closed = true;
    if (this.#retry !== undefined) clearTimeout(this.#retry);
    await this.#pumping;
    const left = [...this.#unwritten.splice(0), ...this.#queue.splice(0).map((p) => p.entry)];
    if (left.length === 0) return;
    try {
      await this.#write(left);
    } catch (error) {
      throw new McpError(McpErrorCode.StoreWriteFailed, `${left.length} audit records could not be written before closing: ${this.#problem ?? String(error)}`, { cause: error });
    }
  }

  /** Starts the writer unless it runs; appends of the same turn of the event loop join one batch. */
  #kick(): void {
    if (this.#pumping !== undefined || this.#closed) return;
    const run = new Promise<void>((done) => setImmediate(done)).then(() => this.#pump());
    this.#pumping = run;
    void run.finally(() => {
      this.#pumping = undefined;
      // Appends that arrived after the writer's last look wait for the next one.
      if (this.#queue.length > 0 && this.#unwritten.length === 0) this.#kick();
    });
  }

  async #pump(): Promise<void> {
    while (this.#queue.length > 0 && this.#unwritten.length === 0) {
      const batch = this.#queue.splice(0, this.#maxBatch);
      try {
        const records = await this.#write(batch.map((p) => p.entry));
        batch.forEach((p, i) => p.resolve(records[i] as AuditRecord));
      } catch (error) {
        this.#unwritten.push(...batch.map((p) => p.entry));
        for (const p of batch) p.reject(error);
        this.#scheduleRetry();
      }
    }
    if (this.#unwritten.length > 0) {
      // Earlier records first, or the chain would be out of order: these wait for the retry too.
      for (const p of this.#queue.splice(0)) {
        this.#unwritten.push(p.entry);
        p.reject(new McpError(McpErrorCode.StoreUnavailable, `The audit log cannot be written: ${this.#problem ?? 'an earlier write failed'}`));
      }
    }
  }

  /** One transaction for `entries`, chained after the head (see the module comment); resolves with their records. */
  async #write(entries: readonly AuditEntry[]): Promise<AuditRecord[]> {
    let records: AuditRecord[] = [];
    try {
      await this.#db.transaction('writing the audit log', async (client) => {
        await client.query('SET LOCAL synchronous_commit = on');
        const head = (await client.query<{ seq: string; hash: string }>('SELECT seq, hash FROM audit_head FOR UPDATE')).rows[0];
        if (head === undefined) throw new McpError(McpErrorCode.StoreCorrupt, 'the head record of the audit chain is missing');
        let seq = Number(head.seq);
        let prev = head.hash;
        const rows = entries.map((entry) => {
          const row = chainRecord(entry, ++seq, prev);
          prev = row.hash;
          return row;
        });
        records = rows.map((r) => r.record);
        // Decision texts new to this log are added (or found) in this transaction, after the head's lock: writers take them in one order.
        for (const row of rows) {
          const text = row.sharedDecisions;
          if (text === undefined || this.#decisionIds.has(text) || this.#decisionIds.size >= MAX_SHARED_DECISIONS) continue;
          const added = (await client.query<{ id: string }>('INSERT INTO audit_decisions (text) VALUES ($1) ON CONFLICT (text) DO UPDATE SET text = excluded.text RETURNING id', [text])).rows[0];
          if (added !== undefined) this.#remember(added.id, text);
        }
        const compact = rows.map((row) => this.#compact(row));
        await client.query("INSERT INTO audit (seq, line, hash, digest, decisions) SELECT s, l, '', decode(d, 'hex'), k FROM unnest($1::bigint[], $2::text[], $3::text[], $4::bigint[]) AS t(s, l, d, k)", [
          rows.map((r) => r.seq),
          compact.map((c) => c.line),
          compact.map((c) => c.digest),
          compact.map((c) => c.decisions),
        ]);
        await client.query('UPDATE audit_head SET seq = $1, hash = $2', [seq, prev]);
      });
    } catch (error) {
      // Texts added in a transaction that rolled back are gone: their ids are looked up again.
      this.#decisionIds = new Map();
      this.#decisionTexts = new Map();
      const failure = storeUnavailable('writing the audit log', error);
      this.#problem = failure.message;
      throw failure;
    }
    this.#commits++;
    this.#problem = undefined;
    return records;
  }

  /** The row as stored: its line without the digest and its shared decisions when they can be cut. */
  #compact(row: ChainedRow): CompactRow {
    const text = row.sharedDecisions;
    const id = text !== undefined ? this.#decisionIds.get(text) : undefined;
    const compact = compactLine(row, id !== undefined ? text : undefined);
    return { line: compact.line, digest: compact.digest ?? null, decisions: compact.decisions ? (id as string) : null };
  }

  #remember(id: string, text: string): void {
    this.#decisionIds.set(text, id);
    this.#decisionTexts.set(id, text);
  }

  /**
   * The rows with their canonical lines (digest and decisions put back). A reference to a text
   * that is not in `audit_decisions` reads as `decisions: null`: the record then fails its hash.
   */
  async #restore(rows: readonly DbRow[]): Promise<AuditRow[]> {
    if (rows.some((r) => r.decisions !== null && !this.#decisionTexts.has(r.decisions))) {
      for (const r of await this.#db.query<{ id: string; text: string }>('reading the audit log', 'SELECT id, text FROM audit_decisions')) this.#remember(r.id, r.text);
    }
    return rows.map((r) => ({
      seq: Number(r.seq),
      line: r.digest === null && r.decisions === null ? r.line : fullLine(r.line, r.digest ?? undefined, r.decisions === null ? undefined : (this.#decisionTexts.get(r.decisions) ?? 'null')),
      hash: r.hash,
    }));
  }

  #scheduleRetry(): void {
    if (this.#retry !== undefined || this.#closed) return;
    this.#retry = setTimeout(() => {
      this.#retry = undefined;
      const records = this.#unwritten.splice(0);
      this.#write(records).then(
        () => this.#kick(), // the queue waited behind these records
        () => {
          this.#unwritten.unshift(...records);
          this.#scheduleRetry();
        },
      );
    }, this.#retryMs);
    this.#retry.unref?.();
  }
}

/** A compact row's stored parts (see the module comment). */
interface CompactRow {
  readonly line: string;
  readonly digest: string | null;
  readonly decisions: string | null;
}
