/**
 * `npm run bench:cluster`: requests per second of one, two and three `switchboard gateway`
 * instances (the build, dist/cli/main.js) behind HAProxy on loopback, every instance on the
 * same PostgreSQL schema (`--store`: pins, audit group commit) and Redis prefix (`--cache`:
 * the rate-limit check every call pays, sessions), each fronting `switchboard everything`
 * over stdio. The load: `--concurrency` clients (ours, 2026-07-28, stateless) calling `echo`
 * for `--seconds` after a short warm-up, through HAProxy.
 *
 * On a machine with fewer cores than instances + load generator + PostgreSQL + Redis, the
 * figures show the contention, not the scaling: the report prints the core count and the load
 * average so a reader can tell. Flags: `--seconds N` (default 5), `--concurrency N` (default
 * 16), `--instances 1,2,3`, `--json`. Connects as the tests do (`SWITCHBOARD_TEST_POSTGRES`,
 * `SWITCHBOARD_TEST_REDIS`), in a schema and key prefix of its own, dropped at the end.
 *
 * @module
 */
import { spawn, type ChildProcess } from 'node:child_process';
import { randomBytes } from 'node:crypto';
import { mkdtemp, readFile, rm, writeFile } from 'node:fs/promises';
import { availableParallelism, loadavg, tmpdir, userInfo } from 'node:os';
import { join, resolve } from 'node:path';
import { nodeFetch } from '../src/adapters/nodeFetch.js';
import { McpClient } from '../src/client/mcpClient.js';
import { PgDatabase } from '../src/store/postgres/pgDatabase.js';
import { RedisCache } from '../src/store/redis/redisCache.js';
import { StreamableHttpClientTransport } from '../src/transport/http/client/client.js';
import { startHaproxy } from './lib/haproxy.js';

const argv = process.argv.slice(2);
const option = (name: string, fallback: string): string => {
  const i = argv.indexOf(name);
  return i >= 0 ? (argv[i + 1] ?? fallback) : fallback;
};
const SECONDS = Number(option('--seconds', '5'));
const CONCURRENCY = Number(option('--concurrency', '16'));
const INSTANCES = option('--instances', '1,2,3').split(',').map(Number);
const POSTGRES = process.env['SWITCHBOARD_TEST_POSTGRES'] ?? `postgres://${userInfo().username}@127.0.0.1:5432/switchboard_test`;
const REDIS = process.env['SWITCHBOARD_TEST_REDIS'] ?? 'redis://127.0.0.1:6379';
const MAIN = resolve(import.meta.dirname, '..', 'dist', 'cli', 'main.js');

interface Gateway {
  readonly host: string;
  readonly child: ChildProcess;
}

async function startGateway(dir: string, file: string): Promise<Gateway> {
  const child = spawn(process.execPath, [MAIN, 'gateway', '--config', file, '--port', '0', '--yes', '--log-level', 'error'], { cwd: dir, stdio: ['ignore', 'ignore', 'pipe'] });
  let err = '';
  const url = await new Promise<URL>((resolve, reject) => {
    child.stderr?.on('data', (chunk: Buffer) => {
      err += chunk.toString();
      const m = /Switchboard gateway: (http:\/\/\S+)/.exec(err);
      if (m !== null) resolve(new URL(m[1] as string));
    });
    child.once('exit', (code) => reject(new Error(`the gateway exited with ${String(code)}:\n${err}`)));
  });
  return { host: url.host, child };
}

async function stop(child: ChildProcess): Promise<void> {
  if (child.exitCode !== null || child.signalCode !== null) return;
  const exited = new Promise<void>((resolve) => child.once('exit', () => resolve()));
  child.kill('SIGTERM');
  await exited;
}

/** `CONCURRENCY` clients calling echo through `url` for `ms`; completed calls and the median latency. */
async function load(url: URL, token: string, ms: number): Promise<{ calls: number; errors: number; p50Ms: number }> {
  const clients = await Promise.all(
    Array.from({ length: CONCURRENCY }, async () => {
      const c = new McpClient({ name: 'bench', version: '1' });
      await c.connect(new StreamableHttpClientTransport({ url, fetch: nodeFetch(), headers: { authorization: `Bearer ${token}` } }));
      return c;
    }),
  );
  const latencies: number[] = [];
  let errors = 0;
  const run = async (until: number, record: boolean): Promise<void> => {
    await Promise.all(
      clients.map(async (c, i) => {
        for (let n = 0; performance.now() < until; n++) {
          const t0 = performance.now();
          try {
            await c.callTool('echo', { message: `c${i}-${n}` });
            if (record) latencies.push(performance.now() - t0);
          } catch {
            if (record) errors++;
          }
        }
      }),
    );
  };
  await run(performance.now() + 1000, false);
  await run(performance.now() + ms, true);
  for (const c of clients) await c.close();
  latencies.sort((a, b) => a - b);
  return { calls: latencies.length, errors, p50Ms: latencies[Math.floor(latencies.length / 2)] ?? NaN };
}

async function main(): Promise<void> {
  const schema = `bench_${randomBytes(4).toString('hex')}`;
  const prefix = `sbbench:${randomBytes(4).toString('hex')}:`;
  const store = `${POSTGRES}${POSTGRES.includes('?') ? '&' : '?'}schema=${schema}`;
  const cache = `${REDIS}?prefix=${encodeURIComponent(prefix)}`;
  const rows: { instances: number; rps: number; p50Ms: number; errors: number; load1: number }[] = [];
  try {
    for (const n of INSTANCES) {
      const dir = await mkdtemp(join(tmpdir(), 'sb-bench-cluster-'));
      const file = join(dir, 'switchboard.json');
      const rateLimits = [{ by: ['principal'], max: 1_000_000_000, perMs: 1000 }];
      await writeFile(file, JSON.stringify({ mcpServers: { everything: { command: process.execPath, args: [MAIN, 'everything', '--stdio', '--log-level', 'error'] } }, switchboard: { namespacing: 'never', store, cache, guards: { rateLimits } } }));
      const gateways: Gateway[] = [];
      try {
        for (let i = 0; i < n; i++) gateways.push(await startGateway(dir, file));
        const token = (await readFile(join(dir, '.switchboard', 'gateway-token'), 'utf8')).trim();
        const haproxy = await startHaproxy(
          gateways.map((g) => g.host),
          '/mcp',
        );
        try {
          const r = await load(haproxy.url, token, SECONDS * 1000);
          rows.push({ instances: n, rps: r.calls / SECONDS, p50Ms: r.p50Ms, errors: r.errors, load1: loadavg()[0] ?? NaN });
        } finally {
          await haproxy.stop();
        }
      } finally {
        for (const g of gateways) await stop(g.child);
        await rm(dir, { recursive: true, force: true });
      }
    }
  } finally {
    const db = await PgDatabase.open(POSTGRES, { schema: 'switchboard_test_admin' });
    await db.query('dropping the bench schema', `DROP SCHEMA IF EXISTS ${schema} CASCADE`);
    await db.close();
    const redis = await RedisCache.open(REDIS, { prefix });
    await redis.deleteAll();
    await redis.close();
  }
  if (argv.includes('--json')) {
    process.stdout.write(`${JSON.stringify({ cores: availableParallelism(), concurrency: CONCURRENCY, seconds: SECONDS, rows })}\n`);
    return;
  }
  process.stdout.write(`cluster lane: ${CONCURRENCY} clients (2026-07-28, echo) through HAProxy, ${SECONDS} s each; ${availableParallelism()} cores shared with everything else\n`);
  process.stdout.write('| Instances | req/s | p50 ms | errors | load average (1 min) |\n| --- | --- | --- | --- | --- |\n');
  for (const r of rows) process.stdout.write(`| ${r.instances} | ${r.rps.toFixed(0)} | ${r.p50Ms.toFixed(1)} | ${r.errors} | ${r.load1.toFixed(1)} |\n`);
}

await main();
