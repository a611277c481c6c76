import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import * as v from 'valibot';
import { z } from 'zod';
import { McpError } from '../../../src/util/errors.js';
import { McpServer } from '../../../src/server/mcpServer.js';
import { withJsonSchema } from '../../../src/server/tools.js';
import { connectRaw } from './support.js';

type ToolResult = { content: { type: string; text: string }[]; isError?: boolean; structuredContent?: unknown };

describe('tools described by Standard Schemas', () => {
  it('zod v4: publishes its JSON Schema, validates with zod, hands the handler the parsed value', async () => {
    const s = new McpServer({ name: 'ss', version: '1' });
    s.tool('forecast', { inputSchema: z.object({ city: z.string().min(1), days: z.number().int().max(7).default(3) }) }, ({ city, days }) => `${city}:${days}`);
    const c = await connectRaw(s);
    try {
      const list = (await c.call('tools/list')) as { tools: { name: string; inputSchema: Record<string, unknown> }[] };
      const schema = list.tools[0]?.inputSchema as { type: string; properties: Record<string, unknown>; required: string[] };
      assert.equal(schema.type, 'object');
      assert.deepEqual(Object.keys(schema.properties), ['city', 'days']);
      assert.deepEqual(schema.required, ['city']);
      const ok = (await c.call('tools/call', { name: 'forecast', arguments: { city: 'Oslo' } })) as ToolResult;
      assert.equal(ok.content[0]?.text, 'Oslo:3'); // zod's default applied: the handler got zod's output
      const bad = (await c.call('tools/call', { name: 'forecast', arguments: { city: 'Oslo', days: 9 } })) as ToolResult;
      assert.equal(bad.isError, true);
      assert.match(bad.content[0]?.text ?? '', /arguments\.days/);
    } finally {
      await c.close();
    }
  });

  it('valibot without a JSON Schema form is refused at registration, and accepted through withJsonSchema', async () => {
    const s = new McpServer({ name: 'ss', version: '1' });
    const input = v.object({ a: v.number(), b: v.number() });
    assert.throws(() => s.tool('add', { inputSchema: input }, () => 'never'), (e: unknown) => e instanceof McpError && e.code === 'ERR_MCP_INVALID_ARGUMENT');
    s.tool(
      'add',
      { inputSchema: withJsonSchema(input, { type: 'object', properties: { a: { type: 'number' }, b: { type: 'number' } }, required: ['a', 'b'] }) },
      ({ a, b }) => String(a + b),
    );
    const c = await connectRaw(s);
    try {
      const ok = (await c.call('tools/call', { name: 'add', arguments: { a: 2, b: 3 } })) as ToolResult;
      assert.equal(ok.content[0]?.text, '5');
      const bad = (await c.call('tools/call', { name: 'add', arguments: { a: 2, b: 'x' } })) as ToolResult;
      assert.equal(bad.isError, true);
      assert.match(bad.content[0]?.text ?? '', /arguments\.b/);
    } finally {
      await c.close();
    }
  });

  it('an output Standard Schema checks structuredContent', async () => {
    const s = new McpServer({ name: 'ss', version: '1' });
    s.tool('good', { outputSchema: z.object({ n: z.number() }) }, () => ({ structuredContent: { n: 1 } }));
    // @ts-expect-error structuredContent is typed from the output schema; this test checks the run-time validation too
    s.tool('bad', { outputSchema: z.object({ n: z.number() }) }, () => ({ structuredContent: { n: 'one' } }));
    const c = await connectRaw(s);
    try {
      const good = (await c.call('tools/call', { name: 'good', arguments: {} })) as ToolResult;
      assert.deepEqual(good.structuredContent, { n: 1 });
      assert.deepEqual(good.content, [{ type: 'text', text: '{"n":1}' }]);
      await assert.rejects(c.call('tools/call', { name: 'bad', arguments: {} }), /does not match its output schema/);
    } finally {
      await c.close();
    }
  });
});
