// The gateway's audit retention (src/store/auditRetention.ts): the cut it works out from
// keepDays / keepGB, a run that archives and logs, and a full disk under the audit log: still
// refused before the server is reached, now saying which retention setting frees space; a
// retention run then frees pages and the log writes again.
import assert from 'node:assert/strict';
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { after, before, describe, it } from 'node:test';
import { auditInterceptor, type AuditEntry } from '../../../src/host/audit.js';
import type { AuditRetentionConfig } from '../../../src/host/configTypes.js';
import { DeniedError, type InterceptContext } from '../../../src/host/interceptors.js';
import { AnchorFolder } from '../../../src/store/anchor/anchorFile.js';
import { pruneFindings } from '../../../src/store/auditArchive.js';
import { verifyArchive } from '../../../src/store/auditArchiveVerify.js';
import { AuditRetention, retentionCut, retentionHint } from '../../../src/store/auditRetention.js';
import { SqliteAuditLog } from '../../../src/store/sqliteAudit.js';
import { AuditTable } from '../../../src/store/sqliteAuditTable.js';

const BASE = Date.parse('2026-01-01T00:00:00.000Z');
const DAY = 86_400_000;

let dir: string;
before(async () => {
  dir = await mkdtemp(join(tmpdir(), 'sb-retention-'));
});
after(async () => {
  await rm(dir, { recursive: true, force: true });
});

const entry = (i: number, time = BASE + i * 60_000, name = `t${i}`): AuditEntry => ({ time: new Date(time).toISOString(), kind: 'request', method: 'tools/call', server: 'fs', name, decisions: [], outcome: 'ok', latencyMs: 1 });

function logger(): { lines: string[]; info(m: string): void; error(m: string): void } {
  const lines: string[] = [];
  return { lines, info: (m) => void lines.push(`info ${m}`), error: (m) => void lines.push(`error ${m}`) };
}

/** Resolves once `done()` holds (checked every 10 ms; the test's timeout bounds it). */
async function until(done: () => boolean): Promise<void> {
  while (!done()) await new Promise((resolve) => setTimeout(resolve, 10));
}

describe('audit retention', () => {
  it('keepDays archives the records older than that many days, and logs what it did', { timeout: 60_000 }, async () => {
    const file = join(dir, 'days.db');
    const log = SqliteAuditLog.open(file);
    // Ten days of records, one a day: 1..10.
    for (let i = 1; i <= 10; i++) await log.append(entry(i, BASE + i * DAY));
    await log.close();
    const table = AuditTable.open(file);
    const folder = AnchorFolder.open(join(dir, 'anchor-days'));
    const policy: AuditRetentionConfig = { keepDays: 3, archiveDir: join(dir, 'archive-days') };
    const lines = logger();
    const retention = new AuditRetention(table, folder, 'file:days', policy, lines, { now: () => BASE + 10.5 * DAY });
    try {
      const result = await retention.run();
      // Older than 3 days at day 10.5: records of days 1..7.
      assert.equal(result?.pruned.seq, 7);
      assert.deepEqual(lines.lines, [`info audit retention: archived records 1..7 in 1 sealed segment to ${policy.archiveDir}; removed 7 from the live log`]);
      assert.equal((await verifyArchive(table, folder, 'file:days', policy.archiveDir)).ok, true);
      // Nothing more is due: the next run archives nothing.
      assert.equal((await retention.run())?.removed, 0);
    } finally {
      await retention.stop();
      table.close();
    }
  });

  it('keepGB archives the oldest records beyond the bound (estimated from the bytes per live record)', { timeout: 60_000 }, async () => {
    const cut = await retentionCut({ head: () => ({ seq: 1000, hash: '' }), pruned: () => ({ seq: 200, hash: '' }), usedBytes: () => 8_000_000 }, { keepGB: 0.002 }, BASE);
    // 800 live records in 8 MB (10 kB each); 6 MB over the bound = 600 records: records before 801.
    assert.deepEqual(cut, { seq: 801 });
    assert.equal(await retentionCut({ head: () => ({ seq: 1000, hash: '' }), pruned: () => ({ seq: 0, hash: '' }), usedBytes: () => 1_000 }, { keepGB: 0.002 }, BASE), undefined);
  });

  it('a failed run is logged and removes nothing (a pruned range without its checkpoint is not built on)', { timeout: 60_000 }, async () => {
    const file = join(dir, 'failed.db');
    const log = SqliteAuditLog.open(file);
    for (let i = 1; i <= 20; i++) await log.append(entry(i));
    await log.close();
    const table = AuditTable.open(file);
    table.prune(5, (table.rows(5, 5, 1)[0] as { hash: string }).hash);
    const lines = logger();
    const folder = AnchorFolder.open(join(dir, 'anchor-failed'));
    const retention = new AuditRetention(table, folder, 'file:failed', { keepDays: 1, archiveDir: join(dir, 'archive-failed') }, lines, { now: () => BASE + 30 * DAY });
    try {
      assert.equal(await retention.run(), undefined);
      assert.match(lines.lines.join('\n'), /^error audit retention: the archive run failed, nothing unverified was removed .*records 1\.\.5 were removed from the live log, but this anchor folder holds no checkpoint/);
      assert.equal(table.pruned().seq, 5);
      assert.equal((await pruneFindings(table, folder, 'file:failed')).problems.length, 1);
    } finally {
      await retention.stop();
      table.close();
    }
  });

  it('disk full with retention on: requests are refused before the server is reached, the refusal names the retention setting; a retention run frees space and writes resume', { timeout: 60_000 }, async () => {
    const file = join(dir, 'full.db');
    const policy: AuditRetentionConfig = { keepDays: 30, keepGB: 0.0001, archiveDir: join(dir, 'archive-full') };
    const log = SqliteAuditLog.open(file, { maxBytes: 256 * 1024, retryMs: 20, fullHint: retentionHint(policy) });
    const big = 'x'.repeat(2000);
    let failure: unknown;
    for (let i = 1; i <= 1000 && failure === undefined; i++) {
      try {
        await log.append(entry(i, BASE + i * 1000, `${big}${i}`));
      } catch (error) {
        failure = error;
      }
    }
    assert.match(String(failure), /disk full \(a lower switchboard\.audit\.retention\.keepDays \(now 30\) or keepGB \(now 0\.0001\) frees space in the live log; its archive goes to .*archive-full/);
    const reached: string[] = [];
    const ctx = { method: 'tools/call', params: { name: 'x' }, decisions: [] } as unknown as InterceptContext;
    await assert.rejects(
      auditInterceptor(log).intercept(ctx, async () => {
        reached.push('downstream');
        return {};
      }),
      (e: unknown) => e instanceof DeniedError && /audit log cannot be written \(disk full \(a lower switchboard\.audit\.retention\.keepDays/.test(e.message),
    );
    assert.deepEqual(reached, [], 'fail closed: the server was not reached');
    // The retention run (its own connection) archives the oldest records; the freed pages take the retried ones.
    const table = AuditTable.open(file);
    const retention = new AuditRetention(table, AnchorFolder.open(join(dir, 'anchor-full')), 'file:full', policy, logger(), { now: () => BASE });
    try {
      const result = await retention.run();
      assert.ok((result?.removed ?? 0) > 0);
      await until(() => log.problem === undefined);
      await log.append(entry(5000));
      assert.equal(log.verify().ok, true);
    } finally {
      await retention.stop();
      table.close();
      await log.close();
    }
  });

  it('without retention, a full disk says how to turn it on', () => {
    assert.match(retentionHint(undefined), /switchboard\.audit\.retention is off: set keepDays or keepGB/);
  });
});
