// RFC 8785 canonical JSON: the RFC's own examples plus the refusals (non-I-JSON input).
import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { canonicalize } from '../../../src/util/canonicalJson.js';
import { McpError } from '../../../src/util/errors.js';

describe('util/canonicalJson', () => {
  it('RFC 8785 section 3.2.2 example: numbers in ES6 form, members sorted, no whitespace', () => {
    const input = JSON.parse('{"numbers":[333333333.33333329,1E30,4.50,2e-3,0.000000000000000000000000001],"string":"\\u20ac$\\u000F\\u000aA\'\\u0042\\u0022\\u005c\\\\\\"\\/","literals":[null,true,false]}') as unknown;
    assert.equal(canonicalize(input), '{"literals":[null,true,false],"numbers":[333333333.3333333,1e+30,4.5,0.002,1e-27],"string":"€$\\u000f\\nA\'B\\"\\\\\\\\\\"/"}');
  });

  it('RFC 8785 section 3.2.3: members sort by UTF-16 code units, not code points', () => {
    const input = { '\u20ac': 'Euro Sign', '\r': 'Carriage Return', '\ufb33': 'Hebrew Letter Dalet With Dagesh', '1': 'One', '\ud83d\ude00': 'Emoji: Grinning Face', '\u0080': 'Control', '\u00f6': 'Latin Small Letter O With Diaeresis' };
    const order = ['\r', '1', '\u0080', '\u00f6', '\u20ac', '\ud83d\ude00', '\ufb33'];
    const expected = `{${order.map((k) => `${JSON.stringify(k)}:${JSON.stringify(input[k as keyof typeof input])}`).join(',')}}`;
    assert.equal(canonicalize(input), expected);
  });

  it('equal values give equal bytes whatever the key order; undefined members are dropped', () => {
    assert.equal(canonicalize({ b: [1, { d: 1, c: 2 }], a: 'x', u: undefined }), canonicalize({ a: 'x', b: [1, { c: 2, d: 1 }] }));
  });

  it('refuses a lone surrogate (not I-JSON), naming the path', () => {
    assert.throws(() => canonicalize({ a: ['ok', '\ud800'] }), (e: unknown) => e instanceof McpError && /\$\.a\[1\].*lone surrogate/.test(e.message));
  });

  it('refuses NaN, Infinity, bigints and cycles', () => {
    assert.throws(() => canonicalize({ n: Number.NaN }), /NaN is not a JSON number/);
    assert.throws(() => canonicalize([Infinity]), /Infinity is not a JSON number/);
    assert.throws(() => canonicalize({ b: 1n }), /a bigint is not JSON/);
    const cycle: Record<string, unknown> = {};
    cycle['self'] = cycle;
    assert.throws(() => canonicalize(cycle), /cycle/);
  });
  it('refuses a lone surrogate in a member name and undefined in an array, naming the path', () => {
    assert.throws(() => canonicalize({ ok: { '\udc00x': 1 } }), (e: unknown) => e instanceof McpError && /\$\.ok \(a member name\).*lone surrogate/.test(e.message));
    assert.throws(() => canonicalize({ a: [1, undefined] }), (e: unknown) => e instanceof McpError && /\$\.a\[1\].*undefined is not JSON/.test(e.message));
  });

  it('a value met twice but not inside itself is not a cycle', () => {
    const shared = { z: 1, a: [true, null] };
    assert.equal(canonicalize({ y: shared, x: [shared, shared] }), '{"x":[{"a":[true,null],"z":1},{"a":[true,null],"z":1}],"y":{"a":[true,null],"z":1}}');
  });
});
