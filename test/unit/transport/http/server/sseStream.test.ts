/**
 * The slow-reader bound of SSE responses (`maxSseBufferedBytes`): a client that opens a
 * stream and stops reading must not make the server buffer without limit (memory exhaustion
 * by a stalled reader). Unit level on PushSseStream, then through both adapters: the web
 * `fetch` entry and `toNodeHandler` over a real socket that never reads.
 */
import assert from 'node:assert/strict';
import { connect } from 'node:net';
import { describe, it } from 'node:test';
import { listen } from '../../../../../src/adapters/nodeHttp.js';
import type { JsonRpcNotification } from '../../../../../src/jsonrpc/messages.js';
import { createStreamableHttpHandler } from '../../../../../src/transport/http/server/server.js';
import { PushSseStream } from '../../../../../src/transport/http/server/sseStream.js';
import type { SseSink } from '../../../../../src/transport/http/server/types.js';
import type { McpDispatcher } from '../../../../../src/transport/types.js';
import { isMcpError } from '../../../../../src/util/errors.js';
import { request, standardHeaders } from './support.js';

/** A sink that takes writes and reports them all as still buffered (a reader that never reads). */
function stalledSink(): SseSink & { written: number; aborted: unknown[]; ended: boolean } {
  const sink = {
    written: 0,
    aborted: [] as unknown[],
    ended: false,
    write(chunk: string) {
      sink.written += Buffer.byteLength(chunk);
    },
    end() {
      sink.ended = true;
    },
    buffered: () => sink.written,
    abort(reason: unknown) {
      sink.aborted.push(reason);
    },
  };
  return sink;
}

describe('PushSseStream: slow-reader bound', () => {
  it('memory exhaustion by a stalled reader: the stream is cut once the reader is more than the limit behind', () => {
    const cancelled: unknown[] = [];
    const stream = new PushSseStream((reason) => cancelled.push(reason), 1000);
    const sink = stalledSink();
    stream.start(sink);
    for (let i = 0; i < 50; i++) stream.write('data: ' + 'x'.repeat(94) + '\n\n');
    assert.equal(cancelled.length, 1);
    assert.ok(isMcpError(cancelled[0]) && cancelled[0].code === 'ERR_MCP_CONNECTION_CLOSED');
    assert.match((cancelled[0] as Error).message, /fell \d+ bytes behind \(limit 1000\)/);
    assert.equal(sink.aborted.length, 1, 'the adapter is told to drop the response');
    assert.ok(sink.written <= 1100, `writes stop at the limit (wrote ${sink.written})`);
    assert.equal(stream.finished, true);
  });

  it('memory exhaustion before the adapter attaches: the pre-start queue is bounded too', () => {
    const cancelled: unknown[] = [];
    const stream = new PushSseStream((reason) => cancelled.push(reason), 1000);
    for (let i = 0; i < 50; i++) stream.write('x'.repeat(100));
    assert.equal(cancelled.length, 1);
    const sink = stalledSink();
    stream.start(sink);
    assert.equal(sink.written, 0, 'nothing of a cut stream is written later');
    assert.equal(sink.aborted.length, 1, 'and the response is dropped when the adapter attaches, so its reader does not wait forever');
  });

  it('a reader that keeps up is never cut, and 0 disables the bound', () => {
    const cancelled: unknown[] = [];
    const keepingUp = new PushSseStream((reason) => cancelled.push(reason), 1000);
    keepingUp.start({ write() {}, end() {}, buffered: () => 0 });
    for (let i = 0; i < 1000; i++) keepingUp.write('x'.repeat(100));
    const unbounded = new PushSseStream((reason) => cancelled.push(reason), 0);
    unbounded.start(stalledSink());
    for (let i = 0; i < 1000; i++) unbounded.write('x'.repeat(100));
    assert.deepEqual(cancelled, []);
  });
});

/** Floods notifications of ~1 KiB each on the request's stream until the request is aborted. */
function floodingDispatcher(): McpDispatcher & { aborted: Promise<unknown> } {
  let markAborted: (reason: unknown) => void = () => undefined;
  const aborted = new Promise<unknown>((resolve) => (markAborted = resolve));
  const payload = 'y'.repeat(1024);
  return {
    aborted,
    async dispatch(message, env) {
      if (!('id' in message)) return undefined;
      env.signal.addEventListener('abort', () => markAborted(env.signal.reason), { once: true });
      const note: JsonRpcNotification = { jsonrpc: '2.0', method: 'notifications/message', params: { level: 'info', data: payload } };
      for (let i = 0; i < 200_000 && !env.signal.aborted; i++) {
        env.notify(note);
        if (i % 64 === 63) await new Promise((r) => setImmediate(r));
      }
      return { jsonrpc: '2.0', id: message.id, result: { done: !env.signal.aborted } };
    },
  };
}

describe('maxSseBufferedBytes through the adapters', () => {
  it('memory exhaustion by a stalled reader (web fetch entry): the response stream errors and the handler is aborted', async () => {
    const dispatcher = floodingDispatcher();
    const handler = createStreamableHttpHandler(dispatcher, { sseKeepAliveMs: 0, maxSseBufferedBytes: 64 * 1024, statefulSessions: false });
    const message = request('flood');
    const response = await handler.fetch(
      new Request('http://localhost:3000/mcp', { method: 'POST', headers: standardHeaders(message), body: JSON.stringify(message) }),
    );
    assert.equal(response.status, 200);
    const reason = await dispatcher.aborted;
    assert.ok(isMcpError(reason) && reason.code === 'ERR_MCP_CONNECTION_CLOSED', String(reason));
    // The reader that finally reads finds the stream errored rather than megabytes of backlog.
    await assert.rejects(response.text());
    await handler.close();
  });

  it('memory exhaustion by a stalled reader (node:http): the socket of a client that never reads is dropped', async () => {
    const dispatcher = floodingDispatcher();
    const server = await listen(createStreamableHttpHandler(dispatcher, { sseKeepAliveMs: 0, maxSseBufferedBytes: 256 * 1024, statefulSessions: false }), { port: 0 });
    try {
      const { port } = new URL(server.url);
      const message = request('flood');
      const body = JSON.stringify(message);
      const headers = { ...standardHeaders(message), host: `localhost:${port}`, 'content-length': String(Buffer.byteLength(body)) };
      const socket = connect(Number(port), '127.0.0.1');
      const closed = new Promise<void>((resolve) => socket.once('close', () => resolve()));
      socket.on('error', () => undefined);
      await new Promise<void>((resolve) => socket.once('connect', () => resolve()));
      socket.write(`POST /mcp HTTP/1.1\r\n${Object.entries(headers).map(([k, v]) => `${k}: ${v}`).join('\r\n')}\r\n\r\n${body}`);
      socket.pause(); // never read: the kernel buffers fill, then the server's
      const reason = await dispatcher.aborted;
      assert.ok(isMcpError(reason) && reason.code === 'ERR_MCP_CONNECTION_CLOSED', String(reason));
      socket.resume(); // now drain what the kernel holds: the server has closed its side
      await closed;
    } finally {
      await server.close();
    }
  });
});
