import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { McpClient } from '../../../src/client/mcpClient.js';
import { McpError } from '../../../src/util/errors.js';
import { CLIENT_INFO, memoryLogger, scriptedPeer } from './support.js';

const DISCOVER_OK = { resultType: 'complete', supportedVersions: ['2026-07-28'], capabilities: { tools: {} }, ttlMs: 0, cacheScope: 'public' };
const obj = (properties: Record<string, unknown>) => ({ type: 'object', properties });

const TOOLS = [
  { name: 'valid_tool', inputSchema: obj({ region: { type: 'string', 'x-mcp-header': 'Region' } }) },
  { name: 'on_object', inputSchema: obj({ o: { type: 'object', 'x-mcp-header': 'Obj' } }) },
  { name: 'duplicate', inputSchema: obj({ a: { type: 'string', 'x-mcp-header': 'Same' }, b: { type: 'string', 'x-mcp-header': 'same' } }) },
  { name: 'spacey', inputSchema: obj({ a: { type: 'string', 'x-mcp-header': 'Has Space' } }) },
  { name: 'empty', inputSchema: obj({ a: { type: 'string', 'x-mcp-header': '' } }) },
  { name: 'structured', inputSchema: obj({}), outputSchema: { type: 'object', properties: { n: { type: 'integer' } }, required: ['n'] } },
  {
    name: 'network_ref',
    inputSchema: obj({}),
    outputSchema: { type: 'object', properties: { p: { $ref: 'http://localhost:1/canary/profile-schema.json' } } },
  },
];

async function toolPeer(results: Record<string, Record<string, unknown>>) {
  return scriptedPeer((request) => {
    if (request.method === 'server/discover') return DISCOVER_OK;
    if (request.method === 'tools/list') return { resultType: 'complete', ttlMs: 0, cacheScope: 'private', tools: TOOLS };
    return { resultType: 'complete', ...results[String(request.params?.['name'])] };
  });
}

describe('McpClient tools', () => {
  it('drops tools with invalid x-mcp-header annotations and logs why', async () => {
    const logger = memoryLogger();
    const { transport } = await toolPeer({});
    const client = new McpClient(CLIENT_INFO, { logger });
    await client.connect(transport);
    const names = (await client.listTools()).map((t) => t.name);
    assert.deepEqual(names, ['valid_tool', 'structured', 'network_ref']);
    const warnings = logger.lines.filter((l) => l.level === 'warn').map((l) => l.message);
    for (const dropped of ['on_object', 'duplicate', 'spacey', 'empty']) {
      assert.ok(warnings.some((w) => w.includes(`"${dropped}"`) && w.includes('x-mcp-header')), dropped);
    }
    assert.deepEqual((await client.listToolsPage()).items.map((t) => t.name), names);
    await client.close();
  });

  it('validates structuredContent against a known outputSchema', async () => {
    const { transport } = await toolPeer({
      structured: { content: [], structuredContent: { n: 'not a number' } },
    });
    const client = new McpClient(CLIENT_INFO);
    await client.connect(transport);
    // Unknown until listed: not validated.
    assert.deepEqual((await client.callTool('structured')).structuredContent, { n: 'not a number' });
    await client.listTools();
    await assert.rejects(client.callTool('structured'), (e: unknown) => e instanceof McpError && e.code === 'ERR_MCP_INVALID_RESPONSE' && /outputSchema/.test(e.message));
    await client.close();
  });

  it('accepts conforming output, skips isError results, and requires structuredContent', async () => {
    let answer: Record<string, unknown> = { content: [], structuredContent: { n: 1 } };
    const { transport } = await scriptedPeer((request) => {
      if (request.method === 'server/discover') return DISCOVER_OK;
      if (request.method === 'tools/list') return { resultType: 'complete', ttlMs: 0, cacheScope: 'private', tools: TOOLS };
      return { resultType: 'complete', ...answer };
    });
    const client = new McpClient(CLIENT_INFO);
    await client.connect(transport);
    await client.listTools();
    assert.deepEqual((await client.callTool('structured')).structuredContent, { n: 1 });
    answer = { content: [{ type: 'text', text: 'boom' }], isError: true };
    assert.equal((await client.callTool('structured')).isError, true);
    answer = { content: [] };
    await assert.rejects(client.callTool('structured'), (e: unknown) => e instanceof McpError && e.code === 'ERR_MCP_INVALID_RESPONSE');
    await client.close();
  });

  it('never dereferences a network $ref: skips validation with a warning', async () => {
    const logger = memoryLogger();
    let fetched = false;
    const originalFetch = globalThis.fetch;
    globalThis.fetch = (async (...args: Parameters<typeof fetch>) => {
      fetched = true;
      return originalFetch(...args);
    }) as typeof fetch;
    try {
      const { transport } = await toolPeer({ network_ref: { content: [], structuredContent: { p: { anything: true } } } });
      const client = new McpClient(CLIENT_INFO, { logger });
      await client.connect(transport);
      await client.listTools();
      const result = await client.callTool('network_ref');
      assert.deepEqual(result.structuredContent, { p: { anything: true } });
      await client.callTool('network_ref');
      const warnings = logger.lines.filter((l) => l.level === 'warn' && l.message.includes('network_ref'));
      assert.equal(warnings.length, 1);
      assert.match(warnings[0]?.message ?? '', /never dereferenced|refused/);
      await client.close();
    } finally {
      globalThis.fetch = originalFetch;
    }
    assert.equal(fetched, false);
  });
});
