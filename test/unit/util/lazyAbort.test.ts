import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { LazyAbort, abortReasonOf, listenAbort, onAbortOf, signalOf } from '../../../src/util/lazyAbort.js';

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

  it('onAbort listeners fire once on abort without the signal ever being created', () => {
    const state = new LazyAbort();
    const calls: string[] = [];
    state.onAbort(() => calls.push('a'));
    const off = state.onAbort(() => calls.push('removed'));
    state.onAbort(() => calls.push('b'));
    off();
    state.abort('cancelled');
    state.abort('again');
    assert.deepEqual(calls, ['a', 'b']);
    // Read only now: created aborted, with the first reason.
    assert.equal(state.signal.aborted, true);
    assert.equal(state.signal.reason, 'cancelled');
  });

  it('onAbort after the signal was read listens on the signal, and its remover removes it', () => {
    const state = new LazyAbort();
    const signal = state.signal;
    const calls: string[] = [];
    state.onAbort(() => calls.push('kept'));
    const off = state.onAbort(() => calls.push('removed'));
    off();
    state.abort('x');
    assert.equal(signal.aborted, true);
    assert.deepEqual(calls, ['kept']);
  });

  it('onAbort after the abort calls nothing, as addEventListener on an aborted signal would not', () => {
    const state = new LazyAbort();
    state.abort('early');
    let fired = false;
    const off = state.onAbort(() => (fired = true));
    off();
    assert.equal(fired, false);
  });

  it('onAbortOf falls back to a once-listener on the signal of a source without onAbort', () => {
    const controller = new AbortController();
    const calls: string[] = [];
    onAbortOf({ signal: controller.signal }, () => calls.push('heard'));
    const off = onAbortOf({ signal: controller.signal }, () => calls.push('removed'));
    off();
    controller.abort();
    controller.abort();
    assert.deepEqual(calls, ['heard']);
  });

  it('AbortLike: listenAbort, abortReasonOf and signalOf read an AbortSignal and a LazyAbort alike', () => {
    const controller = new AbortController();
    const lazy = new LazyAbort();
    const heard: string[] = [];
    const offSignal = listenAbort(controller.signal, () => heard.push('signal'));
    listenAbort(lazy, () => heard.push('lazy'));
    const offLazy = listenAbort(lazy, () => heard.push('removed'));
    offLazy();
    controller.abort('r1');
    lazy.abort('r2');
    offSignal();
    assert.deepEqual(heard, ['signal', 'lazy']);
    assert.equal(abortReasonOf(controller.signal), 'r1');
    assert.equal(abortReasonOf(lazy), 'r2');
    assert.equal(signalOf(controller.signal), controller.signal);
    assert.equal(signalOf(lazy), lazy.signal);
    assert.equal(signalOf(lazy).reason, 'r2');
  });

  it('listenAbort on an AbortSignal: the remover stops the listener, and an abort before listening is not reported', () => {
    const controller = new AbortController();
    let heard = 0;
    const off = listenAbort(controller.signal, () => heard++);
    off();
    controller.abort();
    assert.equal(heard, 0);
    listenAbort(controller.signal, () => heard++);
    assert.equal(heard, 0);
    assert.equal(abortReasonOf(new LazyAbort()), undefined);
  });
});
