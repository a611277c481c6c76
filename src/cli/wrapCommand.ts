/**
 * `switchboard wrap <client>` and `switchboard unwrap <client>`. Wrap backs the client's config
 * up, merges its servers into switchboard.json and leaves the client one server, `switchboard`,
 * which starts the gateway over stdio. Unwrap puts the client's own servers back from the
 * backup, keeping whatever else changed in the file since. Both are idempotent.
 *
 * @module
 */
import { resolve } from 'node:path';
import { addServersToConfig, configServers, mergeServers } from '../host/clientConfigs/merge.js';
import { parseArgs, UsageError, type ParsedArgs } from './args.js';
import { CLIENT_NAMES, clientName, homeOf, processContext, wrapLocation, type ClientLocation } from './clientLocations.js';
import { backupFile, gatewayLaunch, latestBackup, readIfExists, writeAtomic } from './clientFiles.js';
import { sourceLabel } from './importCommand.js';

/** Help text of `wrap`. */
export const wrapHelp = `Usage: switchboard wrap <client> [--config FILE] [--project DIR]

Points an MCP client at the Switchboard gateway:
  1. copies the client's config to <file>.switchboard-backup-<timestamp>,
  2. merges the client's servers into the Switchboard config (created if missing),
  3. replaces the client's server list with one entry, "switchboard", that runs
     "switchboard gateway --stdio --config <config>".
Comments and everything else in the client's file are kept. Wrapping a wrapped client changes
nothing. Undo with switchboard unwrap <client>.

  <client>        ${CLIENT_NAMES.join(', ')}
  --config FILE   the Switchboard config to merge into (default: ./switchboard.json)
  --project DIR   wrap the project's config (.mcp.json, .cursor/mcp.json, .vscode/mcp.json, ...)
                  instead of the user's
`;

/** Help text of `unwrap`. */
export const unwrapHelp = `Usage: switchboard unwrap <client> [--project DIR]

Gives an MCP client its own servers back: the server list of the latest
<file>.switchboard-backup-* replaces the "switchboard" entry; every other change made to the file
since wrap is kept. Unwrapping a client that is not wrapped changes nothing. The Switchboard config
is left as it is.

  <client>        ${CLIENT_NAMES.join(', ')}
  --project DIR   unwrap the project's config instead of the user's
`;

function target(args: ParsedArgs): { location: ClientLocation; text: string; home: string; project: string | undefined } {
  if (args.positionals.length > 1) throw new UsageError(`unexpected argument ${JSON.stringify(args.positionals[1])}`);
  const client = clientName(args.positionals[0]);
  const context = processContext();
  const project = typeof args.options['project'] === 'string' ? resolve(args.options['project']) : undefined;
  const location = wrapLocation(client, context, project);
  const text = readIfExists(location.file);
  if (text === undefined) throw new Error(`no ${client} config at ${location.file}`);
  return { location, text, home: homeOf(context), project };
}

const out = (line: string): void => void process.stdout.write(`${line}\n`);
const err = (line: string): void => void process.stderr.write(`${line}\n`);

/** Runs `wrap`; resolves with the exit code. */
export function wrapCommand(argv: readonly string[]): Promise<number> {
  const args = parseArgs(argv, { config: 'string', project: 'string' });
  const { location, text, home, project } = target(args);
  const { file, format } = location;
  const parsed = format.parse(text, file, { home, ...(project === undefined ? {} : { projectDir: project }) });
  if (parsed.wrapped) {
    out(`${file} is already wrapped (its servers include "switchboard"); nothing changed`);
    return Promise.resolve(0);
  }
  const configFile = resolve(typeof args.options['config'] === 'string' ? args.options['config'] : 'switchboard.json');
  const configText = readIfExists(configFile);
  // Everything is computed (and checked) before anything is written.
  const { added, notes } = mergeServers(configText === undefined ? {} : configServers(configText, configFile), parsed.servers.map((server) => ({ source: sourceLabel(location), server })));
  const newConfig = addServersToConfig(configText, configFile, added);
  const wrapped = format.wrap(text, file, gatewayLaunch(configFile));
  const backup = backupFile(file);
  out(`backed up ${file} to ${backup}`);
  for (const skipped of parsed.skipped) err(`note: ${skipped} (wrap takes it out of the client's list too; unwrap puts it back)`);
  for (const note of notes) err(`note: ${note}`);
  if (newConfig !== configText) writeAtomic(configFile, newConfig);
  out(`${configText === undefined ? 'created' : 'updated'} ${configFile}: ${Object.keys(added).length} server${Object.keys(added).length === 1 ? '' : 's'} added`);
  writeAtomic(file, wrapped.text);
  out(`${file} now starts the Switchboard gateway (undo: switchboard unwrap ${location.client}${project === undefined ? '' : ` --project ${project}`})`);
  return Promise.resolve(0);
}

/** Runs `unwrap`; resolves with the exit code. */
export function unwrapCommand(argv: readonly string[]): Promise<number> {
  const args = parseArgs(argv, { project: 'string' });
  const { location, text } = target(args);
  const { file, format } = location;
  if (!format.parse(text, file).wrapped) {
    out(`${file} is not wrapped (no "switchboard" server); nothing changed`);
    return Promise.resolve(0);
  }
  const backup = latestBackup(file);
  if (backup === undefined) throw new Error(`${file} is wrapped but no ${file}.switchboard-backup-* is left to restore from`);
  const result = format.unwrap(text, file, readIfExists(backup) ?? '');
  if (result.changed) writeAtomic(file, result.text);
  out(`restored the servers of ${file} from ${backup}`);
  return Promise.resolve(0);
}
