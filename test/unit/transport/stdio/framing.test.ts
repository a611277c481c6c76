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
});
