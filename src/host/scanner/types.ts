/**
 * The scanner's vocabulary: findings (rule id, severity, confidence, location, evidence), the
 * per-item verdict and the inputs it reads. Everything here is plain data, so a report can be
 * serialised as JSON or SARIF as it is.
 *
 * @module
 */
import type { ItemKind } from '../../protocol/model/common.js';

/** How bad a finding is if it is true. Ordered lowest first in {@link SEVERITIES}. */
export type Severity = 'low' | 'medium' | 'high' | 'critical';

/** The severities, lowest first. */
export const SEVERITIES: readonly Severity[] = Object.freeze(['low', 'medium', 'high', 'critical']);

/** How sure the rule is that the text means what it matched. */
export type Confidence = 'low' | 'medium' | 'high';

/**
 * What the scanner concludes for one item: `block` (a near-zero-false-positive rule fired:
 * hide it from the model, refuse calls), `warn` (findings for a person to review, the item
 * stays usable) or `pass` (no finding above severity `low`: notes only).
 */
export type Verdict = 'pass' | 'warn' | 'block';

/** What the scanner judges: a listed item, or (`server`) the server's own `instructions`. */
export type ScannedKind = ItemKind | 'server';

/** The rule families (one file each under `rules/`). */
export type RuleFamily =
  | 'hidden-unicode'
  | 'instruction-tag'
  | 'override'
  | 'concealment'
  | 'coercion'
  | 'sensitive'
  | 'exfiltration'
  | 'covert-parameter'
  | 'shadowing'
  | 'encoded-payload'
  | 'markup-smuggling'
  | 'persona'
  | 'preference'
  | 'capability-mismatch'
  | 'secret'
  | 'combination'
  | 'limits'
  | 'directive'
  | 'solicit';

/** Where a finding is: the item, and the JSON path of the string inside its definition. */
export interface FindingLocation {
  readonly kind: ScannedKind;
  /** The server's id (or the name given to `scanTools`), when known. */
  readonly server: string | undefined;
  /** The item's name (tool/prompt name, resource URI, template URI template; `instructions` for the server). */
  readonly item: string;
  /** JSON path inside the definition: `$.description`, `$.inputSchema.properties.path.description`. */
  readonly path: string;
}

/** One thing a rule found. */
export interface Finding {
  /** Stable rule id, `<family>/<name>` (e.g. `hidden-unicode/tag-block`). */
  readonly rule: string;
  readonly family: RuleFamily;
  readonly severity: Severity;
  readonly confidence: Confidence;
  /** True when this finding alone makes the item's verdict `block`. */
  readonly blocking: boolean;
  /** What the rule saw, in one sentence. */
  readonly message: string;
  /** The matched text, shown safely (invisible characters escaped, decoded payloads spelled out), at most 200 characters. */
  readonly evidence: string;
  readonly location: FindingLocation;
}

/** The scan of one item. */
export interface ItemReport {
  readonly kind: ScannedKind;
  readonly server: string | undefined;
  readonly item: string;
  readonly verdict: Verdict;
  /** Highest severity among the findings, undefined without any. */
  readonly severity: Severity | undefined;
  readonly findings: readonly Finding[];
}

/** A definition from another server that the scanned items are judged against (shadowing). */
export interface PeerTool {
  readonly server: string;
  readonly tool: { readonly name: string; readonly description?: string | undefined; readonly title?: string | undefined };
}

/** What a server exposes, as listed (every field optional: scan what you have). */
export interface ServerSnapshot {
  /** The server's id (config key) or any label. */
  readonly server?: string;
  readonly instructions?: string | undefined;
  readonly tools?: readonly unknown[];
  readonly prompts?: readonly unknown[];
  readonly resources?: readonly unknown[];
  readonly templates?: readonly unknown[];
}

/** Options of a scan. */
export interface ScanOptions {
  /** The server the items come from (shown in locations; references to its own tools are not shadowing). */
  readonly server?: string;
  /** Other servers' tools, for shadowing and impersonation. */
  readonly peers?: readonly PeerTool[];
}

/** A whole scan: one report per item plus counts. */
export interface ScanReport {
  readonly items: readonly ItemReport[];
  readonly counts: { readonly pass: number; readonly warn: number; readonly block: number };
}
