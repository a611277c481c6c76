import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import fc from 'fast-check';
import { decodeHeaderValue, encodeHeaderValue, isPlainHeaderValue, trimOws } from '../../../../src/transport/http/headerValue.js';

describe('http · header value encoding (MUST 131-136)', () => {
  it('matches the spec examples', () => {
    assert.equal(encodeHeaderValue('us-west1'), 'us-west1');
    assert.equal(encodeHeaderValue('Hello, 世界'), '=?base64?SGVsbG8sIOS4lueVjA==?=');
    assert.equal(encodeHeaderValue(' padded '), '=?base64?IHBhZGRlZCA=?=');
    assert.equal(encodeHeaderValue('line1\nline2'), '=?base64?bGluZTEKbGluZTI=?=');
    assert.equal(encodeHeaderValue('=?base64?literal?='), '=?base64?PT9iYXNlNjQ/bGl0ZXJhbD89?=');
  });

  it('decodes sentinels strictly and plain values as-is', () => {
    assert.deepEqual(decodeHeaderValue('us-west1'), { ok: true, value: 'us-west1' });
    assert.deepEqual(decodeHeaderValue('=?base64?SGVsbG8sIOS4lueVjA==?='), { ok: true, value: 'Hello, 世界' });
    assert.deepEqual(decodeHeaderValue('=?BASE64?SGVsbG8=?='), { ok: true, value: '=?BASE64?SGVsbG8=?=' });
    for (const bad of ['=?base64?SGVsbG8?=', '=?base64?S GV?=', '=?base64?/w==?=', 'é', 'a\u0000b']) assert.equal(decodeHeaderValue(bad).ok, false, bad);
    assert.equal(isPlainHeaderValue('a b'), true);
    assert.equal(isPlainHeaderValue('a '), false);
    assert.equal(trimOws(' \t a b \t'), 'a b');
  });

  it('round-trips any string', () => {
    fc.assert(
      fc.property(fc.string({ unit: 'grapheme' }), (s) => {
        const encoded = encodeHeaderValue(s);
        assert.ok(isPlainHeaderValue(encoded) || encoded.startsWith('=?base64?'));
        assert.deepEqual(decodeHeaderValue(encoded), { ok: true, value: s });
      }),
      { numRuns: 500 },
    );
  });
});
