import assert from 'node:assert/strict';
import { PassThrough, Writable } from 'node:stream';
import { describe, it } from 'node:test';
import type { DecodeResult } from '../../../../src/jsonrpc/decode.js';
import { Connection } from '../../../../src/jsonrpc/connection.js';
import { StdioServerTransport } from '../../../../src/transport/stdio/server.js';
import { isMcpError, McpErrorCode } from '../../../../src/util/errors.js';
import type { Logger } from '../../../../src/util/logger.js';

interface Recorder {
  readonly frames: DecodeResult[];
  readonly closes: (Error | undefined)[];
  readonly sink: { receive(frame: DecodeResult): void; closed(reason?: Error): void };
  closed: Promise<Error | undefined>;
}

function recorder(): Recorder {
  let resolveClosed!: (reason: Error | undefined) => void;
  const closed = new Promise<Error | undefined>((resolve) => (resolveClosed = resolve));
  const frames: DecodeResult[] = [];
  const closes: (Error | undefined)[] = [];
  return {
    frames,
    closes,
    closed,
    sink: {
      receive: (frame) => frames.push(frame),
      closed: (reason) => {
        closes.push(reason);
        resolveClosed(reason);
      },
    },
  };
}

function memoryLogger(): Logger & { warnings: string[] } {
  const warnings: string[] = [];
  const noop = (): void => undefined;
  return { warnings, debug: noop, info: noop, error: noop, warn: (message) => warnings.push(message) };
}

function messages(frames: readonly DecodeResult[]): unknown[] {
  return frames.map((f) => ('message' in f ? f.message : f));
}

/** Collects everything written to a PassThrough as text. */
function collect(stream: PassThrough): { text: () => string } {
  const chunks: Buffer[] = [];
  stream.on('data', (c: Buffer) => chunks.push(c));
  return { text: () => Buffer.concat(chunks).toString('utf8') };
}

const tick = (): Promise<void> => new Promise((resolve) => setImmediate(resolve));

describe('transport/stdio/server', () => {
  const sample = [
    { jsonrpc: '2.0', id: 1, method: 'echo', params: { text: 'héllo wörld 🎉 ✓' } },
    { jsonrpc: '2.0', method: 'notifications/initialized' },
    { jsonrpc: '2.0', id: 'abc', result: { ok: true } },
  ];
  const wire = Buffer.from(sample.map((m) => JSON.stringify(m) + '\n').join(''), 'utf8');

  it('decodes the same messages however the input is split (every byte boundary)', async () => {
    for (let cut = 0; cut <= wire.length; cut++) {
      const input = new PassThrough();
      const transport = new StdioServerTransport({ input, output: new PassThrough() });
      const rec = recorder();
      await transport.start(rec.sink);
      input.write(wire.subarray(0, cut));
      input.write(wire.subarray(cut));
      await tick();
      assert.deepEqual(messages(rec.frames), sample, `split at byte ${cut}`);
      await transport.close();
    }
  });

  it('decodes a stream fed one byte at a time', async () => {
    const input = new PassThrough();
    const transport = new StdioServerTransport({ input, output: new PassThrough() });
    const rec = recorder();
    await transport.start(rec.sink);
    for (const byte of wire) input.write(Buffer.from([byte]));
    await tick();
    assert.deepEqual(messages(rec.frames), sample);
  });

  it('accepts CRLF line endings and skips blank lines', async () => {
    const input = new PassThrough();
    const transport = new StdioServerTransport({ input, output: new PassThrough() });
    const rec = recorder();
    await transport.start(rec.sink);
    input.write('\n\r\n   \n' + JSON.stringify(sample[0]) + '\r\n\n\t\n' + JSON.stringify(sample[1]) + '\r\n');
    await tick();
    assert.deepEqual(messages(rec.frames), sample.slice(0, 2));
  });

  it('turns an oversize line into a -32600 frame (id null) and still reads the next line', async () => {
    const input = new PassThrough();
    const transport = new StdioServerTransport({ input, output: new PassThrough(), limits: { maxBytes: 64 } });
    const rec = recorder();
    await transport.start(rec.sink);
    const huge = JSON.stringify({ jsonrpc: '2.0', id: 9, method: 'echo', params: { pad: 'x'.repeat(500) } });
    // The huge line arrives in pieces, so it is discarded while still being read.
    input.write(huge.slice(0, 40));
    input.write(huge.slice(40, 300));
    input.write(huge.slice(300) + '\n' + JSON.stringify(sample[1]) + '\n');
    await tick();
    assert.equal(rec.frames.length, 2);
    const [first, second] = rec.frames;
    assert.ok(first !== undefined && !first.ok && !('batch' in first));
    assert.equal(first.error.code, -32600);
    assert.equal(first.id, null);
    assert.equal(first.isResponse, false);
    assert.deepEqual(second && 'message' in second ? second.message : undefined, sample[1]);
  });

  it('answers an oversize line with -32600 through a Connection, then answers the next request', async () => {
    const input = new PassThrough();
    const output = new PassThrough();
    const out = collect(output);
    const transport = new StdioServerTransport({ input, output, limits: { maxBytes: 100 } });
    const connection = new Connection(transport, { onRequest: (req) => req.params ?? {} });
    await connection.start();
    input.write(JSON.stringify({ jsonrpc: '2.0', id: 1, method: 'echo', params: { pad: 'y'.repeat(200) } }) + '\n');
    input.write(JSON.stringify({ jsonrpc: '2.0', id: 2, method: 'echo', params: { a: 1 } }) + '\n');
    await tick();
    await tick();
    const lines = out.text().trimEnd().split('\n').map((l) => JSON.parse(l) as Record<string, unknown>);
    assert.deepEqual(lines, [
      { jsonrpc: '2.0', id: null, error: { code: -32600, message: 'Invalid request: the message is larger than 100 bytes', data: { limit: 100 } } },
      { jsonrpc: '2.0', id: 2, result: { a: 1 } },
    ]);
    await connection.close();
  });

  it('answers invalid UTF-8 with -32700', async () => {
    const input = new PassThrough();
    const output = new PassThrough();
    const out = collect(output);
    const transport = new StdioServerTransport({ input, output });
    const connection = new Connection(transport);
    await connection.start();
    input.write(Buffer.concat([Buffer.from('{"jsonrpc":"2.0","id":1,"method":"a'), Buffer.from([0xc3, 0x28]), Buffer.from('"}\n')]));
    await tick();
    await tick();
    const reply = JSON.parse(out.text()) as { id: unknown; error: { code: number } };
    assert.equal(reply.id, null);
    assert.equal(reply.error.code, -32700);
    await connection.close();
  });

  it('drops an unfinished last line at end of input with a warning, then closes cleanly', async () => {
    const input = new PassThrough();
    const logger = memoryLogger();
    const transport = new StdioServerTransport({ input, output: new PassThrough(), logger });
    const rec = recorder();
    await transport.start(rec.sink);
    input.end(JSON.stringify(sample[0]) + '\n{"jsonrpc":"2.0","id":2,"meth');
    const reason = await rec.closed;
    assert.equal(reason, undefined);
    assert.deepEqual(messages(rec.frames), [sample[0]]);
    assert.equal(logger.warnings.length, 1);
    assert.match(logger.warnings[0] ?? '', /middle of a message/);
  });

  it('closes cleanly at end of input and ends its output', async () => {
    const input = new PassThrough();
    const output = new PassThrough();
    const transport = new StdioServerTransport({ input, output });
    const rec = recorder();
    await transport.start(rec.sink);
    const ended = new Promise((resolve) => output.on('finish', resolve));
    input.end();
    assert.equal(await rec.closed, undefined);
    await ended;
    assert.deepEqual(rec.closes, [undefined]);
    await assert.rejects(transport.send({ jsonrpc: '2.0', method: 'x' }), (e: unknown) => isMcpError(e, McpErrorCode.ConnectionClosed));
  });

  it('closes at once when started on an input that already ended', async () => {
    const input = new PassThrough();
    input.end();
    input.resume();
    await new Promise((resolve) => input.on('end', resolve));
    const transport = new StdioServerTransport({ input, output: new PassThrough() });
    const rec = recorder();
    await transport.start(rec.sink);
    assert.deepEqual(rec.closes, [undefined]);
  });

  it('writes exactly one line per message and nothing else', async () => {
    const output = new PassThrough();
    const out = collect(output);
    const transport = new StdioServerTransport({ input: new PassThrough(), output });
    await transport.start(recorder().sink);
    await transport.send({ jsonrpc: '2.0', id: 1, result: { text: 'line\nbreak\u2028' } });
    await transport.send({ jsonrpc: '2.0', method: 'notifications/message', params: { level: 'info' } });
    const text = out.text();
    assert.equal(text.split('\n').length, 3);
    assert.ok(text.endsWith('\n'));
    assert.deepEqual(text.trimEnd().split('\n').map((l) => JSON.parse(l) as unknown), [
      { jsonrpc: '2.0', id: 1, result: { text: 'line\nbreak\u2028' } },
      { jsonrpc: '2.0', method: 'notifications/message', params: { level: 'info' } },
    ]);
  });

  it('batches: messages sent in one turn go out as one write, in order, and each send resolves', async () => {
    const written: string[] = [];
    const output = new Writable({
      write(chunk: Buffer, _enc, callback) {
        written.push(chunk.toString('utf8'));
        callback();
      },
    });
    const transport = new StdioServerTransport({ input: new PassThrough(), output });
    await transport.start(recorder().sink);
    await Promise.all([1, 2, 3].map((id) => transport.send({ jsonrpc: '2.0', id, result: {} })));
    assert.equal(written.length, 1);
    assert.deepEqual(
      (written[0] as string).trimEnd().split('\n').map((l) => (JSON.parse(l) as { id: number }).id),
      [1, 2, 3],
    );
  });

  it('honours backpressure: send waits for drain and writes stay in order', async () => {
    const written: string[] = [];
    const callbacks: (() => void)[] = [];
    const output = new Writable({
      highWaterMark: 64,
      write(chunk: Buffer, _enc, callback) {
        written.push(chunk.toString('utf8'));
        callbacks.push(() => callback());
      },
    });
    const transport = new StdioServerTransport({ input: new PassThrough(), output });
    await transport.start(recorder().sink);
    const big = { jsonrpc: '2.0' as const, method: 'n', params: { pad: 'z'.repeat(100) } };
    let firstDone = false;
    let secondDone = false;
    const first = transport.send(big).then(() => (firstDone = true));
    await tick(); // the turn ends: its batch (the first message) is written
    const second = transport.send({ jsonrpc: '2.0', method: 'second' }).then(() => (secondDone = true));
    await tick();
    // The first write filled the buffer: its send waits for drain, the second is queued behind it.
    assert.equal(firstDone, false);
    assert.equal(secondDone, false);
    assert.equal(written.length, 1);
    callbacks.shift()?.();
    await first;
    await tick();
    assert.equal(written.length, 2);
    callbacks.shift()?.();
    await second;
    assert.deepEqual(written.map((l) => (JSON.parse(l) as { method: string }).method), ['n', 'second']);
  });

  it('closes with a reason instead of crashing when the output fails (EPIPE)', async () => {
    const output = new Writable({
      write(_chunk, _enc, callback) {
        callback(Object.assign(new Error('write EPIPE'), { code: 'EPIPE' }));
      },
    });
    const logger = memoryLogger();
    const transport = new StdioServerTransport({ input: new PassThrough(), output, logger });
    const rec = recorder();
    await transport.start(rec.sink);
    await transport.send({ jsonrpc: '2.0', method: 'x' }).catch(() => undefined);
    const reason = await rec.closed;
    assert.ok(isMcpError(reason, McpErrorCode.ConnectionClosed));
    assert.match(reason.message, /EPIPE/);
    assert.equal((reason.cause as { code?: string }).code, 'EPIPE');
    await assert.rejects(transport.send({ jsonrpc: '2.0', method: 'y' }), (e: unknown) => isMcpError(e, McpErrorCode.ConnectionClosed));
    assert.ok(logger.warnings.some((w) => /output stream failed/.test(w)));
  });

  it('close() is idempotent, stops reading and reports closed once', async () => {
    const input = new PassThrough();
    const output = new PassThrough();
    const transport = new StdioServerTransport({ input, output });
    const rec = recorder();
    await transport.start(rec.sink);
    await transport.close();
    await transport.close();
    input.write(JSON.stringify(sample[0]) + '\n');
    await tick();
    assert.deepEqual(rec.frames, []);
    assert.deepEqual(rec.closes, [undefined]);
    assert.equal(input.listenerCount('data'), 0);
    await assert.rejects(transport.start(rec.sink), (e: unknown) => isMcpError(e, McpErrorCode.AlreadyStarted));
  });

  it('rejects a second start and a start after close', async () => {
    const t1 = new StdioServerTransport({ input: new PassThrough(), output: new PassThrough() });
    await t1.start(recorder().sink);
    await assert.rejects(t1.start(recorder().sink), (e: unknown) => isMcpError(e, McpErrorCode.AlreadyStarted));
    const t2 = new StdioServerTransport({ input: new PassThrough(), output: new PassThrough() });
    await t2.close();
    await assert.rejects(t2.start(recorder().sink), (e: unknown) => isMcpError(e, McpErrorCode.ConnectionClosed));
  });

  it('reports an input error as the close reason', async () => {
    const input = new PassThrough();
    const transport = new StdioServerTransport({ input, output: new PassThrough() });
    const rec = recorder();
    await transport.start(rec.sink);
    input.destroy(new Error('boom'));
    const reason = await rec.closed;
    assert.ok(isMcpError(reason, McpErrorCode.ConnectionClosed));
    assert.match(reason.message, /boom/);
  });
});
