/**
 * `switchboard tools <server>`: connects to an MCP server (Streamable HTTP URL or stdio
 * command) and lists its tools, one line each: the name with a compact signature of its
 * arguments (`add(a: number, b?: number)`), the title and the first line of the
 * description; or with `--json` the raw tool list.
 *
 * @module
 */
import type { Tool } from '../../protocol/model/tool.js';
import { CLIENT_NOTES, CLIENT_OPTIONS, noMorePositionals, SERVER_POSITIONAL } from '../clientConnect.js';
import { runClientCommand } from '../clientSession.js';
import { defineCommand } from '../command.js';
import { alignedRows } from '../listFormat.js';

const MAX_SIGNATURE = 72;

/** A compact type for one JSON Schema: `string`, `number[]`, `"a" | "b"`, `object`. */
export function schemaType(schema: unknown, depth = 0): string {
  if (typeof schema !== 'object' || schema === null) return 'any';
  const s = schema as Record<string, unknown>;
  if (Array.isArray(s['enum'])) return s['enum'].map((v) => JSON.stringify(v)).join(' | ');
  if (s['const'] !== undefined) return JSON.stringify(s['const']);
  const variants = Array.isArray(s['anyOf']) ? s['anyOf'] : Array.isArray(s['oneOf']) ? s['oneOf'] : undefined;
  if (variants !== undefined && depth < 2) return variants.map((v) => schemaType(v, depth + 1)).join(' | ');
  const type = s['type'];
  if (Array.isArray(type)) return type.map((t) => schemaType({ ...s, type: t }, depth + 1)).join(' | ');
  if (type === 'array') {
    const item = schemaType(s['items'], depth + 1);
    return item.includes(' ') ? `(${item})[]` : `${item}[]`;
  }
  if (type === 'integer') return 'integer';
  return typeof type === 'string' ? type : 'any';
}

/** The argument list of `tool`: `(a: number, b?: string)`, shortened with `…` past a limit. */
export function toolSignature(tool: Tool): string {
  const schema = tool.inputSchema as { properties?: Record<string, unknown>; required?: string[] };
  const required = new Set(schema.required ?? []);
  const parts = Object.entries(schema.properties ?? {}).map(([name, prop]) => `${name}${required.has(name) ? '' : '?'}: ${schemaType(prop)}`);
  const signature = `(${parts.join(', ')})`;
  return signature.length > MAX_SIGNATURE ? `${signature.slice(0, MAX_SIGNATURE - 2)}…)` : signature;
}

/** The description column of `tool`: `title — first line of the description`. */
function describeTool(tool: Tool): string {
  const title = tool.title ?? (tool.annotations as { title?: string } | undefined)?.title;
  const first = (tool.description ?? '').trim().split('\n')[0]?.trim() ?? '';
  return [title !== undefined && title !== tool.name ? title : '', first].filter((p) => p !== '').join(' — ');
}

/** The lines of the listing: `name(signature)  title — description`, aligned in columns. */
export function formatToolList(tools: readonly Tool[]): string[] {
  return alignedRows(tools.map((t) => [`${t.name}${toolSignature(t)}`, describeTool(t)]));
}

/** `switchboard tools`. */
export const command = defineCommand({
  name: 'tools',
  summary: 'list the tools of an MCP server (URL or stdio command), with their arguments',
  usage: ['[options] <server>', '[options] -- <command> [args...]'],
  description: `Connects to an MCP server and lists its tools: name(arguments), title and a one-line
description. An argument marked ? is optional.`,
  positionals: [SERVER_POSITIONAL],
  options: { json: { type: 'boolean', description: 'print the raw tool list (JSON) instead' }, ...CLIENT_OPTIONS },
  notes: `${CLIENT_NOTES}

Exit status: 0 on success, 1 when the server cannot be reached or answers with an error.`,
  run: (parsed) =>
    runClientCommand(parsed, noMorePositionals, async ({ client, args }) => {
      const tools = await client.listTools();
      if (args.options['json'] === true) process.stdout.write(`${JSON.stringify(tools, null, 2)}\n`);
      else if (tools.length === 0) process.stdout.write('(no tools)\n');
      else process.stdout.write(formatToolList(tools).join('\n') + '\n');
      return 0;
    }),
});
