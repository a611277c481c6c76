// Start and stop of the real gateway process with servers that will not cooperate: one that
// never answers initialize must not keep the gateway off the network, and no server process
// (nor what it started: npx -> npm exec -> node) may outlive the gateway, whether it is stopped
// by SIGTERM during a server's start or by Ctrl-C twice. (The official SDK's stdio client closing
// `gateway --stdio` started by `wrap`: firstRun.e2e.test.ts.)
// The downstream is `fixtures/stubbornServer.mjs`: a wrapper and its child that both record
// their pid, ignore SIGTERM/SIGINT/SIGHUP and stdin EOF; "hang" never answers anything.
// See https://modelcontextprotocol.io/specification/2025-11-25/basic/lifecycle#stdio
import assert from 'node:assert/strict';
import { spawn, type ChildProcess } from 'node:child_process';
import { existsSync, readFileSync } from 'node:fs';
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { after, describe, it } from 'node:test';
import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { StreamableHTTPClientTransport } from '@modelcontextprotocol/sdk/client/streamableHttp.js';
import { MAIN, writeConfig, type GatewayConfig } from '../interop/fixtures/gatewayHarness.js';
import { alive, waitFor } from './processTree.js';

const STUBBORN = fileURLToPath(new URL('./fixtures/stubbornServer.mjs', import.meta.url));
const TIMEOUT = { timeout: 120_000 };

const cleanups: (() => Promise<void>)[] = [];
after(async () => {
  for (const cleanup of cleanups.splice(0).reverse()) await cleanup();
});

/** A config folder (also HOME and XDG_CONFIG_HOME of the gateway: nothing reaches the real ones). */
async function configWith(servers: Record<string, 'hang' | 'answer'>, options: Record<string, unknown> = {}): Promise<GatewayConfig & { pidFile(id: string): string }> {
  const pids = await mkdtemp(join(tmpdir(), 'sb-lifecycle-pids-'));
  const pidFile = (id: string): string => join(pids, `${id}.pids`);
  const entries = Object.fromEntries(Object.entries(servers).map(([id, mode]) => [id, { command: process.execPath, args: [STUBBORN, pidFile(id), mode] }]));
  const config = await writeConfig(entries, { servers: options });
  cleanups.push(async () => {
    killRecorded(pids);
    await config.remove();
    await rm(pids, { recursive: true, force: true });
  });
  return { ...config, pidFile };
}

/** The pids a server's processes recorded (the wrapper, then its child). */
function recorded(file: string): number[] {
  if (!existsSync(file)) return [];
  return readFileSync(file, 'utf8').split('\n').filter((l) => l !== '').map(Number);
}

/** After a test (pass or fail): nothing it started keeps running. */
function killRecorded(folder: string): void {
  const files = existsSync(folder) ? ['hung', 'stubborn', 'a', 'b'].map((id) => join(folder, `${id}.pids`)) : [];
  for (const pid of files.flatMap(recorded)) {
    try {
      process.kill(pid, 'SIGKILL');
    } catch {
      // already gone
    }
  }
}

/** Both processes of each server recorded their pid. */
function allRecorded(config: { pidFile(id: string): string }, ids: readonly string[]): Promise<number[]> {
  return waitFor(`the pids of ${ids.join(', ')}`, () => {
    const pids = ids.map((id) => recorded(config.pidFile(id)));
    return pids.every((p) => p.length >= 2) ? pids.flat() : undefined;
  }, 60_000);
}

/** Resolves with how long it took until none of `pids` runs; rejects after `ms`. */
async function goneWithin(pids: readonly number[], ms: number, since = Date.now()): Promise<number> {
  await waitFor(`pids ${pids.filter(alive).join(', ')} to be gone`, () => (pids.every((p) => !alive(p)) ? true : undefined), ms);
  return Date.now() - since;
}

interface Gateway {
  readonly child: ChildProcess;
  readonly exited: Promise<number | null>;
  stderr(): string;
  /** The URL line, and when it came. */
  readonly listening: Promise<{ url: URL; at: number }>;
}

function runGateway(config: GatewayConfig): Gateway {
  const child = spawn(process.execPath, [MAIN, 'gateway', '--config', config.file, '--port', '0', '--yes', '--no-auth', '--log-level', 'info'], {
    cwd: config.dir,
    env: { ...process.env, HOME: config.dir, XDG_CONFIG_HOME: config.dir },
    stdio: ['ignore', 'ignore', 'pipe'],
  });
  let err = '';
  const exited = new Promise<number | null>((resolve) => child.once('exit', (code) => resolve(code)));
  const listening = new Promise<{ url: URL; at: number }>((resolve, reject) => {
    child.stderr?.on('data', (chunk: Buffer) => {
      err += chunk.toString();
      const m = /Switchboard gateway: (http:\/\/\S+)/.exec(err);
      if (m !== null) resolve({ url: new URL(m[1] as string), at: Date.now() });
    });
    void exited.then((code) => reject(new Error(`the gateway exited (${String(code)}) before listening:\n${err}`)));
  });
  cleanups.push(async () => {
    if (child.exitCode === null && child.signalCode === null) child.kill('SIGKILL');
  });
  return { child, exited, stderr: () => err, listening };
}

describe('gateway start and stop (#31, #33)', () => {
  it('hung server: a stdio server that never answers initialize does not keep /healthz off the network (gateway answers within 2 s)', TIMEOUT, async () => {
    const config = await configWith({ hung: 'hang', stubborn: 'answer' });
    const gateway = runGateway(config);
    // From the moment the hung server runs (both its processes recorded their pids).
    await allRecorded(config, ['hung']);
    const hungSince = Date.now();
    const { url } = await gateway.listening;
    const health = await fetch(new URL('/healthz', url));
    const answeredIn = Date.now() - hungSince;
    assert.equal(health.status, 200);
    assert.ok(answeredIn < 2000, `the gateway answered /healthz ${answeredIn} ms after the hung server started`);
    console.log(`# /healthz answered ${answeredIn} ms after the hung server was running`);
    // Readiness says who is still starting; the healthy server serves meanwhile (an MCP client lists its tool).
    const readyz = (await (await fetch(new URL('/readyz', url))).json()) as { status: string; servers: { id: string; state: string }[] };
    assert.equal(readyz.servers.find((s) => s.id === 'hung')?.state, 'starting');
    assert.equal(readyz.status, 'not ready');
    const client = new Client({ name: 'lifecycle-test', version: '1.0.0' });
    await client.connect(new StreamableHTTPClientTransport(url));
    const tools = await client.listTools();
    assert.deepEqual(tools.tools.map((t) => t.name), ['stubborn']);
    const during = (await (await fetch(new URL('/readyz', url))).json()) as { servers: { id: string; state: string }[] };
    assert.equal(during.servers.find((s) => s.id === 'hung')?.state, 'starting', 'listed while the hung server was still starting');
    await client.close();
    gateway.child.kill('SIGTERM');
    await gateway.exited;
  });

  it('hung server: past its startTimeoutMs its start failed, its processes are gone, and it is retried', TIMEOUT, async () => {
    const config = await configWith({ hung: 'hang' }, { hung: { startTimeoutMs: 500 } });
    const gateway = runGateway(config);
    const { url } = await gateway.listening;
    const first = await allRecorded(config, ['hung']);
    let health: { state: string; error?: string } | undefined;
    const until = Date.now() + 30_000;
    while (Date.now() < until) {
      const body = (await (await fetch(new URL('/readyz', url))).json()) as { servers: { id: string; state: string; error?: string }[] };
      health = body.servers.find((s) => s.id === 'hung');
      if (health?.error !== undefined) break;
      await new Promise((resolve) => setTimeout(resolve, 50));
    }
    assert.match(health?.error ?? '', /did not answer initialize within 500 ms \(its startTimeoutMs\)/);
    await goneWithin(first, 10_000);
    // Retried with backoff: a new pair of processes.
    await waitFor('a restart', () => (recorded(config.pidFile('hung')).length >= 4 ? true : undefined), 30_000);
    gateway.child.kill('SIGTERM');
    await gateway.exited;
    await goneWithin(recorded(config.pidFile('hung')), 10_000);
  });

  it('hung server: it is killed at shutdown (SIGTERM during its start: the server, its child, within the grace)', TIMEOUT, async () => {
    const config = await configWith({ hung: 'hang', stubborn: 'answer' });
    const gateway = runGateway(config);
    await gateway.listening;
    const pids = await allRecorded(config, ['hung', 'stubborn']);
    const since = Date.now();
    gateway.child.kill('SIGTERM');
    const took = await goneWithin(pids, 10_000, since);
    assert.equal(await gateway.exited, 0);
    console.log(`# SIGTERM during a start: every server process gone ${took} ms after, the gateway exited ${Date.now() - since} ms after`);
    assert.match(gateway.stderr(), /stopping \(SIGTERM\)/);
  });

  it('double Ctrl-C: a second SIGINT kills every server group at once, servers still starting included', TIMEOUT, async () => {
    const config = await configWith({ hung: 'hang', stubborn: 'answer' });
    const gateway = runGateway(config);
    await gateway.listening;
    const pids = await allRecorded(config, ['hung', 'stubborn']);
    gateway.child.kill('SIGINT');
    await waitFor('the first SIGINT taken', () => (/stopping \(SIGINT\)/.test(gateway.stderr()) ? true : undefined), 10_000);
    // The graceful close waits 2 s for EOF, 2 s for SIGTERM: these ignore both.
    assert.ok(pids.every(alive), 'still in their grace after one Ctrl-C');
    const since = Date.now();
    gateway.child.kill('SIGINT');
    const took = await goneWithin(pids, 1500, since);
    assert.equal(await gateway.exited, 130);
    console.log(`# second SIGINT: every server process gone ${took} ms after`);
  });
});
