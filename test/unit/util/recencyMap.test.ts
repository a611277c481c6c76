import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { RecencyMap } from '../../../src/util/recencyMap.js';

describe('util/recencyMap', () => {
  it('drops the least recently used beyond its bound; a use moves a key last, a get does not', () => {
    const map = new RecencyMap<string, number>(2);
    map.use('a', 1);
    map.use('b', 2);
    map.use('a', 1); // a is now the most recently used
    map.get('b');
    map.use('c', 3); // b goes
    assert.equal(map.size, 2);
    assert.equal(map.get('b'), undefined);
    assert.equal(map.get('a'), 1);
    assert.equal(map.get('c'), 3);
    assert.equal(map.isNewest('c'), true);
  });

  it('a new value under the newest key replaces it; a deleted newest key is no longer the newest', () => {
    const map = new RecencyMap<string, number>(3);
    map.use('a', 1);
    map.use('a', 2);
    assert.equal(map.get('a'), 2);
    assert.equal(map.size, 1);
    map.delete('a');
    assert.equal(map.isNewest('a'), false);
    assert.equal(map.size, 0);
  });
});
