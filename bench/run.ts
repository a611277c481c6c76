/**
 * `npm run bench` / `npm run bench:smoke`: Switchboard side by side with the official SDKs
 * and a raw floor, every target its own process pinned to one core and every load generator
 * its own process pinned to the other. Targets are interleaved within each run; the report
 * takes the median of the runs.
 *
 * Flags: `--smoke` (every target ~1 s, answers checked, exit 1 on a failure, no report
 * written), `--duration S` (measured seconds per cell, default 3), `--warmup S` (default 1),
 * `--runs N` (default 3), `--only id,id` (targets), `--sections http,stdio,coldstart,list,sessions,client`,
 * `--no-build` (skip building dist/ and compiling bench/ to bench/.out), `--render` (re-render
 * docs/BENCHMARKS.md from bench/results/latest.json without measuring).
 *
 * @module
 */
import { spawnSync } from 'node:child_process';
import { existsSync, mkdirSync, readFileSync, writeFileSync } from 'node:fs';
import { cpus, loadavg, totalmem } from 'node:os';
import { dirname, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';
import type * as Orchestrate from './lib/orchestrate.js';
import type * as Report from './lib/report.js';
import type * as FsyncProbe from './lib/fsyncProbe.js';

const BENCH = dirname(fileURLToPath(import.meta.url));
const ROOT = resolve(BENCH, '..');
const OUT = resolve(BENCH, '.out', 'bench');

const argv = process.argv.slice(2);
const flag = (name: string): boolean => argv.includes(name);
const option = (name: string, fallback: string): string => {
  const i = argv.indexOf(name);
  return i >= 0 && argv[i + 1] !== undefined ? (argv[i + 1] as string) : fallback;
};
const smoke = flag('--smoke');

/**
 * Builds the package (`dist/`, what users install: our targets import `switchboard/*`), then
 * compiles bench/ with the package's compiler options.
 */
function build(): void {
  process.stdout.write('building dist/ and compiling bench/ to bench/.out …\n');
  const pkg = spawnSync(process.execPath, [resolve(ROOT, 'scripts', 'build.mjs')], { cwd: ROOT, encoding: 'utf8' });
  if (pkg.status !== 0) throw new Error(`npm run build failed:\n${(pkg.stdout + pkg.stderr).trim().slice(0, 2000)}`);
  const tsc = resolve(ROOT, 'node_modules', 'typescript', 'bin', 'tsc');
  const result = spawnSync(process.execPath, [tsc, '-p', resolve(BENCH, 'tsconfig.json')], { cwd: ROOT, encoding: 'utf8' });
  if (result.status !== 0) {
    // tsc still emits on type errors; colleagues' work in progress must not block the bench.
    process.stdout.write(`warning: tsc reported errors (output still emitted):\n${(result.stdout + result.stderr).trim().slice(0, 2000)}\n`);
  }
  if (!existsSync(resolve(OUT, 'lib', 'measure.js'))) throw new Error('compilation produced no output');
}

if (!flag('--no-build')) build();

// Import the compiled harness so the orchestrator runs the same JS as the processes it spawns.
const { runAll, WIRES } = (await import(resolve(OUT, 'lib', 'orchestrate.js'))) as typeof Orchestrate;
const { renderMarkdown } = (await import(resolve(OUT, 'lib', 'report.js'))) as typeof Report;

// `--render`: re-render docs/BENCHMARKS.md from bench/results/latest.json (after a change to the
// report's text), measuring nothing.
if (flag('--render')) {
  const latest = JSON.parse(readFileSync(resolve(BENCH, 'results', 'latest.json'), 'utf8')) as Parameters<typeof renderMarkdown>[0];
  writeFileSync(resolve(ROOT, 'docs', 'BENCHMARKS.md'), renderMarkdown(latest));
  process.stdout.write('re-rendered docs/BENCHMARKS.md from bench/results/latest.json\n');
  process.exit(0);
}

const pkgVersion = (name: string): string => {
  try {
    return (JSON.parse(readFileSync(resolve(ROOT, 'node_modules', name, 'package.json'), 'utf8')) as { version: string }).version;
  } catch {
    return 'missing';
  }
};

const startedAt = new Date().toISOString();
const load0 = loadavg()[0] ?? NaN;
const seconds = Number(option('--duration', smoke ? '1' : '3'));
const settings = {
  smoke,
  runs: Number(option('--runs', smoke ? '1' : '3')),
  timing: { warmupMs: Number(option('--warmup', smoke ? '0.2' : '1')) * 1000, durationMs: seconds * 1000, verify: smoke },
  coldStarts: smoke ? 1 : 5,
  idleSessions: smoke ? 20 : 1000,
  listTools: 1000,
  only: option('--only', '') === '' ? undefined : option('--only', '').split(','),
  sections: option('--sections', 'http,stdio,coldstart,list,sessions,client').split(','),
  ...(option('--wires', '') === '' ? {} : { wires: option('--wires', '').split(',').filter((w): w is (typeof WIRES)[number] => (WIRES as readonly string[]).includes(w)) }),
};
const cells = await runAll(settings);
// One fsync of the state disk, measured after the cells (issue #35's c=1 target with `sync` is "0.15 ms plus one fsync").
const { measureFsyncMs } = (await import(resolve(OUT, 'lib', 'fsyncProbe.js'))) as typeof FsyncProbe;
const fsyncMs = smoke ? NaN : measureFsyncMs();
const results = {
  startedAt,
  finishedAt: new Date().toISOString(),
  machine: {
    cpus: cpus().length,
    cpuModel: cpus()[0]?.model ?? '?',
    memoryGB: Math.round(totalmem() / 2 ** 30),
    node: process.version,
    platform: `${process.platform} ${process.arch}`,
    pinned: existsSync('/usr/bin/taskset'),
    loadAvgStart: Number(load0.toFixed(2)),
    loadAvgEnd: Number((loadavg()[0] ?? NaN).toFixed(2)),
    fsyncMs: Number(fsyncMs.toFixed(3)),
  },
  method: { runs: settings.runs, durationS: seconds, warmupS: settings.timing.warmupMs / 1000, coldStarts: settings.coldStarts, idleSessions: settings.idleSessions, listTools: settings.listTools, smoke },
  versions: {
    '@modelcontextprotocol/sdk': pkgVersion('@modelcontextprotocol/sdk'),
    '@modelcontextprotocol/server': pkgVersion('@modelcontextprotocol/server'),
    '@modelcontextprotocol/client': pkgVersion('@modelcontextprotocol/client'),
    '@modelcontextprotocol/node': pkgVersion('@modelcontextprotocol/node'),
    switchboard: (JSON.parse(readFileSync(resolve(ROOT, 'package.json'), 'utf8')) as { version: string }).version,
  },
};

const failed = cells.filter((c) => c.status === 'error');
for (const cell of cells) {
  const summary = cell.status === 'ok' ? JSON.stringify(cell.median, (_k, v: unknown) => (typeof v === 'number' ? Number(v.toPrecision(4)) : v)) : `${cell.status}: ${cell.note ?? ''}`;
  process.stdout.write(`${cell.section.padEnd(9)} ${cell.target.padEnd(6)} ${cell.variant.padEnd(16)} ${summary}\n`);
}
if (smoke) {
  process.stdout.write(failed.length === 0 ? 'smoke: every target answered correctly\n' : `smoke: ${failed.length} failing cell(s)\n`);
  process.exit(failed.length === 0 ? 0 : 1);
}
mkdirSync(resolve(BENCH, 'results'), { recursive: true });
const full = { ...results, cells };
// A partial run (--only / --sections) must not replace the published report of a full one.
const partial = settings.only !== undefined || settings.sections.length < 6 || settings.wires !== undefined;
const name = partial ? 'partial.json' : 'latest.json';
writeFileSync(resolve(BENCH, 'results', name), JSON.stringify(full, null, 2) + '\n');
if (partial) {
  writeFileSync(resolve(BENCH, 'results', 'partial.md'), renderMarkdown(full));
  process.stdout.write('partial run: wrote bench/results/partial.json and partial.md (docs/BENCHMARKS.md is left as it was)\n');
} else {
  mkdirSync(resolve(ROOT, 'docs'), { recursive: true });
  writeFileSync(resolve(ROOT, 'docs', 'BENCHMARKS.md'), renderMarkdown(full));
  process.stdout.write('wrote bench/results/latest.json and docs/BENCHMARKS.md\n');
}
if (failed.length > 0) process.exitCode = 1;
