/**
 * The lethal trifecta: private data, untrusted content, and a way to send data out (or to
 * destroy) in one session. At run time ({@link trifectaReasons}) a call with `egress` or
 * `destructive` labels in a session where untrusted content has entered and private data has
 * been read is asked (or denied), with reasons naming which call brought which label in.
 * Statically ({@link trifectaReport}) the configured and inferred labels
 * ({@link staticCapabilities}) show which combinations of servers complete it.
 *
 * @module
 */
import { catalogCapabilities, matchCatalog, UNVETTED_EVIDENCE, type LaunchEvidence } from './inferLabels.js';
import { LabelResolver, type Label, type ResolvedLabels, type ServerLabelConfig } from './labels.js';
import { LABELS } from './labelNames.js';
import type { TaintSource, TaintState } from './taint.js';

/** The id of the built-in trifecta rule. */
export const TRIFECTA_RULE = 'builtin.trifecta';

/**
 * Why this call completes the trifecta, or undefined when it does not: one reason per leg
 * (the first call that brought untrusted content, the first that read private data, and the
 * target's egress or destructive label with its origin).
 */
export function trifectaReasons(state: TaintState | undefined, target: ResolvedLabels, server: string, tool: string | undefined): string[] | undefined {
  if (state === undefined) return undefined;
  const leg = target.labels.includes('egress') ? 'egress' : target.labels.includes('destructive') ? 'destructive' : undefined;
  if (leg === undefined) return undefined;
  const untrusted = firstOf(state.sources, 'untrusted-content');
  const privateData = firstOf(state.sources, 'private-data');
  if (untrusted === undefined || privateData === undefined) return undefined;
  return [
    `untrusted content entered the session with ${describe(untrusted)}`,
    `private data was read with ${describe(privateData)}`,
    `${where(server, tool)} is ${leg} (${target.origins[leg] ?? 'labels'}): the lethal trifecta (private data + untrusted content + ${leg === 'egress' ? 'a way out' : 'a destructive action'})`,
  ];
}

function firstOf(sources: readonly TaintSource[], label: Label): TaintSource | undefined {
  for (const s of sources) if (s.label === label) return s;
  return undefined;
}

function describe(s: TaintSource): string {
  return `${where(s.server, s.tool)} at ${new Date(s.at).toISOString()} (${s.via})`;
}

function where(server: string, tool: string | undefined): string {
  return tool === undefined ? `server ${server}` : `${server}/${tool}`;
}

/** One combination of servers that completes the trifecta by their configured labels. */
export interface TrifectaCombination {
  readonly servers: readonly string[];
  /** Which server brings which leg. */
  readonly legs: Readonly<Record<'private-data' | 'untrusted-content' | 'egress-or-destructive', readonly string[]>>;
}

/** The labels a server can bring (its own and any of its tools'). */
export function serverCapabilities(config: ServerLabelConfig | undefined): Set<Label> {
  const out = new Set<Label>(config?.labels ?? []);
  for (const labels of Object.values(config?.toolLabels ?? {})) for (const l of labels) out.add(l);
  return out;
}

/**
 * The minimal combinations (one, two or three servers) of `servers` whose labels together
 * complete the trifecta: no smaller subset of a combination completes it. `inferred` adds each
 * server's inferred labels ({@link staticCapabilities}) to its configured ones.
 */
export function trifectaReport(servers: readonly string[], labels: Readonly<Record<string, ServerLabelConfig>>, inferred: Readonly<Record<string, readonly Label[]>> = {}): TrifectaCombination[] {
  const caps = new Map(servers.map((id) => [id, new Set<Label>([...serverCapabilities(labels[id]), ...(inferred[id] ?? [])])]));
  const completes = (ids: readonly string[]): boolean => {
    const all = new Set<Label>();
    for (const id of ids) for (const l of caps.get(id) ?? []) all.add(l);
    return all.has('private-data') && all.has('untrusted-content') && (all.has('egress') || all.has('destructive'));
  };
  const found: string[][] = [];
  const minimal = (ids: string[]): boolean => !found.some((f) => f.every((id) => ids.includes(id)));
  const n = servers.length;
  const ids = servers as string[];
  for (let size = 1; size <= 3; size++) {
    const pick = (start: number, chosen: string[]): void => {
      if (chosen.length === size) {
        if (minimal(chosen) && completes(chosen)) found.push([...chosen]);
        return;
      }
      for (let i = start; i < n; i++) pick(i + 1, [...chosen, ids[i] as string]);
    };
    pick(0, []);
  }
  return found.map((combo) => ({
    servers: combo,
    legs: {
      'private-data': combo.filter((id) => caps.get(id)?.has('private-data')),
      'untrusted-content': combo.filter((id) => caps.get(id)?.has('untrusted-content')),
      'egress-or-destructive': combo.filter((id) => caps.get(id)?.has('egress') || caps.get(id)?.has('destructive')),
    },
  }));
}

/** What a server can bring, as the static report sees it: configured and inferred labels, and the inferred ones' evidence. */
export interface StaticCapabilities {
  readonly labels: readonly Label[];
  /** One line per inferred label of a tool (`send_email: inferred: egress from parameter \`to\` of send_email`). */
  readonly evidence: readonly string[];
}

/** A server as the static report knows it: its launch, and (after a scan listed it) its tools and `serverInfo.name`. */
export interface StaticServer {
  readonly id: string;
  readonly launch: LaunchEvidence;
  readonly tools?: readonly unknown[] | undefined;
  readonly serverInfoName?: string | undefined;
}

/**
 * Each server's labels for the static report, from the same resolver the gateway runs (so explicit
 * labels win the same way): per listed tool when its tools are known, else what its catalog entry
 * can bring (every tool of the entry) plus the unvetted-server label.
 */
export function staticCapabilities(servers: readonly StaticServer[], labels: Readonly<Record<string, ServerLabelConfig>>): Record<string, StaticCapabilities> {
  const launches = new Map(servers.map((s) => [s.id, s.launch]));
  const resolver = new LabelResolver(labels, undefined, { launchOf: (id) => launches.get(id) });
  const out: Record<string, StaticCapabilities> = {};
  for (const server of servers) {
    const all = new Set<Label>(serverCapabilities(labels[server.id]));
    const evidence = new Set<string>();
    const take = (resolved: ResolvedLabels, tool: string | undefined): void => {
      for (const l of resolved.labels) {
        all.add(l);
        const why = resolved.origins[l];
        // The unvetted-server label is the server's, not a tool's: said once.
        if (why?.startsWith('inferred:') === true) evidence.add(tool === undefined || why === UNVETTED_EVIDENCE ? why : `${tool}: ${why}`);
      }
    };
    const tools = (server.tools ?? []).filter((t): t is Record<string, unknown> => typeof t === 'object' && t !== null && typeof (t as Record<string, unknown>)['name'] === 'string');
    for (const tool of tools) take(resolver.resolve(server.id, tool['name'] as string, tool, server.serverInfoName), tool['name'] as string);
    take(resolver.resolve(server.id, undefined, undefined, server.serverInfoName), undefined);
    const match = labels[server.id]?.inferLabels === false ? undefined : matchCatalog({ launch: server.launch, serverInfoName: server.serverInfoName });
    if (server.tools === undefined && match !== undefined) {
      const can = catalogCapabilities(match);
      for (const l of can) all.add(l);
      if (can.length > 0) evidence.add(`inferred: ${can.join(', ')} from the ${match.entry.id} catalog (${match.by}): what its tools can bring (a scan that lists them labels each)`);
    }
    out[server.id] = { labels: LABELS.filter((l) => all.has(l)), evidence: [...evidence] };
  }
  return out;
}

