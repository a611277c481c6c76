import assert from 'node:assert/strict';
import { Writable } from 'node:stream';
import { describe, it } from 'node:test';
import { LineWriter } from '../../../../src/transport/stdio/framing.js';

/** A stream that records each `write` it gets. */
function recorder(): { stream: Writable; writes: string[] } {
  const writes: string[] = [];
  const stream = new Writable({
    write(chunk: Buffer, _encoding, callback) {
      writes.push(chunk.toString());
      callback();
    },
  });
  return { stream, writes };
}

describe('transport/stdio/framing: LineWriter coalescing', () => {
  it('microtask: lines of one synchronous run share a write; a line after a microtask boundary gets its own', async () => {
    const { stream, writes } = recorder();
    const writer = new LineWriter(stream, 'test');
    const a = writer.write('a\n');
    const b = writer.write('b\n');
    await Promise.resolve();
    const c = writer.write('c\n');
    await Promise.all([a, b, c]);
    assert.deepEqual(writes, ['a\nb\n', 'c\n']);
  });

  it('turn: lines written in separate tasks of one loop turn share one write, in order', async () => {
    const { stream, writes } = recorder();
    const writer = new LineWriter(stream, 'test', 'turn');
    const a = writer.write('a\n');
    await Promise.resolve();
    const b = writer.write('b\n');
    await new Promise<void>((resolve) => process.nextTick(resolve));
    const c = writer.write('c\n');
    await Promise.all([a, b, c]);
    assert.deepEqual(writes, ['a\nb\nc\n']);
    await writer.write('d\n');
    assert.deepEqual(writes, ['a\nb\nc\n', 'd\n']);
  });

  it('turn: end() flushes what is pending at once (nothing is lost when the host closes the pipe)', async () => {
    const { stream, writes } = recorder();
    const writer = new LineWriter(stream, 'test', 'turn');
    const a = writer.write('last\n');
    writer.end();
    await a;
    await new Promise<void>((resolve) => stream.once('finish', () => resolve()));
    assert.deepEqual(writes, ['last\n']);
  });

  it('backpressure: a batch behind a full stream waits for drain, the next follows in order, end() comes last', async () => {
    const writes: string[] = [];
    const callbacks: (() => void)[] = [];
    // highWaterMark 1 and a write that completes only when told: every write fills the stream.
    const stream = new Writable({
      highWaterMark: 1,
      write(chunk: Buffer, _encoding, callback) {
        writes.push(chunk.toString());
        callbacks.push(() => callback());
      },
    });
    const writer = new LineWriter(stream, 'test');
    let aDone = false;
    const a = writer.write('a\n').then(() => (aDone = true));
    await new Promise<void>((resolve) => setImmediate(resolve));
    assert.deepEqual(writes, ['a\n']);
    assert.equal(aDone, false, 'the first write waits for drain');
    const b = writer.write('b\n');
    const c = writer.write('c\n');
    assert.equal(b, c, 'lines of one batch share one promise');
    writer.end();
    await new Promise<void>((resolve) => setImmediate(resolve));
    assert.deepEqual(writes, ['a\n'], 'the next batch waits behind the full stream');
    let finished = false;
    stream.once('finish', () => (finished = true));
    (callbacks.shift() as () => void)();
    await a;
    await new Promise<void>((resolve) => setImmediate(resolve));
    assert.deepEqual(writes, ['a\n', 'b\nc\n']);
    assert.equal(finished, false, 'end() waits for the queued batch');
    (callbacks.shift() as () => void)();
    await b;
    await new Promise<void>((resolve) => setImmediate(resolve));
    assert.equal(finished, true);
  });

  it('a closed stream rejects every line of the batch with a connection-closed error', async () => {
    const { stream } = recorder();
    stream.destroy();
    const writer = new LineWriter(stream, 'the test stream');
    const results = await Promise.allSettled([writer.write('a\n'), writer.write('b\n')]);
    for (const r of results) {
      assert.equal(r.status, 'rejected');
      assert.match(String((r as PromiseRejectedResult).reason), /the test stream is closed/);
    }
  });
});
