// The audit archive (src/store/auditArchive.ts, auditSegments.ts, auditArchiveVerify.ts) on the
// SQLite log: a few hundred thousand records archived by half, the live and archived history
// verified, and the attacks on it (an archived line rewritten, a live row rewritten, a whole
// archived segment deleted, a pruned range forged without a checkpoint) each found and named.
import assert from 'node:assert/strict';
import { readFileSync, readdirSync, rmSync, writeFileSync } from 'node:fs';
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { gunzipSync, gzipSync } from 'node:zlib';
import { after, before, describe, it } from 'node:test';
import Database from 'better-sqlite3';
import type { AuditEntry } from '../../../src/host/audit.js';
import { AnchorFolder } from '../../../src/store/anchor/anchorFile.js';
import { archiveAudit, pruneFindings, type ArchivableLog } from '../../../src/store/auditArchive.js';
import { verifyArchive } from '../../../src/store/auditArchiveVerify.js';
import { SqliteAuditLog } from '../../../src/store/sqliteAudit.js';
import { AuditTable } from '../../../src/store/sqliteAuditTable.js';
import { withHash } from '../../../src/store/auditChain.js';

/** Record `seq`'s hash in `table` as anyone reading the file can work it out. */
function liveHash(table: AuditTable, seq: number): string {
  const [row] = table.rows(seq, seq, 1);
  if (row === undefined) throw new Error(`record ${seq} is not live`);
  return withHash(row).hash;
}

const BIG = 300_000;
const BASE = Date.parse('2026-01-01T00:00:00.000Z');

let dir: string;
before(async () => {
  dir = await mkdtemp(join(tmpdir(), 'sb-archive-'));
});
after(async () => {
  await rm(dir, { recursive: true, force: true });
});

function entry(i: number): AuditEntry {
  return { time: new Date(BASE + i * 1000).toISOString(), kind: 'request', method: 'tools/call', server: 'fs', name: `tool${i % 7}`, arguments: { i }, decisions: [], outcome: 'ok', latencyMs: 1 };
}

/** Writes `count` records to a fresh log file through the store API (batch durability) and anchors its head as the gateway's checkpointer does. */
async function writeLog(file: string, count: number, folder: AnchorFolder, name: string): Promise<void> {
  const log = SqliteAuditLog.open(file, { durability: 'batch' });
  for (let from = 1; from <= count; from += 10_000) {
    const appends: Promise<unknown>[] = [];
    for (let i = from; i < Math.min(from + 10_000, count + 1); i++) appends.push(log.append(entry(i)));
    await Promise.all(appends);
  }
  await log.synced();
  await log.close();
  const table = AuditTable.open(file);
  folder.write('audit', name, { ...table.head(), time: new Date().toISOString() });
  table.close();
}

/** Rewrites line `seq` of a segment file (decompress, edit, recompress), as someone with the archive folder would. */
function editArchivedLine(file: string, seq: number, first: number): void {
  const lines = gunzipSync(readFileSync(file)).toString('utf8').split('\n');
  const index = seq - first;
  assert.match(lines[index] ?? '', /"outcome":"ok"/);
  lines[index] = (lines[index] as string).replace('"outcome":"ok"', '"outcome":"denied"');
  writeFileSync(file, gzipSync(lines.join('\n')));
}

/** `table` as the archiver sees it, killed when `rows` is asked for a range `crashRows` names, or at the first removal (`crashPrune`). */
function crashing(table: AuditTable, crash: { readonly crashRows?: (from: number, to: number) => boolean; readonly crashPrune?: boolean }): ArchivableLog {
  return {
    head: () => table.head(),
    pruned: () => table.pruned(),
    usedBytes: () => table.usedBytes(),
    rows: (from, to, limit) => {
      if (crash.crashRows?.(from, to) === true) throw new Error('killed');
      return table.rows(from, to, limit);
    },
    prune: (upTo, hash) => {
      if (crash.crashPrune === true) throw new Error('killed');
      return table.prune(upTo, hash);
    },
  };
}

describe('audit archive: a few hundred thousand records', () => {
  it(`writes ${BIG} records, archives half, verifies live and archived; an archived line, a live row and a deleted segment are each found`, { timeout: 600_000 }, async (t) => {
    const folder = AnchorFolder.open(join(dir, 'anchor-big'));
    const file = join(dir, 'big.db');
    const out = join(dir, 'archive-big');
    const name = `file:${file}`;
    let started = performance.now();
    await writeLog(file, BIG, folder, name);
    const writeMs = performance.now() - started;
    const table = AuditTable.open(file);
    try {
      started = performance.now();
      const result = await archiveAudit(table, folder, name, { out, before: { seq: BIG / 2 + 1 }, segmentRecords: 50_000 });
      const archiveMs = performance.now() - started;
      assert.deepEqual(
        result.segments.map((s) => [s.first, s.last, s.reused]),
        [
          [1, 50_000, false],
          [50_001, 100_000, false],
          [100_001, 150_000, false],
        ],
      );
      assert.equal(result.removed, BIG / 2);
      assert.equal(table.rows(1, BIG / 2, 10).length, 0, 'the archived range left the live log');

      started = performance.now();
      const live = table.verify();
      assert.equal(live.ok, true, JSON.stringify(live.problems));
      assert.equal(live.records, BIG / 2);
      const marker = await pruneFindings(table, folder, name);
      assert.deepEqual(marker.problems, []);
      assert.equal(marker.start.seq, BIG / 2);
      const archived = await verifyArchive(table, folder, name, out);
      const verifyMs = performance.now() - started;
      assert.equal(archived.ok, true, JSON.stringify(archived.problems));
      assert.equal(archived.records, BIG / 2);
      assert.equal(archived.segments, 3);
      t.diagnostic(`write ${BIG} records: ${Math.round(writeMs)} ms; archive half: ${Math.round(archiveMs)} ms; verify live + archive: ${Math.round(verifyMs)} ms`);

      // An archived line rewritten: the segment and the record are named.
      editArchivedLine(join(out, 'seg-000000050001-000000100000.jsonl.gz'), 75_123, 50_001);
      const altered = await verifyArchive(table, folder, name, out);
      assert.equal(altered.ok, false);
      assert.ok(altered.problems.some((p) => p.seq === 75_124 && /seg-000000050001-000000100000\.jsonl\.gz: the link to the previous record is broken/.test(p.problem)), JSON.stringify(altered.problems));
      assert.ok(altered.problems.some((p) => /seg-000000050001-000000100000\.jsonl\.gz does not match its manifest's digest/.test(p.problem)));

      // A live row rewritten: the record is named.
      const db = new Database(file);
      db.prepare(`UPDATE audit SET line = replace(line, '"outcome":"ok"', '"outcome":"denied"') WHERE seq = ?`).run(200_000);
      db.close();
      const tampered = table.verify();
      assert.equal(tampered.ok, false);
      assert.deepEqual(
        tampered.problems.map((p) => p.seq),
        [200_000],
      );

      // A whole archived segment deleted: a gap, named by its records.
      rmSync(join(out, 'seg-000000050001-000000100000.jsonl.gz'));
      rmSync(join(out, 'seg-000000050001-000000100000.manifest.json'));
      const gap = await verifyArchive(table, folder, name, out);
      assert.equal(gap.ok, false);
      assert.deepEqual(
        gap.problems.map((p) => p.problem),
        ['records 50001..100000 are missing from the archive: a gap (seg-000000050001-000000100000.jsonl.gz or the segments covering it were removed)'],
      );
    } finally {
      table.close();
    }
  });
});

describe('audit archive: attacks on the pruned range and the archive', () => {
  async function small(label: string, count = 2000): Promise<{ folder: AnchorFolder; file: string; out: string; name: string; table: AuditTable }> {
    const folder = AnchorFolder.open(join(dir, `anchor-${label}`));
    const file = join(dir, `${label}.db`);
    const name = `file:${file}`;
    await writeLog(file, count, folder, name);
    return { folder, file, out: join(dir, `archive-${label}`), name, table: AuditTable.open(file) };
  }

  it('pruned range forged without a checkpoint (rows deleted, marker written by hand) is a gap, not intact', { timeout: 60_000 }, async () => {
    const { folder, file, name, table } = await small('forged');
    try {
      const db = new Database(file);
      // The attacker takes record 500's real hash (compact rows keep none of their own: it is the next record's `prev`).
      const hash = liveHash(table, 500);
      db.prepare('DELETE FROM audit WHERE seq <= 500').run();
      db.prepare('INSERT INTO audit_pruned (id, seq, hash) VALUES (1, 500, ?)').run(hash);
      db.close();
      // The chain from the marker links (the attacker used the real hash); only the checkpoint tells.
      assert.equal(table.verify().ok, true);
      const findings = await pruneFindings(table, folder, name);
      assert.deepEqual(findings.problems, [{ seq: 500, problem: 'records 1..500 were removed from the live log, but this anchor folder holds no checkpoint of an archive of them: a gap, not verified' }]);
      // The archiver refuses to go on from an unverified marker.
      await assert.rejects(archiveAudit(table, folder, name, { out: join(dir, 'archive-forged'), before: { seq: 1000 } }), /is not archived: records 1\.\.500 were removed/);
    } finally {
      table.close();
    }
  });

  it('marker moved past the checkpoint (more rows deleted after an archive run) is a gap', { timeout: 60_000 }, async () => {
    const { folder, file, out, name, table } = await small('moved');
    try {
      await archiveAudit(table, folder, name, { out, before: { seq: 1001 }, segmentRecords: 300 });
      const db = new Database(file);
      const hash = liveHash(table, 1200);
      db.prepare('DELETE FROM audit WHERE seq <= 1200').run();
      db.prepare('UPDATE audit_pruned SET seq = 1200, hash = ?').run(hash);
      db.close();
      const findings = await pruneFindings(table, folder, name);
      assert.equal(findings.problems.length, 1);
      assert.match(findings.problems[0]?.problem ?? '', /records 1001\.\.1200 were removed from the live log past the archive's checkpoint/);
    } finally {
      table.close();
    }
  });

  it('marker deleted (the removed range hidden): the live chain says records are missing', { timeout: 60_000 }, async () => {
    const { folder, file, out, name, table } = await small('unmarked');
    try {
      await archiveAudit(table, folder, name, { out, before: { seq: 1001 }, segmentRecords: 300 });
      const db = new Database(file);
      db.prepare('DELETE FROM audit_pruned').run();
      db.close();
      const live = table.verify();
      assert.equal(live.ok, false);
      assert.match(live.problems[0]?.problem ?? '', /expected record 1 here: records are missing/);
      const findings = await pruneFindings(table, folder, name);
      assert.match(findings.problems[0]?.problem ?? '', /the archive checkpoint says record 1000 was archived .* but the live log does not hold it/);
    } finally {
      table.close();
    }
  });

  it('segment swapped in from another log (same range, its own key) does not verify', { timeout: 60_000 }, async () => {
    const a = await small('swap-a');
    const b = await small('swap-b');
    try {
      await archiveAudit(a.table, a.folder, a.name, { out: a.out, before: { seq: 1001 }, segmentRecords: 500 });
      await archiveAudit(b.table, b.folder, b.name, { out: b.out, before: { seq: 1001 }, segmentRecords: 500 });
      for (const f of ['seg-000000000501-000000001000.jsonl.gz', 'seg-000000000501-000000001000.manifest.json']) writeFileSync(join(a.out, f), readFileSync(join(b.out, f)));
      const result = await verifyArchive(a.table, a.folder, a.name, a.out);
      assert.equal(result.ok, false);
      assert.ok(result.problems.some((p) => p.seq === 501 && /manifest seg-000000000501-000000001000\.manifest\.json of .* does not verify with the anchor key/.test(p.problem)), JSON.stringify(result.problems));
      assert.ok(result.problems.some((p) => /records 501\.\.1000 are missing from the archive/.test(p.problem)));
    } finally {
      a.table.close();
      b.table.close();
    }
  });

  it('extra segment file without a manifest is named', { timeout: 60_000 }, async () => {
    const { folder, out, name, table } = await small('extra');
    try {
      await archiveAudit(table, folder, name, { out, before: { seq: 1001 }, segmentRecords: 500 });
      writeFileSync(join(out, 'seg-000000001001-000000001500.jsonl.gz'), gzipSync('{}\n'));
      const result = await verifyArchive(table, folder, name, out);
      assert.deepEqual(
        result.problems.map((p) => p.problem),
        ['segment seg-000000001001-000000001500.jsonl.gz has no manifest: it cannot be verified (an extra segment, or its manifest was removed)'],
      );
    } finally {
      table.close();
    }
  });

  it('live row rewritten before archiving: the archiver refuses to seal it, nothing is sealed or removed', { timeout: 60_000 }, async () => {
    const { folder, file, out, name, table } = await small('tampered-live');
    try {
      const db = new Database(file);
      db.prepare(`UPDATE audit SET line = replace(line, '"outcome":"ok"', '"outcome":"denied"') WHERE seq = 700`).run();
      db.close();
      await assert.rejects(archiveAudit(table, folder, name, { out, before: { seq: 1001 }, segmentRecords: 500 }), /not intact where it is to be archived; nothing was archived from record 501 on: record 700: the record does not match its hash/);
      assert.equal(table.pruned().seq, 0);
      assert.equal(table.rows(1, 2000, 5000).length, 2000);
      // The segment before the rewritten row was sealed (it verified), but no checkpoint: nothing counts as archived yet.
      assert.deepEqual((await pruneFindings(table, folder, name)).problems, []);
      assert.deepEqual(
        readdirSync(out).filter((f) => f.endsWith('.gz')),
        ['seg-000000000001-000000000500.jsonl.gz'],
      );
    } finally {
      table.close();
    }
  });

  it('a segment an earlier run sealed past this run\'s cut is reused as sealed (no overlapping segment)', { timeout: 60_000 }, async () => {
    const { folder, out, name, table } = await small('past-cut');
    try {
      // An earlier run sealed 1..800 and was stopped while copying the next segment (before any checkpoint).
      const killed = crashing(table, { crashRows: (from, to) => from !== to && from > 800 });
      await assert.rejects(archiveAudit(killed, folder, name, { out, before: { seq: 1601 }, segmentRecords: 800 }), /killed/);
      assert.equal((await pruneFindings(table, folder, name)).checkpoint, undefined);
      const result = await archiveAudit(table, folder, name, { out, before: { seq: 301 } });
      assert.deepEqual(
        result.segments.map((s) => [s.first, s.last, s.reused]),
        [[1, 800, true]],
      );
      assert.equal((await verifyArchive(table, folder, name, out)).ok, true);
    } finally {
      table.close();
    }
  });

  it('the head and the anchored record stay live whatever the cut', { timeout: 60_000 }, async () => {
    const { folder, out, name, table } = await small('head', 100);
    try {
      folder.write('audit', name, { seq: 90, hash: (table.rows(90, 90, 1)[0] as { hash: string }).hash, time: new Date().toISOString() });
      const result = await archiveAudit(table, folder, name, { out, before: { time: '2100-01-01T00:00:00.000Z' } });
      assert.equal(result.pruned.seq, 89);
      assert.equal(table.rows(90, 100, 100).length, 11);
      assert.equal((await verifyArchive(table, folder, name, out)).ok, true);
    } finally {
      table.close();
    }
  });

  it('a time cut archives the records before it', { timeout: 60_000 }, async () => {
    const { folder, out, name, table } = await small('time', 1000);
    try {
      const result = await archiveAudit(table, folder, name, { out, before: { time: new Date(BASE + 400 * 1000).toISOString() }, segmentRecords: 150 });
      assert.equal(result.pruned.seq, 399);
      assert.deepEqual(
        result.segments.map((s) => s.count),
        [150, 150, 99],
      );
      assert.equal((await verifyArchive(table, folder, name, out)).ok, true);
    } finally {
      table.close();
    }
  });
});

describe('audit archive: a crash mid-way loses and duplicates nothing', () => {
  async function small(label: string): Promise<{ folder: AnchorFolder; out: string; name: string; table: AuditTable }> {
    const folder = AnchorFolder.open(join(dir, `anchor-${label}`));
    const file = join(dir, `${label}.db`);
    const name = `file:${file}`;
    await writeLog(file, 3000, folder, name);
    return { folder, out: join(dir, `archive-${label}`), name, table: AuditTable.open(file) };
  }

  it('stopped while sealing segments: the re-run reuses the sealed ones and writes the rest once', { timeout: 60_000 }, async () => {
    const { folder, out, name, table } = await small('crash-seal');
    try {
      // The "crash": reading the live log fails after two segments (of 400) were sealed.
      let reads = 0;
      const killed = crashing(table, { crashRows: (from, to) => from !== to && ++reads > 2 });
      await assert.rejects(archiveAudit(killed, folder, name, { out, before: { seq: 2001 }, segmentRecords: 400 }), /killed/);
      assert.equal(table.pruned().seq, 0, 'nothing was removed');
      assert.equal(table.verify().records, 3000);
      writeFileSync(join(out, '.seg-000000000801.deadbeef0000.tmp'), 'half a segment');
      const result = await archiveAudit(table, folder, name, { out, before: { seq: 2001 }, segmentRecords: 400 });
      assert.deepEqual(
        result.segments.map((s) => [s.first, s.last, s.reused]),
        [
          [1, 400, true],
          [401, 800, true],
          [801, 1200, false],
          [1201, 1600, false],
          [1601, 2000, false],
        ],
      );
      assert.equal(readdirSync(out).filter((f) => f.endsWith('.jsonl.gz')).length, 5);
      const archived = await verifyArchive(table, folder, name, out);
      assert.equal(archived.ok, true, JSON.stringify(archived.problems));
      assert.equal(archived.records, 2000);
      assert.equal(table.verify().records, 1000);
    } finally {
      table.close();
    }
  });

  it('stopped while removing: verify says archived-not-removed (no gap), and the re-run finishes', { timeout: 60_000 }, async () => {
    const { folder, out, name, table } = await small('crash-prune');
    try {
      const killed = crashing(table, { crashPrune: true });
      // The crash comes after the segments and the archive's checkpoint, before the first removal...
      await assert.rejects(archiveAudit(killed, folder, name, { out, before: { seq: 2001 } }), /killed/);
      assert.equal(table.pruned().seq, 0);
      // ...or after the first chunk's removal (1..1000 with the marker, in one transaction).
      table.prune(1000, liveHash(table, 1000));
      const findings = await pruneFindings(table, folder, name);
      assert.deepEqual(findings.problems, []);
      assert.match(findings.notes.join('\n'), /records 1001\.\.2000 are archived .* but not yet removed from the live log/);
      assert.equal(table.verify().ok, true);
      assert.equal((await verifyArchive(table, folder, name, out)).ok, true);
      const result = await archiveAudit(table, folder, name, { out, before: { seq: 1500 } });
      assert.equal(result.pruned.seq, 2000, 'the interrupted run\'s checkpoint is honoured');
      assert.ok(result.segments.every((s) => s.reused));
      assert.equal(result.removed, 1000);
      assert.deepEqual((await pruneFindings(table, folder, name)).problems, []);
      assert.equal((await verifyArchive(table, folder, name, out)).ok, true);
    } finally {
      table.close();
    }
  });
});
