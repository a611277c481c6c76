// The audit archive on the PostgreSQL log (the real server of backends.ts; never skipped):
// archived, removed with the prune marker, verified from the marker and across the archive;
// an archived line and a live row rewritten, a segment deleted, a marker forged, each found.
import assert from 'node:assert/strict';
import { readFileSync, rmSync, writeFileSync } from 'node:fs';
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { gunzipSync, gzipSync } from 'node:zlib';
import { after, before, describe, it } from 'node:test';
import type { AuditEntry } from '../../../src/host/audit.js';
import { AnchorFolder } from '../../../src/store/anchor/anchorFile.js';
import { archiveAudit, pruneFindings } from '../../../src/store/auditArchive.js';
import { withHash } from '../../../src/store/auditChain.js';
import { verifyArchive } from '../../../src/store/auditArchiveVerify.js';
import { PgAuditLog } from '../../../src/store/postgres/pgAuditLog.js';
import type { PgDatabase } from '../../../src/store/postgres/pgDatabase.js';
import { openTestPostgres } from './backends.js';

let dir: string;
before(async () => {
  dir = await mkdtemp(join(tmpdir(), 'sb-pg-archive-'));
});
after(async () => {
  await rm(dir, { recursive: true, force: true });
});

const entry = (i: number): AuditEntry => ({ time: new Date(Date.parse('2026-01-01T00:00:00Z') + i * 1000).toISOString(), kind: 'request', method: 'tools/call', server: 'fs', name: 't', arguments: { i }, decisions: [], outcome: 'ok', latencyMs: 1 });

async function written(label: string, count: number): Promise<{ db: PgDatabase; log: PgAuditLog; folder: AnchorFolder; name: string; out: string }> {
  const db = await openTestPostgres();
  const log = new PgAuditLog(db);
  await Promise.all(Array.from({ length: count }, (_, i) => log.append(entry(i + 1))));
  const folder = AnchorFolder.open(join(dir, `anchor-${label}`));
  const name = `postgres://test/${label}`;
  folder.write('audit', name, { ...(await log.head()), time: new Date().toISOString() });
  return { db, log, folder, name, out: join(dir, `archive-${label}`) };
}

describe('audit archive on PostgreSQL', () => {
  it('archives and removes the records before the cut; verifies live and archived; a rewritten archived line, live row and a deleted segment are found', { timeout: 120_000 }, async () => {
    const { db, log, folder, name, out } = await written('main', 3000);
    const result = await archiveAudit(log, folder, name, { out, before: { seq: 2001 }, segmentRecords: 700 });
    assert.deepEqual(
      result.segments.map((s) => [s.first, s.last]),
      [
        [1, 700],
        [701, 1400],
        [1401, 2000],
      ],
    );
    assert.equal(result.removed, 2000);
    assert.deepEqual(await log.pruned(), result.pruned);
    assert.equal((await log.read({ from: 1, limit: 1 }))[0]?.seq, 2001);
    const live = await log.verify();
    assert.equal(live.ok, true, JSON.stringify(live.problems));
    assert.equal(live.records, 1000);
    assert.deepEqual((await pruneFindings(log, folder, name)).problems, []);
    assert.equal((await verifyArchive(log, folder, name, out)).ok, true);
    // Appends continue the chain after the removal.
    await log.append(entry(3001));
    assert.equal((await log.verify()).ok, true);

    const segment = join(out, 'seg-000000000701-000000001400.jsonl.gz');
    const lines = gunzipSync(readFileSync(segment)).toString('utf8').split('\n');
    lines[100] = (lines[100] as string).replace('"outcome":"ok"', '"outcome":"denied"');
    writeFileSync(segment, gzipSync(lines.join('\n')));
    const altered = await verifyArchive(log, folder, name, out);
    assert.ok(altered.problems.some((p) => p.seq === 802 && p.problem.includes('seg-000000000701-000000001400.jsonl.gz')), JSON.stringify(altered.problems));

    await db.query('tampering', `UPDATE audit SET line = replace(line, '"outcome":"ok"', '"outcome":"denied"') WHERE seq = 2500`);
    assert.deepEqual(
      (await log.verify()).problems.map((p) => p.seq),
      [2500],
    );

    rmSync(segment);
    rmSync(join(out, 'seg-000000000701-000000001400.manifest.json'));
    const gap = await verifyArchive(log, folder, name, out);
    assert.deepEqual(
      gap.problems.map((p) => p.seq),
      [701],
    );
    assert.match(gap.problems[0]?.problem ?? '', /records 701\.\.1400 are missing from the archive: a gap/);
  });

  it('marker forged (rows deleted and the marker moved by hand, no checkpoint) is a gap; the archiver refuses it', { timeout: 60_000 }, async () => {
    const { db, log, folder, name, out } = await written('forged', 500);
    // The attacker takes record 100's real hash (the next record's `prev`; compact rows keep no hash of their own).
    const [stored] = await log.rows(100, 100, 1);
    const row = stored !== undefined ? withHash(stored) : undefined;
    await db.query('tampering', 'DELETE FROM audit WHERE seq <= 100');
    await db.query('tampering', 'INSERT INTO audit_pruned (seq, hash) VALUES (100, $1)', [row?.hash]);
    assert.equal((await log.verify()).ok, true, 'the chain from the forged marker links');
    const findings = await pruneFindings(log, folder, name);
    assert.match(findings.problems[0]?.problem ?? '', /records 1\.\.100 were removed from the live log, but this anchor folder holds no checkpoint/);
    await assert.rejects(archiveAudit(log, folder, name, { out, before: { seq: 400 } }), /is not archived/);
  });

  it('a prune whose archived record no longer matches the live one is refused, nothing removed', { timeout: 60_000 }, async () => {
    const { log } = await written('mismatch', 50);
    await assert.rejects(log.prune(20, 'sha256:not-the-hash'), /record 20 is not the record archived/);
    await assert.rejects(log.prune(50, (await log.head()).hash), /record 50 is the head of the chain/);
    assert.equal((await log.verify()).records, 50);
  });
});
