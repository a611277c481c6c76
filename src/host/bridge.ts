/**
 * Era bridging for one forwarded call (`tools/call`, `prompts/get`, `resources/read`): what
 * the downstream server asks back reaches the upstream client the way the upstream's era
 * expects, and the answer goes to the server that asked and to no other.
 *
 * Both directions take one path. The gateway's handler always answers a question with an
 * `InputRequiredResult` whose `requestState` names this pending call (the server layer seals
 * it and binds it to the caller). Upstream on 2026-07-28, that result goes to the client,
 * which retries with `inputResponses`; upstream on a stateful revision, the server layer sends
 * the questions as real `elicitation/create` / `sampling/createMessage` / `roots/list`
 * requests and calls the handler again with the answers. Downstream, the question came either
 * as a real request from a stateful server (answered through the call's own handlers, while
 * the downstream call stays open) or inside an `InputRequiredResult` of a 2026-07-28 server
 * (answered by retrying it with its own `requestState`).
 *
 * @see https://modelcontextprotocol.io/specification/2026-07-28/basic/patterns/mrtr
 * @see https://modelcontextprotocol.io/specification/2025-11-25/client/elicitation
 * @module
 */
import type { ClientHandlers, InputContext } from '../client/types.js';
import type { Progress } from '../jsonrpc/connection.js';
import type { InputRequest } from '../protocol/model/mrtr.js';
import type { LoggingMessageParams } from '../protocol/model/utilities.js';
import { McpError, McpErrorCode } from '../util/errors.js';
import { LazyAbort } from '../util/lazyAbort.js';

/** What one downstream attempt resolved with: a complete result, or the server's own input request. */
export type Attempt = { readonly kind: 'complete'; readonly value: Record<string, unknown> } | { readonly kind: 'input'; readonly inputRequests: Readonly<Record<string, InputRequest>>; readonly requestState: string | undefined };

/** Starts one downstream attempt (the first, or a retry with the server's own state and answers). */
export type Launch = (round: {
  readonly handlers: ClientHandlers;
  /** The call's own abort state: its `AbortSignal` is made only if something reads it. */
  readonly signal: LazyAbort;
  /** Aborts `signal` (the call's own): the server's timeout uses it instead of a signal of its own. */
  readonly abort: (reason: unknown) => void;
  /**
   * Progress of this attempt, for the upstream request driving the call. Absent when that
   * request asked for none (no progress token): the downstream request then asks for none.
   */
  readonly onProgress?: (p: Progress) => void;
  /** The downstream server's log messages during this attempt: they go to the upstream request driving the call. */
  readonly onLog: (params: LoggingMessageParams) => void;
  readonly inputResponses?: Readonly<Record<string, unknown>>;
  readonly requestState?: string;
}) => Promise<Attempt>;

/** The options of one downstream attempt. */
export type LaunchRound = Parameters<Launch>[0];

/** What the upstream handler does next. */
export type Step = { readonly kind: 'complete'; readonly value: Record<string, unknown> } | { readonly kind: 'input'; readonly inputRequests: Record<string, InputRequest> };

/** The upstream request currently driving a pending call. */
export interface Driver {
  /**
   * Calls `listener` once when the upstream request is cancelled (the pending call is then
   * abandoned); returns the remover. A hook rather than an `AbortSignal`, so that a request
   * nobody cancels costs no signal (`HandlerContext.onAbort`).
   */
  onAbort(listener: () => void): () => void;
  /**
   * False when the upstream request asked for no progress (it carries no progress token): an
   * attempt it starts then asks the downstream server for none. Default true.
   */
  readonly acceptsProgress?: boolean;
  progress(p: Progress): void;
  /** Relays a downstream log message to the upstream caller (filtered by the upstream's own log level). */
  log(params: LoggingMessageParams): void;
  /** Whether the upstream client declared what `method` needs (`elicitation/create` → `elicitation`, ...). */
  canAsk(method: string): boolean;
}

/** An upstream request waiting for its step (see `PendingCall.#drive`). */
interface Waiter {
  readonly driver: Driver;
  readonly resolve: (step: Step) => void;
  readonly reject: (error: unknown) => void;
  /** Stops listening to the request's abort. */
  readonly off: () => void;
}

interface Question {
  readonly request: InputRequest;
  readonly resolve: (answer: unknown) => void;
  readonly reject: (error: unknown) => void;
}

const CAPABILITY: Readonly<Record<string, string>> = { 'elicitation/create': 'elicitation', 'sampling/createMessage': 'sampling', 'roots/list': 'roots' };

/**
 * A question's run through the host's chain, held open while the question is out (`gateway.ts`):
 * the upstream's answer goes back through the same run (so the chain checks the answer, as
 * `builtin.value-taint` does), and `checked` settles with what may go on to the server.
 */
export interface HeldAnswer {
  /** Gives the run the upstream's answer. */
  readonly answer: (value: unknown) => void;
  /** Ends the run unanswered. */
  readonly cancel: (error: unknown) => void;
  /** The answer as the chain let it through; rejects when it was withheld or cancelled. */
  readonly checked: Promise<unknown>;
}

/** One forwarded call that may span several upstream requests. */
export class PendingCall {
  /** The caller it belongs to. */
  readonly principal: string | undefined;
  /** The questions' chain runs waiting for their answers, by key ({@link HeldAnswer}); cancelled when the call ends. */
  readonly held = new Map<string, HeldAnswer>();
  readonly #launch: Launch;
  readonly #abort = new LazyAbort();
  /**
   * Questions a stateful downstream server asked through real requests, by key, not yet sent
   * upstream. Both tables are made by the first question: most calls ask none.
   */
  #fresh: Map<string, Question> | undefined;
  /** Questions sent upstream, waiting for their answers. */
  #asked: Map<string, Question> | undefined;
  /** The downstream server's own MRTR round, waiting for answers. */
  #mrtr: { readonly inputRequests: Readonly<Record<string, InputRequest>>; readonly requestState: string | undefined } | undefined;
  /** Bumped per attempt: only the current attempt's outcome counts. */
  #round = 0;
  /** How the current attempt settled, not yet taken by a driver. */
  #settled: { readonly attempt: Attempt } | { readonly error: unknown } | undefined;
  /** The upstream request waiting for the next step, if one is. */
  #waiter: Waiter | undefined;
  #driver: Driver | undefined;
  #seq = 0;
  #done = false;

  #id: string | undefined;

  constructor(principal: string | undefined, launch: Launch) {
    this.principal = principal;
    this.#launch = launch;
  }

  /**
   * The id the upstream echoes back (inside the sealed `requestState`). Drawn on first use:
   * only a call that asks a question needs one, so a call that completes at once costs no
   * random bytes.
   */
  get id(): string {
    return (this.#id ??= randomId());
  }

  /** True once the call completed, failed or was abandoned. */
  get done(): boolean {
    return this.#done;
  }

  /** Runs the first attempt, driven by `driver`, until it completes or has questions. */
  start(driver: Driver): Promise<Step> {
    this.#driver = driver;
    this.#run({});
    return this.#drive(driver);
  }

  /**
   * Continues with the upstream's answers (`inputResponses` of the retry): each answers the
   * question of its key. A key that was not asked is ignored; a question left unanswered is
   * asked again.
   */
  resume(driver: Driver, inputResponses: Readonly<Record<string, unknown>>): Promise<Step> {
    if (this.#mrtr !== undefined) {
      const own = this.#mrtr;
      const answers: Record<string, unknown> = {};
      for (const key of Object.keys(own.inputRequests)) if (Object.hasOwn(inputResponses, key)) answers[key] = inputResponses[key];
      if (Object.keys(answers).length < Object.keys(own.inputRequests).length) return this.#drive(driver);
      this.#mrtr = undefined;
      this.#driver = driver;
      this.#run({ inputResponses: answers, ...(own.requestState !== undefined ? { requestState: own.requestState } : {}) });
    }
    const asked = this.#asked;
    if (asked !== undefined) {
      for (const [key, question] of [...asked]) {
        if (!Object.hasOwn(inputResponses, key)) continue;
        asked.delete(key);
        question.resolve(inputResponses[key]);
      }
      // Unanswered questions go out again.
      if (asked.size > 0) {
        const fresh = (this.#fresh ??= new Map());
        for (const [key, question] of asked) fresh.set(key, question);
        asked.clear();
      }
    }
    return this.#drive(driver);
  }

  /** Ends the call: the downstream request is cancelled and open questions fail. */
  abandon(reason: string): void {
    if (this.#done) return;
    this.#done = true;
    const error = new McpError(McpErrorCode.RequestCancelled, reason);
    this.#abort.abort(error);
    this.#release(this.#waiter, error);
    for (const q of [...(this.#fresh?.values() ?? []), ...(this.#asked?.values() ?? [])]) q.reject(error);
    for (const h of this.held.values()) h.cancel(error);
    this.held.clear();
    this.#fresh?.clear();
    this.#asked?.clear();
  }

  /**
   * The next step for `driver`: settled by {@link #pump} once the attempt completes, fails or
   * asks something, or by {@link abandon}. Not `async`: one promise per upstream request and
   * no suspended frame, since most calls complete at the first wake.
   */
  #drive(driver: Driver): Promise<Step> {
    if (this.#done) return Promise.reject(new McpError(McpErrorCode.RequestCancelled, 'The call was abandoned'));
    // A driver still waiting (a retry that raced its predecessor) is released, not left hanging.
    if (this.#waiter !== undefined) this.#release(this.#waiter, new McpError(McpErrorCode.RequestCancelled, 'Another request now drives the call'));
    this.#driver = driver;
    return new Promise<Step>((resolve, reject) => {
      this.#waiter = { driver, resolve, reject, off: driver.onAbort(() => this.abandon('The upstream request was cancelled')) };
      this.#pump();
    });
  }

  /** Settles the waiting driver's step if one is ready: called when it starts waiting and on every wake. */
  #pump(): void {
    const waiter = this.#waiter;
    if (waiter === undefined) return;
    let step: Step;
    for (;;) {
      if (this.#mrtr !== undefined) {
        step = { kind: 'input', inputRequests: { ...this.#mrtr.inputRequests } };
        break;
      }
      if (this.#fresh !== undefined && this.#fresh.size > 0) {
        step = { kind: 'input', inputRequests: this.#takeFresh(this.#fresh) };
        break;
      }
      const settled = this.#settled;
      // Nothing yet: the attempt settling or a question of the server wakes it again.
      if (settled === undefined) return;
      this.#settled = undefined;
      if ('error' in settled) {
        this.#done = true;
        this.#release(waiter, settled.error);
        return;
      }
      const outcome = settled.attempt;
      if (outcome.kind === 'complete') {
        this.#done = true;
        step = outcome;
        break;
      }
      this.#mrtr = { inputRequests: outcome.inputRequests, requestState: outcome.requestState };
    }
    this.#release(waiter, undefined, step);
  }

  /** Stops `waiter` waiting: it stops hearing its request's abort, then gets `step`, or `error` without one. */
  #release(waiter: Waiter | undefined, error: unknown, step?: Step): void {
    if (waiter === undefined) return;
    if (this.#waiter === waiter) this.#waiter = undefined;
    waiter.off();
    if (this.#driver === waiter.driver) this.#driver = undefined;
    if (step !== undefined) waiter.resolve(step);
    else waiter.reject(error);
  }

  #takeFresh(fresh: Map<string, Question>): Record<string, InputRequest> {
    const out: Record<string, InputRequest> = {};
    const asked = (this.#asked ??= new Map());
    for (const [key, q] of fresh) {
      out[key] = q.request;
      asked.set(key, q);
    }
    fresh.clear();
    return out;
  }

  /** Starts an attempt; its outcome wakes the driver (and has no one left to hear it once the call is abandoned). */
  #run(round: { inputResponses?: Readonly<Record<string, unknown>>; requestState?: string }): void {
    const at = ++this.#round;
    this.#settled = undefined;
    const launched: { -readonly [K in keyof LaunchRound]: LaunchRound[K] } = {
      ...round,
      handlers: this.#handlers(),
      signal: this.#abort,
      abort: (reason) => this.#abort.abort(reason),
      onLog: (params) => this.#driver?.log(params),
    };
    if (this.#driver?.acceptsProgress !== false) launched.onProgress = (p) => this.#driver?.progress(p);
    const attempt = this.#launch(launched);
    attempt.then(
      (value) => this.#settle(at, { attempt: value }),
      (error: unknown) => this.#settle(at, { error }),
    );
  }

  #settle(at: number, settled: { readonly attempt: Attempt } | { readonly error: unknown }): void {
    if (at !== this.#round) return;
    this.#settled = settled;
    this.#pump();
  }

  /** The downstream call's own handlers: a stateful server's questions wait for the upstream's answer. */
  #handlers(): ClientHandlers {
    const ask = <T>(method: InputRequest['method'], params: unknown, context: InputContext): Promise<T> => {
      if (this.#done) return Promise.reject(new McpError(McpErrorCode.RequestCancelled, 'The call was abandoned'));
      const driver = this.#driver;
      if (driver !== undefined && !driver.canAsk(method)) {
        return Promise.reject(new McpError(McpErrorCode.Unsupported, `The upstream client does not support ${CAPABILITY[method] ?? method}, so ${method} cannot be forwarded to it`));
      }
      return new Promise<T>((resolve, reject) => {
        const key = `q${++this.#seq}`;
        const request = (params === undefined ? { method } : { method, params }) as InputRequest;
        (this.#fresh ??= new Map()).set(key, { request, resolve: resolve as (a: unknown) => void, reject });
        context.signal.addEventListener('abort', () => {
          this.#fresh?.delete(key);
          this.#asked?.delete(key);
          reject(new McpError(McpErrorCode.RequestCancelled, 'The server withdrew its question'));
        });
        this.#pump();
      });
    };
    return {
      elicitation: (params, context) => ask('elicitation/create', params, context),
      sampling: (params, context) => ask('sampling/createMessage', params, context),
      roots: (context) => ask('roots/list', undefined, context),
    };
  }
}

/** Options of a {@link PendingCalls} table. */
export interface PendingCallsOptions {
  /** How long a call waits for the upstream's next answer before it is abandoned. Default 300,000 ms. */
  readonly ttlMs?: number;
  /** Most calls waiting at once; more fail with `ERR_MCP_LIMIT_EXCEEDED`. Default 1,000. */
  readonly max?: number;
}

/** The calls waiting for their upstream's answers, by id. */
export class PendingCalls {
  readonly #calls = new Map<string, { call: PendingCall; timer: ReturnType<typeof setTimeout> | undefined }>();
  readonly #ttlMs: number;
  readonly #max: number;

  constructor(options: PendingCallsOptions = {}) {
    this.#ttlMs = options.ttlMs ?? 300_000;
    this.#max = options.max ?? 1000;
  }

  /** How many calls wait. */
  get size(): number {
    return this.#calls.size;
  }

  /** A new call (not yet waiting). */
  create(principal: string | undefined, launch: Launch): PendingCall {
    if (this.#calls.size >= this.#max) throw new McpError(McpErrorCode.LimitExceeded, `Too many calls are waiting for answers (${this.#max}); answer or cancel some first`);
    return new PendingCall(principal, launch);
  }

  /** Keeps `call` until its upstream retries (or the TTL ends it). */
  park(call: PendingCall): void {
    const timer = setTimeout(() => {
      this.#calls.delete(call.id);
      call.abandon(`No answer came within ${this.#ttlMs} ms`);
    }, this.#ttlMs);
    this.#calls.set(call.id, { call, timer });
  }

  /**
   * Takes the call `id` back for `principal`; undefined when it is unknown, expired, or
   * belongs to someone else (a confused deputy must not resume another caller's call).
   */
  take(id: string, principal: string | undefined): PendingCall | undefined {
    const entry = this.#calls.get(id);
    if (entry === undefined || entry.call.principal !== principal) return undefined;
    this.#calls.delete(id);
    clearTimeout(entry.timer);
    return entry.call;
  }

  /** Abandons every waiting call. */
  clear(reason: string): void {
    for (const { call, timer } of this.#calls.values()) {
      clearTimeout(timer);
      call.abandon(reason);
    }
    this.#calls.clear();
  }
}

/** 128 random bits as hex: an unguessable id (pending calls, gateway task ids). */
export function randomId(): string {
  const bytes = new Uint8Array(16);
  crypto.getRandomValues(bytes);
  let out = '';
  for (const b of bytes) out += b.toString(16).padStart(2, '0');
  return out;
}
