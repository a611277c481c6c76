import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import type { ClientHandlers } from '../../../src/client/types.js';
import { JsonRpcError } from '../../../src/jsonrpc/errors.js';
import { object, string } from '../../../src/util/schema.js';
import { McpError } from '../../../src/util/errors.js';
import { connectEverything } from './support.js';

const handlers: ClientHandlers = {
  elicitation: (params) => ({ action: 'accept', content: params.message.includes('name') ? { name: 'Ada' } : { context: 'ctx', color: 'blue', ok: true } }),
  sampling: () => ({ role: 'assistant', content: { type: 'text', text: 'Paris' }, model: 'test-model', stopReason: 'endTurn' }),
  roots: () => [{ uri: 'file:///tmp/project', name: 'project' }],
};

for (const era of ['stateless', 'stateful'] as const) {
  describe(`McpClient typed calls (${era})`, () => {
    it('lists tools, prompts, resources and templates', async () => {
      const { client, close } = await connectEverything({ era, handlers });
      try {
        assert.equal(client.era, era);
        const tools = await client.listTools();
        assert.ok(tools.some((t) => t.name === 'echo'));
        assert.ok(tools.some((t) => t.name === 'test_x_mcp_header'));
        const page = await client.listToolsPage();
        assert.ok(page.items.length > 0);
        const prompts = await client.listPrompts();
        assert.ok(prompts.some((p) => p.name === 'test_prompt_with_arguments'));
        const resources = await client.listResources();
        assert.ok(resources.some((r) => r.uri === 'test://static-text'));
        const templates = await client.listResourceTemplates();
        assert.ok(templates.some((t) => t.uriTemplate === 'test://template/{id}/data'));
      } finally {
        await close();
      }
    });

    it('calls tools: text, image, isError results, protocol errors', async () => {
      const { client, close } = await connectEverything({ era, handlers });
      try {
        const echo = await client.callTool('echo', { message: 'hi' });
        assert.deepEqual(echo.content, [{ type: 'text', text: 'hi' }]);
        assert.equal(echo.isError, undefined);
        const image = await client.callTool('test_image_content');
        assert.equal(image.content[0]?.type, 'image');
        const failed = await client.callTool('test_error_handling');
        assert.equal(failed.isError, true);
        await assert.rejects(client.callTool('no_such_tool'), (e: unknown) => e instanceof JsonRpcError && e.code === -32602);
      } finally {
        await close();
      }
    });

    it('reads resources, gets prompts, completes', async () => {
      const { client, close } = await connectEverything({ era, handlers });
      try {
        const text = await client.readResource('test://static-text');
        assert.equal((text.contents[0] as { text?: string }).text, 'This is the content of the static text resource.');
        const templated = await client.readResource('test://template/42/data');
        assert.match((templated.contents[0] as { text: string }).text, /"id":"42"/);
        const prompt = await client.getPrompt('test_prompt_with_arguments', { arg1: 'a', arg2: 'b' });
        assert.match(JSON.stringify(prompt.messages), /arg1='a', arg2='b'/);
        const completion = await client.complete({ type: 'ref/prompt', name: 'test_prompt_with_arguments' }, { name: 'arg1', value: 'par' });
        assert.deepEqual(completion.values, ['paris', 'park', 'party']);
        const ids = await client.complete({ type: 'ref/resource', uri: 'test://template/{id}/data' }, { name: 'id', value: '1' });
        assert.ok(ids.values.includes('123'));
        await client.ping();
      } finally {
        await close();
      }
    });

    it('answers elicitation, sampling and roots through the same handlers', async () => {
      const { client, wire, close } = await connectEverything({ era, handlers });
      try {
        const greeting = await client.callTool('test_input_required_result_elicitation');
        assert.deepEqual(greeting.content, [{ type: 'text', text: 'Hello, Ada!' }]);
        const sampled = await client.callTool('test_sampling', { prompt: 'Capital of France?' });
        assert.match(JSON.stringify(sampled.content), /Paris/);
        const roots = await client.callTool('test_input_required_result_list_roots');
        assert.match(JSON.stringify(roots.content), /file:\/\/\/tmp\/project/);
        const prompt = await client.getPrompt('test_input_required_result_prompt');
        assert.match(JSON.stringify(prompt.messages), /Prompt with context: ctx/);
        if (era === 'stateful') {
          // Real server-to-client requests, answered on the wire.
          const answered = wire.sent.filter((m) => 'result' in m);
          assert.ok(answered.length >= 3);
        } else {
          assert.ok(wire.requests('tools/call').some((r) => r.params?.['inputResponses'] !== undefined));
        }
      } finally {
        await close();
      }
    });

    it('sends a generic request and validates it with a schema', async () => {
      const { client, close } = await connectEverything({ era, handlers });
      try {
        const result = await client.request('tools/call', { name: 'echo', arguments: { message: 'x' } });
        assert.deepEqual(result['content'], [{ type: 'text', text: 'x' }]);
        await assert.rejects(
          client.request('tools/call', { name: 'echo', arguments: { message: 'x' } }, object({ nothing: string() })),
          (e: unknown) => e instanceof McpError && e.code === 'ERR_MCP_INVALID_RESPONSE',
        );
        await assert.rejects(client.request('no/such/method'), (e: unknown) => e instanceof JsonRpcError && e.code === -32601);
      } finally {
        await close();
      }
    });

    it('sets the logging level and receives log messages', async () => {
      const logs: unknown[] = [];
      const { client, wire, close } = await connectEverything({ era, handlers, on: { logMessage: (p) => logs.push(p.data) } });
      try {
        await client.setLoggingLevel('info');
        await client.callTool('test_tool_with_logging');
        assert.deepEqual(logs, ['Tool execution started', 'Tool processing data', 'Tool execution completed']);
        if (era === 'stateless') {
          const [call] = wire.requests('tools/call');
          assert.equal((call?.params?.['_meta'] as Record<string, unknown>)['io.modelcontextprotocol/logLevel'], 'info');
          assert.equal(wire.requests('logging/setLevel').length, 0);
        } else {
          assert.equal(wire.requests('logging/setLevel').length, 1);
        }
      } finally {
        await close();
      }
    });

    it('reports progress to onProgress', async () => {
      const { client, close } = await connectEverything({ era, handlers });
      try {
        const seen: number[] = [];
        await client.callTool('test_tool_with_progress', {}, { onProgress: (p) => seen.push(p.progress) });
        assert.deepEqual(seen, [0, 50, 100]);
      } finally {
        await close();
      }
    });
  });
}

describe('McpClient era-specific calls', () => {
  it('subscribes to resources on the stateful era', async () => {
    const updated: string[] = [];
    const { client, server, close } = await connectEverything({ era: 'stateful', on: { resourceUpdated: (uri) => updated.push(uri) } });
    try {
      await client.subscribeResource('test://watched-resource');
      server.notifyResourceUpdated('test://watched-resource');
      await new Promise((r) => setTimeout(r, 20));
      assert.deepEqual(updated, ['test://watched-resource']);
      await client.unsubscribeResource('test://watched-resource');
    } finally {
      await close();
    }
  });

  it('refuses resources/subscribe on the stateless era', async () => {
    const { client, close } = await connectEverything();
    try {
      await assert.rejects(client.subscribeResource('test://x'), (e: unknown) => e instanceof McpError && e.code === 'ERR_MCP_UNSUPPORTED');
    } finally {
      await close();
    }
  });
});
