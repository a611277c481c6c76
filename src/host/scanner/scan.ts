/**
 * The scanner's entry points: {@link scanTools} (one server's tool definitions, judged
 * against other servers' tools for shadowing) and {@link scanServer} (everything a server
 * lists, its instructions included). Pure and deterministic: no I/O, no clock, no
 * randomness; the same input gives the same report.
 *
 * Verdicts: `block` when a blocking finding exists, `warn` with any other finding above
 * severity `low`, else `pass` (findings of severity `low` are notes: a phrase quoted or
 * described, an example; listed, never acted on). Only rules with a near-zero false-positive rate block by themselves (hidden tag
 * characters, chat-template tokens, an override phrase used as an order, credentials sent to
 * an outsider, decoded payloads that hold instructions, ...) or in combination (see
 * `rules/combination.ts`); everything else warns, so forceful but honest documentation
 * ("You MUST call this before …") never blocks.
 *
 * @module
 */
import { analyze, emit, toFindings, type AnalyzedItem, type Hit, type TextContext } from './analysis.js';
import { checkDirectives } from './rules/directives.js';
import { checkCombinations } from './rules/combination.js';
import { checkDataFlow } from './rules/dataflow.js';
import { checkEncoded } from './rules/encoded.js';
import { checkInjection } from './rules/injection.js';
import { checkLookAlikes } from './rules/lookalikes.js';
import { checkParameters } from './rules/parameters.js';
import { checkShadowing } from './rules/shadowing.js';
import { checkStealth } from './rules/stealth.js';
import { checkHiddenUnicode } from './rules/unicode.js';
import { instructionsItem, promptItem, resourceItem, toolItem, type ScanItem } from './strings.js';
import { SEVERITIES, type ItemReport, type PeerTool, type ScanOptions, type ScanReport, type ServerSnapshot, type Severity, type Verdict } from './types.js';

/** The rules that read text alone (also run on decoded payloads). */
function textRules(target: AnalyzedItem, depth: number): void {
  checkHiddenUnicode(target);
  checkInjection(target);
  checkStealth(target);
  checkDataFlow(target);
  checkDirectives(target);
  checkEncoded(target, (text, inner) => scanText(text, inner, target.context), depth);
}

/**
 * Runs the text rules on one free text as if it were a tool's description (decoded payloads
 * here; in context `result`, tool results, errors and a server's requests in the sanitiser).
 * Hits are located at `$`.
 */
export function scanText(text: string, depth = 0, context: TextContext = 'definition'): readonly Hit[] {
  const target = analyze({ kind: 'tool', name: 'decoded', strings: [{ path: '$', role: 'description', text }], parameters: [] }, undefined, new Set(), [], context);
  textRules(target, depth);
  return target.hits;
}

function report(item: ScanItem, server: string | undefined, ownNames: ReadonlySet<string>, peers: readonly PeerTool[]): ItemReport {
  const target = analyze(item, server, ownNames, peers);
  if (item.unread !== undefined) {
    emit(target, { rule: 'limits/unread', family: 'limits', severity: 'high', confidence: 'high', blocking: true, message: `part of the definition was not read (${item.unread}): blocked rather than passed unread`, evidence: item.unread, path: '$' });
  }
  textRules(target, 0);
  checkShadowing(target);
  checkLookAlikes(target);
  checkParameters(target);
  checkCombinations(target);
  const findings = toFindings(target);
  // Notes (severity low: a phrase quoted or described, an example) are listed but do not warn.
  const verdict: Verdict = findings.some((f) => f.blocking) ? 'block' : findings.some((f) => f.severity !== 'low') ? 'warn' : 'pass';
  return { kind: item.kind, server, item: item.name, verdict, severity: highest(findings.map((f) => f.severity)), findings };
}

/** The highest of some severities (undefined for none). */
export function highest(severities: readonly Severity[]): Severity | undefined {
  let best = -1;
  for (const s of severities) best = Math.max(best, SEVERITIES.indexOf(s));
  return best < 0 ? undefined : SEVERITIES[best];
}

function summarise(items: ItemReport[]): ScanReport {
  const counts = { pass: 0, warn: 0, block: 0 };
  for (const i of items) counts[i.verdict]++;
  return { items, counts };
}

/**
 * Scans tool definitions (the `tools` of a `tools/list` result, as sent). `peers` are other
 * servers' tools (for shadowing and impersonation); the definitions' own names are never
 * references to another server.
 */
export function scanTools(definitions: readonly unknown[], options: ScanOptions = {}): ScanReport {
  const items = definitions.map((d, i) => toolItem(d, i));
  const own = new Set(items.map((i) => i.name.toLowerCase()));
  return summarise(items.map((i) => report(i, options.server, own, options.peers ?? [])));
}

/** Scans everything one server exposes: instructions, tools, prompts, resources and templates. */
export function scanServer(snapshot: ServerSnapshot, options: Omit<ScanOptions, 'server'> = {}): ScanReport {
  const server = snapshot.server;
  const items: ScanItem[] = [
    ...(snapshot.instructions !== undefined ? [instructionsItem(snapshot.instructions)] : []),
    ...(snapshot.tools ?? []).map((d, i) => toolItem(d, i)),
    ...(snapshot.prompts ?? []).map((d, i) => promptItem(d, i)),
    ...(snapshot.resources ?? []).map((d, i) => resourceItem(d, 'resource', i)),
    ...(snapshot.templates ?? []).map((d, i) => resourceItem(d, 'template', i)),
  ];
  const own = new Set([...(snapshot.tools ?? []).map((d, i) => toolItem(d, i).name.toLowerCase()), ...(snapshot.prompts ?? []).map((d, i) => promptItem(d, i).name.toLowerCase())]);
  return summarise(items.map((i) => report(i, server, own, options.peers ?? [])));
}

/**
 * Scans several servers at once, each judged against the tools of all the others (what a
 * host sees at list time).
 */
export function scanServers(snapshots: readonly ServerSnapshot[]): ScanReport {
  const peersOf = (index: number): PeerTool[] =>
    snapshots.flatMap((s, j) =>
      j === index
        ? []
        : (s.tools ?? []).map((t) => {
            const item = toolItem(t);
            const def = (typeof t === 'object' && t !== null ? t : {}) as { description?: unknown };
            return { server: s.server ?? `#${j}`, tool: { name: item.name, description: typeof def.description === 'string' ? def.description : undefined } };
          }),
    );
  return summarise(snapshots.flatMap((s, i) => [...scanServer({ ...s, server: s.server ?? `#${i}` }, { peers: peersOf(i) }).items]));
}
