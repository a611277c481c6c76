import assert from 'node:assert/strict';
import { afterEach, beforeEach, describe, it, mock } from 'node:test';
import type { Progress } from '../../../src/jsonrpc/connection.js';
import type { LoggingMessageParams } from '../../../src/protocol/model/utilities.js';
import { LogRelay, ProgressRelay, Relister, relayCall } from '../../../src/host/notificationLimits.js';

const TIMEOUT = { timeout: 10_000 };
let now = 0;
const clock = (): number => now;
/** Moves the fake clock and the mocked timers together. */
const advance = (ms: number): void => {
  now += ms;
  mock.timers.tick(ms);
};

/** Lets settled promises run their continuations (setImmediate is not mocked). */
const settle = (): Promise<void> => new Promise<void>((resolve) => setImmediate(resolve));

beforeEach(() => {
  now = 1_000_000;
  mock.timers.enable({ apis: ['setTimeout'] });
});
afterEach(() => mock.timers.reset());

describe('ProgressRelay', () => {
  it('notification flood: 10,000 progress in one instant deliver the burst and, when a token is due, only the latest', TIMEOUT, () => {
    const seen: number[] = [];
    const relay = new ProgressRelay((p) => seen.push(p.progress), 10, clock);
    for (let i = 1; i <= 10_000; i++) relay.push({ progress: i, total: 10_000 });
    assert.deepEqual(seen, [1, 2, 3, 4, 5, 6, 7, 8, 9, 10]);
    advance(99);
    assert.equal(seen.length, 10);
    advance(1);
    assert.deepEqual(seen.slice(10), [10_000]);
    advance(1000);
    assert.equal(seen.length, 11, 'nothing more without new progress');
  });

  it('notification flood: a steady flood is cut to the rate', TIMEOUT, () => {
    const seen: number[] = [];
    const relay = new ProgressRelay((p) => seen.push(p.progress), 10, clock);
    // 1,000 a second for 10 seconds.
    for (let i = 1; i <= 10_000; i++) {
      relay.push({ progress: i });
      advance(1);
    }
    relay.flush();
    assert.ok(seen.length <= 10 + 100 + 1, `${seen.length} delivered`);
    assert.equal(seen.at(-1), 10_000);
    assert.deepEqual(seen, [...seen].sort((a, b) => a - b));
  });

  it('flush delivers the kept value at once (the call ended), never twice', TIMEOUT, () => {
    const seen: Progress[] = [];
    const relay = new ProgressRelay((p) => seen.push(p), 1, clock);
    relay.push({ progress: 1 });
    relay.push({ progress: 2 });
    relay.push({ progress: 3, message: 'half' });
    relay.flush();
    assert.deepEqual(seen, [{ progress: 1 }, { progress: 3, message: 'half' }]);
    advance(200);
    relay.flush();
    assert.equal(seen.length, 2);
  });

  it('progress slower than the rate passes unchanged', TIMEOUT, () => {
    const seen: number[] = [];
    const relay = new ProgressRelay((p) => seen.push(p.progress), 10, clock);
    for (let i = 1; i <= 5; i++) {
      relay.push({ progress: i });
      advance(150);
    }
    assert.deepEqual(seen, [1, 2, 3, 4, 5]);
  });
});

describe('LogRelay', () => {
  it('notification flood: past the rate messages are dropped and one summary a second counts them', TIMEOUT, () => {
    const out: LoggingMessageParams[] = [];
    const relay = new LogRelay((p) => out.push(p), 20, 'flood', clock);
    for (let i = 0; i < 1000; i++) relay.push({ level: 'info', data: `log ${i}` });
    assert.equal(out.length, 20, 'the burst');
    advance(1000);
    assert.equal(out.length, 21);
    assert.deepEqual(out[20], { level: 'warning', logger: 'switchboard', data: 'switchboard dropped 980 log messages from server flood (more than 20 per second)' });
    // The bucket refilled meanwhile: the next messages pass.
    relay.push({ level: 'info', data: 'after' });
    assert.equal(out.at(-1)?.data, 'after');
  });

  it('flush sends the summary at once and clears it; nothing dropped, nothing sent', TIMEOUT, () => {
    const out: LoggingMessageParams[] = [];
    const relay = new LogRelay((p) => out.push(p), 1, 's', clock);
    relay.flush();
    assert.equal(out.length, 0);
    relay.push({ level: 'info', data: 'a' });
    relay.push({ level: 'info', data: 'b' });
    relay.flush();
    assert.deepEqual(out.map((p) => p.data), ['a', 'switchboard dropped 1 log message from server s (more than 1 per second)']);
    advance(2000);
    assert.equal(out.length, 2, 'the timer was cleared');
  });
});

describe('Relister', () => {
  it('list_changed storm: 3,000 changes make one re-list at once and one at the window end', TIMEOUT, async () => {
    let relists = 0;
    const relister = new Relister(() => {
      relists++;
      return Promise.resolve();
    }, 500, clock);
    for (let i = 0; i < 3000; i++) relister.changed();
    assert.equal(relists, 1, 'the first at once');
    await settle();
    for (let i = 0; i < 3000; i++) relister.changed();
    advance(499);
    assert.equal(relists, 1);
    advance(1);
    assert.equal(relists, 2, 'the trailing one');
    await settle();
    advance(5000);
    assert.equal(relists, 2, 'nothing more without a change');
  });

  it('a change during a re-list is never lost: one more re-list follows it', TIMEOUT, async () => {
    const running: (() => void)[] = [];
    const relister = new Relister(() => new Promise<void>((resolve) => running.push(resolve)), 0, clock);
    relister.changed();
    relister.changed();
    relister.changed();
    assert.equal(running.length, 1, 're-lists never overlap');
    running[0]?.();
    // The re-list's settling runs the next one (window 0: at once).
    await settle();
    assert.equal(running.length, 2);
    running[1]?.();
    await settle();
    assert.equal(running.length, 2);
  });

  it('stop forgets a pending re-list', TIMEOUT, async () => {
    let relists = 0;
    const relister = new Relister(() => {
      relists++;
      return Promise.resolve();
    }, 500, clock);
    relister.changed();
    await settle();
    relister.changed();
    relister.stop();
    advance(1000);
    relister.changed();
    assert.equal(relists, 1);
  });
});

describe('relayCall', () => {
  it('is undefined when the caller takes neither progress nor logs', TIMEOUT, () => {
    assert.equal(relayCall(undefined, 's', undefined, undefined), undefined);
  });

  it('notification flood: the kept progress and the drop summary are delivered before the call’s result goes on', TIMEOUT, async () => {
    const order: string[] = [];
    const relay = relayCall({ progressPerSecond: 1, logsPerSecond: 1, listChangedWindowMs: 0 }, 's', (p) => order.push(`progress ${p.progress}`), (p) => order.push(String(p.data)));
    assert.ok(relay?.onProgress !== undefined && relay.onLog !== undefined);
    for (let i = 1; i <= 100; i++) relay.onProgress({ progress: i });
    for (let i = 1; i <= 100; i++) relay.onLog({ level: 'info', data: `log ${i}` });
    const result = await relay.around(Promise.resolve('result')).then((r) => {
      order.push(r);
      return r;
    });
    assert.equal(result, 'result');
    assert.deepEqual(order, ['progress 1', 'log 1', 'progress 100', 'switchboard dropped 99 log messages from server s (more than 1 per second)', 'result']);
  });
});
