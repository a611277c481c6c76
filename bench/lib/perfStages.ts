/**
 * Where a server's CPU per request goes (`npm run bench:instructions -- --perf`): the output of
 * `perf script` for a `perf record -g` of the server, read as stacks, split two ways.
 *
 * - **By what started the work**: the event-loop callback at the bottom of each sample's stack.
 *   `request read` is `node:http`'s parser reading an upstream socket (the request's half: from
 *   its bytes to whatever it hands on); `answer read` is any other stream's read (in the bench,
 *   the downstream's answer on the stdio pipe or the HTTP client's socket: the answer's half, up
 *   to the upstream response written, unless something waits in between); `setImmediate` is the
 *   check phase (the stdio client's coalesced writes, the audit log's group writes); `timers`;
 *   `thread-pool completion` is the JavaScript run when a thread-pool job ends (the audit log's
 *   `fsync`: with `sync` durability the answers of a group are written from there); `main thread,
 *   other` is the rest of the main thread (`epoll`, the garbage collector's own main-thread work
 *   outside any callback); `other threads` are the garbage collector's and the optimising
 *   compiler's helpers and the thread pool itself (an `fsync`'s kernel time).
 * - **By our innermost frame**: the deepest JavaScript frame of the sample whose script is one of
 *   `ours` (the checkout's `dist/` or the bench's compiled targets). The sample, and so the V8
 *   builtins, runtime and kernel work below that frame, is charged to it; a sample with no frame
 *   of ours (node's own HTTP code, the event loop, other threads) goes to `(none of ours)`.
 *
 * Frames are named by `--perf-basic-prof-only-functions` (`JS:<tier><name> <url>:<line>:<col>`).
 *
 * @module
 */

/** Where a sample's work started (see the module doc). */
export type PerfSource = 'request read' | 'answer read' | 'setImmediate' | 'timers' | 'thread-pool completion' | 'main thread, other' | 'other threads';

/** One `perf script` file read: sample counts by source and by (source, our innermost frame). */
export interface PerfStages {
  readonly samples: number;
  readonly bySource: ReadonlyMap<PerfSource, number>;
  /** Keyed `source\tfunction file:line`; `(none of ours)` when no frame is ours. */
  readonly byFrame: ReadonlyMap<string, number>;
  /** Keyed `source\tfile` (the innermost frame's script name), for a per-module sum. */
  readonly byFile: ReadonlyMap<string, number>;
}

const JS_FRAME = /JS:[*^~+]?(\S*) (\S+):(\d+):\d+(?:\+0x[0-9a-f]+)?\s/;

function sourceOf(stack: string, mainThread: boolean): PerfSource {
  if (!mainThread) return 'other threads';
  if (stack.includes('Parser::OnStreamRead')) return 'request read';
  if (stack.includes('::OnStreamRead')) return 'answer read';
  if (stack.includes('uv__run_check')) return 'setImmediate';
  if (stack.includes('uv__run_timers')) return 'timers';
  if (stack.includes('uv__async_io') || stack.includes('uv__work_done')) return 'thread-pool completion';
  return 'main thread, other';
}

/** The thread id of a sample's header line (`comm  tid  time: …`; a command name may hold spaces). */
function threadOf(header: string): number | undefined {
  const m = /\s(\d+)(?:\/\d+)?\s+\[?\d*\]?\s*[\d.]+:/.exec(header);
  return m === null ? undefined : Number(m[1]);
}

function add(map: Map<string, number>, key: string): void {
  map.set(key, (map.get(key) ?? 0) + 1);
}

/**
 * Reads `perf script` text (samples separated by blank lines, innermost frame first) of process
 * `pid` (its main thread's id); a frame is ours when its script URL contains one of `ours`
 * (e.g. `file:///…/dist/`).
 */
export function perfStages(text: string, ours: readonly string[], pid: number): PerfStages {
  const bySource = new Map<PerfSource, number>();
  const byFrame = new Map<string, number>();
  const byFile = new Map<string, number>();
  let samples = 0;
  for (const block of text.split(/\n\s*\n/)) {
    const lines = block.split('\n');
    if (lines.length < 2) continue;
    samples++;
    const stack = lines.slice(1).join('\n') + '\n';
    const source = sourceOf(stack, threadOf(lines[0] as string) === pid);
    bySource.set(source, (bySource.get(source) ?? 0) + 1);
    let frame = '(none of ours)';
    let file = '(none of ours)';
    for (const line of lines.slice(1)) {
      const m = JS_FRAME.exec(line + ' ');
      if (m === null) continue;
      const url = m[2] as string;
      if (!ours.some((prefix) => url.includes(prefix))) continue;
      file = url.slice(url.lastIndexOf('/') + 1);
      frame = `${m[1] === '' ? '(anonymous)' : m[1]} ${file}:${m[3]}`;
      break;
    }
    add(byFrame, `${source}\t${frame}`);
    add(byFile, `${source}\t${file}`);
  }
  return { samples, bySource, byFrame, byFile };
}

/**
 * The table `--perf` prints: µs per request of each source, of each (source, module) and of the
 * `top` (source, function) pairs, each share of the samples times `cpuUsPerRequest` (the
 * process's measured CPU per request over the same window).
 */
export function formatPerfStages(stages: PerfStages, cpuUsPerRequest: number, top: number): string {
  const us = (n: number): string => ((cpuUsPerRequest * n) / Math.max(1, stages.samples)).toFixed(2).padStart(7);
  const sorted = (map: ReadonlyMap<string, number>): [string, number][] => [...map].sort((a, b) => b[1] - a[1]);
  const out = [`  ${stages.samples} samples, ${cpuUsPerRequest.toFixed(1)} µs CPU per request`, '  by what started the work (µs/request):'];
  for (const [source, n] of sorted(stages.bySource as ReadonlyMap<string, number>)) out.push(`  ${us(n)}  ${source}`);
  out.push('  by source and module of our innermost frame (µs/request):');
  for (const [key, n] of sorted(stages.byFile)) out.push(`  ${us(n)}  ${key.replace('\t', '  ')}`);
  if (top > 0) {
    out.push(`  the ${top} costliest (source, function) (µs/request):`);
    for (const [key, n] of sorted(stages.byFrame).slice(0, top)) out.push(`  ${us(n)}  ${key.replace('\t', '  ')}`);
  }
  return out.join('\n') + '\n';
}
