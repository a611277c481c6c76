// The client and the tasks extension (io.modelcontextprotocol/tasks): a CreateTaskResult is a
// valid answer only to a request whose capabilities declared the extension; otherwise it is an
// invalid response. https://modelcontextprotocol.io/extensions/tasks/overview
import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { McpClient } from '../../../src/client/mcpClient.js';
import { McpError } from '../../../src/util/errors.js';
import { CLIENT_INFO, scriptedPeer } from './support.js';

const EXT = 'io.modelcontextprotocol/tasks';
const DISCOVER_OK = { resultType: 'complete', supportedVersions: ['2026-07-28'], capabilities: { tools: {}, extensions: { [EXT]: {} } }, ttlMs: 0, cacheScope: 'public' };
const TASK = { resultType: 'task', taskId: 't-1', status: 'working', createdAt: '2026-01-01T00:00:00Z', lastUpdatedAt: '2026-01-01T00:00:00Z', ttlMs: 60_000, pollIntervalMs: 100 };

/** A scripted 2026-07-28 server that answers every tools/call with a task (declared or not); records the declared capabilities. */
async function taskingClient(): Promise<{ client: McpClient; declared: unknown[] }> {
  const declared: unknown[] = [];
  const { transport } = await scriptedPeer(async (request) => {
    if (request.method === 'server/discover') return DISCOVER_OK;
    declared.push((request.params?.['_meta'] as Record<string, unknown> | undefined)?.['io.modelcontextprotocol/clientCapabilities']);
    if (request.method === 'tools/call') return TASK;
    if (request.method === 'tasks/get') return { ...TASK, resultType: 'complete', status: 'completed', result: { content: [{ type: 'text', text: 'done' }] } };
    return { resultType: 'complete' };
  });
  const client = new McpClient(CLIENT_INFO);
  await client.connect(transport);
  return { client, declared };
}

describe('client: tasks extension', () => {
  it('a task answer to a call whose capabilities declared the extension is returned as is', async () => {
    const { client, declared } = await taskingClient();
    const capabilities = { extensions: { [EXT]: {} } };
    const created = (await client.callTool('slow', {}, { capabilities })) as unknown as Record<string, unknown>;
    assert.equal(created['resultType'], 'task');
    assert.equal(created['taskId'], 't-1');
    const done = await client.request('tasks/get', { taskId: 't-1' }, { capabilities });
    assert.equal(done['status'], 'completed');
    assert.deepEqual(declared, [capabilities, capabilities]);
    await client.close();
  });

  it('a server pushing a task on a call that did not declare the extension: an invalid response, not a result', async () => {
    const { client } = await taskingClient();
    await assert.rejects(client.callTool('slow', {}), (e: unknown) => e instanceof McpError && e.code === 'ERR_MCP_INVALID_RESPONSE' && /resultType "task"/.test(e.message));
    await client.close();
  });
});
