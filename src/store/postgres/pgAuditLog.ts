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
import { AUDIT_GENESIS, ChainVerifier, chainRecord, parseAuditRow, type AuditRow } from '../auditChain.js';
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
}

const PAGE = 5000;

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
    const rows = await this.#db.query<DbRow>('reading the audit log', 'SELECT seq, line, hash FROM audit WHERE seq >= $1 ORDER BY seq LIMIT $2', [options.from ?? 1, options.limit ?? null]);
    return rows.map((r) => parseAuditRow(toRow(r)));
  }

  async tail(count: number): Promise<AuditRecord[]> {
    const rows = await this.#db.query<DbRow>('reading the audit log', 'SELECT seq, line, hash FROM audit ORDER BY seq DESC LIMIT $1', [count]);
    return rows.reverse().map((r) => parseAuditRow(toRow(r)));
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
      const rows = await this.#db.query<DbRow>('verifying the audit log', 'SELECT seq, line, hash FROM audit WHERE seq > $1 AND seq <= $2 ORDER BY seq LIMIT $3', [after, headSeq, PAGE]);
      for (const r of rows) verifier.add((last = toRow(r)));
      if (rows.length < PAGE || last === undefined) break;
      after = last.seq;
    }
    if (head === undefined) verifier.problem(0, 'the head record of the chain is missing (deleted)');
    else if ((last?.seq ?? 0) !== headSeq || (last !== undefined && last.hash !== head.hash)) {
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

  /** The stored rows from `from` to `to` (inclusive), oldest first, at most `limit`. */
  async rows(from: number, to: number, limit: number): Promise<AuditRow[]> {
    return (await this.#db.query<DbRow>('reading the audit log', 'SELECT seq, line, hash FROM audit WHERE seq >= $1 AND seq <= $2 ORDER BY seq LIMIT $3', [from, to, limit])).map(toRow);
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
      const row = (await client.query<{ hash: string }>('SELECT hash FROM audit WHERE seq = $1', [upTo])).rows[0];
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
        await client.query('INSERT INTO audit (seq, line, hash) SELECT * FROM unnest($1::bigint[], $2::text[], $3::text[])', [rows.map((r) => r.seq), rows.map((r) => r.line), rows.map((r) => r.hash)]);
        await client.query('UPDATE audit_head SET seq = $1, hash = $2', [seq, prev]);
      });
    } catch (error) {
      const failure = storeUnavailable('writing the audit log', error);
      this.#problem = failure.message;
      throw failure;
    }
    this.#commits++;
    this.#problem = undefined;
    return records;
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

function toRow(r: DbRow): AuditRow {
  return { seq: Number(r.seq), line: r.line, hash: r.hash };
}
