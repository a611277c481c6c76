/**
 * `switchboard prompt <server> <name> [json-args]` gets one prompt and prints its messages
 * (`[user] ...`), or with `--json` the raw result.
 *
 * @see https://modelcontextprotocol.io/specification/2025-11-25/server/prompts
 * @module
 */
import type { GetPromptResult } from '../../protocol/model/prompts.js';
import { UsageError } from '../args.js';
import { CLIENT_NOTES, CLIENT_OPTIONS, SERVER_POSITIONAL, type ClientArgs } from '../clientConnect.js';
import { runClientCommand } from '../clientSession.js';
import { defineCommand } from '../command.js';
import { formatContentBlocks } from '../contentFormat.js';
import { parsePromptArguments } from '../jsonArguments.js';

/** The messages of a prompt result, each under its role. */
export function formatPromptResult(result: GetPromptResult): string {
  const lines: string[] = [];
  if (result.description !== undefined) lines.push(`# ${result.description}`);
  for (const message of result.messages) lines.push(`[${message.role}]`, ...formatContentBlocks([message.content]));
  return lines.length > 0 ? `${lines.join('\n')}\n` : '';
}

function check(args: ClientArgs): { name: string; promptArgs: Record<string, string> } {
  const [name, json, extra] = args.rest;
  if (name === undefined) throw new UsageError('missing <name>');
  if (extra !== undefined) throw new UsageError(`unexpected argument ${JSON.stringify(extra)}`);
  return { name, promptArgs: parsePromptArguments(json) };
}

/** `switchboard prompt`. */
export const command = defineCommand({
  name: 'prompt',
  summary: 'get one prompt of an MCP server and print its messages',
  usage: ['[options] <server> <name> [json-args]', '[options] <name> [json-args] -- <command> [args...]'],
  description: `Connects to an MCP server, gets the prompt <name> with the arguments [json-args] (a JSON
object of strings; numbers and booleans are sent as strings) and prints its messages.`,
  positionals: [SERVER_POSITIONAL, { name: '<name>', description: 'the prompt name' }, { name: '[json-args]', description: 'the arguments, a JSON object of strings (default {})' }],
  options: { json: { type: 'boolean', description: 'print the raw result (JSON)' }, ...CLIENT_OPTIONS },
  notes: `${CLIENT_NOTES}

Exit status: 0 on success, 1 when the server answers with an error.`,
  run: (parsed) =>
    runClientCommand(parsed, check, async ({ client, args, onProgress }, { name, promptArgs }) => {
      const result = await client.getPrompt(name, promptArgs, onProgress === undefined ? {} : { onProgress });
      process.stdout.write(args.options['json'] === true ? `${JSON.stringify(result, null, 2)}\n` : formatPromptResult(result));
      return 0;
    }),
});
