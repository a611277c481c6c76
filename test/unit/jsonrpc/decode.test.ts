import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import {
  classify,
  decodeFrame,
  defaultDecodeLimits,
  isBatchResult,
  nestingDepthExceeds,
  type DecodeLimits,
  type DecodeResult,
  type DecodedItem,
} from '../../../src/jsonrpc/decode.js';
import { ErrorCode, JsonRpcError } from '../../../src/jsonrpc/errors.js';
import { isErrorResponse, isNotification, isRequest, isResponse, type JsonRpcMessage } from '../../../src/jsonrpc/messages.js';
import { encodeLine } from '../../../src/jsonrpc/ndjson.js';
import { utf8 } from './support.js';

type Failure = Extract<DecodedItem, { ok: false }>;

function single(result: DecodeResult): DecodedItem {
  assert.ok(!isBatchResult(result), 'expected a single item, got a batch');
  return result;
}

function expectFailure(result: DecodeResult, code: number): Failure {
  const item = single(result);
  assert.equal(item.ok, false, `expected error ${code}, got a valid message`);
  assert.ok(!item.ok);
  assert.ok(item.error instanceof JsonRpcError);
  assert.equal(item.error.code, code, `expected ${code}, got ${item.error.code}: ${item.error.message}`);
  assert.equal(typeof item.error.message, 'string');
  assert.ok(item.error.message.length > 0);
  return item;
}

function expectMessage(result: DecodeResult): JsonRpcMessage {
  const item = single(result);
  assert.ok(item.ok, `expected a valid message, got ${item.ok ? '' : item.error.message}`);
  return item.message;
}

const json = (value: unknown): string => JSON.stringify(value);

describe('jsonrpc/decode: valid messages (MUST-2)', () => {
  const samples: [string, unknown, (m: JsonRpcMessage) => boolean][] = [
    ['request with params', { jsonrpc: '2.0', id: 1, method: 'tools/list', params: { cursor: 'x' } }, isRequest],
    ['request without params', { jsonrpc: '2.0', id: 'abc', method: 'ping' }, isRequest],
    ['notification', { jsonrpc: '2.0', method: 'notifications/initialized' }, isNotification],
    ['success response', { jsonrpc: '2.0', id: 7, result: { ok: true } }, isResponse],
    ['error response', { jsonrpc: '2.0', id: 'q', error: { code: -32601, message: 'nope', data: [1] } }, isErrorResponse],
    ['error response with an unreadable-id null', { jsonrpc: '2.0', id: null, error: { code: -32700, message: 'bad' } }, isErrorResponse],
  ];
  for (const [name, value, guard] of samples) {
    it(`accepts a ${name} and returns it unchanged`, () => {
      for (const frame of [json(value), utf8(json(value))]) {
        const message = expectMessage(decodeFrame(frame));
        assert.deepEqual(message, value);
        assert.ok(guard(message));
      }
    });
  }

  it('accepts surrounding JSON whitespace', () => {
    const message = expectMessage(decodeFrame(' \t\r\n{"jsonrpc":"2.0","method":"m"}\r\n '));
    assert.deepEqual(message, { jsonrpc: '2.0', method: 'm' });
  });

  it('strips a leading UTF-8 byte order mark from bytes', () => {
    const bytes = new Uint8Array([0xef, 0xbb, 0xbf, ...utf8('{"jsonrpc":"2.0","method":"m"}')]);
    assert.deepEqual(expectMessage(decodeFrame(bytes)), { jsonrpc: '2.0', method: 'm' });
  });
});

describe('jsonrpc/decode: -32700 parse errors', () => {
  const malformed = ['', '   ', '{', '{"jsonrpc":"2.0",}', "{'jsonrpc':'2.0'}", 'NaN', 'undefined', '{"a":1} {"b":2}', '{"a":01}', '[1,]', '{"a":"\u0001"}'];
  for (const text of malformed) {
    it(`rejects malformed JSON ${JSON.stringify(text)} with -32700 and a null id`, () => {
      const failure = expectFailure(decodeFrame(text), ErrorCode.ParseError);
      assert.equal(failure.id, null);
      assert.equal(failure.isResponse, false);
    });
  }

  const invalidUtf8: [string, number[]][] = [
    ['a lone 0xFF byte', [0xff]],
    ['a bare continuation byte', [0x80]],
    ['an overlong "/"', [0xc0, 0xaf]],
    ['a truncated 3-byte sequence', [0xe2, 0x82]],
    ['an encoded UTF-16 surrogate', [0xed, 0xa0, 0x80]],
    ['a code point above U+10FFFF', [0xf4, 0x90, 0x80, 0x80]],
  ];
  for (const [name, bad] of invalidUtf8) {
    it(`rejects ${name} inside an otherwise valid message with -32700`, () => {
      const before = utf8('{"jsonrpc":"2.0","id":1,"method":"m","params":{"s":"');
      const after = utf8('"}}');
      const frame = new Uint8Array([...before, ...bad, ...after]);
      const failure = expectFailure(decodeFrame(frame), ErrorCode.ParseError);
      // The bytes were never parsed, so the id cannot be known.
      assert.equal(failure.id, null);
    });
  }
});

describe('jsonrpc/decode: -32600 invalid requests', () => {
  const base = { jsonrpc: '2.0', id: 3, method: 'm' };
  const cases: [string, unknown, number | string | null][] = [
    ['a missing "jsonrpc"', { id: 3, method: 'm' }, 3],
    ['"jsonrpc": "1.0"', { ...base, jsonrpc: '1.0' }, 3],
    ['"jsonrpc": 2.0 as a number', { ...base, jsonrpc: 2.0 }, 3],
    ['"jsonrpc": "2.0 " with a space', { ...base, jsonrpc: '2.0 ' }, 3],
    ['"jsonrpc": null', { ...base, jsonrpc: null }, 3],
    ['a missing method (no result or error either)', { jsonrpc: '2.0', id: 3 }, 3],
    ['an empty method', { ...base, method: '' }, 3],
    ['a numeric method', { ...base, method: 42 }, 3],
    ['a null method', { ...base, method: null }, 3],
    ['an object method', { ...base, method: { name: 'm' } }, 3],
    ['MUST-4 a null id', { ...base, id: null }, null],
    ['MUST-3 a float id', { ...base, id: 1.5 }, null],
    ['MUST-3 a boolean id', { ...base, id: true }, null],
    ['MUST-3 an object id', { ...base, id: { n: 1 } }, null],
    ['MUST-3 an array id', { ...base, id: [1] }, null],
    ['MUST-3 an integer id beyond the safe range', { ...base, id: 2 ** 53 }, null],
    ['string params', { ...base, params: 'x' }, 3],
    ['numeric params', { ...base, params: 1 }, 3],
    ['boolean params', { ...base, params: true }, 3],
    ['null params', { ...base, params: null }, 3],
    ['a request carrying "result"', { ...base, result: {} }, 3],
    ['a request carrying "error"', { ...base, error: { code: 1, message: 'x' } }, 3],
    ['a number', 5, null],
    ['a string', 'hello', null],
    ['null', null, null],
    ['true', true, null],
    ['an empty object', {}, null],
  ];
  for (const [name, value, echoed] of cases) {
    it(`rejects ${name} with -32600 and echoes ${echoed === null ? 'a null id' : 'the id'} (MUST-12)`, () => {
      const failure = expectFailure(decodeFrame(json(value)), ErrorCode.InvalidRequest);
      assert.equal(failure.id, echoed);
    });
  }

  it('MUST-12 keeps the echoed id exactly as received (string "3" stays a string)', () => {
    const failure = expectFailure(decodeFrame(json({ jsonrpc: '1.0', id: '3', method: 'm' })), ErrorCode.InvalidRequest);
    assert.equal(failure.id, '3');
    assert.equal(typeof failure.id, 'string');
  });

  const badResponses: [string, unknown][] = [
    ['both "result" and "error"', { jsonrpc: '2.0', id: 1, result: {}, error: { code: 1, message: 'x' } }],
    ['a result response with a null id', { jsonrpc: '2.0', id: null, result: {} }],
    ['a result response without an id', { jsonrpc: '2.0', result: {} }],
    ['a non-object result', { jsonrpc: '2.0', id: 1, result: 5 }],
    ['an array result', { jsonrpc: '2.0', id: 1, result: [] }],
    ['a result response with "jsonrpc": "1.0"', { jsonrpc: '1.0', id: 1, result: {} }],
    ['MUST-14 a float error code', { jsonrpc: '2.0', id: 1, error: { code: 1.5, message: 'x' } }],
    ['MUST-14 a string error code', { jsonrpc: '2.0', id: 1, error: { code: '-32600', message: 'x' } }],
    ['MUST-13 an error without a message', { jsonrpc: '2.0', id: 1, error: { code: -32600 } }],
    ['MUST-13 an error without a code', { jsonrpc: '2.0', id: 1, error: { message: 'x' } }],
    ['a non-object error', { jsonrpc: '2.0', id: 1, error: 'boom' }],
    ['an error response with a boolean id', { jsonrpc: '2.0', id: false, error: { code: 1, message: 'x' } }],
  ];
  for (const [name, value] of badResponses) {
    it(`rejects ${name} with -32600, flagged as a response so it is never answered`, () => {
      const failure = expectFailure(decodeFrame(json(value)), ErrorCode.InvalidRequest);
      assert.equal(failure.isResponse, true);
    });
  }

  it('flags malformed requests as not being responses', () => {
    const failure = expectFailure(decodeFrame(json({ jsonrpc: '2.0', id: 1, method: '' })), ErrorCode.InvalidRequest);
    assert.equal(failure.isResponse, false);
  });

  it('rejects a batch when batches are not allowed (the default)', () => {
    const frame = json([{ jsonrpc: '2.0', id: 1, method: 'm' }]);
    const failure = expectFailure(decodeFrame(frame), ErrorCode.InvalidRequest);
    assert.equal(failure.id, null);
    expectFailure(decodeFrame(frame, { allowBatch: false }), ErrorCode.InvalidRequest);
  });

  it('rejects an empty batch even when batches are allowed', () => {
    expectFailure(decodeFrame('[]', { allowBatch: true }), ErrorCode.InvalidRequest);
    expectFailure(decodeFrame(' [ ] ', { allowBatch: true }), ErrorCode.InvalidRequest);
  });

  it('rejects a batch longer than maxBatchLength, and accepts one of exactly that length', () => {
    const item = { jsonrpc: '2.0', method: 'n' };
    const limits: DecodeLimits = { allowBatch: true, maxBatchLength: 3 };
    const over = expectFailure(decodeFrame(json([item, item, item, item]), limits), ErrorCode.InvalidRequest);
    assert.deepEqual(over.error.data, { limit: 3 });
    const exact = decodeFrame(json([item, item, item]), limits);
    assert.ok(isBatchResult(exact));
    assert.equal(exact.batch.length, 3);
  });

  it('applies the default batch length limit', () => {
    const item = { jsonrpc: '2.0', method: 'n' };
    const many = Array.from({ length: defaultDecodeLimits.maxBatchLength + 1 }, () => item);
    expectFailure(decodeFrame(json(many), { allowBatch: true }), ErrorCode.InvalidRequest);
  });
});

describe('jsonrpc/decode: -32602 invalid params', () => {
  it('rejects positional (array) params with -32602 and echoes the id', () => {
    const failure = expectFailure(decodeFrame(json({ jsonrpc: '2.0', id: 'p', method: 'm', params: [1, 2] })), ErrorCode.InvalidParams);
    assert.equal(failure.id, 'p');
    assert.equal(failure.isResponse, false);
  });

  it('rejects array params on a notification too (no id to echo)', () => {
    const failure = expectFailure(decodeFrame(json({ jsonrpc: '2.0', method: 'n', params: [] })), ErrorCode.InvalidParams);
    assert.equal(failure.id, null);
  });
});

describe('jsonrpc/decode: ids kept exactly (MUST-3)', () => {
  const ids: (string | number)[] = [
    0,
    1,
    -1,
    Number.MAX_SAFE_INTEGER,
    Number.MIN_SAFE_INTEGER,
    '1',
    '',
    ' 1 ',
    'é',
    '日本語',
    '🚀 rocket',
    '\u0000nul',
    'line\nbreak',
    '\u2028',
    'a"quote\\slash',
  ];
  for (const id of ids) {
    it(`round-trips id ${JSON.stringify(id)} (${typeof id}) through encode and decode`, () => {
      const request = { jsonrpc: '2.0' as const, id, method: 'm' };
      const line = encodeLine(request);
      const message = expectMessage(decodeFrame(utf8(line.slice(0, -1))));
      assert.ok(isRequest(message));
      assert.equal(typeof message.id, typeof id);
      assert.ok(Object.is(message.id, id), `${String(message.id)} !== ${String(id)}`);
      const response = expectMessage(decodeFrame(json({ jsonrpc: '2.0', id, result: {} })));
      assert.ok(isResponse(response));
      assert.ok(Object.is(response.id, id));
    });
  }

  it('keeps 1 and "1" distinct', () => {
    const numeric = expectMessage(decodeFrame('{"jsonrpc":"2.0","id":1,"method":"m"}'));
    const text = expectMessage(decodeFrame('{"jsonrpc":"2.0","id":"1","method":"m"}'));
    assert.ok(isRequest(numeric) && isRequest(text));
    assert.equal(numeric.id, 1);
    assert.equal(text.id, '1');
    assert.notEqual(numeric.id, text.id as unknown);
  });

  it('reads integral number spellings (1.0, 1e2) as the integers they denote', () => {
    const a = expectMessage(decodeFrame('{"jsonrpc":"2.0","id":1.0,"method":"m"}'));
    const b = expectMessage(decodeFrame('{"jsonrpc":"2.0","id":1e2,"method":"m"}'));
    assert.ok(isRequest(a) && isRequest(b));
    assert.equal(a.id, 1);
    assert.equal(b.id, 100);
  });

  it('decodes unicode escapes in string ids to the same string as literal characters', () => {
    const escaped = expectMessage(decodeFrame('{"jsonrpc":"2.0","id":"\\ud83d\\ude80","method":"m"}'));
    assert.ok(isRequest(escaped));
    assert.equal(escaped.id, '🚀');
  });
});

describe('jsonrpc/decode: size limit', () => {
  const padded = (target: number, unit: string): string => {
    // A notification whose UTF-8 size is exactly `target` bytes, padded with `unit`.
    const shell = json({ jsonrpc: '2.0', method: 'm', params: { p: '' } });
    const room = target - Buffer.byteLength(shell);
    const unitBytes = Buffer.byteLength(unit);
    assert.ok(room >= 0 && room % unitBytes === 0, 'test setup: padding must fit exactly');
    return json({ jsonrpc: '2.0', method: 'm', params: { p: unit.repeat(room / unitBytes) } });
  };

  it('rejects bytes over maxBytes with -32600 and data.limit, before decoding or parsing', (t) => {
    const parse = t.mock.method(JSON, 'parse');
    const frame = new Uint8Array(1001).fill(0xff); // not even UTF-8
    const failure = expectFailure(decodeFrame(frame, { maxBytes: 1000 }), ErrorCode.InvalidRequest);
    assert.deepEqual(failure.error.data, { limit: 1000 });
    assert.match(failure.error.message, /1000 bytes/);
    assert.equal(failure.id, null);
    assert.equal(parse.mock.callCount(), 0);
  });

  it('rejects a string over maxBytes without parsing it', (t) => {
    const parse = t.mock.method(JSON, 'parse');
    const failure = expectFailure(decodeFrame('x'.repeat(1001), { maxBytes: 1000 }), ErrorCode.InvalidRequest);
    assert.deepEqual(failure.error.data, { limit: 1000 });
    assert.equal(parse.mock.callCount(), 0);
  });

  it('applies the 4 MiB default', () => {
    const big = new Uint8Array(defaultDecodeLimits.maxBytes + 1).fill(0x20);
    const failure = expectFailure(decodeFrame(big), ErrorCode.InvalidRequest);
    assert.deepEqual(failure.error.data, { limit: defaultDecodeLimits.maxBytes });
  });

  for (const [name, unit] of [['1-byte', 'a'], ['2-byte', 'é'], ['3-byte', '€'], ['4-byte', '😀']] as const) {
    it(`counts ${name} UTF-8 characters exactly at the limit (string and bytes)`, () => {
      const limit = 1200;
      const exact = padded(limit, unit);
      assert.equal(Buffer.byteLength(exact), limit);
      expectMessage(decodeFrame(exact, { maxBytes: limit }));
      expectMessage(decodeFrame(utf8(exact), { maxBytes: limit }));
      expectFailure(decodeFrame(exact, { maxBytes: limit - 1 }), ErrorCode.InvalidRequest);
      expectFailure(decodeFrame(utf8(exact), { maxBytes: limit - 1 }), ErrorCode.InvalidRequest);
    });
  }

  it('counts lone surrogates in a string as the 3 bytes their UTF-8 replacement takes', () => {
    // 100 three-byte characters plus 200 lone low surrogates: 300 code units, 900 UTF-8 bytes.
    const text = json({ jsonrpc: '2.0', method: 'm' }).slice(0, -1) + ',"p":"' + '€'.repeat(100) + '\udc00'.repeat(200) + '"}';
    const bytes = Buffer.byteLength(text);
    assert.ok(bytes > 900);
    expectFailure(decodeFrame(text, { maxBytes: text.length }), ErrorCode.InvalidRequest);
    expectMessage(decodeFrame(text, { maxBytes: bytes }));
  });

  it('counts a lone high surrogate as 3 bytes, not 4', () => {
    const text = json({ jsonrpc: '2.0', method: 'm', params: { p: '\ud800' } });
    // JSON.stringify escapes the lone surrogate; put it in raw to test the counter.
    const raw = text.replace('\\ud800', '\ud800');
    expectMessage(decodeFrame(raw, { maxBytes: Buffer.byteLength(raw) }));
  });
});

describe('jsonrpc/decode: nesting depth', () => {
  const deep = 100_000;

  it('answers 100,000 nested arrays quickly, without parsing or a stack overflow', (t) => {
    const parse = t.mock.method(JSON, 'parse');
    const frame = '['.repeat(deep) + ']'.repeat(deep);
    const started = performance.now();
    const failure = expectFailure(decodeFrame(frame), ErrorCode.InvalidRequest);
    const elapsed = performance.now() - started;
    assert.deepEqual(failure.error.data, { limit: defaultDecodeLimits.maxDepth });
    assert.equal(parse.mock.callCount(), 0);
    assert.ok(elapsed < 500, `took ${elapsed} ms`);
  });

  it('answers 100,000 nested objects inside a request quickly', () => {
    const frame = '{"jsonrpc":"2.0","id":1,"method":"m","params":' + '{"a":'.repeat(deep) + '1' + '}'.repeat(deep) + '}';
    const started = performance.now();
    expectFailure(decodeFrame(utf8(frame), { maxBytes: 10_000_000 }), ErrorCode.InvalidRequest);
    assert.ok(performance.now() - started < 500);
  });

  it('does not let leading closers hide deep nesting (no throw, an error either way)', () => {
    const frame = ']'.repeat(deep) + '['.repeat(deep);
    const item = single(decodeFrame(frame, { maxBytes: 10_000_000 }));
    assert.equal(item.ok, false);
  });

  it('accepts nesting exactly at maxDepth and rejects one level more', () => {
    // The message object is level 1, params level 2, each {"a": ...} one more.
    const at = (levels: number): string => json({ jsonrpc: '2.0', method: 'm', params: nest(levels - 2) });
    const nest = (n: number): Record<string, unknown> => (n === 0 ? {} : { a: nest(n - 1) });
    expectMessage(decodeFrame(at(5), { maxDepth: 5 }));
    expectFailure(decodeFrame(at(6), { maxDepth: 5 }), ErrorCode.InvalidRequest);
  });

  it('ignores brackets inside strings, escaped quotes included', () => {
    const value = { jsonrpc: '2.0', method: 'm', params: { s: '[[[[{{{{"\\"[[[[', t: '\\' } };
    assert.deepEqual(expectMessage(decodeFrame(json(value), { maxDepth: 2 })), value);
  });

  it('nestingDepthExceeds: counts only structural brackets', () => {
    assert.equal(nestingDepthExceeds('[[[]]]', 3), false);
    assert.equal(nestingDepthExceeds('[[[[]]]]', 3), true);
    assert.equal(nestingDepthExceeds('[{"a":[1]}]', 3), false);
    assert.equal(nestingDepthExceeds('[{"a":[[1]]}]', 3), true);
    assert.equal(nestingDepthExceeds('["[[[[[["]', 1), false);
    assert.equal(nestingDepthExceeds('["\\"[[[["]', 1), false);
    assert.equal(nestingDepthExceeds('[][][][]', 1), false);
    assert.equal(nestingDepthExceeds('', 0), false);
    assert.equal(nestingDepthExceeds('{', 0), true);
  });

  it('nestingDepthExceeds: the same verdict whether the bracket count is within the limit or not (the count is only a shortcut)', () => {
    // The reference: the character walk alone, as the function was before the count.
    const walk = (text: string, limit: number): boolean => {
      let depth = 0;
      let inString = false;
      for (let i = 0; i < text.length; i++) {
        const c = text[i];
        if (inString) {
          if (c === '\\') i++;
          else if (c === '"') inString = false;
        } else if (c === '"') inString = true;
        else if (c === '{' || c === '[') {
          if (++depth > limit) return true;
        } else if (c === '}' || c === ']') depth--;
      }
      return false;
    };
    const texts = [
      '[[[]]]',
      '[[[[]]]]',
      '{"a":"{{{{{{"}',
      '{"a":"[[[[","b":[[1]]}',
      '[][][][][][]',
      '[[],[],[],[]]',
      '{"a":{"b":{"c":{}}},"d":"\\"{{{"}',
      JSON.stringify({ jsonrpc: '2.0', id: 7, result: { content: [{ type: 'text', text: '{[{[{[' }], structuredContent: { a: [[[1]]] } } }),
      '[' + '"[",'.repeat(40) + '1]',
      '[' + '[],'.repeat(40) + '1]',
      '['.repeat(10) + ']'.repeat(10),
    ];
    for (const text of texts) {
      for (const limit of [0, 1, 2, 3, 4, 5, 9, 10, 11, 64]) {
        assert.equal(nestingDepthExceeds(text, limit), walk(text, limit), `${text} at ${limit}`);
      }
    }
  });
});

describe('jsonrpc/decode: batches (2.6, revision 2025-03-26 only)', () => {
  it('classifies each item of a mixed batch on its own', () => {
    const items: unknown[] = [
      { jsonrpc: '2.0', id: 1, method: 'a', params: {} },
      { jsonrpc: '2.0', method: 'n' },
      { jsonrpc: '2.0', id: 'r', result: {} },
      { jsonrpc: '2.0', id: null, method: 'b' },
      { jsonrpc: '2.0', id: 2, method: 'c', params: [1] },
      5,
      [{ jsonrpc: '2.0', method: 'nested' }],
      { jsonrpc: '2.0', id: 3, result: 'not an object' },
    ];
    const result = decodeFrame(json(items), { allowBatch: true });
    assert.ok(isBatchResult(result));
    assert.equal(result.batch.length, items.length);
    const [req, note, resp, nullId, arrayParams, num, nested, badResp] = result.batch;
    assert.ok(req?.ok && isRequest(req.message));
    assert.deepEqual(req.message, items[0]);
    assert.ok(note?.ok && isNotification(note.message));
    assert.ok(resp?.ok && isResponse(resp.message));
    assert.ok(nullId !== undefined && !nullId.ok);
    assert.equal(nullId.error.code, ErrorCode.InvalidRequest);
    assert.equal(nullId.id, null);
    assert.ok(arrayParams !== undefined && !arrayParams.ok);
    assert.equal(arrayParams.error.code, ErrorCode.InvalidParams);
    assert.equal(arrayParams.id, 2);
    assert.ok(num !== undefined && !num.ok);
    assert.equal(num.error.code, ErrorCode.InvalidRequest);
    assert.ok(nested !== undefined && !nested.ok, 'a batch inside a batch is not a message');
    assert.equal(nested.error.code, ErrorCode.InvalidRequest);
    assert.ok(badResp !== undefined && !badResp.ok);
    assert.equal(badResp.isResponse, true);
  });

  it('still applies size and depth limits to a batch as a whole', () => {
    const item = { jsonrpc: '2.0', method: 'n', params: { a: { b: {} } } };
    expectFailure(decodeFrame(json([item]), { allowBatch: true, maxDepth: 4 }), ErrorCode.InvalidRequest);
    assert.ok(isBatchResult(decodeFrame(json([item]), { allowBatch: true, maxDepth: 5 })));
    const text = json([item, item]);
    expectFailure(decodeFrame(text, { allowBatch: true, maxBytes: text.length - 1 }), ErrorCode.InvalidRequest);
  });
});

describe('jsonrpc/decode: classify', () => {
  it('never throws on values JSON cannot produce', () => {
    for (const value of [undefined, () => 1, Symbol('s'), 10n, new Map(), Object.create(null)]) {
      const item = classify(value);
      assert.equal(item.ok, false);
    }
  });
});
