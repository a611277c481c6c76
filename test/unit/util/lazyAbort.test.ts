import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { LazyAbort } from '../../../src/util/lazyAbort.js';

describe('util/lazyAbort', () => {
  it('an abort before the signal is read is applied when it is created, with the first reason', () => {
    const state = new LazyAbort();
    state.abort('first');
    state.abort('second');
    assert.equal(state.aborted, true);
    assert.equal(state.abortReason, 'first');
    assert.equal(state.signal.aborted, true);
    assert.equal(state.signal.reason, 'first');
  });

  it('a signal read before the abort fires once, and is the same signal every time', () => {
    const state = new LazyAbort();
    const signal = state.signal;
    let fired = 0;
    signal.addEventListener('abort', () => fired++);
    assert.equal(state.signal, signal);
    state.abort(new Error('gone'));
    state.abort(new Error('again'));
    assert.equal(fired, 1);
    assert.equal((signal.reason as Error).message, 'gone');
  });
});
