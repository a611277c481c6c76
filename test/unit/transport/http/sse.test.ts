import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import fc from 'fast-check';
import { encodeSseComment, encodeSseEvent, encodeSseJson, SseBufferOverflowError, SseParser, type SseEvent } from '../../../../src/transport/http/sse.js';

function parseAll(chunks: (string | Uint8Array)[]): { events: SseEvent[]; comments: string[]; retries: number[] } {
  const events: SseEvent[] = [];
  const comments: string[] = [];
  const retries: number[] = [];
  const p = new SseParser({ onEvent: (e) => events.push(e), onComment: (c) => comments.push(c), onRetry: (r) => retries.push(r) });
  for (const c of chunks) p.push(c);
  p.end();
  return { events, comments, retries };
}

/** Splits `bytes` at the given cut points. */
function cut(bytes: Uint8Array, points: number[]): Uint8Array[] {
  const sorted = [...new Set(points.map((p) => p % (bytes.length + 1)))].sort((a, b) => a - b);
  const out: Uint8Array[] = [];
  let prev = 0;
  for (const p of sorted) {
    out.push(bytes.subarray(prev, p));
    prev = p;
  }
  out.push(bytes.subarray(prev));
  return out;
}

describe('SSE framing', () => {
  it('encodes every field, multi-line data split on CRLF, CR and LF', () => {
    assert.equal(encodeSseEvent({ id: '7', event: 'message', retry: 1000, data: 'a\r\nb\rc\nd' }), 'id: 7\nevent: message\nretry: 1000\ndata: a\ndata: b\ndata: c\ndata: d\n\n');
    assert.equal(encodeSseEvent({ data: '' }), 'data: \n\n');
    assert.equal(encodeSseEvent({}), '\n');
    assert.equal(encodeSseJson({ a: 'x\ny' }), 'data: {"a":"x\\ny"}\n\n');
    assert.equal(encodeSseComment(), ':\n\n');
    assert.equal(encodeSseComment('ping'), ': ping\n\n');
  });

  it('refuses fields that would corrupt the stream', () => {
    assert.throws(() => encodeSseEvent({ id: 'a\nb' }), TypeError);
    assert.throws(() => encodeSseEvent({ id: 'a\0b' }), TypeError);
    assert.throws(() => encodeSseEvent({ event: 'a\rb' }), TypeError);
    assert.throws(() => encodeSseEvent({ retry: -1 }), TypeError);
    assert.throws(() => encodeSseEvent({ retry: 1.5 }), TypeError);
    assert.throws(() => encodeSseComment('x\ny'), TypeError);
  });
});

describe('SSE parser', () => {
  it('handles CRLF, CR and LF line ends, comments, event types and the last event id', () => {
    const { events, comments } = parseAll([': hello\r\nid: 1\revent: up\ndata: a\r\ndata:b\n\ndata: c\r\r']);
    assert.deepEqual(events, [
      { event: 'up', data: 'a\nb', id: '1' },
      { event: 'message', data: 'c', id: '1' },
    ]);
    assert.deepEqual(comments, ['hello']);
  });

  it('drops a leading BOM once, only at the start', () => {
    const bom = new Uint8Array([0xef, 0xbb, 0xbf]);
    const body = new TextEncoder().encode('data: x\n\n');
    assert.deepEqual(parseAll([bom.subarray(0, 1), bom.subarray(1), body]).events.map((e) => e.data), ['x']);
    assert.deepEqual(parseAll(['\ufeffdata: y\n\n']).events.map((e) => e.data), ['y']);
    // A second BOM is part of the field name, so the line is an unknown field.
    assert.deepEqual(parseAll(['\ufeff\ufeffdata: z\n\n']).events, []);
  });

  it('ignores an id with NUL; an empty id resets; retry takes digits only', () => {
    const { events, retries } = parseAll(['id: 5\ndata: a\n\nid: 6\0\ndata: b\n\nid\ndata: c\n\nretry: 300\nretry: 3x\nretry: -1\n']);
    assert.deepEqual(events.map((e) => e.id), ['5', '5', '']);
    assert.deepEqual(retries, [300]);
  });

  it('an event without data is not dispatched; "data" alone dispatches an empty string', () => {
    const { events } = parseAll(['event: x\n\ndata\n\n']);
    assert.deepEqual(events, [{ event: 'message', data: '', id: '' }]);
  });

  it('fields without a space after the colon, unknown fields, and a pending event at end are discarded', () => {
    const { events } = parseAll(['data:no-space\nfoo: bar\n\ndata: unfinished']);
    assert.deepEqual(events.map((e) => e.data), ['no-space']);
  });

  it('CR at a chunk end followed by LF in the next chunk is one line end', () => {
    const { events } = parseAll(['data: a\r', '\ndata: b\r', '\n\r', '\n']);
    assert.deepEqual(events.map((e) => e.data), ['a\nb']);
  });

  it('a UTF-8 sequence split across chunks decodes intact', () => {
    const bytes = new TextEncoder().encode('data: 世界🙂\n\n');
    for (let i = 0; i <= bytes.length; i++) {
      assert.equal(parseAll([bytes.subarray(0, i), bytes.subarray(i)]).events[0]?.data, '世界🙂');
    }
  });

  it('bounds buffered lines and data', () => {
    const p = new SseParser({ onEvent: () => undefined, maxBufferLength: 10 });
    assert.throws(() => p.push('data: 0123456789abc'), SseBufferOverflowError);
    const q = new SseParser({ onEvent: () => undefined, maxBufferLength: 10 });
    assert.throws(() => q.push('data: 012345\ndata: 6789\n'), SseBufferOverflowError);
  });

  it('round-trips random events through random chunking (bytes)', () => {
    const text = fc.string({ unit: 'binary', maxLength: 40 });
    const noBreak = fc.string({ unit: 'binary', maxLength: 12 }).filter((s) => !/[\r\n\0]/.test(s));
    const eventArb = fc.record({ id: fc.option(noBreak, { nil: undefined }), event: fc.option(noBreak.filter((s) => s !== ''), { nil: undefined }), data: text });
    fc.assert(
      fc.property(fc.array(eventArb, { minLength: 1, maxLength: 8 }), fc.array(fc.nat(), { maxLength: 12 }), fc.constantFrom('\n', '\r\n', '\r'), (evs, points, eol) => {
        const wire = evs
          .map((e) => encodeSseEvent({ ...(e.id === undefined ? {} : { id: e.id }), ...(e.event === undefined ? {} : { event: e.event }), data: e.data }))
          .join(encodeSseComment('k'))
          .replace(/\n/g, eol);
        const { events } = parseAll(cut(new TextEncoder().encode(wire), points));
        assert.equal(events.length, evs.length);
        let lastId = '';
        evs.forEach((e, i) => {
          if (e.id !== undefined) lastId = e.id;
          assert.equal(events[i]?.data, e.data.replace(/\r\n|\r/g, '\n'));
          assert.equal(events[i]?.event, e.event ?? 'message');
          assert.equal(events[i]?.id, lastId);
        });
      }),
      { numRuns: 300 },
    );
  });

  it('round-trips JSON-RPC messages through random string chunking', () => {
    fc.assert(
      fc.property(fc.array(fc.jsonValue(), { minLength: 1, maxLength: 6 }), fc.array(fc.nat(), { maxLength: 10 }), (values, points) => {
        const wire = values.map((v) => encodeSseJson({ jsonrpc: '2.0', method: 'n', params: { v } })).join('');
        const sorted = [...new Set(points.map((p) => p % (wire.length + 1)))].sort((a, b) => a - b);
        const chunks: string[] = [];
        let prev = 0;
        for (const p of sorted) {
          chunks.push(wire.slice(prev, p));
          prev = p;
        }
        chunks.push(wire.slice(prev));
        const { events } = parseAll(chunks);
        assert.deepEqual(
          events.map((e) => JSON.parse(e.data) as unknown),
          values.map((v) => JSON.parse(JSON.stringify({ jsonrpc: '2.0', method: 'n', params: { v } })) as unknown),
        );
      }),
      { numRuns: 200 },
    );
  });
});
