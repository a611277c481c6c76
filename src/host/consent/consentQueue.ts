/**
 * The consent queue: requests wait here until a person answers them through the HTTP API
 * (`consentHttpApi.ts`), the `switchboard consent` CLI, the web console, or a signed webhook
 * answer. It is a {@link ConsentProvider} (`queue`) and the place the webhook provider waits
 * for a late answer.
 *
 * A request leaves the queue when it is answered, when the call is cancelled, or when it
 * times out (the consent interceptor aborts the wait); an answer to a request no longer
 * waiting is refused, never applied to a later call. Listeners get every change (the
 * console's server-sent events).
 *
 * @module
 */
import { McpError, McpErrorCode } from '../../util/errors.js';
import { checkScope } from './consentGrants.js';
import type { ConsentAnswer, ConsentEnvironment, ConsentProvider, ConsentRequest } from './consentTypes.js';

/** A change in the queue. */
export type ConsentQueueEvent =
  | { readonly type: 'request'; readonly request: ConsentRequest }
  | { readonly type: 'answered'; readonly id: string; readonly approved: boolean; readonly approver: string }
  | { readonly type: 'closed'; readonly id: string; readonly reason: string };

interface Waiting {
  readonly request: ConsentRequest;
  readonly answered: Promise<ConsentAnswer>;
  resolve(answer: ConsentAnswer): void;
  /** The waits still attached (the queue provider, the webhook provider). */
  waiters: number;
}

/** Options of a {@link ConsentQueue}. */
export interface ConsentQueueOptions {
  /** The clock (tests). Default `Date.now`. */
  readonly now?: () => number;
}

/** Requests waiting for a person. */
export class ConsentQueue implements ConsentProvider {
  /** `queue`. */
  readonly name = 'queue';
  readonly #waiting = new Map<string, Waiting>();
  readonly #listeners = new Set<(event: ConsentQueueEvent) => void>();
  readonly #now: () => number;

  constructor(options: ConsentQueueOptions = {}) {
    this.#now = options.now ?? Date.now;
  }

  /** Always available: a person can answer through the HTTP API. */
  available(): boolean {
    return true;
  }

  /** Puts `request` in the queue (once, however many providers wait on it) and waits for its answer. */
  ask(request: ConsentRequest, env: ConsentEnvironment): Promise<ConsentAnswer> {
    if (env.signal.aborted) return Promise.reject(env.signal.reason instanceof Error ? env.signal.reason : new Error('the wait was cancelled'));
    let waiting = this.#waiting.get(request.id);
    if (waiting === undefined) {
      let resolve!: (answer: ConsentAnswer) => void;
      const answered = new Promise<ConsentAnswer>((r) => (resolve = r));
      waiting = { request, answered, resolve, waiters: 0 };
      this.#waiting.set(request.id, waiting);
      this.#emit({ type: 'request', request });
    }
    const entry = waiting;
    entry.waiters++;
    return new Promise<ConsentAnswer>((resolve, reject) => {
      const stop = (): void => {
        entry.waiters--;
        if (entry.waiters === 0 && this.#waiting.get(request.id) === entry) {
          this.#waiting.delete(request.id);
          this.#emit({ type: 'closed', id: request.id, reason: 'no longer waiting (answered elsewhere, timed out, or cancelled)' });
        }
        reject(new Error('the wait ended before an answer came'));
      };
      env.signal.addEventListener('abort', stop, { once: true });
      void entry.answered.then((answer) => {
        env.signal.removeEventListener('abort', stop);
        resolve(answer);
      });
    });
  }

  /** The waiting requests, oldest first. */
  pending(): readonly ConsentRequest[] {
    return [...this.#waiting.values()].map((w) => w.request);
  }

  /** One waiting request. */
  get(id: string): ConsentRequest | undefined {
    return this.#waiting.get(id)?.request;
  }

  /**
   * Answers request `id`. Throws `ERR_MCP_INVALID_ARGUMENT` when no such request waits (it
   * was answered, timed out, or never existed) or when an approval's scope cannot be honoured.
   */
  answer(id: string, answer: ConsentAnswer): void {
    const waiting = this.#waiting.get(id);
    if (waiting === undefined) throw new McpError(McpErrorCode.InvalidArgument, `No consent request ${JSON.stringify(id)} is waiting (answered, timed out, or unknown)`);
    if (answer.approved) checkScope(answer.scope, waiting.request, this.#now());
    this.#waiting.delete(id);
    waiting.resolve(answer);
    this.#emit({ type: 'answered', id, approved: answer.approved, approver: answer.approver });
  }

  /** Calls `listener` on every change; returns the unsubscribe function. */
  subscribe(listener: (event: ConsentQueueEvent) => void): () => void {
    this.#listeners.add(listener);
    return () => void this.#listeners.delete(listener);
  }

  #emit(event: ConsentQueueEvent): void {
    for (const l of this.#listeners) {
      try {
        l(event);
      } catch {
        // a listener's failure never affects a decision
      }
    }
  }
}
