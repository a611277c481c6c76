import assert from 'node:assert/strict';
import { getEventListeners } from 'node:events';
import { describe, it } from 'node:test';
import { SignalFanout } from '../../../src/client/signals.js';

describe('client/signals: SignalFanout', () => {
  it('the first call uses the caller signal itself; concurrent calls get children that abort with it', () => {
    const fanout = new SignalFanout();
    const caller = new AbortController();
    const first = fanout.link(caller.signal);
    const second = fanout.link(caller.signal);
    const third = fanout.link(caller.signal);
    assert.equal(first.signal, caller.signal);
    assert.notEqual(second.signal, caller.signal);
    assert.notEqual(third.signal, second.signal);
    assert.equal(getEventListeners(caller.signal, 'abort').length, 1);
    const reason = new Error('user gave up');
    caller.abort(reason);
    for (const link of [first, second, third]) {
      assert.ok(link.signal.aborted);
      assert.equal(link.signal.reason, reason);
      link.release();
    }
  });

  it('many calls sharing one signal leave at most one listener while linked and none after', () => {
    const fanout = new SignalFanout();
    const caller = new AbortController();
    const links = Array.from({ length: 50 }, () => fanout.link(caller.signal));
    assert.equal(getEventListeners(caller.signal, 'abort').length, 1);
    for (const link of links) link.release();
    assert.equal(getEventListeners(caller.signal, 'abort').length, 0);
    // After every release the next call again uses the caller signal directly.
    const again = fanout.link(caller.signal);
    assert.equal(again.signal, caller.signal);
    again.release();
    assert.equal(getEventListeners(caller.signal, 'abort').length, 0);
  });

  it('a released child no longer follows the caller; an already aborted caller yields an aborted signal', () => {
    const fanout = new SignalFanout();
    const caller = new AbortController();
    const first = fanout.link(caller.signal);
    const child = fanout.link(caller.signal);
    child.release();
    assert.equal(getEventListeners(caller.signal, 'abort').length, 0);
    caller.abort(new Error('stop'));
    assert.equal(child.signal.aborted, false);
    first.release();
    const late = fanout.link(caller.signal);
    assert.ok(late.signal.aborted);
    assert.equal((late.signal.reason as Error).message, 'stop');
  });
});
