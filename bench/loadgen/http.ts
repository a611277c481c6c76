/**
 * The HTTP load generator, run as its own process pinned to its own core. It opens
 * `concurrency` keep-alive connections ({@link HttpConnection}), each with one request in
 * flight at a time, warms up, then counts completed requests and latencies for the measured
 * window while sampling the server process's CPU time around it.
 *
 * Usage: `node http.js '<HttpLoadConfig JSON>'`; prints one {@link HttpLoadResult} JSON line.
 *
 * @module
 */
import { performance } from 'node:perf_hooks';
import { HttpConnection, type HttpResponse } from '../lib/httpClient.js';
import { cpuMicros } from '../lib/proc.js';
import { percentile, sorted } from '../lib/stats.js';
import { assertEcho, assertList, echoCall, httpHeaders, INITIALIZED, initializeCall, jsonRpcOf, listCall, looksLikeEcho } from '../lib/wire.js';

/** What to run. */
export interface HttpLoadConfig {
  readonly port: number;
  /** Connections, each with one request in flight. */
  readonly concurrency: number;
  readonly warmupMs: number;
  readonly durationMs: number;
  /** `stateless` = 2026-07-28 per-request `_meta`; `session` = 2025-11-25 initialize + `Mcp-Session-Id`. */
  readonly wire: 'stateless' | 'session';
  /** `call` = tools/call echo; `list` = tools/list expecting `listCount` tools; `sessions` = only open `sessions` sessions. */
  readonly scenario: 'call' | 'list' | 'sessions';
  readonly listCount?: number;
  readonly sessions?: number;
  /** The server's pid, for CPU time. */
  readonly serverPid: number;
  /** Parse and check every answer fully (smoke) instead of the cheap check. */
  readonly verify: boolean;
}

/** What one load run measured. */
export interface HttpLoadResult {
  readonly requests: number;
  readonly errors: number;
  readonly firstError?: string;
  readonly rps: number;
  readonly p50Ms: number;
  readonly p99Ms: number;
  /** Server CPU time (user + system) per request in the measured window, microseconds. */
  readonly cpuPerRequestUs: number;
}

const PATH = '/mcp';

async function openSession(conn: HttpConnection): Promise<string> {
  const init = await conn.request('POST', PATH, httpHeaders('initialize', false), initializeCall(0));
  const sid = init.headers.get('mcp-session-id');
  if (init.status !== 200 || sid === undefined) throw new Error(`initialize failed: ${init.status} ${init.body.slice(0, 200)}`);
  const ack = await conn.request('POST', PATH, httpHeaders('notifications/initialized', false, sid), INITIALIZED);
  if (ack.status >= 300) throw new Error(`notifications/initialized failed: ${ack.status}`);
  return sid;
}

async function main(config: HttpLoadConfig): Promise<HttpLoadResult> {
  const conns = await Promise.all(Array.from({ length: Math.max(1, config.concurrency) }, () => HttpConnection.open('127.0.0.1', config.port)));
  const session = config.wire === 'session';
  if (config.scenario === 'sessions') {
    const count = config.sessions ?? 1000;
    let next = 0;
    await Promise.all(conns.map(async (conn) => {
      while (next++ < count) await openSession(conn);
    }));
    for (const conn of conns) conn.close();
    return { requests: count, errors: 0, rps: NaN, p50Ms: NaN, p99Ms: NaN, cpuPerRequestUs: NaN };
  }
  const sids = session ? await Promise.all(conns.map(openSession)) : [];
  const method = config.scenario === 'list' ? 'tools/list' : 'tools/call';
  const listCount = config.listCount ?? 1;
  const lastTool = `"name":"tool_${listCount - 1}"`;
  const modern = !session;

  let phase: 'warmup' | 'measure' | 'done' = 'warmup';
  const latencies: number[] = [];
  let errors = 0;
  let firstError: string | undefined;
  let nextId = 1;

  const check = (response: HttpResponse, id: number): void => {
    if (config.verify) {
      const message = jsonRpcOf(response.body);
      if (config.scenario === 'list') assertList(message, id, listCount);
      else assertEcho(message, id);
    } else if (response.status !== 200 || !(config.scenario === 'list' ? listCount < 2 || response.body.includes(lastTool) : looksLikeEcho(response.body))) {
      throw new Error(`unexpected answer ${response.status}: ${response.body.slice(0, 200)}`);
    }
  };

  const worker = async (conn: HttpConnection, index: number): Promise<void> => {
    const headers = httpHeaders(method, modern, sids[index]);
    while (phase !== 'done') {
      const id = nextId++;
      const body = config.scenario === 'list' ? listCall(id, modern) : echoCall(id, modern);
      const started = performance.now();
      const counted = phase === 'measure';
      try {
        check(await conn.request('POST', PATH, headers, body), id);
        if (counted && phase === 'measure') latencies.push(performance.now() - started);
      } catch (error) {
        errors++;
        firstError ??= (error as Error).message;
        if (errors > 100 || (error as Error).message.startsWith('connection closed')) return;
      }
    }
  };

  const running = Promise.all(conns.map(worker));
  await new Promise((r) => setTimeout(r, config.warmupMs));
  const cpu0 = cpuMicros(config.serverPid);
  const t0 = performance.now();
  phase = 'measure';
  await new Promise((r) => setTimeout(r, config.durationMs));
  phase = 'done';
  const elapsed = performance.now() - t0;
  const cpu1 = cpuMicros(config.serverPid);
  await running;
  for (const conn of conns) conn.close();
  const samples = sorted(latencies);
  return {
    requests: samples.length,
    errors,
    ...(firstError === undefined ? {} : { firstError }),
    rps: (samples.length * 1000) / elapsed,
    p50Ms: percentile(samples, 50),
    p99Ms: percentile(samples, 99),
    cpuPerRequestUs: samples.length === 0 ? NaN : (cpu1 - cpu0) / samples.length,
  };
}

main(JSON.parse(process.argv[2] ?? '{}') as HttpLoadConfig).then(
  (result) => process.stdout.write(JSON.stringify(result) + '\n'),
  (error: unknown) => {
    process.stderr.write(`${(error as Error).stack ?? String(error)}\n`);
    process.exit(1);
  },
);
