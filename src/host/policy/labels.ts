/**
 * Labels: what a server or tool does with data, for the trifecta and for rules.
 *
 * | label | means |
 * |---|---|
 * | `private-data` | its results carry the user's private data (notes, mail, files) |
 * | `untrusted-content` | its results carry text nobody vetted (web pages, issues, mail from others) |
 * | `egress` | it can send data out (messages, HTTP requests, uploads) |
 * | `destructive` | it changes or deletes things |
 *
 * Where labels come from, in order:
 * 1. the config: `switchboard.servers.<id>.labels` (every tool of the server) and
 *    `switchboard.servers.<id>.toolLabels: { "<glob>": [labels] }` (tools whose name matches);
 * 2. the pinned definition's annotations, as hints only, and only when no `toolLabels` pattern
 *    matches the tool (the config overrides hints): `destructiveHint: true` → `destructive`,
 *    `openWorldHint: true` → `untrusted-content`. Only explicit `true` counts: the spec's
 *    defaults for absent hints are not evidence of anything
 *    (https://modelcontextprotocol.io/specification/2025-11-25/server/tools#tool-annotations);
 * 3. inference (`inferLabels.ts`, when the resolver is given an `inference` source and the
 *    server's `inferLabels` is not `false`), also only when no `toolLabels` pattern matches the
 *    tool: the built-in catalog of well-known servers, rules over names and parameters, and
 *    `untrusted-content` for a server nobody vetted (not recognised by the catalog from its
 *    launch, and with no `labels`/`toolLabels` in the config). Computed once per pinned
 *    definition;
 * 4. the scanner: an `exfiltration` finding → `egress`, a `sensitive` finding (the definition
 *    asks for credentials or private files) → `private-data`. Scanner labels only add.
 *
 * So explicit labels win: a `toolLabels` pattern replaces every hint and inference for the
 * tools it matches (`"toolLabels": { "search": [] }` says "`search` carries nothing"), and
 * `inferLabels: false` turns inference off for the whole server.
 *
 * @module
 */
import { compileGlob } from '../toolFilter.js';
import { inferLabels, matchCatalog, UNVETTED_EVIDENCE, type LaunchEvidence } from './inferLabels.js';
import { LABELS, type Label } from './labelNames.js';

export { LABELS, isLabel, type Label } from './labelNames.js';

/** The configured labels of one server (`switchboard.servers.<id>.labels` and `.toolLabels`). */
export interface ServerLabelConfig {
  /** Labels of every tool, prompt and resource of the server. */
  readonly labels: readonly Label[];
  /** Per-tool labels: glob (`*`, `?`) over the server's own tool name → labels. Every matching pattern adds. */
  readonly toolLabels: Readonly<Record<string, readonly Label[]>>;
  /** `false`: no inferred labels for this server (`switchboard.servers.<id>.inferLabels`). Default on. */
  readonly inferLabels?: boolean;
}

/** Where inference learns what a server is: its launch as configured (undefined: unknown). */
export interface LabelInference {
  readonly launchOf: (serverId: string) => LaunchEvidence | undefined;
}

/** Where a label of a tool came from. */
export type LabelOrigin = 'config' | 'annotation' | 'inferred' | 'scanner';

/** The labels of a tool (or a server's other items), with where each came from. */
export interface ResolvedLabels {
  readonly labels: readonly Label[];
  /** Per label, why it is there (e.g. `config servers.notes.labels`, `annotation destructiveHint`). */
  readonly origins: Readonly<Partial<Record<Label, string>>>;
}

/** The scanner's findings of a definition, as far as labels need them. */
export type FindingsOf = (definition: object) => readonly { readonly family: string; readonly rule: string }[] | undefined;

const SCANNER_LABELS: Readonly<Record<string, Label>> = { exfiltration: 'egress', sensitive: 'private-data' };

/** Resolves labels of servers and tools from the config, annotations, inference and scanner findings; resolved sets are cached per definition. */
export class LabelResolver {
  readonly #servers = new Map<string, { readonly labels: readonly Label[]; readonly infer: boolean; readonly vetted: boolean; readonly patterns: readonly { readonly pattern: string; readonly match: (name: string) => boolean; readonly labels: readonly Label[] }[] }>();
  readonly #findingsOf: FindingsOf | undefined;
  readonly #inference: LabelInference | undefined;
  readonly #cache = new WeakMap<object, { readonly info: string | undefined; readonly resolved: ResolvedLabels }>();

  /** `inference` turns label inference on (the gateway passes it; without it only config, hints and the scanner count). */
  constructor(config: Readonly<Record<string, ServerLabelConfig>>, findingsOf?: FindingsOf, inference?: LabelInference) {
    for (const [id, c] of Object.entries(config)) {
      this.#servers.set(id, {
        labels: c.labels,
        infer: c.inferLabels !== false,
        // An operator who described the server vetted it.
        vetted: c.labels.length > 0 || Object.keys(c.toolLabels).length > 0,
        patterns: Object.entries(c.toolLabels).map(([pattern, labels]) => ({ pattern, match: compileGlob(pattern), labels })),
      });
    }
    this.#findingsOf = findingsOf;
    this.#inference = inference;
  }

  /** The configured labels of a server (every item of it carries them). */
  serverLabels(serverId: string): readonly Label[] {
    return this.#servers.get(serverId)?.labels ?? [];
  }

  /**
   * The labels of an item of `serverId`: a tool (`toolName` its own name, `definition` the
   * pinned definition) or, without a tool name, a prompt or resource (server labels, the
   * unvetted-server label and scanner). `serverInfoName` is what the server said it is.
   */
  resolve(serverId: string, toolName: string | undefined, definition: Readonly<Record<string, unknown>> | undefined, serverInfoName?: string): ResolvedLabels {
    if (definition !== undefined) {
      const cached = this.#cache.get(definition);
      if (cached !== undefined && cached.info === serverInfoName) return cached.resolved;
    }
    const origins: Partial<Record<Label, string>> = {};
    const add = (label: Label, why: string): void => {
      if (origins[label] === undefined) origins[label] = why;
    };
    const server = this.#servers.get(serverId);
    for (const label of server?.labels ?? []) add(label, `config servers.${serverId}.labels`);
    let configured = false;
    if (toolName !== undefined) {
      for (const p of server?.patterns ?? []) {
        if (!p.match(toolName)) continue;
        configured = true;
        for (const label of p.labels) add(label, `config servers.${serverId}.toolLabels[${JSON.stringify(p.pattern)}]`);
      }
    }
    if (!configured && toolName !== undefined && definition !== undefined) {
      for (const [label, why] of annotationLabels(definition['annotations'])) add(label, why);
    }
    if (!configured && this.#inference !== undefined && server?.infer !== false) {
      const evidence = { launch: this.#inference.launchOf(serverId), serverInfoName };
      const vetted = server?.vetted === true;
      if (toolName !== undefined && definition !== undefined) {
        const inferred = inferLabels(evidence, { name: toolName, inputSchema: definition['inputSchema'] }, { vetted });
        for (const label of inferred.labels) add(label, inferred.evidence[label] ?? 'inferred');
      } else if (!vetted && matchCatalog(evidence)?.vetted !== true) {
        add('untrusted-content', UNVETTED_EVIDENCE);
      }
    }
    if (definition !== undefined) {
      for (const f of this.#findingsOf?.(definition) ?? []) {
        const label = SCANNER_LABELS[f.family];
        if (label !== undefined) add(label, `scanner ${f.rule}`);
      }
    }
    const resolved: ResolvedLabels = Object.freeze({ labels: Object.freeze(LABELS.filter((l) => origins[l] !== undefined)), origins: Object.freeze(origins) });
    // Scanner verdicts arrive on list; cache only once there is nothing more to learn from it.
    if (definition !== undefined && (this.#findingsOf === undefined || this.#findingsOf(definition) !== undefined)) this.#cache.set(definition, { info: serverInfoName, resolved });
    return resolved;
  }
}

/** The labels that a tool's annotations hint at (explicit `true` only), with why. */
export function annotationLabels(annotations: unknown): [Label, string][] {
  if (typeof annotations !== 'object' || annotations === null) return [];
  const a = annotations as Record<string, unknown>;
  const out: [Label, string][] = [];
  if (a['destructiveHint'] === true) out.push(['destructive', 'annotation destructiveHint']);
  if (a['openWorldHint'] === true) out.push(['untrusted-content', 'annotation openWorldHint']);
  return out;
}
