import assert from 'node:assert/strict';
import { describe, it, type TestContext } from 'node:test';
import { CancelledNotification, Connection, ProgressNotification, type Progress, type RequestContext } from '../../../src/jsonrpc/connection.js';
import { McpErrorCode, isMcpError } from '../../../src/util/errors.js';
import { LazyAbort, type AbortLike } from '../../../src/util/lazyAbort.js';
import { ScriptedChannel, capturingLogger, connectedPair, connectionWithRawPeer, deferred, flush, type RawPeer } from './support.js';

/** Watches a promise without letting its rejection go unhandled. */
function watch<T>(promise: Promise<T>): { readonly settled: boolean; readonly outcome: Promise<T | unknown> } {
  const state = { settled: false, outcome: undefined as unknown as Promise<T | unknown> };
  state.outcome = promise.then(
    (v) => ((state.settled = true), v),
    (e: unknown) => ((state.settled = true), e),
  );
  return state;
}

/** A LazyAbort that counts how often its `AbortSignal` is asked for. */
class SignalReadCounter extends LazyAbort {
  signalReads = 0;
  override get signal(): AbortSignal {
    this.signalReads++;
    return super.signal;
  }
}

/** The two kinds of `RequestOptions.signal`: what a test passes, how it aborts, and how many `AbortSignal`s the request made for it. */
const ABORT_KINDS: readonly { readonly name: string; make(): { signal: AbortLike; abort(reason: unknown): void; signalsMade(): number } }[] = [
  {
    name: 'AbortSignal',
    make: () => {
      const controller = new AbortController();
      return { signal: controller.signal, abort: (reason) => controller.abort(reason), signalsMade: () => 0 };
    },
  },
  {
    name: 'LazyAbort',
    make: () => {
      const lazy = new SignalReadCounter();
      return { signal: lazy, abort: (reason) => lazy.abort(reason), signalsMade: () => lazy.signalReads };
    },
  },
];

/** Resolves once `signal` is aborted (at once if it already is). */
function whenAborted(signal: AbortSignal): Promise<void> {
  if (signal.aborted) return Promise.resolve();
  return new Promise((resolve) => signal.addEventListener('abort', () => resolve(), { once: true }));
}

function fakeTimers(t: TestContext): void {
  t.mock.timers.enable({ apis: ['setTimeout'] });
}

/** The cancellation notices a raw peer has received. */
function cancellations(peer: RawPeer): Record<string, unknown>[] {
  return peer.messages.filter((m) => m['method'] === CancelledNotification).map((m) => m['params'] as Record<string, unknown>);
}

async function firstRequestId(peer: RawPeer): Promise<unknown> {
  await peer.waitFor(1);
  return peer.messages[0]!['id'];
}

describe('jsonrpc/connection: incoming cancellation (1.19)', () => {
  it('MUST-19 aborts the handler signal on notifications/cancelled and sends no response', async () => {
    let ctx: RequestContext | undefined;
    const { conn, peer } = await connectionWithRawPeer({
      onRequest: async (_req, c) => {
        ctx = c;
        await whenAborted(c.signal);
        return { finished: 'anyway' };
      },
    });
    await peer.send({ jsonrpc: '2.0', id: 7, method: 'slow' });
    await flush();
    assert.equal(conn.inFlightCount, 1);
    assert.equal(ctx?.signal.aborted, false);
    await peer.send({ jsonrpc: '2.0', method: CancelledNotification, params: { requestId: 7, reason: 'user stop' } });
    await flush(3);
    assert.equal(ctx?.signal.aborted, true);
    assert.ok(isMcpError(ctx?.signal.reason, McpErrorCode.RequestCancelled));
    assert.equal(conn.inFlightCount, 0);
    assert.equal(peer.frames.length, 0, 'a cancelled request is not answered');
  });

  it('sends no error response either when the cancelled handler throws', async () => {
    const { peer } = await connectionWithRawPeer({
      onRequest: (_req, c) =>
        new Promise((_resolve, reject) => c.signal.addEventListener('abort', () => reject(c.signal.reason as Error))),
      onHandlerError: () => {},
    });
    await peer.send({ jsonrpc: '2.0', id: 'abc', method: 'm' });
    await peer.send({ jsonrpc: '2.0', method: CancelledNotification, params: { requestId: 'abc' } });
    await flush(3);
    assert.equal(peer.frames.length, 0);
  });

  it('matches the cancelled id exactly and ignores unknown ids', async () => {
    const signals = new Map<unknown, AbortSignal>();
    const gate = deferred();
    const { peer } = await connectionWithRawPeer({
      onRequest: async (req, c) => {
        signals.set(req.id, c.signal);
        await gate.promise;
        return {};
      },
    });
    await peer.send({ jsonrpc: '2.0', id: 8, method: 'm' });
    await peer.send({ jsonrpc: '2.0', method: CancelledNotification, params: { requestId: '8' } });
    await peer.send({ jsonrpc: '2.0', method: CancelledNotification, params: { requestId: 9 } });
    await peer.send({ jsonrpc: '2.0', method: CancelledNotification, params: { requestId: null } });
    await flush(2);
    assert.equal(signals.get(8)?.aborted, false);
    gate.resolve();
    await peer.waitFor(1);
    assert.deepEqual(peer.messages, [{ jsonrpc: '2.0', id: 8, result: {} }]);
    // Cancelling after the answer is a harmless race.
    await peer.send({ jsonrpc: '2.0', method: CancelledNotification, params: { requestId: 8 } });
    await flush();
    assert.equal(peer.frames.length, 1);
  });

  it('drops notifications a handler tries to send after it was cancelled', async () => {
    const sentAfter = deferred();
    const { peer } = await connectionWithRawPeer({
      onRequest: async (_req, c) => {
        await c.notify('notifications/message', { before: true });
        await whenAborted(c.signal);
        await c.notify('notifications/message', { after: true });
        sentAfter.resolve();
        return {};
      },
    });
    await peer.send({ jsonrpc: '2.0', id: 1, method: 'm' });
    await peer.waitFor(1);
    await peer.send({ jsonrpc: '2.0', method: CancelledNotification, params: { requestId: 1 } });
    await sentAfter.promise;
    await flush();
    assert.deepEqual(peer.messages, [{ jsonrpc: '2.0', method: 'notifications/message', params: { before: true } }]);
  });
});

describe('jsonrpc/connection: outgoing cancellation (1.19)', () => {
  // Each case runs with an AbortSignal and with a LazyAbort, which the request must hear
  // without ever making its AbortSignal (the gateway forwards every call on one).
  for (const kind of ABORT_KINDS) {
    it(`rejects with ERR_MCP_REQUEST_CANCELLED and sends notifications/cancelled with the request id (${kind.name})`, async () => {
      const { conn, peer } = await connectionWithRawPeer();
      const abort = kind.make();
      const call = watch(conn.request('tools/call', { name: 'x' }, { signal: abort.signal }));
      const id = await firstRequestId(peer);
      const reason = new Error('user gave up');
      abort.abort(reason);
      const error = await call.outcome;
      assert.ok(isMcpError(error, McpErrorCode.RequestCancelled));
      assert.equal(error.cause, reason);
      assert.equal(conn.pendingCount, 0);
      await peer.waitFor(2);
      assert.deepEqual(cancellations(peer), [{ requestId: id, reason: 'user gave up' }]);
      assert.equal(abort.signalsMade(), 0);
    });

    it(`rejects at once and sends nothing for an already-aborted signal (${kind.name})`, async () => {
      const { conn, peer } = await connectionWithRawPeer();
      const abort = kind.make();
      abort.abort('early');
      const error = await conn.request('m', {}, { signal: abort.signal }).catch((e: unknown) => e);
      assert.ok(isMcpError(error, McpErrorCode.RequestCancelled));
      assert.equal(error.cause, 'early');
      await flush();
      assert.equal(peer.frames.length, 0);
      assert.equal(conn.pendingCount, 0);
      assert.equal(abort.signalsMade(), 0);
    });

    it(`does nothing when the signal aborts after the answer arrived (${kind.name})`, async () => {
      const { conn, peer } = await connectionWithRawPeer();
      const abort = kind.make();
      const call = conn.request('m', {}, { signal: abort.signal });
      const id = await firstRequestId(peer);
      await peer.send({ jsonrpc: '2.0', id, result: { done: 1 } });
      assert.deepEqual(await call, { done: 1 });
      abort.abort('late');
      await flush();
      assert.deepEqual(cancellations(peer), []);
      assert.equal(abort.signalsMade(), 0);
    });
  }

  it('cancels the handler on the other Connection', async () => {
    const aborted = deferred<unknown>();
    const { a } = await connectedPair(
      {},
      {
        onRequest: (_req, c) =>
          new Promise(() => {
            c.signal.addEventListener('abort', () => aborted.resolve(c.signal.reason));
          }),
      },
    );
    const controller = new AbortController();
    const call = watch(a.request('slow', {}, { signal: controller.signal }));
    await flush();
    controller.abort('stop');
    assert.ok(isMcpError(await call.outcome, McpErrorCode.RequestCancelled));
    assert.ok(isMcpError(await aborted.promise, McpErrorCode.RequestCancelled));
  });

  it('does not tell the peer when notifyCancel is false', async () => {
    const { conn, peer } = await connectionWithRawPeer();
    const controller = new AbortController();
    const call = watch(conn.request('m', {}, { signal: controller.signal, notifyCancel: false }));
    await firstRequestId(peer);
    controller.abort();
    assert.ok(isMcpError(await call.outcome, McpErrorCode.RequestCancelled));
    await flush();
    assert.deepEqual(cancellations(peer), []);
  });

  it('drops a late response to a cancelled request without throwing, and keeps working', async () => {
    const logger = capturingLogger();
    const { conn, peer } = await connectionWithRawPeer({ logger });
    const controller = new AbortController();
    const call = watch(conn.request('m', {}, { signal: controller.signal }));
    const id = await firstRequestId(peer);
    controller.abort();
    await call.outcome;
    await peer.send({ jsonrpc: '2.0', id, result: { late: true } });
    await flush();
    assert.ok(logger.entries.some((e) => e.level === 'warn' && e.fields?.['id'] === id));
    const next = conn.request('again');
    await peer.waitFor(3);
    await peer.send({ jsonrpc: '2.0', id: peer.messages[2]!['id'], result: { ok: 1 } });
    assert.deepEqual(await next, { ok: 1 });
  });
});

describe('jsonrpc/connection: timeouts (fake timers)', () => {
  it('times out with ERR_MCP_REQUEST_TIMEOUT exactly at timeoutMs and sends a cancellation', async (t) => {
    fakeTimers(t);
    const { conn, peer } = await connectionWithRawPeer();
    const call = watch(conn.request('m', {}, { timeoutMs: 1000 }));
    const id = await firstRequestId(peer);
    t.mock.timers.tick(999);
    await flush();
    assert.equal(call.settled, false);
    t.mock.timers.tick(1);
    assert.ok(isMcpError(await call.outcome, McpErrorCode.RequestTimeout));
    assert.equal(conn.pendingCount, 0);
    await peer.waitFor(2);
    const notices = cancellations(peer);
    assert.equal(notices.length, 1);
    assert.equal(notices[0]!['requestId'], id);
    assert.equal(typeof notices[0]!['reason'], 'string');
  });

  it('uses the connection default timeout, and 0 disables it', async (t) => {
    fakeTimers(t);
    const { conn, peer } = await connectionWithRawPeer({ defaultTimeoutMs: 500 });
    const byDefault = watch(conn.request('a'));
    const never = watch(conn.request('b', {}, { timeoutMs: 0 }));
    await peer.waitFor(2);
    t.mock.timers.tick(499);
    await flush();
    assert.equal(byDefault.settled, false);
    t.mock.timers.tick(1);
    assert.ok(isMcpError(await byDefault.outcome, McpErrorCode.RequestTimeout));
    t.mock.timers.tick(10_000_000);
    await flush();
    assert.equal(never.settled, false);
    assert.equal(conn.pendingCount, 1);
  });

  it('does not send a cancellation on timeout when notifyCancel is false', async (t) => {
    fakeTimers(t);
    const { conn, peer } = await connectionWithRawPeer();
    const call = watch(conn.request('m', {}, { timeoutMs: 10, notifyCancel: false }));
    await firstRequestId(peer);
    t.mock.timers.tick(10);
    assert.ok(isMcpError(await call.outcome, McpErrorCode.RequestTimeout));
    await flush();
    assert.deepEqual(cancellations(peer), []);
  });

  it('drops a late response after a timeout without throwing', async (t) => {
    fakeTimers(t);
    const logger = capturingLogger();
    const { conn, peer } = await connectionWithRawPeer({ logger });
    const call = watch(conn.request('m', {}, { timeoutMs: 10 }));
    const id = await firstRequestId(peer);
    t.mock.timers.tick(10);
    assert.ok(isMcpError(await call.outcome, McpErrorCode.RequestTimeout));
    await peer.send({ jsonrpc: '2.0', id, result: {} });
    await peer.send({ jsonrpc: '2.0', id, error: { code: -32603, message: 'late' } });
    await flush();
    assert.equal(logger.entries.filter((e) => e.level === 'warn' && e.fields?.['id'] === id).length, 2);
    assert.equal(conn.closed, false);
  });

  it('resets the timeout whenever progress arrives', async (t) => {
    fakeTimers(t);
    const got: Progress[] = [];
    const { conn, peer } = await connectionWithRawPeer();
    const call = watch(conn.request('long', {}, { timeoutMs: 1000, onProgress: (p) => got.push(p) }));
    await firstRequestId(peer);
    const token = (peer.messages[0]!['params'] as { _meta: { progressToken: unknown } })._meta.progressToken;
    for (let step = 1; step <= 5; step++) {
      t.mock.timers.tick(900);
      await peer.send({ jsonrpc: '2.0', method: ProgressNotification, params: { progressToken: token, progress: step } });
      await flush();
    }
    // 4,500 ms have passed, far beyond 1,000, yet the request lives on.
    assert.equal(call.settled, false);
    assert.deepEqual(got.map((p) => p.progress), [1, 2, 3, 4, 5]);
    t.mock.timers.tick(999);
    await flush();
    assert.equal(call.settled, false);
    t.mock.timers.tick(1);
    assert.ok(isMcpError(await call.outcome, McpErrorCode.RequestTimeout));
  });

  it('keeps the original deadline when resetTimeoutOnProgress is false', async (t) => {
    fakeTimers(t);
    const got: Progress[] = [];
    const { conn, peer } = await connectionWithRawPeer();
    const call = watch(conn.request('long', {}, { timeoutMs: 1000, onProgress: (p) => got.push(p), resetTimeoutOnProgress: false }));
    await firstRequestId(peer);
    t.mock.timers.tick(900);
    await peer.send({ jsonrpc: '2.0', method: ProgressNotification, params: { progressToken: 1, progress: 1 } });
    await flush();
    assert.equal(got.length, 1);
    t.mock.timers.tick(100);
    assert.ok(isMcpError(await call.outcome, McpErrorCode.RequestTimeout));
  });

  for (const where of ['request', 'connection'] as const) {
    it(`caps the request at maxTotalTimeoutMs (${where} option) despite steady progress`, async (t) => {
      fakeTimers(t);
      const { conn, peer } = await connectionWithRawPeer(where === 'connection' ? { maxTotalTimeoutMs: 2500 } : {});
      const call = watch(
        conn.request('long', {}, { timeoutMs: 1000, onProgress: () => {}, ...(where === 'request' ? { maxTotalTimeoutMs: 2500 } : {}) }),
      );
      const id = await firstRequestId(peer);
      for (let step = 1; step <= 4; step++) {
        t.mock.timers.tick(500);
        await peer.send({ jsonrpc: '2.0', method: ProgressNotification, params: { progressToken: id, progress: step } });
        await flush();
        assert.equal(call.settled, false, `still pending at ${step * 500} ms`);
      }
      t.mock.timers.tick(499);
      await flush();
      assert.equal(call.settled, false);
      t.mock.timers.tick(1);
      const error = await call.outcome;
      assert.ok(isMcpError(error, McpErrorCode.RequestTimeout));
      assert.match(error.message, /2500/);
      await flush();
      assert.deepEqual(cancellations(peer).map((c) => c['requestId']), [id]);
    });
  }

  it('clears its timers once answered (no timeout fires later)', async (t) => {
    fakeTimers(t);
    const { conn, peer } = await connectionWithRawPeer();
    const call = conn.request('m', {}, { timeoutMs: 100, maxTotalTimeoutMs: 200 });
    const id = await firstRequestId(peer);
    await peer.send({ jsonrpc: '2.0', id, result: {} });
    assert.deepEqual(await call, {});
    t.mock.timers.tick(1000);
    await flush();
    assert.deepEqual(cancellations(peer), []);
  });

  it('suspendTimers: a sign-in of any length does not count; on resume each request gets its full timeout and what was left of its cap', async (t) => {
    t.mock.timers.enable({ apis: ['setTimeout', 'Date'] });
    const channel = new ScriptedChannel();
    const conn = new Connection(channel);
    await conn.start();
    const sink = channel.sink!;
    const call = watch(conn.request('m', {}, { timeoutMs: 1000, maxTotalTimeoutMs: 3000 }));
    t.mock.timers.tick(600);
    const resume = sink.suspendTimers!();
    const nested = sink.suspendTimers!();
    // A person takes ten minutes to approve.
    t.mock.timers.tick(600_000);
    await flush();
    assert.equal(call.settled, false);
    const late = watch(conn.request('n', {}, { timeoutMs: 1000 }));
    resume();
    resume();
    t.mock.timers.tick(600_000);
    await flush();
    assert.equal(call.settled, false, 'one suspension is still open');
    nested();
    t.mock.timers.tick(999);
    await flush();
    assert.equal(call.settled, false);
    assert.equal(late.settled, false);
    t.mock.timers.tick(1);
    assert.ok(isMcpError(await call.outcome, McpErrorCode.RequestTimeout));
    assert.ok(isMcpError(await late.outcome, McpErrorCode.RequestTimeout));
  });

  it('suspendTimers: the total cap keeps counting only outside suspensions', async (t) => {
    t.mock.timers.enable({ apis: ['setTimeout', 'Date'] });
    const channel = new ScriptedChannel();
    const conn = new Connection(channel);
    await conn.start();
    const call = watch(conn.request('long', {}, { timeoutMs: 1000, maxTotalTimeoutMs: 1500 }));
    t.mock.timers.tick(900);
    const resume = channel.sink!.suspendTimers!();
    t.mock.timers.tick(100_000);
    resume();
    // 600 ms of the cap are left, less than the fresh 1,000 ms timeout.
    t.mock.timers.tick(599);
    await flush();
    assert.equal(call.settled, false);
    t.mock.timers.tick(1);
    const error = await call.outcome;
    assert.ok(isMcpError(error, McpErrorCode.RequestTimeout));
    assert.match((error as Error).message, /maximum total time of 1500 ms/);
  });
});

describe('jsonrpc/connection: progress (1.20)', () => {
  it('adds a progressToken to _meta, keeping other _meta fields, and hands the handler that token', async () => {
    let token: unknown;
    const { a } = await connectedPair(
      {},
      {
        onRequest: (req, c) => {
          token = c.progressToken;
          return { meta: req.params?.['_meta'] ?? null };
        },
      },
    );
    const result = await a.request('m', { x: 1, _meta: { keep: 'me' } }, { onProgress: () => {} });
    const meta = result['meta'] as Record<string, unknown>;
    assert.equal(meta['keep'], 'me');
    assert.equal(meta['progressToken'], token);
    assert.ok(typeof token === 'number' || typeof token === 'string');
  });

  it('sends no progressToken when no onProgress is given', async () => {
    const { conn, peer } = await connectionWithRawPeer();
    void conn.request('m', { a: 1 }).catch(() => {});
    await peer.waitFor(1);
    assert.deepEqual(peer.messages[0]!['params'], { a: 1 });
    await conn.close();
  });

  it('routes progress from the peer handler to the caller with progress, total and message', async () => {
    const got: Progress[] = [];
    const { a } = await connectedPair(
      {},
      {
        onRequest: async (_req, c) => {
          await c.notify(ProgressNotification, { progressToken: c.progressToken, progress: 0.25, total: 1, message: 'quarter' });
          await c.notify(ProgressNotification, { progressToken: c.progressToken, progress: 0.5 });
          await c.notify(ProgressNotification, { progressToken: c.progressToken, progress: 1, total: 1, message: 'done' });
          await flush();
          return { ok: true };
        },
      },
    );
    assert.deepEqual(await a.request('work', {}, { onProgress: (p) => got.push(p) }), { ok: true });
    assert.deepEqual(got, [{ progress: 0.25, total: 1, message: 'quarter' }, { progress: 0.5 }, { progress: 1, total: 1, message: 'done' }]);
  });

  it('stops routing progress once the request completed; strays go to onNotification', async () => {
    const got: Progress[] = [];
    const strays: unknown[] = [];
    const { conn, peer } = await connectionWithRawPeer({ onNotification: (n) => strays.push(n.params) });
    const call = conn.request('m', {}, { onProgress: (p) => got.push(p) });
    const id = await firstRequestId(peer);
    await peer.send({ jsonrpc: '2.0', id, result: {} });
    await call;
    await peer.send({ jsonrpc: '2.0', method: ProgressNotification, params: { progressToken: id, progress: 9 } });
    await peer.send({ jsonrpc: '2.0', method: ProgressNotification, params: { progressToken: String(id), progress: 9 } });
    await flush();
    assert.deepEqual(got, []);
    assert.equal(strays.length, 2);
  });

  it('ignores progress without a numeric progress value for routing', async () => {
    const got: Progress[] = [];
    const { conn, peer } = await connectionWithRawPeer();
    void conn.request('m', {}, { onProgress: (p) => got.push(p) }).catch(() => {});
    const id = await firstRequestId(peer);
    await peer.send({ jsonrpc: '2.0', method: ProgressNotification, params: { progressToken: id, progress: 'half' } });
    await peer.send({ jsonrpc: '2.0', method: ProgressNotification, params: { progressToken: id } });
    await flush();
    assert.deepEqual(got, []);
    await conn.close();
  });

  it('survives a throwing progress callback and still resolves the request', async () => {
    const logger = capturingLogger();
    const { conn, peer } = await connectionWithRawPeer({ logger });
    const call = conn.request('m', {}, {
      onProgress: () => {
        throw new Error('ui bug');
      },
    });
    const id = await firstRequestId(peer);
    await peer.send({ jsonrpc: '2.0', method: ProgressNotification, params: { progressToken: id, progress: 1 } });
    await flush();
    await peer.send({ jsonrpc: '2.0', id, result: { fine: true } });
    assert.deepEqual(await call, { fine: true });
    assert.ok(logger.entries.some((e) => e.level === 'warn'));
  });
});
