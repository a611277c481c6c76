/**
 * The cancellation of one HTTP exchange of the Streamable HTTP client: an `abort(reason)` that
 * a `fetch` marked with {@link FETCH_ABORT_HOOK} hears through one callback, and a real
 * `AbortSignal` made only when something needs one (a `fetch` without the mark, an SSE stream
 * and its reconnections).
 *
 * @module
 */
import type { FetchAbortHook } from './clientOptions.js';

/** See the module notes. */
export class Cancellation implements FetchAbortHook {
  #aborted = false;
  #reason: unknown = undefined;
  #controller: AbortController | undefined;
  #callback: ((reason: unknown) => void) | undefined;

  /** True once {@link abort} ran. */
  get aborted(): boolean {
    return this.#aborted;
  }

  /** The reason {@link abort} was given. */
  get reason(): unknown {
    return this.#reason;
  }

  /** An `AbortSignal` that follows this cancellation (made on first use, aborted already if this is). */
  get signal(): AbortSignal {
    if (this.#controller === undefined) {
      this.#controller = new AbortController();
      if (this.#aborted) this.#controller.abort(this.#reason);
    }
    return this.#controller.signal;
  }

  /** Aborts (once): the callback, then the signal if one was made. */
  abort(reason: unknown): void {
    if (this.#aborted) return;
    this.#aborted = true;
    this.#reason = reason;
    const callback = this.#callback;
    this.#callback = undefined;
    callback?.(reason);
    this.#controller?.abort(reason);
  }

  /** Sets the one callback run on abort (replacing the previous one). */
  onAbort(callback: (reason: unknown) => void): void {
    this.#callback = callback;
  }

  /** Removes `callback` if it is the one set. */
  offAbort(callback: (reason: unknown) => void): void {
    if (this.#callback === callback) this.#callback = undefined;
  }
}
