/**
 * The transport contract: one suite every transport must pass, run once per transport by
 * `transport.test.ts`. A factory yields a connected `[client, server]` pair of unstarted
 * transports; the suite puts a `Connection` on each side and checks what a connection relies
 * on: request/response, notifications, 1,000 concurrent requests, cancellation both ways,
 * messages sent before the peer starts, and close semantics from either side.
 *
 * @module
 */
import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { Connection, type Progress, type RequestContext, type RequestHandler } from '../../src/jsonrpc/connection.js';
import { JsonRpcError, isJsonRpcError } from '../../src/jsonrpc/errors.js';
import type { JsonRpcNotification, JsonRpcRequest } from '../../src/jsonrpc/messages.js';
import type { Transport } from '../../src/transport/types.js';
import { isMcpError, McpErrorCode } from '../../src/util/errors.js';
import type { Logger } from '../../src/util/logger.js';

/** Yields a connected pair of transports, neither started. */
export type TransportPairFactory = () => Promise<readonly [client: Transport, server: Transport]>;

interface Side {
  readonly connection: Connection;
  readonly notifications: JsonRpcNotification[];
  /** Requests whose handler saw its signal abort, by method. */
  readonly aborted: string[];
  readonly warnings: string[];
  readonly closed: Promise<Error | undefined>;
}

interface Pair {
  readonly client: Side;
  readonly server: Side;
  readonly clientTransport: Transport;
  readonly serverTransport: Transport;
}

function delay(ms: number, signal?: AbortSignal): Promise<void> {
  return new Promise((resolve, reject) => {
    const timer = setTimeout(() => {
      signal?.removeEventListener('abort', onAbort);
      resolve();
    }, ms);
    const onAbort = (): void => {
      clearTimeout(timer);
      reject(signal?.reason);
    };
    signal?.addEventListener('abort', onAbort, { once: true });
  });
}

/** Handlers both sides share: `echo`, `sleep {ms}` (records aborts), `fail`, `progress`, `slowEcho`. */
function handlers(aborted: string[]): RequestHandler {
  return async (request: JsonRpcRequest, context: RequestContext) => {
    const params = request.params ?? {};
    switch (request.method) {
      case 'echo':
        return params;
      case 'slowEcho':
        await delay(Number(params['ms'] ?? 0));
        return params;
      case 'sleep':
        context.signal.addEventListener('abort', () => aborted.push(request.method), { once: true });
        await delay(Number(params['ms'] ?? 0), context.signal);
        return { slept: params['ms'] };
      case 'fail':
        throw JsonRpcError.invalidParams('fail was asked to fail', { why: 'test' });
      case 'progress': {
        for (let i = 1; i <= 3; i++) {
          if (context.progressToken !== undefined) {
            await context.notify('notifications/progress', { progressToken: context.progressToken, progress: i, total: 3 });
          }
        }
        return { done: true };
      }
      default:
        throw JsonRpcError.methodNotFound(request.method);
    }
  };
}

function side(transport: Transport): Side {
  const notifications: JsonRpcNotification[] = [];
  const aborted: string[] = [];
  const warnings: string[] = [];
  const noop = (): void => undefined;
  const logger: Logger = { debug: noop, info: noop, error: noop, warn: (m) => warnings.push(m) };
  const connection = new Connection(transport, {
    logger,
    defaultTimeoutMs: 20_000,
    onRequest: handlers(aborted),
    onNotification: (n) => notifications.push(n),
  });
  const closed = new Promise<Error | undefined>((resolve) => connection.onClose(resolve));
  return { connection, notifications, aborted, warnings, closed };
}

async function until(condition: () => boolean, what: string, timeoutMs = 15_000): Promise<void> {
  const deadline = Date.now() + timeoutMs;
  while (!condition()) {
    if (Date.now() > deadline) assert.fail(`timed out waiting for ${what}`);
    await delay(5);
  }
}

const isClosed = (e: unknown): boolean => isMcpError(e, McpErrorCode.ConnectionClosed);

/** Registers the contract suite for one transport. */
export function transportContract(name: string, makePair: TransportPairFactory): void {
  async function open(options: { startServerFirst?: boolean } = {}): Promise<Pair> {
    const [clientTransport, serverTransport] = await makePair();
    const client = side(clientTransport);
    const server = side(serverTransport);
    if (options.startServerFirst === false) {
      await client.connection.start();
    } else {
      await server.connection.start();
      await client.connection.start();
    }
    return { client, server, clientTransport, serverTransport };
  }

  async function shut(pair: Pair): Promise<void> {
    await pair.client.connection.close();
    await pair.server.connection.close();
  }

  describe(`transport contract: ${name}`, () => {
    it('answers a request with its response', async () => {
      const pair = await open();
      const params = { text: 'héllo 🎉 \u2028 "quoted" \\ \n', n: 42, list: [1, { deep: [true, null] }] };
      assert.deepEqual(await pair.client.connection.request('echo', params), params);
      await shut(pair);
    });

    it('carries error responses and unknown methods as JsonRpcErrors', async () => {
      const pair = await open();
      await assert.rejects(pair.client.connection.request('fail'), (e: unknown) => {
        assert.ok(isJsonRpcError(e, -32602));
        assert.deepEqual(e.data, { why: 'test' });
        return true;
      });
      await assert.rejects(pair.client.connection.request('missing'), (e: unknown) => isJsonRpcError(e, -32601));
      await shut(pair);
    });

    it('carries notifications both ways and requests from the server', async () => {
      const pair = await open();
      await pair.client.connection.notify('notifications/initialized');
      await pair.server.connection.notify('notifications/message', { level: 'info', data: 'hello' });
      await until(() => pair.server.notifications.length === 1 && pair.client.notifications.length === 1, 'notifications');
      assert.deepEqual(pair.server.notifications, [{ jsonrpc: '2.0', method: 'notifications/initialized' }]);
      assert.deepEqual(pair.client.notifications, [{ jsonrpc: '2.0', method: 'notifications/message', params: { level: 'info', data: 'hello' } }]);
      assert.deepEqual(await pair.server.connection.request('echo', { from: 'server' }), { from: 'server' });
      await shut(pair);
    });

    it('routes progress notifications to their request', async () => {
      const pair = await open();
      const seen: Progress[] = [];
      assert.deepEqual(await pair.client.connection.request('progress', {}, { onProgress: (p) => seen.push(p) }), { done: true });
      assert.deepEqual(seen.map((p) => p.progress), [1, 2, 3]);
      await shut(pair);
    });

    it('correlates 1,000 concurrent requests answered out of order', async () => {
      const pair = await open();
      const n = 1000;
      const results = await Promise.all(
        Array.from({ length: n }, (_, i) =>
          pair.client.connection.request(i % 3 === 0 ? 'slowEcho' : 'echo', { i, ms: (i * 13) % 17 }).then((r) => [i, r] as const),
        ),
      );
      for (const [i, r] of results) assert.deepEqual(r, { i, ms: (i * 13) % 17 });
      assert.equal(pair.client.connection.pendingCount, 0);
      assert.equal(pair.server.connection.inFlightCount, 0);
      await shut(pair);
    });

    it('cancels a client request: the server handler aborts and sends no answer', async () => {
      const pair = await open();
      const controller = new AbortController();
      const pending = pair.client.connection.request('sleep', { ms: 30_000 }, { signal: controller.signal });
      await until(() => pair.server.connection.inFlightCount === 1, 'the request to reach the server');
      controller.abort('user pressed stop');
      await assert.rejects(pending, (e: unknown) => isMcpError(e, McpErrorCode.RequestCancelled));
      await until(() => pair.server.aborted.length === 1, 'the server handler to abort');
      assert.equal(pair.server.connection.inFlightCount, 0);
      assert.deepEqual(await pair.client.connection.request('echo', { after: true }), { after: true });
      assert.deepEqual(pair.client.warnings, [], 'no late answer for the cancelled request');
      await shut(pair);
    });

    it('cancels a server request: the client handler aborts', async () => {
      const pair = await open();
      const controller = new AbortController();
      const pending = pair.server.connection.request('sleep', { ms: 30_000 }, { signal: controller.signal });
      await until(() => pair.client.connection.inFlightCount === 1, 'the request to reach the client');
      controller.abort();
      await assert.rejects(pending, (e: unknown) => isMcpError(e, McpErrorCode.RequestCancelled));
      await until(() => pair.client.aborted.length === 1, 'the client handler to abort');
      await shut(pair);
    });

    it('loses nothing sent before the server side starts', async () => {
      const pair = await open({ startServerFirst: false });
      const answer = pair.client.connection.request('echo', { early: true });
      await delay(20);
      await pair.server.connection.start();
      assert.deepEqual(await answer, { early: true });
      await shut(pair);
    });

    it('closing the client closes the server side and fails what is pending', async () => {
      const pair = await open();
      const pending = pair.client.connection.request('sleep', { ms: 30_000 });
      await until(() => pair.server.connection.inFlightCount === 1, 'the request to reach the server');
      await pair.clientTransport.close();
      await pair.clientTransport.close(); // idempotent
      await assert.rejects(pending, isClosed);
      assert.equal(await pair.client.closed, undefined, 'a requested close is clean');
      await pair.server.closed;
      assert.deepEqual(pair.server.aborted, ['sleep'], 'the in-flight handler is aborted');
      await assert.rejects(pair.clientTransport.send({ jsonrpc: '2.0', method: 'late' }), isClosed);
      await assert.rejects(pair.client.connection.request('echo'), isClosed);
      await pair.serverTransport.close();
    });

    it('closing the server side fails the client’s pending requests with ERR_MCP_CONNECTION_CLOSED', async () => {
      const pair = await open();
      const pending = Array.from({ length: 10 }, () => pair.client.connection.request('sleep', { ms: 30_000 }));
      await until(() => pair.server.connection.inFlightCount === 10, 'the requests to reach the server');
      await pair.serverTransport.close();
      await pair.serverTransport.close(); // idempotent
      for (const result of await Promise.allSettled(pending)) {
        assert.equal(result.status, 'rejected');
        assert.ok(isClosed(result.reason));
      }
      await pair.client.closed;
      assert.equal(pair.client.connection.closed, true);
      await assert.rejects(pair.serverTransport.send({ jsonrpc: '2.0', method: 'late' }), isClosed);
      await pair.clientTransport.close();
    });

    it('rejects a second start on either side', async () => {
      const pair = await open();
      const sink = { receive: () => undefined, closed: () => undefined };
      await assert.rejects(pair.clientTransport.start(sink), (e: unknown) => isMcpError(e, McpErrorCode.AlreadyStarted));
      await assert.rejects(pair.serverTransport.start(sink), (e: unknown) => isMcpError(e, McpErrorCode.AlreadyStarted));
      await shut(pair);
    });
  });
}
