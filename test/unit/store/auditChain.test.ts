import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import type { AuditEntry } from '../../../src/host/audit.js';
import { AUDIT_GENESIS, ChainVerifier, chainRecord, compactLine, fullLine, sha256Text, type AuditRow } from '../../../src/store/auditChain.js';
import { canonicalize } from '../../../src/util/canonicalJson.js';

/** An entry with every member an audit entry can have. */
const FULL: AuditEntry = {
  time: '2026-01-02T03:04:05.678Z',
  kind: 'request',
  method: 'server/request',
  serverMethod: 'elicitation/create',
  principal: 'alice',
  session: 's-1',
  server: 'notes',
  name: 'notes__read',
  arguments: { b: [1, 2e21, 'é'], a: { z: null, y: true } },
  decisions: [{ interceptor: 'policy', outcome: 'allow', detail: { rule: 'default', reasons: [] } }],
  outcome: 'denied',
  error: 'ERR_MCP_DENIED: no',
  latencyMs: 1.25,
};

/** The canonical text of the record as the module comment defines it: the whole record canonicalised. */
function expectedLine(entry: AuditEntry, seq: number, prev: string): string {
  const { arguments: args, ...rest } = entry;
  return canonicalize({ seq, ...rest, ...(args !== undefined ? { argumentsDigest: sha256Text(canonicalize(args)) } : {}), prev });
}

describe('store/auditChain: chainRecord', () => {
  it('writes the RFC 8785 text of the whole record, for an entry with every member', () => {
    const row = chainRecord(FULL, 7, AUDIT_GENESIS);
    assert.equal(row.line, expectedLine(FULL, 7, AUDIT_GENESIS));
    assert.equal(row.hash, sha256Text(row.line));
    assert.deepEqual(JSON.parse(row.line), { ...Object.fromEntries(Object.entries(row.record).filter(([k]) => k !== 'hash')) });
  });

  it('writes the same text for a minimal entry, and for one carrying a member no entry declares', () => {
    const minimal: AuditEntry = { time: FULL.time, kind: 'policy', method: 'policy/reload', decisions: [], outcome: 'ok', latencyMs: 0 };
    assert.equal(chainRecord(minimal, 1, AUDIT_GENESIS).line, expectedLine(minimal, 1, AUDIT_GENESIS));
    const extra = { ...FULL, aaa: 1, zzz: 'last' } as AuditEntry;
    const line = chainRecord(extra, 2, AUDIT_GENESIS).line;
    assert.equal(line, expectedLine(extra, 2, AUDIT_GENESIS));
    assert.ok(line.startsWith('{"aaa":1,') && line.endsWith(',"zzz":"last"}'));
  });

  it('writes the same text with several decisions, first or after the digest, and with no decision at all', () => {
    const three = [
      { interceptor: 'trust.scanner', outcome: 'observe', reason: '1 scanner finding(s)', detail: { rules: ['a/b'] } },
      Object.freeze({ interceptor: 'policy', outcome: 'allow', detail: Object.freeze({ rule: 'default', reasons: Object.freeze([]) }) }),
      { interceptor: 'guard.sanitize', outcome: 'change', reason: 'x"y\\z\u0001', detail: { injection: true, markers: ['m'] } },
    ] as const;
    for (const entry of [
      { ...FULL, decisions: three },
      { time: FULL.time, kind: 'request', method: 'tools/list', decisions: three, outcome: 'ok', latencyMs: 3 },
      { time: FULL.time, kind: 'request', method: 'tools/list', decisions: [], outcome: 'ok', latencyMs: 3 },
      { ...FULL, decisions: [] },
    ] as AuditEntry[]) {
      for (const seq of [1, 12_345]) assert.equal(chainRecord(entry, seq, 'sha256:' + 'ab'.repeat(32)).line, expectedLine(entry, seq, 'sha256:' + 'ab'.repeat(32)));
    }
  });

  it('writes every string member as JSON.stringify would: quotes, backslashes, control characters, pairs of surrogates, U+2028; and more pieces than its first array holds', () => {
    const odd = 'a"b\\c\u0001d\u001f e\u2028f\u{1F600}g/h';
    const many = Array.from({ length: 70 }, (_, i) => ({ interceptor: `i${i}`, outcome: 'observe' as const, reason: `r${i}` }));
    for (const entry of [
      { ...FULL, kind: odd, method: odd, name: odd, outcome: odd, principal: odd, server: odd, serverMethod: odd, session: odd, error: odd, time: odd },
      { ...FULL, decisions: many },
      FULL,
    ] as AuditEntry[]) {
      for (const prev of [AUDIT_GENESIS, odd]) assert.equal(chainRecord(entry, 3, prev).line, expectedLine(entry, 3, prev));
    }
  });

  it('a record given up half way (a lone surrogate in a member) leaves nothing behind for the next one', () => {
    assert.throws(() => chainRecord({ ...FULL, name: 'x\ud800' }, 1, AUDIT_GENESIS));
    const minimal: AuditEntry = { time: FULL.time, kind: 'request', method: 'tools/list', decisions: [], outcome: 'ok', latencyMs: 0 };
    assert.equal(chainRecord(minimal, 2, AUDIT_GENESIS).line, expectedLine(minimal, 2, AUDIT_GENESIS));
  });

  it('writes a decision object recorded again after a change with its new text (only frozen decisions are remembered)', () => {
    const frozen = Object.freeze({ interceptor: 'policy', outcome: 'allow', detail: Object.freeze({ rule: 'default', reasons: Object.freeze([]) }) });
    const mutable: { interceptor: string; outcome: string; reason?: string } = { interceptor: 'scanner', outcome: 'observe', reason: 'first' };
    const entry = (): AuditEntry => ({ ...FULL, decisions: [frozen, mutable] as AuditEntry['decisions'] });
    const first = chainRecord(entry(), 1, AUDIT_GENESIS);
    assert.equal(first.line, expectedLine(entry(), 1, AUDIT_GENESIS));
    mutable.reason = 'second';
    const second = chainRecord(entry(), 2, first.hash);
    assert.equal(second.line, expectedLine(entry(), 2, first.hash));
    assert.match(second.line, /"reason":"second"/);
    // A frozen decision whose detail is not frozen is not remembered either.
    const detail = { rules: ['a'] };
    const shallow = Object.freeze({ interceptor: 'scanner', outcome: 'observe', detail });
    assert.match(chainRecord({ ...FULL, decisions: [shallow] }, 3, AUDIT_GENESIS).line, /"rules":\["a"\]/);
    detail.rules.push('b');
    assert.match(chainRecord({ ...FULL, decisions: [shallow] }, 4, AUDIT_GENESIS).line, /"rules":\["a","b"\]/);
  });

  it('keeps the record object of the entry: every member but the arguments, then the digest, prev and hash', () => {
    const row = chainRecord(FULL, 7, AUDIT_GENESIS);
    assert.deepEqual(Object.keys(row.record), ['seq', ...Object.keys(FULL).filter((k) => k !== 'arguments'), 'argumentsDigest', 'prev', 'hash']);
    assert.equal(row.record.argumentsDigest, sha256Text(canonicalize(FULL.arguments)));
  });

  it('refuses an entry that is not I-JSON with the path of the offending value (a lone surrogate in a reason)', () => {
    const bad: AuditEntry = { ...FULL, decisions: [{ interceptor: 'policy', outcome: 'deny', reason: 'x\uD800' }] };
    assert.throws(() => chainRecord(bad, 1, AUDIT_GENESIS), /\$\.decisions\[0\]\.reason/);
  });

  it('chains: a verifier accepts records made one after another and names an edited one', () => {
    const first = chainRecord(FULL, 1, AUDIT_GENESIS);
    const second = chainRecord({ ...FULL, outcome: 'ok' }, 2, first.hash);
    const intact = new ChainVerifier();
    intact.add(first);
    intact.add(second);
    assert.equal(intact.result().ok, true);
    const edited = new ChainVerifier();
    edited.add({ ...first, line: first.line.replace('"denied"', '"ok"') });
    edited.add(second);
    assert.deepEqual(edited.result().problems.map((p) => p.seq), [1]);
  });
});

/** A decision frozen all the way down, as the policy's default allow is. */
function frozen<T>(value: T): T {
  if (value !== null && typeof value === 'object') for (const v of Object.values(value)) frozen(v);
  return Object.freeze(value);
}

describe('store/auditChain: what a store may keep apart (storage, the hashed text unchanged)', () => {
  const tricky = frozen({ interceptor: 'policy', outcome: 'allow' as const, detail: { '"decisions":[': '"argumentsDigest":"sha256:', reasons: ['}', ',"prev":"'] } });

  it('a line written member by member can be kept without its digest and its frozen decisions, and is restored exactly', () => {
    for (const e of [{ ...FULL, decisions: [tricky] }, { ...FULL, decisions: [tricky, tricky] }, { ...FULL, arguments: undefined, decisions: [tricky] }, { ...FULL, decisions: [] }]) {
      const { arguments: args, ...rest } = e;
      const entry: AuditEntry = args === undefined ? rest : e;
      const row = chainRecord(entry, 3, AUDIT_GENESIS);
      assert.equal(row.memberwise, true);
      assert.equal(row.sharedDecisions, canonicalize(entry.decisions));
      const compact = compactLine(row, row.sharedDecisions);
      assert.equal(compact.decisions, true);
      assert.equal(compact.digest === undefined ? undefined : `sha256:${compact.digest}`, row.record.argumentsDigest);
      assert.equal(compact.line.includes('argumentsDigest') || compact.line.includes(row.sharedDecisions ?? ''), false, compact.line);
      assert.deepEqual(Object.keys(JSON.parse(compact.line) as object).includes('decisions'), false);
      assert.equal(fullLine(compact.line, compact.digest, row.sharedDecisions), row.line);
      // Without a text to refer to, only the digest goes.
      const digestOnly = compactLine(row, undefined);
      assert.equal(digestOnly.decisions, false);
      assert.equal(fullLine(digestOnly.line, digestOnly.digest, undefined), row.line);
    }
  });

  it('decisions that are not all frozen, and lines not written member by member, are kept whole', () => {
    assert.equal(chainRecord({ ...FULL, decisions: [tricky, { interceptor: 'scan', outcome: 'observe' }] }, 1, AUDIT_GENESIS).sharedDecisions, undefined);
    const extra = chainRecord({ ...FULL, decisions: [tricky], extra: 1 } as AuditEntry, 1, AUDIT_GENESIS);
    assert.equal(extra.sharedDecisions, undefined);
    assert.equal(extra.memberwise, false);
    assert.deepEqual(compactLine(extra, canonicalize([tricky])), { line: extra.line, digest: undefined, decisions: false });
  });

  it('a text that is not the one where the member is written is not cut', () => {
    const row = chainRecord({ ...FULL, decisions: [tricky] }, 1, AUDIT_GENESIS);
    const compact = compactLine(row, '[]');
    assert.equal(compact.decisions, false);
    assert.equal(fullLine(compact.line, compact.digest, undefined), row.line);
  });
});

describe('store/auditChain: rows whose hash is not stored', () => {
  /** Rows 1..4 chained, every hash but the last not stored (''). */
  function unhashed(): AuditRow[] {
    const rows: AuditRow[] = [];
    let prev = AUDIT_GENESIS;
    for (let seq = 1; seq <= 4; seq++) {
      const row = chainRecord({ ...FULL, name: `t${seq}` }, seq, prev);
      rows.push({ seq, line: row.line, hash: seq === 4 ? row.hash : '' });
      prev = row.hash;
    }
    return rows;
  }
  const check = (rows: readonly AuditRow[]) => {
    const verifier = new ChainVerifier();
    for (const row of rows) verifier.add(row);
    return verifier.result();
  };

  it('verify intact, with the head the last row stores', () => {
    const rows = unhashed();
    assert.deepEqual(check(rows), { ok: true, records: 4, head: rows[3]?.hash, problems: [] });
  });

  it("an edited one is named by the next row's link, as a stored hash would name it", () => {
    const rows = unhashed().map((r) => (r.seq === 2 ? { ...r, line: r.line.replace('"denied"', '"ok"') } : r));
    assert.deepEqual(check(rows).problems.map((p) => [p.seq, p.problem]), [[2, 'the record does not match its hash (edited)']]);
  });

  it('one whose own link (prev) was rewritten is named itself, not the record before it', () => {
    const rows = unhashed().map((r) => (r.seq === 3 ? { ...r, line: r.line.replace(/"prev":"sha256:[0-9a-f]{64}"/, `"prev":"${AUDIT_GENESIS}"`) } : r));
    const problems = check(rows).problems;
    assert.equal(problems.some((p) => p.seq === 2), false, JSON.stringify(problems));
    assert.deepEqual([...new Set(problems.map((p) => p.seq))], [3]);
  });

  it('a deleted one is a gap, not an edit of its neighbour', () => {
    const rows = unhashed().filter((r) => r.seq !== 2);
    const problems = check(rows).problems;
    assert.equal(problems.some((p) => p.seq === 1), false);
    assert.ok(problems.some((p) => p.seq === 3 && /missing \(deleted\)/.test(p.problem)), JSON.stringify(problems));
  });
});
