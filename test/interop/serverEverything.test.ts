// Interop: @modelcontextprotocol/server-everything (the reference server) over stdio.
import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import type { McpClient } from '../../src/client/mcpClient.js';
import { JsonRpcError } from '../../src/jsonrpc/errors.js';
import { minimalArgs, packageBin, stdioClient } from './support.js';

/** Arguments chosen by hand where the minimal ones would be slow or reach the network. */
const OVERRIDES: Readonly<Record<string, Record<string, unknown>>> = {
  echo: { message: 'hello interop' },
  'get-sum': { a: 2, b: 3 },
  'gzip-file-as-resource': { name: 'hello.txt.gz', data: 'data:text/plain;base64,aGVsbG8gd29ybGQ=', outputType: 'resource' },
  'trigger-long-running-operation': { duration: 0.2, steps: 2 },
  'trigger-sampling-request': { prompt: 'Say hi', maxTokens: 10 },
  'simulate-research-query': { topic: 'interop', ambiguous: false },
};

describe('interop: server-everything (stdio)', () => {
  let client: McpClient;
  const progress: number[] = [];
  before(async () => {
    client = await stdioClient(packageBin('@modelcontextprotocol/server-everything'), ['stdio']);
  });
  after(async () => {
    await client.close();
  });

  it('negotiates (falls back to the stateful era) and describes the server', () => {
    assert.equal(client.era, 'stateful');
    assert.equal(client.protocolVersion, '2025-11-25');
    assert.match(client.serverInfo?.name ?? '', /everything/);
    assert.ok(client.serverCapabilities?.['tools']);
  });

  it('lists tools, resources, templates and prompts', async () => {
    assert.ok((await client.listTools()).length >= 10);
    assert.ok((await client.listResources()).length > 0);
    assert.ok((await client.listResourceTemplates()).length > 0);
    assert.ok((await client.listPrompts()).length > 0);
  });

  it('calls every tool with valid arguments', async () => {
    const tools = await client.listTools();
    const failures: string[] = [];
    const taskOnly = tools.filter((t) => t.execution?.taskSupport === 'required').map((t) => t.name);
    // 2025-11-25 task augmentation is not part of this client: such tools are reported, not called.
    assert.deepEqual(taskOnly, ['simulate-research-query']);
    for (const tool of tools) {
      if (taskOnly.includes(tool.name)) continue;
      const args = OVERRIDES[tool.name] ?? minimalArgs(tool.inputSchema as Record<string, unknown>);
      try {
        const result = await client.callTool(tool.name, args, { timeoutMs: 15_000, onProgress: (p) => progress.push(p.progress) });
        if (result.isError === true) failures.push(`${tool.name}: isError ${JSON.stringify(result.content).slice(0, 200)}`);
        else assert.ok(Array.isArray(result.content), tool.name);
      } catch (error) {
        failures.push(`${tool.name}: ${error instanceof Error ? error.message : String(error)}`);
      }
    }
    assert.deepEqual(failures, []);
    assert.ok(progress.length > 0, 'trigger-long-running-operation reports progress');
  });

  it('validates structured output of get-structured-content', async () => {
    await client.listTools();
    const result = await client.callTool('get-structured-content', { location: 'Chicago' });
    assert.equal(typeof result.structuredContent, 'object');
  });

  it('reads every listed resource and a templated one', async () => {
    for (const resource of await client.listResources()) {
      const read = await client.readResource(resource.uri);
      assert.ok(read.contents.length > 0, resource.uri);
    }
    const templates = await client.listResourceTemplates();
    const template = templates[0]?.uriTemplate ?? '';
    const uri = template.replace(/\{[^}]+\}/, '1');
    assert.ok((await client.readResource(uri)).contents.length > 0);
  });

  it('gets every prompt', async () => {
    for (const prompt of await client.listPrompts()) {
      const args: Record<string, string> = {};
      for (const a of prompt.arguments ?? []) if (a.required === true) args[a.name] = prompt.name === 'resource-prompt' ? (a.name === 'resourceType' ? 'Text' : '1') : 'Engineering';
      const result = await client.getPrompt(prompt.name, args);
      assert.ok(result.messages.length > 0, prompt.name);
    }
  });

  it('completes prompt arguments, pings, sets the log level, subscribes', async () => {
    const completion = await client.complete({ type: 'ref/prompt', name: 'completable-prompt' }, { name: 'department', value: 'E' });
    assert.ok(completion.values.length > 0);
    await client.ping();
    await client.setLoggingLevel('debug');
    const [resource] = await client.listResources();
    if (resource !== undefined) {
      await client.subscribeResource(resource.uri);
      await client.unsubscribeResource(resource.uri);
    }
  });

  it('maps protocol errors to JsonRpcError', async () => {
    // The SDK answers an unknown tool with an isError result rather than -32602; accept both.
    const outcome = await client.callTool('definitely-not-a-tool', {}).then(
      (r) => r.isError === true,
      (e: unknown) => e instanceof JsonRpcError,
    );
    assert.equal(outcome, true);
    await assert.rejects(client.request('no/such/method'), (e: unknown) => e instanceof JsonRpcError && e.code === -32601);
  });
});
