import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { agentTools } from '../../../src/host/agentTools.js';
import { Host } from '../../../src/host/host.js';
import { DeniedError } from '../../../src/host/interceptors.js';
import { McpServer } from '../../../src/server/mcpServer.js';
import { memoryServers, memorySpec } from './support/memoryServers.js';

async function openHost() {
  const servers = memoryServers((id) => {
    const server = new McpServer({ name: id, version: '1' });
    server.tool('add', { description: 'Adds', inputSchema: { type: 'object', properties: { a: { type: 'number' }, b: { type: 'number' } }, required: ['a', 'b'] } }, (args) => String(Number(args['a']) + Number(args['b'])));
    server.tool('ns.dotted', { description: 'A dotted name' }, () => 'dotted');
    return server;
  });
  const host = await Host.open({
    servers: [memorySpec('calc')],
    transport: servers.factory,
    interceptors: [
      {
        id: 'policy.no-dots',
        phase: 'policy',
        intercept: (ctx, next) => {
          if (ctx.exposedName === 'ns.dotted' && ctx.principal?.id === 'guest') throw new DeniedError('policy.no-dots', 'guests may not');
          return next();
        },
      },
    ],
  });
  await host.start();
  return host;
}

describe('host/agentTools', () => {
  it('Anthropic: definitions with input_schema, names the API refuses mapped, a tool_use dispatched to a tool_result', async () => {
    const host = await openHost();
    const tools = agentTools(host, 'anthropic');
    assert.deepEqual(
      tools.definitions.map((d) => d.name),
      ['add', 'ns_dotted'],
    );
    assert.deepEqual(tools.definitions[0]?.input_schema, { type: 'object', properties: { a: { type: 'number' }, b: { type: 'number' } }, required: ['a', 'b'] });
    const result = await tools.dispatch({ type: 'tool_use', id: 'tu_1', name: 'add', input: { a: 2, b: 3 } });
    assert.equal(result.tool_use_id, 'tu_1');
    assert.deepEqual(result.content, [{ type: 'text', text: '5' }]);
    const dotted = await tools.dispatch({ id: 'tu_2', name: 'ns_dotted', input: {} });
    assert.deepEqual(dotted.content, [{ type: 'text', text: 'dotted' }]);
    await host.close();
  });

  it('OpenAI: function definitions, JSON arguments parsed, results as tool messages; bad JSON and unknown names are error results', async () => {
    const host = await openHost();
    const tools = agentTools(host, 'openai');
    assert.deepEqual(tools.definitions[0], { type: 'function', function: { name: 'add', description: 'Adds', parameters: { type: 'object', properties: { a: { type: 'number' }, b: { type: 'number' } }, required: ['a', 'b'] } } });
    const ok = await tools.dispatch({ id: 'c1', type: 'function', function: { name: 'add', arguments: '{"a":1,"b":1}' } });
    assert.deepEqual(ok, { role: 'tool', tool_call_id: 'c1', content: '2' });
    const bad = await tools.dispatch({ id: 'c2', function: { name: 'add', arguments: '{nope' } });
    assert.match(bad.content, /not valid JSON/);
    const unknown = await tools.dispatch({ id: 'c3', function: { name: 'rm_rf', arguments: '{}' } });
    assert.match(unknown.content, /Unknown tool: rm_rf/);
    await host.close();
  });

  it('a model’s tool call passes the same interceptor chain: a denied call comes back as an error result naming the interceptor', async () => {
    const host = await openHost();
    const tools = agentTools(host, 'anthropic');
    const denied = await tools.dispatch({ id: 'tu_3', name: 'ns_dotted', input: {} }, { principal: { id: 'guest' } });
    assert.equal(denied.is_error, true);
    assert.deepEqual(denied.content, [{ type: 'text', text: 'Denied by policy.no-dots: guests may not' }]);
    await host.close();
  });

  it('quarantined tool: a model calling a tool the trust layer withholds gets the quarantine reason, not Unknown tool (issue #32)', { timeout: 10_000 }, async () => {
    const servers = memoryServers((id) => {
      const server = new McpServer({ name: id, version: '1' });
      server.tool('add', { description: 'Adds' }, () => 'reached');
      return server;
    });
    const reason = 'Tool "add" of server calc changed since it was approved. Review with `switchboard pins diff calc tool:add`.';
    const host = await Host.open({
      servers: [memorySpec('calc')],
      transport: servers.factory,
      trust: { vet: (input) => Promise.resolve({ catalog: { ...input.catalog, tools: [] }, quarantined: input.catalog.tools.map((t) => ({ kind: 'tool' as const, name: t.name, reason })), instructions: input.instructions }) },
    });
    await host.start();
    const tools = agentTools(host, 'openai');
    assert.deepEqual(tools.definitions, [], 'the only tool is withheld from the model');
    const refused = await tools.dispatch({ id: 'c1', type: 'function', function: { name: 'add', arguments: '{}' } });
    assert.doesNotMatch(refused.content, /Unknown tool/);
    assert.match(refused.content, /switchboard pins diff calc tool:add/);
    assert.doesNotMatch(refused.content, /reached/, 'the call never reached the server');
    await host.close();
  });
});
