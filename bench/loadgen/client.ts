/**
 * The client-side bench, run as its own process pinned to its own core: loads one client
 * adapter (`clients/<id>.js`), connects it to the floor server, keeps `concurrency` calls in
 * flight for the measured window and reports calls/s, latency and the client process's own
 * CPU time per call.
 *
 * Usage: `node client.js '<ClientLoadConfig JSON>'`; prints one {@link ClientLoadResult} JSON line.
 *
 * @module
 */
import { performance } from 'node:perf_hooks';
import { pathToFileURL } from 'node:url';
import { percentile, sorted } from '../lib/stats.js';
import type { ClientEndpoint, ConnectClient } from '../clients/types.js';

/** What to run. */
export interface ClientLoadConfig {
  /** Absolute path of the compiled adapter module. */
  readonly module: string;
  readonly endpoint: ClientEndpoint;
  readonly concurrency: number;
  readonly warmupMs: number;
  readonly durationMs: number;
}

/** What one run measured. */
export interface ClientLoadResult {
  readonly requests: number;
  readonly errors: number;
  readonly firstError?: string;
  readonly rps: number;
  readonly p50Ms: number;
  readonly p99Ms: number;
  /** This (client) process's CPU time per call, microseconds. */
  readonly cpuPerRequestUs: number;
}

async function main(config: ClientLoadConfig): Promise<ClientLoadResult> {
  const connect = (await import(pathToFileURL(config.module).href) as { default: ConnectClient }).default;
  const client = await connect(config.endpoint, config.concurrency);
  await client.callEcho(); // the first call may carry one-time work (tools/list, caches)
  let phase: 'warmup' | 'measure' | 'done' = 'warmup';
  const latencies: number[] = [];
  let errors = 0;
  let firstError: string | undefined;
  const lane = async (): Promise<void> => {
    while (phase !== 'done') {
      const started = performance.now();
      const counted = phase === 'measure';
      try {
        await client.callEcho();
        if (counted && phase === 'measure') latencies.push(performance.now() - started);
      } catch (error) {
        errors++;
        firstError ??= (error as Error).message;
        if (errors > 100) return;
      }
    }
  };
  const running = Promise.all(Array.from({ length: Math.max(1, config.concurrency) }, lane));
  await new Promise((r) => setTimeout(r, config.warmupMs));
  const cpu0 = process.cpuUsage();
  const t0 = performance.now();
  phase = 'measure';
  await new Promise((r) => setTimeout(r, config.durationMs));
  phase = 'done';
  const elapsed = performance.now() - t0;
  const cpu = process.cpuUsage(cpu0);
  await running;
  await client.close();
  const samples = sorted(latencies);
  return {
    requests: samples.length,
    errors,
    ...(firstError === undefined ? {} : { firstError }),
    rps: (samples.length * 1000) / elapsed,
    p50Ms: percentile(samples, 50),
    p99Ms: percentile(samples, 99),
    cpuPerRequestUs: samples.length === 0 ? NaN : (cpu.user + cpu.system) / samples.length,
  };
}

main(JSON.parse(process.argv[2] ?? '{}') as ClientLoadConfig).then(
  (result) => {
    process.stdout.write(JSON.stringify(result) + '\n');
    process.exit(0); // client libraries may keep handles (sockets, timers) open
  },
  (error: unknown) => {
    process.stderr.write(`${(error as Error).stack ?? String(error)}\n`);
    process.exit(1);
  },
);
