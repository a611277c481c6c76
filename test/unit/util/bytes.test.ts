import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { concatBytes } from '../../../src/util/bytes.js';

describe('util/bytes: concatBytes', () => {
  it('joins parts in order', () => {
    assert.deepEqual(concatBytes([Uint8Array.of(1, 2), Uint8Array.of(), Uint8Array.of(3)], 3), Uint8Array.of(1, 2, 3));
  });

  it('returns a single part itself, and an empty array for none', () => {
    const only = Uint8Array.of(7, 8);
    assert.equal(concatBytes([only], 2), only);
    assert.deepEqual(concatBytes([], 0), new Uint8Array(0));
  });
});
