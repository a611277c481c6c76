/**
 * One POST of a stateful session carrying requests (one, or a 2025-03-26 batch): the
 * {@link DispatchEnv} each request sees, and the switch from a pending JSON answer to the
 * POST's own SSE stream as soon as anything related is sent before the response
 * (notifications, server→client requests such as `elicitation/create`, or an early
 * `closeStream()`).
 *
 * Unlike the stateless 2026-07-28 path, a dropped connection is not a cancellation (the
 * stateful revisions cancel with `notifications/cancelled`): the handler keeps running, its
 * events go to the event store, and the client resumes with `GET` + `Last-Event-ID`.
 *
 * @see https://modelcontextprotocol.io/specification/2025-11-25/basic/transports#sending-messages-to-the-server
 * @module
 */
import type { MessageExtra } from '../../../jsonrpc/channel.js';
import { JsonRpcError } from '../../../jsonrpc/errors.js';
import type { JsonRpcMessage, JsonRpcNotification, JsonRpcRequest, JsonRpcResponse, Params } from '../../../jsonrpc/messages.js';
import { principalIn, type Principal } from '../../principal.js';
import type { DispatchEnv, McpDispatcher, PeerRequester } from '../../types.js';
import type { Abortable, HttpSession, MessageTarget } from './sessions.js';
import type { SessionStream } from './sessionStream.js';
import type { HttpResponseLike } from './types.js';
import { LazyAbort } from '../../../util/lazyAbort.js';
import { storeUnavailableError } from './sharedSessions.js';

const SSE_HEADERS: Readonly<Record<string, string>> = Object.freeze({
  'content-type': 'text/event-stream',
  'cache-control': 'no-cache',
  'x-accel-buffering': 'no',
});
const JSON_HEADERS: Readonly<Record<string, string>> = Object.freeze({ 'content-type': 'application/json' });

/** The abort state of one client request in a session (its `DispatchEnv.signal`, created lazily). */
export class RequestEnv extends LazyAbort implements Abortable {}

/**
 * The {@link DispatchEnv} of one request of a POST. A class with `signal` on the prototype,
 * not an object literal with `get signal()`: a literal's getter is a new closure each time,
 * which gives every env its own hidden class (allocated in old space) and made scavenges of a
 * busy session 20–30× slower. `peer` is a getter too, built on first read (most handlers
 * never ask the client anything).
 */
class PostEnv implements DispatchEnv {
  readonly #request: RequestEnv;
  readonly #host: HttpSession;
  readonly #target: MessageTarget;
  #peer: PeerRequester | undefined;
  readonly extra: MessageExtra;
  readonly principal: Principal | undefined;
  readonly notify: (notification: JsonRpcNotification) => void;
  readonly session: unknown;

  constructor(host: HttpSession, request: RequestEnv, extra: MessageExtra, target: MessageTarget) {
    this.#request = request;
    this.#host = host;
    this.#target = target;
    this.extra = extra;
    this.principal = principalIn(extra);
    this.notify = (notification: JsonRpcNotification) => target.send(notification);
    this.session = host.state;
  }

  /** {@inheritDoc DispatchEnv.signal} — the AbortSignal is only created when the handler reads it. */
  get signal(): AbortSignal {
    return this.#request.signal;
  }

  /** {@inheritDoc DispatchEnv.onAbort} */
  onAbort(listener: () => void): () => void {
    return this.#request.onAbort(listener);
  }

  /** {@inheritDoc DispatchEnv.peer} — server→client requests go out on the request's stream. */
  get peer(): PeerRequester {
    let peer = this.#peer;
    if (peer === undefined) {
      const host = this.#host;
      const target = this.#target;
      peer = {
        request: (method: string, params: Params | undefined, options?: { signal?: AbortSignal; timeoutMs?: number }) => host.requestOn(target, method, params, options),
      };
      this.#peer = peer;
    }
    return peer;
  }
}

/**
 * The env of a request in a 2025-11-25 (SEP-1699) session: `closeStream` as an own member set
 * in the constructor (one hidden class for all of them; `Object.defineProperty` on each env
 * cost a map transition per request).
 */
class PollingPostEnv extends PostEnv {
  readonly closeStream: () => void;

  constructor(host: HttpSession, request: RequestEnv, extra: MessageExtra, target: MessageTarget, closeStream: () => void) {
    super(host, request, extra, target);
    this.closeStream = closeStream;
  }
}

/** Options of one {@link StatefulPost}. */
export interface StatefulPostOptions {
  /** Extra response headers (`Mcp-Session-Id` on `initialize`). */
  readonly headers?: Readonly<Record<string, string>>;
  /**
   * Runs once every response is in, before the JSON answer is built (an `initialize` learns
   * the negotiated version here); returns headers to add to a JSON answer.
   */
  readonly onDone?: (responses: readonly JsonRpcResponse[]) => Readonly<Record<string, string>> | undefined;
}

/** The requests of one POST in a session, answered as JSON or on the POST's SSE stream. */
export class StatefulPost implements MessageTarget {
  readonly #session: HttpSession;
  readonly #extra: MessageExtra;
  readonly #options: StatefulPostOptions;
  #state: 0 | 1 | 2 = 0; // 0 pending JSON, 1 streaming, 2 done
  #stream: SessionStream | undefined;
  #resolve: ((response: HttpResponseLike) => void) | undefined;
  readonly #responses: JsonRpcResponse[] = [];
  #expected = 0;

  constructor(session: HttpSession, extra: MessageExtra, options: StatefulPostOptions = {}) {
    this.#session = session;
    this.#extra = extra;
    this.#options = options;
  }

  /** {@inheritDoc MessageTarget.send} — a message related to this POST; opens its SSE stream. */
  send(message: JsonRpcMessage): void {
    if (this.#state === 2) return;
    this.#startStream()?.send(message);
  }

  /** SEP-1699: ends the HTTP response now; the stream goes on and the client polls it back. */
  closeStream(): void {
    if (this.#state === 2) return;
    this.#startStream()?.endConnection();
  }

  #startStream(): SessionStream | undefined {
    if (this.#state === 1) return this.#stream;
    const resolve = this.#resolve;
    if (resolve === undefined) return undefined;
    this.#state = 1;
    const stream = this.#session.newStream();
    this.#stream = stream;
    const conn = stream.open();
    // Responses that arrived before the switch (batches) go first.
    for (const response of this.#responses) stream.send(response);
    resolve({ status: 200, headers: this.#headers(SSE_HEADERS), body: conn.body });
    return stream;
  }

  #headers(base: Readonly<Record<string, string>>, more?: Readonly<Record<string, string>>): Readonly<Record<string, string>> {
    const extra = this.#options.headers;
    return extra === undefined && more === undefined ? base : { ...base, ...extra, ...more };
  }

  /** The environment the dispatcher sees for one request. */
  #env(request: RequestEnv): DispatchEnv {
    const session = this.#session;
    // closeStream needs a client that reconnects: SEP-1699 (2025-11-25) sessions only.
    if (session.priming) return new PollingPostEnv(session, request, this.#extra, this, () => this.closeStream());
    return new PostEnv(session, request, this.#extra, this);
  }

  /**
   * Dispatches the requests concurrently; resolves with the JSON answer (one response, or an
   * array for a batch, including the `answered` errors of invalid batch items) or with the
   * SSE response as soon as the stream opens.
   */
  run(dispatcher: McpDispatcher, requests: readonly JsonRpcRequest[], batch: boolean, answered: readonly JsonRpcResponse[] = []): Promise<HttpResponseLike> {
    return new Promise<HttpResponseLike>((resolve) => {
      this.#resolve = resolve;
      this.#expected = requests.length + answered.length;
      if (answered.length > 0) this.#responses.push(...answered);
      const env = (request: RequestEnv): DispatchEnv => this.#env(request);
      const answer = (response: JsonRpcResponse): void => this.#answer(response, batch);
      for (const message of requests) dispatchSessionRequest(dispatcher, this.#session, message, env, answer);
    });
  }

  #answer(response: JsonRpcResponse, batch: boolean): void {
    if (this.#state === 2) return;
    this.#responses.push(response);
    const last = this.#responses.length === this.#expected;
    let more: Readonly<Record<string, string>> | undefined;
    if (last) more = this.#options.onDone?.(this.#responses);
    if (this.#state === 1) {
      const stream = this.#stream as SessionStream;
      if (!last) {
        stream.send(response);
        return;
      }
      this.#state = 2;
      stream.finish(response);
      this.#session.endStream(stream);
      return;
    }
    if (!last) return;
    this.#state = 2;
    const body = JSON.stringify(batch ? this.#responses : response);
    this.#resolve?.({ status: 200, headers: this.#headers(JSON_HEADERS, more), body });
  }
}

/**
 * The {@link DispatchEnv} of one client request in a session: its notifications and its
 * server→client requests (`env.peer`) go to `target` (a POST's stream, or the legacy
 * HTTP+SSE stream of `legacySse.ts`).
 */
export function sessionRequestEnv(session: HttpSession, request: RequestEnv, extra: MessageExtra, target: MessageTarget): DispatchEnv {
  return new PostEnv(session, request, extra, target);
}

/**
 * Dispatches one client request of a session without waiting for it: tracked for
 * `notifications/cancelled` and the session's end, counted as activity (no idle expiry while
 * it runs). `answer` gets the response (-32603 when the dispatcher fails).
 */
export function dispatchSessionRequest(
  dispatcher: McpDispatcher,
  session: HttpSession,
  message: JsonRpcRequest,
  env: (request: RequestEnv) => DispatchEnv,
  answer: (response: JsonRpcResponse) => void,
): void {
  const request = new RequestEnv();
  session.track(message.id, request);
  session.active++;
  let dispatched: Promise<JsonRpcResponse | undefined>;
  try {
    dispatched = dispatcher.dispatch(message, env(request));
  } catch (e) {
    dispatched = Promise.reject(e);
  }
  // One reaction per request (not a then/then/catch chain: two promises fewer each).
  dispatched.then(
    (response) => settleSessionRequest(session, message, request, response ?? internalError(message), answer),
    (error: unknown) => {
      session.settings.logger.error('dispatcher rejected; answering -32603', { method: message.method, error: String(error) });
      settleSessionRequest(session, message, request, internalError(message), answer);
    },
  );
}

function settleSessionRequest(session: HttpSession, message: JsonRpcRequest, request: RequestEnv, response: JsonRpcResponse, answer: (response: JsonRpcResponse) => void): void {
  try {
    session.untrack(message.id, request);
    session.active--;
    session.lastUsed = Date.now();
    // Shared between instances: a changed session state is stored before the answer goes out.
    const saving = session.sharing?.sync(session);
    if (saving === undefined) answer(response);
    else saving.then(() => answer(response), (error: unknown) => answer({ jsonrpc: '2.0', id: message.id, error: storeUnavailableError(error).toJSON() }));
  } catch (e) {
    session.settings.logger.error('answering a stateful request failed', { error: String(e) });
  }
}

function internalError(message: JsonRpcRequest): JsonRpcResponse {
  return { jsonrpc: '2.0', id: message.id, error: JsonRpcError.internal().toJSON() };
}
