import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { IdTable } from '../../../src/util/idTable.js';

describe('util/idTable: IdTable', { timeout: 10_000 }, () => {
  it('gets, sets, replaces and deletes integer and string ids like a Map', () => {
    const table = new IdTable<string | number, string>();
    table.set(1, 'a').set('x', 'b').set(17, 'c');
    assert.equal(table.size, 3);
    assert.equal(table.get(1), 'a');
    assert.equal(table.get('x'), 'b');
    assert.equal(table.get(17), 'c');
    assert.equal(table.get('1'), undefined, 'a string id is not the number');
    assert.equal(table.get(2), undefined);
    table.set(1, 'a2');
    assert.equal(table.get(1), 'a2');
    assert.equal(table.size, 3);
    assert.equal(table.delete(1), true);
    assert.equal(table.delete(1), false);
    assert.equal(table.has(1), false);
    assert.equal(table.delete('x'), true);
    assert.equal(table.size, 1);
    table.clear();
    assert.equal(table.size, 0);
    assert.equal(table.get(17), undefined);
  });

  it('keeps ids of other forms (negative, fractional, huge) in the overflow', () => {
    const table = new IdTable<number, string>();
    for (const id of [-1, 1.5, Number.MAX_SAFE_INTEGER + 2]) table.set(id, String(id));
    assert.equal(table.overflowed, 3);
    for (const id of [-1, 1.5, Number.MAX_SAFE_INTEGER + 2]) assert.equal(table.get(id), String(id));
  });

  it('keeps two ids that share a slot (a long-running request) apart, and lists values in insertion order', () => {
    const table = new IdTable<number, string>();
    const slots = table.slots;
    table.set(3, 'old');
    table.set(3 + slots, 'new'); // same low bits: the slot is taken, the table is not half full
    assert.equal(table.get(3), 'old');
    assert.equal(table.get(3 + slots), 'new');
    table.set(1, 'one');
    assert.deepEqual(table.values(), ['old', 'one', 'new']);
    assert.deepEqual(table.entries()[0], [3, 'old']);
    assert.equal(table.delete(3 + slots), true);
    assert.equal(table.get(3), 'old');
  });

  it('grows when half full and an id collides, keeping every entry', () => {
    const table = new IdTable<number, number>();
    const first = table.slots;
    for (let id = 0; id < first * 3; id++) table.set(id, id * 10);
    assert.ok(table.slots > first);
    for (let id = 0; id < first * 3; id++) assert.equal(table.get(id), id * 10);
    assert.equal(table.size, first * 3);
  });

  // Issue #35: a Map replaced its backing table every few dozen requests; here the slot array,
  // sized for the requests in flight, stays the same while ids keep coming and going.
  it('does not grow or overflow while a steady number of requests comes and goes', () => {
    const table = new IdTable<number, { id: number }>();
    const live: number[] = [];
    let next = 1;
    for (let i = 0; i < 32; i++) {
      live.push(next);
      table.set(next, { id: next++ });
    }
    const slots = table.slots;
    for (let n = 0; n < 100_000; n++) {
      // Answers come back out of order, as they do.
      const at = n % live.length;
      const id = live[at] as number;
      assert.equal(table.get(id)?.id, id);
      table.delete(id);
      live[at] = next;
      table.set(next, { id: next++ });
    }
    assert.equal(table.size, 32);
    assert.equal(table.slots, slots);
    assert.ok(table.overflowed <= 1, `overflowed ${table.overflowed}`);
  });
});
