import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import {
  PROVIDER_NAME_PATTERN,
  callResultToAnthropicContent,
  callResultToAnthropicToolResult,
  callResultToOpenAIContent,
  providerNames,
  toAnthropicTools,
  toOpenAITools,
} from '../../../src/host/toolFormats.js';
import type { Tool } from '../../../src/protocol/model/tool.js';
import type { CallToolResult } from '../../../src/protocol/model/tools.js';

const readFile: Tool = { name: 'read_file', description: 'Read a file', inputSchema: { type: 'object', properties: { path: { type: 'string' } }, required: ['path'] } as Tool['inputSchema'] };
const dotted: Tool = { name: 'admin.tools.list', title: 'List admin tools', inputSchema: { type: 'object', $schema: 'https://json-schema.org/draft/2020-12/schema' } };
const slashed: Tool = { name: 'user-profile/update', inputSchema: { type: 'object' } };

describe('host/toolFormats: definitions', () => {
  it('toAnthropicTools gives { name, description, input_schema }', () => {
    const { tools } = toAnthropicTools([readFile]);
    assert.deepEqual(tools, [{ name: 'read_file', description: 'Read a file', input_schema: readFile.inputSchema }]);
  });

  it('toOpenAITools gives { type: "function", function: { name, description, parameters } }', () => {
    const { tools } = toOpenAITools([readFile]);
    assert.deepEqual(tools, [{ type: 'function', function: { name: 'read_file', description: 'Read a file', parameters: readFile.inputSchema } }]);
  });

  it('falls back to the title, omits a missing description, drops $schema and adds empty properties', () => {
    const { tools } = toOpenAITools([dotted, slashed]);
    assert.equal(tools[0]?.function.description, 'List admin tools');
    assert.deepEqual(tools[0]?.function.parameters, { type: 'object', properties: {} });
    assert.ok(!('description' in (tools[1]?.function ?? {})));
  });

  it('maps names with "." and "/" reversibly; valid names stay as they are', () => {
    const { tools, names } = toOpenAITools([readFile, dotted, slashed]);
    const given = tools.map((t) => t.function.name);
    assert.deepEqual(given, ['read_file', 'admin_tools_list', 'user-profile_update']);
    for (const name of given) assert.match(name, PROVIDER_NAME_PATTERN);
    assert.equal(names.toMcp('admin_tools_list'), 'admin.tools.list');
    assert.equal(names.toMcp('user-profile_update'), 'user-profile/update');
    assert.equal(names.toProvider('admin.tools.list'), 'admin_tools_list');
    assert.equal(names.toMcp('unknown'), undefined);
    assert.equal(toAnthropicTools([dotted]).names.toMcp('admin_tools_list'), 'admin.tools.list');
  });

  it('name confusion: a mapped name never shadows a real tool of that name', () => {
    const real: Tool = { name: 'a_b', inputSchema: { type: 'object' } };
    const names = providerNames([{ name: 'a.b' }, real, { name: 'a/b' }]);
    assert.equal(names.toProvider('a_b'), 'a_b');
    assert.equal(names.toMcp('a_b'), 'a_b');
    const dot = names.toProvider('a.b') as string;
    const slash = names.toProvider('a/b') as string;
    assert.notEqual(dot, 'a_b');
    assert.notEqual(dot, slash);
    assert.equal(names.toMcp(dot), 'a.b');
    assert.equal(names.toMcp(slash), 'a/b');
  });

  it('a name over 64 characters is shortened within the pattern, deterministically', () => {
    const long = `ns.${'x'.repeat(80)}`;
    const first = providerNames([{ name: long }]).toProvider(long) as string;
    assert.match(first, PROVIDER_NAME_PATTERN);
    assert.equal(providerNames([{ name: long }]).toProvider(long), first);
  });
});

describe('host/toolFormats: results', () => {
  const result: CallToolResult = {
    content: [
      { type: 'text', text: 'hello' },
      { type: 'image', data: 'iVBORw0K', mimeType: 'image/png' },
      { type: 'image', data: 'AAAA', mimeType: 'image/tiff' },
      { type: 'resource_link', uri: 'file:///a.txt', name: 'a.txt' },
    ],
  };

  it('Anthropic: text and supported images as blocks, everything else as JSON text', () => {
    assert.deepEqual(callResultToAnthropicContent(result), [
      { type: 'text', text: 'hello' },
      { type: 'image', source: { type: 'base64', media_type: 'image/png', data: 'iVBORw0K' } },
      { type: 'text', text: JSON.stringify({ type: 'image', data: 'AAAA', mimeType: 'image/tiff' }) },
      { type: 'text', text: JSON.stringify({ type: 'resource_link', uri: 'file:///a.txt', name: 'a.txt' }) },
    ]);
  });

  it('Anthropic tool_result carries is_error only for an error result', () => {
    const ok = callResultToAnthropicToolResult('toolu_1', { content: [{ type: 'text', text: 'x' }] });
    assert.deepEqual(ok, { type: 'tool_result', tool_use_id: 'toolu_1', content: [{ type: 'text', text: 'x' }] });
    assert.equal(callResultToAnthropicToolResult('toolu_2', { content: [], isError: true }).is_error, true);
  });

  it('OpenAI: one string, text as is, other blocks as JSON, errors marked', () => {
    assert.equal(callResultToOpenAIContent({ content: [{ type: 'text', text: 'a' }, { type: 'text', text: 'b' }] }), 'a\nb');
    assert.equal(callResultToOpenAIContent({ content: [{ type: 'image', data: 'QQ==', mimeType: 'image/png' }] }), '{"type":"image","data":"QQ==","mimeType":"image/png"}');
    assert.equal(callResultToOpenAIContent({ content: [{ type: 'text', text: 'no such file' }], isError: true }), '[tool error] no such file');
  });

  it('structured content alone (no blocks) is passed on as JSON text', () => {
    const structured: CallToolResult = { content: [], structuredContent: { temperature: 21 } };
    assert.equal(callResultToOpenAIContent(structured), '{"temperature":21}');
    assert.deepEqual(callResultToAnthropicContent(structured), [{ type: 'text', text: '{"temperature":21}' }]);
  });
});
