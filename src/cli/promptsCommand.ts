/**
 * `switchboard prompts <server>` lists a server's prompts with their arguments
 * (`name(topic, style?)`); `switchboard prompt <server> <name> [json-args]` gets one prompt
 * and prints its messages (`[user] ...`), or with `--json` the raw result.
 *
 * @see https://modelcontextprotocol.io/specification/2025-11-25/server/prompts
 * @module
 */
import type { GetPromptResult, Prompt } from '../protocol/model/prompts.js';
import { UsageError } from './args.js';
import { parseToolArguments } from './callCommand.js';
import { CLIENT_OPTIONS_HELP, noMorePositionals, type ClientArgs } from './clientConnect.js';
import { runClientCommand } from './clientSession.js';
import { formatContentBlocks } from './contentFormat.js';
import { alignedRows } from './listFormat.js';

/** Help text of `switchboard prompts`. */
export const promptsHelp = `Usage: switchboard prompts [options] <server>
       switchboard prompts [options] -- <command> [args...]

Connects to an MCP server and lists its prompts: name(arguments), title and a one-line
description. An argument marked ? is optional.

  --json              print the raw prompt list (JSON) instead
${CLIENT_OPTIONS_HELP}
Exit status: 0 on success, 1 when the server cannot be reached or answers with an error.
`;

/** Help text of `switchboard prompt`. */
export const promptHelp = `Usage: switchboard prompt [options] <server> <name> [json-args]
       switchboard prompt [options] <name> [json-args] -- <command> [args...]

Connects to an MCP server, gets the prompt <name> with the arguments [json-args] (a JSON
object of strings; numbers and booleans are sent as strings) and prints its messages.

  --json              print the raw result (JSON)
${CLIENT_OPTIONS_HELP}
Exit status: 0 on success, 1 when the server answers with an error.
`;

/** `name(a, b?)  title — description` for each prompt, aligned. */
export function formatPromptList(prompts: readonly Prompt[]): string[] {
  return alignedRows(
    prompts.map((p) => {
      const args = (p.arguments ?? []).map((a) => `${a.name}${a.required === true ? '' : '?'}`).join(', ');
      const first = (p.description ?? '').trim().split('\n')[0]?.trim() ?? '';
      const title = p.title !== undefined && p.title !== p.name ? p.title : '';
      return [`${p.name}(${args})`, [title, first].filter((x) => x !== '').join(' — ')];
    }),
  );
}

/** The messages of a prompt result, each under its role. */
export function formatPromptResult(result: GetPromptResult): string {
  const lines: string[] = [];
  if (result.description !== undefined) lines.push(`# ${result.description}`);
  for (const message of result.messages) lines.push(`[${message.role}]`, ...formatContentBlocks([message.content]));
  return lines.length > 0 ? `${lines.join('\n')}\n` : '';
}

/** Prompt arguments from `[json-args]`: an object of strings (numbers and booleans converted). */
export function parsePromptArguments(text: string | undefined): Record<string, string> {
  const out: Record<string, string> = {};
  for (const [key, value] of Object.entries(parseToolArguments(text))) {
    if (typeof value === 'string') out[key] = value;
    else if (typeof value === 'number' || typeof value === 'boolean') out[key] = String(value);
    else throw new UsageError(`prompt argument ${JSON.stringify(key)} must be a string`);
  }
  return out;
}

/** Runs `switchboard prompts`; resolves with the exit code. */
export function promptsCommand(argv: readonly string[]): Promise<number> {
  return runClientCommand(argv, { json: 'boolean' }, noMorePositionals, async ({ client, args }) => {
    const prompts = client.serverCapabilities?.['prompts'] !== undefined ? await client.listPrompts() : [];
    if (args.options['json'] === true) process.stdout.write(`${JSON.stringify(prompts, null, 2)}\n`);
    else process.stdout.write(prompts.length === 0 ? '(no prompts)\n' : formatPromptList(prompts).join('\n') + '\n');
    return 0;
  });
}

/** Runs `switchboard prompt`; resolves with the exit code. */
export function promptCommand(argv: readonly string[]): Promise<number> {
  const check = (args: ClientArgs): { name: string; promptArgs: Record<string, string> } => {
    const [name, json, extra] = args.rest;
    if (name === undefined) throw new UsageError('missing <name>');
    if (extra !== undefined) throw new UsageError(`unexpected argument ${JSON.stringify(extra)}`);
    return { name, promptArgs: parsePromptArguments(json) };
  };
  return runClientCommand(argv, { json: 'boolean' }, check, async ({ client, args, onProgress }, { name, promptArgs }) => {
    const result = await client.getPrompt(name, promptArgs, onProgress === undefined ? {} : { onProgress });
    process.stdout.write(args.options['json'] === true ? `${JSON.stringify(result, null, 2)}\n` : formatPromptResult(result));
    return 0;
  });
}
