// `switchboard audit archive` and `audit verify --archive` as a real process, as a person runs
// them on the gateway's audit log (a config's state folder): archive, verify live and
// archived, then an archived segment deleted and a prune marker forged, both reported.
import assert from 'node:assert/strict';
import { mkdtemp, readdir, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
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
