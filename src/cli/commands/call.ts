/**
 * `switchboard call <server> <tool> [json-args]`: connects to an MCP server, calls one tool
 * and prints the result: text content as is, other content as a one-line summary, and
 * `structuredContent` as JSON (or, with `--json`, the whole raw result). Exits 1 when the
 * tool reports `isError` or the call fails (protocol error, unreachable server). The
 * server's progress and log messages go to stderr while the call runs (not with `--quiet`).
 *
 * @module
 */
import type { CallToolResult } from '../../protocol/model/tools.js';
import { UsageError } from '../args.js';
import { CLIENT_NOTES, CLIENT_OPTIONS, SERVER_POSITIONAL, type ClientArgs } from '../clientConnect.js';
import { runClientCommand } from '../clientSession.js';
import { defineCommand } from '../command.js';
import { formatContentBlocks } from '../contentFormat.js';
import { parseToolArguments } from '../jsonArguments.js';

/** The human-readable rendering of a tool result. */
export function formatToolResult(result: CallToolResult): string {
  const lines = formatContentBlocks(result.content ?? []);
  if (result.structuredContent !== undefined) lines.push(JSON.stringify(result.structuredContent, null, 2));
  return lines.length > 0 ? lines.join('\n') + '\n' : '';
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
prints the result.`,
  positionals: [SERVER_POSITIONAL, { name: '<tool>', description: 'the tool name' }, { name: '[json-args]', description: 'the arguments, a JSON object (default {})' }],
  options: { json: { type: 'boolean', description: 'print the raw result (JSON)' }, ...CLIENT_OPTIONS },
  notes: `${CLIENT_NOTES}

Exit status: 0 on success, 1 when the tool reports an error (isError) or the call fails.`,
  run: (parsed) =>
    runClientCommand(parsed, check, async ({ client, args, onProgress }, { tool, toolArgs }) => {
      // Listing first lets the client mirror x-mcp-header parameters and check the output schema.
      await client.listTools().catch(() => undefined);
      const result = await client.callTool(tool, toolArgs, onProgress === undefined ? {} : { onProgress });
      process.stdout.write(args.options['json'] === true ? `${JSON.stringify(result, null, 2)}\n` : formatToolResult(result));
      if (result.isError === true) {
        process.stderr.write(`switchboard call: tool ${JSON.stringify(tool)} reported an error\n`);
        return 1;
      }
      return 0;
    }),
});
