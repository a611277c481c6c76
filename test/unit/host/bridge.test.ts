import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { PendingCalls, type Attempt, type Driver, type Launch } from '../../../src/host/bridge.js';
import type { ElicitResult } from '../../../src/protocol/model/elicitation.js';
import { McpError } from '../../../src/util/errors.js';
import type { LazyAbort } from '../../../src/util/lazyAbort.js';

function driver(caps: string[] = ['elicitation/create', 'sampling/createMessage', 'roots/list']): Driver & { progressed: number[]; logged: unknown[] } {
  const progressed: number[] = [];
  const logged: unknown[] = [];
  return { onAbort: () => () => undefined, progress: (p) => progressed.push(p.progress), log: (p) => logged.push(p.data), canAsk: (m) => caps.includes(m), progressed, logged };
}

const accept = (name: string): ElicitResult => ({ action: 'accept', content: { name } });

describe('host/bridge', () => {
  it('a stateful server’s question becomes an input request; the answer goes back to the same downstream call, which completes', async () => {
    const launches: number[] = [];
    const launch: Launch = async (round) => {
      launches.push(1);
      assert.ok(round.onProgress, 'a driver that accepts progress gets an onProgress');
      round.onProgress({ progress: 1, total: 2 });
      const answer = (await round.handlers.elicitation?.({ message: 'Name?', requestedSchema: { type: 'object', properties: { name: { type: 'string' } } } }, { signal: new AbortController().signal, protocolVersion: '2025-11-25', via: 'request' })) as ElicitResult;
      return { kind: 'complete', value: { content: [{ type: 'text', text: `hello ${String(answer.content?.['name'])}` }] } };
    };
    const table = new PendingCalls();
    const call = table.create('alice', launch);
    const d = driver();
    const first = await call.start(d);
    assert.equal(first.kind, 'input');
    assert.deepEqual(d.progressed, [1]);
    const keys = first.kind === 'input' ? Object.keys(first.inputRequests) : [];
    assert.equal(keys.length, 1);
    assert.equal(first.kind === 'input' && first.inputRequests[keys[0] as string]?.method, 'elicitation/create');
    table.park(call);
    const resumed = table.take(call.id, 'alice');
    assert.ok(resumed);
    const second = await resumed.resume(driver(), { [keys[0] as string]: accept('Ada') });
    assert.deepEqual(second, { kind: 'complete', value: { content: [{ type: 'text', text: 'hello Ada' }] } });
    assert.equal(launches.length, 1, 'the downstream call was made once and stayed open');
  });

  it('a 2026-07-28 server’s own input request is passed up, and the retry carries the server’s requestState and the answers', async () => {
    const rounds: { inputResponses?: unknown; requestState?: string }[] = [];
    const launch: Launch = (round): Promise<Attempt> => {
      rounds.push({ ...(round.inputResponses !== undefined ? { inputResponses: round.inputResponses } : {}), ...(round.requestState !== undefined ? { requestState: round.requestState } : {}) });
      if (round.requestState === undefined) return Promise.resolve({ kind: 'input', inputRequests: { who: { method: 'elicitation/create', params: { message: 'Who?', requestedSchema: { type: 'object', properties: {} } } } }, requestState: 'server-state-1' });
      return Promise.resolve({ kind: 'complete', value: { ok: true } });
    };
    const table = new PendingCalls();
    const call = table.create(undefined, launch);
    const first = await call.start(driver());
    assert.deepEqual(first.kind === 'input' ? Object.keys(first.inputRequests) : [], ['who']);
    const second = await call.resume(driver(), { who: accept('Bob'), extra: accept('ignored') });
    assert.deepEqual(second, { kind: 'complete', value: { ok: true } });
    assert.deepEqual(rounds, [{}, { inputResponses: { who: accept('Bob') }, requestState: 'server-state-1' }]);
  });

  it('the downstream server’s log messages during a call go to the upstream request driving it, round by round', async () => {
    const launch: Launch = (round): Promise<Attempt> => {
      round.onLog({ level: 'info', data: round.requestState === undefined ? 'first' : 'retry' });
      if (round.requestState === undefined) return Promise.resolve({ kind: 'input', inputRequests: { who: { method: 'elicitation/create', params: { message: 'Who?', requestedSchema: { type: 'object', properties: {} } } } }, requestState: 's' });
      return Promise.resolve({ kind: 'complete', value: { ok: true } });
    };
    const call = new PendingCalls().create(undefined, launch);
    const first = driver();
    await call.start(first);
    const second = driver();
    await call.resume(second, { who: accept('Bob') });
    assert.deepEqual(first.logged, ['first']);
    assert.deepEqual(second.logged, ['retry']);
  });

  it('confused deputy: another caller cannot resume a call that is not theirs', async () => {
    const table = new PendingCalls();
    const call = table.create('alice', async (round) => {
      await round.handlers.elicitation?.({ message: 'x', requestedSchema: { type: 'object', properties: {} } }, { signal: new AbortController().signal, protocolVersion: '2025-11-25', via: 'request' });
      return { kind: 'complete', value: {} };
    });
    await call.start(driver());
    table.park(call);
    assert.equal(table.take(call.id, 'mallory'), undefined);
    assert.equal(table.take(call.id, undefined), undefined);
    assert.equal(table.take('not-an-id', 'alice'), undefined);
    assert.ok(table.take(call.id, 'alice'), 'the owner still can');
    call.abandon('test over');
  });

  it('a question the upstream client has no capability for fails downstream with a clear error, nothing is asked', async () => {
    let failure: unknown;
    const table = new PendingCalls();
    const call = table.create(undefined, async (round) => {
      try {
        await round.handlers.sampling?.({ messages: [], maxTokens: 10 }, { signal: new AbortController().signal, protocolVersion: '2025-11-25', via: 'request' });
      } catch (error) {
        failure = error;
      }
      return { kind: 'complete', value: { done: true } };
    });
    const step = await call.start(driver(['elicitation/create']));
    assert.deepEqual(step, { kind: 'complete', value: { done: true } });
    assert.ok(failure instanceof McpError && failure.code === 'ERR_MCP_UNSUPPORTED' && /does not support sampling/.test(failure.message));
  });

  it('an abandoned call (no answer within the TTL) cancels the downstream call', async () => {
    let downstreamSignal: LazyAbort | undefined;
    const table = new PendingCalls({ ttlMs: 10 });
    const call = table.create(undefined, async (round) => {
      downstreamSignal = round.signal;
      await round.handlers.elicitation?.({ message: 'x', requestedSchema: { type: 'object', properties: {} } }, { signal: new AbortController().signal, protocolVersion: '2025-11-25', via: 'request' });
      return { kind: 'complete', value: {} };
    });
    await call.start(driver());
    table.park(call);
    await new Promise<void>((resolve) => downstreamSignal?.onAbort(resolve));
    assert.equal(call.done, true);
    assert.equal(table.size, 0);
  });

  it('hung upstream request: a second driver while the first still waits releases the first, and the call goes on with the second', async () => {
    let finish: (attempt: Attempt) => void = () => undefined;
    const call = new PendingCalls().create(undefined, () => new Promise<Attempt>((resolve) => (finish = resolve)));
    let offs = 0;
    const first = call.start({ ...driver(), onAbort: () => () => void offs++ });
    const second = call.resume(driver(), {});
    await assert.rejects(first, (e: unknown) => e instanceof McpError && e.code === 'ERR_MCP_REQUEST_CANCELLED' && /Another request/.test(e.message));
    assert.equal(offs, 1, 'the released request no longer listens for its abort');
    finish({ kind: 'complete', value: { ok: true } });
    assert.deepEqual(await second, { kind: 'complete', value: { ok: true } });
    assert.equal(call.done, true);
  });

  it('a downstream failure reaches the driver as it was thrown, and the call is done', async () => {
    const failure = new Error('server fell over');
    const call = new PendingCalls().create(undefined, () => Promise.reject(failure));
    await assert.rejects(call.start(driver()), (e: unknown) => e === failure);
    assert.equal(call.done, true);
  });

  it('an upstream request that asked for no progress starts an attempt that asks the server for none', async () => {
    let asked: boolean | undefined;
    const call = new PendingCalls().create(undefined, (round) => {
      asked = round.onProgress !== undefined;
      return Promise.resolve({ kind: 'complete', value: {} });
    });
    await call.start({ ...driver(), acceptsProgress: false });
    assert.equal(asked, false);
  });

  it('a flood of waiting calls beyond the bound is refused', () => {
    const table = new PendingCalls({ max: 1 });
    const call = table.create(undefined, () => new Promise(() => undefined));
    table.park(call);
    assert.throws(() => table.create(undefined, () => new Promise(() => undefined)), (e: unknown) => e instanceof McpError && e.code === 'ERR_MCP_LIMIT_EXCEEDED');
    table.clear('test over');
  });

  it('cancelling the upstream request abandons the call', async () => {
    const abort = new AbortController();
    let downstreamSignal: LazyAbort | undefined;
    const table = new PendingCalls();
    const call = table.create(undefined, (round) => {
      downstreamSignal = round.signal;
      return new Promise(() => undefined);
    });
    const onAbort = (listener: () => void): (() => void) => {
      abort.signal.addEventListener('abort', listener, { once: true });
      return () => abort.signal.removeEventListener('abort', listener);
    };
    const step = call.start({ ...driver(), onAbort });
    abort.abort();
    await assert.rejects(step, (e: unknown) => e instanceof McpError && e.code === 'ERR_MCP_REQUEST_CANCELLED');
    assert.equal(downstreamSignal?.aborted, true);
  });
});
