/**
 * `npm run bench:scanner`: the poisoning and shadowing scanner measured on the public corpus
 * in the team's corpus folder beside the project (read at run time, never copied into the repo):
 *
 * - per source of `labelled.json`: recall on the malicious items (flagged = warn or block,
 *   and blocked), and the blocking and warning rates on the benign ones;
 * - per class (label and the source's category): flagged and blocked counts;
 * - the warning and blocking rates on the 527 real tools of `real-tools-livemcptool.json`;
 * - the time to scan 1,000 tools (the real tools, cycled, in one `scanTools` call);
 * - the cost of the pins on the same 1,000 tools (names made unique): pinning them on first
 *   use (field-group digests over RFC 8785 JSON, a memory store and the SQLite store), checking
 *   them again unchanged (what every list and list_changed costs), verifying a signed manifest
 *   over them (EdDSA, policy `require`: the JWS plus a digest per tool) and pinning them, and
 *   the per-call verdict lookup (the only thing a call pays).
 *
 * Every rate comes with a 95% Wilson score interval. Flags: `--corpus DIR` (default
 * the folder `shared/corpus` next to the project root), `--details` (list each miss and each benign
 * item with a finding), `--json` (print the figures as JSON).
 *
 * @module
 */
import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { dirname, join, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';
import type { VetInput } from '../src/host/catalogVetting.js';
import { PinTrust } from '../src/host/pins/pinTrust.js';
import { MemoryPinStore, type PinStore } from '../src/host/pins/pinStore.js';
import type { SignaturePolicy, TrustedKey } from '../src/host/pins/signatureCheck.js';
import { scanTools } from '../src/host/scanner/scan.js';
import type { ItemReport, PeerTool } from '../src/host/scanner/types.js';
import type { DownstreamSpec } from '../src/host/spec.js';
import type { Tool } from '../src/protocol/model/tool.js';
import { generateSigningKey, importSigningKey, manifestPayload, signManifest } from '../src/protocol/manifest.js';
import { SqlitePinStore } from '../src/store/sqlitePinStore.js';

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

// Per class (the sources' own categories): how many of each were flagged, blocked, warned.
process.stdout.write('\nper class (label/category: flagged, blocked of n):\n');
const classes = [...new Set(labelled.map((i) => `${i.label}/${i.category}`))].sort();
const classRows: Record<string, unknown>[] = [];
for (const c of classes) {
  const items = labelled.filter((i) => `${i.label}/${i.category}` === c);
  const reports = items.map((i) => scanOne(i));
  const flagged = reports.filter((r) => r.verdict !== 'pass').length;
  const blockedN = reports.filter((r) => r.verdict === 'block').length;
  classRows.push({ class: c, n: items.length, flagged, blocked: blockedN });
  process.stdout.write(`  ${c.padEnd(40)} flagged ${flagged}/${items.length}, blocked ${blockedN}/${items.length}\n`);
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

// The pins on the same 1,000 tools (names made unique: pins are keyed by name).
const pinTools = thousand.map((d, i) => ({ ...d, name: `${d?.name ?? 'tool'}_${i}` })) as unknown as Tool[];
const benchSpec: DownstreamSpec = {
  id: 'bench',
  launch: { kind: 'stdio', command: 'bench-server', args: [], env: {}, cwd: undefined },
  options: { tools: { allow: undefined, deny: [] }, timeoutMs: 60_000, maxConcurrency: 16, era: 'auto', oauth: undefined },
};
const vetInput = (envelope?: { jws: string }): VetInput => ({
  serverId: 'bench',
  spec: benchSpec,
  serverInfo: { name: 'bench', version: '1.0.0' },
  instructions: undefined,
  catalog: { tools: pinTools, prompts: [], resources: [], templates: [] },
  envelope,
});
/** Best and median of 5 runs of `work` (wall and CPU, ms); `setup` runs untimed before each. */
async function measure<T>(setup: () => Promise<T>, work: (state: T) => Promise<unknown>): Promise<{ wallBest: number; wallMedian: number; cpuBest: number; cpuMedian: number }> {
  const wall: number[] = [];
  const used: number[] = [];
  for (let run = 0; run < 5; run++) {
    const state = await setup();
    const before = process.cpuUsage();
    const start = performance.now();
    await work(state);
    wall.push(performance.now() - start);
    const u = process.cpuUsage(before);
    used.push((u.user + u.system) / 1000);
  }
  wall.sort((a, b) => a - b);
  used.sort((a, b) => a - b);
  return { wallBest: wall[0] as number, wallMedian: wall[2] as number, cpuBest: used[0] as number, cpuMedian: used[2] as number };
}
const trustOver = (store: PinStore, trustedKeys: TrustedKey[] = [], policy: SignaturePolicy = 'warn'): Promise<PinTrust> => PinTrust.open({ store, trustedKeys, signaturePolicy: () => policy });
const pinDir = mkdtempSync(join(tmpdir(), 'switchboard-bench-pins-'));
const pinCost: Record<string, Awaited<ReturnType<typeof measure>>> = {};
try {
  pinCost['pinFirstUseMemory'] = await measure(() => trustOver(new MemoryPinStore()), (g) => g.vet(vetInput()));
  const opened: SqlitePinStore[] = [];
  pinCost['pinFirstUseSqlite'] = await measure(
    () => {
      const store = SqlitePinStore.open(join(pinDir, `pins-${opened.length}.db`));
      opened.push(store);
      return trustOver(store);
    },
    (g) => g.vet(vetInput()),
  );
  await Promise.all(opened.map((store) => store.close()));
  pinCost['recheckUnchanged'] = await measure(
    async () => {
      const g = await trustOver(new MemoryPinStore());
      await g.vet(vetInput());
      return g;
    },
    (g) => g.vet(vetInput()),
  );
  const key = await importSigningKey((await generateSigningKey('EdDSA')).privateJwk);
  const jws = await signManifest(manifestPayload('bench', { tools: pinTools, prompts: [], resourceTemplates: [] }, 1_700_000_000), key);
  pinCost['verifySignedAndPin'] = await measure(
    () => trustOver(new MemoryPinStore(), [{ name: 'bench', jwk: key.publicJwk }], 'require'),
    async (g) => {
      const vetted = await g.vet(vetInput({ jws }));
      if (vetted.catalog.tools.length !== pinTools.length) throw new Error(`the signed manifest did not cover every tool (${vetted.quarantined[0]?.reason ?? ''})`);
    },
  );
} finally {
  rmSync(pinDir, { recursive: true, force: true });
}
// The per-call price: one verdict lookup.
const lookupTrust = await trustOver(new MemoryPinStore());
await lookupTrust.vet(vetInput());
const lookups = 1_000_000;
const lookupStart = performance.now();
let refused = 0;
for (let i = 0; i < lookups; i++) if (lookupTrust.verdict('bench', 'tool', (pinTools[i % pinTools.length] as Tool).name) !== undefined) refused++;
const lookupNs = ((performance.now() - lookupStart) * 1e6) / lookups;
if (refused !== 0) throw new Error('an unchanged tool was refused');
const pinLine = (label: string, m: Awaited<ReturnType<typeof measure>>): string =>
  `  ${label.padEnd(48)} CPU best ${m.cpuBest.toFixed(0)} ms, median ${m.cpuMedian.toFixed(0)} ms; wall best ${m.wallBest.toFixed(0)} ms, median ${m.wallMedian.toFixed(0)} ms\n`;
process.stdout.write('\npins, 1,000 tools (5 runs each):\n');
process.stdout.write(pinLine('pin on first use (memory store)', pinCost['pinFirstUseMemory'] as Awaited<ReturnType<typeof measure>>));
process.stdout.write(pinLine('pin on first use (SQLite store, one record)', pinCost['pinFirstUseSqlite'] as Awaited<ReturnType<typeof measure>>));
process.stdout.write(pinLine('check again unchanged (a list_changed)', pinCost['recheckUnchanged'] as Awaited<ReturnType<typeof measure>>));
process.stdout.write(pinLine('verify a signed manifest (EdDSA) and pin', pinCost['verifySignedAndPin'] as Awaited<ReturnType<typeof measure>>));
process.stdout.write(`  ${'per call: one verdict lookup'.padEnd(48)} ${lookupNs.toFixed(0)} ns\n`);

if (argv.includes('--details')) process.stdout.write(`\n${details.join('\n')}\n`);
if (argv.includes('--json')) process.stdout.write(`${JSON.stringify({ rows, classes: classRows, real: { tools: realReports.length, warn: wilson(realWarn.length, realReports.length), block: wilson(realBlock.length, realReports.length) }, thousandToolsMs: { wallBest: times[0], wallMedian: times[2], cpuBest: cpu[0], cpuMedian: cpu[2] }, pinsThousandToolsMs: pinCost, verdictLookupNs: lookupNs }, null, 2)}\n`);
