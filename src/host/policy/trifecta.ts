/**
 * The lethal trifecta: private data, untrusted content, and a way to send data out (or to
 * destroy) in one session. At run time ({@link trifectaReasons}) a call with `egress` or
 * `destructive` labels in a session where untrusted content has entered and private data has
 * been read is asked (or denied), with reasons naming which call brought which label in.
 * Statically ({@link trifectaReport}) the configured labels show which combinations of
 * servers complete it.
 *
 * @module
 */
import type { Label, ResolvedLabels, ServerLabelConfig } from './labels.js';
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
 * complete the trifecta: no smaller subset of a combination completes it.
 */
export function trifectaReport(servers: readonly string[], labels: Readonly<Record<string, ServerLabelConfig>>): TrifectaCombination[] {
  const caps = new Map(servers.map((id) => [id, serverCapabilities(labels[id])]));
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
