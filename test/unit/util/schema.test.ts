import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import * as s from '../../../src/util/schema.js';

describe('util/schema', () => {
  const Tool = s.object({
    name: s.string({ minLength: 1 }),
    description: s.optional(s.string()),
    inputSchema: s.object({ type: s.literal('object') }),
    tags: s.optional(s.array(s.enumeration(['a', 'b']))),
  });

  it('accepts a conforming value and returns it untouched', () => {
    const value = { name: 'echo', inputSchema: { type: 'object', extra: 1 }, unknownKey: true };
    const result = s.validate(Tool, value);
    assert.equal(result.ok, true);
    assert.equal(result.ok && result.value, value);
  });

  it('names the offending field in the issue path', () => {
    const result = s.validate(Tool, { name: 'x', inputSchema: { type: 'array' }, tags: ['a', 'c'] }, { path: ['params'] });
    assert.equal(result.ok, false);
    assert.ok(!result.ok);
    assert.equal(s.formatIssues(result.issues), 'params.inputSchema.type: expected "object", got "array"; params.tags[1]: expected one of "a" | "b"');
  });

  it('reports missing required members', () => {
    const result = s.validate(Tool, { inputSchema: { type: 'object' } });
    assert.ok(!result.ok);
    assert.deepEqual(result.issues[0], { path: ['name'], message: 'is required' });
  });

  it('rejects unknown members only when strict', () => {
    const Strict = s.object({ a: s.integer() }, { strict: true });
    assert.equal(s.is(Strict, { a: 1 }), true);
    assert.equal(s.is(Strict, { a: 1, b: 2 }), false);
    assert.equal(s.is(Strict, { a: 1.5 }), false);
  });

  it('picks discriminated variants by tag', () => {
    const Block = s.discriminated('type', {
      text: s.object({ type: s.literal('text'), text: s.string() }),
      image: s.object({ type: s.literal('image'), data: s.string(), mimeType: s.string() }),
    });
    assert.equal(s.is(Block, { type: 'text', text: 'hi' }), true);
    const bad = s.validate(Block, { type: 'video' });
    assert.ok(!bad.ok);
    assert.deepEqual(bad.issues[0]?.path, ['type']);
  });

  it('supports recursion through lazy', () => {
    type Node = { children?: Node[] };
    const NodeSchema: s.Schema<Node> = s.lazy(() => s.object({ children: s.optional(s.array(NodeSchema)) }));
    assert.equal(s.is(NodeSchema, { children: [{ children: [] }] }), true);
    assert.equal(s.is(NodeSchema, { children: [{ children: 3 }] }), false);
  });
});
