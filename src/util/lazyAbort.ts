/**
 * Abort state whose `AbortSignal` is created only when someone reads it.
 *
 * @module
 */

/**
 * The abort state of one request: `abort()` is cheap and idempotent, and the `AbortController`
 * behind {@link LazyAbort.signal} is created on first read (an abort that came earlier is
 * applied then). Creating signals costs microseconds on Node 20, and most handlers never look.
 * Meant to be extended by per-request classes, so the state lives on them (no extra object).
 */
export class LazyAbort {
  #controller: AbortController | undefined;
  #aborted = false;
  #reason: unknown;
  /** Listeners of {@link onAbort} registered while no signal existed. */
  #listeners: (() => void)[] | undefined;

  /** The request's signal, created on first use. */
  get signal(): AbortSignal {
    let controller = this.#controller;
    if (controller === undefined) {
      controller = new AbortController();
      this.#controller = controller;
      if (this.#aborted) controller.abort(this.#reason);
    }
    return controller.signal;
  }

  /** True once {@link abort} ran. */
  get aborted(): boolean {
    return this.#aborted;
  }

  /** The reason given to the first {@link abort}. */
  get abortReason(): unknown {
    return this.#reason;
  }

  /**
   * Calls `listener` once on abort, without creating the `AbortSignal` (on the signal itself
   * when one exists). Like `addEventListener('abort')`, nothing is called when the abort came
   * before (check {@link aborted}). Returns the function that removes the listener.
   */
  onAbort(listener: () => void): () => void {
    if (this.#controller !== undefined) return listenAbort(this.#controller.signal, listener);
    if (this.#aborted) return noop;
    const listeners = (this.#listeners ??= []);
    listeners.push(listener);
    return () => {
      const at = listeners.indexOf(listener);
      if (at >= 0) listeners.splice(at, 1);
    };
  }

  /** Aborts (idempotent: the first reason wins). */
  abort(reason: unknown): void {
    if (this.#aborted) return;
    this.#aborted = true;
    this.#reason = reason;
    this.#controller?.abort(reason);
    const listeners = this.#listeners;
    if (listeners === undefined) return;
    this.#listeners = undefined;
    for (const listener of listeners) {
      try {
        listener();
      } catch (error) {
        // As EventTarget does: the others still run, the error is reported, not swallowed.
        queueMicrotask(() => {
          throw error;
        });
      }
    }
  }
}

const ONCE: AddEventListenerOptions = Object.freeze({ once: true });
const noop = (): void => undefined;

/** Something with an abort signal, and maybe an {@link LazyAbort.onAbort} that spares creating it. */
export interface AbortSource {
  readonly signal: AbortSignal;
  onAbort?(listener: () => void): () => void;
}

/**
 * `source.onAbort(listener)` where `source` has it, else a once-listener on `source.signal`;
 * returns the remover. Like `addEventListener`, nothing is called for an abort that came before.
 */
export function onAbortOf(source: AbortSource, listener: () => void): () => void {
  return source.onAbort !== undefined ? source.onAbort(listener) : listenAbort(source.signal, listener);
}

/**
 * What an option that cancels an operation takes: an `AbortSignal`, or a {@link LazyAbort},
 * whose `AbortSignal` is then made only if something reads {@link LazyAbort.signal}. The
 * gateway passes each forwarded call's own abort state this way, down to the client's
 * request, so a call nobody cancels costs no signal and no listener on one. Read one with
 * `.aborted`, {@link abortReasonOf}, {@link listenAbort} and, where a real signal is needed,
 * {@link signalOf}.
 */
export type AbortLike = AbortSignal | LazyAbort;

/** The reason `abort` was given to `x` (undefined while it is not aborted). */
export function abortReasonOf(x: AbortLike): unknown {
  return x instanceof LazyAbort ? x.abortReason : x.reason;
}

/** The `AbortSignal` of `x` (a {@link LazyAbort}'s is made by this call if it had none). */
export function signalOf(x: AbortLike): AbortSignal {
  return x instanceof LazyAbort ? x.signal : x;
}

/**
 * Calls `listener` once when `x` aborts, without making an `AbortSignal` for a
 * {@link LazyAbort}; returns the remover. As with `addEventListener`, an abort that came
 * before is not reported: check `x.aborted` first.
 */
export function listenAbort(x: AbortLike, listener: () => void): () => void {
  if (x instanceof LazyAbort) return x.onAbort(listener);
  x.addEventListener('abort', listener, ONCE);
  return () => x.removeEventListener('abort', listener);
}
