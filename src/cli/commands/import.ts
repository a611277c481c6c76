/**
 * `switchboard import`: finds the MCP client configs on this machine (Claude Desktop, Claude
 * Code, Cursor, VS Code, Windsurf, Gemini CLI, Codex, Zed) and prints one Switchboard config
 * holding all their servers. What the conversion had to decide (renamed or merged ids,
 * options with no equivalent, VS Code inputs to set) goes to stderr.
 *
 * @module
 */
import { existsSync } from 'node:fs';
import { resolve } from 'node:path';
import { mergeServers, renderSwitchboardConfig } from '../../host/clientConfigs/merge.js';
import { UsageError, type ParsedArgs } from '../args.js';
import { defineCommand, noPositionals } from '../command.js';
import { CLIENT_NAMES, clientLocations, clientName, homeOf, processContext } from '../clientLocations.js';
import { readLocations, writeAtomic } from '../clientFiles.js';

/** `switchboard import`. */
export const command = defineCommand({
  name: 'import',
  summary: 'print one Switchboard config with the servers of every MCP client found',
  usage: ['[--client NAME] [--project DIR] [--out FILE [--force]]'],
  description: `Reads the MCP servers of every client config found (user settings; with --project also that
project's files) and prints one Switchboard config (switchboard.json) holding them all.
The same id in two places is kept once when identical, suffixed (-2, -3) when different;
each such decision is noted on stderr. Nothing is changed on disk unless --out is given.`,
  options: {
    client: { type: 'string', value: 'NAME', description: `only this client: ${CLIENT_NAMES.join(', ')}` },
    project: { type: 'string', value: 'DIR', description: "also read the project's configs (.mcp.json, .cursor/mcp.json, .vscode/mcp.json, ...)" },
    out: { type: 'string', value: 'FILE', description: 'write the config to FILE instead of printing it (refuses to replace a file without --force)' },
    force: { type: 'boolean', description: 'with --out: replace FILE if it exists' },
  },
  run(parsed) {
    noPositionals(parsed);
    return importServers(parsed.options);
  },
});

/** Runs the command; resolves with the exit code. */
function importServers(options: ParsedArgs['options']): Promise<number> {
  const context = processContext();
  const project = typeof options['project'] === 'string' ? resolve(options['project']) : undefined;
  const clients = typeof options['client'] === 'string' ? [clientName(options['client'])] : CLIENT_NAMES;
  const log = (line: string): void => void process.stderr.write(`${line}\n`);
  const locations = clients.flatMap((c) => clientLocations(c, context, project));
  const found = readLocations(locations, homeOf(context), project, log);
  if (found.length === 0) log('no MCP servers found in any client config');
  const { added, notes } = mergeServers({}, found);
  for (const note of notes) log(`note: ${note}`);
  const text = renderSwitchboardConfig(added);
  const out = options['out'];
  if (typeof out === 'string') {
    const file = resolve(out);
    if (existsSync(file) && options['force'] !== true) throw new UsageError(`${file} exists; pass --force to replace it (or use switchboard wrap to merge into it)`);
    writeAtomic(file, text);
    log(`wrote ${Object.keys(added).length} server${Object.keys(added).length === 1 ? '' : 's'} to ${file}`);
  } else {
    process.stdout.write(text);
  }
  return Promise.resolve(0);
}
