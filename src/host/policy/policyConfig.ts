/**
 * The parsed `switchboard.policy` section (parsed by `configPolicy.ts`; kept here so the
 * config types can name it without importing the parser).
 *
 * @module
 */
import type { BuiltinMode } from './policyEngine.js';
import type { CompiledRule, PolicyRule } from './rules.js';
import type { TaintWindows } from './taint.js';

/** The parsed `switchboard.policy` section. */
export interface PolicyConfig {
  /** The rules as written. */
  readonly rules: readonly PolicyRule[];
  /** The same rules, compiled at load. */
  readonly compiled: readonly CompiledRule[];
  /** Record decisions, never enforce them. Default false. */
  readonly dryRun: boolean;
  /** The built-in trifecta rule. Default `ask`. */
  readonly trifecta: BuiltinMode;
  /** The built-in value-taint rule. Default `ask`. */
  readonly valueTaint: BuiltinMode;
  /** Sampling / elicitation from a server while untrusted content is in the session. Default `ask`. */
  readonly serverRequests: BuiltinMode;
  /** How long taint lives after its last entry. */
  readonly windows: TaintWindows;
  /** Most taint keys (sessions, conversations, principals) tracked. Default 10000. */
  readonly maxTrackedSessions: number;
}
