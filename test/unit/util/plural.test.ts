import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { counted } from '../../../src/util/plural.js';

describe('counted', { timeout: 5_000 }, () => {
  it('says "1 server", never "1 servers"; 0 and 2 take the plural', () => {
    assert.equal(counted(1, 'server'), '1 server');
    assert.equal(counted(0, 'server'), '0 servers');
    assert.equal(counted(2, 'server'), '2 servers');
  });
  it('takes an irregular plural', () => {
    assert.equal(counted(1, 'entry', 'entries'), '1 entry');
    assert.equal(counted(3, 'entry', 'entries'), '3 entries');
  });
});
