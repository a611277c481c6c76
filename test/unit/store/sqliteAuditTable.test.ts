// The SQLite audit log's storage (src/store/sqliteAuditTable.ts, schema 2): what each row keeps
// (the hash of a write's last record only, the arguments' digest as bytes, frozen decisions once),
// that reading restores the canonical text exactly, that a version 1 file (as the previous release
// wrote it) is migrated in place and keeps verifying, and that tampering with any stored part
// (a line, a digest, a shared decision text, a reference to one) is found and named.
import assert from 'node:assert/strict';
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { after, before, describe, it } from 'node:test';
import Database from 'better-sqlite3';
import type { AuditEntry, AuditRecord, AuditVerification } from '../../../src/host/audit.js';
import type { Decision } from '../../../src/host/interceptors.js';
import { AUDIT_GENESIS, chainRecord } from '../../../src/store/auditChain.js';
import { THIS_PROCESS } from '../../../src/cli/auditFiles.js';
import { SqliteAuditLog } from '../../../src/store/sqliteAudit.js';
import { canonicalize } from '../../../src/util/canonicalJson.js';
import { isMcpError } from '../../../src/util/errors.js';

const TIMEOUT = { timeout: 20_000 };
let dir: string;
let n = 0;
before(async () => {
  dir = await mkdtemp(join(tmpdir(), 'sb-audit-table-'));
});
after(async () => {
  await rm(dir, { recursive: true, force: true });
});
const fresh = (): string => join(dir, `audit-${++n}.db`);

/** The policy's default allow as the policy records it: one frozen object on every call. */
const DEFAULT_ALLOW: Decision = Object.freeze({ interceptor: 'policy', outcome: 'allow', detail: Object.freeze({ rule: 'default', reasons: Object.freeze([]) }) });

function entry(i: number, decisions: readonly Decision[] = [DEFAULT_ALLOW]): AuditEntry {
  return { time: new Date(1_700_000_000_000 + i).toISOString(), kind: 'request', method: 'tools/call', principal: 'alice', server: 'fs', name: `tool${i}`, arguments: { i }, decisions, outcome: 'ok', latencyMs: 1.5 };
}

interface RawRow {
  seq: number;
  line: string;
  hash: string;
  digest: Buffer | null;
  decisions: number | null;
}

function rawRows(file: string): RawRow[] {
  const db = new Database(file, { readonly: true });
  try {
    return db.prepare('SELECT seq, line, hash, digest, decisions FROM audit ORDER BY seq').all() as RawRow[];
  } finally {
    db.close();
  }
}

function tamper(file: string, sql: string, ...params: unknown[]): void {
  const db = new Database(file);
  db.prepare(sql).run(...params);
  db.close();
}

/** `count` records appended at once (one write), closed; the records the appends resolved with. */
async function written(file: string, count: number, decisions?: readonly Decision[]): Promise<AuditRecord[]> {
  const log = SqliteAuditLog.open(file);
  const records = await Promise.all(Array.from({ length: count }, (_, i) => log.append(entry(i + 1, decisions))));
  await log.close();
  return records;
}

/** What `audit verify` would say of `file` (opened, verified, closed). */
async function verify(file: string): Promise<AuditVerification> {
  const log = SqliteAuditLog.open(file);
  const report = log.verify();
  await log.close();
  return report;
}

/** A version 1 file as the previous release wrote it: every line whole, every hash stored. */
function versionOneFile(file: string, count: number): { line: string; hash: string }[] {
  const db = new Database(file);
  db.exec('CREATE TABLE audit (seq INTEGER PRIMARY KEY, line TEXT NOT NULL, hash TEXT NOT NULL) STRICT');
  db.exec('CREATE TABLE audit_pending (name TEXT PRIMARY KEY, host TEXT NOT NULL, pid INTEGER NOT NULL, committed INTEGER NOT NULL) STRICT');
  db.pragma('user_version = 1');
  const rows: { line: string; hash: string }[] = [];
  let prev = AUDIT_GENESIS;
  for (let seq = 1; seq <= count; seq++) {
    const row = chainRecord(entry(seq), seq, prev);
    db.prepare('INSERT INTO audit (seq, line, hash) VALUES (?, ?, ?)').run(seq, row.line, row.hash);
    rows.push({ line: row.line, hash: row.hash });
    prev = row.hash;
  }
  db.close();
  return rows;
}

describe('store/sqliteAuditTable: what a row keeps', () => {
  it('keeps the hash of each write\'s last record only, the digest as 32 bytes and a frozen decision once; reading restores the records exactly', TIMEOUT, async () => {
    const file = fresh();
    const appended = await written(file, 10);
    const rows = rawRows(file);
    assert.deepEqual(rows.map((r) => r.hash === ''), [...Array<boolean>(9).fill(true), false]);
    assert.equal(rows[9]?.hash, appended[9]?.hash);
    for (const [i, row] of rows.entries()) {
      assert.equal(row.digest?.length, 32);
      assert.equal(`sha256:${row.digest.toString('hex')}`, appended[i]?.argumentsDigest);
      assert.equal(row.line.includes('argumentsDigest'), false);
      assert.equal(row.line.includes('"decisions"'), false);
      assert.equal(row.decisions, rows[0]?.decisions);
    }
    const db = new Database(file, { readonly: true });
    const texts = db.prepare('SELECT text FROM audit_decisions').all() as { text: string }[];
    db.close();
    assert.deepEqual(texts, [{ text: canonicalize([DEFAULT_ALLOW]) }]);
    const log = SqliteAuditLog.open(file);
    assert.deepEqual(log.read(), appended);
    assert.deepEqual(log.tail(3), appended.slice(7));
    assert.deepEqual(log.verify(), { ok: true, records: 10, head: appended[9]?.hash, problems: [] });
    await log.close();
  });

  it('stores decisions that are not frozen whole, in the line (they may differ on every call)', TIMEOUT, async () => {
    const file = fresh();
    const appended = await written(file, 3, [{ interceptor: 'policy', outcome: 'allow', detail: { rule: 'default', reasons: [] } }]);
    for (const row of rawRows(file)) {
      assert.equal(row.decisions, null);
      assert.match(row.line, /"decisions":\[\{"detail"/);
    }
    const log = SqliteAuditLog.open(file);
    assert.deepEqual(log.read(), appended);
    await log.close();
  });

  it('each write ends with a stored hash: three writes keep three', TIMEOUT, async () => {
    const file = fresh();
    const log = SqliteAuditLog.open(file);
    for (let w = 0; w < 3; w++) await Promise.all([1, 2, 3].map((i) => log.append(entry(w * 3 + i))));
    await log.close();
    assert.deepEqual(rawRows(file).filter((r) => r.hash !== '').map((r) => r.seq), [3, 6, 9]);
    assert.equal((await verify(file)).ok, true);
  });

  it('a last row without a stored hash: the chain continues from its line\'s hash (the head reads the line only then)', TIMEOUT, async () => {
    const file = fresh();
    const first = await written(file, 3);
    tamper(file, "UPDATE audit SET hash = '' WHERE seq = 3");
    const log = SqliteAuditLog.open(file);
    const next = await log.append(entry(4));
    await log.close();
    assert.equal(next.seq, 4);
    assert.equal(next.prev, first[2]?.hash);
    assert.equal((await verify(file)).ok, true);
  });
});

describe('store/sqliteAuditTable: several writers, and batch durability', () => {
  it('two logs on one file share one decision text: each reads the other\'s rows, and the chain verifies', TIMEOUT, async () => {
    const file = fresh();
    const a = SqliteAuditLog.open(file);
    const b = SqliteAuditLog.open(file);
    const first = await a.append(entry(1));
    // b learnt no id when it opened: it finds the text a added when it reads, and the same id when it writes.
    assert.deepEqual(b.read(), [first]);
    const second = await b.append(entry(2));
    const third = await a.append(entry(3));
    assert.deepEqual(a.read(), [first, second, third]);
    assert.equal(b.verify().ok, true);
    await a.close();
    await b.close();
    const db = new Database(file, { readonly: true });
    assert.equal((db.prepare('SELECT count(*) AS n FROM audit_decisions').get() as { n: number }).n, 1);
    db.close();
    assert.deepEqual([...new Set(rawRows(file).map((r) => r.decisions))].length, 1);
  });

  it('batch durability (rows answered from the pending file, committed later) stores the committed rows compact too', TIMEOUT, async () => {
    const file = fresh();
    const log = SqliteAuditLog.open(file, { durability: 'batch', process: THIS_PROCESS });
    const appended = await Promise.all([1, 2, 3, 4].map((i) => log.append(entry(i))));
    await log.synced();
    await log.close();
    const rows = rawRows(file);
    assert.deepEqual(rows.map((r) => [r.digest?.length, r.decisions !== null]), Array.from({ length: 4 }, () => [32, true]));
    assert.equal(rows[3]?.hash, appended[3]?.hash);
    const reader = SqliteAuditLog.open(file);
    assert.deepEqual(reader.read(), appended);
    assert.equal(reader.verify().ok, true);
    await reader.close();
  });
});

describe('store/sqliteAuditTable: a version 1 file', () => {
  it('is migrated in place when opened (no row rewritten), reads and verifies as before, and its chain continues in the new form', TIMEOUT, async () => {
    const file = fresh();
    const old = versionOneFile(file, 5);
    const log = SqliteAuditLog.open(file);
    assert.deepEqual(log.verify(), { ok: true, records: 5, head: old[4]?.hash, problems: [] });
    assert.deepEqual(log.read().map((r) => r.hash), old.map((r) => r.hash));
    const more = await Promise.all([6, 7, 8].map((i) => log.append(entry(i))));
    assert.equal(more[0]?.prev, old[4]?.hash);
    const report = log.verify();
    await log.close();
    assert.deepEqual(report, { ok: true, records: 8, head: more[2]?.hash, problems: [] });
    const db = new Database(file, { readonly: true });
    assert.equal(db.pragma('user_version', { simple: true }), 2);
    db.close();
    const rows = rawRows(file);
    // The old rows as they were: whole lines, every hash; the new ones compact.
    assert.deepEqual(rows.slice(0, 5).map((r) => ({ line: r.line, hash: r.hash, digest: r.digest, decisions: r.decisions })), old.map((r) => ({ ...r, digest: null, decisions: null })));
    assert.deepEqual(rows.slice(5).map((r) => [r.hash !== '', r.digest?.length, r.decisions !== null]), [[false, 32, true], [false, 32, true], [true, 32, true]]);
  });

  it('an old row edited after the migration is found and named (its stored hash)', TIMEOUT, async () => {
    const file = fresh();
    versionOneFile(file, 4);
    await SqliteAuditLog.open(file).close();
    tamper(file, "UPDATE audit SET line = replace(line, '\"outcome\":\"ok\"', '\"outcome\":\"denied\"') WHERE seq = 2");
    assert.deepEqual((await verify(file)).problems.map((p) => [p.seq, p.problem]), [[2, 'the record does not match its hash (edited)']]);
  });

  it('a file of a later version is ERR_MCP_STORE_CORRUPT naming the version (never read as ours)', TIMEOUT, () => {
    const file = fresh();
    versionOneFile(file, 1);
    tamper(file, 'PRAGMA user_version = 3');
    assert.throws(() => SqliteAuditLog.open(file), (e: unknown) => isMcpError(e) && e.code === 'ERR_MCP_STORE_CORRUPT' && /schema version 3/.test(e.message));
  });
});

describe('store/sqliteAuditTable: tampering with a stored part is found', () => {
  it('an edited record whose hash is not stored is named (the next record holds its hash as prev)', TIMEOUT, async () => {
    const file = fresh();
    await written(file, 5);
    tamper(file, "UPDATE audit SET line = replace(line, '\"outcome\":\"ok\"', '\"outcome\":\"denied\"') WHERE seq = 3");
    assert.deepEqual((await verify(file)).problems.map((p) => [p.seq, p.problem]), [[3, 'the record does not match its hash (edited)']]);
  });

  it('an edited last record (its hash stored) is named', TIMEOUT, async () => {
    const file = fresh();
    await written(file, 5);
    tamper(file, "UPDATE audit SET line = replace(line, '\"outcome\":\"ok\"', '\"outcome\":\"denied\"') WHERE seq = 5");
    assert.deepEqual((await verify(file)).problems.map((p) => [p.seq, p.problem]), [[5, 'the record does not match its hash (edited)']]);
  });

  it('a digest swapped in its column is found at its record', TIMEOUT, async () => {
    const file = fresh();
    await written(file, 4);
    tamper(file, 'UPDATE audit SET digest = (SELECT digest FROM audit WHERE seq = 1) WHERE seq = 2');
    assert.deepEqual((await verify(file)).problems.map((p) => p.seq), [2]);
  });

  it('a shared decision text rewritten (allow made deny) fails every record that refers to it', TIMEOUT, async () => {
    const file = fresh();
    await written(file, 4);
    tamper(file, "UPDATE audit_decisions SET text = replace(text, '\"allow\"', '\"deny\"')");
    const report = await verify(file);
    assert.equal(report.ok, false);
    // Every record changed: each link from 2 on is broken (record 1, whose hash is not stored, by the link at 2).
    assert.deepEqual([...new Set(report.problems.map((p) => p.seq))].sort(), [2, 3, 4]);
    assert.ok(report.problems.some((p) => p.seq === 2 && /link to the previous record is broken/.test(p.problem)), JSON.stringify(report.problems));
  });

  it('a reference to a decision text that is not there is an edited record, not a crash', TIMEOUT, async () => {
    const file = fresh();
    await written(file, 4);
    tamper(file, 'UPDATE audit SET decisions = 999 WHERE seq = 2');
    const report = await verify(file);
    assert.deepEqual(report.problems.map((p) => [p.seq, p.problem]), [[2, 'the record does not match its hash (edited)']]);
  });

  it('a record moved to another row keeps being found (numbered otherwise, link broken), not blamed on its neighbour', TIMEOUT, async () => {
    const file = fresh();
    await written(file, 5);
    tamper(file, 'UPDATE audit SET seq = 100 WHERE seq = 2');
    tamper(file, 'UPDATE audit SET seq = 2 WHERE seq = 3');
    tamper(file, 'UPDATE audit SET seq = 3 WHERE seq = 100');
    const report = await verify(file);
    assert.equal(report.ok, false);
    assert.equal(report.problems.some((p) => p.seq === 1), false, JSON.stringify(report.problems));
    assert.ok(report.problems.some((p) => p.seq === 2 && /says it is number 3/.test(p.problem)), JSON.stringify(report.problems));
  });
});
