/**
 * One measurement per call: start the target process(es) pinned to the server core, run the
 * matching load generator pinned to the load core, collect its JSON plus what the harness
 * reads from `/proc` (RSS). Every function returns named metrics; failures are thrown and
 * turned into an `error` cell by the caller.
 *
 * @module
 */
import { resolve } from 'node:path';
import type { HttpLoadConfig, HttpLoadResult } from '../loadgen/http.js';
import type { StdioLoadConfig, StdioLoadResult } from '../loadgen/stdio.js';
import type { ClientLoadConfig, ClientLoadResult } from '../loadgen/client.js';
import type { ClientEndpoint } from '../clients/types.js';
import type { HttpSpec, StdioSpec } from '../targets.js';
import { launchCommand, OUT, type HttpServer } from './launch.js';
import { LOADGEN_CPU, pinned, rssBytes, runJson, SERVER_CPU, spawnPinned, stop, waitForLine } from './proc.js';

export { OUT, type HttpServer } from './launch.js';

/** Named numbers of one measurement (ms, µs, req/s, MB). */
export type Metrics = Record<string, number>;

/** Timing knobs shared by every measurement. */
export interface Timing {
  readonly warmupMs: number;
  readonly durationMs: number;
  /** Full answer checks (smoke) instead of cheap ones. */
  readonly verify: boolean;
}

/** Thrown when a target reports it does not support what was asked (exit code 3). */
export class Unsupported extends Error {}

const MB = 1024 * 1024;

function loadgen(name: string, config: unknown): Promise<unknown> {
  const child = spawnPinned(LOADGEN_CPU, process.execPath, [resolve(OUT, 'loadgen', name), JSON.stringify(config)], { stdio: ['ignore', 'pipe', 'pipe'] });
  return runJson(child);
}

/** The HTTP floor's compiled entry (what a gateway target fronts over HTTP). */
const FLOOR_HTTP = 'targets/floorHttp.js';

/** Starts an HTTP target (a compiled entry with `args`, or a shipped command line for `mode`). */
export function startTarget(entry: HttpSpec['entry'], mode: 'stateless' | 'session', args: readonly string[] = []): Promise<HttpServer> {
  if (typeof entry === 'string') return startHttp(entry, ['--mode', mode, ...args]);
  return launchCommand(entry, mode, () => startHttp(FLOOR_HTTP, ['--mode', mode]));
}

/** Starts an HTTP target entry and waits for its `LISTENING` line. */
export async function startHttp(entry: string, args: readonly string[]): Promise<HttpServer> {
  const child = spawnPinned(SERVER_CPU, process.execPath, [resolve(OUT, entry), ...args], { stdio: ['ignore', 'pipe', 'pipe'] });
  try {
    const match = await waitForLine(child, /LISTENING (\d+)/);
    return { pid: child.pid as number, port: Number(match[1]), stop: () => stop(child) };
  } catch (error) {
    await stop(child);
    if (child.exitCode === 3) throw new Unsupported((error as Error).message.replace(/^exited \(3\) before ready: /, '').trim());
    throw error;
  }
}

function check(result: { errors: number; firstError?: string; requests: number }): void {
  if (result.errors > 0) throw new Error(`${result.errors} bad answers, first: ${result.firstError ?? '?'}`);
  if (result.requests === 0) throw new Error('no request completed');
}

/** HTTP `tools/call` (or `tools/list`) load against a running server. */
export async function httpLoad(server: HttpServer, wire: 'stateless' | 'session', concurrency: number, timing: Timing, listCount?: number): Promise<Metrics> {
  const config: HttpLoadConfig = {
    port: server.port,
    concurrency,
    wire,
    scenario: listCount === undefined ? 'call' : 'list',
    ...(listCount === undefined ? {} : { listCount }),
    serverPid: server.pid,
    ...timing,
  };
  const result = (await loadgen('http.js', config)) as HttpLoadResult;
  check(result);
  return { rps: result.rps, p50Ms: result.p50Ms, p99Ms: result.p99Ms, cpuUs: result.cpuPerRequestUs, rssMB: rssBytes(server.pid) / MB };
}

/** Memory of `count` idle sessions: RSS growth while opening them after a warm-up of 50. */
export async function sessionMemory(entry: HttpSpec['entry'], count: number): Promise<Metrics> {
  const server = await startTarget(entry, 'session');
  try {
    const open = async (sessions: number): Promise<void> => {
      const config: HttpLoadConfig = { port: server.port, concurrency: 8, wire: 'session', scenario: 'sessions', sessions, serverPid: server.pid, warmupMs: 0, durationMs: 0, verify: true };
      await loadgen('http.js', config);
      await new Promise((r) => setTimeout(r, 500));
    };
    await open(50);
    const before = rssBytes(server.pid);
    await open(count);
    const after = rssBytes(server.pid);
    return { sessionMB: ((after - before) / MB) * (1000 / count), rssMB: after / MB };
  } finally {
    await server.stop();
  }
}

/** The command line of a stdio spec. */
export function stdioCommand(spec: StdioSpec, args: readonly string[] = []): string[] {
  return typeof spec.entry === 'string' ? [process.execPath, resolve(OUT, spec.entry), ...args] : [...spec.entry];
}

/** stdio `tools/call` with `concurrency` in flight (the load generator spawns the server). */
export async function stdioLoad(spec: StdioSpec, concurrency: number, timing: Timing): Promise<Metrics> {
  const config: StdioLoadConfig = { command: stdioCommand(spec), handshake: spec.wire, scenario: 'call', concurrency, repeat: 1, ...timing };
  const result = (await loadgen('stdio.js', config)) as StdioLoadResult;
  check(result);
  return { rps: result.rps, p50Ms: result.p50Ms, p99Ms: result.p99Ms, cpuUs: result.cpuPerRequestUs, rssMB: result.rssBytes / MB };
}

/** Median spawn → first `tools/list` answer over `repeat` starts. */
export async function coldStart(spec: StdioSpec, repeat: number): Promise<Metrics> {
  const config: StdioLoadConfig = { command: stdioCommand(spec), handshake: spec.wire, scenario: 'coldstart', concurrency: 1, repeat, warmupMs: 0, durationMs: 0, verify: true };
  const result = (await loadgen('stdio.js', config)) as StdioLoadResult;
  return { coldMs: result.coldStartMs };
}

/** A client library calling `echo` on the floor over `endpoint`. */
export async function clientLoad(module: string, endpoint: ClientEndpoint, concurrency: number, timing: Timing): Promise<Metrics> {
  const config: ClientLoadConfig = { module: resolve(OUT, module), endpoint, concurrency, warmupMs: timing.warmupMs, durationMs: timing.durationMs, verify: timing.verify };
  const result = (await loadgen('client.js', config)) as ClientLoadResult;
  check(result);
  return { rps: result.rps, p50Ms: result.p50Ms, p99Ms: result.p99Ms, cpuUs: result.cpuPerRequestUs };
}

/** The stdio endpoint of the floor, pinned to the server core, for the client bench. */
export function floorStdioEndpoint(entry: string): ClientEndpoint {
  const command = [process.execPath, resolve(OUT, entry)];
  return pinned
    ? { kind: 'stdio', command: 'taskset', args: ['-c', String(SERVER_CPU), ...command] }
    : { kind: 'stdio', command: command[0] as string, args: command.slice(1) };
}
