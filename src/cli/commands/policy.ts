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
import type { AuditRecord } from '../../host/audit.js';
import { ConfigReader } from '../../host/configRead.js';
import { readRules, serverLabelsOf } from '../../host/configPolicy.js';
import { compileRules, RuleCompileError, type CompiledRule } from '../../host/policy/rules.js';
import { replayPolicy, type ReplayReport } from '../../host/policy/replay.js';
import { SqliteAuditLog } from '../../store/sqliteAudit.js';
import { THIS_PROCESS, auditFile, formatAuditRecord } from '../auditFiles.js';
import { CliFailure, UsageError } from '../args.js';
import { configFileOption } from '../userFolder.js';
import { loadConfig } from '../hostSetup.js';
import { defineCommand, type ParsedCommand } from '../command.js';

/** `switchboard policy`. */
export const command = defineCommand({
  name: 'policy',
  summary: 'test policy rules against the requests recorded in the audit log',
  usage: ['test [--config FILE] [--audit DB] [--rules FILE] [--json]'],
  description: `Checks policy rules against the requests recorded in the gateway's audit log: per-rule hit
counts, and the recorded requests whose decision would change. Session taint is rebuilt
from the log in order (labels from the config). The log keeps argument digests, not
arguments, and principal ids, not token claims: a rule that reads args, principal.claims,
principal.scopes, principal.subject or tool.annotations is reported as "needs arguments"
(or claims, annotations) and no change is claimed where a request's decision hinges on it.`,
  positionals: [{ name: 'test', description: 'replay the recorded requests against the rules' }],
  options: {
    config: { type: 'string', value: 'FILE', description: 'the gateway config: rules, labels, stateDir', default: "./switchboard.json, else the running gateway's, else the per-user one" },
    audit: { type: 'string', value: 'DB', description: 'the audit database', default: '<stateDir>/audit.db' },
    rules: { type: 'string', value: 'FILE', description: "rules to test instead of the config's: a JSON array of { id, when, outcome, reason? } or { \"rules\": [...] }" },
    json: { type: 'boolean', description: 'print the report as JSON' },
  },
  run: runPolicy,
});

const out = (line: string): void => void process.stdout.write(`${line}\n`);

/** Runs `policy`; resolves with the exit code. */
async function runPolicy({ options, positionals }: ParsedCommand): Promise<number> {
  const [verb, ...rest] = positionals;
  if (verb !== 'test') throw new UsageError(verb === undefined ? 'say test' : `unknown policy command ${JSON.stringify(verb)}`);
  if (rest.length > 0) throw new UsageError(`unexpected argument ${JSON.stringify(rest[0])}`);
  const config = await loadConfig(await configFileOption(options['config'], true));
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
