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
import { pathToFileURL } from 'node:url';
import { runLanes, type LaneResult } from '../lib/lanes.js';
import type { ClientEndpoint, ConnectClient } from '../clients/types.js';

/** What to run. */
export interface ClientLoadConfig {
  /** Absolute path of the compiled adapter module. */
  readonly module: string;
  readonly endpoint: ClientEndpoint;
  readonly concurrency: number;
  readonly warmupMs: number;
  readonly durationMs: number;
  /** Smoke: count calls that end after the window too (see `LaneOptions.countLate`). */
  readonly verify?: boolean;
}

/** What one run measured; CPU is this (client) process's own per call. */
export type ClientLoadResult = LaneResult;

async function main(config: ClientLoadConfig): Promise<ClientLoadResult> {
  const connect = (await import(pathToFileURL(config.module).href) as { default: ConnectClient }).default;
  const client = await connect(config.endpoint, config.concurrency);
  await client.callEcho(); // the first call may carry one-time work (tools/list, caches)
  const result = await runLanes({
    lanes: config.concurrency,
    warmupMs: config.warmupMs,
    durationMs: config.durationMs,
    cpuMicros: () => {
      const cpu = process.cpuUsage();
      return cpu.user + cpu.system;
    },
    call: () => client.callEcho(),
    countLate: config.verify === true,
  });
  await client.close();
  return result;
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
