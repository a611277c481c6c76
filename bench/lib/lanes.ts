/**
 * The measurement loop every load generator shares: `lanes` loops keep one call in flight
 * each; after a warm-up the measured window opens, latencies of calls started and finished
 * inside it are kept, and the CPU meter is read at both ends of the window.
 *
 * @module
 */
import { performance } from 'node:perf_hooks';
import { percentile, sorted } from './stats.js';

/** What one measured window gives. */
export interface LaneResult {
  readonly requests: number;
  readonly errors: number;
  readonly firstError?: string;
  readonly rps: number;
  readonly p50Ms: number;
  readonly p99Ms: number;
  /** CPU time (user + system) of the metered process per request in the window, microseconds. */
  readonly cpuPerRequestUs: number;
}

/** How to drive the loop. */
export interface LaneOptions {
  readonly lanes: number;
  readonly warmupMs: number;
  readonly durationMs: number;
  /** Cumulative CPU time of the metered process, microseconds. */
  readonly cpuMicros: () => number;
  /** One call (request, answer, check) on lane `index`; throws on a wrong answer. */
  readonly call: (index: number) => Promise<void>;
  /**
   * Smoke: a call in flight when the window closes still counts once it completes, so a slow
   * target on a busy machine is checked for correctness, not failed for missing the window.
   */
  readonly countLate?: boolean;
  /** Stop this lane for good after an error like this one (beyond the 100-error cap). */
  readonly fatal?: (error: Error) => boolean;
}

const sleep = (ms: number): Promise<void> => new Promise((r) => setTimeout(r, ms));

/** Runs the warm-up and the measured window; resolves once every lane has stopped. */
export async function runLanes(options: LaneOptions): Promise<LaneResult> {
  let phase: 'warmup' | 'measure' | 'done' = 'warmup';
  const latencies: number[] = [];
  let errors = 0;
  let firstError: string | undefined;
  const lane = async (index: number): Promise<void> => {
    while (phase !== 'done') {
      const started = performance.now();
      // Smoke counts a call begun in the warm-up too: only answers are checked there.
      const counted = phase === 'measure' || (options.countLate === true && phase === 'warmup');
      try {
        await options.call(index);
        if (counted && (phase === 'measure' || options.countLate === true)) latencies.push(performance.now() - started);
      } catch (error) {
        errors++;
        firstError ??= (error as Error).message;
        if (errors > 100 || options.fatal?.(error as Error) === true) return;
      }
    }
  };
  const running = Promise.all(Array.from({ length: Math.max(1, options.lanes) }, (_, i) => lane(i)));
  await sleep(options.warmupMs);
  const cpu0 = options.cpuMicros();
  const t0 = performance.now();
  phase = 'measure';
  await sleep(options.durationMs);
  phase = 'done';
  const elapsed = performance.now() - t0;
  const cpu1 = options.cpuMicros();
  await running;
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
