import assert from 'node:assert/strict';
import { mkdtemp, readFile, rm, stat, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { spawn, type ChildProcess } from 'node:child_process';
import { createHash } from 'node:crypto';
import { readdirSync } from 'node:fs';
import { basename, join } from 'node:path';
import { after, before, describe, it } from 'node:test';
import Database from 'better-sqlite3';
import type { AuditEntry, AuditRecord } from '../../../src/host/audit.js';
import { AUDIT_GENESIS, SqliteAuditLog } from '../../../src/store/sqliteAudit.js';
import { canonicalize } from '../../../src/util/canonicalJson.js';
import { isMcpError } from '../../../src/util/errors.js';
import { THIS_PROCESS } from '../../../src/cli/auditFiles.js';

let dir: string;
before(async () => {
  dir = await mkdtemp(join(tmpdir(), 'sb-audit-'));
});
after(async () => {
  await rm(dir, { recursive: true, force: true });
});

let n = 0;
const fresh = (): string => join(dir, `audit-${++n}.db`);
/** `sha256:` of the canonical text of a small flat object of numbers (the arguments in these tests). */
const digestOf = (args: Record<string, number>): string => `sha256:${createHash('sha256').update(JSON.stringify(args)).digest('hex')}`;
/** The pending files (`batch`) beside the database `file`. */
const pendingFilesOf = (file: string): string[] => readdirSync(dir).filter((name) => name.startsWith(`${basename(file)}-pending-`));
/** The one pending file of `file`. */
function pendingNameOf(file: string): string {
  const [name, ...more] = pendingFilesOf(file);
  assert.ok(name !== undefined && more.length === 0, `pending files: ${String(name)} ${more.join(' ')}`);
  return name;
}

function entry(i: number, extra: Partial<AuditEntry> = {}): AuditEntry {
  return { time: new Date(1_700_000_000_000 + i).toISOString(), kind: 'request', method: 'tools/call', server: 'fs', name: `tool${i}`, arguments: { i }, decisions: [], outcome: 'ok', latencyMs: 1, ...extra };
}

/** A log with `count` records, closed; returns its file. */
async function written(count: number): Promise<string> {
  const file = fresh();
  const log = SqliteAuditLog.open(file);
  await Promise.all(Array.from({ length: count }, (_, i) => log.append(entry(i + 1))));
  await log.close();
  return file;
}

/** Runs `sql` on the file directly, as someone with access to the disk would. */
function tamper(file: string, sql: string, ...params: unknown[]): void {
  const db = new Database(file);
  db.prepare(sql).run(...params);
  db.close();
}

function verify(file: string) {
  const log = SqliteAuditLog.open(file);
  try {
    return log.verify();
  } finally {
    void log.close();
  }
}

describe('store/sqliteAudit: the hash chain', () => {
  it('numbers records from 1, links each to the previous hash, and verifies intact', async () => {
    const file = await written(5);
    const log = SqliteAuditLog.open(file);
    const records = log.read();
    assert.deepEqual(records.map((r) => r.seq), [1, 2, 3, 4, 5]);
    assert.equal(records[0]?.prev, AUDIT_GENESIS);
    for (let i = 1; i < records.length; i++) assert.equal(records[i]?.prev, records[i - 1]?.hash);
    const report = log.verify();
    assert.deepEqual(report, { ok: true, records: 5, head: records[4]?.hash, problems: [] });
    assert.deepEqual(log.tail(2).map((r) => r.seq), [4, 5]);
    assert.deepEqual(log.read({ from: 3, limit: 1 }).map((r) => r.seq), [3]);
    await log.close();
  });

  it('group commit: appends made together share one transaction, and each resolves after it', async () => {
    const log = SqliteAuditLog.open(fresh());
    const records = await Promise.all(Array.from({ length: 100 }, (_, i) => log.append(entry(i + 1))));
    assert.equal(log.commits, 1);
    assert.equal(log.size, 100);
    // Written several records per statement: every one stored, in order, as its append resolved.
    assert.deepEqual(log.read(), records);
    assert.equal(log.verify().ok, true);
    await log.append(entry(101));
    assert.equal(log.commits, 2);
    await log.close();
  });

  it('group commit without timers: appends arriving while a group is being synced form the next group', async () => {
    const log = SqliteAuditLog.open(fresh());
    const first = log.append(entry(1));
    // A lone append waits one turn (nothing else arrives in it); the group is then written and its sync started.
    await new Promise<void>((resolve) => setImmediate(resolve));
    assert.equal(log.commits, 0);
    await new Promise<void>((resolve) => setImmediate(resolve));
    assert.equal(log.commits, 1);
    const rest = Array.from({ length: 50 }, (_, i) => log.append(entry(i + 2)));
    await Promise.all([first, ...rest]);
    assert.equal(log.commits, 2);
    assert.equal(log.size, 51);
    assert.equal(log.verify().ok, true);
    await log.close();
  });

  it('close while a group is being synced: every append resolves and every record is kept', async () => {
    const file = fresh();
    const log = SqliteAuditLog.open(file);
    const first = log.append(entry(1));
    await new Promise<void>((resolve) => setImmediate(resolve));
    const second = log.append(entry(2));
    await log.close();
    await Promise.all([first, second]);
    const reopened = SqliteAuditLog.open(file);
    assert.deepEqual([reopened.verify().ok, reopened.size], [true, 2]);
    await reopened.close();
  });

  it('two processes on one state folder (gateway over HTTP and over stdio) keep one chain', async () => {
    const file = fresh();
    const a = SqliteAuditLog.open(file);
    const b = SqliteAuditLog.open(file);
    for (let i = 0; i < 5; i++) await Promise.all([a.append(entry(i * 2)), b.append(entry(i * 2 + 1))]);
    const report = a.verify();
    assert.deepEqual([report.ok, report.records], [true, 10]);
    await a.close();
    await b.close();
  });

  it('continues the chain after a reopen', async () => {
    const file = await written(2);
    const log = SqliteAuditLog.open(file);
    await log.append(entry(3));
    assert.equal(log.verify().ok, true);
    assert.equal(log.size, 3);
    await log.close();
  });

  it('stores the digest of the arguments, never the arguments (a secret does not reach the disk)', async () => {
    const file = fresh();
    const log = SqliteAuditLog.open(file);
    await log.append(entry(1, { arguments: { token: 'ghp_supersecretvalue123' } }));
    await log.append(entry(2, { arguments: { token: 'ghp_supersecretvalue123' } }));
    const [a, b] = log.read();
    assert.match(a?.argumentsDigest ?? '', /^sha256:[0-9a-f]{64}$/);
    assert.equal(a?.argumentsDigest, b?.argumentsDigest, 'the same arguments give the same digest');
    assert.equal('arguments' in (a ?? {}), false);
    await log.close();
    for (const f of [file, `${file}-wal`]) {
      const bytes = await readFile(f).catch(() => Buffer.alloc(0));
      assert.equal(bytes.includes('supersecret'), false, f);
    }
  });

  it('creates the file with mode 0600', async () => {
    const file = await written(1);
    assert.equal((await stat(file)).mode & 0o777, 0o600);
  });
});

describe('store/sqliteAudit: tampering is found', () => {
  it('an edited record (outcome changed from denied to ok) is found', async () => {
    const file = await written(4);
    tamper(file, "UPDATE audit SET line = replace(line, '\"outcome\":\"ok\"', '\"outcome\":\"denied\"') WHERE seq = 2");
    const report = verify(file);
    assert.equal(report.ok, false);
    assert.deepEqual(report.problems.map((p) => [p.seq, p.problem]), [[2, 'the record does not match its hash (edited)']]);
  });

  it('an edited record whose hash was recomputed breaks the next link', async () => {
    const file = await written(4);
    // The whole canonical line (as the log reads it back), rewritten and stored whole with its new hash.
    const reader = SqliteAuditLog.open(file);
    const { hash: _hash, ...stored } = reader.read({ from: 2, limit: 1 })[0] as AuditRecord;
    await reader.close();
    const line = canonicalize({ ...stored, outcome: 'error' });
    const db = new Database(file);
    db.prepare('UPDATE audit SET line = ?, hash = ?, digest = NULL, decisions = NULL WHERE seq = 2').run(line, `sha256:${createHash('sha256').update(line).digest('hex')}`);
    db.close();
    const report = verify(file);
    assert.equal(report.ok, false);
    assert.deepEqual(report.problems.map((p) => p.seq), [3]);
    assert.match(report.problems[0]?.problem ?? '', /link to the previous record is broken/);
  });

  it('a deleted record is found', async () => {
    const file = await written(5);
    tamper(file, 'DELETE FROM audit WHERE seq = 3');
    const report = verify(file);
    assert.equal(report.ok, false);
    assert.ok(report.problems.some((p) => p.seq === 4 && /missing \(deleted\)/.test(p.problem)), JSON.stringify(report.problems));
    assert.ok(report.problems.some((p) => p.seq === 4 && /link/.test(p.problem)));
  });

  it('a deleted last record changes the head (compare with a copy kept elsewhere)', async () => {
    const file = await written(3);
    const before = verify(file).head;
    tamper(file, 'DELETE FROM audit WHERE seq = 3');
    const report = verify(file);
    assert.notEqual(report.head, before);
    assert.equal(report.records, 2);
  });

  it('an inserted record is found', async () => {
    const file = await written(4);
    // Make room at 3 by moving 3 and 4 up, then insert a forged record that claims to be 3.
    tamper(file, 'UPDATE audit SET seq = seq + 10 WHERE seq >= 3');
    tamper(file, 'UPDATE audit SET seq = seq - 9 WHERE seq >= 13');
    const db = new Database(file);
    // Record 2's hash, as the record that followed it (now 4) holds it (schema 2 stores the hash of a write's last record only).
    const prev = (JSON.parse((db.prepare('SELECT line FROM audit WHERE seq = 4').get() as { line: string }).line) as { prev: string }).prev;
    const line = JSON.stringify({ seq: 3, time: new Date().toISOString(), kind: 'request', method: 'tools/call', decisions: [], outcome: 'ok', latencyMs: 1, prev });
    const { createHash } = await import('node:crypto');
    db.prepare('INSERT INTO audit (seq, line, hash) VALUES (3, ?, ?)').run(line, `sha256:${createHash('sha256').update(line).digest('hex')}`);
    db.close();
    const report = verify(file);
    assert.equal(report.ok, false);
    // The forged record links fine to 2, but the real third record no longer links to it.
    assert.equal(report.problems.some((p) => p.seq < 4), false, JSON.stringify(report.problems));
    assert.ok(report.problems.some((p) => p.seq === 4 && /moved or inserted/.test(p.problem)), JSON.stringify(report.problems));
    assert.ok(report.problems.some((p) => p.seq === 4 && /link/.test(p.problem)));
  });

  it('reordered records are found', async () => {
    const file = await written(4);
    tamper(file, 'UPDATE audit SET seq = 100 WHERE seq = 2');
    tamper(file, 'UPDATE audit SET seq = 2 WHERE seq = 3');
    tamper(file, 'UPDATE audit SET seq = 3 WHERE seq = 100');
    const report = verify(file);
    assert.equal(report.ok, false);
    assert.deepEqual([...new Set(report.problems.map((p) => p.seq))], [2, 3, 4]);
  });
});

describe('store/sqliteAudit: failures fail closed', () => {
  it('a file that is not a database is ERR_MCP_STORE_CORRUPT, never a crash', async () => {
    const file = fresh();
    await writeFile(file, 'this is not sqlite at all, just text that someone wrote here '.repeat(20));
    assert.throws(() => SqliteAuditLog.open(file), (e: unknown) => isMcpError(e) && e.code === 'ERR_MCP_STORE_CORRUPT' && e.message.includes(file));
  });

  it('a database of another schema is ERR_MCP_STORE_CORRUPT', async () => {
    const file = fresh();
    const db = new Database(file);
    db.exec('CREATE TABLE audit (x TEXT)');
    db.pragma('user_version = 7');
    db.close();
    assert.throws(() => SqliteAuditLog.open(file), (e: unknown) => isMcpError(e) && e.code === 'ERR_MCP_STORE_CORRUPT' && /schema version 7/.test(e.message));
  });

  it('a full disk: appends reject with "disk full", problem is set, the records written stay intact', async () => {
    const file = fresh();
    const log = SqliteAuditLog.open(file, { maxBytes: 64 * 1024, retryMs: 60_000 });
    const big = 'x'.repeat(2000);
    let failure: unknown;
    let written = 0;
    for (let i = 1; i <= 200 && failure === undefined; i++) {
      try {
        await log.append(entry(i, { name: big }));
        written++;
      } catch (error) {
        failure = error;
      }
    }
    assert.ok(isMcpError(failure) && failure.code === 'ERR_MCP_STORE_WRITE_FAILED' && /disk full/.test(failure.message), String(failure));
    assert.equal(log.problem, 'disk full');
    await assert.rejects(log.append(entry(999)), /disk full/);
    assert.deepEqual(log.verify(), { ok: true, records: written, head: log.tail(1)[0]?.hash, problems: [] });
    await assert.rejects(log.close(), /could not be written before closing/);
  });
});

/** Appends one record in each of `turns` turns of the event loop; resolves after the last with the appends' promises. */
async function appendOverTurns(log: SqliteAuditLog, turns: number): Promise<Promise<unknown>[]> {
  const appends: Promise<unknown>[] = [];
  await new Promise<void>((done) => {
    const next = (): void => {
      appends.push(log.append(entry(appends.length + 1)));
      if (appends.length < turns) setImmediate(next);
      else done();
    };
    next();
  });
  return appends;
}

describe('store/sqliteAudit: group commit (sync durability)', () => {
  it('appends that keep arriving over a few turns of the event loop share one commit and one sync', async () => {
    const log = SqliteAuditLog.open(fresh());
    await Promise.all(await appendOverTurns(log, 3));
    assert.deepEqual([log.commits, log.syncs, log.size], [1, 1, 3]);
    await log.close();
  });

  it('a group that keeps growing is still written after a bounded number of turns (no starvation)', async () => {
    const log = SqliteAuditLog.open(fresh());
    // One append in each of 10 turns: the group may wait at most 4 turns for more, so it is written before the flood ends.
    const appends = await appendOverTurns(log, 10);
    assert.ok(log.commits >= 1, 'no commit while appends kept arriving for 10 turns');
    await Promise.all(appends);
    assert.deepEqual([log.size, log.verify().ok], [10, true]);
    await log.close();
  });
});

describe('store/sqliteAudit: announced appends (the audit interceptor says which requests are in flight)', () => {
  const turn = (): Promise<void> => new Promise<void>((resolve) => setImmediate(resolve));

  for (const durability of ['sync', 'batch'] as const) {
    it(`${durability}: the last announced append is written at once, without waiting a turn of the event loop (c=1)`, async () => {
      const log = SqliteAuditLog.open(fresh(), { durability, process: THIS_PROCESS });
      log.announce();
      const appended = log.append(entry(1), true);
      // Written inside append: no other request is in flight to join the group.
      assert.equal(log.groups, 1);
      assert.equal((await appended).seq, 1);
      // sync: committed and synced before it resolved; batch: in the pending file, committed after the answer's turn.
      if (durability === 'sync') assert.deepEqual([log.commits, log.syncs], [1, 1]);
      await log.close();
    });
  }

  it('while announced appends are still out, the group waits for them over turns and is written when the last one arrives', async () => {
    const log = SqliteAuditLog.open(fresh(), { durability: 'batch', process: THIS_PROCESS });
    for (let i = 0; i < 3; i++) log.announce();
    const appends = [log.append(entry(1), true)];
    await turn();
    appends.push(log.append(entry(2), true));
    assert.equal(log.groups, 0);
    await turn();
    appends.push(log.append(entry(3), true));
    assert.equal(log.groups, 1, 'the third (last announced) append wrote the group at once');
    await Promise.all(appends);
    assert.deepEqual([log.groups, log.size, log.verify().ok], [1, 3, true]);
    await log.close();
  });

  it('withdraw settles an announcement whose append will not come: the group is then written without waiting for it', async () => {
    const withdrawn = SqliteAuditLog.open(fresh(), { durability: 'batch', process: THIS_PROCESS });
    withdrawn.announce();
    withdrawn.announce();
    const a = withdrawn.append(entry(1), true);
    withdrawn.withdraw();
    await turn();
    assert.equal(withdrawn.groups, 1, 'nothing announced is out: no growth wait');
    await a;
    await withdrawn.close();
    // The same without the withdraw: the second announcement is still out, so the group waits a turn for it to grow.
    const waiting = SqliteAuditLog.open(fresh(), { durability: 'batch', process: THIS_PROCESS });
    waiting.announce();
    waiting.announce();
    const b = waiting.append(entry(1), true);
    await turn();
    assert.equal(waiting.groups, 0);
    await b;
    assert.equal(waiting.groups, 1);
    await waiting.close();
  });

  it('sync: announced appends that arrive while a sync is in flight form the next group, written when it returns', async () => {
    const log = SqliteAuditLog.open(fresh());
    log.announce();
    log.announce();
    const first = log.append(entry(1), true);
    assert.equal(log.commits, 0, 'one announced append is still out');
    const second = log.append(entry(2), true);
    assert.equal(log.commits, 1);
    log.announce();
    // The group's sync is in flight: this one cannot be written yet; it is, once the sync returns.
    const third = log.append(entry(3), true);
    assert.equal(log.commits, 1);
    await Promise.all([first, second, third]);
    assert.deepEqual([log.commits, log.syncs, log.size, log.verify().ok], [2, 2, 3, true]);
    await log.close();
  });

  it('a closed log rejects an announced append', async () => {
    const log = SqliteAuditLog.open(fresh(), { durability: 'batch', process: THIS_PROCESS });
    log.announce();
    await log.close();
    await assert.rejects(log.append(entry(1), true), /closed/);
  });
});

describe('store/sqliteAudit: durability batch (the answer waits for the commit, not the sync)', () => {
  const twoTurns = (): Promise<void> => new Promise<void>((resolve) => setImmediate(() => setImmediate(resolve)));

  it('an append resolves once its row is in the pending file; the commit follows after the turn, and a second connection then reads the record', async () => {
    const file = fresh();
    const log = SqliteAuditLog.open(file, { durability: 'batch', process: THIS_PROCESS });
    const record = await log.append(entry(1));
    const other = new Database(file, { readonly: true });
    try {
      const count = (): unknown => other.prepare('SELECT count(*) AS n FROM audit').get();
      assert.deepEqual([log.commits, count()], [0, { n: 0 }], 'not committed while the answer is on its way');
      const pending = await readFile(join(dir, pendingNameOf(file)), 'utf8');
      assert.equal(pending.trimEnd().split('\n').length, 1);
      await twoTurns();
      assert.equal(log.commits, 1);
      assert.deepEqual(other.prepare('SELECT seq, hash FROM audit').all(), [{ seq: 1, hash: record.hash }]);
    } finally {
      other.close();
    }
    await log.close();
    assert.deepEqual(pendingFilesOf(file), [], 'a closed log leaves no pending file');
  });

  it('without the process it runs in, batch commits each group before its answers (no pending file)', async () => {
    const file = fresh();
    const log = SqliteAuditLog.open(file, { durability: 'batch' });
    const record = await log.append(entry(1));
    assert.deepEqual([log.commits, pendingFilesOf(file)], [1, []]);
    const other = new Database(file, { readonly: true });
    try {
      assert.deepEqual(other.prepare('SELECT seq, hash FROM audit').all(), [{ seq: 1, hash: record.hash }]);
    } finally {
      other.close();
    }
    await log.close();
  });

  it('its own reads see what it answered at once (read, tail and verify commit first)', async () => {
    const log = SqliteAuditLog.open(fresh(), { durability: 'batch', process: THIS_PROCESS });
    await log.append(entry(1));
    assert.deepEqual(log.tail(5).map((r) => r.seq), [1]);
    await log.append(entry(2));
    assert.deepEqual([log.verify().records, log.read().length, log.commits], [2, 2, 2]);
    await log.close();
  });

  it('groups still form: appends made while a sync is in flight are written and synced by the next one', async () => {
    const file = fresh();
    const log = SqliteAuditLog.open(file, { durability: 'batch', process: THIS_PROCESS });
    await Promise.all(Array.from({ length: 20 }, (_, i) => log.append(entry(i + 1))));
    assert.equal(log.groups, 1);
    // The first group's sync is in flight now; these are written at once and synced after it.
    await Promise.all(Array.from({ length: 20 }, (_, i) => log.append(entry(i + 21))));
    assert.equal(log.groups, 2);
    await log.close();
    const reopened = SqliteAuditLog.open(file, { process: THIS_PROCESS });
    assert.deepEqual([reopened.verify().ok, reopened.size], [true, 40]);
    await reopened.close();
  });

  it('appends arriving over a few turns share one group here too (fewer writes under load)', async () => {
    const log = SqliteAuditLog.open(fresh(), { durability: 'batch', process: THIS_PROCESS });
    await Promise.all(await appendOverTurns(log, 3));
    assert.deepEqual([log.groups, log.size], [1, 3]);
    await log.close();
  });

  it('syncIntervalMs: a burst of answers shares one commit and one sync; another connection reads them after the commit, and close commits and syncs the rest', async () => {
    const file = fresh();
    const log = SqliteAuditLog.open(file, { durability: 'batch', process: THIS_PROCESS, syncIntervalMs: 60_000 });
    for (let i = 1; i <= 5; i++) await log.append(entry(i));
    await twoTurns();
    // The first group was committed (and synced) at the end of its turn; the rest wait for the interval.
    assert.deepEqual([log.groups, log.commits, log.syncs], [5, 1, 1]);
    const other = new Database(file, { readonly: true });
    const count = (): number => (other.prepare('SELECT count(*) AS n FROM audit').get() as { n: number }).n;
    try {
      assert.equal(count(), 1);
      // The log's own read commits first.
      assert.equal(log.read().length, 5);
      assert.deepEqual([count(), log.commits], [5, 2]);
    } finally {
      other.close();
    }
    await log.append(entry(6));
    await log.close();
    assert.deepEqual([log.commits, log.syncs], [3, 2]);
    const reopened = SqliteAuditLog.open(file, { process: THIS_PROCESS });
    assert.deepEqual([reopened.verify().ok, reopened.size], [true, 6]);
    await reopened.close();
  });

  it('pending rows are committed at most once per syncIntervalMs: the interval\'s timer commits what was answered within it', async (t) => {
    const file = fresh();
    const log = SqliteAuditLog.open(file, { durability: 'batch', process: THIS_PROCESS, syncIntervalMs: 50 });
    await log.append(entry(1));
    await twoTurns();
    assert.equal(log.commits, 1);
    t.mock.timers.enable({ apis: ['setTimeout'] });
    await log.append(entry(2));
    await log.append(entry(3));
    await twoTurns();
    assert.deepEqual([log.groups, log.commits], [3, 1], 'within the interval: answered, not yet committed');
    t.mock.timers.tick(50);
    assert.deepEqual([log.commits, log.size], [2, 3]);
    t.mock.timers.reset();
    const other = new Database(file, { readonly: true });
    try {
      assert.equal((other.prepare('SELECT count(*) AS n FROM audit').get() as { n: number }).n, 3);
    } finally {
      other.close();
    }
    await log.close();
  });

  it('synced() resolves once the commits made so far are synced: the interval timer starts the sync that was held back', async () => {
    const log = SqliteAuditLog.open(fresh(), { durability: 'batch', process: THIS_PROCESS, syncIntervalMs: 5 });
    await log.append(entry(1));
    await log.synced();
    await log.append(entry(2));
    assert.equal(log.syncs, 1, 'the second commit came within the interval: its sync waits for the timer');
    await log.synced();
    assert.equal(log.syncs, 2);
    await log.synced();
    assert.equal(log.syncs, 2, 'nothing new was committed: no sync');
    await log.close();
  });

  it('syncIntervalMs 0 syncs after every commit that no sync in flight covers', async () => {
    const log = SqliteAuditLog.open(fresh(), { durability: 'batch', process: THIS_PROCESS, syncIntervalMs: 0 });
    await log.append(entry(1));
    await log.synced();
    await log.append(entry(2));
    await log.synced();
    assert.equal(log.syncs, 2);
    await log.close();
  });

  it('a full disk under a batch log refuses (fail closed) once a commit fails; what was answered stays in the pending file and goes in when the log is next opened with room', async () => {
    const file = fresh();
    // syncIntervalMs 0: a commit at the end of every turn, so the one that fills the disk comes within the loop
    // (with an interval, 200 appends can all be answered before the second commit).
    const log = SqliteAuditLog.open(file, { durability: 'batch', process: THIS_PROCESS, maxBytes: 64 * 1024, retryMs: 60_000, syncIntervalMs: 0 });
    const big = 'x'.repeat(2000);
    let failure: unknown;
    let answered = 0;
    for (let i = 1; i <= 200 && failure === undefined; i++) {
      try {
        await log.append(entry(i, { name: big }));
        answered++;
      } catch (error) {
        failure = error;
      }
    }
    assert.ok(isMcpError(failure) && failure.code === 'ERR_MCP_STORE_WRITE_FAILED' && /disk full/.test(failure.message), String(failure));
    assert.equal(log.problem, 'disk full');
    await assert.rejects(log.append(entry(999)), /disk full/);
    assert.equal(log.verify().ok, true);
    await assert.rejects(log.close(), /answered audit records could not be committed before closing .*stay in .*pending/);
    assert.equal(pendingFilesOf(file).length, 1);
    const roomy = SqliteAuditLog.open(file, { process: THIS_PROCESS });
    assert.deepEqual([roomy.size, roomy.verify().ok], [answered, true], 'every answered record is in the chain');
    await roomy.close();
    assert.deepEqual(pendingFilesOf(file), []);
  });
});

describe('store/sqliteAudit: batch pending files (answered before the commit; a killed process loses nothing)', () => {
  const MODULE = new URL('../../../src/store/sqliteAudit.ts', import.meta.url).href;
  const CLI_MODULE = new URL('../../../src/cli/auditFiles.ts', import.meta.url).href;
  /**
   * A child process that opens `file` with `batch`, appends `names`, prints the hashes its appends
   * resolved with (the answers it could have sent), then `after`: killed before the commit, or blocked.
   */
  function child(file: string, names: readonly string[], after: 'kill' | 'block'): { child: ChildProcess; answered: Promise<string[]> } {
    const code = `
      import { SqliteAuditLog } from ${JSON.stringify(MODULE)};
      import { THIS_PROCESS } from ${JSON.stringify(CLI_MODULE)};
      const log = SqliteAuditLog.open(${JSON.stringify(file)}, { durability: 'batch', process: THIS_PROCESS });
      const records = await Promise.all(${JSON.stringify(names)}.map((name, i) => log.append({ time: new Date(1_700_000_000_000 + i).toISOString(), kind: 'request', method: 'tools/call', server: 'peer', name, arguments: { i }, decisions: [], outcome: 'ok', latencyMs: 1 })));
      process.stdout.write(JSON.stringify(records.map((r) => r.hash)) + '\\n');
      // The commit waits for the end of the turn: this process never gets there.
      if (${JSON.stringify(after)} === 'kill') process.kill(process.pid, 'SIGKILL');
      else Atomics.wait(new Int32Array(new SharedArrayBuffer(4)), 0, 0, 120_000);
    `;
    const proc = spawn(process.execPath, ['--import', 'tsx', '--input-type=module', '-e', code], { stdio: ['ignore', 'pipe', 'inherit'] });
    const answered = new Promise<string[]>((resolve, reject) => {
      let out = '';
      proc.stdout?.on('data', (chunk: Buffer) => {
        out += chunk.toString('utf8');
        if (out.includes('\n')) resolve(JSON.parse(out.slice(0, out.indexOf('\n'))) as string[]);
      });
      proc.once('exit', (code, signal) => reject(new Error(`the child ended (${String(code)} ${String(signal)}) before answering: ${out}`)));
    });
    return { child: proc, answered };
  }
  const exited = (proc: ChildProcess): Promise<void> => (proc.exitCode !== null || proc.signalCode !== null ? Promise.resolve() : new Promise((resolve) => proc.once('exit', () => resolve())));

  it('killed with SIGKILL after its answers and before its commit: the next open commits every answered record, with the hashes the appends resolved with', async () => {
    const file = fresh();
    const run = child(file, ['a', 'b', 'c'], 'kill');
    const answered = await run.answered;
    await exited(run.child);
    const raw = new Database(file, { readonly: true });
    const committed = raw.prepare('SELECT count(*) AS n FROM audit').get();
    raw.close();
    assert.deepEqual(committed, { n: 0 }, 'the process died before its commit');
    assert.equal(pendingFilesOf(file).length, 1);
    const log = SqliteAuditLog.open(file, { process: THIS_PROCESS });
    assert.deepEqual(log.read().map((r) => r.hash), answered);
    assert.equal(log.verify().ok, true);
    await log.close();
    assert.deepEqual(pendingFilesOf(file), [], 'recovered files are removed');
  });

  it('a live peer\'s pending file is left alone; once it is killed, its answered rows are re-chained after what others wrote meanwhile, content unchanged', async () => {
    const file = fresh();
    const run = child(file, ['p1', 'p2', 'p3'], 'block');
    try {
      const answered = await run.answered;
      // Another process (here: this one) writes meanwhile; the peer is alive, so its rows are not taken.
      const other = SqliteAuditLog.open(file, { process: THIS_PROCESS });
      await other.append(entry(1));
      await other.append(entry(2));
      await other.close();
      assert.equal(pendingFilesOf(file).length, 1, 'the live peer keeps its file');
      run.child.kill('SIGKILL');
      await exited(run.child);
      const log = SqliteAuditLog.open(file, { process: THIS_PROCESS });
      const records = log.read();
      assert.deepEqual(records.map((r) => [r.seq, r.name]), [[1, 'tool1'], [2, 'tool2'], [3, 'p1'], [4, 'p2'], [5, 'p3']]);
      assert.equal(log.verify().ok, true);
      // Re-chained: new numbers and links, so new hashes; the digests of the arguments are those the peer made.
      assert.equal(records.slice(2).some((r) => answered.includes(r.hash)), false);
      assert.deepEqual(records.slice(2).map((r) => r.argumentsDigest), [0, 1, 2].map((i) => digestOf({ i })));
      await log.close();
    } finally {
      run.child.kill('SIGKILL');
    }
  });

  it('another writer extends the chain between a group\'s answers and its commit: the group is re-chained after it', async () => {
    const file = fresh();
    const log = SqliteAuditLog.open(file, { durability: 'batch', process: THIS_PROCESS });
    const answered = await log.append(entry(1));
    assert.equal(answered.seq, 1);
    // A second writer (a CLI approving a pin, say) commits first; this log's file is open, so it is not taken.
    const cli = SqliteAuditLog.open(file, { process: THIS_PROCESS });
    cli.announce();
    // Announced and alone: written inside append, before this turn ends.
    const pin = cli.append(entry(2, { kind: 'pin' }), true);
    assert.equal(cli.commits, 1);
    await pin;
    await cli.close();
    const records = log.read();
    assert.deepEqual(records.map((r) => [r.seq, r.kind, r.name]), [[1, 'pin', 'tool2'], [2, 'request', 'tool1']]);
    assert.equal(log.verify().ok, true);
    // The next group chains from the new head.
    await log.append(entry(3));
    assert.deepEqual([log.read().map((r) => r.seq), log.verify().ok], [[1, 2, 3], true]);
    await log.close();
  });

  it('a torn last line (its write never completed, so no answer went out) is dropped; the whole lines before it are committed', async () => {
    const file = fresh();
    const run = child(file, ['x', 'y'], 'kill');
    const answered = await run.answered;
    await exited(run.child);
    const pending = join(dir, pendingNameOf(file));
    await writeFile(pending, '{"argumentsDigest":"sha256:00","decisions":[],"kind":"req', { flag: 'a' });
    const log = SqliteAuditLog.open(file, { process: THIS_PROCESS });
    assert.deepEqual([log.read().map((r) => r.hash), log.verify().ok], [answered, true]);
    await log.close();
  });

  it('a pending file with no row is fully committed (replaced, or closed by its process) and is removed at open', async () => {
    const file = fresh();
    const log = SqliteAuditLog.open(file, { durability: 'batch', process: THIS_PROCESS });
    await log.append(entry(1));
    await log.close();
    const stray = join(dir, `${basename(file)}-pending-1-0123456789ab`);
    await writeFile(stray, `${JSON.stringify({ seq: 2 })}\n`);
    const reopened = SqliteAuditLog.open(file, { process: THIS_PROCESS });
    assert.deepEqual([reopened.size, pendingFilesOf(file)], [1, []]);
    await reopened.close();
  });

  it('a pending file past its size limit is replaced by a new one once everything in it is committed', async () => {
    const file = fresh();
    const log = SqliteAuditLog.open(file, { durability: 'batch', process: THIS_PROCESS });
    const first = pendingNameOf(file);
    const big = 'x'.repeat(4000);
    // About 4.2 MB of rows in groups of 50.
    for (let i = 0; i < 21; i++) await Promise.all(Array.from({ length: 50 }, (_, j) => log.append(entry(i * 50 + j + 1, { name: big }))));
    assert.equal(log.verify().ok, true);
    const now = pendingNameOf(file);
    assert.notEqual(now, first);
    const rows = new Database(file, { readonly: true });
    assert.deepEqual(rows.prepare('SELECT name FROM audit_pending').all(), [{ name: now }]);
    rows.close();
    await log.append(entry(9999));
    await log.close();
    const reopened = SqliteAuditLog.open(file, { process: THIS_PROCESS });
    assert.deepEqual([reopened.size, reopened.verify().ok], [1051, true]);
    await reopened.close();
  });
});
