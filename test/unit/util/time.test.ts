import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { isoTime } from '../../../src/util/time.js';

describe('util/time: isoTime', () => {
  it('is Date#toISOString for times in order, out of order, across seconds, days and years', () => {
    const start = Date.UTC(2026, 11, 31, 23, 59, 58, 990);
    const times: number[] = [];
    for (let t = start; t < start + 2100; t += 7) times.push(t);
    times.push(start + 5, start, 0, 1, 999, 1000, 86_399_999, Date.UTC(1999, 11, 31, 23, 59, 59, 999), start + 3);
    for (const t of times) assert.equal(isoTime(t), new Date(t).toISOString(), String(t));
  });

  it('a fractional, negative or far-future time is formatted as Date does (extended years included)', () => {
    for (const t of [1.5, 1000.999, -1, -1500, Date.UTC(12345, 0, 1), 8_640_000_000_000_000, 8_639_999_999_999_999]) {
      assert.equal(isoTime(t), new Date(t).toISOString(), String(t));
    }
  });

  it('a time that is no valid date throws RangeError, as toISOString does, even within a cached second', () => {
    assert.equal(isoTime(8_640_000_000_000_000), '+275760-09-13T00:00:00.000Z');
    assert.throws(() => isoTime(8_640_000_000_000_001), RangeError);
    assert.throws(() => isoTime(Number.NaN), RangeError);
    assert.throws(() => isoTime(Infinity), RangeError);
  });
});
