/**
 * `switchboard scan`: the offline poisoning and shadowing scanner on the command line.
 *
 * - `switchboard scan --tools FILE` scans a saved `tools/list` result (or a JSON-RPC response
 *   holding one, or an array of tool definitions) without running anything: for the CI of
 *   server authors.
 * - `switchboard scan [CONFIG] [--yes]` starts each configured server through the host (stdio
 *   launches need consent, as for the gateway), lists everything it exposes, pins it, scans it
 *   (every server judged against the others' tools) and stops them again. Without CONFIG it
 *   reads the MCP client configs found on this machine (as `switchboard import` does).
 *   Pins go to the same store the gateway uses (`<stateDir>/pins.db`; without CONFIG, that of
 *   `./switchboard.json`): a server never seen is pinned on first sight, and a definition that
 *   differs from its pin (changed or added since, and not yet approved) is reported with its
 *   classified diff (`pins/*` findings; `switchboard.pins: false` turns this off).
 *
 * Exit codes ({@link SCAN_EXIT}): 1 when a finding meets `--fail-on` (default: any blocking
 * finding) or a pinned definition changed (unless `--fail-on never`); else 3 when a configured
 * server could not be scanned (its launch is not approved, or it did not start): a scan that
 * saw nothing never passes; 0 otherwise; 2 on a usage error.
 *
 * @module
 */
import { readFile } from 'node:fs/promises';
import { resolve as resolvePath } from 'node:path';
import { defaultTransportFactory } from '../../adapters/hostTransports.js';
import { mergeServers, renderSwitchboardConfig } from '../../host/clientConfigs/merge.js';
import { parseConfig } from '../../host/config.js';
import type { HostConfig } from '../../host/configTypes.js';
import { Host } from '../../host/host.js';
import { admitLaunches, LaunchNotApprovedError, type LaunchApprovalStore } from '../../host/launchConsent.js';
import type { LaunchFinding } from '../../host/launchSupplyChain.js';
import { MemoryLaunchApprovalStore } from '../../host/memoryStores.js';
import { approvalKey } from '../approvalKey.js';
import { PinScan, type PinFinding } from '../../host/pins/pinScan.js';
import { scanServers, scanTools } from '../../host/scanner/scan.js';
import type { ScanReport, ServerSnapshot } from '../../host/scanner/types.js';
import { openStateStores } from '../../store/jsonFileStore.js';
import { createLineLogger } from '../../util/logger.js';
import { CliFailure, UsageError } from '../args.js';
import { CLIENT_NAMES, clientLocations, homeOf, processContext } from '../clientLocations.js';
import { readLocations } from '../clientFiles.js';
import { configParseOptions, openPins } from '../hostSetup.js';
import { fails, failOn, formatTrifectaReport, renderReport, scanFormat, type LaunchFindings, type ListedServers } from '../scanFormat.js';
import { defineCommand, type ParsedCommand } from '../command.js';
import { askYesNo, printLaunchFindings } from '../consentTerminal.js';
import { SWITCHBOARD_VERSION } from '../../util/version.js';

/** The exit codes of `switchboard scan`. */
export const SCAN_EXIT = { clean: 0, findings: 1, usage: 2, notScanned: 3 } as const;

/** `switchboard scan`. */
export const command = defineCommand({
  name: 'scan',
  summary: 'scan tool definitions for poisoning and shadowing (a saved tools/list, or every configured server)',
  usage: ['--tools FILE [--server NAME] [options]', '[CONFIG] [--yes] [options]'],
  description: `With CONFIG the report ends with the static lethal-trifecta report of its labels, configured and
inferred (with the evidence for each inferred one).

Scans tool, prompt, resource and template definitions and server instructions for
poisoning and shadowing (offline, deterministic): hidden Unicode, instruction tags,
override and jailbreak phrasing, concealment, coercion, credential files and exfiltration,
covert parameters, references to other servers' tools and impersonation, encoded payloads,
markup smuggling, preference manipulation, capability mismatch, embedded secrets.`,
  positionals: [{ name: 'CONFIG', description: 'a switchboard.json; without one, the MCP client configs on this machine' }],
  options: {
    tools: { type: 'string', value: 'FILE', description: 'scan a saved tools/list result (or an array of tool definitions); runs nothing' },
    server: { type: 'string', value: 'NAME', description: "with --tools: the server's name in the report", default: 'the file name' },
    yes: { type: 'boolean', description: "approve every stdio server's launch for this run, except one flagged as a look-alike package" },
    trifecta: {
      type: 'boolean',
      description: 'with CONFIG: print only the static trifecta report (each server\'s configured and inferred labels with their evidence, and which combinations of servers complete it); starts nothing, so labels are inferred from the launches (a full scan infers them per listed tool)',
    },
    format: { type: 'string', value: 'F', description: 'human, json or sarif', default: 'human' },
    'fail-on': {
      type: 'string',
      value: 'S',
      description: 'exit 1 on a finding of severity S or worse (low, medium, high, critical), on any blocking finding (block), or never',
      default: 'block',
    },
    'log-level': { type: 'string', value: 'L', description: 'debug | info | warn | error (logs go to stderr)', default: 'error' },
  },
  notes: `Exit codes: 0 everything was scanned and nothing meets --fail-on; 1 a finding meets
--fail-on, or a pinned definition changed; 2 a usage error; 3 a server could not be scanned
(its launch is not approved: run again with --yes, or it did not start), even with --fail-on never.

Each launch's packages are checked first (npx, pnpm dlx, bunx, uvx, docker run, ...): a package
one edit or a look-alike away from a well-known MCP server package is flagged, and --yes does not
approve it (answer the prompt in a terminal, or use the console's Review page); an unpinned one
(no exact version, an image without digest) is warned on stderr with the fix. --format json lists
these findings per server under "launches", --format sarif as supply-chain/<kind> results
(typosquat, confusable, unpinned) located at the config file; --fail-on counts a flag as high and
an unpinned warning as low (neither is a blocking finding).

With CONFIG (or the discovered configs), every server is also pinned in the gateway's pin
store (<stateDir>/pins.db): first sight pins it; a definition that changed since (or a tool,
prompt or template added since) is reported with its classified diff and exits 1 until a
person runs \`switchboard pins approve\` or \`reject\` on it. --fail-on never exits 0 anyway.`,
  run: runScan,
});

/** The definitions in a saved file: an array, `{ tools }`, or a JSON-RPC response `{ result: { tools } }`. */
export function toolsOfFile(text: string, file: string): unknown[] {
  let value: unknown;
  try {
    value = JSON.parse(text);
  } catch (error) {
    throw new CliFailure(`${file} is not JSON: ${error instanceof Error ? error.message : String(error)}`);
  }
  const record = (v: unknown): Record<string, unknown> | undefined => (typeof v === 'object' && v !== null && !Array.isArray(v) ? (v as Record<string, unknown>) : undefined);
  if (Array.isArray(value)) return value;
  const tools = record(value)?.['tools'] ?? record(record(value)?.['result'])?.['tools'];
  if (Array.isArray(tools)) return tools;
  throw new CliFailure(`${file} holds no tool definitions: expected an array, { "tools": [...] } or a tools/list response`);
}

/** Runs the command; resolves with the exit code. */
async function runScan({ options, positionals }: ParsedCommand): Promise<number> {
  const format = scanFormat(options['format']);
  const threshold = failOn(options['fail-on']);
  if (positionals.length > 1) throw new UsageError(`unexpected argument ${JSON.stringify(positionals[1])}`);
  let report: ScanReport;
  let problems: string[] = [];
  let pins: readonly PinFinding[] = [];
  let launches: LaunchFindings = {};
  let configFile: string | undefined;
  let artifact: string | undefined;
  let trifecta: string[] | undefined;
  if (typeof options['tools'] === 'string') {
    if (positionals.length > 0) throw new UsageError('--tools scans a file; give no config with it');
    const file = resolvePath(options['tools']);
    const text = await readFile(file, 'utf8').catch((error: unknown) => {
      throw new CliFailure(`cannot read ${file}: ${error instanceof Error ? error.message : String(error)}`);
    });
    report = scanTools(toolsOfFile(text, file), { server: typeof options['server'] === 'string' ? options['server'] : (file.split(/[\\/]/).pop() ?? file) });
    artifact = `file://${file}`;
  } else {
    const level = options['log-level'] ?? 'error';
    if (level !== 'debug' && level !== 'info' && level !== 'warn' && level !== 'error') throw new UsageError(`invalid --log-level ${String(level)}`);
    configFile = positionals[0] !== undefined ? resolvePath(positionals[0]) : undefined;
    const config = configFile !== undefined ? await loadConfigFile(configFile) : discoveredConfig();
    if (options['trifecta'] === true) {
      if (positionals[0] === undefined) throw new UsageError('--trifecta needs a CONFIG');
      process.stdout.write(`${formatTrifectaReport(config).join('\n')}\n`);
      return 0;
    }
    let listed: ListedServers;
    ({ report, problems, pins, listed, launches } = await scanConfigured(config, options['yes'] === true, positionals[0] !== undefined, level));
    if (format === 'human' && positionals[0] !== undefined) trifecta = formatTrifectaReport(config, listed);
  }
  process.stdout.write(renderReport(report, format, { version: SWITCHBOARD_VERSION, ...(artifact !== undefined ? { artifact } : {}), ...(configFile !== undefined ? { configFile } : {}), problems, pins, launches }));
  if (trifecta !== undefined) process.stdout.write(`\n${trifecta.join('\n')}\n`);
  if (fails(report, threshold, launches) || (threshold !== 'never' && pins.length > 0)) return SCAN_EXIT.findings;
  return problems.length > 0 ? SCAN_EXIT.notScanned : SCAN_EXIT.clean;
}

async function loadConfigFile(file: string): Promise<HostConfig> {
  const text = await readFile(file, 'utf8').catch((error: unknown) => {
    throw new CliFailure(`cannot read ${file}: ${error instanceof Error ? error.message : String(error)}`);
  });
  return parseConfig(text, configParseOptions(file));
}

/** One config holding the servers of every MCP client config on this machine. */
function discoveredConfig(): HostConfig {
  const context = processContext();
  const log = (line: string): void => void process.stderr.write(`${line}\n`);
  const found = readLocations(CLIENT_NAMES.flatMap((c) => clientLocations(c, context)), homeOf(context), undefined, log);
  if (found.length === 0) throw new CliFailure('no MCP servers found in any client config; pass a switchboard.json or use --tools FILE');
  const { added } = mergeServers({}, found);
  return parseConfig(renderSwitchboardConfig(added), configParseOptions(resolvePath('switchboard.json')));
}

/** Starts the configured servers (launch consent applies), pins and snapshots what they expose, scans, stops them. */
async function scanConfigured(
  config: HostConfig,
  yes: boolean,
  persist: boolean,
  level: 'debug' | 'info' | 'warn' | 'error',
): Promise<{ report: ScanReport; problems: string[]; pins: readonly PinFinding[]; listed: ListedServers; launches: LaunchFindings }> {
  const logger = createLineLogger((line) => process.stderr.write(line), level);
  const interactive = process.stdin.isTTY === true && process.stderr.isTTY === true;
  // Approvals are kept in the config's state folder, keyed like the gateway's, so a later gateway on the same
  // state runs what was approved here (for discovered client configs too: `scan --yes` before `wrap`).
  // Without --yes, a prompt or a real config, nothing is recorded and no state folder is created.
  const record = persist || yes || interactive;
  const store: LaunchApprovalStore = record ? openStateStores(config.stateDir).launches : new MemoryLaunchApprovalStore();
  const key = await approvalKey(config.stateDir, { create: record });
  const problems: string[] = [];
  // Every launch's supply-chain findings, admitted or not, for the report and --fail-on.
  const launches: Record<string, readonly LaunchFinding[]> = {};
  const allowed = await admitLaunches(config, {
    store,
    key,
    yes,
    ...(interactive ? { prompt: askYesNo } : {}),
    // scan starts the servers itself, here.
    inheritedCwd: process.cwd(),
    refused: (server, error) => {
      problems.push(`${server.id}: ${error instanceof Error ? error.message : String(error)}`);
      if (error instanceof LaunchNotApprovedError && error.findings.length > 0) launches[server.id] = error.findings;
    },
    warned: (server, findings) => {
      launches[server.id] = findings;
      printLaunchFindings(server, findings);
    },
  });
  // The gateway's pin store: a damaged one stops the scan before any server starts (fail closed).
  const pinned = config.pins ? await openPins(config, logger, () => config, 'Nothing was scanned.') : undefined;
  const pins = pinned !== undefined ? new PinScan(pinned.trust) : undefined;
  let host: Host;
  try {
    host = await Host.open({
      servers: allowed,
      transport: defaultTransportFactory({ environment: process.env, logger }),
      logger,
      clientInfo: { name: 'switchboard-scan', version: SWITCHBOARD_VERSION },
      ...(pins !== undefined ? { trust: pins } : {}),
    });
  } catch (error) {
    await pinned?.store.close?.();
    throw error;
  }
  try {
    await host.start();
    const snapshots: ServerSnapshot[] = [];
    const listed: Record<string, ListedServers[string]> = {};
    for (const health of host.health()) {
      const server = host.server(health.id);
      if (health.state !== 'ready' || server === undefined) {
        problems.push(`${health.id}: not ready (${health.lastError ?? health.state})`);
        continue;
      }
      const catalog = server.catalog;
      snapshots.push({ server: health.id, instructions: server.client?.instructions, tools: catalog.tools, prompts: catalog.prompts, resources: catalog.resources, templates: catalog.templates });
      listed[health.id] = { tools: catalog.tools, serverInfoName: server.client?.serverInfo?.name };
    }
    if (pins !== undefined && pins.pinnedOnFirstUse.length > 0) logger.info(`pinned on first use: ${pins.pinnedOnFirstUse.join(', ')}`);
    return { report: scanServers(snapshots), problems, pins: pins?.findings ?? [], listed, launches };
  } finally {
    await host.close();
    await pinned?.store.close?.();
  }
}

