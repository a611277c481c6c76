/**
 * `npm run bench:scanner`: the poisoning and shadowing scanner measured on the public corpus
 * in the team's corpus folder beside the project (read at run time, never copied into the repo):
 *
 * - per source of `labelled.json`: recall on the malicious items (flagged = warn or block,
 *   and blocked), and the blocking and warning rates on the benign ones;
 * - the warning and blocking rates on the 527 real tools of `real-tools-livemcptool.json`;
 * - the time to scan 1,000 tools (the real tools, cycled, in one `scanTools` call).
 *
 * Every rate comes with a 95% Wilson score interval. Flags: `--corpus DIR` (default
 * the folder `shared/corpus` next to the project root), `--details` (list each miss and each benign
 * item with a finding), `--json` (print the figures as JSON).
 *
 * @module
 */
import { readFileSync } from 'node:fs';
import { dirname, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';
import { scanTools } from '../src/host/scanner/scan.js';
import type { ItemReport, PeerTool } from '../src/host/scanner/types.js';

const ROOT = resolve(dirname(fileURLToPath(import.meta.url)), '..');
const argv = process.argv.slice(2);
const option = (name: string): string | undefined => {
  const i = argv.indexOf(name);
  return i >= 0 ? argv[i + 1] : undefined;
};
const corpus = option('--corpus') !== undefined ? resolve(ROOT, option('--corpus') as string) : resolve(ROOT, '..', 'shared', 'corpus');

interface Labelled {
  readonly id: string;
  readonly label: 'malicious' | 'benign';
  readonly category: string;
  readonly server?: string | null;
  readonly tool: Record<string, unknown>;
  readonly peers: readonly PeerTool[] | null;
}
interface RealTools {
  readonly tools: readonly { readonly server: string; readonly tool: string; readonly description?: string; readonly inputSchema?: unknown }[];
}

/** The 95% Wilson score interval of k successes in n trials. */
export function wilson(k: number, n: number, z = 1.959964): { readonly rate: number; readonly low: number; readonly high: number } {
  if (n === 0) return { rate: 0, low: 0, high: 0 };
  const p = k / n;
  const d = 1 + (z * z) / n;
  const centre = (p + (z * z) / (2 * n)) / d;
  const half = (z * Math.sqrt((p * (1 - p)) / n + (z * z) / (4 * n * n))) / d;
  return { rate: p, low: Math.max(0, centre - half), high: Math.min(1, centre + half) };
}

const fmt = (k: number, n: number): string => {
  const w = wilson(k, n);
  return `${k}/${n} = ${w.rate.toFixed(3)} [${w.low.toFixed(3)}, ${w.high.toFixed(3)}]`;
};

function scanOne(item: Labelled): ItemReport {
  const server = item.server ?? 'server';
  return scanTools([item.tool], { server, peers: item.peers ?? [] }).items[0] as ItemReport;
}

const labelled = JSON.parse(readFileSync(resolve(corpus, 'labelled.json'), 'utf8')) as Labelled[];
const real = JSON.parse(readFileSync(resolve(corpus, 'real-tools-livemcptool.json'), 'utf8')) as RealTools;

const sources = [...new Set(labelled.map((i) => i.id.split(':')[0] as string))];
const rows: Record<string, unknown>[] = [];
const details: string[] = [];
for (const source of [...sources, 'all']) {
  const items = labelled.filter((i) => source === 'all' || i.id.startsWith(`${source}:`));
  const malicious = items.filter((i) => i.label === 'malicious');
  const benign = items.filter((i) => i.label === 'benign');
  const verdicts = new Map(items.map((i) => [i.id, scanOne(i)]));
  const flagged = malicious.filter((i) => verdicts.get(i.id)?.verdict !== 'pass');
  const blocked = malicious.filter((i) => verdicts.get(i.id)?.verdict === 'block');
  const benignBlocked = benign.filter((i) => verdicts.get(i.id)?.verdict === 'block');
  const benignWarned = benign.filter((i) => verdicts.get(i.id)?.verdict === 'warn');
  rows.push({ source, malicious: malicious.length, benign: benign.length, recall: wilson(flagged.length, malicious.length), recallBlocked: wilson(blocked.length, malicious.length), benignBlock: wilson(benignBlocked.length, benign.length), benignWarn: wilson(benignWarned.length, benign.length) });
  process.stdout.write(`\n${source}: ${malicious.length} malicious, ${benign.length} benign\n`);
  {
    process.stdout.write(`  recall (warn or block)  ${fmt(flagged.length, malicious.length)}\n`);
    process.stdout.write(`  recall (blocked)        ${fmt(blocked.length, malicious.length)}\n`);
    process.stdout.write(`  benign blocked          ${fmt(benignBlocked.length, benign.length)}\n`);
    process.stdout.write(`  benign warned           ${fmt(benignWarned.length, benign.length)}\n`);
    if (source === 'all') continue;
    for (const i of malicious) if (verdicts.get(i.id)?.verdict === 'pass') details.push(`MISS ${i.id}`);
    for (const i of [...benignBlocked, ...benignWarned]) details.push(`${verdicts.get(i.id)?.verdict.toUpperCase()} ${i.id}: ${verdicts.get(i.id)?.findings.map((f) => f.rule).join(', ')}`);
  }
}

const realDefs = real.tools.map((t) => ({ name: t.tool, description: t.description ?? '', inputSchema: t.inputSchema ?? { type: 'object' } }));
// Each real server judged against the other servers' tools, as a host would see them together.
const byServer = new Map<string, typeof realDefs>();
real.tools.forEach((t, i) => byServer.set(t.server, [...(byServer.get(t.server) ?? []), realDefs[i] as (typeof realDefs)[number]]));
const realReports: ItemReport[] = [];
for (const [server, defs] of byServer) {
  const peers: PeerTool[] = [...byServer].filter(([s]) => s !== server).flatMap(([s, ds]) => ds.map((d) => ({ server: s, tool: { name: d.name, description: d.description } })));
  realReports.push(...scanTools(defs, { server, peers }).items);
}
const realWarn = realReports.filter((r) => r.verdict === 'warn');
const realBlock = realReports.filter((r) => r.verdict === 'block');
process.stdout.write(`\nreal tools (${byServer.size} servers): ${realReports.length}\n`);
process.stdout.write(`  warned                  ${fmt(realWarn.length, realReports.length)}\n`);
process.stdout.write(`  blocked                 ${fmt(realBlock.length, realReports.length)}\n`);
for (const r of [...realBlock, ...realWarn]) details.push(`${r.verdict.toUpperCase()} real ${r.server}/${r.item}: ${r.findings.map((f) => `${f.rule} «${f.evidence.slice(0, 90)}»`).join('; ')}`);

// Time to scan 1,000 tools: the real definitions cycled, one scanTools call, best of 5.
const thousand = Array.from({ length: 1000 }, (_, i) => realDefs[i % realDefs.length]);
const times: number[] = [];
const cpu: number[] = [];
for (let run = 0; run < 5; run++) {
  const before = process.cpuUsage();
  const start = performance.now();
  scanTools(thousand, { server: 'bench' });
  times.push(performance.now() - start);
  const used = process.cpuUsage(before);
  cpu.push((used.user + used.system) / 1000);
}
times.sort((a, b) => a - b);
cpu.sort((a, b) => a - b);
process.stdout.write(`\nscan 1,000 tools: wall best ${times[0]?.toFixed(0)} ms, median ${times[2]?.toFixed(0)} ms; CPU best ${cpu[0]?.toFixed(0)} ms, median ${cpu[2]?.toFixed(0)} ms (5 runs)\n`);

if (argv.includes('--details')) process.stdout.write(`\n${details.join('\n')}\n`);
if (argv.includes('--json')) process.stdout.write(`${JSON.stringify({ rows, real: { tools: realReports.length, warn: wilson(realWarn.length, realReports.length), block: wilson(realBlock.length, realReports.length) }, thousandToolsMs: { wallBest: times[0], wallMedian: times[2], cpuBest: cpu[0], cpuMedian: cpu[2] } }, null, 2)}\n`);
