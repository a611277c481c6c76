/**
 * The tools the tasks conformance scenarios call (SEP-2663 tasks extension; they also serve
 * 2025-11-25 task-augmented calls): `greet` (never a task), `slow_compute`, `failing_job`
 * (`taskSupport: "required"`), `protocol_error_job`, `confirm_delete` and `multi_input` (ask
 * for input while running as a task), and `test_tool_with_task` (asks over MRTR first, then
 * continues as a task with `runAsTask`).
 *
 * The handlers are ordinary tool handlers: `ctx.elicit(...)` reaches the client through MRTR,
 * the task's `inputRequests`, or a session request, whichever way the call is running.
 *
 * @see https://modelcontextprotocol.io/extensions/tasks/overview
 * @module
 */
import { sleep } from '../../util/time.js';
import { ErrorCode, JsonRpcError } from '../../jsonrpc/errors.js';
import type { ElicitResult, RequestedSchema } from '../../protocol/model/elicitation.js';
import type { Tool } from '../../protocol/model/tool.js';
import type { McpServer } from '../../server/mcpServer.js';
import { runAsTask } from '../../server/tasks/context.js';
import { ToolError } from '../../server/tools.js';
import { formField, stringForm } from './fixtures.js';

const NO_ARGS = { type: 'object', properties: {} } as const;
const OPTIONAL = { taskSupport: 'optional' } as const;

/** The tool that gathers input over MRTR before it becomes a task (so not a task from the start). */
export const ESCALATING_TOOL = 'test_tool_with_task';

/**
 * The everything server's task decision (2026-07-28): tools that support tasks run as tasks,
 * except {@link ESCALATING_TOOL}, which decides itself with `runAsTask`.
 */
export function everythingTaskMode(tool: Tool): boolean {
  const support = tool.execution?.taskSupport;
  return tool.name !== ESCALATING_TOOL && (support === 'optional' || support === 'required');
}


function accepted(answer: ElicitResult, field: string): boolean {
  return answer.action === 'accept' && answer.content?.[field] === true;
}

const CONFIRM_FIELD_FORM: RequestedSchema = { type: 'object', properties: { confirm: { type: 'boolean' } }, required: ['confirm'] };

/** Registers the tasks tools. */
export function registerTaskTools(server: McpServer): void {
  server.tool(
    'greet',
    { description: 'Sync-only: returns "Hello, {name}!" (never a task)', inputSchema: { type: 'object', properties: { name: { type: 'string' } }, required: ['name'] } },
    (args) => `Hello, ${String(args['name'])}!`,
  );
  server.tool(
    'slow_compute',
    {
      description: 'Task-supporting: sleeps `seconds` seconds, then reports done (cancellable)',
      inputSchema: { type: 'object', properties: { seconds: { type: 'number', minimum: 0 }, label: { type: 'string' } } },
      execution: OPTIONAL,
    },
    async (args, ctx) => {
      const seconds = typeof args['seconds'] === 'number' ? args['seconds'] : 1;
      await sleep(seconds * 1000, ctx.signal);
      const label = typeof args['label'] === 'string' ? ` (${args['label']})` : '';
      return `Computed for ${seconds}s${label}`;
    },
  );
  server.tool(
    'failing_job',
    { description: 'Task-required: fails with a tool execution error after about a second', inputSchema: NO_ARGS, execution: { taskSupport: 'required' } },
    async (_args, ctx) => {
      await sleep(1000, ctx.signal);
      throw new ToolError('The job failed: simulated tool execution error');
    },
  );
  server.tool(
    'protocol_error_job',
    { description: 'Task-supporting: fails with a JSON-RPC (protocol) error', inputSchema: NO_ARGS, execution: OPTIONAL },
    async (_args, ctx) => {
      await sleep(200, ctx.signal);
      throw new JsonRpcError(ErrorCode.InternalError, 'Simulated protocol failure in protocol_error_job');
    },
  );
  server.tool(
    'confirm_delete',
    {
      description: 'Task-supporting: asks the user to confirm deleting `filename` (elicitation), then reports',
      inputSchema: { type: 'object', properties: { filename: { type: 'string' } }, required: ['filename'] },
      execution: OPTIONAL,
    },
    async (args, ctx) => {
      const filename = String(args['filename']);
      const answer = await ctx.elicit({ message: `Delete ${filename}?`, requestedSchema: CONFIRM_FIELD_FORM }, { key: 'confirm' });
      return accepted(answer, 'confirm') ? `Deleted ${filename}` : `Kept ${filename}`;
    },
  );
  server.tool(
    'multi_input',
    { description: 'Task-supporting: asks two questions at once (two input requests pending together)', inputSchema: NO_ARGS, execution: OPTIONAL },
    async (_args, ctx) => {
      const [name, confirmation] = await Promise.all([
        ctx.elicit({ message: 'What is your name?', requestedSchema: stringForm('name') }, { key: 'name' }),
        ctx.elicit({ message: 'Proceed?', requestedSchema: CONFIRM_FIELD_FORM }, { key: 'confirm' }),
      ]);
      return `Hello, ${formField(name, 'name')}; confirmed: ${accepted(confirmation, 'confirm') ? 'yes' : 'no'}`;
    },
  );
  server.tool(
    ESCALATING_TOOL,
    { description: 'Task-required: asks for the user name over MRTR (key user_name), then continues as a task', inputSchema: NO_ARGS, execution: { taskSupport: 'required' } },
    async (_args, ctx) => {
      const answer = await ctx.elicit({ message: 'What is your name?', requestedSchema: stringForm('name') }, { key: 'user_name' });
      await runAsTask(ctx);
      await sleep(300, ctx.signal);
      return `Hello, ${formField(answer, 'name')}!`;
    },
  );
}
