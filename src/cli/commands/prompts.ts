/**
 * `switchboard prompts <server>` lists a server's prompts with their arguments
 * (`name(topic, style?)`), or with `--json` the raw list.
 *
 * @see https://modelcontextprotocol.io/specification/2025-11-25/server/prompts
 * @module
 */
import type { Prompt } from '../../protocol/model/prompts.js';
import { CLIENT_NOTES, CLIENT_OPTIONS, noMorePositionals, SERVER_POSITIONAL } from '../clientConnect.js';
import { runClientCommand } from '../clientSession.js';
import { defineCommand } from '../command.js';
import { alignedRows } from '../listFormat.js';

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

/** `switchboard prompts`. */
export const command = defineCommand({
  name: 'prompts',
  summary: 'list the prompts of an MCP server, with their arguments',
  usage: ['[options] <server>', '[options] -- <command> [args...]'],
  description: `Connects to an MCP server and lists its prompts: name(arguments), title and a one-line
description. An argument marked ? is optional.`,
  positionals: [SERVER_POSITIONAL],
  options: { json: { type: 'boolean', description: 'print the raw prompt list (JSON) instead' }, ...CLIENT_OPTIONS },
  notes: `${CLIENT_NOTES}

Exit status: 0 on success, 1 when the server cannot be reached or answers with an error.`,
  run: (parsed) =>
    runClientCommand(parsed, noMorePositionals, async ({ client, args }) => {
      const prompts = client.serverCapabilities?.['prompts'] !== undefined ? await client.listPrompts() : [];
      if (args.options['json'] === true) process.stdout.write(`${JSON.stringify(prompts, null, 2)}\n`);
      else process.stdout.write(prompts.length === 0 ? '(no prompts)\n' : formatPromptList(prompts).join('\n') + '\n');
      return 0;
    }),
});
