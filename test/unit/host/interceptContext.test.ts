import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { interceptContext, type Decision } from '../../../src/host/interceptors.js';

const context = () => interceptContext({ method: 'tools/call', principal: undefined, session: undefined, server: { id: 'notes' }, params: {}, signal: new AbortController().signal });

describe('host/interceptors: InterceptContext.record', () => {
  it('a decision that can still change is recorded as a frozen copy: changing it afterwards does not rewrite the record', () => {
    const ctx = context();
    const decision: { -readonly [K in keyof Decision]: Decision[K] } = { interceptor: 'policy', outcome: 'allow', reason: 'rule r1' };
    ctx.record(decision);
    decision.outcome = 'deny';
    decision.reason = 'rewritten after the fact';
    assert.notEqual(ctx.decisions[0], decision);
    assert.equal(Object.isFrozen(ctx.decisions[0]), true);
    assert.deepEqual(ctx.decisions[0], { interceptor: 'policy', outcome: 'allow', reason: 'rule r1' });
  });

  it('a frozen decision is recorded as that very object (one shared default costs the audit log one canonicalisation)', () => {
    const ctx = context();
    const shared: Decision = Object.freeze({ interceptor: 'policy', outcome: 'allow', detail: Object.freeze({ rule: 'default', reasons: Object.freeze([]) }) });
    ctx.record(shared);
    ctx.record(shared);
    assert.equal(ctx.decisions[0], shared);
    assert.equal(ctx.decisions[1], shared);
  });
});
