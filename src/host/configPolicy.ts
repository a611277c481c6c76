/**
 * The `switchboard.policy` section of a config (rules, dry run, the built-ins, taint windows)
 * and the per-server `labels` / `toolLabels` of `switchboard.servers.<id>` (see
 * `policy/policyEngine.ts`, `policy/labels.ts`). Every rule is compiled here, at load: a rule
 * that does not compile, or names an unknown variable or field, is a {@link ConfigError}
 * naming the JSON path of the rule.
 *
 * @module
 */
import { ConfigReader, type JsonRecord } from './configRead.js';
import { childPath } from './configTypes.js';
import { isLabel, LABELS, type Label, type ServerLabelConfig } from './policy/labels.js';
import type { BuiltinMode } from './policy/policyEngine.js';
import type { PolicyConfig } from './policy/policyConfig.js';
import { compileRules, RULE_OUTCOMES, RuleCompileError, type CompiledRule, type PolicyRule, type RuleOutcome } from './policy/rules.js';
import type { TaintWindows } from './policy/taint.js';

export type { PolicyConfig } from './policy/policyConfig.js';

const POLICY_KEYS = ['rules', 'dryRun', 'trifecta', 'valueTaint', 'serverRequests', 'taint'];
const MODES: readonly BuiltinMode[] = ['ask', 'deny', 'off'];

/** The policy of `$.switchboard.policy` (defaults when absent: no rules, built-ins on). */
export function readPolicy(read: ConfigReader, value: unknown): PolicyConfig {
  const path = '$.switchboard.policy';
  const section = value === undefined ? {} : read.record(value, path);
  read.strictKeys(section, POLICY_KEYS, path);
  const rules = section['rules'] === undefined ? [] : readRules(read, section['rules'], childPath(path, 'rules'));
  let compiled: readonly CompiledRule[];
  try {
    compiled = compileRules(rules);
  } catch (error) {
    if (!(error instanceof RuleCompileError)) throw error;
    const at = childPath(childPath(path, 'rules'), error.index);
    return read.fail(error.detail.startsWith('"when"') ? childPath(at, 'when') : at, error.detail);
  }
  const mode = (key: string): BuiltinMode => (section[key] === undefined ? 'ask' : read.choice(section[key], MODES, childPath(path, key)));
  let windows: TaintWindows = { sessionMs: 86_400_000, principalMs: 3_600_000 };
  let maxTrackedSessions = 10_000;
  if (section['taint'] !== undefined) {
    const at = childPath(path, 'taint');
    const taint = read.record(section['taint'], at);
    read.strictKeys(taint, ['sessionMs', 'principalMs', 'maxTrackedSessions'], at);
    windows = {
      // At least a minute: a window of zero would let anyone shed taint by reconnecting.
      sessionMs: taint['sessionMs'] === undefined ? windows.sessionMs : read.integer(taint['sessionMs'], 60_000, 86_400_000 * 31, childPath(at, 'sessionMs')),
      principalMs: taint['principalMs'] === undefined ? windows.principalMs : read.integer(taint['principalMs'], 60_000, 86_400_000 * 31, childPath(at, 'principalMs')),
    };
    if (taint['maxTrackedSessions'] !== undefined) maxTrackedSessions = read.integer(taint['maxTrackedSessions'], 100, 10_000_000, childPath(at, 'maxTrackedSessions'));
  }
  return {
    rules,
    compiled,
    dryRun: section['dryRun'] === undefined ? false : read.boolean(section['dryRun'], childPath(path, 'dryRun')),
    trifecta: mode('trifecta'),
    valueTaint: mode('valueTaint'),
    serverRequests: mode('serverRequests'),
    windows,
    maxTrackedSessions,
  };
}

/** `[{ id, when, outcome, reason? }]` at `path` (shape only; {@link compileRules} checks the rest). */
export function readRules(read: ConfigReader, value: unknown, path: string): PolicyRule[] {
  if (!Array.isArray(value)) return read.fail(path, 'expected an array of { "id", "when", "outcome", "reason"? }');
  return value.map((item: unknown, i): PolicyRule => {
    const at = childPath(path, i);
    const rule = read.record(item, at);
    read.strictKeys(rule, ['id', 'when', 'outcome', 'reason'], at);
    if (rule['id'] === undefined || rule['when'] === undefined || rule['outcome'] === undefined) read.fail(at, 'a rule needs "id", "when" and "outcome"');
    return {
      id: read.string(rule['id'], childPath(at, 'id'), true),
      when: read.string(rule['when'], childPath(at, 'when'), true),
      outcome: read.choice<RuleOutcome>(rule['outcome'], RULE_OUTCOMES, childPath(at, 'outcome')),
      ...(rule['reason'] !== undefined ? { reason: read.string(rule['reason'], childPath(at, 'reason'), true) } : {}),
    };
  });
}

/** The keys of `switchboard.servers.<id>` this file reads. */
export const LABEL_OPTION_KEYS: readonly string[] = ['labels', 'toolLabels', 'inferLabels'];

/** `labels`, `toolLabels` and `inferLabels` of one `switchboard.servers.<id>` entry, or undefined when it has none. */
export function readServerLabels(read: ConfigReader, options: JsonRecord, path: string): ServerLabelConfig | undefined {
  if (options['labels'] === undefined && options['toolLabels'] === undefined && options['inferLabels'] === undefined) return undefined;
  const labelList = (value: unknown, at: string): Label[] =>
    read.strings(value, at, (item, p) => (isLabel(item) ? item : read.fail(p, `unknown label ${JSON.stringify(item)}; expected one of ${LABELS.join(', ')}`))) as Label[];
  const labels = options['labels'] === undefined ? [] : labelList(options['labels'], childPath(path, 'labels'));
  const toolLabels: Record<string, readonly Label[]> = {};
  if (options['toolLabels'] !== undefined) {
    const at = childPath(path, 'toolLabels');
    const map = read.record(options['toolLabels'], at);
    for (const [pattern, list] of Object.entries(map)) {
      if (pattern === '') read.fail(childPath(at, pattern), 'expected a non-empty glob pattern');
      toolLabels[pattern] = labelList(list, childPath(at, pattern));
    }
  }
  // Only `false` is kept: inference is on by default, and an absent key keeps digests as they were.
  const infer = options['inferLabels'] === undefined ? undefined : read.boolean(options['inferLabels'], childPath(path, 'inferLabels'));
  return infer === false ? { labels, toolLabels, inferLabels: false } : { labels, toolLabels };
}

/** The configured labels of every server that has some, by id. */
export function serverLabelsOf(servers: readonly { readonly id: string; readonly options: { readonly labels?: ServerLabelConfig } }[]): Record<string, ServerLabelConfig> {
  const out: Record<string, ServerLabelConfig> = {};
  for (const s of servers) if (s.options.labels !== undefined) out[s.id] = s.options.labels;
  return out;
}

/** A policy as a cluster shares it: the `switchboard.policy` section and every server's labels, as a config writes them. */
export interface PolicyDocument {
  readonly policy: JsonRecord;
  readonly labels: Readonly<Record<string, ServerLabelConfig>>;
}

/** `policy` and `labels` as a {@link PolicyDocument} ({@link readPolicyDocument} reads it back to the same policy). */
export function policyDocument(policy: PolicyConfig, labels: Readonly<Record<string, ServerLabelConfig>>): PolicyDocument {
  const section = {
    rules: policy.rules,
    dryRun: policy.dryRun,
    trifecta: policy.trifecta,
    valueTaint: policy.valueTaint,
    serverRequests: policy.serverRequests,
    taint: { ...policy.windows, maxTrackedSessions: policy.maxTrackedSessions },
  };
  return { policy: section, labels };
}

/**
 * A shared {@link PolicyDocument} read back and checked as a config is (every rule compiled);
 * `where` names its origin in the {@link ConfigError} of one that does not read.
 */
export function readPolicyDocument(value: unknown, where: string): { readonly policy: PolicyConfig; readonly labels: Record<string, ServerLabelConfig> } {
  const read = new ConfigReader(where);
  const doc = read.record(value, '$');
  read.strictKeys(doc, ['policy', 'labels'], '$');
  const policy = readPolicy(read, doc['policy']);
  const labels: Record<string, ServerLabelConfig> = {};
  const byServer = doc['labels'] === undefined ? {} : read.record(doc['labels'], '$.labels');
  for (const [id, options] of Object.entries(byServer)) {
    const at = childPath('$.labels', id);
    const own = read.record(options, at);
    read.strictKeys(own, LABEL_OPTION_KEYS, at);
    const parsed = readServerLabels(read, own, at);
    if (parsed !== undefined) labels[id] = parsed;
  }
  return { policy, labels };
}
