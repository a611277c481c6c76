/**
 * The policy engine behind a reload: {@link ReloadablePolicy} is the `policy` interceptor for
 * the life of the gateway, and swaps the engine it delegates to when the config's policy
 * section or labels change.
 *
 * - **Atomic.** A new engine is built in full (rules already compiled by the config loader)
 *   before one reference is replaced. A request decides with the engine current when it
 *   entered the phase, never with a mix of old and new rules.
 * - **Taint survives.** The taint store and the key of the secret fingerprints are kept across
 *   reloads, so a reload never sheds what entered a session.
 * - **A policy that does not compile is not applied.** The config loader refuses the whole
 *   file (naming the rule's JSON path) and the running policy stays, as it was vetted at
 *   start or at the last good reload; the gateway reports the error and records it in the
 *   audit log (see `docs/policy.md`, "Reloading"). Nothing is allowed that the running policy
 *   did not already allow.
 * - **Audited.** {@link ReloadablePolicy.reload} says what changed (rule ids added, removed or
 *   changed, built-in modes, labels, dry run, windows) and the digests before and after, for the
 *   caller's `policy` audit record.
 *
 * @module
 */
import { canonicalize } from '../../util/canonicalJson.js';
import { sha256Hex } from '../../util/sha256.js';
import type { AuditEntry } from '../audit.js';
import type { InterceptContext, Interceptor, Next } from '../interceptors.js';
import type { ServerLabelConfig } from './labels.js';
import type { PolicyConfig } from './policyConfig.js';
import { POLICY_INTERCEPTOR_ID, policyInterceptor, type PolicyOptions } from './policyEngine.js';
import { MemoryTaintStore } from './taint.js';
import { SecretFingerprints } from './valueTaint.js';

/** What the reloadable policy keeps across reloads, and the parts the config does not set (`fingerprints`: default a fresh per-process key). */
export type PolicyBase = Omit<PolicyOptions, 'rules' | 'labels' | 'trifecta' | 'valueTaint' | 'serverRequests' | 'dryRun' | 'windows'>;

/** What a reload changed. */
export interface PolicyChange {
  /** `sha256:` of the canonical policy section and labels, before and after. */
  readonly from: string;
  readonly to: string;
  readonly added: readonly string[];
  readonly removed: readonly string[];
  /** Rule ids whose `when`, outcome or reason changed. */
  readonly changed: readonly string[];
  /** Other settings that changed (`trifecta`, `valueTaint`, `serverRequests`, `dryRun`, `windows`, `labels`). */
  readonly settings: readonly string[];
}

/** Whether a policy section has anything to decide (else the engine is not run at all). */
function active(p: PolicyConfig): boolean {
  return p.compiled.length > 0 || p.trifecta !== 'off' || p.valueTaint !== 'off' || p.serverRequests !== 'off';
}

/** The `policy` interceptor that can be reloaded (see the module comment). */
export class ReloadablePolicy {
  readonly #base: PolicyBase;
  readonly #fingerprints: SecretFingerprints;
  #policy: PolicyConfig;
  #labels: Readonly<Record<string, ServerLabelConfig>>;
  #engine: Interceptor | undefined;
  #digest: string;

  /** The interceptor to install once; it delegates to the engine current at each request. */
  readonly interceptor: Interceptor;

  constructor(base: PolicyBase, policy: PolicyConfig, labels: Readonly<Record<string, ServerLabelConfig>>) {
    this.#base = { ...base, store: base.store ?? new MemoryTaintStore() };
    this.#fingerprints = base.fingerprints ?? new SecretFingerprints();
    this.#policy = policy;
    this.#labels = labels;
    this.#engine = this.#build(policy, labels);
    this.#digest = policyDigest(policy, labels);
    this.interceptor = {
      id: POLICY_INTERCEPTOR_ID,
      phase: 'policy',
      intercept: (ctx: InterceptContext, next: Next): Promise<unknown> => {
        const engine = this.#engine;
        return engine === undefined ? next() : engine.intercept(ctx, next);
      },
    };
  }

  /** `sha256:` of the running policy (section and labels). */
  get digest(): string {
    return this.#digest;
  }

  /** The running policy section (from the config, or the cluster's when shared). */
  get config(): PolicyConfig {
    return this.#policy;
  }

  /** The running servers' labels. */
  get labels(): Readonly<Record<string, ServerLabelConfig>> {
    return this.#labels;
  }

  /** Whether the running policy decides anything (rules or a built-in on). */
  get active(): boolean {
    return this.#engine !== undefined;
  }

  /** Applies `policy` and `labels`; undefined when nothing changed. */
  reload(policy: PolicyConfig, labels: Readonly<Record<string, ServerLabelConfig>>): PolicyChange | undefined {
    const digest = policyDigest(policy, labels);
    if (digest === this.#digest) return undefined;
    const engine = this.#build(policy, labels);
    const change = diff(this.#policy, this.#labels, policy, labels, this.#digest, digest);
    // One assignment: requests entering the phase from now on use the new engine.
    this.#engine = engine;
    this.#policy = policy;
    this.#labels = labels;
    this.#digest = digest;
    return change;
  }

  #build(policy: PolicyConfig, labels: Readonly<Record<string, ServerLabelConfig>>): Interceptor | undefined {
    if (!active(policy)) return undefined;
    return policyInterceptor({
      ...this.#base,
      rules: { compiled: policy.compiled },
      labels,
      trifecta: policy.trifecta,
      valueTaint: policy.valueTaint,
      serverRequests: policy.serverRequests,
      dryRun: policy.dryRun,
      windows: policy.windows,
      fingerprints: this.#fingerprints,
    });
  }
}

/** `sha256:` of the canonical policy section (rules as written, built-ins, dry run, windows) and labels. */
export function policyDigest(policy: PolicyConfig, labels: Readonly<Record<string, ServerLabelConfig>>): string {
  const { compiled: _compiled, ...section } = policy;
  return `sha256:${sha256Hex(canonicalize({ section, labels }))}`;
}

function diff(
  before: PolicyConfig,
  beforeLabels: Readonly<Record<string, ServerLabelConfig>>,
  after: PolicyConfig,
  afterLabels: Readonly<Record<string, ServerLabelConfig>>,
  from: string,
  to: string,
): PolicyChange {
  const old = new Map(before.rules.map((r) => [r.id, canonicalize(r)]));
  const now = new Map(after.rules.map((r) => [r.id, canonicalize(r)]));
  const settings: string[] = [];
  for (const key of ['trifecta', 'valueTaint', 'serverRequests', 'dryRun'] as const) if (before[key] !== after[key]) settings.push(key);
  if (canonicalize(before.windows) !== canonicalize(after.windows)) settings.push('windows');
  if (canonicalize(beforeLabels) !== canonicalize(afterLabels)) settings.push('labels');
  return {
    from,
    to,
    added: [...now.keys()].filter((id) => !old.has(id)),
    removed: [...old.keys()].filter((id) => !now.has(id)),
    changed: [...now.keys()].filter((id) => old.has(id) && old.get(id) !== now.get(id)),
    settings,
  };
}

/** One line saying what a reload changed. */
export function describePolicyChange(change: PolicyChange): string {
  const parts = [
    change.added.length > 0 ? `rules added: ${change.added.join(', ')}` : undefined,
    change.removed.length > 0 ? `rules removed: ${change.removed.join(', ')}` : undefined,
    change.changed.length > 0 ? `rules changed: ${change.changed.join(', ')}` : undefined,
    change.settings.length > 0 ? `settings changed: ${change.settings.join(', ')}` : undefined,
  ].filter((p): p is string => p !== undefined);
  return `policy reloaded (${parts.length > 0 ? parts.join('; ') : 'no effective change'}), ${change.from} -> ${change.to}`;
}

/** The `policy` audit record of an applied reload; `cluster`: the shared version it applied (and who published it). */
export function policyChangeEntry(change: PolicyChange, time: number, cluster?: { readonly version: number; readonly publishedBy: string; readonly published: boolean }): AuditEntry {
  const reason = cluster === undefined ? describePolicyChange(change) : `${describePolicyChange(change)}; cluster policy version ${cluster.version} ${cluster.published ? 'published by this instance' : `published by ${cluster.publishedBy}`}`;
  return {
    time: new Date(time).toISOString(),
    kind: 'policy',
    method: 'policy/reload',
    decisions: [{ interceptor: POLICY_INTERCEPTOR_ID, outcome: 'change', reason, detail: { ...change, ...(cluster !== undefined ? { cluster } : {}) } }],
    outcome: 'ok',
    latencyMs: 0,
  };
}

/** The `config` audit record of a reload that was refused (the running config and policy are kept). */
export function refusedReloadEntry(error: string, time: number): AuditEntry {
  return {
    time: new Date(time).toISOString(),
    kind: 'config',
    method: 'config/reload',
    decisions: [{ interceptor: POLICY_INTERCEPTOR_ID, outcome: 'deny', reason: 'the changed config was refused; the running config and policy are kept' }],
    outcome: 'error',
    error,
    latencyMs: 0,
  };
}
