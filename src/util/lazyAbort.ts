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

  /** Aborts (idempotent: the first reason wins). */
  abort(reason: unknown): void {
    if (this.#aborted) return;
    this.#aborted = true;
    this.#reason = reason;
    this.#controller?.abort(reason);
  }
}
