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
 * With {@link ConsentQueueOptions.shared} it is one queue across gateway instances: each
 * request is also published to the shared store, {@link pending} and {@link get} include the
 * requests waiting on the other instances (a mirror refreshed from the store's change feed),
 * and {@link answer} records the first answer there, whichever instance the call waits on;
 * that instance delivers it when the feed tells it (see `sharedConsent.ts`).
 *
 * @module
 */
import { McpError, McpErrorCode, describeError, isMcpError } from '../../util/errors.js';
import { checkScope } from './consentGrants.js';
import type { ConsentAnswer, ConsentEnvironment, ConsentProvider, ConsentRequest } from './consentTypes.js';
import { ConsentCallGoneError, type SharedConsentChange, type SharedConsentRequests } from './sharedConsent.js';

/**
 * Why an answer was not applied, for the person who gave it (every answering channel maps it the
 * same way): 404 no such request waits (answered, timed out, unknown), 410 the call that asked is
 * gone (its instance stopped), 503 the shared store cannot be reached.
 */
export interface ConsentAnswerRefusal {
  readonly status: 404 | 410 | 503;
  readonly error: string;
}

/** How many ids of gone calls are remembered (to say "gone" rather than "unknown"). */
const GONE_KEPT = 1000;

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
  /** Settles once the request is in the shared store (at once without one). */
  readonly published: Promise<void>;
}

/** Options of a {@link ConsentQueue}. */
export interface ConsentQueueOptions {
  /** The clock (tests). Default `Date.now`. */
  readonly now?: () => number;
  /** The requests shared with the other gateway instances (see the module comment). */
  readonly shared?: SharedConsentRequests;
  /** Told when the shared store could not be read or written (the operation itself fails closed). */
  readonly onSharedError?: (error: unknown) => void;
}

/** Requests waiting for a person. */
export class ConsentQueue implements ConsentProvider {
  /** `queue`. */
  readonly name = 'queue';
  readonly #waiting = new Map<string, Waiting>();
  readonly #listeners = new Set<(event: ConsentQueueEvent) => void>();
  readonly #now: () => number;
  readonly #shared: SharedConsentRequests | undefined;
  readonly #onSharedError: (error: unknown) => void;
  /** The requests waiting on the other instances, by id. */
  #remote = new Map<string, ConsentRequest>();
  /** Requests whose call is gone (the instance they waited on stopped), by id: why. */
  readonly #gone = new Map<string, string>();
  #unwatch: (() => void) | undefined;
  #sync: Promise<void> = Promise.resolve();
  readonly #ready: Promise<void>;

  constructor(options: ConsentQueueOptions = {}) {
    this.#now = options.now ?? Date.now;
    this.#shared = options.shared;
    this.#onSharedError = options.onSharedError ?? (() => undefined);
    let following!: () => void;
    this.#ready = new Promise<void>((resolve) => (following = resolve));
    if (this.#shared === undefined) following();
    else {
      this.#unwatch = this.#shared.watch(
        (change) => this.#changed(change),
        () => void this.resync().then(following),
      );
    }
  }

  /** Resolves once the shared store's change feed is followed and read (at once without one). */
  ready(): Promise<void> {
    return this.#ready;
  }

  /** Stops following the shared store. */
  close(): void {
    this.#unwatch?.();
    this.#unwatch = undefined;
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
      const published = this.#shared?.publish(request) ?? Promise.resolve();
      waiting = { request, answered, resolve, waiters: 0, published };
      this.#waiting.set(request.id, waiting);
      this.#emit({ type: 'request', request });
    }
    const entry = waiting;
    entry.waiters++;
    return new Promise<ConsentAnswer>((resolve, reject) => {
      let ended = false;
      const stop = (error?: unknown): void => {
        if (ended) return;
        ended = true;
        env.signal.removeEventListener('abort', onAbort);
        entry.waiters--;
        if (entry.waiters === 0 && this.#waiting.get(request.id) === entry) {
          this.#waiting.delete(request.id);
          this.#withdraw(request.id);
          this.#emit({ type: 'closed', id: request.id, reason: 'no longer waiting (answered elsewhere, timed out, or cancelled)' });
        }
        reject(error instanceof Error ? error : new Error('the wait ended before an answer came'));
      };
      const onAbort = (): void => stop();
      env.signal.addEventListener('abort', onAbort, { once: true });
      // Not in the shared store = nobody elsewhere can answer it: fail closed.
      entry.published.catch((error: unknown) => {
        this.#onSharedError(error);
        stop(new Error(`the consent request could not be shared with the other instances: ${error instanceof Error ? error.message : String(error)}`));
      });
      void entry.answered.then((answer) => {
        if (ended) return;
        ended = true;
        env.signal.removeEventListener('abort', onAbort);
        resolve(answer);
      });
    });
  }

  /** The waiting requests (with a shared store: on every instance), oldest first. */
  pending(): readonly ConsentRequest[] {
    const own = [...this.#waiting.values()].map((w) => w.request);
    const now = this.#now();
    const others = [...this.#remote.values()].filter((r) => !this.#waiting.has(r.id) && Date.parse(r.expiresAt) > now);
    return [...own, ...others].sort((a, b) => a.createdAt.localeCompare(b.createdAt));
  }

  /** One waiting request (with a shared store: on any instance). */
  get(id: string): ConsentRequest | undefined {
    const own = this.#waiting.get(id)?.request;
    if (own !== undefined) return own;
    const other = this.#remote.get(id);
    return other !== undefined && Date.parse(other.expiresAt) > this.#now() ? other : undefined;
  }

  /**
   * Answers request `id`. Rejects with `ERR_MCP_INVALID_ARGUMENT` when no such request waits
   * (it was answered, here or on another instance, timed out, or never existed) or when an
   * approval's scope cannot be honoured; with `ERR_MCP_STORE_UNAVAILABLE` when the shared
   * store cannot record it (nothing is then applied).
   */
  async answer(id: string, answer: ConsentAnswer): Promise<void> {
    const request = this.get(id);
    const gone = (): McpError => new McpError(McpErrorCode.InvalidArgument, `No consent request ${JSON.stringify(id)} is waiting (answered, timed out, or unknown)`);
    if (request === undefined) {
      const why = this.#gone.get(id);
      throw why !== undefined ? new McpError(McpErrorCode.ConnectionClosed, why) : gone();
    }
    if (answer.approved) checkScope(answer.scope, request, this.#now());
    if (this.#shared !== undefined) {
      await this.#waiting.get(id)?.published;
      let recorded: boolean;
      try {
        recorded = await this.#shared.answer(id, answer);
      } catch (error) {
        if (error instanceof ConsentCallGoneError) this.#markGone(id, error.message);
        throw error;
      }
      this.#remote.delete(id);
      if (!recorded) throw gone();
    }
    const waiting = this.#waiting.get(id);
    if (waiting !== undefined) {
      this.#waiting.delete(id);
      waiting.resolve(answer);
      this.#withdraw(id);
    }
    this.#emit({ type: 'answered', id, approved: answer.approved, approver: answer.approver });
  }

  /**
   * Answers request `id` as {@link answer} does, and says why when the answer was not applied
   * (see {@link ConsentAnswerRefusal}) instead of throwing; throws only for an answer that cannot
   * be given at all (a scope the request cannot honour). Every answering channel (the admin API,
   * the console, a signed webhook answer) maps failures through this one place.
   */
  async tryAnswer(id: string, answer: ConsentAnswer): Promise<ConsentAnswerRefusal | undefined> {
    try {
      await this.answer(id, answer);
      return undefined;
    } catch (error) {
      // With a shared queue (PostgreSQL) the answer may not be recorded: nothing was applied then.
      if (isMcpError(error, McpErrorCode.StoreUnavailable)) return { status: 503, error: `${describeError(error)}; the answer was not applied` };
      const refused = this.refusal(id);
      if (refused !== undefined) return refused.status === 410 ? refused : { ...refused, error: `${refused.error}: the answer was not applied` };
      throw error;
    }
  }

  /** Why request `id` cannot be answered now (404 not waiting, 410 its call is gone), or undefined while it waits. */
  refusal(id: string): ConsentAnswerRefusal | undefined {
    if (this.get(id) !== undefined) return undefined;
    const gone = this.#gone.get(id);
    if (gone !== undefined) return { status: 410, error: gone };
    return { status: 404, error: `no consent request ${id} is waiting (answered, timed out, or unknown)` };
  }

  #markGone(id: string, why: string): void {
    this.#remote.delete(id);
    this.#gone.set(id, why);
    for (const old of this.#gone.keys()) {
      if (this.#gone.size <= GONE_KEPT) break;
      this.#gone.delete(old);
    }
  }

  /**
   * Reads the shared store again: the other instances' waiting requests, and the answers to
   * this instance's requests that arrived while the change feed was down. Resolves when done.
   */
  resync(): Promise<void> {
    const shared = this.#shared;
    if (shared === undefined) return Promise.resolve();
    this.#sync = this.#sync.then(async () => {
      try {
        const before = this.#remote;
        const now = new Map<string, ConsentRequest>();
        for (const r of await shared.pending(this.#now())) if (!this.#waiting.has(r.id)) now.set(r.id, r);
        // A call that looked gone but waits again (its instance's connection came back).
        for (const id of now.keys()) this.#gone.delete(id);
        this.#remote = now;
        for (const [id, r] of now) if (!before.has(id)) this.#emit({ type: 'request', request: r });
        for (const id of before.keys()) if (!now.has(id)) this.#emit({ type: 'closed', id, reason: 'answered, timed out or cancelled on another instance' });
        for (const id of [...this.#waiting.keys()]) await this.#deliver(id);
      } catch (error) {
        this.#onSharedError(error);
      }
    });
    return this.#sync;
  }

  #changed(change: SharedConsentChange): void {
    if (change.type === 'gone' && !this.#waiting.has(change.id)) {
      const had = this.#remote.has(change.id);
      this.#markGone(change.id, new ConsentCallGoneError(change.id).message);
      if (had) this.#emit({ type: 'closed', id: change.id, reason: 'the call that asked is gone (the gateway instance it waited on stopped)' });
      return;
    }
    if (this.#waiting.has(change.id)) {
      if (change.type === 'answered') void this.#deliver(change.id).catch((error: unknown) => this.#onSharedError(error));
      return;
    }
    void this.resync();
  }

  /** Delivers the answer recorded in the shared store to request `id` waiting here, if there is one. */
  async #deliver(id: string): Promise<void> {
    const shared = this.#shared;
    if (shared === undefined) return;
    const answer = await shared.answerOf(id);
    const waiting = this.#waiting.get(id);
    if (answer === undefined || waiting === undefined) return;
    this.#waiting.delete(id);
    waiting.resolve(answer);
    this.#withdraw(id);
    this.#emit({ type: 'answered', id, approved: answer.approved, approver: answer.approver });
  }

  #withdraw(id: string): void {
    this.#shared?.withdraw(id).catch((error: unknown) => this.#onSharedError(error));
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
