/**
 * Renders `docs/BENCHMARKS.md` from a result set: the machine and method, then one table per
 * section with absolute numbers and the ratios to the floor and to the official SDK, then
 * the issue's targets checked for Switchboard.
 *
 * @module
 */
import { BARE, clientTargets, EVERYTHING, FLOOR, FORWARD_HTTP, FORWARD_STDIO, FRONTS, GATEWAY_CONSOLE, GATEWAY_DEFAULT, GATEWAY_DEFAULT_BATCH, GATEWAY_DEFAULT_HTTP, GATEWAY_FULL, GATEWAY_FULL_BATCH, GATEWAY_HTTP, GATEWAY_STDIO, OURS, RAW_CLIENT, SDK, SUPERGATEWAY, serverTargets } from '../targets.js';
import { metric, type BenchResults, type Cell, type Section } from './results.js';

const label = (id: string, clients = false): string => (clients ? clientTargets : serverTargets).find((t) => t.id === id)?.label ?? id;

function num(value: number, digits = 0): string {
  if (!Number.isFinite(value)) return '–';
  return value.toLocaleString('en-US', { minimumFractionDigits: digits, maximumFractionDigits: digits });
}

function ratio(value: number, base: number): string {
  return Number.isFinite(value) && Number.isFinite(base) && base !== 0 ? `${(value / base).toFixed(2)}×` : '–';
}

function row(cells: readonly string[]): string {
  return `| ${cells.join(' | ')} |`;
}

function table(head: readonly string[], rows: readonly (readonly string[])[]): string {
  return [row(head), row(head.map((_, i) => (i === 0 ? ':--' : '--:'))), ...rows.map(row)].join('\n');
}

function statusOf(cells: readonly Cell[], section: Section, target: string, variant: string): string | undefined {
  const cell = cells.find((c) => c.section === section && c.target === target && c.variant === variant);
  if (cell === undefined) return 'not run';
  return cell.status === 'ok' ? undefined : `${cell.status}: ${cell.note ?? ''}`;
}

function httpTable(cells: readonly Cell[]): string {
  const rows: string[][] = [];
  for (const wire of ['stateless', 'session']) {
    for (const t of serverTargets.filter((x) => x.http !== undefined)) {
      const m = (v: string, n: string): number => metric(cells, 'http', t.id, `${wire} ${v}`, n);
      const why = statusOf(cells, 'http', t.id, `${wire} c=32`);
      if (why !== undefined && !Number.isFinite(m('c=1', 'rps'))) {
        rows.push([label(t.id), wire, why, '', '', '', '', '', '', '', '']);
        continue;
      }
      const rps32 = m('c=32', 'rps');
      rows.push([
        label(t.id),
        wire,
        num(m('c=1', 'rps')),
        num(rps32),
        num(m('c=1', 'p50Ms'), 2),
        num(m('c=32', 'p50Ms'), 2),
        num(m('c=32', 'p99Ms'), 2),
        num(m('c=32', 'cpuUs')),
        num(m('c=32', 'rssMB')),
        ratio(rps32, metric(cells, 'http', FLOOR, `${wire} c=32`, 'rps')),
        ratio(rps32, metric(cells, 'http', SDK, `${wire} c=32`, 'rps')),
      ]);
    }
  }
  return table(['target', 'wire', 'req/s c=1', 'req/s c=32', 'p50 ms c=1', 'p50 ms c=32', 'p99 ms c=32', 'server CPU µs/req', 'RSS MB after', 'c=32 vs floor', 'c=32 vs SDK v2'], rows);
}

function stdioTable(cells: readonly Cell[]): string {
  const bare = metric(cells, 'coldstart', BARE, 'tools/list', 'coldMs');
  const rows = serverTargets
    .filter((t) => t.stdio !== undefined)
    .map((t) => {
      const m = (v: string, n: string): number => metric(cells, 'stdio', t.id, v, n);
      const cold = metric(cells, 'coldstart', t.id, 'tools/list', 'coldMs');
      return [
        label(t.id),
        num(m('seq', 'rps')),
        num(m('c=32', 'rps')),
        num(m('seq', 'p50Ms'), 3),
        num(m('c=32', 'p99Ms'), 2),
        num(m('seq', 'cpuUs')),
        ratio(m('seq', 'rps'), metric(cells, 'stdio', FLOOR, 'seq', 'rps')),
        ratio(m('c=32', 'rps'), metric(cells, 'stdio', FLOOR, 'c=32', 'rps')),
        num(cold),
        ratio(cold, bare),
      ];
    });
  return table(['target', 'req/s seq', 'req/s 32 in flight', 'p50 ms seq', 'p99 ms 32', 'server CPU µs/req seq', 'seq vs floor', '32 vs floor', 'cold start ms', 'cold vs bare node'], rows);
}

function listAndSessions(cells: readonly Cell[]): string {
  const rows = serverTargets
    .filter((t) => t.http !== undefined)
    .map((t) => {
      const rps = metric(cells, 'list', t.id, 'c=1', 'rps');
      const why = statusOf(cells, 'list', t.id, 'c=1');
      const sessions = metric(cells, 'sessions', t.id, 'idle', 'sessionMB');
      const sessionWhy = statusOf(cells, 'sessions', t.id, 'idle');
      return [
        label(t.id),
        why ?? num(rps),
        num(metric(cells, 'list', t.id, 'c=1', 'p50Ms'), 2),
        ratio(rps, metric(cells, 'list', FLOOR, 'c=1', 'rps')),
        ratio(rps, metric(cells, 'list', SDK, 'c=1', 'rps')),
        sessionWhy ?? num(sessions, 1),
      ];
    });
  return table(['target', 'tools/list (1,000 tools) req/s c=1', 'p50 ms', 'vs floor', 'vs SDK v2', 'MB per 1,000 idle sessions'], rows);
}

function clientTable(cells: readonly Cell[]): string {
  const rows: string[][] = [];
  for (const transport of ['http', 'stdio']) {
    for (const t of clientTargets) {
      if (t.transports !== undefined && !t.transports.includes(transport as 'http' | 'stdio')) continue;
      const m = (c: number, n: string): number => metric(cells, 'client', t.id, `${transport} c=${c}`, n);
      rows.push([
        label(t.id, true),
        transport,
        statusOf(cells, 'client', t.id, `${transport} c=1`) ?? num(m(1, 'rps')),
        statusOf(cells, 'client', t.id, `${transport} c=32`) ?? num(m(32, 'rps')),
        num(m(1, 'p50Ms'), 2),
        num(m(32, 'cpuUs')),
        ratio(m(32, 'rps'), metric(cells, 'client', RAW_CLIENT, `${transport} c=32`, 'rps')),
        ratio(m(32, 'rps'), metric(cells, 'client', SDK, `${transport} c=32`, 'rps')),
      ]);
    }
  }
  return table(['client', 'transport', 'calls/s 1 in flight', 'calls/s 32 in flight', 'p50 ms 1', 'client CPU µs/call 32', '32 vs raw', '32 vs SDK v2'], rows);
}

/** The forward floor a front is compared with: the one fronting the same downstream (none for the direct server and the forward floors themselves). */
function forwardFloorOf(id: string): string | undefined {
  if (id === OURS || id === FORWARD_STDIO || id === FORWARD_HTTP) return undefined;
  return id === GATEWAY_HTTP || id === GATEWAY_DEFAULT_HTTP ? FORWARD_HTTP : FORWARD_STDIO;
}

/** `value` with its sign, in ms with 3 decimals. */
function signedMs(value: number): string {
  return `${value >= 0 ? '+' : ''}${num(value, 3)}`;
}

/**
 * The gateways (ours fronting the stdio and the HTTP floor with the empty chain, and the stdio
 * floor with the full chain; supergateway fronting the stdio floor) against our direct server
 * on the same wire: what fronting costs; against the forward floor with the same downstream
 * on the same wire: what the front costs beyond the process hop itself; and the full chain
 * against the empty one: what the decisions cost.
 */
function gatewayTable(cells: readonly Cell[]): string {
  const rows: string[][] = [];
  for (const wire of ['stateless', 'session']) {
    const direct = (c: number, n: string): number => metric(cells, 'http', OURS, `${wire} c=${c}`, n);
    for (const id of [OURS, ...FRONTS]) {
      const m = (c: number, n: string): number => metric(cells, 'http', id, `${wire} c=${c}`, n);
      const why = statusOf(cells, 'http', id, `${wire} c=32`);
      if (why !== undefined && !Number.isFinite(m(1, 'rps'))) {
        rows.push([label(id), wire, why, '', '', '', '', '', '', '', '', '']);
        continue;
      }
      const empty = (c: number, n: string): number => metric(cells, 'http', GATEWAY_STDIO, `${wire} c=${c}`, n);
      const floorId = forwardFloorOf(id);
      const floor = (c: number, n: string): number => (floorId === undefined ? NaN : metric(cells, 'http', floorId, `${wire} c=${c}`, n));
      rows.push([
        label(id),
        wire,
        num(m(1, 'rps')),
        num(m(32, 'rps')),
        num(m(1, 'p50Ms'), 3),
        id === OURS ? '–' : num(m(1, 'p50Ms') - direct(1, 'p50Ms'), 3),
        num(m(32, 'cpuUs')),
        ratio(m(32, 'rps'), direct(32, 'rps')),
        floorId === undefined ? '–' : ratio(m(32, 'rps'), floor(32, 'rps')),
        floorId === undefined || !Number.isFinite(floor(1, 'p50Ms')) ? '–' : signedMs(m(1, 'p50Ms') - floor(1, 'p50Ms')),
        id === GATEWAY_FULL || id === GATEWAY_FULL_BATCH || id === GATEWAY_CONSOLE || id === GATEWAY_DEFAULT || id === GATEWAY_DEFAULT_BATCH ? `${ratio(m(32, 'rps'), empty(32, 'rps'))}, ${signedMs(m(1, 'p50Ms') - empty(1, 'p50Ms'))} ms` : '–',
        ratio(m(32, 'rps'), metric(cells, 'http', SUPERGATEWAY, `${wire} c=32`, 'rps')),
      ]);
    }
  }
  return table(
    ['target', 'wire', 'req/s c=1', 'req/s c=32', 'p50 ms c=1', 'p50 added c=1 (ms)', 'front CPU µs/req c=32', 'c=32 vs direct Switchboard', 'c=32 vs forward floor', 'p50 added c=1 vs forward floor (ms)', 'chain vs empty chain (c=32 req/s, c=1 p50)', 'c=32 vs supergateway'],
    rows,
  );
}

/** The issue's targets for Switchboard, each checked against this run. */
function targetsTable(cells: readonly Cell[], fsync: number): string {
  const v = (s: Section, t: string, variant: string, n: string): number => metric(cells, s, t, variant, n);
  const fwd = (gateway: string, floor: string): number => v('http', gateway, 'stateless c=32', 'rps') / v('http', floor, 'stateless c=32', 'rps');
  const checks: [string, number, number, (x: number, limit: number) => boolean, string][] = [
    ['stateless HTTP c=32 req/s ≥ 50% of floor', v('http', OURS, 'stateless c=32', 'rps') / v('http', FLOOR, 'stateless c=32', 'rps'), 0.5, (x, l) => x >= l, '×'],
    ['stateless HTTP c=32 p99 < 5 ms', v('http', OURS, 'stateless c=32', 'p99Ms'), 5, (x, l) => x < l, ' ms'],
    ['stateless HTTP server CPU/req ≤ 2× floor', v('http', OURS, 'stateless c=32', 'cpuUs') / v('http', FLOOR, 'stateless c=32', 'cpuUs'), 2, (x, l) => x <= l, '×'],
    ['stateful HTTP c=32 req/s ≥ 40% of floor', v('http', OURS, 'session c=32', 'rps') / v('http', FLOOR, 'session c=32', 'rps'), 0.4, (x, l) => x >= l, '×'],
    ['stdio sequential ≥ 70% of readline floor', v('stdio', OURS, 'seq', 'rps') / v('stdio', FLOOR, 'seq', 'rps'), 0.7, (x, l) => x >= l, '×'],
    ['stdio 32 in flight ≥ 40% of readline floor', v('stdio', OURS, 'c=32', 'rps') / v('stdio', FLOOR, 'c=32', 'rps'), 0.4, (x, l) => x >= l, '×'],
    ['cold start ≤ 1.5× bare `node -e`', v('coldstart', OURS, 'tools/list', 'coldMs') / v('coldstart', BARE, 'tools/list', 'coldMs'), 1.5, (x, l) => x <= l, '×'],
    ['RSS after load ≤ 1.5× floor', v('http', OURS, 'stateless c=32', 'rssMB') / v('http', FLOOR, 'stateless c=32', 'rssMB'), 1.5, (x, l) => x <= l, '×'],
    ['1,000 idle sessions < 20 MB', v('sessions', OURS, 'idle', 'sessionMB'), 20, (x, l) => x < l, ' MB'],
    ['gateway (empty chain) → stdio, stateless c=32 ≥ 0.5 of direct', v('http', GATEWAY_STDIO, 'stateless c=32', 'rps') / v('http', OURS, 'stateless c=32', 'rps'), 0.5, (x, l) => x >= l, '×'],
    ['gateway (empty chain) → HTTP, stateless c=32 ≥ 0.3 of direct', v('http', GATEWAY_HTTP, 'stateless c=32', 'rps') / v('http', OURS, 'stateless c=32', 'rps'), 0.3, (x, l) => x >= l, '×'],
    ['gateway (empty chain) → stdio, stateless c=1 p50 added < 0.15 ms', v('http', GATEWAY_STDIO, 'stateless c=1', 'p50Ms') - v('http', OURS, 'stateless c=1', 'p50Ms'), 0.15, (x, l) => x < l, ' ms'],
    ['gateway (empty chain) → HTTP, stateless c=1 p50 added < 0.15 ms', v('http', GATEWAY_HTTP, 'stateless c=1', 'p50Ms') - v('http', OURS, 'stateless c=1', 'p50Ms'), 0.15, (x, l) => x < l, ' ms'],
    // Issue #35: against the forward floor with the same downstream and wire (the #13 targets, ratios to the empty chain, were withdrawn).
    ['gateway default chain → stdio, stateless c=32 ≥ 0.6 of the forward floor', fwd(GATEWAY_DEFAULT, FORWARD_STDIO), 0.6, (x, l) => x >= l, '×'],
    ['gateway default chain → HTTP, stateless c=32 ≥ 0.7 of the forward floor', fwd(GATEWAY_DEFAULT_HTTP, FORWARD_HTTP), 0.7, (x, l) => x >= l, '×'],
    ['gateway empty chain → stdio, stateless c=32 ≥ 0.85 of the forward floor', fwd(GATEWAY_STDIO, FORWARD_STDIO), 0.85, (x, l) => x >= l, '×'],
    ['gateway empty chain → HTTP, stateless c=32 ≥ 0.85 of the forward floor', fwd(GATEWAY_HTTP, FORWARD_HTTP), 0.85, (x, l) => x >= l, '×'],
    [
      `gateway default chain (audit \`sync\`) → stdio, stateless c=1 p50 added over the forward floor ≤ 0.15 ms + one fsync (${Number.isFinite(fsync) ? `${fsync.toFixed(3)} ms` : 'not measured'})`,
      v('http', GATEWAY_DEFAULT, 'stateless c=1', 'p50Ms') - v('http', FORWARD_STDIO, 'stateless c=1', 'p50Ms'),
      0.15 + fsync,
      (x, l) => x <= l,
      ' ms',
    ],
    ['gateway default chain, audit `batch` → stdio, stateless c=1 p50 added over the forward floor ≤ 0.15 ms', v('http', GATEWAY_DEFAULT_BATCH, 'stateless c=1', 'p50Ms') - v('http', FORWARD_STDIO, 'stateless c=1', 'p50Ms'), 0.15, (x, l) => x <= l, ' ms'],
    ['`everything --http` c=32 ≥ 0.9 of the lean server', v('http', EVERYTHING, 'stateless c=32', 'rps') / v('http', OURS, 'stateless c=32', 'rps'), 0.9, (x, l) => x >= l, '×'],
  ];
  return table(
    ['target (issue)', 'measured', 'limit', 'verdict'],
    checks.map(([name, x, limit, ok, unit]) => [name, Number.isFinite(x) ? `${x.toFixed(2)}${unit}` : '–', `${limit}${unit}`, Number.isFinite(x) ? (ok(x, limit) ? 'pass' : '**miss**') : 'not measured']),
  );
}

/** The whole `docs/BENCHMARKS.md`. */
export function renderMarkdown(results: BenchResults & { readonly cells: readonly Cell[] }): string {
  const { machine, method, versions, cells } = results;
  const notes = cells.filter((c) => c.status === 'error').map((c) => `- ${c.section} / ${c.target} / ${c.variant}: ${c.note ?? ''}`);
  return `# Benchmarks

_Generated by \`npm run bench\` (${results.startedAt} → ${results.finishedAt}); raw numbers in \`bench/results/latest.json\`. Do not edit by hand: the harness overwrites this file._

Switchboard side by side with the official TypeScript SDK (v2 ${versions['@modelcontextprotocol/server']}, v1 ${versions['@modelcontextprotocol/sdk']}) and a raw floor that parses the JSON-RPC body and answers the same result with no framework. Every workload is \`tools/call\` on an \`echo\` tool with the input schema \`{ message: string }\` returning the message as one text block, unless stated otherwise.

## Machine

${machine['cpus']} × ${machine['cpuModel']}, ${machine['memoryGB']} GB, Node ${machine['node']} (${machine['platform']}). Pinned with \`taskset\`: ${machine['pinned'] ? 'yes — every server on core 1, every load generator on core 0' : 'no (taskset missing)'}. 1-minute load average ${machine['loadAvgStart']} at start, ${machine['loadAvgEnd']} at end (anything well above 2 on this 2-core machine means other work shared the cores; compare ratios, not absolutes).${typeof machine['fsyncMs'] === 'number' && Number.isFinite(machine['fsyncMs']) ? ` One \`fdatasync\` of the state disk (a 4 KiB append, median of 200, \`bench/lib/fsyncProbe.ts\`): ${machine['fsyncMs']} ms.` : ''}

## Method

- What counts are the ratios within one run (every target measured back to back on the same machine under the same load), and of those server CPU µs per request is the least sensitive to other work on the machine; absolute req/s and latencies move with the load average above.
- Each target runs as its own process, compiled to plain JS with no loader: our targets import the package's published build (\`dist/\`, \`npm run build\`: one rollup bundle in layer chunks), the harness is compiled by \`bench/tsconfig.json\`. The load generator is a separate process on the other core.
- HTTP load: a minimal keep-alive HTTP/1.1 client on \`node:net\` (\`bench/lib/httpClient.ts\`): N connections for concurrency N, one request in flight per connection, ends found by \`Content-Length\` or chunked framing (SSE answers arrive chunked). Checked once against \`wrk\` on the floor, back to back on the same (busy) machine: c=32 wrk 5,148 / 4,422 req/s vs this client 5,803 / 4,692; c=1 wrk 746 / 1,246 vs 711 / 750 — the generator is not the bottleneck (command in the last section).
- ${method['runs']} run(s) per cell, median reported; ${method['warmupS']} s warm-up then ${method['durationS']} s measured per cell; targets are interleaved within each run. Each HTTP server is first warmed for ${Number(method['warmupS']) * 2} s at c=32, unmeasured, before its c=1 cell: at c=1 a few thousand requests leave V8 still optimising a large code path (a gateway's), and the cell would measure the compiler, not the steady state. Server CPU per request = Δ(utime+stime) of the server process over the measured window ÷ requests completed in it (\`/proc/<pid>/stat\`); RSS = \`VmRSS\` after the c=32 load.
- Wires: **stateless** = 2026-07-28 (\`_meta\` envelope, \`MCP-Protocol-Version\`/\`Mcp-Method\`/\`Mcp-Name\` headers, no session); **session** = 2025-11-25 (\`initialize\` + \`notifications/initialized\` per connection, then \`Mcp-Session-Id\` on every call). The SDK servers use the wiring their READMEs document on plain \`node:http\` with default options (v1 answers as SSE by default; v2 stateless is \`createMcpHandler\` + \`toNodeHandler\`).
- stdio: the load generator spawns the server (pinned) and keeps 1 or 32 requests in flight after one lone warm-up call. Cold start: spawn → first \`tools/list\` answer (after \`initialize\` for v1), median of ${method['coldStarts']}; baseline a bare \`node -e\` that answers one line.
- \`tools/list\`: a server with ${method['listTools']} tools (\`echo\` + filler tools of the same schema), one page (Switchboard's page size raised to cover them), c=1. Idle sessions: RSS growth while opening ${method['idleSessions']} sessions (after 50 warm-up ones), scaled to 1,000.
- Client side: each client library calls \`echo\` on the floor server (HTTP on the server core; stdio spawned pinned) with 1 or 32 calls in flight; "raw" is the bench's own wire without a library.

## Streamable HTTP \`tools/call\`

${httpTable(cells)}

## Gateways: Switchboard's and supergateway's, fronting a floor

Our shipped \`switchboard gateway\` (namespacing \`never\`, \`--no-auth\`) with one downstream server, beside our direct server (the lean one-tool \`McpServer\`) and \`supergateway\` (stdio → Streamable HTTP on the official SDK; \`--stateful\` for the session wire) fronting the same stdio floor. Two chains: the **empty chain** (\`audit: false\`, \`pins: false\`, the scanner \`off\` for the server, no guards: the routing alone), fronting the stdio floor and the HTTP floor; and the **full chain** (the audit log, each answer waiting for its record to be synced to disk at a group commit; pins; the scanner in \`block\` mode; every guard: a rate limit by principal and tool, a per-caller concurrency cap, the circuit breaker and the result size cap, with limits the load never reaches), fronting the stdio floor and compared with the empty chain. A front and its downstream share the server core; "front CPU" counts the front process only. "p50 added" is the front's c=1 p50 minus the direct server's. supergateway's default (stateless) mode starts the stdio server anew for every request, which is why it answers so few; its \`--stateful\` mode keeps one per session.

The **forward floors** are the least a Node process does to forward the same call (\`bench/targets/forwardFloor.ts\`), one per downstream, on both wires, pinned like the gateways (front and downstream on the server core): a \`node:http\` server in, the body \`JSON.parse\`d, the request id remapped to the front's own, the message \`JSON.stringify\`d downstream; the answer parsed, its id restored, stringified and sent with \`Content-Length\`; no validation, routing table, interceptor or log. In front of the stdio floor it spawns the floor and writes one NDJSON line per call to its stdin (lines of one event-loop turn share one \`write\`, as our stdio client batches them) and splits answers on newlines; in front of the HTTP floor it uses keep-alive raw \`node:net\` HTTP/1.1 connections (the load generator's client: one request in flight per connection, idle ones reused; measured by hand at c=32, about 45–60 µs less front CPU per call than a keep-alive \`node:http\` \`Agent\` for the same syscalls), sending the \`MCP-Protocol-Version\`, \`Mcp-Method\` and \`Mcp-Name\` headers on the stateless wire. On the session wire it answers \`initialize\` itself with a fresh \`Mcp-Session-Id\` and \`notifications/initialized\` with 202, refuses unknown sessions with 404, and forwards the calls over one downstream session it opened at start. Their "c=32 vs direct Switchboard" is the physical bound of one more process hop on a shared core; a gateway's "c=32 vs forward floor" (its req/s ÷ the forward floor's, same downstream, same wire) and "p50 added c=1 vs forward floor" (its c=1 p50 minus the forward floor's) are what the gateway itself adds beyond that hop. supergateway and the stdio gateway rows compare with the stdio forward floor, the HTTP gateway row with the HTTP one.

What bounds these rows: a forwarded call is an upstream server request and a downstream client request in one process, on a core it shares with the downstream server, so the front's req/s is bounded by the sum of their CPU per call, not by the front's alone; in front of HTTP each call adds two loopback TCP writes (the kernel delivers on the writer's time). With the default durability (\`gw-full\`) an answer of the full chain waits until its record is synced to disk (a group commit, synced off the event loop; requests arriving meanwhile share the next sync); with \`batch\` (\`gw-full-batch\`) it waits only for one \`write\` of its record to the gateway's pending file, which survives the gateway being killed but not a power loss within the sync interval (10 ms) and one sync; the records are committed to SQLite after the answers, at most once per interval. At c=1 the default durability pays one SQLite transaction and one sync per call (its WAL locks, writes and wake-ups on the front's core), which is most of what the full chain adds there. Measured context and the history of these ratios: [performance.md](performance.md).

${gatewayTable(cells)}

## stdio \`tools/call\` and cold start

${stdioTable(cells)}

## \`tools/list\` with 1,000 tools, and idle sessions

${listAndSessions(cells)}

## Client side (against the floor server)

${clientTable(cells)}

## Switchboard against the issue's targets

${targetsTable(cells, typeof machine['fsyncMs'] === 'number' ? machine['fsyncMs'] : NaN)}
${notes.length === 0 ? '' : `\n## Failures in this run\n\n${notes.join('\n')}\n`}
## Running it

\`\`\`sh
npm run bench            # full run (~25 min on 2 cores): writes bench/results/latest.json and this file
npm run bench:smoke      # every target ~1 s, answers checked, no timing; CI
npm run bench -- --duration 10 --runs 3    # longer cells (10 s; ~60 min)
npm run bench -- --only ours,sdk2 --sections http,stdio   # a subset (the floor always runs)
npm run bench -- --sections http --wires stateless --only fwd-stdio,gw-stdio,gw-default   # one wire, the gateway lanes against the forward floor
npm run bench -- --render   # re-render this file from bench/results/latest.json (report text changes)
\`\`\`

Adding a target (the gateway, a new SDK release) is one line in \`bench/targets.ts\`, plus a small entry in \`bench/targets/\` or \`bench/clients/\` when it needs one. Checking the load generator against \`wrk\` (Debian package \`wrk\`, not a dependency of the harness): start \`node bench/.out/bench/targets/floorHttp.js\` pinned to core 1, then \`taskset -c 0 wrk -t1 -c32 -d5s --latency -s bench/wrk-echo.lua http://127.0.0.1:PORT/mcp\`.
`;
}
