import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { canonicalJson } from '../../../src/util/canonicalJson.js';

// Vectors written after RFC 8785 sections 3.2.2 and 3.2.3 (https://www.rfc-editor.org/rfc/rfc8785).
describe('util/canonicalJson (RFC 8785)', () => {
  it('sorts members by UTF-16 code units, recursively, without whitespace', () => {
    assert.equal(canonicalJson({ b: 1, a: [{ z: true, y: null }], '': 0 }), '{"":0,"a":[{"y":null,"z":true}],"b":1}');
    // By code unit: U+000D, '1', U+20AC, then U+1F600 (surrogates D83D DE00) before U+FB33.
    assert.equal(canonicalJson({ '\ufb33': 1, '\u{1f600}': 2, '\u20ac': 3, '\r': 4, '1': 5 }), '{"\\r":4,"1":5,"\u20ac":3,"\u{1f600}":2,"\ufb33":1}');
  });

  it('writes numbers as ECMAScript does', () => {
    assert.equal(canonicalJson([1e21, 1e-7, -0, 0.1, 333333333.3333333, Number.MIN_VALUE, 2 ** 53 + 1]), '[1e+21,1e-7,0,0.1,333333333.3333333,5e-324,9007199254740992]');
  });

  it('escapes strings as RFC 8785 prescribes', () => {
    assert.equal(canonicalJson('\u0000\b\t\n\f\r"\\/\u001f\u007f'), '"\\u0000\\b\\t\\n\\f\\r\\"\\\\/\\u001f\u007f"');
  });

  it('equal values in another key order give the same text', () => {
    assert.equal(canonicalJson({ x: { b: [1, 2], a: 'é' } }), canonicalJson({ x: { a: 'é', b: [1, 2] } }));
  });

  it('leaves out undefined members, as JSON.stringify does', () => {
    assert.equal(canonicalJson({ a: undefined, b: 1 }), '{"b":1}');
  });

  it('refuses what JSON cannot hold instead of changing it', () => {
    for (const bad of [Number.NaN, Infinity, undefined, [undefined], 10n, () => 1, Symbol('s'), '\ud800', 'a\udc00b']) {
      assert.throws(() => canonicalJson(bad), TypeError, String(typeof bad));
    }
    const cyclic: Record<string, unknown> = {};
    cyclic['self'] = cyclic;
    assert.throws(() => canonicalJson(cyclic), /cyclic/);
  });

  it('a shared (not cyclic) sub-object is fine', () => {
    const shared = { v: 1 };
    assert.equal(canonicalJson({ a: shared, b: shared }), '{"a":{"v":1},"b":{"v":1}}');
  });
});
