/**
 * One abort listener per caller signal, however many calls share it. The first call linked
 * to a caller's signal uses that signal itself (no child: on a gateway every forwarded call
 * has a signal of its own, and a child per call cost an `AbortController` and a listener);
 * each further call linked while it is in flight gets its own child signal from
 * {@link SignalFanout.link}, and the children share a single listener on the caller's
 * signal. So the caller's signal carries at most the first call's own listeners and one
 * fan-out listener while calls are linked, and none afterwards: many concurrent calls with
 * one `AbortSignal` never trip Node's MaxListeners warning, and finished calls leave nothing
 * behind.
 *
 * @module
 */

interface Fan {
  /** Whether a call uses the caller's signal directly. */
  direct: boolean;
  /** The further calls' child signals, made by the second call linked while the first is in flight (most signals carry one call). */
  children: Set<AbortController> | undefined;
  listener: (() => void) | undefined;
}

/** A child signal and the function that unlinks it (call it when the call settles). */
export interface SignalLink {
  readonly signal: AbortSignal;
  release(): void;
}

/** Fans caller signals out to per-call child signals. */
export class SignalFanout {
  readonly #fans = new WeakMap<AbortSignal, Fan>();

  /** Links a call to `parent`; a parent already aborted yields an aborted signal. */
  link(parent: AbortSignal): SignalLink {
    if (parent.aborted) {
      const child = new AbortController();
      child.abort(parent.reason);
      return { signal: child.signal, release: () => undefined };
    }
    let fan = this.#fans.get(parent);
    if (fan === undefined) {
      fan = { direct: false, children: undefined, listener: undefined };
      this.#fans.set(parent, fan);
    }
    const current = fan;
    if (!current.direct) {
      current.direct = true;
      return {
        signal: parent,
        release: () => {
          current.direct = false;
          this.#forget(parent, current);
        },
      };
    }
    const child = new AbortController();
    const children = (current.children ??= new Set());
    if (current.listener === undefined) {
      const listener = (): void => {
        current.listener = undefined;
        for (const c of children) c.abort(parent.reason);
        children.clear();
      };
      current.listener = listener;
      parent.addEventListener('abort', listener, { once: true });
    }
    children.add(child);
    return {
      signal: child.signal,
      release: () => {
        if (!children.delete(child) || children.size > 0) return;
        if (current.listener !== undefined) parent.removeEventListener('abort', current.listener);
        current.listener = undefined;
        this.#forget(parent, current);
      },
    };
  }

  /** Drops `fan` once nothing is linked through it. */
  #forget(parent: AbortSignal, fan: Fan): void {
    if (fan.direct || (fan.children !== undefined && fan.children.size > 0)) return;
    if (this.#fans.get(parent) === fan) this.#fans.delete(parent);
  }
}
