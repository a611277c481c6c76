import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { decodeFrame, isBatchResult } from '../../../src/jsonrpc/decode.js';
import type { JsonRpcMessage } from '../../../src/jsonrpc/messages.js';
import { LineReader, encodeLine } from '../../../src/jsonrpc/ndjson.js';
import { utf8 } from './support.js';

const text = (bytes: Uint8Array): string => new TextDecoder().decode(bytes);

/** A reader that records what it emits, as strings (lines) and sizes (oversize reports). */
function recorder(maxBytes: number): { reader: LineReader; lines: string[]; raw: Uint8Array[]; oversize: number[] } {
  const lines: string[] = [];
  const raw: Uint8Array[] = [];
  const oversize: number[] = [];
  const reader = new LineReader(
    {
      line: (frame) => {
        raw.push(frame.slice());
        lines.push(text(frame));
      },
      oversize: (size) => oversize.push(size),
    },
    maxBytes,
  );
  return { reader, lines, raw, oversize };
}

/**
 * The lines of a complete input, computed independently of the reader: split on LF, strip
 * one trailing CR, drop lines made only of spaces, tabs and CRs.
 */
function expectedLines(input: string): string[] {
  const parts = input.split('\n');
  parts.pop(); // the unterminated tail is not a line
  return parts.map((p) => (p.endsWith('\r') ? p.slice(0, -1) : p)).filter((p) => !/^[ \t\r]*$/.test(p));
}

const sample =
  '{"jsonrpc":"2.0","id":1,"method":"a"}\n' +
  '\n' +
  '{"jsonrpc":"2.0","method":"é€😀"}\r\n' +
  '   \t \r\n' +
  '{"jsonrpc":"2.0","id":"x","result":{"s":"mid\\r\\nline"}}\n' +
  'cr\rinside\n' +
  '\r\n' +
  '{"last":true}\n';

describe('jsonrpc/ndjson: LineReader', () => {
  it('emits each complete line without its line ending, in order', () => {
    const r = recorder(1024);
    r.reader.push(utf8('a\nbb\nccc\n'));
    assert.deepEqual(r.lines, ['a', 'bb', 'ccc']);
    assert.equal(r.reader.buffered, 0);
  });

  it('yields identical lines however the input is split into two or three chunks', () => {
    const bytes = utf8(sample);
    const want = expectedLines(sample);
    assert.equal(want.length, 5);
    for (let i = 0; i <= bytes.length; i++) {
      for (let j = i; j <= bytes.length; j += 7) {
        const r = recorder(1024);
        r.reader.push(bytes.subarray(0, i));
        r.reader.push(bytes.subarray(i, j));
        r.reader.push(bytes.subarray(j));
        assert.deepEqual(r.lines, want, `split at ${i}/${j}`);
        assert.equal(r.reader.end(), 0);
      }
    }
  });

  it('yields identical lines when fed one byte at a time (multi-byte UTF-8 reassembled)', () => {
    const bytes = utf8(sample);
    const r = recorder(1024);
    for (let i = 0; i < bytes.length; i++) r.reader.push(bytes.subarray(i, i + 1));
    assert.deepEqual(r.lines, expectedLines(sample));
    assert.ok(r.lines.includes('{"jsonrpc":"2.0","method":"é€😀"}'));
  });

  it('strips CRLF but keeps a CR in the middle of a line', () => {
    const r = recorder(100);
    r.reader.push(utf8('one\r\ntwo\r\nth\rree\n'));
    assert.deepEqual(r.lines, ['one', 'two', 'th\rree']);
  });

  it('strips a CR that arrives in a different chunk from its LF', () => {
    const r = recorder(100);
    r.reader.push(utf8('one\r'));
    r.reader.push(utf8('\ntwo\r'));
    r.reader.push(utf8('\n'));
    assert.deepEqual(r.lines, ['one', 'two']);
  });

  it('skips empty and whitespace-only lines', () => {
    const r = recorder(100);
    r.reader.push(utf8('\n\n \n\t\n\r\n \t\r\n{}\n\n'));
    assert.deepEqual(r.lines, ['{}']);
    assert.deepEqual(r.oversize, []);
  });

  it('accepts a line of exactly maxBytes', () => {
    const r = recorder(10);
    r.reader.push(utf8('0123456789\n'));
    r.reader.push(utf8('01234'));
    r.reader.push(utf8('56789\n'));
    assert.deepEqual(r.lines, ['0123456789', '0123456789']);
    assert.deepEqual(r.oversize, []);
  });

  it('reports an oversize line once, skips it, and still delivers the next line (one chunk)', () => {
    const r = recorder(10);
    r.reader.push(utf8('0123456789X\n{"ok":1}\n'));
    assert.equal(r.oversize.length, 1);
    assert.ok(r.oversize[0]! > 10);
    assert.deepEqual(r.lines, ['{"ok":1}']);
  });

  it('reports an oversize line once while it streams in over many chunks, without buffering it', () => {
    const r = recorder(16);
    r.reader.push(utf8('{"big":"'));
    for (let i = 0; i < 100; i++) {
      r.reader.push(utf8('xxxxxxxxxx'));
      assert.ok(r.reader.buffered <= 16, `buffered ${r.reader.buffered}`);
    }
    r.reader.push(utf8('"}\n{"next":1}\n'));
    assert.equal(r.oversize.length, 1);
    assert.ok(r.oversize[0]! > 16);
    assert.deepEqual(r.lines, ['{"next":1}']);
  });

  it('handles an oversize line whose newline arrives in the same chunk as more data', () => {
    const r = recorder(8);
    r.reader.push(utf8('aaaaaa'));
    r.reader.push(utf8('aaaaaa\nbb\n'));
    assert.equal(r.oversize.length, 1);
    assert.deepEqual(r.lines, ['bb']);
  });

  it('reports two separate oversize lines twice', () => {
    const r = recorder(4);
    r.reader.push(utf8('aaaaaaa\nok\nbbbbbbbbbb'));
    r.reader.push(utf8('bbb\nok2\n'));
    assert.equal(r.oversize.length, 2);
    assert.deepEqual(r.lines, ['ok', 'ok2']);
  });

  it('end() reports the bytes of an unfinished last line and drops them', () => {
    const r = recorder(100);
    r.reader.push(utf8('done\n{"part'));
    r.reader.push(utf8('ial":é'));
    const partial = Buffer.byteLength('{"partial":é');
    assert.equal(r.reader.buffered, partial);
    assert.equal(r.reader.end(), partial);
    assert.equal(r.reader.buffered, 0);
    assert.deepEqual(r.lines, ['done']);
    assert.equal(r.reader.end(), 0);
  });

  it('end() reports nothing for a stream that ended on a newline', () => {
    const r = recorder(100);
    r.reader.push(utf8('a\n'));
    assert.equal(r.reader.end(), 0);
  });

  it('is usable again after end(), even after an oversize line was being skipped', () => {
    const r = recorder(4);
    r.reader.push(utf8('toolongline'));
    assert.equal(r.oversize.length, 1);
    r.reader.end();
    r.reader.push(utf8('ok\n'));
    assert.deepEqual(r.lines, ['ok']);
  });

  it('ignores empty chunks', () => {
    const r = recorder(10);
    r.reader.push(new Uint8Array(0));
    r.reader.push(utf8('a'));
    r.reader.push(new Uint8Array(0));
    r.reader.push(utf8('\n'));
    assert.deepEqual(r.lines, ['a']);
  });
});

describe('jsonrpc/ndjson: encodeLine', () => {
  const messages: JsonRpcMessage[] = [
    { jsonrpc: '2.0', id: 1, method: 'm', params: { text: 'line1\nline2\r\n\u2028\u2029\u0000' } },
    { jsonrpc: '2.0', method: 'n' },
    { jsonrpc: '2.0', id: 'é', result: { emoji: '😀', lone: '\ud800' } },
    { jsonrpc: '2.0', id: null, error: { code: -32700, message: 'Parse error' } },
  ];

  it('writes exactly one LF-terminated line per message, with no embedded newline', () => {
    for (const m of messages) {
      const line = encodeLine(m);
      assert.ok(line.endsWith('\n'));
      assert.equal(line.indexOf('\n'), line.length - 1);
      assert.ok(!line.includes('\r'));
    }
  });

  it('round-trips through LineReader and decodeFrame to the same messages', () => {
    const stream = utf8(messages.map((m) => encodeLine(m)).join(''));
    const decoded: unknown[] = [];
    const reader = new LineReader(
      {
        line: (frame) => {
          const result = decodeFrame(frame);
          assert.ok(!isBatchResult(result) && result.ok);
          decoded.push(result.message);
        },
        oversize: () => assert.fail('unexpected oversize'),
      },
      4096,
    );
    for (let i = 0; i < stream.length; i += 5) reader.push(stream.subarray(i, i + 5));
    // The lone surrogate cannot survive UTF-8; it is escaped by JSON.stringify and comes back intact.
    assert.deepEqual(decoded, messages);
  });

  it('encodes a batch as one line holding a JSON array', () => {
    const line = encodeLine(messages.slice(0, 2));
    assert.equal(line.indexOf('\n'), line.length - 1);
    const result = decodeFrame(line.trimEnd(), { allowBatch: true });
    assert.ok(isBatchResult(result));
    assert.deepEqual(
      result.batch.map((i) => i.ok && i.message),
      messages.slice(0, 2),
    );
  });
});

describe('LineReader: CRLF at the limit', () => {
  it('accepts a CRLF line of exactly maxBytes, like its LF twin, and rejects one byte more', () => {
    const lines: string[] = [];
    let oversize = 0;
    const reader = new LineReader({ line: (f) => lines.push(new TextDecoder().decode(f)), oversize: () => oversize++ }, 10);
    reader.push(new TextEncoder().encode('0123456789\n0123456789\r\n'));
    reader.push(new TextEncoder().encode('0123456789A\r\n'));
    assert.deepEqual(lines, ['0123456789', '0123456789']);
    assert.equal(oversize, 1);
  });
});
