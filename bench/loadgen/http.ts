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
import { HttpConnection, type HttpResponse } from '../lib/httpClient.js';
import { cpuMicros } from '../lib/proc.js';
import { runLanes, type LaneResult } from '../lib/lanes.js';
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

/** What one load run measured; CPU is the server's per request. */
export type HttpLoadResult = LaneResult;

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

  const headers = conns.map((_, index) => httpHeaders(method, modern, sids[index]));
  const result = await runLanes({
    lanes: conns.length,
    warmupMs: config.warmupMs,
    durationMs: config.durationMs,
    cpuMicros: () => cpuMicros(config.serverPid),
    call: async (index) => {
      const id = nextId++;
      // A server may close a keep-alive connection that idled past its timeout (express: 5 s)
      // while the other lanes opened their sessions; a client reconnects, and so do we.
      if ((conns[index] as HttpConnection).closed) conns[index] = await HttpConnection.open('127.0.0.1', config.port);
      const body = config.scenario === 'list' ? listCall(id, modern) : echoCall(id, modern);
      check(await (conns[index] as HttpConnection).request('POST', PATH, headers[index] as Record<string, string>, body), id);
    },
    countLate: config.verify,
    fatal: (error) => error.message.startsWith('connection closed'),
  });
  for (const conn of conns) conn.close();
  return result;
}

main(JSON.parse(process.argv[2] ?? '{}') as HttpLoadConfig).then(
  (result) => process.stdout.write(JSON.stringify(result) + '\n'),
  (error: unknown) => {
    process.stderr.write(`${(error as Error).stack ?? String(error)}\n`);
    process.exit(1);
  },
);
