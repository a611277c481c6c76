import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import fc from 'fast-check';
import { Connection } from '../../../src/jsonrpc/connection.js';
import { decodeFrame, isBatchResult, type DecodeLimits, type DecodeResult, type DecodedItem } from '../../../src/jsonrpc/decode.js';
import { ErrorCode, JsonRpcError } from '../../../src/jsonrpc/errors.js';
import { LineReader } from '../../../src/jsonrpc/ndjson.js';
import { McpErrorCode, isMcpError } from '../../../src/util/errors.js';
import { ScriptedChannel, flush, utf8 } from './support.js';

/** Bounded runs keep the whole file within a few seconds; the seed is printed on failure. */
const runs = (numRuns: number): fc.Parameters<unknown> => ({ numRuns });

// ---------------------------------------------------------------------------------------
// An oracle written from the JSON-RPC 2.0 spec and MCP's id rules, independent of decode.ts.
// ---------------------------------------------------------------------------------------

type Obj = Record<string, unknown>;
const isPlainObject = (v: unknown): v is Obj => typeof v === 'object' && v !== null && !Array.isArray(v);
const isId = (v: unknown): v is string | number => typeof v === 'string' || Number.isSafeInteger(v);
const has = (o: Obj, k: string): boolean => Object.prototype.hasOwnProperty.call(o, k);

/** True when `v` is one valid JSON-RPC 2.0 message as MCP uses it. */
function specValid(v: unknown): boolean {
  if (!isPlainObject(v) || v['jsonrpc'] !== '2.0') return false;
  if (has(v, 'method')) {
    if (typeof v['method'] !== 'string' || v['method'] === '') return false;
    if (has(v, 'result') || has(v, 'error')) return false;
    if (has(v, 'params') && !isPlainObject(v['params'])) return false;
    return !has(v, 'id') || isId(v['id']);
  }
  if (has(v, 'result') === has(v, 'error')) return false;
  if (has(v, 'result')) return isId(v['id']) && isPlainObject(v['result']);
  const e = v['error'];
  return (v['id'] === null || isId(v['id'])) && isPlainObject(e) && Number.isInteger(e['code']) && typeof e['message'] === 'string';
}

const decoderCodes = new Set<number>([ErrorCode.ParseError, ErrorCode.InvalidRequest, ErrorCode.InvalidParams]);

/** Checks one decoded item; `input` is the parsed value it came from, when known. */
function checkItem(item: DecodedItem, input?: { value: unknown }): void {
  if (item.ok) {
    assert.ok(specValid(item.message), `accepted an invalid message: ${JSON.stringify(item.message)}`);
    if (input !== undefined) assert.deepEqual(item.message, input.value);
    return;
  }
  assert.ok(item.error instanceof JsonRpcError);
  assert.ok(decoderCodes.has(item.error.code), `unexpected code ${item.error.code}`);
  assert.equal(typeof item.error.message, 'string');
  assert.ok(item.id === null || isId(item.id));
  if (input !== undefined) {
    assert.notEqual(item.error.code, ErrorCode.ParseError, 'valid JSON must never be a parse error');
    assert.equal(specValid(input.value), false, `rejected a valid message: ${JSON.stringify(input.value)} (${item.error.message})`);
    // MUST-12: echo the id when it can be read, null otherwise.
    const v = input.value;
    const expectedId = isPlainObject(v) && isId(v['id']) ? v['id'] : null;
    assert.equal(item.id, expectedId);
    if (item.error.code === ErrorCode.InvalidParams) assert.ok(isPlainObject(v) && Array.isArray(v['params']));
  }
}

/** Checks a whole decode result. `input` is the parsed value of a valid-JSON frame. */
function checkResult(result: DecodeResult, limits: DecodeLimits, input?: { value: unknown }): void {
  if (isBatchResult(result)) {
    assert.equal(limits.allowBatch, true, 'a batch was returned though batches are off');
    assert.ok(result.batch.length > 0);
    if (input !== undefined) {
      assert.ok(Array.isArray(input.value));
      assert.equal(result.batch.length, input.value.length);
      result.batch.forEach((item, i) => checkItem(item, { value: (input.value as unknown[])[i] }));
    } else {
      for (const item of result.batch) checkItem(item);
    }
    return;
  }
  if (input !== undefined && Array.isArray(input.value)) {
    assert.equal(result.ok, false);
    assert.ok(!result.ok);
    assert.equal(result.error.code, ErrorCode.InvalidRequest);
    assert.equal(result.id, null);
    return;
  }
  checkItem(result, input);
}

// ---------------------------------------------------------------------------------------
// Generators
// ---------------------------------------------------------------------------------------

const smallJson = fc.jsonValue({ maxDepth: 2 });
const anyId = fc.oneof(
  { weight: 4, arbitrary: fc.integer({ min: 1, max: 5 }) },
  { weight: 2, arbitrary: fc.constantFrom('1', '2', 'a', '', '🚀') },
  { weight: 1, arbitrary: fc.constantFrom(0, -1, Number.MAX_SAFE_INTEGER, 2 ** 53, 1.5, -0.5, 1e300) },
  { weight: 1, arbitrary: fc.constantFrom<unknown>(null, true, false, {}, [1], [] as unknown[]) },
);
const anyMethod = fc.oneof(
  { weight: 5, arbitrary: fc.constantFrom('ping', 'tools/call', 'notifications/cancelled', 'notifications/progress', 'x') },
  { weight: 1, arbitrary: fc.constantFrom<unknown>('', 0, null, ['m'], {}) },
  { weight: 1, arbitrary: fc.string({ maxLength: 8 }) },
);
const goodParams = fc.record(
  {
    requestId: anyId,
    progressToken: anyId,
    progress: fc.oneof(fc.integer(), fc.double({ noNaN: true, noDefaultInfinity: true }), fc.string({ maxLength: 3 })),
    reason: fc.string({ maxLength: 5 }),
    _meta: fc.oneof(fc.constant({}), fc.record({ progressToken: anyId })),
  },
  { requiredKeys: [] },
);
const anyParams = fc.oneof({ weight: 4, arbitrary: goodParams }, { weight: 1, arbitrary: smallJson });
const anyResult = fc.oneof(
  { weight: 3, arbitrary: fc.dictionary(fc.string({ maxLength: 3 }), smallJson, { maxKeys: 2 }) },
  { weight: 1, arbitrary: smallJson },
);
const anyError = fc.oneof(
  {
    weight: 3,
    arbitrary: fc.record(
      { code: fc.oneof(fc.integer({ min: -33000, max: 1000 }), fc.double()), message: fc.oneof(fc.string({ maxLength: 5 }), fc.integer()), data: smallJson },
      { requiredKeys: ['code', 'message'] },
    ),
  },
  { weight: 1, arbitrary: smallJson },
);
const anyVersion = fc.oneof({ weight: 8, arbitrary: fc.constant<unknown>('2.0') }, { weight: 1, arbitrary: fc.constantFrom<unknown>('1.0', 2, null, '2.0 ') });

const fields = { jsonrpc: anyVersion, id: anyId, method: anyMethod, params: anyParams, result: anyResult, error: anyError };
type Field = keyof typeof fields;
function shape(keys: Field[], core: Field[]): fc.Arbitrary<Obj> {
  const model: Partial<Record<Field, fc.Arbitrary<unknown>>> = {};
  for (const k of keys) model[k] = fields[k];
  // Usually every core key is present; sometimes one is dropped.
  const record = fc.record(model as Record<string, fc.Arbitrary<unknown>>, { requiredKeys: core });
  if (core.length === 0) return record;
  return record.chain((o) =>
    fc.oneof({ weight: 6, arbitrary: fc.constant(o) }, { weight: 1, arbitrary: fc.constantFrom(...core).map((k) => {
      const copy = { ...o };
      delete copy[k];
      return copy;
    }) }),
  );
}

/** Objects shaped like messages, each field sometimes of the wrong type. */
const nearValid: fc.Arbitrary<Obj> = fc.oneof(
  shape(['jsonrpc', 'id', 'method', 'params'], ['jsonrpc', 'id', 'method']),
  shape(['jsonrpc', 'method', 'params'], ['jsonrpc', 'method']),
  shape(['jsonrpc', 'id', 'result'], ['jsonrpc', 'id', 'result']),
  shape(['jsonrpc', 'id', 'error'], ['jsonrpc', 'id', 'error']),
  shape(['jsonrpc', 'id', 'method', 'params', 'result', 'error'], []),
);
const nearValidOrBatch: fc.Arbitrary<unknown> = fc.oneof(
  { weight: 4, arbitrary: nearValid },
  { weight: 1, arbitrary: fc.array(fc.oneof({ weight: 5, arbitrary: nearValid }, { weight: 1, arbitrary: smallJson }), { maxLength: 6 }) },
);
const limitsArb: fc.Arbitrary<DecodeLimits> = fc.record({ allowBatch: fc.boolean(), maxBatchLength: fc.integer({ min: 1, max: 8 }) });
const jsonish = fc.string({ unit: fc.constantFrom('{', '}', '[', ']', '"', ':', ',', '\\', '1', '.', 'e', '-', 'a', ' ', 'null', 'true', '"2.0"', '"id"', '"method"', '"jsonrpc"', '\u00e9', '\ud800'), maxLength: 60 });

/** Round-trips through JSON so the oracle sees what the decoder sees (NaN → null, -0 → 0, ...). */
const wire = (value: unknown): unknown => JSON.parse(JSON.stringify(value)) as unknown;

// ---------------------------------------------------------------------------------------
// Properties
// ---------------------------------------------------------------------------------------

describe('jsonrpc fuzz: decodeFrame', () => {
  it('never throws on arbitrary bytes; every answer is a valid message or a -32700/-32600/-32602 error', () => {
    fc.assert(
      fc.property(fc.uint8Array({ maxLength: 256 }), limitsArb, (bytes, limits) => {
        checkResult(decodeFrame(bytes, limits), limits);
      }),
      runs(400),
    );
  });

  it('never throws on valid messages with random bytes corrupted', () => {
    fc.assert(
      fc.property(nearValid, fc.array(fc.tuple(fc.nat(), fc.integer({ min: 0, max: 255 })), { minLength: 1, maxLength: 4 }), (message, flips) => {
        const bytes = utf8(JSON.stringify(message));
        if (bytes.length === 0) return;
        for (const [at, value] of flips) bytes[at % bytes.length] = value;
        checkResult(decodeFrame(bytes), {});
      }),
      runs(400),
    );
  });

  it('never throws on arbitrary strings, lone surrogates included', () => {
    fc.assert(
      fc.property(fc.oneof(fc.string({ unit: 'binary', maxLength: 80 }), jsonish), limitsArb, (text, limits) => {
        checkResult(decodeFrame(text, limits), limits);
      }),
      runs(400),
    );
  });

  it('rejects a string as too large exactly when its UTF-8 encoding exceeds maxBytes', () => {
    const limitOf = (r: DecodeResult): unknown => (!isBatchResult(r) && !r.ok ? (r.error.data as { limit?: unknown } | undefined)?.limit : undefined);
    fc.assert(
      fc.property(fc.oneof(fc.string({ unit: 'binary', maxLength: 60 }), jsonish), fc.integer({ min: 0, max: 200 }), (text, maxBytes) => {
        const limits = { maxBytes, maxDepth: 10_000 };
        const tooLarge = limitOf(decodeFrame(text, limits)) === maxBytes;
        assert.equal(tooLarge, Buffer.byteLength(text, 'utf8') > maxBytes, `${JSON.stringify(text)} at ${maxBytes}`);
        // The byte form of the same text is judged the same way.
        assert.equal(limitOf(decodeFrame(Buffer.from(text, 'utf8'), limits)) === maxBytes, tooLarge);
      }),
      runs(400),
    );
  });

  it('agrees with the spec oracle on arbitrary JSON values (never -32700, ids echoed per MUST-12)', () => {
    fc.assert(
      fc.property(fc.jsonValue({ maxDepth: 4 }), limitsArb, (value, limits) => {
        const text = JSON.stringify(value);
        checkResult(decodeFrame(text, { ...limits, maxBatchLength: 1000 }), { ...limits }, { value: wire(value) });
      }),
      runs(400),
    );
  });

  it('agrees with the spec oracle on near-valid messages and batches with random field types', () => {
    fc.assert(
      fc.property(nearValidOrBatch, fc.boolean(), (value, allowBatch) => {
        const text = JSON.stringify(value);
        const limits = { allowBatch, maxBatchLength: 1000 };
        checkResult(decodeFrame(text, limits), limits, { value: wire(value) });
        checkResult(decodeFrame(utf8(text), limits), limits, { value: wire(value) });
      }),
      runs(600),
    );
  });
});

describe('jsonrpc fuzz: LineReader + decodeFrame', () => {
  /** Independent line oracle: split on LF, drop one trailing CR, skip blank lines. */
  const oracleLines = (input: string): string[] => {
    const parts = input.split('\n');
    parts.pop();
    return parts.map((p) => (p.endsWith('\r') ? p.slice(0, -1) : p)).filter((p) => !/^[ \t\r]*$/.test(p));
  };
  const frameText = fc.oneof(
    { weight: 3, arbitrary: nearValidOrBatch.map((v) => JSON.stringify(v)) },
    { weight: 1, arbitrary: fc.string({ unit: 'binary', maxLength: 40 }).map((s) => s.replace(/\n/g, '')) },
    { weight: 1, arbitrary: fc.constantFrom('', ' ', '\t', '\r') },
  );

  it('cuts any stream, split anywhere, into the oracle lines, each decoded without throwing', () => {
    fc.assert(
      fc.property(
        fc.array(fc.tuple(frameText, fc.constantFrom('\n', '\r\n')), { maxLength: 8 }),
        fc.string({ unit: 'binary', maxLength: 10 }).map((s) => s.replace(/\n/g, '')),
        fc.array(fc.nat(), { maxLength: 6 }),
        (frames, tail, cuts) => {
          const input = frames.map(([f, eol]) => f + eol).join('') + tail;
          const bytes = utf8(input);
          const lines: string[] = [];
          const reader = new LineReader(
            {
              line: (frame) => {
                lines.push(new TextDecoder().decode(frame));
                checkResult(decodeFrame(frame, { allowBatch: true }), { allowBatch: true });
              },
              oversize: () => assert.fail('no line here is oversize'),
            },
            1 << 20,
          );
          const points = [...new Set(cuts.map((c) => c % (bytes.length + 1)))].sort((x, y) => x - y);
          let start = 0;
          for (const p of [...points, bytes.length]) {
            reader.push(bytes.subarray(start, p));
            start = p;
          }
          // Compare as bytes decoded the same way (lone surrogates become U+FFFD on both sides).
          const expected = oracleLines(new TextDecoder().decode(bytes));
          assert.deepEqual(lines, expected);
          assert.equal(reader.end(), utf8(new TextDecoder().decode(bytes)).length - (bytes.lastIndexOf(0x0a) + 1));
        },
      ),
      runs(300),
    );
  });

  it('reports each oversize line exactly once and still delivers every line within the limit', () => {
    fc.assert(
      fc.property(
        fc.array(fc.string({ unit: 'grapheme-ascii', maxLength: 30 }).map((s) => s.replace(/[\n\r]/g, '')), { maxLength: 10 }),
        fc.integer({ min: 1, max: 20 }),
        fc.integer({ min: 1, max: 16 }),
        (segments, maxBytes, chunkSize) => {
          const bytes = utf8(segments.map((s) => s + '\n').join(''));
          const lines: string[] = [];
          let oversize = 0;
          const reader = new LineReader({ line: (f) => lines.push(new TextDecoder().decode(f)), oversize: () => oversize++ }, maxBytes);
          for (let i = 0; i < bytes.length; i += chunkSize) {
            reader.push(bytes.subarray(i, i + chunkSize));
            // One byte of slack: the CR of a CRLF ending may be held before its LF arrives.
            assert.ok(reader.buffered <= maxBytes + 1);
          }
          assert.equal(oversize, segments.filter((s) => utf8(s).length > maxBytes).length);
          assert.deepEqual(lines, segments.filter((s) => utf8(s).length <= maxBytes && !/^[ \t]*$/.test(s)));
        },
      ),
      runs(300),
    );
  });
});

describe('jsonrpc fuzz: Connection fed random frames', () => {
  /** What a correct connection must send back for one decoded frame: the ids it answers. */
  function expectedAnswers(result: DecodeResult): { batch: boolean; ids: unknown[] } {
    const items = isBatchResult(result) ? result.batch : [result];
    const ids: unknown[] = [];
    const inFlight = new Map<unknown, number>(); // id -> index in ids of its (cancellable) answer
    for (const item of items) {
      if (!item.ok) {
        if (!item.isResponse) ids.push(item.id); // MUST-12: malformed requests are answered
        continue;
      }
      const m = item.message as unknown as Obj;
      if (typeof m['method'] !== 'string') continue; // responses are never answered
      if (has(m, 'id')) {
        if (inFlight.has(m['id'])) ids.push(m['id']); // MUST-5 duplicate: refused at once
        else {
          inFlight.set(m['id'], ids.length);
          ids.push(m['id']);
        }
      } else if (isBatchResult(result) && m['method'] === 'notifications/cancelled') {
        // Within a batch a later cancellation can reach a still-running handler: no answer then.
        const target = (m['params'] as Obj | undefined)?.['requestId'];
        const at = inFlight.get(target);
        if ((typeof target === 'string' || typeof target === 'number') && at !== undefined) {
          ids[at] = undefined;
          inFlight.delete(target);
        }
      }
      // MUST-19: notifications are never answered.
    }
    return { batch: isBatchResult(result), ids: ids.filter((i) => i !== undefined) };
  }

  const frameArb = fc.oneof(
    { weight: 6, arbitrary: nearValidOrBatch.map((v) => JSON.stringify(v)) },
    { weight: 1, arbitrary: jsonish },
    { weight: 1, arbitrary: fc.string({ unit: 'binary', maxLength: 30 }) },
  );

  it('never throws, answers only requests (each exactly once, with its id), and settles everything on close', async () => {
    await fc.assert(
      fc.asyncProperty(fc.array(frameArb, { minLength: 1, maxLength: 12 }), fc.boolean(), fc.boolean(), fc.boolean(), async (frames, allowBatch, dropWithError, listenerThrows) => {
        const limits: DecodeLimits = { allowBatch };
        const channel = new ScriptedChannel();
        const conn = new Connection(channel, {
          defaultTimeoutMs: 0,
          onRequest: async (req) => {
            switch (req.method.length % 5) {
              case 0:
                return { ok: true };
              case 1:
                throw JsonRpcError.invalidParams('nope');
              case 2:
                await Promise.resolve();
                throw new Error('handler bug');
              case 3:
                await Promise.resolve();
                return { method: req.method };
              default:
                // A JS handler breaking the type contract must still yield a valid answer.
                return (req.method.length % 2 === 0 ? undefined : [req.method]) as unknown as Record<string, unknown>;
            }
          },
          onNotification: (n) => {
            if (listenerThrows) throw new Error(`listener bug on ${n.method}`);
          },
          onHandlerError: () => {},
        });
        await conn.start();
        // Some outgoing requests the random frames may answer, cancel or report progress on.
        const outgoing = [1, 2, 3].map((i) => {
          const state = { settled: false };
          const p = conn.request(`out${i}`, {}, { onProgress: () => {} }).then(
            () => (state.settled = true),
            () => (state.settled = true),
          );
          return { state, p };
        });
        const sentBefore = channel.sent.length;
        assert.equal(sentBefore, 3);

        for (const frame of frames) {
          const before = channel.sent.length;
          let decoded: DecodeResult | undefined;
          assert.doesNotThrow(() => {
            decoded = channel.deliver(frame, limits);
          });
          await flush(2);
          const sent = channel.sent.slice(before);
          const want = expectedAnswers(decoded!);
          if (want.ids.length === 0) {
            assert.deepEqual(sent, [], `answered a frame that needs no answer: ${frame}`);
            continue;
          }
          assert.equal(sent.length, 1, `expected one answer to ${frame}`);
          const answers = want.batch ? sent[0] : [sent[0]];
          assert.ok(Array.isArray(answers), 'a batch is answered with a batch');
          // Every answer is itself a valid response (checked by the independent oracle).
          for (const a of answers) {
            assert.ok(specValid(a) && !has(a as Obj, 'method'), `not a valid response: ${JSON.stringify(a)}`);
          }
          const key = (id: unknown): string => JSON.stringify(id);
          assert.deepEqual(answers.map((a) => key((a as Obj)['id'])).sort(), want.ids.map(key).sort());
        }

        if (dropWithError) channel.drop(new Error('peer went away'));
        else await conn.close();
        await flush(2);
        await Promise.all(outgoing.map((o) => o.p));
        assert.ok(outgoing.every((o) => o.state.settled), 'a pending request was left unresolved');
        assert.equal(conn.pendingCount, 0);
        assert.equal(conn.inFlightCount, 0);
        const late = await conn.request('after').catch((e: unknown) => e);
        assert.ok(isMcpError(late, McpErrorCode.ConnectionClosed));
      }),
      runs(250),
    );
  });
});
