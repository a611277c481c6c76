import assert from 'node:assert/strict';
import { mkdtemp, readFile, rm, stat, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { after, before, describe, it } from 'node:test';
import Database from 'better-sqlite3';
import type { AuditEntry } from '../../../src/host/audit.js';
import { AUDIT_GENESIS, SqliteAuditLog } from '../../../src/store/sqliteAudit.js';
import { isMcpError } from '../../../src/util/errors.js';

let dir: string;
before(async () => {
  dir = await mkdtemp(join(tmpdir(), 'sb-audit-'));
});
after(async () => {
  await rm(dir, { recursive: true, force: true });
});

let n = 0;
const fresh = (): string => join(dir, `audit-${++n}.db`);

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
    const db = new Database(file);
    const row = db.prepare('SELECT line FROM audit WHERE seq = 2').get() as { line: string };
    const line = row.line.replace('"outcome":"ok"', '"outcome":"error"');
    const { createHash } = await import('node:crypto');
    db.prepare('UPDATE audit SET line = ?, hash = ? WHERE seq = 2').run(line, `sha256:${createHash('sha256').update(line).digest('hex')}`);
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
    const prev = (db.prepare('SELECT hash FROM audit WHERE seq = 2').get() as { hash: string }).hash;
    const line = JSON.stringify({ seq: 3, time: new Date().toISOString(), kind: 'request', method: 'tools/call', decisions: [], outcome: 'ok', latencyMs: 1, prev });
    const { createHash } = await import('node:crypto');
    db.prepare('INSERT INTO audit (seq, line, hash) VALUES (3, ?, ?)').run(line, `sha256:${createHash('sha256').update(line).digest('hex')}`);
    db.close();
    const report = verify(file);
    assert.equal(report.ok, false);
    // The forged record links fine to 2, but the real third record no longer links to it.
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
      const log = SqliteAuditLog.open(fresh(), { durability });
      log.announce();
      const appended = log.append(entry(1), true);
      // Written inside append: no other request is in flight to join the group.
      assert.equal(log.commits, 1);
      assert.equal((await appended).seq, 1);
      assert.equal(log.syncs, 1);
      await log.close();
    });
  }

  it('while announced appends are still out, the group waits for them over turns and is written when the last one arrives', async () => {
    const log = SqliteAuditLog.open(fresh(), { durability: 'batch' });
    for (let i = 0; i < 3; i++) log.announce();
    const appends = [log.append(entry(1), true)];
    await turn();
    appends.push(log.append(entry(2), true));
    assert.equal(log.commits, 0);
    await turn();
    appends.push(log.append(entry(3), true));
    assert.equal(log.commits, 1, 'the third (last announced) append wrote the group at once');
    await Promise.all(appends);
    assert.deepEqual([log.commits, log.size, log.verify().ok], [1, 3, true]);
    await log.close();
  });

  it('withdraw settles an announcement whose append will not come: the group is then written without waiting for it', async () => {
    const withdrawn = SqliteAuditLog.open(fresh(), { durability: 'batch' });
    withdrawn.announce();
    withdrawn.announce();
    const a = withdrawn.append(entry(1), true);
    withdrawn.withdraw();
    await turn();
    assert.equal(withdrawn.commits, 1, 'nothing announced is out: no growth wait');
    await a;
    await withdrawn.close();
    // The same without the withdraw: the second announcement is still out, so the group waits a turn for it to grow.
    const waiting = SqliteAuditLog.open(fresh(), { durability: 'batch' });
    waiting.announce();
    waiting.announce();
    const b = waiting.append(entry(1), true);
    await turn();
    assert.equal(waiting.commits, 0);
    await b;
    assert.equal(waiting.commits, 1);
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
    const log = SqliteAuditLog.open(fresh(), { durability: 'batch' });
    log.announce();
    await log.close();
    await assert.rejects(log.append(entry(1), true), /closed/);
  });
});

describe('store/sqliteAudit: durability batch (the answer waits for the commit, not the sync)', () => {
  it('an append resolves once its group is committed: a second connection (what is left after the process is killed) reads the record', async () => {
    const file = fresh();
    const log = SqliteAuditLog.open(file, { durability: 'batch' });
    const record = await log.append(entry(1));
    const other = new Database(file, { readonly: true });
    try {
      assert.deepEqual(other.prepare('SELECT seq, hash FROM audit').all(), [{ seq: 1, hash: record.hash }]);
    } finally {
      other.close();
    }
    await log.close();
  });

  it('groups still form: appends made while a sync is in flight are committed and synced by the next one', async () => {
    const file = fresh();
    const log = SqliteAuditLog.open(file, { durability: 'batch' });
    await Promise.all(Array.from({ length: 20 }, (_, i) => log.append(entry(i + 1))));
    assert.equal(log.commits, 1);
    // The first group's sync is in flight now; these commit at once and are synced after it.
    await Promise.all(Array.from({ length: 20 }, (_, i) => log.append(entry(i + 21))));
    assert.equal(log.commits, 2);
    await log.close();
    const reopened = SqliteAuditLog.open(file);
    assert.deepEqual([reopened.verify().ok, reopened.size], [true, 40]);
    await reopened.close();
  });

  it('appends arriving over a few turns share one commit here too (fewer SQLite transactions under load)', async () => {
    const log = SqliteAuditLog.open(fresh(), { durability: 'batch' });
    await Promise.all(await appendOverTurns(log, 3));
    assert.deepEqual([log.commits, log.size], [1, 3]);
    await log.close();
  });

  it('syncIntervalMs: a burst of commits shares one sync, every record is readable by another connection at once, and close syncs the rest', async () => {
    const file = fresh();
    const log = SqliteAuditLog.open(file, { durability: 'batch', syncIntervalMs: 60_000 });
    for (let i = 1; i <= 5; i++) await log.append(entry(i));
    assert.deepEqual([log.commits, log.syncs], [5, 1]);
    const other = new Database(file, { readonly: true });
    try {
      assert.equal((other.prepare('SELECT count(*) AS n FROM audit').get() as { n: number }).n, 5);
    } finally {
      other.close();
    }
    await log.close();
    assert.equal(log.syncs, 2);
    const reopened = SqliteAuditLog.open(file);
    assert.deepEqual([reopened.verify().ok, reopened.size], [true, 5]);
    await reopened.close();
  });

  it('synced() resolves once the commits made so far are synced: the interval timer starts the sync that was held back', async () => {
    const log = SqliteAuditLog.open(fresh(), { durability: 'batch', syncIntervalMs: 5 });
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
    const log = SqliteAuditLog.open(fresh(), { durability: 'batch', syncIntervalMs: 0 });
    await log.append(entry(1));
    await log.synced();
    await log.append(entry(2));
    await log.synced();
    assert.equal(log.syncs, 2);
    await log.close();
  });

  it('a full disk under a batch log still refuses (fail closed): no answer goes out without its record', async () => {
    const log = SqliteAuditLog.open(fresh(), { durability: 'batch', maxBytes: 64 * 1024, retryMs: 60_000 });
    const big = 'x'.repeat(2000);
    let failure: unknown;
    for (let i = 1; i <= 200 && failure === undefined; i++) {
      try {
        await log.append(entry(i, { name: big }));
      } catch (error) {
        failure = error;
      }
    }
    assert.ok(isMcpError(failure) && failure.code === 'ERR_MCP_STORE_WRITE_FAILED' && /disk full/.test(failure.message), String(failure));
    await assert.rejects(log.append(entry(999)), /disk full/);
    assert.equal(log.verify().ok, true);
    await assert.rejects(log.close(), /could not be written before closing/);
  });
});
