import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { ReviewNotices } from '../../../src/host/reviewNotices.js';
import type { WithheldItem } from '../../../src/host/hostTypes.js';
import type { Finding, ItemReport } from '../../../src/host/scanner/types.js';

const finding = (rule: string): Finding => ({
  rule,
  family: 'override',
  severity: 'high',
  confidence: 'high',
  blocking: true,
  message: 'm',
  evidence: 'e',
  location: { kind: 'tool', server: 's', item: 'weather', path: '$.description' },
});
const report = (...rules: string[]): ItemReport => ({ kind: 'tool', server: 's', item: 'weather', verdict: 'block', severity: 'high', findings: rules.map(finding) });
const held = (reason: string): WithheldItem => ({ kind: 'tool', name: 'weather', reason, serverId: 's', exposedName: 'weather' });

describe('host/reviewNotices: a quarantine or a scanner block is logged once per item per change', () => {
  it('log flood: the same scanner verdict reported on every refresh is logged once; new rules are logged again', { timeout: 5_000 }, () => {
    const lines: string[] = [];
    const notices = new ReviewNotices((line) => lines.push(line));
    for (let i = 0; i < 5; i++) notices.scannerReport('s', report('override/ignore-previous'));
    assert.deepEqual(lines, ['scanner: tool s/weather: block (override/ignore-previous)']);
    notices.scannerReport('s', report('override/ignore-previous', 'sensitive/ssh-key'));
    assert.equal(lines.length, 2);
    assert.match(lines[1] as string, /sensitive\/ssh-key/);
  });

  it('a quarantine is logged once while it lasts, again when it comes back after it was lifted, and again for a new reason', { timeout: 5_000 }, () => {
    const lines: string[] = [];
    const notices = new ReviewNotices((line) => lines.push(line));
    for (let i = 0; i < 3; i++) notices.withheld([held('changed (text-changed)')]);
    assert.deepEqual(lines, ['quarantined: tool s/weather: changed (text-changed)']);
    notices.withheld([]);
    notices.withheld([held('changed (text-changed)')]);
    notices.withheld([held('rejected')]);
    assert.equal(lines.length, 3);
  });
});
