/**
 * The stdio load generator, run as its own process pinned to its own core. It spawns the
 * server (pinned to the server core) with piped stdio and either
 * - `call`: keeps `concurrency` `tools/call echo` requests in flight for the measured window
 *   (1 = strictly sequential) and samples the server's CPU time around it, or
 * - `coldstart`: spawns the server `repeat` times and measures spawn → first `tools/list`
 *   answer (including the `initialize` handshake where the wire needs one).
 *
 * Usage: `node stdio.js '<StdioLoadConfig JSON>'`; prints one {@link StdioLoadResult} JSON line.
 *
 * @module
 */
import type { ChildProcess } from 'node:child_process';
import { performance } from 'node:perf_hooks';
import { cpuMicros, rssBytes, SERVER_CPU, spawnPinned, stop } from '../lib/proc.js';
import { runLanes, type LaneResult } from '../lib/lanes.js';
import { median } from '../lib/stats.js';
import { assertEcho, echoCall, INITIALIZED, initializeCall, listCall } from '../lib/wire.js';

/** What to run. */
export interface StdioLoadConfig {
  /** The server command line (`[program, ...args]`). */
  readonly command: readonly string[];
  /** `modern` = 2026-07-28 `_meta` on every request; `legacy` = initialize handshake first; `none` = any line gets an answer (bare baseline). */
  readonly handshake: 'modern' | 'legacy' | 'none';
  readonly scenario: 'call' | 'coldstart';
  readonly concurrency: number;
  readonly warmupMs: number;
  readonly durationMs: number;
  /** Cold starts to take (median reported). */
  readonly repeat: number;
  readonly verify: boolean;
}

/** What one run measured: the lanes' numbers (server CPU per request), plus these. */
export interface StdioLoadResult extends LaneResult {
  readonly rssBytes: number;
  /** Median spawn → first `tools/list` answer, ms (coldstart only). */
  readonly coldStartMs: number;
}

type Message = Record<string, unknown>;

/** A spawned server with a line reader that routes answers by id. */
class Peer {
  readonly child: ChildProcess;
  readonly #waiting = new Map<number, (message: Message) => void>();
  #buffer = '';

  constructor(command: readonly string[]) {
    this.child = spawnPinned(SERVER_CPU, command[0] as string, command.slice(1), { stdio: ['pipe', 'pipe', 'inherit'] });
    this.child.stdout?.setEncoding('utf8');
    this.child.stdout?.on('data', (chunk: string) => this.#onData(chunk));
  }

  send(line: string): void {
    this.child.stdin?.write(line + '\n');
  }

  request(id: number, line: string): Promise<Message> {
    return new Promise((resolve) => {
      this.#waiting.set(id, resolve);
      this.send(line);
    });
  }

  #onData(chunk: string): void {
    this.#buffer += chunk;
    let newline: number;
    while ((newline = this.#buffer.indexOf('\n')) >= 0) {
      const line = this.#buffer.slice(0, newline);
      this.#buffer = this.#buffer.slice(newline + 1);
      if (line.trim() === '') continue;
      const message = JSON.parse(line) as Message;
      const id = message['id'];
      const waiter = typeof id === 'number' ? this.#waiting.get(id) : undefined;
      if (waiter !== undefined) {
        this.#waiting.delete(id as number);
        waiter(message);
      }
    }
  }
}

async function handshake(peer: Peer, kind: StdioLoadConfig['handshake']): Promise<void> {
  if (kind !== 'legacy') return;
  const answer = await peer.request(0, initializeCall(0));
  if (!('result' in answer)) throw new Error(`initialize failed: ${JSON.stringify(answer)}`);
  peer.send(INITIALIZED);
}

/** Handshake, then one lone call: the server is up and its era chosen before the clock starts. */
async function ready(peer: Peer, kind: StdioLoadConfig['handshake']): Promise<void> {
  await handshake(peer, kind);
  const answer = await peer.request(-1, echoCall(-1, kind === 'modern'));
  if (!('result' in answer)) throw new Error(`first tools/call failed: ${JSON.stringify(answer).slice(0, 300)}`);
}

async function coldStart(config: StdioLoadConfig): Promise<number> {
  const t0 = performance.now();
  const peer = new Peer(config.command);
  await handshake(peer, config.handshake);
  const answer = await peer.request(1, listCall(1, config.handshake === 'modern'));
  const elapsed = performance.now() - t0;
  if (config.handshake !== 'none' && !Array.isArray((answer['result'] as { tools?: unknown } | undefined)?.tools)) {
    throw new Error(`tools/list failed: ${JSON.stringify(answer).slice(0, 300)}`);
  }
  await stop(peer.child);
  return elapsed;
}

async function load(config: StdioLoadConfig): Promise<StdioLoadResult> {
  const peer = new Peer(config.command);
  const pid = peer.child.pid as number;
  await ready(peer, config.handshake);
  const modern = config.handshake === 'modern';
  let nextId = 1;
  const result = await runLanes({
    lanes: config.concurrency,
    warmupMs: config.warmupMs,
    durationMs: config.durationMs,
    cpuMicros: () => cpuMicros(pid),
    countLate: config.verify,
    call: async () => {
      const id = nextId++;
      const answer = await peer.request(id, echoCall(id, modern));
      if (config.verify) assertEcho(answer, id);
      else if (!('result' in answer)) throw new Error(JSON.stringify(answer).slice(0, 200));
    },
  });
  const rss = rssBytes(pid);
  peer.child.stdin?.end();
  await stop(peer.child);
  return { ...result, rssBytes: rss, coldStartMs: NaN };
}

async function main(config: StdioLoadConfig): Promise<StdioLoadResult> {
  if (config.scenario === 'call') return load(config);
  const times: number[] = [];
  for (let i = 0; i < config.repeat; i++) times.push(await coldStart(config));
  return { requests: 0, errors: 0, rps: NaN, p50Ms: NaN, p99Ms: NaN, cpuPerRequestUs: NaN, rssBytes: NaN, coldStartMs: median(times) };
}

main(JSON.parse(process.argv[2] ?? '{}') as StdioLoadConfig).then(
  (result) => process.stdout.write(JSON.stringify(result) + '\n'),
  (error: unknown) => {
    process.stderr.write(`${(error as Error).stack ?? String(error)}\n`);
    process.exit(1);
  },
);
