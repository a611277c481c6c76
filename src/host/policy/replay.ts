/**
 * `switchboard policy test`: rules checked against recorded requests from the audit log.
 *
 * The audit log keeps argument digests, not arguments, and a principal's id, not its token's
 * claims. So a replay knows each request's method, server, exposed name, principal, session,
 * outcome and the decisions recorded then, and rebuilds each session's label taint in order
 * (labels from the config, injection flags from the recorded sanitizer decisions). A rule
 * that reads `args`, `principal.claims`, `principal.scopes`, `principal.subject` or
 * `tool.annotations` cannot be replayed: its requests are counted as "needs arguments" (or
 * "needs claims", "needs annotations") and no change is claimed where the result hinges on it.
 * Value taint cannot be replayed either (results are not recorded).
 *
 * @module
 */
import type { AuditRecord } from '../audit.js';
import type { InterceptedMethod } from '../interceptors.js';
import { LabelResolver, type ServerLabelConfig } from './labels.js';
import { evaluateRules, RULE_OUTCOMES, type CompiledRule, type RuleOutcome } from './rules.js';
import { DEFAULT_TAINT_WINDOWS, joinTaint, MemoryTaintStore, taintKeys, type TaintWindows } from './taint.js';
import { TRIFECTA_RULE, trifectaReasons } from './trifecta.js';
import type { BuiltinMode } from './policyEngine.js';

/** What a rule needs that the audit log does not keep. */
export type Unreplayable = 'arguments' | 'claims' | 'annotations';

/** Options of {@link replayPolicy}. */
export interface ReplayOptions {
  readonly rules: readonly CompiledRule[];
  readonly labels: Readonly<Record<string, ServerLabelConfig>>;
  readonly trifecta: BuiltinMode;
  /** The config's separator between server id and tool name (to find a tool's own name). */
  readonly separator: string;
  /** How long taint lives (the config's). Default {@link DEFAULT_TAINT_WINDOWS}. */
  readonly windows?: TaintWindows;
}

/** Per rule: how often it matched, and how many requests it could not be replayed on. */
export interface RuleStats {
  readonly rule: string;
  readonly outcome: RuleOutcome;
  hits: number;
  /** Requests where the rule needs what the log does not keep (and so was not evaluated). */
  unreplayable: number;
  readonly needs: readonly Unreplayable[];
}

/** A recorded request whose decision would change. */
export interface ChangedDecision {
  readonly record: AuditRecord;
  /** What was recorded (`allow` when no policy decision was recorded then). */
  readonly was: { readonly outcome: string; readonly rule: string };
  readonly now: { readonly outcome: RuleOutcome; readonly rule: string; readonly reasons: readonly string[] };
}

/** The result of a replay. */
export interface ReplayReport {
  readonly records: number;
  /** Requests replayed (calls, gets, reads, completions, server requests; lists are not). */
  readonly replayed: number;
  readonly rules: readonly RuleStats[];
  readonly changed: readonly ChangedDecision[];
  /** Requests whose decision hinges on a rule that needs what the log does not keep. */
  readonly undecided: number;
}

const REPLAYED: ReadonlySet<string> = new Set<InterceptedMethod>(['tools/call', 'prompts/get', 'resources/read', 'completion/complete', 'server/request']);
const USES: ReadonlySet<string> = new Set<InterceptedMethod>(['tools/call', 'prompts/get', 'resources/read']);

/** What a rule's expression reads that the audit log lacks. */
export function unreplayableNeeds(when: string): Unreplayable[] {
  const needs: Unreplayable[] = [];
  if (/\bargs\b/.test(when)) needs.push('arguments');
  if (/\bprincipal\s*\.\s*(claims|scopes|subject)\b/.test(when)) needs.push('claims');
  if (/\btool\s*\.\s*annotations\b/.test(when)) needs.push('annotations');
  return needs;
}

/** Replays `records` (oldest first) against the rules; see the module comment. */
export function replayPolicy(records: readonly AuditRecord[], options: ReplayOptions): ReplayReport {
  const resolver = new LabelResolver(options.labels);
  const store = new MemoryTaintStore({ maxKeys: 1_000_000 });
  const stats = options.rules.map((r): RuleStats => ({ rule: r.id, outcome: r.outcome, hits: 0, unreplayable: 0, needs: unreplayableNeeds(r.when) }));
  const replayable = options.rules.filter((_, i) => stats[i]?.needs.length === 0);
  const blind = options.rules.filter((_, i) => (stats[i]?.needs.length ?? 0) > 0);
  const changed: ChangedDecision[] = [];
  let replayed = 0;
  let undecided = 0;
  const windows = options.windows ?? DEFAULT_TAINT_WINDOWS;
  for (const record of records) {
    if (record.kind !== 'request' || !REPLAYED.has(record.method)) continue;
    replayed++;
    const at = Date.parse(record.time);
    const keys = taintKeys(record.principal, record.session, undefined);
    const state = joinTaint(store, keys, at);
    const serverId = record.server ?? '';
    const prefix = `${serverId}${options.separator}`;
    const own = record.method === 'tools/call' && record.name !== undefined ? (record.name.startsWith(prefix) ? record.name.slice(prefix.length) : record.name) : undefined;
    const labels = record.method === 'server/request' ? { labels: [], origins: {} } : resolver.resolve(serverId, own, undefined);
    const verdict = evaluateRules(replayable, {
      principal: { id: record.principal ?? '', subject: record.principal ?? '', scopes: [], claims: {}, tenant: '' },
      server: { id: serverId, identity: '', labels: resolver.serverLabels(serverId), auth: record.credential?.mode ?? 'shared', tenant: '' },
      tool: { name: record.name ?? '', annotations: {}, labels: labels.labels },
      method: record.method,
      serverMethod: record.serverMethod ?? '',
      connected: true,
      args: {},
      session: {
        id: keys.session ?? keys.principal,
        labels: [...new Set(state?.sources.map((s) => s.label) ?? [])],
        sources: (state?.sources ?? []).map((s) => ({ label: s.label, server: s.server, tool: s.tool ?? '', at: new Date(s.at).toISOString() })),
      },
    });
    for (const hit of verdict.hits) {
      const s = stats.find((x) => x.rule === hit.rule);
      if (s !== undefined) s.hits++;
    }
    for (const rule of blind) {
      const s = stats.find((x) => x.rule === rule.id);
      if (s !== undefined) s.unreplayable++;
    }
    let now: ChangedDecision['now'] = verdict.outcome === undefined ? { outcome: 'allow', rule: 'default', reasons: [] } : { outcome: verdict.outcome, rule: verdict.rule ?? '', reasons: verdict.reasons };
    if (options.trifecta !== 'off' && record.method !== 'server/request') {
      const reasons = trifectaReasons(state, labels, serverId, record.name);
      if (reasons !== undefined && RULE_OUTCOMES.indexOf(options.trifecta) > RULE_OUTCOMES.indexOf(now.outcome)) now = { outcome: options.trifecta, rule: TRIFECTA_RULE, reasons };
    }
    const recorded = record.decisions.find((d) => d.interceptor === 'policy');
    const was = { outcome: recorded === undefined ? 'allow' : wasOutcome(recorded.outcome, recorded.detail), rule: String(recorded?.detail?.['rule'] ?? 'none') };
    // A blind rule could still raise the outcome: only a replayed deny is certain.
    const hinges = blind.length > 0 && now.outcome !== 'deny' && blind.some((r) => RULE_OUTCOMES.indexOf(r.outcome) > RULE_OUTCOMES.indexOf(now.outcome));
    if (hinges) undecided++;
    else if (was.outcome !== now.outcome) changed.push({ record, was, now });
    // Taint enters as it did: after a request that returned.
    if (USES.has(record.method) && (record.outcome === 'ok' || record.outcome === 'tool-error')) {
      const add = (label: (typeof labels.labels)[number], via: string): void => {
        const source = { label, server: serverId, tool: record.name, at, via };
        if (keys.session !== undefined) store.addSource(keys.session, source, windows.sessionMs, at);
        store.addSource(keys.principal, source, windows.principalMs, at);
      };
      for (const label of labels.labels) add(label, labels.origins[label] ?? 'labels');
      if (record.decisions.some((d) => d.detail?.['injection'] === true)) add('untrusted-content', 'injection markers in the result');
    }
  }
  return { records: records.length, replayed, rules: stats, changed, undecided };
}

/** The outcome a recorded policy decision stands for (a dry-run `observe` stands for what it would have been). */
function wasOutcome(outcome: string, detail: Readonly<Record<string, unknown>> | undefined): string {
  if (detail?.['dryRun'] === true && typeof detail['wouldBe'] === 'string') return detail['wouldBe'];
  if (detail?.['asked'] === true) return 'ask';
  if (outcome === 'change') return 'redact';
  return outcome;
}
