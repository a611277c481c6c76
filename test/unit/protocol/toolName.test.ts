import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { checkToolName, isValidToolName } from '../../../src/protocol/toolName.js';

describe('protocol/toolName', () => {
  it('accepts names of 1-128 chars from [A-Za-z0-9_.-]', () => {
    for (const name of ['a', 'getUser', 'DATA_EXPORT_v2', 'admin.tools.list', 'x-1', 'a'.repeat(128)]) {
      assert.deepEqual(checkToolName(name), [], name);
      assert.equal(isValidToolName(name), true);
    }
  });

  it('rejects empty and over-long names', () => {
    assert.deepEqual(checkToolName(''), ['tool name must not be empty']);
    assert.match(checkToolName('a'.repeat(129))[0] ?? '', /129 characters/);
    assert.equal(isValidToolName('a'.repeat(129)), false);
  });

  it('names the offending characters (spaces, commas, slashes, non-ASCII)', () => {
    const [problem] = checkToolName('get user,now/é');
    assert.match(problem ?? '', /space/);
    assert.match(problem ?? '', /","/);
    assert.match(problem ?? '', /"\/"/);
    assert.match(problem ?? '', /"é"/);
    assert.equal(isValidToolName('a b'), false);
  });
});
