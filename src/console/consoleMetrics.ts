/**
 * What the console's overview charts: per server, calls, errors and latency in 10-second
 * buckets over the last five minutes, and the last few errors. Fed by one interceptor in the
 * `audit` phase (outermost, so denials count); recording is a few integer additions into a
 * fixed ring per server, no allocation per call beyond the error entries.
 *
 * @module
 */
import { describeError } from '../util/errors.js';
import { type Decision, type InterceptedMethod, type Interceptor } from '../host/interceptors.js';

/** Width of a bucket. */
export const BUCKET_MS = 10_000;
/** Buckets kept (the last five minutes). */
export const BUCKETS = 30;
const RECENT_ERRORS = 10;
const METHODS: readonly InterceptedMethod[] = ['tools/call', 'prompts/get', 'resources/read'];

/** One bucket as the API reports it. */
export interface MetricsBucket {
  /** Epoch ms of the bucket's start. */
  readonly start: number;
  readonly calls: number;
  readonly errors: number;
  /** Mean latency in ms, null without calls. */
  readonly avgMs: number | null;
  readonly maxMs: number | null;
}

/** One recent failure. */
export interface RecentError {
  readonly at: number;
  readonly method: string;
  readonly name: string | undefined;
  readonly error: string;
}

interface Ring {
  /** Bucket number (epoch ms / BUCKET_MS) each slot holds. */
  readonly index: Float64Array;
  readonly calls: Uint32Array;
  readonly errors: Uint32Array;
  readonly totalMs: Float64Array;
  readonly maxMs: Float64Array;
  readonly recent: RecentError[];
}

/** The per-server rings (in memory, bounded by the number of servers). */
export class ConsoleMetrics {
  readonly #rings = new Map<string, Ring>();
  readonly #now: () => number;

  constructor(options: { readonly now?: () => number } = {}) {
    this.#now = options.now ?? Date.now;
  }

  /** Records one finished call of `serverId`. */
  record(serverId: string, latencyMs: number, failure: { readonly method: string; readonly name: string | undefined; readonly error: string } | undefined): void {
    const ring = this.#ring(serverId);
    const now = this.#now();
    const bucket = Math.floor(now / BUCKET_MS);
    const slot = bucket % BUCKETS;
    if (ring.index[slot] !== bucket) {
      ring.index[slot] = bucket;
      ring.calls[slot] = 0;
      ring.errors[slot] = 0;
      ring.totalMs[slot] = 0;
      ring.maxMs[slot] = 0;
    }
    ring.calls[slot] = (ring.calls[slot] as number) + 1;
    ring.totalMs[slot] = (ring.totalMs[slot] as number) + latencyMs;
    if (latencyMs > (ring.maxMs[slot] as number)) ring.maxMs[slot] = latencyMs;
    if (failure === undefined) return;
    ring.errors[slot] = (ring.errors[slot] as number) + 1;
    ring.recent.unshift({ at: now, ...failure });
    if (ring.recent.length > RECENT_ERRORS) ring.recent.length = RECENT_ERRORS;
  }

  /** The last {@link BUCKETS} buckets of a server, oldest first (empty ones included). */
  series(serverId: string): MetricsBucket[] {
    const ring = this.#rings.get(serverId);
    const last = Math.floor(this.#now() / BUCKET_MS);
    const out: MetricsBucket[] = [];
    for (let bucket = last - BUCKETS + 1; bucket <= last; bucket++) {
      const slot = bucket % BUCKETS;
      const calls = ring !== undefined && ring.index[slot] === bucket ? (ring.calls[slot] as number) : 0;
      out.push({
        start: bucket * BUCKET_MS,
        calls,
        errors: calls === 0 ? 0 : ((ring as Ring).errors[slot] as number),
        avgMs: calls === 0 ? null : round(((ring as Ring).totalMs[slot] as number) / calls),
        maxMs: calls === 0 ? null : round((ring as Ring).maxMs[slot] as number),
      });
    }
    return out;
  }

  /** The bucket that closed last for each server that had calls in it (the `metrics` event). */
  lastClosed(): { readonly at: number; readonly servers: Record<string, MetricsBucket> } {
    const servers: Record<string, MetricsBucket> = {};
    for (const id of this.#rings.keys()) {
      const closed = this.series(id).at(-2);
      if (closed !== undefined) servers[id] = closed;
    }
    return { at: this.#now(), servers };
  }

  /** A server's recent failures, newest first. */
  recentErrors(serverId: string): readonly RecentError[] {
    return this.#rings.get(serverId)?.recent ?? [];
  }

  /** The interceptor that feeds the rings. */
  interceptor(): Interceptor {
    return {
      id: 'console.metrics',
      phase: 'audit',
      methods: METHODS,
      intercept: (ctx, next) => {
        const serverId = ctx.server?.id;
        if (serverId === undefined) return next();
        const begun = performance.now();
        const name = ctx.exposedName;
        return next().then(
          (value) => {
            const result = value as { isError?: unknown } | null;
            const toolError = ctx.method === 'tools/call' && typeof result === 'object' && result !== null && result.isError === true;
            this.record(serverId, performance.now() - begun - waitedForPeople(ctx.decisions), toolError ? { method: ctx.method, name, error: 'the tool reported an error (isError)' } : undefined);
            return value;
          },
          (error: unknown) => {
            this.record(serverId, performance.now() - begun - waitedForPeople(ctx.decisions), { method: ctx.method, name, error: describeError(error) });
            throw error;
          },
        );
      },
    };
  }

  #ring(serverId: string): Ring {
    let ring = this.#rings.get(serverId);
    if (ring === undefined) {
      ring = { index: new Float64Array(BUCKETS).fill(-1), calls: new Uint32Array(BUCKETS), errors: new Uint32Array(BUCKETS), totalMs: new Float64Array(BUCKETS), maxMs: new Float64Array(BUCKETS), recent: [] };
      this.#rings.set(serverId, ring);
    }
    return ring;
  }
}

function round(ms: number): number {
  return Math.round(ms * 100) / 100;
}

/** The time a call spent waiting for a person's consent (`detail.waitedMs` of the consent decisions): not latency. */
function waitedForPeople(decisions: readonly Decision[]): number {
  let waited = 0;
  for (const d of decisions) if (typeof d.detail?.['waitedMs'] === 'number') waited += d.detail['waitedMs'];
  return waited;
}
