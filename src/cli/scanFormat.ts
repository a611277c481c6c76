/**
 * How `switchboard scan` prints a report: `human` (one block per flagged item, worst first,
 * then the pinned definitions that changed with their classified diff, then a summary), `json`
 * (the report as it is, plus `pins` and the launches' supply-chain findings under `launches`) or
 * `sarif` (SARIF 2.1.0, pin changes as `pins/<status>` results, launch findings as
 * `supply-chain/<kind>` results), and the exit-code test of `--fail-on`.
 *
 * A launch finding (`launchSupplyChain.ts`) counts for `--fail-on` by its severity: a flag
 * (typosquat, confusable) is `high`, a warning (unpinned) is `low`. Neither is a blocking finding:
 * a flagged launch waits for a person's approval (unapproved, its server is NOT SCANNED, exit 3).
 *
 * @module
 */
import { pathToFileURL } from 'node:url';
import { formatChanges } from '../host/pins/pinDiff.js';
import type { PinFinding, PinFindingStatus } from '../host/pins/pinScan.js';
import { meetsSeverity, sarifLevel, toSarif } from '../host/scanner/sarif.js';
import { SEVERITIES, type ScanReport, type Severity } from '../host/scanner/types.js';
import type { HostConfig } from '../host/configTypes.js';
import type { LaunchFinding, LaunchFindingKind } from '../host/launchSupplyChain.js';
import { serverLabelsOf } from '../host/configPolicy.js';
import { staticCapabilities, trifectaReport } from '../host/policy/trifecta.js';
import { UsageError } from './args.js';

/** The output formats. */
export type ScanFormat = 'human' | 'json' | 'sarif';

/** `--fail-on`: a severity, or `block` (default: any blocking finding), or `never`. */
export type FailOn = Severity | 'block' | 'never';

/** Reads `--format`. */
export function scanFormat(value: unknown): ScanFormat {
  if (value === undefined) return 'human';
  if (value === 'human' || value === 'json' || value === 'sarif') return value;
  throw new UsageError(`invalid --format ${String(value)} (human, json or sarif)`);
}

/** Reads `--fail-on`. */
export function failOn(value: unknown): FailOn {
  if (value === undefined) return 'block';
  if (value === 'block' || value === 'never' || (SEVERITIES as readonly unknown[]).includes(value)) return value as FailOn;
  throw new UsageError(`invalid --fail-on ${String(value)} (${SEVERITIES.join(', ')}, block or never)`);
}

/** The supply-chain findings of each configured server's launch, by server id (servers without any are absent). */
export type LaunchFindings = Readonly<Record<string, readonly LaunchFinding[]>>;

/** A launch finding's scan severity: a flag (needs a person's approval) is `high`, a warning `low`. */
export function launchSeverity(finding: LaunchFinding): Severity {
  return finding.severity === 'flag' ? 'high' : 'low';
}

/** What each kind of launch finding means (the SARIF rule `supply-chain/<kind>`). */
const LAUNCH_RULES: Readonly<Record<LaunchFindingKind, string>> = {
  typosquat: 'a launched package one edit away from a well-known MCP server package',
  confusable: 'a launched package that looks like a well-known MCP server package (look-alike letters, separators, an npm alias)',
  unpinned: 'a launched package with no exact version (or an image without digest, a git source not at a commit)',
};

/** True when the report, or a launch's supply-chain finding (by {@link launchSeverity}), has a finding that `threshold` fails on. */
export function fails(report: ScanReport, threshold: FailOn, launches: LaunchFindings = {}): boolean {
  if (threshold === 'never') return false;
  const findings = report.items.flatMap((i) => i.findings);
  if (threshold === 'block') return findings.some((f) => f.blocking);
  return findings.some((f) => meetsSeverity(f.severity, threshold)) || Object.values(launches).some((list) => list.some((f) => meetsSeverity(launchSeverity(f), threshold)));
}

/** `launches` as the JSON report carries them: each finding with its rule and scan severity (`flagged` keeps the launch's own word). */
function launchesJson(launches: LaunchFindings): Record<string, unknown[]> {
  return Object.fromEntries(
    Object.entries(launches).map(([server, list]) => [
      server,
      list.map((f) => ({ rule: `supply-chain/${f.kind}`, kind: f.kind, severity: launchSeverity(f), flagged: f.severity === 'flag', package: f.package, ...(f.imitates !== undefined ? { imitates: f.imitates } : {}), message: f.message })),
    ]),
  );
}

const rank = (v: string): number => (v === 'block' ? 0 : v === 'warn' ? 1 : 2);

const PIN_RULES: Readonly<Record<PinFindingStatus, string>> = {
  changed: 'a pinned definition changed since it was approved',
  added: 'an item appeared on a pinned server and was never approved',
  rejected: 'a change a person rejected is still served by the server',
  withheld: 'the pins withhold the item (signature policy or pin store)',
};

/** The pin findings, readable: what changed (classified), and the commands to review it. */
function renderPins(pins: readonly PinFinding[]): string[] {
  const lines: string[] = [];
  for (const p of pins) {
    lines.push(`${p.status.toUpperCase()}  ${p.kind} ${p.server}/${p.item}  (pins: ${PIN_RULES[p.status]})`);
    if (p.changes.length > 0) lines.push(formatChanges(p.changes));
    if (p.status === 'withheld') lines.push(`  ${p.reason}`);
    else lines.push(`  review: switchboard pins diff ${p.server} ${p.key}, then switchboard pins approve (or reject) ${p.server} ${p.key}`);
  }
  return lines;
}

/** The human report. */
export function renderHuman(report: ScanReport, problems: readonly string[] = [], pins: readonly PinFinding[] = [], launches: LaunchFindings = {}): string {
  const lines: string[] = [];
  const flagged = [...report.items].filter((i) => i.verdict !== 'pass').sort((a, b) => rank(a.verdict) - rank(b.verdict) || SEVERITIES.indexOf(b.severity ?? 'low') - SEVERITIES.indexOf(a.severity ?? 'low'));
  for (const item of flagged) {
    lines.push(`${item.verdict.toUpperCase()}  ${item.kind} ${item.server === undefined ? '' : `${item.server}/`}${item.item}`);
    for (const f of item.findings) {
      lines.push(`  ${f.blocking ? '✖' : '!'} ${f.rule} [${f.severity}, ${f.confidence} confidence] at ${f.location.path}`);
      lines.push(`      ${f.message}`);
      lines.push(`      evidence: ${f.evidence}`);
    }
  }
  lines.push(...renderPins(pins));
  for (const p of problems) {
    const [first, ...rest] = p.split('\n');
    lines.push(`NOT SCANNED  ${first ?? ''}`, ...rest.map((line) => `  ${line}`));
  }
  const { pass, warn, block } = report.counts;
  lines.push(`${report.items.length} item${report.items.length === 1 ? '' : 's'} scanned: ${block} blocked, ${warn} with warnings, ${pass} clean`);
  if (pins.length > 0) lines.push(`${pins.length} pinned definition${pins.length === 1 ? '' : 's'} differ${pins.length === 1 ? 's' : ''} from ${pins.length === 1 ? 'its pin' : 'their pins'}`);
  const launched = Object.entries(launches).filter(([, list]) => list.length > 0);
  if (launched.length > 0) {
    const all = launched.flatMap(([, list]) => list);
    const flagged = all.filter((f) => f.severity === 'flag').length;
    lines.push(`${all.length} launch finding${all.length === 1 ? '' : 's'} (${flagged} flagged, ${all.length - flagged} warned) on ${launched.map(([server]) => server).join(', ')} (shown with each launch: on stderr when it ran, under NOT SCANNED when it did not)`);
  }
  const servers = [...new Set(report.items.map((i) => i.server).filter((s): s is string => s !== undefined))];
  if (servers.length > 0 || problems.length > 0) {
    for (const server of servers) {
      const items = report.items.filter((i) => i.server === server);
      const count = (verdict: string): number => items.filter((i) => i.verdict === verdict).length;
      lines.push(`  ${server}: ${items.length} item${items.length === 1 ? '' : 's'}, ${count('block')} blocked, ${count('warn')} with warnings, ${count('pass')} clean`);
    }
    for (const p of problems) lines.push(`  ${p.split(':')[0] ?? p}: NOT SCANNED`);
  }
  return `${lines.join('\n')}\n`;
}

type SarifRun = { readonly tool: { readonly driver: { readonly rules: Record<string, unknown>[] } }; readonly results: Record<string, unknown>[] };

/** `toSarif` plus one `pins/<status>` result (level error) per pin finding and one `supply-chain/<kind>` result per launch finding. */
function sarifWithExtras(
  report: ScanReport,
  pins: readonly PinFinding[],
  launches: LaunchFindings,
  options: { readonly version: string; readonly artifact?: string; readonly configFile?: string },
): Record<string, unknown> {
  const artifact = options.artifact;
  const log = toSarif(report, { version: options.version, ...(artifact !== undefined ? { artifact: () => artifact } : {}) });
  const [run] = log['runs'] as SarifRun[];
  if (run === undefined) return log;
  const rules = run.tool.driver.rules;
  /** The index of rule `id` in the run's catalogue, added on first use. */
  const ruleIndexOf = (id: string, summary: string, family: string, blocks: string): number => {
    const at = rules.findIndex((x) => x['id'] === id);
    return at >= 0 ? at : rules.push({ id, shortDescription: { text: summary }, properties: { family, blocks } }) - 1;
  };
  for (const p of pins) {
    const ruleId = `pins/${p.status}`;
    run.results.push({
      ruleId,
      ruleIndex: ruleIndexOf(ruleId, PIN_RULES[p.status], 'pins', 'always'),
      level: 'error',
      message: { text: `${p.kind} ${p.item}: ${p.reason}${p.changes.length > 0 ? ` Changes: ${p.changes.map((c) => `[${c.class}] ${c.summary}`).join('; ')}` : ''}` },
      locations: [{ physicalLocation: { artifactLocation: { uri: `mcp://${encodeURIComponent(p.server)}` } }, logicalLocations: [{ fullyQualifiedName: `${p.server}/${p.kind}/${p.item}`, kind: 'member' }] }],
      properties: { status: p.status, key: p.key, changes: p.changes },
    });
  }
  // A launch is written in the config file: that is where the fix goes (the server's entry, by its id).
  const configUri = options.configFile !== undefined ? pathToFileURL(options.configFile).href : undefined;
  for (const [server, list] of Object.entries(launches)) {
    for (const f of list) {
      const ruleId = `supply-chain/${f.kind}`;
      const severity = launchSeverity(f);
      run.results.push({
        ruleId,
        ruleIndex: ruleIndexOf(ruleId, LAUNCH_RULES[f.kind], 'supply-chain', 'never'),
        level: sarifLevel(severity),
        message: { text: `server ${server}: ${f.message}` },
        locations: [{ physicalLocation: { artifactLocation: { uri: configUri ?? `mcp://${encodeURIComponent(server)}` } }, logicalLocations: [{ fullyQualifiedName: `mcpServers.${server}`, kind: 'member' }] }],
        properties: { severity, flagged: f.severity === 'flag', server, package: f.package, ...(f.imitates !== undefined ? { imitates: f.imitates } : {}) },
      });
    }
  }
  return log;
}

/** The report in `format`, with the pin findings of a configured scan. */
export function renderReport(
  report: ScanReport,
  format: ScanFormat,
  options: {
    readonly version: string;
    readonly artifact?: string;
    readonly problems?: readonly string[];
    readonly pins?: readonly PinFinding[];
    /** The supply-chain findings of the configured launches, by server id. */
    readonly launches?: LaunchFindings;
    /** The config file the launches were read from (the SARIF location of a launch finding). */
    readonly configFile?: string;
  },
): string {
  const pins = options.pins ?? [];
  const launches = Object.fromEntries(Object.entries(options.launches ?? {}).filter(([, list]) => list.length > 0));
  const hasLaunches = Object.keys(launches).length > 0;
  if (format === 'json') {
    return `${JSON.stringify({ ...report, ...(pins.length > 0 ? { pins } : {}), ...(hasLaunches ? { launches: launchesJson(launches) } : {}), ...(options.problems !== undefined && options.problems.length > 0 ? { problems: options.problems } : {}) }, null, 2)}\n`;
  }
  if (format === 'sarif') return `${JSON.stringify(sarifWithExtras(report, pins, launches, options), null, 2)}\n`;
  return renderHuman(report, options.problems, pins, launches);
}

/** What a scan listed of a server (its tools and `serverInfo.name`), by server id. */
export type ListedServers = Readonly<Record<string, { readonly tools: readonly unknown[]; readonly serverInfoName: string | undefined }>>;

/**
 * The static trifecta report of a config: each server's configured and inferred labels (with the
 * inferred ones' evidence), and which combinations of servers complete the trifecta. With
 * `listed` (a scan that started the servers) labels are inferred per tool; without, from the launch.
 */
export function formatTrifectaReport(config: HostConfig, listed: ListedServers = {}): string[] {
  const servers = config.servers.filter((s) => !s.disabled);
  const labels = serverLabelsOf(config.servers);
  const caps = staticCapabilities(
    servers.map((s) => ({ id: s.id, launch: s.launch, tools: listed[s.id]?.tools, serverInfoName: listed[s.id]?.serverInfoName })),
    labels,
  );
  const combos = trifectaReport(
    servers.map((s) => s.id),
    labels,
    Object.fromEntries(Object.entries(caps).map(([id, c]) => [id, c.labels])),
  );
  const lines = ['Lethal trifecta (private data + untrusted content + egress or destructive), from configured and inferred labels:'];
  for (const s of servers) {
    const c = caps[s.id];
    lines.push(`  ${s.id}: ${c === undefined || c.labels.length === 0 ? 'no labels' : c.labels.join(', ')}`);
    for (const why of c?.evidence ?? []) lines.push(`    ${why}`);
  }
  if (combos.length === 0) return [...lines, '  no combination of configured servers completes it'];
  for (const c of combos) {
    lines.push(`  ${c.servers.join(' + ')}: private data from ${c.legs['private-data'].join(', ')}; untrusted content from ${c.legs['untrusted-content'].join(', ')}; out through ${c.legs['egress-or-destructive'].join(', ')}`);
  }
  lines.push(`  in one session these are ${config.policy.trifecta === 'off' ? 'NOT stopped (policy.trifecta is off)' : `${config.policy.trifecta === 'deny' ? 'denied' : 'asked'} once the first two legs entered`}`);
  return lines;
}
