/**
 * `switchboard policy test`: checks the config's policy rules (or a rules file) against the
 * requests recorded in the audit log, printing per-rule hit counts and the requests whose
 * decision would change (see `host/policy/replay.ts` for what the log lets it replay).
 * Also the static trifecta report `switchboard scan` prints for a config.
 *
 * @module
 */
import { existsSync } from 'node:fs';
import { readFile } from 'node:fs/promises';
import { resolve as resolvePath } from 'node:path';
import type { AuditRecord } from '../host/audit.js';
import type { HostConfig } from '../host/configTypes.js';
import { ConfigReader } from '../host/configRead.js';
import { readRules, serverLabelsOf } from '../host/configPolicy.js';
import { compileRules, RuleCompileError, type CompiledRule } from '../host/policy/rules.js';
import { replayPolicy, type ReplayReport } from '../host/policy/replay.js';
import { trifectaReport } from '../host/policy/trifecta.js';
import { SqliteAuditLog } from '../store/sqliteAudit.js';
import { THIS_PROCESS, auditFile, formatAuditRecord } from './auditCommand.js';
import { CliFailure, parseArgs, UsageError } from './args.js';
import { loadConfig } from './hostSetup.js';

/** Help text of `policy`. */
export const policyHelp = `Usage: switchboard policy test [--config FILE] [--audit DB] [--rules FILE] [--json]

Checks policy rules against the requests recorded in the gateway's audit log: per-rule hit
counts, and the recorded requests whose decision would change. Session taint is rebuilt
from the log in order (labels from the config). The log keeps argument digests, not
arguments, and principal ids, not token claims: a rule that reads args, principal.claims,
principal.scopes, principal.subject or tool.annotations is reported as "needs arguments"
(or claims, annotations) and no change is claimed where a request's decision hinges on it.

  --config FILE   the gateway config: rules, labels, stateDir (default ./switchboard.json)
  --audit DB      the audit database (default <stateDir>/audit.db)
  --rules FILE    rules to test instead of the config's: a JSON array of
                  { id, when, outcome, reason? } or { "rules": [...] }
  --json          print the report as JSON
`;

const out = (line: string): void => void process.stdout.write(`${line}\n`);

/** Runs `policy`; resolves with the exit code. */
export async function policyCommand(argv: readonly string[]): Promise<number> {
  const [verb, ...rest] = argv;
  if (verb !== 'test') throw new UsageError(verb === undefined ? 'say test' : `unknown policy command ${JSON.stringify(verb)}`);
  const { options, positionals } = parseArgs(rest, { config: 'string', audit: 'string', rules: 'string', json: 'boolean' });
  if (positionals.length > 0) throw new UsageError(`unexpected argument ${JSON.stringify(positionals[0])}`);
  const config = await loadConfig(resolvePath(typeof options['config'] === 'string' ? options['config'] : 'switchboard.json'));
  const rules = typeof options['rules'] === 'string' ? await rulesFile(resolvePath(options['rules'])) : config.policy.compiled;
  const file = typeof options['audit'] === 'string' ? resolvePath(options['audit']) : auditFile(config.stateDir);
  if (!existsSync(file)) throw new CliFailure(`no audit log at ${file} (the gateway writes it on its first request)`);
  const log = SqliteAuditLog.open(file, { process: THIS_PROCESS });
  let records: AuditRecord[] = [];
  try {
    for (let from = 1; ; ) {
      const page = log.read({ from, limit: 1000 });
      records = records.concat(page);
      const last = page.at(-1);
      if (last === undefined || page.length < 1000) break;
      from = last.seq + 1;
    }
  } finally {
    await log.close();
  }
  const report = replayPolicy(records, { rules, labels: serverLabelsOf(config.servers), trifecta: config.policy.trifecta, separator: config.separator, windows: config.policy.windows });
  if (options['json'] === true) out(JSON.stringify(report, (key, value: unknown) => (key === 'record' ? (value as AuditRecord).seq : value)));
  else for (const line of formatReplay(report)) out(line);
  return 0;
}

/** The human lines of a replay. */
export function formatReplay(report: ReplayReport): string[] {
  const lines = [`${report.replayed} of ${report.records} recorded requests replayed (lists are not).`, '', 'rule                              outcome  hits  not replayable'];
  for (const s of report.rules) {
    const blind = s.needs.length === 0 ? '' : `${s.unreplayable} (needs ${s.needs.join(', ')})`;
    lines.push(`${s.rule.padEnd(34)}${s.outcome.padEnd(9)}${String(s.hits).padStart(4)}  ${blind}`);
  }
  if (report.undecided > 0) lines.push('', `${report.undecided} request(s) hinge on rules that need what the log does not keep: no change claimed for them.`);
  lines.push('', report.changed.length === 0 ? 'No recorded decision would change.' : `${report.changed.length} decision(s) would change:`);
  for (const c of report.changed) {
    lines.push(`  ${formatAuditRecord(c.record)}`);
    lines.push(`    was ${c.was.outcome} (${c.was.rule}) -> would be ${c.now.outcome} (${c.now.rule})${c.now.reasons.length > 0 ? `: ${c.now.reasons.join('; ')}` : ''}`);
  }
  return lines;
}

async function rulesFile(file: string): Promise<readonly CompiledRule[]> {
  const text = await readFile(file, 'utf8').catch((error: unknown) => {
    throw new CliFailure(`cannot read ${file}: ${error instanceof Error ? error.message : String(error)}`);
  });
  let value: unknown;
  try {
    value = JSON.parse(text);
  } catch (error) {
    throw new CliFailure(`${file} is not JSON: ${error instanceof Error ? error.message : String(error)}`);
  }
  const read = new ConfigReader(file);
  const [list, path] = Array.isArray(value) ? [value, '$'] : [read.record(value, '$')['rules'], '$.rules'];
  const rules = readRules(read, list, path);
  try {
    return compileRules(rules);
  } catch (error) {
    if (error instanceof RuleCompileError) read.fail(`${path}[${error.index}]`, error.detail);
    throw error;
  }
}

/** The static trifecta report of a config: which combinations of its servers complete it, by their labels. */
export function formatTrifectaReport(config: HostConfig): string[] {
  const ids = config.servers.filter((s) => !s.disabled).map((s) => s.id);
  const labels = serverLabelsOf(config.servers);
  const combos = trifectaReport(ids, labels);
  const lines = ['Lethal trifecta (private data + untrusted content + egress or destructive), from configured labels:'];
  if (Object.keys(labels).length === 0) return [...lines, '  no server has labels (switchboard.servers.<id>.labels / toolLabels); annotation hints and scanner labels apply at run time only'];
  if (combos.length === 0) return [...lines, '  no combination of configured servers completes it'];
  for (const c of combos) {
    lines.push(`  ${c.servers.join(' + ')}: private data from ${c.legs['private-data'].join(', ')}; untrusted content from ${c.legs['untrusted-content'].join(', ')}; out through ${c.legs['egress-or-destructive'].join(', ')}`);
  }
  lines.push(`  in one session these are ${config.policy.trifecta === 'off' ? 'NOT stopped (policy.trifecta is off)' : `${config.policy.trifecta === 'deny' ? 'denied' : 'asked'} once the first two legs entered`}`);
  return lines;
}
