import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import type { AuditRecord } from '../../../../src/host/audit.js';
import type { Decision } from '../../../../src/host/interceptors.js';
import { replayPolicy, unreplayableNeeds } from '../../../../src/host/policy/replay.js';
import { compileRules } from '../../../../src/host/policy/rules.js';

let seq = 0;
function record(method: string, server: string | undefined, name: string | undefined, decisions: Decision[] = [], outcome: AuditRecord['outcome'] = 'ok'): AuditRecord {
  seq++;
  return {
    seq,
    time: new Date(Date.UTC(2026, 11, 2, 4, 0, seq)).toISOString(),
    kind: 'request',
    method,
    principal: 'alice',
    session: 'sess',
    ...(server !== undefined ? { server } : {}),
    ...(name !== undefined ? { name } : {}),
    decisions,
    outcome,
    latencyMs: 1,
    prev: 'sha256:0',
    hash: `sha256:${seq}`,
  };
}

const labels = { notes: { labels: ['private-data' as const], toolLabels: {} }, web: { labels: ['untrusted-content' as const], toolLabels: {} }, chat: { labels: ['egress' as const], toolLabels: {} } };
const allowed: Decision = { interceptor: 'policy', outcome: 'allow', detail: { rule: 'default', reasons: [] } };

describe('host/policy/replay: policy test against the audit log', () => {
  const records = [
    record('tools/list', undefined, undefined),
    record('tools/call', 'notes', 'notes__read', [allowed]),
    record('tools/call', 'web', 'web__fetch', [allowed]),
    record('tools/call', 'chat', 'chat__send', [allowed]),
    record('tools/call', 'chat', 'chat__send', [allowed], 'error'),
  ];

  it('counts hits per rule and lists the recorded calls whose decision would change (session taint rebuilt in order)', () => {
    const rules = compileRules([
      { id: 'no-web', when: 'server.id == "web"', outcome: 'deny' },
      { id: 'never', when: 'tool.name == "nothing"', outcome: 'deny' },
    ]);
    const report = replayPolicy(records, { rules, labels, trifecta: 'ask', separator: '__' });
    assert.equal(report.replayed, 4);
    assert.deepEqual(report.rules.map((r) => [r.rule, r.hits]), [['no-web', 1], ['never', 0]]);
    assert.deepEqual(report.changed.map((c) => [c.record.seq, c.was.outcome, c.now.outcome, c.now.rule]), [
      [records[2]?.seq, 'allow', 'deny', 'no-web'],
      [records[3]?.seq, 'allow', 'ask', 'builtin.trifecta'],
      [records[4]?.seq, 'allow', 'ask', 'builtin.trifecta'],
    ]);
  });

  it('a rule on arguments is reported as "needs arguments", and no change is claimed where it could decide', () => {
    assert.deepEqual(unreplayableNeeds('has(args.to) && principal.claims.role == "x"'), ['arguments', 'claims']);
    const rules = compileRules([{ id: 'evil-to', when: 'has(args.to) && args.to.endsWith("@evil.example")', outcome: 'deny' }]);
    const report = replayPolicy(records, { rules, labels: {}, trifecta: 'ask', separator: '__' });
    assert.deepEqual(report.rules.map((r) => [r.rule, r.hits, r.unreplayable, r.needs]), [['evil-to', 0, 4, ['arguments']]]);
    assert.equal(report.changed.length, 0);
    assert.equal(report.undecided, 4);
  });

  it('a dry-run record counts as what it would have been', () => {
    const dry: Decision = { interceptor: 'policy', outcome: 'observe', detail: { rule: 'no-web', dryRun: true, wouldBe: 'deny' } };
    const report = replayPolicy([record('tools/call', 'web', 'web__fetch', [dry])], { rules: compileRules([{ id: 'no-web', when: 'server.id == "web"', outcome: 'deny' }]), labels: {}, trifecta: 'ask', separator: '__' });
    assert.equal(report.changed.length, 0);
  });
});
