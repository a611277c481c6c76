/**
 * What the conformance fixture (`conformanceClient.ts`) does in each client scenario of the
 * official referee, once connected: the calls each scenario's mock server expects, in order.
 * Unknown scenarios get the generic "list tools, call the first one" walk.
 *
 * @see https://github.com/modelcontextprotocol/conformance (the referee; run by `scripts/conformance.mjs`)
 * @module
 */
import type { McpClient } from '../client/mcpClient.js';
import type { ElicitParams, ElicitResult } from '../protocol/model/elicitation.js';
import type { Logger } from '../util/logger.js';
import type { ConformanceContext } from './clientConformanceAuth.js';

/** One scenario's steps, given a connected client. */
export type ScenarioSteps = (client: McpClient, context: ConformanceContext, logger: Logger) => Promise<void>;

/**
 * The fixture's elicitation answer: accept, filling each field that has no schema `default`
 * (those are filled by the client from the schema, SEP-1034): booleans `true` (e.g.
 * `confirmed`), the first enum value, the minimum number, or an empty string.
 */
export function acceptElicitation(params: ElicitParams): ElicitResult {
  if (params.mode === 'url') return { action: 'accept' } as ElicitResult;
  const properties = (params as { requestedSchema?: { properties?: Record<string, Record<string, unknown>> } }).requestedSchema?.properties ?? {};
  const content: Record<string, unknown> = {};
  for (const [name, schema] of Object.entries(properties)) {
    if (schema['default'] !== undefined) continue;
    const choices = (schema['enum'] ?? (schema['oneOf'] as { const?: unknown }[] | undefined)?.map((o) => o.const)) as unknown[] | undefined;
    if (Array.isArray(choices) && choices.length > 0) content[name] = choices[0];
    else if (schema['type'] === 'boolean') content[name] = true;
    else if (schema['type'] === 'number' || schema['type'] === 'integer') content[name] = typeof schema['minimum'] === 'number' ? schema['minimum'] : 0;
    else if (schema['type'] === 'array') content[name] = [];
    else content[name] = '';
  }
  return { action: 'accept', content } as ElicitResult;
}

/** Runs `step`, logging (not throwing) a failure: scenarios score what was sent, not our verdict. */
async function attempt(logger: Logger, what: string, step: () => Promise<unknown>): Promise<boolean> {
  try {
    await step();
    return true;
  } catch (error) {
    logger.warn(`${what} failed`, { error: error instanceof Error ? error.message : String(error) });
    return false;
  }
}

const listThenAdd: ScenarioSteps = async (client) => {
  await client.listTools();
  await client.callTool('add_numbers', { a: 5, b: 3 });
};

const authFlow: ScenarioSteps = async (client) => {
  await client.listTools();
  await client.callTool('test-tool', {});
};

const steps: Readonly<Record<string, ScenarioSteps>> = {
  tools_call: listThenAdd,
  initialize: async (client) => {
    await client.listTools();
  },
  'request-metadata': async (client) => {
    await client.listTools();
    await client.listTools({ fresh: false });
  },
  'http-standard-headers': async (client, _context, logger) => {
    let ok = true;
    const tools = await client.listTools();
    const tool = tools.find((t) => t.name === 'test_headers') ?? tools[0];
    if (tool !== undefined) ok = (await attempt(logger, 'tools/call', () => client.callTool(tool.name, {}))) && ok;
    const resources = await client.listResources();
    const resource = resources[0];
    if (resource !== undefined) ok = (await attempt(logger, 'resources/read', () => client.readResource(resource.uri))) && ok;
    const prompts = await client.listPrompts();
    const prompt = prompts.find((p) => p.name === 'test_prompt') ?? prompts[0];
    if (prompt !== undefined) ok = (await attempt(logger, 'prompts/get', () => client.getPrompt(prompt.name, {}))) && ok;
    if (!ok) throw new Error('some requests failed');
  },
  'http-custom-headers': async (client, context) => {
    await client.listTools();
    const calls = Array.isArray(context['toolCalls']) ? (context['toolCalls'] as { name?: unknown; arguments?: unknown }[]) : [];
    for (const call of calls) {
      if (typeof call.name !== 'string') continue;
      const args = typeof call.arguments === 'object' && call.arguments !== null ? (call.arguments as Record<string, unknown>) : {};
      await client.callTool(call.name, args);
    }
  },
  'http-invalid-tool-headers': async (client) => {
    const tools = await client.listTools();
    for (const tool of tools) {
      await client.callTool(tool.name, tool.name === 'valid_tool' ? { region: 'us-west1' } : {});
    }
  },
  'sep-2322-client-request-state': async (client, _context, logger) => {
    let ok = true;
    for (const name of ['test_mrtr_echo_state', 'test_mrtr_no_state', 'test_mrtr_unrelated']) {
      ok = (await attempt(logger, name, () => client.callTool(name, {}))) && ok;
    }
    // Answers without `resultType`: treated as complete (or refused locally); never retried.
    await attempt(logger, 'test_mrtr_no_result_type', () => client.callTool('test_mrtr_no_result_type', {}));
    if (!ok) throw new Error('an MRTR call failed');
  },
  'json-schema-ref-no-deref': async (client) => {
    await client.listTools();
  },
  'json-schema-2020-12-preservation': async (client) => {
    const tools = await client.listTools();
    const tool = tools.find((t) => t.name === 'json_schema_2020_12_tool');
    if (tool === undefined) throw new Error('json_schema_2020_12_tool is not listed');
    await client.callTool('json_schema_echo', { schema: tool.inputSchema });
  },
  'elicitation-sep1034-client-defaults': async (client) => {
    await client.listTools();
    await client.callTool('test_client_elicitation_defaults', {});
  },
  'sse-retry': async (client) => {
    await client.listTools();
    await client.callTool('test_reconnection', {});
  },
};

/** The steps of `scenario` (`auth/*`: list tools, then call `test-tool`). */
export function scenarioSteps(scenario: string): ScenarioSteps {
  if (scenario.startsWith('auth/')) return authFlow;
  return (
    steps[scenario] ??
    (async (client) => {
      const tools = await client.listTools();
      if (tools[0] !== undefined) await client.callTool(tools[0].name, {});
    })
  );
}
