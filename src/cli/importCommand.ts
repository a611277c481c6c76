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
import { mergeServers, renderSwitchboardConfig, type SourcedServer } from '../host/clientConfigs/merge.js';
import { parseArgs, UsageError } from './args.js';
import { CLIENT_NAMES, clientLocations, clientName, homeOf, processContext, type ClientLocation } from './clientLocations.js';
import { readIfExists, writeAtomic } from './clientFiles.js';

/** Help text of the command. */
export const importHelp = `Usage: switchboard import [--client NAME] [--project DIR] [--out FILE [--force]]

Reads the MCP servers of every client config found (user settings; with --project also that
project's files) and prints one Switchboard config (switchboard.json) holding them all.
The same id in two places is kept once when identical, suffixed (-2, -3) when different;
each such decision is noted on stderr. Nothing is changed on disk unless --out is given.

  --client NAME   only this client: ${CLIENT_NAMES.join(', ')}
  --project DIR   also read the project's configs (.mcp.json, .cursor/mcp.json, .vscode/mcp.json, ...)
  --out FILE      write the config to FILE instead of printing it (refuses to replace a file without --force)
  --force         with --out: replace FILE if it exists
`;

/** A short label of where a server came from: `cursor`, `claude-code project`. */
export function sourceLabel(location: ClientLocation): string {
  return location.scope === 'user' ? location.client : `${location.client} ${location.scope}`;
}

/** Reads every existing config among `locations`; a malformed one throws (naming file and position). */
export function readLocations(locations: readonly ClientLocation[], home: string, projectDir: string | undefined, log: (line: string) => void): SourcedServer[] {
  const found: SourcedServer[] = [];
  for (const location of locations) {
    const text = readIfExists(location.file);
    if (text === undefined) continue;
    const parsed = location.format.parse(text, location.file, { home, ...(location.scope === 'user' || projectDir === undefined ? {} : { projectDir }) });
    log(`read ${location.file} (${sourceLabel(location)}): ${parsed.servers.length} server${parsed.servers.length === 1 ? '' : 's'}`);
    for (const skipped of parsed.skipped) log(`  ${skipped}`);
    for (const server of parsed.servers) found.push({ source: sourceLabel(location), server });
  }
  return found;
}

/** Runs the command; resolves with the exit code. */
export function importCommand(argv: readonly string[]): Promise<number> {
  const { options, positionals } = parseArgs(argv, { client: 'string', project: 'string', out: 'string', force: 'boolean' });
  if (positionals.length > 0) throw new UsageError(`unexpected argument ${JSON.stringify(positionals[0])}`);
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
