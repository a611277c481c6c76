/**
 * Targets that are shipped command lines rather than compiled bench entries: our CLI's
 * `switchboard everything --http`, our CLI's `switchboard gateway` fronting a downstream
 * server (the stdio floor, or the HTTP floor) with an empty or a full interceptor chain (or the
 * empty one with the web console on and a page holding its events stream open), and `supergateway` (stdio → Streamable HTTP on
 * the official SDK) fronting the same stdio floor. Each is started exactly as a user starts
 * it (`node dist/cli/main.js …`, `node node_modules/supergateway/dist/index.js …`), pinned to
 * the server core; a downstream the front spawns inherits that pinning, and the HTTP floor a
 * gateway fronts is pinned there too. The forward floor (`targets/forwardFloor.ts`: the least a
 * Node process does to forward a call) is started the same way, in front of the same floors, so a front and what it fronts share one core, as the
 * direct servers have it to themselves.
 *
 * The server pid the load generator meters is the front's: the CPU a downstream spends is
 * not in "server CPU µs/req" (its cost shows in req/s and latency, which share the core).
 *
 * @module
 */
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { createServer } from 'node:net';
import { tmpdir } from 'node:os';
import { resolve } from 'node:path';
import type { CommandSpec } from '../targets.js';
import { SERVER_CPU, spawnPinned, stop, waitForLine } from './proc.js';

/** A started HTTP target. */
export interface HttpServer {
  readonly pid: number;
  readonly port: number;
  stop(): Promise<void>;
}

/** The directory compiled bench modules live in (`bench/.out/bench`). */
export const OUT = resolve(import.meta.dirname, '..');
/** The repository root (dist/, node_modules/). */
const ROOT = resolve(OUT, '..', '..', '..');
const CLI = resolve(ROOT, 'dist', 'cli', 'main.js');
const SUPERGATEWAY = resolve(ROOT, 'node_modules', 'supergateway', 'dist', 'index.js');
const FLOOR_STDIO = resolve(OUT, 'targets', 'floorStdio.js');
const FORWARD_FLOOR = resolve(OUT, 'targets', 'forwardFloor.js');

/** Starts `args` (a node script and its arguments) pinned and waits for `ready` on stdout or stderr. */
async function startCommand(args: readonly string[], ready: RegExp, cleanup: () => Promise<void> = () => Promise.resolve()): Promise<HttpServer> {
  const child = spawnPinned(SERVER_CPU, process.execPath, args, { stdio: ['ignore', 'pipe', 'pipe'] });
  // Keep draining both pipes after the ready line, or a chatty target blocks on a full pipe.
  child.stdout?.resume();
  child.stderr?.resume();
  const halt = async (): Promise<void> => {
    await stop(child);
    await cleanup();
  };
  try {
    const match = await waitForLine(child, ready, 20_000, true);
    return { pid: child.pid as number, port: Number(match[1]), stop: halt };
  } catch (error) {
    await halt();
    throw error;
  }
}

/** A free TCP port on 127.0.0.1 (for a target that cannot take port 0). */
function freePort(): Promise<number> {
  return new Promise((resolvePort, reject) => {
    const probe = createServer();
    probe.once('error', reject);
    probe.listen(0, '127.0.0.1', () => {
      const address = probe.address();
      probe.close(() => (typeof address === 'object' && address !== null ? resolvePort(address.port) : reject(new Error('no port'))));
    });
  });
}

/**
 * The `switchboard` section of the empty chain: the routing alone. The audit log off
 * (`audit: false`), no pins, the scanner off for the one server, no guards, no policy (no rule
 * and every built-in off, so the gateway installs none), no sanitising or redaction. The
 * consent step stays, as a pass-through: with no policy nothing can ask.
 */
const EMPTY_CHAIN = {
  console: false,
  audit: false,
  pins: false,
  servers: { echo: { scan: 'off' } },
  sanitize: false,
  redact: false,
  policy: { trifecta: 'off', valueTaint: 'off', serverRequests: 'off' },
};

/**
 * The policy part of the full chain (issue #13): the built-ins on (trifecta, value taint,
 * server requests), the server labelled, and two CEL rules evaluated on every call that
 * match none of the bench's `echo` calls, so each call is decided and allowed.
 */
const FULL_CHAIN_POLICY = {
  policy: {
    rules: [
      { id: 'no-destructive-after-untrusted', when: '"destructive" in tool.labels && "untrusted-content" in session.labels', outcome: 'deny', reason: 'destructive call after untrusted content' },
      { id: 'ask-large-args', when: 'size(args) > 64', outcome: 'ask', reason: 'unusually many arguments' },
    ],
  },
};

/**
 * The full chain: the audit log (group commit, synced at each commit), pins, the scanner in
 * `block` mode, every guard with limits the load never reaches (so each is evaluated on every
 * call and none refuses), and the policy engine ({@link FULL_CHAIN_POLICY}). The console is
 * off, as in {@link EMPTY_CHAIN}: the lane compares chains on the same gateway (the console's
 * own cost is the `gw-console` lane).
 */
const FULL_CHAIN = {
  console: false,
  audit: true,
  pins: true,
  servers: { echo: { scan: 'block', labels: ['private-data'] } },
  sanitize: { mode: 'strip' },
  guards: {
    rateLimits: [{ by: ['principal', 'tool'], max: 1_000_000_000, perMs: 1000 }],
    maxConcurrentPerPrincipal: 10_000,
    circuitBreaker: { failures: 5, openMs: 30_000 },
    maxResultBytes: 1_048_576,
  },
  ...FULL_CHAIN_POLICY,
};

/** The full chain with the audit log's `batch` durability: an answer waits for its record's commit, not for the sync after it. */
const FULL_CHAIN_BATCH = { ...FULL_CHAIN, audit: { durability: 'batch' } };

/**
 * The default chain (issue #35): what `switchboard gateway` runs when the config says nothing
 * but the server: the audit log with `sync` durability and its redaction, pins, the scanner in
 * its default mode, the sanitiser, the protected-path and argument checks, the policy's
 * built-ins (trifecta, value taint). Only the console is off, as in every lane but `gw-console`.
 */
const DEFAULT_CHAIN = { console: false };

/** The default chain with the audit log's `batch` durability. */
const DEFAULT_CHAIN_BATCH = { console: false, audit: { durability: 'batch' } };

/** The `switchboard` section of each chain. */
const CHAINS = { empty: EMPTY_CHAIN, full: FULL_CHAIN, 'full-batch': FULL_CHAIN_BATCH, default: DEFAULT_CHAIN, 'default-batch': DEFAULT_CHAIN_BATCH } as const;

/**
 * Writes the bench's gateway config into `dir` (state under `dir/state`) and returns its path:
 * one server `echo`, the stdio floor or the HTTP floor on `httpPort`, the chain of `spec`.
 * Shared by `npm run bench` and `npm run bench:instructions`.
 */
export function writeGatewayConfig(dir: string, spec: CommandSpec, httpPort?: number): string {
  const server = httpPort === undefined ? { command: process.execPath, args: [FLOOR_STDIO] } : { type: 'http', url: `http://127.0.0.1:${httpPort}/mcp` };
  const file = resolve(dir, 'switchboard.json');
  // One server, so its tool keeps the bare name `echo` (the wire's `Mcp-Name`).
  const base = CHAINS[spec.chain ?? 'empty'];
  const chain = spec.console === true ? { ...base, console: true } : base;
  writeFileSync(file, JSON.stringify({ mcpServers: { echo: server }, switchboard: { namespacing: 'never', stateDir: resolve(dir, 'state'), ...chain } }));
  return file;
}

/** The line `switchboard gateway` prints once it listens; group 1 is the port. */
export const GATEWAY_READY = /Switchboard gateway: http:\/\/[^\s/]+:(\d+)\//;

/** `switchboard gateway` on a fresh config with one server `echo`: the stdio floor, or the HTTP floor at `url`; the empty or the full chain. */
async function startGateway(spec: CommandSpec, startFloorHttp: () => Promise<HttpServer>): Promise<HttpServer> {
  const dir = mkdtempSync(resolve(tmpdir(), 'switchboard-bench-'));
  const floor = spec.downstream === 'http' ? await startFloorHttp() : undefined;
  const file = writeGatewayConfig(dir, spec, floor?.port);
  // `BENCH_GATEWAY_CPU_PROF=<dir>`: the gateway writes a V8 CPU profile there when it stops.
  const profDir = process.env['BENCH_GATEWAY_CPU_PROF'];
  const prof = profDir !== undefined && profDir !== '' ? ['--cpu-prof', '--cpu-prof-dir', profDir] : [];
  const args = [...prof, CLI, 'gateway', '--config', file, '--port', '0', '--no-auth', '--yes', '--log-level', 'warn'];
  const page = new AbortController();
  const started = await startCommand(args, GATEWAY_READY, async () => {
    page.abort();
    await floor?.stop();
    rmSync(dir, { recursive: true, force: true });
  });
  if (spec.console === true) {
    try {
      await openConsolePage(started, resolve(dir, 'state', 'admin-token'), page.signal);
    } catch (error) {
      await started.stop();
      throw error;
    }
  }
  return started;
}

/** What a console page does while it is open: signs in, then holds `/console/api/events` open (the gateway pushes to it). */
async function openConsolePage(gateway: HttpServer, tokenFile: string, signal: AbortSignal): Promise<void> {
  const origin = `http://127.0.0.1:${gateway.port}`;
  const token = readFileSync(tokenFile, 'utf8').trim();
  const signedIn = await fetch(`${origin}/console/api/session`, { method: 'POST', headers: { origin, 'content-type': 'application/json' }, body: JSON.stringify({ token }) });
  if (signedIn.status !== 200) throw new Error(`console sign-in: ${signedIn.status} ${await signedIn.text()}`);
  const cookie = (signedIn.headers.get('set-cookie') ?? '').split(';')[0] as string;
  const events = await fetch(`${origin}/console/api/events`, { headers: { cookie }, signal });
  if (events.status !== 200 || events.body === null) throw new Error(`console events: ${events.status}`);
  // Read (and drop) what is pushed until the gateway stops.
  void events.body.pipeTo(new WritableStream(), { signal }).catch(() => undefined);
}

/**
 * Starts a command target for `mode` (`stateless` = 2026-07-28, `session` = 2025-11-25).
 * `startFloorHttp` starts the HTTP floor (pinned) for a gateway fronting HTTP.
 */
export async function launchCommand(spec: CommandSpec, mode: 'stateless' | 'session', startFloorHttp: () => Promise<HttpServer>): Promise<HttpServer> {
  switch (spec.launcher) {
    case 'everything':
      return startCommand([CLI, 'everything', '--http', '--port', '0', '--log-level', 'info'], /"url":"http:\/\/[^"/]+:(\d+)\//);
    case 'gateway':
      return startGateway(spec, startFloorHttp);
    case 'forward': {
      // The forward floor spawns the stdio floor itself (inheriting the pinning), or fronts the HTTP floor started here.
      const floor = spec.downstream === 'http' ? await startFloorHttp() : undefined;
      const downstream = floor === undefined ? ['--downstream', 'stdio'] : ['--downstream', 'http', '--downstream-port', String(floor.port)];
      try {
        return await startCommand([FORWARD_FLOOR, '--mode', mode, ...downstream], /LISTENING (\d+)/, async () => floor?.stop());
      } catch (error) {
        await floor?.stop();
        throw error;
      }
    }
    case 'supergateway': {
      const port = await freePort();
      // Stateless (the default) serves both the 2026-07-28 wire and session-less 2025 requests;
      // the 2025-11-25 session wire needs --stateful.
      const args = [SUPERGATEWAY, '--stdio', `${process.execPath} ${FLOOR_STDIO}`, '--outputTransport', 'streamableHttp', '--port', String(port), '--logLevel', 'info', ...(mode === 'session' ? ['--stateful'] : [])];
      return startCommand(args, /Listening on port (\d+)/);
    }
  }
}
