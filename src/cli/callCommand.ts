/**
 * `switchboard call <server> <tool> [json-args]`: connects to an MCP server, calls one tool
 * and prints the result: text content as is, other content as a one-line summary, and
 * `structuredContent` as JSON (or, with `--json`, the whole raw result). Exits 1 when the
 * tool reports `isError` or the call fails (protocol error, unreachable server). The
 * server's progress and log messages go to stderr while the call runs (not with `--quiet`).
 *
 * @module
 */
import type { CallToolResult } from '../protocol/model/tools.js';
import { UsageError } from './args.js';
import { CLIENT_OPTIONS_HELP, type ClientArgs } from './clientConnect.js';
import { runClientCommand } from './clientSession.js';
import { formatContentBlocks } from './contentFormat.js';

/** Help text of the command. */
export const callHelp = `Usage: switchboard call [options] <server> <tool> [json-args]
       switchboard call [options] <tool> [json-args] -- <command> [args...]

Connects to an MCP server, calls <tool> with the JSON object [json-args] (default {}) and
prints the result.

  --json              print the raw result (JSON)
${CLIENT_OPTIONS_HELP}
Exit status: 0 on success, 1 when the tool reports an error (isError) or the call fails.
`;

/** Parses the tool arguments: a JSON object. */
export function parseToolArguments(text: string | undefined): Record<string, unknown> {
  if (text === undefined) return {};
  let value: unknown;
  try {
    value = JSON.parse(text);
  } catch (error) {
    throw new UsageError(`[json-args] is not valid JSON: ${error instanceof Error ? error.message : String(error)}`);
  }
  if (typeof value !== 'object' || value === null || Array.isArray(value)) throw new UsageError('[json-args] must be a JSON object');
  return value as Record<string, unknown>;
}

/** The human-readable rendering of a tool result. */
export function formatToolResult(result: CallToolResult): string {
  const lines = formatContentBlocks(result.content ?? []);
  if (result.structuredContent !== undefined) lines.push(JSON.stringify(result.structuredContent, null, 2));
  return lines.length > 0 ? lines.join('\n') + '\n' : '';
}

/** Runs the command; resolves with the exit code. */
export function callCommand(argv: readonly string[]): Promise<number> {
  const check = (args: ClientArgs): { tool: string; toolArgs: Record<string, unknown> } => {
    const [tool, json, extra] = args.rest;
    if (tool === undefined) throw new UsageError('missing <tool>');
    if (extra !== undefined) throw new UsageError(`unexpected argument ${JSON.stringify(extra)}`);
    return { tool, toolArgs: parseToolArguments(json) };
  };
  return runClientCommand(argv, { json: 'boolean' }, check, async ({ client, args, onProgress }, { tool, toolArgs }) => {
    // Listing first lets the client mirror x-mcp-header parameters and check the output schema.
    await client.listTools().catch(() => undefined);
    const result = await client.callTool(tool, toolArgs, onProgress === undefined ? {} : { onProgress });
    process.stdout.write(args.options['json'] === true ? `${JSON.stringify(result, null, 2)}\n` : formatToolResult(result));
    if (result.isError === true) {
      process.stderr.write(`switchboard call: tool ${JSON.stringify(tool)} reported an error\n`);
      return 1;
    }
    return 0;
  });
}
