import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import { JSON_SCHEMA_2020_12_INPUT, PNG_BASE64, WAV_BASE64 } from '../../../../src/demo/everything/fixtures.js';
import { ERROR_TEXT } from '../../../../src/demo/everything/tools.js';
import { settle, start, textOf, type Harness, type Result } from './support.js';

describe('everything: plain tools', () => {
  let h: Harness;
  before(async () => {
    h = await start();
  });
  after(() => h.close());

  it('lists every tool of the conformance contract, in a stable order', async () => {
    const first = (await h.request('tools/list')) as Result & { tools: { name: string }[] };
    const second = (await h.request('tools/list')) as { tools: { name: string }[] };
    const names = first.tools.map((t) => t.name);
    assert.deepEqual(second.tools.map((t) => t.name), names);
    for (const expected of [
      'echo',
      'test_simple_text',
      'test_image_content',
      'test_audio_content',
      'test_embedded_resource',
      'test_multiple_content_types',
      'test_tool_with_logging',
      'test_tool_with_progress',
      'test_error_handling',
      'test_sampling',
      'test_elicitation',
      'test_elicitation_sep1034_defaults',
      'test_elicitation_sep1330_enums',
      'test_reconnection',
      'test_logging_tool',
      'test_streaming_elicitation',
      'test_missing_capability',
      'test_trigger_tool_change',
      'test_trigger_prompt_change',
      ...['elicitation', 'sampling', 'list_roots', 'request_state', 'multiple_inputs', 'multi_round', 'tampered_state', 'capabilities'].map(
        (s) => `test_input_required_result_${s}`,
      ),
      'json_schema_2020_12_tool',
      'test_x_mcp_header',
    ]) {
      assert.ok(names.includes(expected), `missing tool ${expected}`);
    }
    assert.equal(new Set(names).size, names.length);
    assert.equal(first['resultType'], 'complete');
    assert.equal(typeof first['ttlMs'], 'number');
  });

  it('echo returns its message as one text block', async () => {
    const result = await h.call('echo', { message: 'hello, switchboard' });
    assert.deepEqual(result.content, [{ type: 'text', text: 'hello, switchboard' }]);
    assert.equal(result.resultType, 'complete');
    assert.equal(result.isError, undefined);
  });

  it('echo rejects a non-string message as an isError result naming the field', async () => {
    const result = await h.call('echo', { message: 42 });
    assert.equal(result.isError, true);
    assert.match(textOf(result), /message/);
  });

  it('returns text, image, audio and embedded resource content', async () => {
    assert.equal(textOf(await h.call('test_simple_text')), 'This is a simple text response for testing.');
    assert.deepEqual((await h.call('test_image_content')).content, [{ type: 'image', data: PNG_BASE64, mimeType: 'image/png' }]);
    assert.deepEqual((await h.call('test_audio_content')).content, [{ type: 'audio', data: WAV_BASE64, mimeType: 'audio/wav' }]);
    assert.deepEqual((await h.call('test_embedded_resource')).content, [
      { type: 'resource', resource: { uri: 'test://embedded-resource', mimeType: 'text/plain', text: 'This is an embedded resource content.' } },
    ]);
    assert.equal(Buffer.from(PNG_BASE64, 'base64').subarray(1, 4).toString('latin1'), 'PNG');
    assert.equal(Buffer.from(WAV_BASE64, 'base64').subarray(0, 4).toString('latin1'), 'RIFF');
  });

  it('returns mixed content in order: text, image, JSON resource', async () => {
    const content = (await h.call('test_multiple_content_types')).content ?? [];
    assert.deepEqual(
      content.map((c) => c.type),
      ['text', 'image', 'resource'],
    );
    assert.equal(content[0]?.text, 'Multiple content types test:');
    assert.deepEqual(JSON.parse(String(content[2]?.resource?.['text'])), { test: 'data', value: 123 });
  });

  it('test_error_handling is an isError result, not a JSON-RPC error', async () => {
    const result = await h.call('test_error_handling');
    assert.equal(result.isError, true);
    assert.equal(textOf(result), ERROR_TEXT);
  });

  it('test_reconnection completes after its pause', async () => {
    assert.match(textOf(await h.call('test_reconnection')), /^Reconnection test completed successfully/);
  });

  it('an unknown tool is a -32602 protocol error', async () => {
    await assert.rejects(h.call('no_such_tool'), (e: { code?: number }) => e.code === -32602);
  });
});

describe('everything: logging and progress', () => {
  let h: Harness;
  before(async () => {
    h = await start();
  });
  after(() => h.close());

  const logs = () => h.notifications.filter((n) => n.method === 'notifications/message');

  it('sends no log notification when the request sets no log level', async () => {
    assert.equal(textOf(await h.call('test_tool_with_logging')), 'Tool with logging executed successfully');
    assert.equal(textOf(await h.call('test_logging_tool')), 'Logging evaluated');
    await settle();
    assert.deepEqual(logs(), []);
  });

  it('sends the three info logs, in order, when _meta asks for debug', async () => {
    h.notifications.length = 0;
    await h.request('tools/call', { name: 'test_tool_with_logging', arguments: {} }, { metaExtra: { 'io.modelcontextprotocol/logLevel': 'debug' } });
    await settle();
    assert.deepEqual(
      logs().map((n) => n.params),
      ['Tool execution started', 'Tool processing data', 'Tool execution completed'].map((data) => ({ level: 'info', data, logger: 'switchboard-everything' })),
    );
  });

  it('filters by level: error threshold hides the info logs', async () => {
    h.notifications.length = 0;
    await h.request('tools/call', { name: 'test_logging_tool', arguments: {} }, { metaExtra: { 'io.modelcontextprotocol/logLevel': 'error' } });
    await settle();
    assert.deepEqual(logs(), []);
    await h.request('tools/call', { name: 'test_logging_tool', arguments: {} }, { metaExtra: { 'io.modelcontextprotocol/logLevel': 'info' } });
    await settle();
    assert.deepEqual(logs().map((n) => n.params?.['data']), ['Diagnostic trace logging activated']);
  });

  it('reports progress 0, 50, 100 of 100 against the request token and returns the token', async () => {
    h.notifications.length = 0;
    const result = await h.call('test_tool_with_progress', {}, { _meta: { progressToken: 'progress-test-1' } });
    assert.equal(textOf(result), 'progress-test-1');
    await settle();
    const progress = h.notifications.filter((n) => n.method === 'notifications/progress').map((n) => n.params);
    assert.deepEqual(progress, [0, 50, 100].map((p) => ({ progressToken: 'progress-test-1', progress: p, total: 100, message: `Completed step ${p} of 100` })));
  });

  it('sends no progress without a token', async () => {
    h.notifications.length = 0;
    assert.equal(textOf(await h.call('test_tool_with_progress')), 'no progress token');
    await settle();
    assert.equal(h.notifications.filter((n) => n.method === 'notifications/progress').length, 0);
  });
});

describe('everything: schema tools', () => {
  let h: Harness;
  before(async () => {
    h = await start();
  });
  after(() => h.close());

  it('json_schema_2020_12_tool is listed with its 2020-12 schema intact', async () => {
    const { tools } = (await h.request('tools/list')) as { tools: { name: string; inputSchema: Record<string, unknown> }[] };
    const tool = tools.find((t) => t.name === 'json_schema_2020_12_tool');
    assert.ok(tool);
    assert.deepEqual(tool.inputSchema, JSON_SCHEMA_2020_12_INPUT);
    assert.equal(tool.inputSchema['$schema'], 'https://json-schema.org/draft/2020-12/schema');
    assert.equal(tool.inputSchema['additionalProperties'], false);
    assert.deepEqual(Object.keys(tool.inputSchema).filter((k) => ['allOf', 'if', 'then', 'else', '$defs'].includes(k)).sort(), ['$defs', 'allOf', 'else', 'if', 'then']);
  });

  it('json_schema_2020_12_tool validates with $ref, allOf/anyOf and if/then/else', async () => {
    const ok = await h.call('json_schema_2020_12_tool', { name: 'Ada', address: { city: 'London' }, contactMethod: 'phone', phone: '123' });
    assert.equal(textOf(ok), 'JSON Schema 2020-12 tool called with: {"name":"Ada","address":{"city":"London"},"contactMethod":"phone","phone":"123"}');
    // if contactMethod is phone, then phone is required (only email given).
    assert.equal((await h.call('json_schema_2020_12_tool', { contactMethod: 'phone', email: 'a@b.c' })).isError, true);
    // neither phone nor email: anyOf fails.
    assert.equal((await h.call('json_schema_2020_12_tool', { name: 'Ada' })).isError, true);
    // $ref: address.city must be a string.
    assert.equal((await h.call('json_schema_2020_12_tool', { email: 'a@b.c', address: { city: 7 } })).isError, true);
    // additionalProperties: false.
    assert.equal((await h.call('json_schema_2020_12_tool', { email: 'a@b.c', extra: 1 })).isError, true);
  });

  it('test_x_mcp_header advertises its header and mirrors the argument', async () => {
    const { tools } = (await h.request('tools/list')) as { tools: { name: string; inputSchema: { properties: Record<string, Record<string, unknown>> } }[] };
    const tool = tools.find((t) => t.name === 'test_x_mcp_header');
    assert.equal(tool?.inputSchema.properties['region']?.['x-mcp-header'], 'Region');
    assert.deepEqual(h.server.toolHeaders('test_x_mcp_header'), [{ name: 'Region', path: ['region'], type: 'string' }]);
    assert.equal(textOf(await h.call('test_x_mcp_header', { region: 'eu-west-1', note: 'hi' })), 'Region: eu-west-1; note: hi');
    assert.equal((await h.call('test_x_mcp_header', {})).isError, true);
  });

  it('only one tool carries x-mcp-header annotations (the header scenario picks the first)', async () => {
    const { tools } = (await h.request('tools/list')) as { tools: { name: string; inputSchema: { properties?: Record<string, Record<string, unknown>> } }[] };
    const annotated = tools.filter((t) => Object.values(t.inputSchema.properties ?? {}).some((p) => p['x-mcp-header'] !== undefined));
    assert.deepEqual(annotated.map((t) => t.name), ['test_x_mcp_header']);
  });
});
