// `switchboard audit archive` and `audit verify --archive` as a real process, as a person runs
// them on the gateway's audit log (a config's state folder): archive, verify live and
// archived, then an archived segment deleted and a prune marker forged, both reported.
import assert from 'node:assert/strict';
import { readFileSync, writeFileSync } from 'node:fs';
import { mkdtemp, readdir, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { gunzipSync, gzipSync } from 'node:zlib';
import { after, before, describe, it } from 'node:test';
import Database from 'better-sqlite3';
import { SqliteAuditLog } from '../../../src/store/sqliteAudit.js';
import { cli } from './cliProcess.js';

const TIMEOUT = { timeout: 120_000 };

describe('cli: switchboard audit archive / verify --archive', () => {
  let dir: string;
  let config: string;
  let archive: string;
  let env: Record<string, string>;
  before(async () => {
    dir = await mkdtemp(join(tmpdir(), 'switchboard-archive-cli-'));
    config = join(dir, 'switchboard.json');
    archive = join(dir, 'archive');
    env = { SWITCHBOARD_ANCHOR_DIR: join(dir, 'anchor') };
    await writeFile(config, JSON.stringify({ mcpServers: {}, switchboard: { stateDir: '.switchboard' } }));
    const log = SqliteAuditLog.open(join(dir, '.switchboard', 'audit.db'), { durability: 'batch' });
    await Promise.all(Array.from({ length: 5000 }, (_, i) => log.append({ time: new Date(Date.parse('2026-01-01T00:00:00Z') + i * 1000).toISOString(), kind: 'request', method: 'tools/call', server: 'fs', name: 'read', decisions: [], outcome: 'ok', latencyMs: 1 })));
    await log.close();
  });
  after(() => rm(dir, { recursive: true, force: true }));

  it('archive moves the records before --before into sealed segments; verify checks live, then the whole history with --archive', TIMEOUT, async () => {
    const archived = await cli(['audit', 'archive', '--config', config, '--before', '3001', '--out', archive, '--segment-records', '1000'], env);
    assert.equal(archived.code, 0, archived.stderr);
    assert.deepEqual(archived.stdout.trim().split('\n'), [
      'sealed seg-000000000001-000000001000.jsonl.gz: records 1..1000 (1000)',
      'sealed seg-000000001001-000000002000.jsonl.gz: records 1001..2000 (1000)',
      'sealed seg-000000002001-000000003000.jsonl.gz: records 2001..3000 (1000)',
      `archived to ${archive}; removed 3000 records from the live log, which now starts at record 3001`,
    ]);
    assert.deepEqual((await readdir(archive)).filter((f) => f.startsWith('seg-')).length, 6);

    const live = await cli(['audit', 'verify', '--config', config], env);
    assert.equal(live.code, 0, live.stdout + live.stderr);
    assert.match(live.stdout, /^intact: 2000 live records \(from record 3001\), head sha256:[0-9a-f]{64}$/m);
    assert.match(live.stdout, /records 1\.\.3000 are archived \(checkpoint of .*\) and not checked here: --archive DIR checks them/);

    const whole = await cli(['audit', 'verify', '--config', config, '--archive', archive, '--json'], env);
    assert.equal(whole.code, 0, whole.stdout + whole.stderr);
    const report = JSON.parse(whole.stdout) as { ok: boolean; records: number; from: number; archive: { segments: number; records: number; last: number } };
    assert.deepEqual([report.ok, report.records, report.from, report.archive], [true, 2000, 3001, { segments: 3, records: 3000, last: 3000 }]);
  });

  it('an archived segment deleted: verify --archive exits 1 naming the gap', TIMEOUT, async () => {
    await rm(join(archive, 'seg-000000001001-000000002000.jsonl.gz'));
    await rm(join(archive, 'seg-000000001001-000000002000.manifest.json'));
    const verify = await cli(['audit', 'verify', '--config', config, '--archive', archive], env);
    assert.equal(verify.code, 1);
    assert.match(verify.stdout, /^record 1001: records 1001\.\.2000 are missing from the archive: a gap/m);
    assert.match(verify.stdout, /^TAMPERED: 2000 live records \(from record 3001; 2000 archived in 2 segments\)/m);
  });

  it('live rows removed by hand with a forged prune marker: verify (without --archive) reports the gap', TIMEOUT, async () => {
    const db = new Database(join(dir, '.switchboard', 'audit.db'));
    const hash = (db.prepare('SELECT hash FROM audit WHERE seq = 3500').get() as { hash: string }).hash;
    db.prepare('DELETE FROM audit WHERE seq <= 3500').run();
    db.prepare('UPDATE audit_pruned SET seq = 3500, hash = ?').run(hash);
    db.close();
    const verify = await cli(['audit', 'verify', '--config', config], env);
    assert.equal(verify.code, 1);
    assert.match(verify.stdout, /^record 3500: records 3001\.\.3500 were removed from the live log past the archive's checkpoint .*: a gap, not verified$/m);
  });

  it('usage: archive without --before or --out, and --archive outside verify, are refused', TIMEOUT, async () => {
    const noCut = await cli(['audit', 'archive', '--config', config, '--out', archive], env);
    assert.equal(noCut.code, 2);
    assert.match(noCut.stderr, /archive needs --before/);
    const badCut = await cli(['audit', 'archive', '--config', config, '--before', 'yesterday', '--out', archive], env);
    assert.equal(badCut.code, 2);
    assert.match(badCut.stderr, /--before "yesterday" is neither a record number nor an ISO 8601 time/);
    const misplaced = await cli(['audit', 'tail', '--config', config, '--archive', archive], env);
    assert.equal(misplaced.code, 2);
    assert.match(misplaced.stderr, /--archive goes with verify/);
  });
});

describe('cli: a witness\'s signed checkpoint whose record was archived', () => {
  let dir: string;
  let config: string;
  let env: Record<string, string>;
  const append = async (log: SqliteAuditLog, count: number): Promise<void> =>
    void (await Promise.all(Array.from({ length: count }, () => log.append({ time: new Date().toISOString(), kind: 'request', method: 'tools/call', decisions: [], outcome: 'ok', latencyMs: 1 }))));
  before(async () => {
    dir = await mkdtemp(join(tmpdir(), 'switchboard-archive-witness-'));
    config = join(dir, 'switchboard.json');
    env = { SWITCHBOARD_ANCHOR_DIR: join(dir, 'anchor') };
    await writeFile(config, JSON.stringify({ mcpServers: {}, switchboard: { stateDir: '.switchboard' } }));
  });
  after(() => rm(dir, { recursive: true, force: true }));

  it('verify --checkpoint checks it against the archive (with --archive), and finds it rewritten there', TIMEOUT, async () => {
    const file = join(dir, '.switchboard', 'audit.db');
    let log = SqliteAuditLog.open(file);
    await append(log, 2000);
    await log.close();
    const signed = await cli(['audit', 'checkpoint', '--config', config], env);
    assert.equal(signed.code, 0, signed.stderr);
    const checkpoint = join(dir, 'witness.json');
    await writeFile(checkpoint, signed.stdout);
    log = SqliteAuditLog.open(file);
    await append(log, 1000);
    await log.close();
    const archive = join(dir, 'archive');
    assert.equal((await cli(['audit', 'archive', '--config', config, '--before', '2501', '--out', archive], env)).code, 0);

    const liveOnly = await cli(['audit', 'verify', '--config', config, '--checkpoint', checkpoint], env);
    assert.equal(liveOnly.code, 0, liveOnly.stdout);
    assert.match(liveOnly.stdout, /the signed checkpoint's record 2000 is archived \(the live log starts at 2501\): --archive DIR checks it there/);
    const whole = await cli(['audit', 'verify', '--config', config, '--checkpoint', checkpoint, '--archive', archive], env);
    assert.equal(whole.code, 0, whole.stdout);
    assert.match(whole.stdout, /the archive holds the signed checkpoint's record 2000 \(signed .* by key /);

    // The archive rewritten at the checkpoint's record: the segment and the checkpoint both say so.
    const segment = join(archive, 'seg-000000000001-000000002500.jsonl.gz');
    const lines = gunzipSync(readFileSync(segment)).toString('utf8').split('\n');
    lines[1999] = (lines[1999] as string).replace('"outcome":"ok"', '"outcome":"denied"');
    writeFileSync(segment, gzipSync(lines.join('\n')));
    const tampered = await cli(['audit', 'verify', '--config', config, '--checkpoint', checkpoint, '--archive', archive], env);
    assert.equal(tampered.code, 1);
    assert.match(tampered.stdout, /^record 2001: segment seg-000000000001-000000002500\.jsonl\.gz: the link to the previous record is broken/m);
    assert.match(tampered.stdout, /^record 2000: checkpoint .*witness\.json \(signed .*\): the archive holds another record 2000$/m);
  });
});
