/**
 * `npm run bench:instructions`: instructions per HTTP `tools/call` of compiled targets,
 * counted by valgrind's callgrind, every thread of the server process included (the JIT
 * compiler's and the GC's too), and the main thread's alone. Unlike req/s or CPU µs per
 * request, the count hardly moves with the other work on the machine, so two checkouts can be
 * compared on a busy one (compare the main thread's counts when the totals of one build differ
 * between runs: a compile still under way after the warm-up lands in the total): build
 * each (`npm run build` and `tsc -p bench/tsconfig.json`), then name their target entries.
 *
 * Each target runs under callgrind; after `--warmup` requests (JIT tier-up takes ~15,000
 * here: fewer measure the compiler, not the steady state) the counters are dumped and reset,
 * then `--requests` requests are counted. Keep-alive connections from `lib/httpClient.ts`,
 * `--concurrency` in flight, every answer checked.
 *
 * Usage: `tsx bench/instructions.ts [--mode stateless|session] [--warmup N] [--requests N]
 * [--concurrency C] [--sequential] [--keep] [--alloc [--sites N] [--no-inlining] [--survivors]] [--perf [--sites N]] label=path/to/compiled/target.js …`
 * e.g. `old=/tmp/old/bench/.out/bench/targets/oursHttp.js new=bench/.out/bench/targets/oursHttp.js`.
 * Targets run side by side unless `--sequential` (counts do not depend on it; wall time does).
 *
 * A target `label=gateway:<empty|default|default-batch|full|full-batch>:<stdio|http>[@<checkout>]` counts `switchboard gateway`
 * (the checkout's `dist/cli/main.js`, default this one) on the bench's config (`lib/launch.ts`:
 * one server `echo`, the chain named) fronting the stdio floor or the HTTP floor:
 * instructions per forwarded call of the gateway process alone (the downstream is not traced).
 * e.g. `old=gateway:empty:stdio@/tmp/old new=gateway:empty:stdio`.
 *
 * A target `label=forward:<stdio|http>` counts the forward floor (`targets/forwardFloor.ts`: the
 * least a Node process does to forward a call) fronting the same floor, for the gateway's count
 * to be read against.
 *
 * `--alloc` counts **bytes allocated** per request instead, with no valgrind: the target runs
 * under plain Node with `lib/allocSampler.ts` preloaded (V8's sampling heap profiler, objects
 * later collected by the scavenger or the mark-compactor included), sampling only the counted
 * requests. Like instructions, it hardly moves with other work on the machine (±1% here), and
 * allocation is what the scavenger's work follows; `--sites N` prints the N call sites (function
 * and its caller) that allocate the most per request, and `--no-inlining` runs the target with
 * `--no-turbo-inlining` so each allocation is charged to the function that makes it (the totals
 * hardly change; the attribution gets exact). `--survivors` counts only the bytes that survived
 * a scavenge (V8 drops the samples of objects the young generation's collector freed): what is
 * promoted to old space per request, and where it was allocated.
 *
 * `--perf` splits the target's **CPU time per request** instead (needs Linux `perf`): the target
 * runs under plain Node with `--perf-basic-prof-only-functions`, pinned to the server core with this
 * process on the load core as `npm run bench` pins them; after the warm-up, `perf record -g` samples
 * it while `--requests` requests (default 30,000) run, and its CPU time over that window is read
 * from `/proc`. The samples are split by what started the work (the upstream request's read, the
 * downstream answer's read, the stdio writes' `setImmediate`, other) and by the module and function
 * of our innermost frame (`lib/perfStages.ts`); `--sites N` prints the N costliest functions. Wall
 * time under `perf` is close to a plain run's (sampling at 2 kHz), unlike V8's own profilers. This
 * is what bounds a lean path: the µs a layer costs per call is what skipping it could save.
 *
 * @module
 */
import { execFileSync, spawn, type ChildProcess } from 'node:child_process';
import { mkdtempSync, readdirSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import type * as Launch from './lib/launch.js';
import type { CommandSpec } from './targets.js';
import { HttpConnection } from './lib/httpClient.js';
import { ALLOC_STARTED, ALLOC_WRITTEN, summarizeAllocations, type SamplingHeapProfile } from './lib/allocations.js';
import { cpuMicros, LOADGEN_CPU, pinned, SERVER_CPU, spawnPinned, stop, waitForLine } from './lib/proc.js';
import { formatPerfStages, perfStages } from './lib/perfStages.js';
import { echoCall, httpHeaders, INITIALIZED, initializeCall, looksLikeEcho } from './lib/wire.js';

const argv = process.argv.slice(2);
const option = (name: string, fallback: string): string => {
  const i = argv.indexOf(name);
  return i >= 0 && argv[i + 1] !== undefined ? (argv[i + 1] as string) : fallback;
};
const mode = option('--mode', 'stateless') === 'session' ? 'session' : 'stateless';
const warmup = Number(option('--warmup', '15000'));
const requests = Number(option('--requests', '2000'));
const concurrency = Number(option('--concurrency', '32'));
const alloc = argv.includes('--alloc');
const sites = Number(option('--sites', '0'));
const noInlining = argv.includes('--no-inlining');
const survivors = argv.includes('--survivors');
const perf = argv.includes('--perf');
/** `--keep`: the callgrind files are left in their temporary folder (named on stderr) for `callgrind_annotate`. */
const keep = argv.includes('--keep');
const perfRequests = argv.includes('--requests') ? requests : 30_000;
const targets = argv.filter((a) => a.includes('=')).map((a) => ({ label: a.slice(0, a.indexOf('=')), entry: a.slice(a.indexOf('=') + 1) }));
if (targets.length === 0) {
  process.stderr.write('usage: tsx bench/instructions.ts [--mode stateless|session] [--warmup N] [--requests N] label=target.js …\n');
  process.exit(2);
}

const PATH = '/mcp';

/** Sends `count` echo calls over `conns`, one in flight per connection, checking each answer. */
async function drive(conns: HttpConnection[], headers: Record<string, string>[], count: number): Promise<void> {
  let left = count;
  let id = 1;
  await Promise.all(
    conns.map(async (conn, i) => {
      while (left-- > 0) {
        const answer = await conn.request('POST', PATH, headers[i] as Record<string, string>, echoCall(id++, mode === 'stateless'));
        if (answer.status !== 200 || !looksLikeEcho(answer.body)) throw new Error(`unexpected answer ${answer.status}: ${answer.body.slice(0, 200)}`);
      }
    }),
  );
}

const GATEWAY_TARGET = /^gateway:(empty|default|default-batch|full|full-batch):(stdio|http)(?:@(.+))?$/;
const FORWARD_TARGET = /^forward:(stdio|http)$/;
const OUT = resolve(import.meta.dirname, '.out', 'bench');

/** What runs under callgrind for a target entry, and the line that says it listens (group 1: the port). */
interface Launched {
  readonly args: readonly string[];
  readonly ready: RegExp;
  /** Stops what the target needs beside it (the HTTP floor) and removes its files. */
  readonly cleanup: () => Promise<void>;
}

/**
 * The command line of a compiled target, of `switchboard gateway` for a `gateway:` target, or of
 * the forward floor for a `forward:` target (with the HTTP floor started untraced).
 */
async function launch(entry: string): Promise<Launched> {
  const gateway = GATEWAY_TARGET.exec(entry);
  const forward = FORWARD_TARGET.exec(entry);
  if (gateway === null && forward === null) return { args: [resolve(entry), '--mode', mode], ready: /LISTENING (\d+)/, cleanup: () => Promise.resolve() };
  // The compiled harness (`tsc -p bench/tsconfig.json`), so the floor paths are those `npm run bench` uses.
  const { writeGatewayConfig, GATEWAY_READY } = (await import(resolve(OUT, 'lib', 'launch.js'))) as typeof Launch;
  const [, chain, downstream, checkout] = (gateway ?? [entry, 'empty', forward?.[1]]) as unknown as [string, NonNullable<CommandSpec['chain']>, 'stdio' | 'http', string | undefined];
  const dir = mkdtempSync(join(tmpdir(), 'sb-instr-gw-'));
  let floor: ChildProcess | undefined;
  const cleanup = async (): Promise<void> => {
    if (floor !== undefined) await stop(floor);
    rmSync(dir, { recursive: true, force: true });
  };
  try {
    let httpPort: number | undefined;
    if (downstream === 'http') {
      floor = spawn(process.execPath, [resolve(OUT, 'targets', 'floorHttp.js'), '--mode', mode], { stdio: ['ignore', 'pipe', 'pipe'] });
      httpPort = Number((await waitForLine(floor, /LISTENING (\d+)/))[1]);
      floor.stdout?.resume();
      floor.stderr?.resume();
    }
    if (forward !== null) {
      const port = httpPort === undefined ? [] : ['--downstream-port', String(httpPort)];
      return { args: [resolve(OUT, 'targets', 'forwardFloor.js'), '--mode', mode, '--downstream', downstream, ...port], ready: /LISTENING (\d+)/, cleanup };
    }
    const file = writeGatewayConfig(dir, { launcher: 'gateway', chain, downstream }, httpPort);
    const cli = resolve(checkout ?? resolve(import.meta.dirname, '..'), 'dist', 'cli', 'main.js');
    return { args: [cli, 'gateway', '--config', file, '--port', '0', '--no-auth', '--yes', '--log-level', 'warn'], ready: GATEWAY_READY, cleanup };
  } catch (error) {
    await cleanup();
    throw error;
  }
}

/** Opens `concurrency` keep-alive connections to `port` (each with its own session on the stateful wire) and the headers of their calls. */
async function connect(port: number): Promise<{ conns: HttpConnection[]; headers: Record<string, string>[] }> {
  const conns = await Promise.all(Array.from({ length: concurrency }, () => HttpConnection.open('127.0.0.1', port)));
  const sids: (string | undefined)[] = [];
  for (const conn of conns) {
    if (mode === 'stateless') continue;
    const init = await conn.request('POST', PATH, httpHeaders('initialize', false), initializeCall(0));
    const sid = init.headers.get('mcp-session-id');
    if (sid === undefined) throw new Error(`initialize failed: ${init.status}`);
    await conn.request('POST', PATH, httpHeaders('notifications/initialized', false, sid), INITIALIZED);
    sids.push(sid);
  }
  return { conns, headers: conns.map((_, i) => httpHeaders('tools/call', mode === 'stateless', sids[i])) };
}

/** What {@link count} found, per request: every thread's instructions, and the main thread's alone. */
interface Counted {
  readonly total: number;
  readonly main: number;
}

/** A target started by {@link measure}, listening, with its connections open and warmed up. */
interface Warmed {
  readonly child: ChildProcess;
  readonly conns: HttpConnection[];
  readonly headers: Record<string, string>[];
  /** A temporary folder for the measurement's files, removed afterwards (unless `keep`). */
  readonly dir: string;
}

/**
 * The skeleton every mode shares: a temporary folder, the target launched by `start` (its
 * command line from {@link launch}), its ready line awaited, `concurrency` connections opened and
 * `warmup` requests sent, then `body`; afterwards the target stopped, what it needed beside it
 * stopped, and the folder removed (kept, and named on stderr, when `keep` is given).
 */
async function measure<T>(entry: string, prefix: string, readyMs: number, start: (args: readonly string[], dir: string) => ChildProcess, body: (warmed: Warmed) => Promise<T>, keep?: string): Promise<T> {
  const dir = mkdtempSync(join(tmpdir(), prefix));
  const target = await launch(entry);
  const child = start(target.args, dir);
  try {
    const port = Number((await waitForLine(child, target.ready, readyMs, true))[1]);
    child.stdout?.resume();
    child.stderr?.resume();
    const { conns, headers } = await connect(port);
    await drive(conns, headers, warmup);
    const result = await body({ child, conns, headers, dir });
    for (const conn of conns) conn.close();
    return result;
  } finally {
    await stop(child);
    await target.cleanup();
    if (keep === undefined) rmSync(dir, { recursive: true, force: true });
    else process.stderr.write(`${keep} of ${entry} kept in ${dir}\n`);
  }
}

/**
 * Instructions per request of one target (callgrind's `totals` of the measured dump ÷ requests):
 * every thread's, and the main thread's alone (`--separate-threads`: one file per thread, the
 * main thread's ending in `-01`). The main thread's count is the steadier of the two: V8's
 * optimising compiler and its garbage collector's helpers run on other threads, and a compile
 * still under way after the warm-up can add a third to the total.
 */
function count(entry: string): Promise<Counted> {
  const valgrind = (args: readonly string[], dir: string): ChildProcess =>
    spawn('valgrind', ['--tool=callgrind', '--smc-check=all-non-file', '--separate-threads=yes', `--callgrind-out-file=${dir}/cg.%p`, process.execPath, ...args], { stdio: ['ignore', 'pipe', 'pipe'] });
  const kept = keep ? 'callgrind files (callgrind_annotate --inclusive=yes <dir>/cg.<pid>.2-01)' : undefined;
  return measure(entry, 'sb-instr-', 600_000, valgrind, async ({ child, conns, headers, dir }) => {
    execFileSync('callgrind_control', ['--dump=warm', String(child.pid)], { stdio: 'ignore' });
    await drive(conns, headers, requests);
    execFileSync('callgrind_control', ['--dump=measured', String(child.pid)], { stdio: 'ignore' });
    // The second dump, one file per thread: `cg.<pid>.2-<thread>`.
    const measured = readdirSync(dir).filter((f) => /\.2-\d+$/.test(f));
    if (!measured.some((f) => f.endsWith('.2-01'))) throw new Error(`no second callgrind dump of the main thread in ${dir}`);
    let total = 0;
    let main = 0;
    for (const f of measured) {
      const totals = /^(?:totals|summary): (\d+)/m.exec(readFileSync(join(dir, f), 'utf8'));
      if (totals === null) throw new Error(`no totals in ${join(dir, f)}`);
      total += Number(totals[1]);
      if (f.endsWith('.2-01')) main = Number(totals[1]);
    }
    return { total: total / requests, main: main / requests };
  }, kept);
}

/** Bytes allocated per request of one target, and the sites that allocate the most (`--alloc`). */
function allocated(entry: string): Promise<{ perRequest: number; top: [string, number][] }> {
  const flags = ['--import', resolve(OUT, 'lib', 'allocSampler.js'), ...(noInlining ? ['--no-turbo-inlining'] : [])];
  const sampled = (args: readonly string[], dir: string): ChildProcess =>
    spawn(process.execPath, [...flags, ...args], { stdio: ['ignore', 'pipe', 'pipe'], env: { ...process.env, SB_ALLOC_PROFILE: join(dir, 'heap.json'), SB_ALLOC_SURVIVORS: survivors ? '1' : '0' } });
  return measure(entry, 'sb-alloc-', 60_000, sampled, async ({ child, conns, headers, dir }) => {
    // The sampler's lines arrive on stderr, which `measure` has resumed: listen before each signal.
    const started = waitForLine(child, ALLOC_STARTED, 10_000, true);
    child.kill('SIGUSR2');
    await started;
    await drive(conns, headers, requests);
    const written = waitForLine(child, ALLOC_WRITTEN, 30_000, true);
    child.kill('SIGUSR2');
    await written;
    const { total, bySite } = summarizeAllocations(JSON.parse(readFileSync(join(dir, 'heap.json'), 'utf8')) as SamplingHeapProfile);
    return { perRequest: total / requests, top: [...bySite].sort((a, b) => b[1] - a[1]).slice(0, sites).map(([site, bytes]) => [site, bytes / requests]) };
  });
}

/** CPU µs per request of one target, split by `perf` samples (`--perf`). */
function profiled(entry: string): Promise<string> {
  try {
    execFileSync('perf', ['--version'], { stdio: 'ignore' });
  } catch {
    return Promise.reject(new Error('--perf needs Linux perf on the PATH (Debian: apt-get install linux-perf)'));
  }
  const pinnedNode = (args: readonly string[]): ChildProcess => spawnPinned(SERVER_CPU, process.execPath, ['--perf-basic-prof-only-functions', ...args], { stdio: ['ignore', 'pipe', 'pipe'] });
  return measure(entry, 'sb-perf-', 60_000, pinnedNode, async ({ child, conns, headers, dir }) => {
    const data = join(dir, 'perf.data');
    const recorder = spawn('perf', ['record', '-F', '2000', '-g', '-p', String(child.pid), '-o', data], { stdio: 'ignore' });
    const stopped = new Promise((done) => recorder.once('exit', done));
    try {
      // perf attaches within milliseconds and prints nothing until it stops: the samples are shares of the window, so the few it misses do not matter.
      const before = cpuMicros(child.pid as number);
      await drive(conns, headers, perfRequests);
      const cpu = (cpuMicros(child.pid as number) - before) / perfRequests;
      recorder.kill('SIGINT');
      await stopped;
      const script = execFileSync('perf', ['script', '-i', data], { encoding: 'utf8', maxBuffer: 1 << 30, stdio: ['ignore', 'pipe', 'ignore'] });
      return formatPerfStages(perfStages(script, ['/dist/', '/.out/bench/'], child.pid as number), cpu, sites);
    } finally {
      recorder.kill('SIGINT');
    }
  });
}

const what = perf ? 'perf, CPU per request by where it goes' : alloc ? (survivors ? 'bytes surviving a scavenge' : 'bytes allocated') : 'callgrind';
process.stdout.write(`${what}, ${mode}, c=${concurrency}: ${warmup} warm-up requests, then ${perf ? perfRequests : requests} counted\n`);
const run = async (t: { label: string; entry: string }): Promise<void> => {
  if (perf) {
    process.stdout.write(`${t.label}\n${await profiled(t.entry)}`);
    return;
  }
  if (!alloc) {
    const counted = await count(t.entry);
    const n = (x: number): string => Math.round(x).toLocaleString('en-US');
    process.stdout.write(`${t.label.padEnd(12)} ${n(counted.total)} instructions/request (main thread ${n(counted.main)})\n`);
    return;
  }
  const { perRequest, top } = await allocated(t.entry);
  const lines = top.map(([site, bytes]) => `  ${String(Math.round(bytes)).padStart(7)}  ${site}\n`).join('');
  process.stdout.write(`${t.label.padEnd(12)} ${Math.round(perRequest).toLocaleString('en-US')} bytes allocated/request\n${lines}`);
};
// `--perf` measures wall-clock CPU: one target at a time, the load on its own core.
if (perf && pinned) execFileSync('taskset', ['-cp', String(LOADGEN_CPU), String(process.pid)], { stdio: 'ignore' });
if (argv.includes('--sequential') || perf) for (const t of targets) await run(t);
else await Promise.all(targets.map(run));
