// The gateway's audit retention as `switchboard gateway` starts it (src/cli/auditRetentionSetup.ts):
// on the config's audit.db, named as the anchor and `audit verify` name it, so what it archives
// verifies with `audit verify --archive` (a mismatch of names would read as a gap).
import assert from 'node:assert/strict';
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { after, before, describe, it } from 'node:test';
import { parseConfig } from '../../../src/host/config.js';
import { createLineLogger } from '../../../src/util/logger.js';
import { SqliteAuditLog } from '../../../src/store/sqliteAudit.js';
import { archiveFindings } from '../../../src/cli/auditArchiveCommand.js';
import { auditFile } from '../../../src/cli/auditFiles.js';
import { startAuditRetention } from '../../../src/cli/auditRetentionSetup.js';
import { storeFileName } from '../../../src/cli/stateAnchors.js';
import { AuditTable } from '../../../src/store/sqliteAuditTable.js';

describe('cli: the gateway\'s audit retention', () => {
  let dir: string;
  before(async () => {
    dir = await mkdtemp(join(tmpdir(), 'sb-retention-setup-'));
  });
  after(() => rm(dir, { recursive: true, force: true }));

  it('archives the config\'s log past keepDays to archiveDir; audit verify --archive finds the whole history intact', { timeout: 60_000 }, async () => {
    const config = parseConfig(JSON.stringify({ mcpServers: {}, switchboard: { stateDir: 'state', audit: { retention: { keepDays: 1, archiveDir: 'archive', segmentRecords: 1000 } } } }), { file: join(dir, 'switchboard.json'), env: {} });
    const log = SqliteAuditLog.open(auditFile(config.stateDir));
    // 3000 records two days old, then 10 of now.
    const old = Date.now() - 2 * 86_400_000;
    await Promise.all(Array.from({ length: 3000 }, (_, i) => log.append({ time: new Date(old + i).toISOString(), kind: 'request', method: 'tools/call', decisions: [], outcome: 'ok', latencyMs: 1 })));
    await Promise.all(Array.from({ length: 10 }, () => log.append({ time: new Date().toISOString(), kind: 'request', method: 'tools/call', decisions: [], outcome: 'ok', latencyMs: 1 })));
    const lines: string[] = [];
    const retention = startAuditRetention(config, createLineLogger((line) => void lines.push(line)));
    assert.ok(retention !== undefined);
    try {
      await retention.run();
      assert.match(lines.join(''), /audit retention: keeping 1 day live, archiving the rest to .*archive \(every 60 min\)/);
      assert.match(lines.join(''), /audit retention: archived records 1\.\.3000 in 3 sealed segments to .*archive; removed 3000 from the live log/);
      // Appends go on after the removal, continuing the chain.
      await log.append({ time: new Date().toISOString(), kind: 'request', method: 'tools/call', decisions: [], outcome: 'ok', latencyMs: 1 });
      assert.equal(log.verify().ok, true);
      const table = AuditTable.open(auditFile(config.stateDir));
      const findings = await archiveFindings(table, storeFileName(auditFile(config.stateDir)), join(dir, 'archive'));
      table.close();
      assert.deepEqual(findings.problems, []);
      assert.deepEqual(findings.archive, { segments: 3, records: 3000, last: 3000 });
    } finally {
      await retention.stop();
      await log.close();
    }
  });

  it('no retention in the config: nothing is started', () => {
    const config = parseConfig(JSON.stringify({ mcpServers: {} }), { file: join(dir, 'none.json'), env: {} });
    assert.equal(startAuditRetention(config, createLineLogger(() => undefined)), undefined);
  });
});
