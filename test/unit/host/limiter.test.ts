import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { Limiter } from '../../../src/host/limiter.js';
import { McpError } from '../../../src/util/errors.js';
import { LazyAbort } from '../../../src/util/lazyAbort.js';

function deferred(): { promise: Promise<void>; resolve: () => void } {
  let resolve!: () => void;
  const promise = new Promise<void>((r) => (resolve = r));
  return { promise, resolve };
}

describe('host/limiter', () => {
  it('runs at most max tasks at once and the rest in FIFO order', async () => {
    const limiter = new Limiter({ max: 2, name: 's' });
    const gates = [deferred(), deferred(), deferred(), deferred()];
    const order: number[] = [];
    const runs = gates.map((g, i) =>
      limiter.run(async () => {
        order.push(i);
        await g.promise;
      }),
    );
    await Promise.resolve();
    assert.deepEqual(order, [0, 1]);
    assert.equal(limiter.active, 2);
    assert.equal(limiter.queued, 2);
    gates[1]?.resolve();
    await runs[1];
    await Promise.resolve();
    assert.deepEqual(order, [0, 1, 2]);
    gates[0]?.resolve();
    gates[2]?.resolve();
    gates[3]?.resolve();
    await Promise.all(runs);
    assert.deepEqual(order, [0, 1, 2, 3]);
    assert.equal(limiter.active, 0);
  });

  it('a flood beyond the queue bound fails at once with ERR_MCP_LIMIT_EXCEEDED naming the server', async () => {
    const limiter = new Limiter({ max: 1, maxQueued: 1, name: 'slow-server' });
    const gate = deferred();
    const first = limiter.run(() => gate.promise);
    const second = limiter.run(() => Promise.resolve());
    await assert.rejects(limiter.run(() => Promise.resolve()), (e: unknown) => e instanceof McpError && e.code === 'ERR_MCP_LIMIT_EXCEEDED' && /slow-server/.test(e.message));
    gate.resolve();
    await Promise.all([first, second]);
  });

  for (const kind of ['AbortSignal', 'LazyAbort'] as const) {
    it(`a cancelled waiter leaves the queue with its reason and never runs (${kind})`, async () => {
      const limiter = new Limiter({ max: 1, name: 's' });
      const gate = deferred();
      const first = limiter.run(() => gate.promise);
      const controller = new AbortController();
      const lazy = new LazyAbort();
      let ran = false;
      const waiting = limiter.run(
        async () => {
          ran = true;
        },
        kind === 'LazyAbort' ? lazy : controller.signal,
      );
      if (kind === 'LazyAbort') lazy.abort('caller left');
      else controller.abort('caller left');
      await assert.rejects(waiting, (e: unknown) => e instanceof McpError && e.code === 'ERR_MCP_REQUEST_CANCELLED' && e.cause === 'caller left');
      assert.equal(limiter.queued, 0);
      gate.resolve();
      await first;
      assert.equal(ran, false);
      assert.equal(limiter.active, 0);
    });
  }

  it('a LazyAbort already aborted takes no slot', () => {
    const limiter = new Limiter({ max: 1, name: 's' });
    const abort = new LazyAbort();
    abort.abort('gone');
    assert.equal(limiter.tryAcquire(abort), undefined);
    assert.equal(limiter.active, 0);
  });

  it('rejectQueued fails the waiters with the given error', async () => {
    const limiter = new Limiter({ max: 1, name: 's' });
    const gate = deferred();
    const first = limiter.run(() => gate.promise);
    const waiting = limiter.run(() => Promise.resolve());
    limiter.rejectQueued(new Error('gone'));
    await assert.rejects(waiting, /gone/);
    gate.resolve();
    await first;
  });

  it('refuses a max below 1', () => {
    assert.throws(() => new Limiter({ max: 0, name: 'x' }), /maxConcurrency of server x/);
  });
});
