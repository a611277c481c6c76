/**
 * `switchboard wrap <client>`: backs the client's config up, merges its servers into
 * switchboard.json and leaves the client one server, `switchboard`, which starts the gateway
 * over stdio. Idempotent; `switchboard unwrap` undoes it.
 *
 * Secrets stay in the client's file: every literal env and header value becomes `${env:NAME}`
 * in switchboard.json (written mode 0600) and the value goes to the gateway entry's `env`
 * (`moveSecretsToEnv`). Then each stdio server's launch is approved the way the gateway's own
 * launch consent does it (`admitLaunches`, recorded in the config's state folder): asked in a
 * terminal, approved by `--yes`, otherwise left for the console or a later `wrap --yes`, and
 * the command says which and what to do next.
 *
 * @module
 */
import { mkdirSync } from 'node:fs';
import { resolve } from 'node:path';
import { addServersToConfig, configServers, isGatewayEntry, mergeServers } from '../../host/clientConfigs/merge.js';
import { moveSecretsToEnv } from '../../host/clientConfigs/secretRefs.js';
import type { ClientServers } from '../../host/clientConfigs/types.js';
import { parseConfig } from '../../host/config.js';
import type { HostConfig } from '../../host/configTypes.js';
import { admitLaunches, launchSpecOf, LaunchNotApprovedError } from '../../host/launchConsent.js';
import { openStateStores } from '../../store/jsonFileStore.js';
import { CLIENT_NAMES, type ClientName } from '../clientLocations.js';
import { backupFile, gatewayLaunch, readIfExists, sourceLabel, wrapTarget, writeAtomic } from '../clientFiles.js';
import { defineCommand, type ParsedCommand } from '../command.js';
import { approvalKey } from '../approvalKey.js';
import { configParseOptions } from '../hostSetup.js';
import { askYesNo, printLaunchFindings } from '../consentTerminal.js';

const out = (line: string): void => void process.stdout.write(`${line}\n`);
const err = (line: string): void => void process.stderr.write(`${line}\n`);

/** How each client is called in the next-step line. */
const CLIENT_TITLES: Readonly<Record<ClientName, string>> = {
  'claude-desktop': 'Claude Desktop',
  'claude-code': 'Claude Code',
  cursor: 'Cursor',
  vscode: 'VS Code',
  windsurf: 'Windsurf',
  gemini: 'Gemini CLI',
  codex: 'Codex',
  zed: 'Zed',
};

/** `switchboard wrap`. */
export const command = defineCommand({
  name: 'wrap',
  summary: 'point an MCP client at the Switchboard gateway (backup, merge, approve launches, rewrite)',
  usage: ['<client> [--config FILE] [--project DIR] [--yes]'],
  description: `Points an MCP client at the Switchboard gateway:
  1. copies the client's config to <file>.switchboard-backup-<timestamp> (mode 0600),
  2. merges the client's servers into the Switchboard config (created if missing, mode 0600);
     env and header values (tokens) are not copied: switchboard.json refers to them as
     \${env:NAME} and the values stay in the client's file, in the gateway entry's env,
  3. replaces the client's server list with one entry, "switchboard", that runs
     "switchboard gateway --stdio --config <config>",
  4. approves each local server's launch: shown and asked in a terminal, approved with --yes
     (recorded in the config's state folder, as the gateway's own --yes does).
Comments and everything else in the client's file are kept. Wrapping a wrapped client changes
nothing but step 4. Undo with switchboard unwrap <client>.`,
  positionals: [{ name: '<client>', description: CLIENT_NAMES.join(', ') }],
  options: {
    config: { type: 'string', value: 'FILE', description: 'the Switchboard config to merge into', default: './switchboard.json' },
    project: { type: 'string', value: 'DIR', description: "wrap the project's config (.mcp.json, .cursor/mcp.json, .vscode/mcp.json, ...) instead of the user's" },
    yes: { type: 'boolean', description: "approve every local server's launch without asking, and record it (as gateway --yes does; not one flagged as a look-alike package)" },
  },
  notes: `A launch left unapproved does not start: the client then sees one tool,
switchboard_setup_required, that says how to approve it (switchboard wrap <client> --yes, or the
console's Review page while the client runs).`,
  run: wrap,
});

/** The `--config` of an already wrapped client's gateway entry. */
function wrappedConfig(parsed: ClientServers): { file: string; env: Readonly<Record<string, string>> } | undefined {
  const entry = parsed.servers.find(isGatewayEntry)?.entry;
  if (entry === undefined || !('command' in entry)) return undefined;
  const args = entry.args ?? [];
  const at = args.indexOf('--config');
  const file = at >= 0 ? args[at + 1] : undefined;
  return file === undefined ? undefined : { file, env: entry.env ?? {} };
}

/** Runs `wrap`; resolves with the exit code. */
async function wrap(args: ParsedCommand): Promise<number> {
  const { location, text, home, project } = wrapTarget(args);
  const { file, format } = location;
  const yes = args.options['yes'] === true;
  const undo = `switchboard unwrap ${location.client}${project === undefined ? '' : ` --project ${project}`}`;
  const parsed = format.parse(text, file, { home, ...(project === undefined ? {} : { projectDir: project }) });
  const optionConfig = resolve(typeof args.options['config'] === 'string' ? args.options['config'] : 'switchboard.json');
  if (parsed.wrapped) {
    out(`${file} is already wrapped (its servers include "switchboard"); nothing changed`);
    const current = wrappedConfig(parsed);
    return approveLaunches(current?.file ?? optionConfig, current?.env ?? {}, yes, location.client);
  }
  const configFile = optionConfig;
  const configText = readIfExists(configFile);
  // Everything is computed (and checked) before anything is written.
  const moved = moveSecretsToEnv(parsed.servers.map((server) => ({ source: sourceLabel(location), server })));
  const { added, notes } = mergeServers(configText === undefined ? {} : configServers(configText, configFile), moved.servers);
  const newConfig = addServersToConfig(configText, configFile, added);
  const wrapped = format.wrap(text, file, { ...gatewayLaunch(configFile), env: moved.env });
  const backup = backupFile(file);
  out(`backed up ${file} to ${backup}`);
  for (const skipped of parsed.skipped) err(`note: ${skipped} (wrap takes it out of the client's list too; unwrap puts it back)`);
  for (const note of [...moved.notes, ...notes]) err(`note: ${note}`);
  writeAtomic(configFile, newConfig, 0o600);
  const count = Object.keys(added).length;
  out(`${configText === undefined ? 'created' : 'updated'} ${configFile}: ${count} server${count === 1 ? '' : 's'} added`);
  const secrets = Object.keys(moved.env).length;
  if (secrets > 0) out(`${secrets} secret${secrets === 1 ? '' : 's'} stayed in ${file} (the gateway entry's env); ${configFile} refers to ${secrets === 1 ? 'it' : 'them'} as \${env:NAME}`);
  writeAtomic(file, wrapped.text);
  out(`${file} now starts the Switchboard gateway (undo: ${undo})`);
  return approveLaunches(configFile, moved.env, yes, location.client);
}

/**
 * Approves the stdio launches of `configFile` as the gateway would (asked in a terminal,
 * `--yes`), records them in its state folder and prints the next step. The config is read
 * with `env` (the gateway entry's variables) over this process's environment; a variable set
 * in neither reads as empty here, which changes no launch (approvals name variables, not values).
 */
async function approveLaunches(configFile: string, env: Readonly<Record<string, string>>, yes: boolean, client: ClientName): Promise<number> {
  const text = readIfExists(configFile);
  if (text === undefined) {
    err(`switchboard wrap: ${configFile} does not exist; wrap the client again with --config naming its Switchboard config`);
    return 1;
  }
  const lookup = (name: string): string | undefined => (Object.hasOwn(env, name) ? env[name] : process.env[name]);
  let config: HostConfig;
  try {
    // The env of the gateway entry, and the state folder the gateway will use (the per-user default unless the config names one).
    config = parseConfig(text, { ...configParseOptions(configFile), env: new Proxy({}, { get: (_target, name) => (typeof name === 'string' ? (lookup(name) ?? '') : undefined) }) });
  } catch (error) {
    err(`switchboard wrap: the gateway cannot read ${configFile}, so ${CLIENT_TITLES[client]} would get no servers: ${error instanceof Error ? error.message : String(error)}`);
    err(`  fix it, then approve the launches: switchboard wrap ${client} --yes`);
    return 1;
  }
  mkdirSync(config.stateDir, { recursive: true, mode: 0o700 });
  const interactive = process.stdin.isTTY === true && process.stderr.isTTY === true;
  const approved: string[] = [];
  const waiting: string[] = [];
  const flagged: string[] = [];
  await admitLaunches(config, {
    store: openStateStores(config.stateDir).launches,
    // Keyed like the gateway's approvals (approvalKey.ts), so the wrapped gateway finds them.
    key: await approvalKey(config.stateDir),
    yes,
    ...(interactive ? { prompt: (question: string) => askYesNo(question) } : {}),
    admitted: (server) => void (launchSpecOf(server) !== undefined && approved.push(server.id)),
    refused: (server, error) => {
      waiting.push(server.id);
      // A flagged launch: --yes did not approve it, and the person is told why.
      if (error instanceof LaunchNotApprovedError && error.findings.length > 0) printLaunchFindings(server, error.findings);
      if (error instanceof LaunchNotApprovedError && error.findings.some((f) => f.severity === 'flag')) flagged.push(server.id);
    },
    warned: printLaunchFindings,
  });
  const title = CLIENT_TITLES[client];
  if (approved.length > 0) out(`approved launches: ${approved.join(', ')} (recorded in ${config.stateDir})`);
  if (waiting.length > 0) {
    out(`NOT approved yet: ${waiting.join(', ')}. Until they are, these servers do not start and ${title} sees one tool, switchboard_setup_required, saying so.`);
    out(`  approve them: switchboard wrap ${client} --yes${interactive ? ' (or answer y above)' : ''}, or on the console's Review page while ${title} runs (switchboard console --config ${configFile})`);
    if (flagged.length > 0) out(`  flagged (see the warnings above), so --yes does not approve them: ${flagged.join(', ')}; answer the prompt of switchboard scan ${configFile} in a terminal, or approve them on the console's Review page`);
  }
  out(`Next: restart ${title} (quit it completely and open it again); its servers then run through Switchboard. Watch and approve calls: switchboard console --config ${configFile}`);
  return 0;
}
