import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { Connection, type RequestContext } from '../../../src/jsonrpc/connection.js';
import { isBatchResult } from '../../../src/jsonrpc/decode.js';
import { ErrorCode, JsonRpcError } from '../../../src/jsonrpc/errors.js';
import type { JsonRpcRequest } from '../../../src/jsonrpc/messages.js';
import { createInMemoryPair } from '../../../src/transport/memory.js';
import { McpErrorCode, isMcpError } from '../../../src/util/errors.js';
import {
  ScriptedChannel,
  capturingLogger,
  connectedPair,
  connectionWithRawPeer,
  deferred,
  flush,
  type Deferred,
} from './support.js';

const isCode = (code: string) => (e: unknown) => isMcpError(e) && e.code === code;
const isWire = (code: number) => (e: unknown) => e instanceof JsonRpcError && e.code === code;

describe('jsonrpc/connection: correlation', () => {
  it('MUST-6 resolves each request with the result the peer returned for it', async () => {
    const seen: { method: string; params: unknown; ctxId: unknown; ctxMethod: string }[] = [];
    const { a } = await connectedPair(
      {},
      {
        onRequest: (req, ctx) => {
          seen.push({ method: req.method, params: req.params, ctxId: ctx.id, ctxMethod: ctx.method });
          return { echoed: req.params ?? null, method: req.method };
        },
      },
    );
    const result = await a.request('tools/call', { name: 'x', n: 3 });
    assert.deepEqual(result, { echoed: { name: 'x', n: 3 }, method: 'tools/call' });
    assert.equal(seen.length, 1);
    assert.equal(seen[0]!.ctxMethod, 'tools/call');
    assert.ok(Number.isSafeInteger(seen[0]!.ctxId));
    assert.deepEqual(await a.request('ping'), { echoed: null, method: 'ping' });
    assert.equal(a.pendingCount, 0);
  });

  it('MUST-3 MUST-5 gives outgoing requests distinct integer ids', async () => {
    const { conn, peer } = await connectionWithRawPeer();
    const calls = Array.from({ length: 50 }, (_, i) => conn.request('m', { i }));
    await peer.waitFor(50);
    const ids = peer.messages.map((m) => m['id']);
    assert.equal(ids.length, 50);
    for (const id of ids) assert.ok(Number.isSafeInteger(id), `id ${String(id)} is not an integer`);
    assert.equal(new Set(ids).size, 50);
    assert.equal(conn.pendingCount, 50);
    // Answer in reverse, each with its own params: every call gets the answer for its id.
    for (const m of [...peer.messages].reverse()) await peer.send({ jsonrpc: '2.0', id: m['id'], result: { i: (m['params'] as { i: number }).i } });
    const results = await Promise.all(calls);
    assert.deepEqual(results.map((r) => r['i']), Array.from({ length: 50 }, (_, i) => i));
  });

  it('reports each request id through onId before the message reaches the channel', async () => {
    const { conn, peer } = await connectionWithRawPeer();
    const reported: unknown[] = [];
    const pending = [conn.request('m', { i: 0 }, { onId: (id) => reported.push(id) }), conn.request('m', { i: 1 }, { onId: (id) => reported.push(id) })];
    // Synchronous: both ids are known before anything was written.
    assert.equal(reported.length, 2);
    await peer.waitFor(2);
    assert.deepEqual(peer.messages.map((m) => m['id']), reported);
    for (const m of peer.messages) await peer.send({ jsonrpc: '2.0', id: m['id'], result: {} });
    await Promise.all(pending);
  });

  it('does not call onId for a request refused before it is numbered', async () => {
    const { conn } = await connectionWithRawPeer();
    const reported: unknown[] = [];
    await assert.rejects(conn.request('m', {}, { signal: AbortSignal.abort(), onId: (id) => reported.push(id) }), isCode(McpErrorCode.RequestCancelled));
    assert.deepEqual(reported, []);
  });

  it('matches responses that arrive out of order', async () => {
    const gates: Deferred<void>[] = Array.from({ length: 5 }, () => deferred());
    const { a } = await connectedPair(
      {},
      {
        onRequest: async (req) => {
          const n = (req.params as { n: number }).n;
          await gates[n]!.promise;
          return { n };
        },
      },
    );
    const order: number[] = [];
    const calls = [0, 1, 2, 3, 4].map((n) => a.request('slow', { n }).then((r) => (order.push(r['n'] as number), r)));
    await flush();
    for (const n of [3, 0, 4, 1, 2]) {
      gates[n]!.resolve();
      await flush();
    }
    const results = await Promise.all(calls);
    assert.deepEqual(results.map((r) => r['n']), [0, 1, 2, 3, 4]);
    assert.deepEqual(order, [3, 0, 4, 1, 2]);
  });

  it('resolves 1,000 concurrent requests, each with its own answer', async () => {
    const { a, b } = await connectedPair(
      {},
      {
        onRequest: async (req) => {
          const n = (req.params as { n: number }).n;
          // Vary how long each handler takes (in microtask turns) so answers interleave.
          for (let i = 0; i < (n * 7) % 13; i++) await Promise.resolve();
          return { doubled: n * 2 };
        },
      },
    );
    const calls = Array.from({ length: 1000 }, (_, n) => a.request('double', { n }));
    assert.equal(a.pendingCount, 1000);
    const results = await Promise.all(calls);
    results.forEach((r, n) => assert.equal(r['doubled'], n * 2));
    assert.equal(a.pendingCount, 0);
    assert.equal(b.inFlightCount, 0);
  });

  it('MUST-3 keeps 1 and "1" distinct when matching a response', async () => {
    const logger = capturingLogger();
    const { conn, peer } = await connectionWithRawPeer({ logger });
    let settled = false;
    const call = conn.request('m').finally(() => (settled = true));
    await peer.waitFor(1);
    const id = peer.messages[0]!['id'];
    assert.equal(typeof id, 'number');
    await peer.send({ jsonrpc: '2.0', id: String(id), result: { wrong: true } });
    await flush();
    assert.equal(settled, false);
    assert.ok(logger.entries.some((e) => e.level === 'warn' && e.fields?.['id'] === String(id)));
    await peer.send({ jsonrpc: '2.0', id, result: { right: true } });
    assert.deepEqual(await call, { right: true });
  });

  it('drops a response with an unknown id and logs a warning', async () => {
    const logger = capturingLogger();
    const { conn, peer } = await connectionWithRawPeer({ logger });
    await peer.send({ jsonrpc: '2.0', id: 999, result: {} });
    await peer.send({ jsonrpc: '2.0', id: 'nope', error: { code: -1, message: 'x' } });
    await flush();
    const warned = logger.entries.filter((e) => e.level === 'warn').map((e) => e.fields?.['id']);
    assert.deepEqual(warned, [999, 'nope']);
    // MUST-19-like: a response is never answered.
    assert.equal(peer.frames.length, 0);
    assert.equal(conn.closed, false);
  });

  it('passes the transport extra and the request to the handler', async () => {
    const [ta, tb] = createInMemoryPair({ extra: { principal: 'alice' } });
    let ctx: RequestContext | undefined;
    let request: JsonRpcRequest | undefined;
    const a = new Connection(ta);
    const b = new Connection(tb, {
      onRequest: (req, c) => {
        ctx = c;
        request = req;
        return {};
      },
    });
    await a.start();
    await b.start();
    await a.request('who', { q: 1 });
    assert.deepEqual(ctx?.extra, { principal: 'alice' });
    assert.equal(ctx?.progressToken, undefined);
    assert.equal(ctx?.signal.aborted, false);
    assert.deepEqual(request?.params, { q: 1 });
    assert.equal(ctx?.id, request?.id);
  });

  it('rejects with the JsonRpcError the peer answered with', async () => {
    const { conn, peer } = await connectionWithRawPeer();
    const call = conn.request('m');
    await peer.waitFor(1);
    await peer.send({ jsonrpc: '2.0', id: peer.messages[0]!['id'], error: { code: -32001, message: 'custom', data: { why: 1 } } });
    const error = await call.catch((e: unknown) => e);
    assert.ok(error instanceof JsonRpcError);
    assert.equal(error.code, -32001);
    assert.equal(error.message, 'custom');
    assert.deepEqual(error.data, { why: 1 });
  });

  it('rejects with ERR_MCP_INVALID_RESPONSE when the answer for a pending id is malformed, and does not answer it', async () => {
    const { conn, peer } = await connectionWithRawPeer();
    const call = conn.request('m');
    await peer.waitFor(1);
    await peer.send({ jsonrpc: '2.0', id: peer.messages[0]!['id'], result: ['not', 'an', 'object'] });
    await assert.rejects(call, isCode(McpErrorCode.InvalidResponse));
    await flush();
    assert.equal(peer.frames.length, 1, 'nothing sent back besides the original request');
  });

  it('rejects with ERR_MCP_SEND_FAILED when the channel cannot write', async () => {
    const channel = new ScriptedChannel();
    const conn = new Connection(channel);
    await conn.start();
    channel.failSends = true;
    const error = await conn.request('m').catch((e: unknown) => e);
    assert.ok(isMcpError(error, McpErrorCode.SendFailed));
    assert.ok(error.cause instanceof Error);
    assert.equal(conn.pendingCount, 0);
  });
});

describe('jsonrpc/connection: notifications', () => {
  it('delivers notifications both ways with their params and extra', async () => {
    const toA: unknown[] = [];
    const toB: unknown[] = [];
    const { a, b } = await connectedPair(
      { onNotification: (n, extra) => toA.push([n.method, n.params, extra]) },
      { onNotification: (n, extra) => toB.push([n.method, n.params, extra]) },
      { extra: { side: 'x' } },
    );
    await a.notify('notifications/message', { level: 'info' });
    await b.notify('notifications/tools/list_changed');
    await flush();
    assert.deepEqual(toB, [['notifications/message', { level: 'info' }, { side: 'x' }]]);
    assert.deepEqual(toA, [['notifications/tools/list_changed', undefined, { side: 'x' }]]);
  });

  it('MUST-20 sends notifications without an id', async () => {
    const { conn, peer } = await connectionWithRawPeer();
    await conn.notify('notifications/initialized', { a: 1 });
    await conn.notify('notifications/bare');
    await peer.waitFor(2);
    assert.deepEqual(peer.messages, [
      { jsonrpc: '2.0', method: 'notifications/initialized', params: { a: 1 } },
      { jsonrpc: '2.0', method: 'notifications/bare' },
    ]);
    for (const m of peer.messages) assert.ok(!('id' in m));
  });

  it('MUST-19 never answers a notification, whatever it is', async () => {
    const seen: string[] = [];
    const { peer } = await connectionWithRawPeer({
      onRequest: () => ({}),
      onNotification: (n) => {
        seen.push(n.method);
        if (n.method === 'throws') throw new Error('handler bug');
      },
    });
    await peer.send({ jsonrpc: '2.0', method: 'unknown/method' });
    await peer.send({ jsonrpc: '2.0', method: 'throws', params: {} });
    await peer.send({ jsonrpc: '2.0', method: 'notifications/cancelled', params: { requestId: 12345 } });
    await peer.send({ jsonrpc: '2.0', method: 'notifications/cancelled', params: {} });
    await peer.send({ jsonrpc: '2.0', method: 'notifications/progress', params: { progressToken: 'none', progress: 1 } });
    await flush(3);
    assert.equal(peer.frames.length, 0);
    assert.ok(seen.includes('unknown/method') && seen.includes('throws'));
  });

  it('contains a throwing notification handler, cancellation notices included', async () => {
    const logger = capturingLogger();
    const channel = new ScriptedChannel();
    const conn = new Connection(channel, {
      logger,
      onNotification: () => {
        throw new Error('listener bug');
      },
    });
    await conn.start();
    assert.doesNotThrow(() => channel.deliver('{"jsonrpc":"2.0","method":"notifications/message"}'));
    assert.doesNotThrow(() => channel.deliver('{"jsonrpc":"2.0","method":"notifications/cancelled","params":{"requestId":1}}'));
    assert.doesNotThrow(() => channel.deliver('{"jsonrpc":"2.0","method":"notifications/progress","params":{"progressToken":1,"progress":1}}'));
    assert.equal(logger.entries.filter((e) => e.level === 'warn').length, 3);
    assert.equal(conn.closed, false);
  });

  it('passes cancellation notices on to onNotification too', async () => {
    const seen: unknown[] = [];
    const { peer } = await connectionWithRawPeer({ onNotification: (n) => seen.push(n.params) });
    await peer.send({ jsonrpc: '2.0', method: 'notifications/cancelled', params: { requestId: 5, reason: 'r' } });
    await flush();
    assert.deepEqual(seen, [{ requestId: 5, reason: 'r' }]);
  });
});

describe('jsonrpc/connection: incoming request handling', () => {
  it('answers a JsonRpcError thrown by the handler with that code, message and data', async () => {
    const { a } = await connectedPair(
      {},
      {
        onRequest: () => {
          throw JsonRpcError.invalidParams('unknown tool', { tool: 'x' });
        },
      },
    );
    const error = await a.request('tools/call').catch((e: unknown) => e);
    assert.ok(error instanceof JsonRpcError);
    assert.equal(error.code, ErrorCode.InvalidParams);
    assert.match(error.message, /unknown tool/);
    assert.deepEqual(error.data, { tool: 'x' });
  });

  it('answers any other throw with a bare -32603 "Internal error", leaking nothing, and reports it locally', async () => {
    const reported: [unknown, JsonRpcRequest][] = [];
    const secret = new Error('password=hunter2 at /srv/db.ts:12');
    const { a } = await connectedPair(
      {},
      {
        onRequest: async () => {
          await Promise.resolve();
          throw secret;
        },
        onHandlerError: (error, request) => reported.push([error, request]),
      },
    );
    const error = await a.request('tools/call', { name: 'leaky' }).catch((e: unknown) => e);
    assert.ok(error instanceof JsonRpcError);
    assert.equal(error.code, ErrorCode.InternalError);
    assert.equal(error.message, 'Internal error');
    assert.equal(error.data, undefined);
    assert.ok(!JSON.stringify(error.cause).includes('hunter2'), 'the wire answer must not carry the detail');
    assert.equal(reported.length, 1);
    assert.equal(reported[0]![0], secret);
    assert.equal(reported[0]![1].method, 'tools/call');
    assert.deepEqual(reported[0]![1].params, { name: 'leaky' });
  });

  it('answers non-Error throws (strings, undefined) with -32603 too', async () => {
    const values: unknown[] = ['a string', undefined, null, 42, { code: -32602, message: 'looks like an error' }];
    let i = 0;
    const { a } = await connectedPair(
      {},
      {
        onRequest: () => {
          throw values[i++];
        },
        onHandlerError: () => {},
      },
    );
    for (const _ of values) await assert.rejects(a.request('m'), isWire(ErrorCode.InternalError));
  });

  it('logs the real failure at error level when there is no onHandlerError', async () => {
    const logger = capturingLogger();
    const { a } = await connectedPair(
      {},
      {
        logger,
        onRequest: () => {
          throw new TypeError('boom detail');
        },
      },
    );
    await assert.rejects(a.request('m'), isWire(ErrorCode.InternalError));
    const errors = logger.entries.filter((e) => e.level === 'error');
    assert.equal(errors.length, 1);
    assert.match(String(errors[0]!.fields?.['error']), /boom detail/);
  });

  it('keeps the -32603 answer even when onHandlerError itself throws', async () => {
    const { a } = await connectedPair(
      {},
      {
        onRequest: () => {
          throw new Error('x');
        },
        onHandlerError: () => {
          throw new Error('reporter broke');
        },
      },
    );
    await assert.rejects(a.request('m'), isWire(ErrorCode.InternalError));
  });

  it('answers -32601 naming the method when there is no onRequest', async () => {
    const { a } = await connectedPair();
    const error = await a.request('tools/list').catch((e: unknown) => e);
    assert.ok(error instanceof JsonRpcError);
    assert.equal(error.code, ErrorCode.MethodNotFound);
    assert.deepEqual(error.data, { method: 'tools/list' });
  });

  it('MUST-5 refuses a request reusing the id of one still in flight with -32600, and still answers the first', async () => {
    const gate = deferred();
    let calls = 0;
    const { peer } = await connectionWithRawPeer({
      onRequest: async (req) => {
        calls++;
        await gate.promise;
        return { first: req.params?.['n'] };
      },
    });
    await peer.send({ jsonrpc: '2.0', id: 5, method: 'm', params: { n: 1 } });
    await peer.send({ jsonrpc: '2.0', id: 5, method: 'm', params: { n: 2 } });
    await peer.send({ jsonrpc: '2.0', id: '5', method: 'm', params: { n: 3 } });
    await peer.waitFor(1);
    const dup = peer.messages[0]!;
    assert.equal(dup['id'], 5);
    assert.equal((dup['error'] as { code: number }).code, ErrorCode.InvalidRequest);
    assert.equal(calls, 2, 'the duplicate never reached the handler; "5" is a different id');
    gate.resolve();
    await peer.waitFor(3);
    const answers = peer.messages.slice(1).map((m) => [m['id'], m['result']]);
    assert.deepEqual(answers.sort((x, y) => String(typeof x[0]).localeCompare(String(typeof y[0]))), [
      [5, { first: 1 }],
      ['5', { first: 3 }],
    ]);
    // Once answered, the id may be used again.
    await peer.send({ jsonrpc: '2.0', id: 5, method: 'm', params: { n: 4 } });
    await peer.waitFor(4);
    assert.deepEqual(peer.messages[3], { jsonrpc: '2.0', id: 5, result: { first: 4 } });
  });

  it('MUST-12 answers malformed JSON with -32700 and a null id', async () => {
    const channel = new ScriptedChannel();
    const conn = new Connection(channel, { onRequest: () => ({}) });
    await conn.start();
    channel.deliver('{"jsonrpc":"2.0","id":1,"method":');
    await flush();
    assert.equal(channel.sent.length, 1);
    const answer = channel.sent[0] as { id: unknown; error: { code: number } };
    assert.equal(answer.id, null);
    assert.equal(answer.error.code, ErrorCode.ParseError);
  });

  it('MUST-12 echoes a readable id when answering an invalid request', async () => {
    const { peer } = await connectionWithRawPeer({ onRequest: () => ({}) });
    await peer.send({ jsonrpc: '2.0', id: 'r-1', method: 'm', params: [1] });
    await peer.send({ jsonrpc: '1.0', id: 77, method: 'm' });
    await peer.send({ jsonrpc: '2.0', id: 1.5, method: 'm' });
    await peer.waitFor(3);
    const answers = peer.messages.map((m) => [m['id'], (m['error'] as { code: number }).code]);
    assert.deepEqual(answers, [
      ['r-1', ErrorCode.InvalidParams],
      [77, ErrorCode.InvalidRequest],
      [null, ErrorCode.InvalidRequest],
    ]);
  });

  it('answers a non-object handler result with -32603 instead of a malformed response the peer would answer', async () => {
    // A JS handler may break the type contract; `result: undefined` would vanish on the wire.
    const bad: unknown[] = [undefined, null, [1, 2], 'text', 7];
    const reported: unknown[] = [];
    let i = 0;
    const { peer } = await connectionWithRawPeer({
      onRequest: (() => bad[i++]) as unknown as () => Record<string, unknown>,
      onHandlerError: (e) => reported.push(e),
    });
    for (let id = 1; id <= bad.length; id++) await peer.send({ jsonrpc: '2.0', id, method: 'm' });
    await peer.waitFor(bad.length);
    for (const [k, frame] of peer.frames.entries()) {
      assert.ok(!isBatchResult(frame));
      assert.ok(frame.ok, 'the answer must decode as a valid JSON-RPC response');
      assert.deepEqual(frame.message, { jsonrpc: '2.0', id: k + 1, error: { code: ErrorCode.InternalError, message: 'Internal error' } });
    }
    assert.equal(reported.length, bad.length);
  });
});

describe('jsonrpc/connection: lifecycle and close', () => {
  it('rejects every pending request with ERR_MCP_CONNECTION_CLOSED and aborts in-flight handlers on close', async () => {
    const signals: AbortSignal[] = [];
    const { a, b } = await connectedPair(
      {},
      {
        onRequest: (_req, ctx) => {
          signals.push(ctx.signal);
          return new Promise(() => {});
        },
      },
    );
    const closedA: unknown[] = [];
    a.onClose((reason) => closedA.push(reason));
    const calls = [a.request('x'), a.request('y'), a.request('z', {}, { timeoutMs: 0 })].map((c) => c.then(() => 'resolved', (e: unknown) => e));
    await flush();
    assert.equal(b.inFlightCount, 3);
    await b.close();
    await flush();
    for (const outcome of await Promise.all(calls)) assert.ok(isMcpError(outcome, McpErrorCode.ConnectionClosed));
    assert.equal(signals.length, 3);
    for (const s of signals) {
      assert.equal(s.aborted, true);
      assert.ok(isMcpError(s.reason, McpErrorCode.ConnectionClosed));
    }
    assert.equal(a.closed, true);
    assert.equal(b.closed, true);
    assert.equal(a.pendingCount, 0);
    assert.deepEqual(closedA, [undefined]);
  });

  it('carries the transport failure as the cause when the channel drops with an error', async () => {
    const channel = new ScriptedChannel();
    const conn = new Connection(channel);
    await conn.start();
    const call = conn.request('m');
    const reason = new Error('child exited with code 1');
    channel.drop(reason);
    const error = await call.catch((e: unknown) => e);
    assert.ok(isMcpError(error, McpErrorCode.ConnectionClosed));
    assert.equal(error.cause, reason);
    const late: unknown[] = [];
    conn.onClose((r) => late.push(r));
    assert.deepEqual(late, [reason], 'a listener added after close is called at once');
  });

  it('rejects requests and notifications after close', async () => {
    const { a } = await connectedPair();
    await a.close();
    await assert.rejects(a.request('m'), isCode(McpErrorCode.ConnectionClosed));
    await assert.rejects(a.notify('n'), isCode(McpErrorCode.ConnectionClosed));
    await a.close(); // idempotent
  });

  it('rejects a request before start with ERR_MCP_NOT_CONNECTED', async () => {
    const conn = new Connection(new ScriptedChannel());
    await assert.rejects(conn.request('m'), isCode(McpErrorCode.NotConnected));
  });

  it('rejects a second start with ERR_MCP_ALREADY_STARTED', async () => {
    const conn = new Connection(new ScriptedChannel());
    await conn.start();
    await assert.rejects(conn.start(), isCode(McpErrorCode.AlreadyStarted));
  });

  it('sends nothing for a handler that finishes after the connection closed', async () => {
    const gate = deferred();
    const channel = new ScriptedChannel();
    const conn = new Connection(channel, {
      onRequest: async () => {
        await gate.promise;
        return {};
      },
    });
    await conn.start();
    channel.deliver('{"jsonrpc":"2.0","id":1,"method":"m"}');
    await conn.close();
    gate.resolve();
    await flush();
    assert.deepEqual(channel.sent, []);
    assert.equal(conn.inFlightCount, 0);
  });

  it('ignores frames arriving after close', async () => {
    const seen: unknown[] = [];
    const channel = new ScriptedChannel();
    const conn = new Connection(channel, { onRequest: () => ({}), onNotification: (n) => seen.push(n) });
    await conn.start();
    await conn.close();
    channel.deliver('{"jsonrpc":"2.0","id":1,"method":"m"}');
    channel.deliver('{"jsonrpc":"2.0","method":"n"}');
    await flush();
    assert.deepEqual(channel.sent, []);
    assert.deepEqual(seen, []);
  });
});

describe('jsonrpc/connection: batches (2.6, revision 2025-03-26)', () => {
  const limits = { allowBatch: true };

  it('answers a batch with one batch holding every answer; notifications and responses get no entry', async () => {
    const gate = deferred();
    const notes: string[] = [];
    const { peer } = await connectionWithRawPeer(
      {
        onRequest: async (req) => {
          if (req.method === 'slow') await gate.promise;
          if (req.method === 'fail') throw JsonRpcError.invalidParams('bad');
          return { m: req.method };
        },
        onNotification: (n) => notes.push(n.method),
      },
      { limits },
    );
    await peer.send([
      { jsonrpc: '2.0', id: 1, method: 'slow' },
      { jsonrpc: '2.0', method: 'notify/me' },
      { jsonrpc: '2.0', id: 'two', method: 'fast' },
      { jsonrpc: '2.0', id: null, method: 'nullid' },
      { jsonrpc: '2.0', id: 4, method: 'arr', params: [1] },
      { jsonrpc: '2.0', id: 99, result: {} },
      { jsonrpc: '2.0', id: 5, method: 'fail' },
      { jsonrpc: '2.0', id: 6, result: 7 },
    ]);
    await flush(3);
    assert.equal(peer.frames.length, 0, 'the batch answer waits for the slowest request');
    gate.resolve();
    await peer.waitFor(1);
    await flush();
    assert.equal(peer.frames.length, 1);
    const frame = peer.frames[0]!;
    assert.ok(isBatchResult(frame));
    const entries = frame.batch.map((item) => {
      assert.ok(item.ok);
      const m = item.message as unknown as Record<string, unknown>;
      return [m['id'], 'error' in m ? (m['error'] as { code: number }).code : m['result']];
    });
    const key = (e: unknown[]): string => JSON.stringify(e[0]);
    assert.deepEqual(entries.sort((x, y) => key(x).localeCompare(key(y))), [
      [1, { m: 'slow' }],
      [4, ErrorCode.InvalidParams],
      [5, ErrorCode.InvalidParams],
      ['two', { m: 'fast' }],
      [null, ErrorCode.InvalidRequest],
    ].sort((x, y) => key(x).localeCompare(key(y))));
    assert.deepEqual(notes, ['notify/me']);
  });

  it('sends nothing for a batch of only notifications and responses', async () => {
    const { peer } = await connectionWithRawPeer({ onRequest: () => ({}) }, { limits });
    await peer.send([
      { jsonrpc: '2.0', method: 'a' },
      { jsonrpc: '2.0', method: 'b', params: {} },
      { jsonrpc: '2.0', id: 1000, result: {} },
      { jsonrpc: '1.0', id: 1001, result: {} },
    ]);
    await flush(3);
    assert.equal(peer.frames.length, 0);
  });

  it('answers a batch when batches are off with a single -32600 error, not a batch', async () => {
    const { peer } = await connectionWithRawPeer({ onRequest: () => ({}) });
    await peer.send([{ jsonrpc: '2.0', id: 1, method: 'a' }]);
    await peer.waitFor(1);
    assert.deepEqual(
      peer.messages.map((m) => [m['id'], (m['error'] as { code: number }).code]),
      [[null, ErrorCode.InvalidRequest]],
    );
  });
});
