/**
 * The audit-log contract: one body every implementation passes (SQLite, PostgreSQL), run by
 * `auditLog.test.ts`. Appends resolve only when durable and are grouped (fewer commits than
 * calls arriving together); two instances on the same data write ONE chain; arguments are
 * digested, never stored; and `verify` names each record that was edited or deleted.
 */
import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import type { AuditEntry, AuditLog, AuditReader } from '../../../src/host/audit.js';

/** An audit store as the contract drives it. */
export type ContractAuditLog = AuditLog & AuditReader & { readonly commits: number; close(): Promise<void> };

/** One log, a second instance on the same data, and raw access to damage rows. */
export interface AuditLogHarness {
  readonly log: ContractAuditLog;
  /** Opens another instance (another gateway process) on the same data. */
  readonly peer: () => Promise<ContractAuditLog>;
  /** Replaces the stored text of record `seq`. */
  readonly editLine: (seq: number, line: string) => Promise<void>;
  /** Deletes record `seq`. */
  readonly deleteRecord: (seq: number) => Promise<void>;
}

/** A request entry. */
export function sampleEntry(i: number, args: unknown = { i }): AuditEntry {
  return { time: new Date(1_700_000_000_000 + i).toISOString(), kind: 'request', method: 'tools/call', principal: `p${i % 3}`, server: 's', name: 'echo', arguments: args, decisions: [{ interceptor: 'guard', outcome: 'allow' }], outcome: 'ok', latencyMs: i };
}

/** Runs the contract against the harness `open` yields (a fresh, empty log per test). */
export function auditLogContract(name: string, open: () => Promise<AuditLogHarness>): void {
  describe(`AuditLog contract: ${name}`, () => {
    it('numbers records 1, 2, 3 in a chain that verifies, and reads them back (read, tail)', async () => {
      const { log } = await open();
      for (let i = 0; i < 5; i++) await log.append(sampleEntry(i));
      const all = await log.read();
      assert.deepEqual(all.map((r) => r.seq), [1, 2, 3, 4, 5]);
      assert.equal(all[1]?.prev, all[0]?.hash);
      assert.deepEqual((await log.read({ from: 4 })).map((r) => r.seq), [4, 5]);
      assert.deepEqual((await log.read({ from: 2, limit: 2 })).map((r) => r.seq), [2, 3]);
      assert.deepEqual((await log.tail(2)).map((r) => r.seq), [4, 5]);
      const report = await log.verify();
      assert.deepEqual(report, { ok: true, records: 5, head: all[4]?.hash, problems: [] });
      assert.equal(log.problem, undefined);
    });

    it('append resolves with the record as stored (seq, prev, hash, digest), also for appends grouped into one commit', async () => {
      const { log } = await open();
      const appended = [await log.append(sampleEntry(0)), ...(await Promise.all([1, 2, 3].map((i) => log.append(sampleEntry(i)))))];
      assert.deepEqual(appended, await log.read());
    });

    it('a secret in the arguments never reaches the store: only its digest', async () => {
      const { log } = await open();
      await log.append(sampleEntry(1, { token: 'sk-live-SECRET-123' }));
      const [record] = await log.read();
      assert.match(record?.argumentsDigest ?? '', /^sha256:[0-9a-f]{64}$/);
      assert.doesNotMatch(JSON.stringify(record), /SECRET/);
    });

    it('group commit: 200 appends arriving together are all durable, in fewer transactions than appends', async () => {
      const { log } = await open();
      const before = log.commits;
      await Promise.all(Array.from({ length: 200 }, (_, i) => log.append(sampleEntry(i))));
      const commits = log.commits - before;
      assert.ok(commits >= 1 && commits < 200, `${commits} transactions for 200 appends`);
      const report = await log.verify();
      assert.equal(report.ok, true);
      assert.equal(report.records, 200);
    });

    it('two instances writing at once keep ONE chain that verifies (no fork, no gap)', async () => {
      const harness = await open();
      const other = await harness.peer();
      await Promise.all([
        ...Array.from({ length: 60 }, (_, i) => harness.log.append(sampleEntry(i))),
        ...Array.from({ length: 60 }, (_, i) => other.append(sampleEntry(1000 + i))),
      ]);
      for (const reader of [harness.log, other]) {
        const report = await reader.verify();
        assert.deepEqual({ ok: report.ok, records: report.records, problems: report.problems }, { ok: true, records: 120, problems: [] });
      }
      const latencies = new Set((await harness.log.read()).map((r) => r.latencyMs));
      assert.equal(latencies.size, 120, 'every record of both instances is there once');
      await other.close();
    });

    it('an edited record is found by verify (tampering)', async () => {
      const harness = await open();
      for (let i = 0; i < 4; i++) await harness.log.append(sampleEntry(i));
      const [second] = await harness.log.read({ from: 2, limit: 1 });
      assert.ok(second !== undefined);
      const { hash: _hash, ...stored } = second;
      await harness.editLine(2, JSON.stringify({ ...stored, outcome: 'denied' }));
      const report = await harness.log.verify();
      assert.equal(report.ok, false);
      assert.ok(report.problems.some((p) => p.seq === 2 && /edited/.test(p.problem)), JSON.stringify(report.problems));
    });

    it('a deleted record is found by verify (covering tracks)', async () => {
      const harness = await open();
      for (let i = 0; i < 4; i++) await harness.log.append(sampleEntry(i));
      await harness.deleteRecord(2);
      const report = await harness.log.verify();
      assert.equal(report.ok, false);
      assert.ok(report.problems.some((p) => p.seq === 3 && /deleted/.test(p.problem)), JSON.stringify(report.problems));
    });

    it('close writes what is queued, and a closed log refuses appends', async () => {
      const harness = await open();
      const pending = [harness.log.append(sampleEntry(1)), harness.log.append(sampleEntry(2))];
      await harness.log.close();
      await Promise.all(pending);
      await assert.rejects(harness.log.append(sampleEntry(3)), /closed/);
      const reader = await harness.peer();
      assert.equal((await reader.verify()).records, 2);
      await reader.close();
    });
  });
}
