// describeError: one line for an error and its causes, every piece said once (issue #16).
import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { describeError } from '../../../src/util/errors.js';

describe('describeError', () => {
  it('joins an error and its causes', () => {
    assert.equal(describeError(new Error('a', { cause: new Error('b', { cause: new Error('c') }) })), 'a: b: c');
    assert.equal(describeError('plain'), 'plain');
  });

  it('skips a cause whose message the text already contains (no "x: x")', () => {
    const exit = new Error('The server process exited with code 3');
    const closed = new Error(`The connection closed: ${exit.message}`, { cause: exit });
    assert.equal(describeError(closed), 'The connection closed: The server process exited with code 3');
    const refused = new Error('connect ECONNREFUSED 127.0.0.1:1');
    const fetchFailed = new TypeError('fetch failed', { cause: refused });
    const send = new Error('HTTP initialize failed: fetch failed', { cause: fetchFailed });
    assert.equal(describeError(send), 'HTTP initialize failed: fetch failed: connect ECONNREFUSED 127.0.0.1:1');
  });

  it('an error without a message falls back to its name', () => {
    assert.equal(describeError(new TypeError('')), 'TypeError');
  });
});
