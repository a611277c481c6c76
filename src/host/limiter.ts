/**
 * A per-server concurrency limit: at most `max` requests in flight to one downstream server,
 * the rest wait in FIFO order (bounded), and a waiting request that is cancelled leaves the
 * queue at once. One slow or hung server therefore cannot take every request of the host.
 *
 * @module
 */
import { McpError, McpErrorCode } from '../util/errors.js';
import { abortReasonOf, listenAbort, type AbortLike } from '../util/lazyAbort.js';

interface Waiter {
  readonly resolve: (release: () => void) => void;
  readonly reject: (error: unknown) => void;
  readonly onAbort: () => void;
  /** Removes {@link onAbort} from the request's signal (set once it listens). */
  unlisten: (() => void) | undefined;
}

/** Options of a {@link Limiter}. */
export interface LimiterOptions {
  /** Requests in flight at once. */
  readonly max: number;
  /** Requests allowed to wait; more fail at once with `ERR_MCP_LIMIT_EXCEEDED`. Default `max * 16`. */
  readonly maxQueued?: number;
  /** Names the server in errors. */
  readonly name: string;
}

/** A counting semaphore with a bounded FIFO queue and cancellable waits. */
export class Limiter {
  readonly #max: number;
  readonly #maxQueued: number;
  readonly #name: string;
  readonly #queue: Waiter[] = [];
  #active = 0;

  constructor(options: LimiterOptions) {
    if (!Number.isSafeInteger(options.max) || options.max < 1) {
      throw new McpError(McpErrorCode.InvalidArgument, `maxConcurrency of server ${options.name} must be a whole number >= 1`);
    }
    this.#max = options.max;
    this.#maxQueued = options.maxQueued ?? options.max * 16;
    this.#name = options.name;
  }

  /** Requests in flight. */
  get active(): number {
    return this.#active;
  }

  /** Requests waiting for a slot. */
  get queued(): number {
    return this.#queue.length;
  }

  /** Runs `task` once a slot is free; the slot is released when it settles. */
  async run<T>(task: () => Promise<T>, signal?: AbortLike): Promise<T> {
    const release = await this.acquire(signal);
    try {
      return await task();
    } finally {
      release();
    }
  }

  /**
   * A slot now, when one is free and `signal` is not aborted: its release function (call it
   * exactly once). Undefined otherwise: {@link acquire} then waits or fails.
   */
  tryAcquire(signal?: AbortLike): (() => void) | undefined {
    if (signal?.aborted || this.#active >= this.#max) return undefined;
    this.#active++;
    return this.#releaser();
  }

  /** Waits for a slot and returns its release function (call it exactly once). */
  acquire(signal?: AbortLike): Promise<() => void> {
    if (signal?.aborted) return Promise.reject(cancelled(signal));
    if (this.#active < this.#max) {
      this.#active++;
      return Promise.resolve(this.#releaser());
    }
    if (this.#queue.length >= this.#maxQueued) {
      return Promise.reject(
        new McpError(McpErrorCode.LimitExceeded, `Server ${this.#name} is busy: ${this.#active} requests in flight and ${this.#queue.length} waiting; try again later`),
      );
    }
    return new Promise((resolve, reject) => {
      const waiter: Waiter = {
        resolve,
        reject,
        onAbort: () => {
          const at = this.#queue.indexOf(waiter);
          if (at >= 0) this.#queue.splice(at, 1);
          reject(cancelled(signal as AbortLike));
        },
        unlisten: undefined,
      };
      if (signal !== undefined) waiter.unlisten = listenAbort(signal, waiter.onAbort);
      this.#queue.push(waiter);
    });
  }

  /** Fails every waiting request with `error` (the server is gone). */
  rejectQueued(error: unknown): void {
    for (const waiter of this.#queue.splice(0)) {
      waiter.unlisten?.();
      waiter.reject(error);
    }
  }

  #releaser(): () => void {
    let released = false;
    return () => {
      if (released) return;
      released = true;
      const next = this.#queue.shift();
      if (next === undefined) {
        this.#active--;
        return;
      }
      next.unlisten?.();
      next.resolve(this.#releaser());
    };
  }
}

function cancelled(signal: AbortLike): McpError {
  return new McpError(McpErrorCode.RequestCancelled, 'The request was cancelled while it waited for a free slot', { cause: abortReasonOf(signal) });
}
