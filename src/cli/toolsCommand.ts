/**
 * `switchboard tools <server>`: connects to an MCP server (Streamable HTTP URL or stdio
 * command) and lists its tools, one line each (name, title, first line of the description),
 * or with `--json` the raw tool list.
 *
 * @module
 */
import type { Tool } from '../protocol/model/tool.js';
import { UsageError } from './args.js';
import { CLIENT_OPTIONS_HELP, commandLogger, connectClient, parseClientArgs } from './clientConnect.js';

/** Help text of the command. */
export const toolsHelp = `Usage: switchboard tools [options] <server>
       switchboard tools [options] -- <command> [args...]

Connects to an MCP server and lists its tools: name, title and a one-line description.

  --json              print the raw tool list (JSON) instead
${CLIENT_OPTIONS_HELP}
Exit status: 0 on success, 1 when the server cannot be reached or answers with an error.
`;

const MAX_DESCRIPTION = 100;

/** One line for `tool`: `name  title — description`. */
export function formatToolLine(tool: Tool, width: number): string {
  const title = tool.title ?? (tool.annotations as { title?: string } | undefined)?.title;
  let line = tool.name.padEnd(width);
  if (title !== undefined && title !== tool.name) line += `  ${title}`;
  const first = (tool.description ?? '').trim().split('\n')[0]?.trim() ?? '';
  if (first !== '') line += ` — ${first.length > MAX_DESCRIPTION ? `${first.slice(0, MAX_DESCRIPTION - 1)}…` : first}`;
  return line.trimEnd();
}

/** Runs the command; resolves with the exit code. */
export async function toolsCommand(argv: readonly string[]): Promise<number> {
  const args = parseClientArgs(argv, { json: 'boolean' });
  if (args.rest.length > 0) throw new UsageError(`unexpected argument ${JSON.stringify(args.rest[0])}`);
  const logger = commandLogger(args.options);
  const client = await connectClient(args, logger);
  try {
    const tools = await client.listTools();
    if (args.options['json'] === true) {
      process.stdout.write(`${JSON.stringify(tools, null, 2)}\n`);
    } else if (tools.length === 0) {
      process.stdout.write('(no tools)\n');
    } else {
      const width = Math.min(40, Math.max(...tools.map((t) => t.name.length)));
      process.stdout.write(tools.map((t) => formatToolLine(t, width)).join('\n') + '\n');
    }
    return 0;
  } finally {
    await client.close().catch(() => undefined);
  }
}
