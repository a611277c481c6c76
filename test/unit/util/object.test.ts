import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import fc from 'fast-check';
import { copyOwnInto, spreadCopy } from '../../../src/util/object.js';

describe('util/object: spreadCopy is object spread without its slow hidden-class path', () => {
  it('equals {...x} for arbitrary JSON objects, key order included', () => {
    fc.assert(
      fc.property(fc.dictionary(fc.string(), fc.jsonValue()), (value) => {
        const copy = spreadCopy(value);
        assert.deepEqual(copy, { ...value });
        assert.deepEqual(Object.keys(copy), Object.keys({ ...value }));
        assert.notEqual(copy, value);
      }),
      { numRuns: 300 },
    );
  });

  it('copies own enumerable string and symbol keys only, like spread, and a "__proto__" key as data', () => {
    const sym = Symbol('s');
    const proto = { inherited: 1 };
    const source = Object.create(proto, { own: { value: 2, enumerable: true }, hidden: { value: 3, enumerable: false } }) as Record<PropertyKey, unknown>;
    source[sym] = 4;
    const withProto = JSON.parse('{"__proto__": {"polluted": true}, "a": 1}') as Record<string, unknown>;
    const copy = spreadCopy(source);
    assert.deepEqual({ ...copy }, { ...source });
    assert.equal(copy[sym], 4);
    assert.equal('inherited' in copy, false);
    assert.equal('hidden' in copy, false);
    const copied = spreadCopy(withProto);
    assert.deepEqual(Object.keys(copied), ['__proto__', 'a']);
    assert.equal(({} as Record<string, unknown>)['polluted'], undefined);
    assert.equal(Object.getPrototypeOf(copied), Object.prototype);
  });

  it('copyOwnInto merges over a target and ignores null/undefined sources', () => {
    const target: Record<string, unknown> = { a: 1, b: 2 };
    assert.equal(copyOwnInto(target, { b: 3, c: 4 }), target);
    assert.deepEqual(target, { a: 1, b: 3, c: 4 });
    assert.deepEqual(copyOwnInto({ x: 1 }, undefined), { x: 1 });
    assert.deepEqual(spreadCopy(null), {});
  });
});
