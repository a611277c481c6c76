/**
 * `switchboard call <server> <tool> [json-args]`: connects to an MCP server, calls one tool
 * and prints the result: text content as is, other content as a one-line summary, and
 * `structuredContent` as JSON (or, with `--json`, the whole raw result). A tool the server runs
 * only as a task is called as one and waited for ({@link callAsTask}). Exits 1 when the
 * tool reports `isError` or the call fails (protocol error, unreachable server). The
 * server's progress and log messages go to stderr while the call runs (not with `--quiet`).
 *
 * @module
 */
import type { CallToolResult } from '../../protocol/model/tools.js';
import { UsageError } from '../args.js';
import { CLIENT_NOTES, CLIENT_OPTIONS, SERVER_POSITIONAL, type ClientArgs } from '../clientConnect.js';
import { runClientCommand, type ClientSession } from '../clientSession.js';
import { withTasksExtension } from '../../host/gatewayTasks.js';
import { driveTask, requiresTask } from '../../host/taskDriver.js';
import { defineCommand } from '../command.js';
import { formatContentBlocks } from '../contentFormat.js';
import { parseToolArguments } from '../jsonArguments.js';

/** The human-readable rendering of a tool result. */
export function formatToolResult(result: CallToolResult): string {
  const lines = formatContentBlocks(result.content ?? []);
  if (result.structuredContent !== undefined) lines.push(JSON.stringify(result.structuredContent, null, 2));
  return lines.length > 0 ? lines.join('\n') + '\n' : '';
}

/**
 * Calls a tool the server runs only as a task (`execution.taskSupport: "required"`, 2026-07-28
 * tasks extension): declares the extension on this call, then polls `tasks/get` until the task
 * ends, answering its input requests with the command's own handlers (a terminal form), and
 * returns the task's result. Ctrl-C cancels the task (`tasks/cancel`).
 *
 * @see https://modelcontextprotocol.io/extensions/tasks/overview
 */
async function callAsTask({ client, args, onProgress, handlers }: ClientSession, tool: string, toolArgs: Record<string, unknown>): Promise<CallToolResult> {
  const capabilities = withTasksExtension(client.capabilities);
  const created = (await client.callTool(tool, toolArgs, { capabilities, ...(onProgress === undefined ? {} : { onProgress }) })) as CallToolResult & { resultType?: unknown; taskId?: unknown };
  if (created.resultType !== 'task') return created;
  if (args.options['quiet'] !== true) process.stderr.write(`switchboard call: ${tool} runs as task ${String(created.taskId)}; waiting for its result (Ctrl-C cancels it)\n`);
  const controller = new AbortController();
  const cancel = (): void => controller.abort(new Error('cancelled (Ctrl-C)'));
  process.once('SIGINT', cancel);
  try {
    return (await driveTask(client, created, { signal: controller.signal, capabilities, handlers })) as CallToolResult;
  } finally {
    process.off('SIGINT', cancel);
  }
}

function check(args: ClientArgs): { tool: string; toolArgs: Record<string, unknown> } {
  const [tool, json, extra] = args.rest;
  if (tool === undefined) throw new UsageError('missing <tool>');
  if (extra !== undefined) throw new UsageError(`unexpected argument ${JSON.stringify(extra)}`);
  return { tool, toolArgs: parseToolArguments(json) };
}

/** `switchboard call`. */
export const command = defineCommand({
  name: 'call',
  summary: 'call one tool of an MCP server and print the result',
  usage: ['[options] <server> <tool> [json-args]', '[options] <tool> [json-args] -- <command> [args...]'],
  description: `Connects to an MCP server, calls <tool> with the JSON object [json-args] (default {}) and
prints the result. A tool that runs only as a task (taskSupport "required") is called as a
task and waited for; Ctrl-C cancels it.`,
  positionals: [SERVER_POSITIONAL, { name: '<tool>', description: 'the tool name' }, { name: '[json-args]', description: 'the arguments, a JSON object (default {})' }],
  options: { json: { type: 'boolean', description: 'print the raw result (JSON)' }, ...CLIENT_OPTIONS },
  notes: `${CLIENT_NOTES}

Exit status: 0 on success, 1 when the tool reports an error (isError) or the call fails.`,
  run: (parsed) =>
    runClientCommand(parsed, check, async (session, { tool, toolArgs }) => {
      const { client, args, onProgress } = session;
      // Listing first lets the client mirror x-mcp-header parameters and check the output schema.
      const tools = await client.listTools().catch(() => undefined);
      const asTask = client.era === 'stateless' && requiresTask(tools?.find((t) => t.name === tool));
      const result = asTask ? await callAsTask(session, tool, toolArgs) : await client.callTool(tool, toolArgs, onProgress === undefined ? {} : { onProgress });
      process.stdout.write(args.options['json'] === true ? `${JSON.stringify(result, null, 2)}\n` : formatToolResult(result));
      if (result.isError === true) {
        process.stderr.write(`switchboard call: tool ${JSON.stringify(tool)} reported an error\n`);
        return 1;
      }
      return 0;
    }),
});
