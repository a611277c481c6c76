/**
 * `switchboard wrap <client>`: backs the client's config up, merges its servers into
 * switchboard.json and leaves the client one server, `switchboard`, which starts the gateway
 * over stdio. Idempotent; `switchboard unwrap` undoes it.
 *
 * @module
 */
import { resolve } from 'node:path';
import { addServersToConfig, configServers, mergeServers } from '../../host/clientConfigs/merge.js';
import { CLIENT_NAMES } from '../clientLocations.js';
import { backupFile, gatewayLaunch, readIfExists, sourceLabel, wrapTarget, writeAtomic } from '../clientFiles.js';
import { defineCommand, type ParsedCommand } from '../command.js';

const out = (line: string): void => void process.stdout.write(`${line}\n`);
const err = (line: string): void => void process.stderr.write(`${line}\n`);

/** `switchboard wrap`. */
export const command = defineCommand({
  name: 'wrap',
  summary: 'point an MCP client at the Switchboard gateway (backup, merge, rewrite)',
  usage: ['<client> [--config FILE] [--project DIR]'],
  description: `Points an MCP client at the Switchboard gateway:
  1. copies the client's config to <file>.switchboard-backup-<timestamp>,
  2. merges the client's servers into the Switchboard config (created if missing),
  3. replaces the client's server list with one entry, "switchboard", that runs
     "switchboard gateway --stdio --config <config>".
Comments and everything else in the client's file are kept. Wrapping a wrapped client changes
nothing. Undo with switchboard unwrap <client>.`,
  positionals: [{ name: '<client>', description: CLIENT_NAMES.join(', ') }],
  options: {
    config: { type: 'string', value: 'FILE', description: 'the Switchboard config to merge into', default: './switchboard.json' },
    project: { type: 'string', value: 'DIR', description: "wrap the project's config (.mcp.json, .cursor/mcp.json, .vscode/mcp.json, ...) instead of the user's" },
  },
  run: wrap,
});

/** Runs `wrap`; resolves with the exit code. */
function wrap(args: ParsedCommand): Promise<number> {
  const { location, text, home, project } = wrapTarget(args);
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
