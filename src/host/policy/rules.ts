/**
 * Policy rules: CEL expressions (https://github.com/google/cel-spec) compiled once, against a
 * declared environment of typed variables, and evaluated on the call path.
 *
 * A rule is `{ id, when, outcome, reason? }`; `when` must type-check to `bool` with only
 * these variables (an unknown variable or field is an error at load, never at first call):
 *
 * | variable | fields |
 * |---|---|
 * | `principal` | `id`, `subject`, `scopes` (list), `claims` (map; a verified token's claims), `tenant` (from `gateway.auth.oauth.tenantClaim`, or `""`) |
 * | `server` | `id`, `identity` (`serverInfo` name@version, or `""`), `labels` (list), `auth` (`shared`, `per-user`, `token-exchange`), `tenant` (`servers.<id>.tenant`, or `""`) |
 * | `tool` | `name` (exposed name or resource URI), `annotations` (map, hints only), `labels` (list) |
 * | `method` | `tools/call`, `tools/list`, ..., `server/request` |
 * | `serverMethod` | for `server/request`: `sampling/createMessage`, `elicitation/create`, `roots/list`; else `""` |
 * | `args` | map: a call's arguments, or the params a server sent with `server/request` |
 * | `session` | `id`, `labels` (list of labels that entered), `sources` (list of maps `{label, server, tool, at}`) |
 * | `connected` | bool: the caller has its own connection to the server (`per-user`, `token-exchange`; always true for `shared`) |
 *
 * An expression that throws while evaluating (a missing map key, a type mismatch) makes its
 * rule's decision `deny` (fail closed); guard optional arguments with `has(args.x)`.
 *
 * @module
 */
import { Environment } from '@marcbachmann/cel-js';

/** What a rule decides. */
export type RuleOutcome = 'allow' | 'deny' | 'ask' | 'redact';

/** The outcomes, weakest first: the strongest matching one wins. */
export const RULE_OUTCOMES: readonly RuleOutcome[] = Object.freeze(['allow', 'redact', 'ask', 'deny']);

/** A rule as written in the config. */
export interface PolicyRule {
  /** Stable id, recorded with each decision (`detail.rule`). */
  readonly id: string;
  /** A CEL expression that evaluates to `bool`. */
  readonly when: string;
  readonly outcome: RuleOutcome;
  /** Shown with the decision (default: the rule's id and expression). */
  readonly reason?: string;
}

/** The variables a rule sees (plain JSON-like values). */
export interface RuleVariables {
  readonly principal: { readonly id: string; readonly subject: string; readonly scopes: readonly string[]; readonly claims: Readonly<Record<string, unknown>>; readonly tenant: string };
  readonly server: { readonly id: string; readonly identity: string; readonly labels: readonly string[]; readonly auth: string; readonly tenant: string };
  readonly tool: { readonly name: string; readonly annotations: Readonly<Record<string, unknown>>; readonly labels: readonly string[] };
  readonly method: string;
  readonly serverMethod: string;
  readonly args: Readonly<Record<string, unknown>>;
  readonly session: { readonly id: string; readonly labels: readonly string[]; readonly sources: readonly Readonly<Record<string, unknown>>[] };
  /** Whether the caller has its own connection to the server (true for `shared` servers and where unknown). */
  readonly connected: boolean;
}

/** A rule that failed to compile: `index` is its place in the list, `detail` what is wrong. */
export class RuleCompileError extends Error {
  readonly index: number;
  readonly detail: string;

  constructor(index: number, detail: string) {
    super(`rule ${index}: ${detail}`);
    this.index = index;
    this.detail = detail;
  }
}

/** A compiled rule. */
export interface CompiledRule extends PolicyRule {
  /** Evaluates `when`: true, false, or throws (the caller fails closed). */
  readonly test: (vars: RuleVariables) => boolean;
}

let environment: Environment | undefined;

/** The declared CEL environment (built once per process). */
export function ruleEnvironment(): Environment {
  if (environment !== undefined) return environment;
  const env = new Environment({ homogeneousAggregateLiterals: false, limits: { maxAstNodes: 2000, maxDepth: 64, maxListElements: 256, maxMapEntries: 256, maxCallArguments: 16 } });
  env.registerType('Principal', { fields: { id: 'string', subject: 'string', scopes: 'list<string>', claims: 'map<string, dyn>', tenant: 'string' } });
  env.registerType('Server', { fields: { id: 'string', identity: 'string', labels: 'list<string>', auth: 'string', tenant: 'string' } });
  env.registerType('Tool', { fields: { name: 'string', annotations: 'map<string, dyn>', labels: 'list<string>' } });
  env.registerType('Session', { fields: { id: 'string', labels: 'list<string>', sources: 'list<map<string, dyn>>' } });
  env.registerVariable('principal', 'Principal');
  env.registerVariable('server', 'Server');
  env.registerVariable('tool', 'Tool');
  env.registerVariable('session', 'Session');
  env.registerVariable('method', 'string');
  env.registerVariable('serverMethod', 'string');
  env.registerVariable('args', 'map<string, dyn>');
  env.registerVariable('connected', 'bool');
  environment = env;
  return env;
}

const ID = /^[A-Za-z0-9_.:-]{1,64}$/;

/**
 * Compiles rules once: each must have a unique id, parse, and type-check to `bool` against
 * {@link ruleEnvironment}. Throws {@link RuleCompileError} naming the rule's index.
 */
export function compileRules(rules: readonly PolicyRule[]): readonly CompiledRule[] {
  const env = ruleEnvironment();
  const ids = new Set<string>();
  return Object.freeze(
    rules.map((rule, index): CompiledRule => {
      if (!ID.test(rule.id)) throw new RuleCompileError(index, `id ${JSON.stringify(rule.id)} must match ${ID.source}`);
      if (rule.id.startsWith('builtin.') || rule.id === 'default') throw new RuleCompileError(index, `id ${JSON.stringify(rule.id)} is reserved`);
      if (ids.has(rule.id)) throw new RuleCompileError(index, `duplicate id ${JSON.stringify(rule.id)}`);
      ids.add(rule.id);
      if (!RULE_OUTCOMES.includes(rule.outcome)) throw new RuleCompileError(index, `outcome ${JSON.stringify(rule.outcome)} must be one of ${RULE_OUTCOMES.join(', ')}`);
      let checked;
      try {
        checked = env.check(rule.when);
      } catch (error) {
        throw new RuleCompileError(index, `"when" does not compile: ${firstLine(error)}`);
      }
      if (!checked.valid) throw new RuleCompileError(index, `"when" does not compile: ${firstLine(checked.error)}`);
      if (checked.type !== 'bool') throw new RuleCompileError(index, `"when" must be a bool expression, but it is ${checked.type ?? 'unknown'}`);
      const evaluate = env.parse(rule.when);
      const test = (vars: RuleVariables): boolean => {
        const value: unknown = evaluate(vars as unknown as Record<string, unknown>);
        if (typeof value !== 'boolean') throw new TypeError(`evaluated to ${typeof value}, not bool`);
        return value;
      };
      return Object.freeze({ ...rule, test });
    }),
  );
}

/** The result of evaluating rules: the strongest matching outcome, and every hit. */
export interface RuleVerdict {
  /** The strongest outcome of the matching rules (a rule that threw counts as `deny`); undefined when none matched. */
  readonly outcome: RuleOutcome | undefined;
  /** The first rule with that outcome. */
  readonly rule: string | undefined;
  /** The reasons of the matching rules with that outcome. */
  readonly reasons: readonly string[];
  /** Every rule that matched (or threw), in order. */
  readonly hits: readonly { readonly rule: string; readonly outcome: RuleOutcome; readonly error?: string }[];
}

const NONE: RuleVerdict = Object.freeze({ outcome: undefined, rule: undefined, reasons: Object.freeze([]), hits: Object.freeze([]) });

/**
 * Evaluates every rule (in order) and combines them: deny over ask over redact over allow; the
 * first rule of the winning outcome names the decision. A rule that throws is a `deny` hit
 * naming the error (fail closed).
 */
export function evaluateRules(rules: readonly CompiledRule[], vars: RuleVariables): RuleVerdict {
  let hits: { rule: string; outcome: RuleOutcome; error?: string }[] | undefined;
  let best = -1;
  for (const rule of rules) {
    let matched: boolean;
    let error: string | undefined;
    try {
      matched = rule.test(vars);
    } catch (caught) {
      matched = true;
      error = firstLine(caught);
    }
    if (!matched) continue;
    const outcome = error === undefined ? rule.outcome : 'deny';
    (hits ??= []).push(error === undefined ? { rule: rule.id, outcome } : { rule: rule.id, outcome, error });
    best = Math.max(best, RULE_OUTCOMES.indexOf(outcome));
  }
  if (hits === undefined) return NONE;
  const outcome = RULE_OUTCOMES[best] as RuleOutcome;
  const winners = hits.filter((h) => h.outcome === outcome);
  const reasonOf = (h: { rule: string; error?: string }): string => {
    const rule = rules.find((r) => r.id === h.rule) as CompiledRule;
    return h.error !== undefined ? `rule ${h.rule} failed to evaluate (${h.error}), so it denies` : (rule.reason ?? `rule ${h.rule} (${rule.when})`);
  };
  return { outcome, rule: winners[0]?.rule, reasons: winners.map(reasonOf), hits };
}

function firstLine(error: unknown): string {
  const text = error instanceof Error ? error.message : String(error);
  return text.split('\n')[0] ?? text;
}
