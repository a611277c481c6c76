/**
 * One abort listener per caller signal, however many calls share it. Each call gets its own
 * child signal from {@link SignalFanout.link}; the caller's signal carries a single listener
 * while any child is linked, and none afterwards. Many concurrent calls with one
 * `AbortSignal` therefore never trip Node's MaxListeners warning, and finished calls leave
 * nothing behind.
 *
 * @module
 */

interface Fan {
  readonly children: Set<AbortController>;
  readonly listener: () => void;
}

/** A child signal and the function that unlinks it (call it when the call settles). */
export interface SignalLink {
  readonly signal: AbortSignal;
  release(): void;
}

/** Fans caller signals out to per-call child signals. */
export class SignalFanout {
  readonly #fans = new WeakMap<AbortSignal, Fan>();

  /** Links a child to `parent`; a parent already aborted yields an aborted child. */
  link(parent: AbortSignal): SignalLink {
    const child = new AbortController();
    if (parent.aborted) {
      child.abort(parent.reason);
      return { signal: child.signal, release: () => undefined };
    }
    let fan = this.#fans.get(parent);
    if (fan === undefined) {
      const children = new Set<AbortController>();
      const listener = (): void => {
        this.#fans.delete(parent);
        for (const c of children) c.abort(parent.reason);
        children.clear();
      };
      fan = { children, listener };
      this.#fans.set(parent, fan);
      parent.addEventListener('abort', listener, { once: true });
    }
    fan.children.add(child);
    const current = fan;
    return {
      signal: child.signal,
      release: () => {
        if (!current.children.delete(child) || current.children.size > 0) return;
        parent.removeEventListener('abort', current.listener);
        if (this.#fans.get(parent) === current) this.#fans.delete(parent);
      },
    };
  }
}
