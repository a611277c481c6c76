/**
 * `Connection`: JSON-RPC 2.0 correlation over a {@link Channel}, in both directions.
 *
 * It numbers outgoing requests, matches responses to them (many in flight, any order),
 * applies per-request timeouts (optionally reset by progress, always capped by a total),
 * turns an `AbortSignal` into `notifications/cancelled`, routes `notifications/progress` to
 * the caller, dispatches incoming requests and notifications to handlers, cancels a handler
 * when the peer sends `notifications/cancelled`, and fails every pending request with a
 * typed error when the channel closes. It knows JSON-RPC, not MCP methods: the protocol
 * layers above give it handlers.
 *
 * @see https://modelcontextprotocol.io/specification/2026-07-28/basic/patterns/cancellation
 * @see https://modelcontextprotocol.io/specification/2026-07-28/basic/patterns/progress
 * @module
 */
import { isMcpError, McpError, McpErrorCode } from '../util/errors.js';
import { silentLogger, type Logger } from '../util/logger.js';
import type { Channel, ChannelSink, MessageExtra } from './channel.js';
import { isBatchResult, type DecodeResult, type DecodedItem } from './decode.js';
import { ErrorCode, JsonRpcError } from './errors.js';
import type {
  JsonRpcErrorResponse,
  JsonRpcMessage,
  JsonRpcNotification,
  JsonRpcRequest,
  JsonRpcResponse,
  Params,
  RequestId,
} from './messages.js';
import { IdTable } from '../util/idTable.js';
import { LazyAbort, abortReasonOf, listenAbort } from '../util/lazyAbort.js';
import {
  CancelledNotification,
  ProgressNotification,
  type ConnectionOptions,
  type NotificationHandler,
  type Progress,
  type RequestContext,
  type RequestHandler,
  type RequestOptions,
} from './connectionTypes.js';

export {
  CancelledNotification,
  ProgressNotification,
  type ConnectionOptions,
  type NotificationHandler,
  type Progress,
  type RequestContext,
  type RequestHandler,
  type RequestOptions,
} from './connectionTypes.js';

/**
 * The {@link RequestContext} of one incoming request. A class with `signal` on the prototype
 * (created on first read), not an object literal with `get signal()`: a literal's getter is a
 * new closure per request, which gives every context its own hidden class in old space and
 * makes scavenges under load many times slower.
 */
class IncomingContext implements RequestContext {
  readonly #flight: InFlight;

  constructor(
    readonly id: RequestId,
    readonly method: string,
    flight: InFlight,
    readonly extra: MessageExtra | undefined,
    readonly progressToken: RequestId | undefined,
    readonly notify: (method: string, params?: Params) => Promise<void>,
  ) {
    this.#flight = flight;
  }

  /** {@inheritDoc RequestContext.signal} */
  get signal(): AbortSignal {
    return this.#flight.signal;
  }

  /** {@inheritDoc RequestContext.onAbort} */
  onAbort(listener: () => void): () => void {
    return this.#flight.onAbort(listener);
  }
}

interface Pending {
  readonly id: RequestId;
  readonly method: string;
  readonly resolve: (result: Record<string, unknown>) => void;
  readonly reject: (error: Error) => void;
  readonly onProgress: ((progress: Progress) => void) | undefined;
  readonly timeoutMs: number;
  readonly resetOnProgress: boolean;
  readonly notifyCancel: boolean;
  readonly relatedRequestId: RequestId | undefined;
  timer: ReturnType<typeof setTimeout> | undefined;
  totalTimer: ReturnType<typeof setTimeout> | undefined;
  /** The total cap in ms; 0 = none. */
  readonly totalMs: number;
  /** What is left of the total cap (ms) when its timer is not running; 0 = no cap. */
  totalLeftMs: number;
  /** When the total timer was last armed. */
  totalSince: number;
  /** Removes the request's abort listener (undefined without a signal). */
  unlisten: (() => void) | undefined;
}

/** An incoming request being handled: its signal is created only when a handler reads it. */
class InFlight extends LazyAbort {}

/**
 * Correlates JSON-RPC traffic over one channel. Create it, set handlers through options,
 * then `start()`.
 */
export class Connection {
  readonly #channel: Channel;
  readonly #logger: Logger;
  readonly #defaultTimeoutMs: number;
  readonly #maxTotalTimeoutMs: number;
  /** Open {@link ChannelSink.suspendTimers} calls. */
  #suspensions = 0;
  readonly #onRequest: RequestHandler | undefined;
  readonly #onNotification: NotificationHandler | undefined;
  readonly #onHandlerError: ((error: unknown, request: JsonRpcRequest) => void) | undefined;
  readonly #answerInvalid: boolean;
  // IdTables, not Maps: a Map's replaced backing tables keep requests' object graphs alive
  // through scavenges (see util/idTable.ts).
  readonly #pending = new IdTable<RequestId, Pending>();
  readonly #byProgressToken = new IdTable<RequestId, Pending>();
  readonly #inFlight = new IdTable<RequestId, InFlight>();
  readonly #closeListeners: ((reason?: Error) => void)[] = [];
  #drainWaiters: (() => void)[] = [];
  #nextId = 1;
  #state: 'new' | 'open' | 'closed' = 'new';
  #closeReason: Error | undefined;

  constructor(channel: Channel, options: ConnectionOptions = {}) {
    this.#channel = channel;
    this.#logger = options.logger ?? silentLogger;
    this.#defaultTimeoutMs = options.defaultTimeoutMs ?? 60_000;
    this.#maxTotalTimeoutMs = options.maxTotalTimeoutMs ?? 0;
    this.#onRequest = options.onRequest;
    this.#onNotification = options.onNotification;
    this.#onHandlerError = options.onHandlerError;
    this.#answerInvalid = options.answerInvalidFrames ?? true;
  }

  /** True once the channel has closed. */
  get closed(): boolean {
    return this.#state === 'closed';
  }

  /** How many outgoing requests await an answer. */
  get pendingCount(): number {
    return this.#pending.size;
  }

  /** How many incoming requests are being handled. */
  get inFlightCount(): number {
    return this.#inFlight.size;
  }

  /** Starts the channel. Rejects with `ERR_MCP_ALREADY_STARTED` if called twice. */
  async start(): Promise<void> {
    if (this.#state !== 'new') throw new McpError(McpErrorCode.AlreadyStarted, 'The connection was already started');
    this.#state = 'open';
    const sink: ChannelSink = {
      receive: (frame, extra) => this.#receive(frame, extra),
      closed: (reason) => this.#handleClosed(reason),
      suspendTimers: () => this.#suspendTimers(),
    };
    await this.#channel.start(sink);
  }

  /** Registers a listener for the close of the connection. */
  onClose(listener: (reason?: Error) => void): void {
    if (this.#state === 'closed') listener(this.#closeReason);
    else this.#closeListeners.push(listener);
  }

  /**
   * Sends a request and resolves with its `result`. Rejects with a {@link JsonRpcError} when
   * the peer answers with an error, or an {@link McpError} (`ERR_MCP_REQUEST_TIMEOUT`,
   * `ERR_MCP_REQUEST_CANCELLED`, `ERR_MCP_CONNECTION_CLOSED`, `ERR_MCP_SEND_FAILED`).
   */
  request(method: string, params?: Params, options: RequestOptions = {}): Promise<Record<string, unknown>> {
    if (this.#state !== 'open') {
      return Promise.reject(
        this.#state === 'closed'
          ? new McpError(McpErrorCode.ConnectionClosed, 'The connection is closed', { cause: this.#closeReason })
          : new McpError(McpErrorCode.NotConnected, 'The connection is not started'),
      );
    }
    const signal = options.signal;
    if (signal?.aborted) {
      return Promise.reject(new McpError(McpErrorCode.RequestCancelled, `Request ${method} was cancelled before it was sent`, { cause: abortReasonOf(signal) }));
    }
    const id = this.#nextId++;
    options.onId?.(id);
    const onProgress = options.onProgress;
    let sentParams = params;
    if (onProgress !== undefined) {
      const meta = params?.['_meta'];
      sentParams = { ...params, _meta: { ...(typeof meta === 'object' && meta !== null ? meta : {}), progressToken: id } };
    }
    const message: JsonRpcRequest =
      sentParams === undefined ? { jsonrpc: '2.0', id, method } : { jsonrpc: '2.0', id, method, params: sentParams };

    return new Promise<Record<string, unknown>>((resolve, reject) => {
      const entry: Pending = {
        id,
        method,
        resolve,
        reject,
        onProgress,
        timeoutMs: options.timeoutMs ?? this.#defaultTimeoutMs,
        resetOnProgress: options.resetTimeoutOnProgress ?? onProgress !== undefined,
        notifyCancel: options.notifyCancel ?? true,
        relatedRequestId: options.relatedRequestId,
        timer: undefined,
        totalTimer: undefined,
        totalMs: options.maxTotalTimeoutMs ?? this.#maxTotalTimeoutMs,
        totalLeftMs: options.maxTotalTimeoutMs ?? this.#maxTotalTimeoutMs,
        totalSince: 0,
        unlisten: undefined,
      };
      this.#pending.set(id, entry);
      if (onProgress !== undefined) this.#byProgressToken.set(id, entry);
      this.#armTimer(entry);
      this.#armTotalTimer(entry);
      if (signal !== undefined) entry.unlisten = listenAbort(signal, () => this.#abort(entry, abortReasonOf(signal)));
      const sendOptions = options.relatedRequestId === undefined ? undefined : { relatedRequestId: options.relatedRequestId };
      this.#channel.send(message, sendOptions).catch((error: unknown) => {
        if (this.#settle(entry)) {
          // The peer went away while the request was written: say so, as for a request already sent.
          reject(isMcpError(error, McpErrorCode.ConnectionClosed) ? error : new McpError(McpErrorCode.SendFailed, `Could not send request ${method}`, { cause: error }));
        }
      });
    });
  }

  /** Sends a notification. */
  async notify(method: string, params?: Params, options: { relatedRequestId?: RequestId } = {}): Promise<void> {
    if (this.#state !== 'open') throw new McpError(McpErrorCode.ConnectionClosed, 'The connection is not open', { cause: this.#closeReason });
    const message: JsonRpcNotification = params === undefined ? { jsonrpc: '2.0', method } : { jsonrpc: '2.0', method, params };
    await this.#channel.send(message, options.relatedRequestId === undefined ? undefined : { relatedRequestId: options.relatedRequestId });
  }

  /**
   * Resolves once no incoming request is being handled (their responses have been handed to
   * the channel), or after `timeoutMs`. Use before {@link close} for a graceful shutdown.
   */
  drain(timeoutMs = 1000): Promise<void> {
    if (this.#inFlight.size === 0 || this.#state !== 'open') return Promise.resolve();
    return new Promise<void>((resolve) => {
      const timer = setTimeout(done, timeoutMs);
      function done(): void {
        clearTimeout(timer);
        resolve();
      }
      this.#drainWaiters.push(done);
    });
  }

  /** Closes the channel; pending requests fail with `ERR_MCP_CONNECTION_CLOSED`. */
  async close(): Promise<void> {
    if (this.#state === 'closed') return;
    try {
      await this.#channel.close();
    } finally {
      this.#handleClosed();
    }
  }

  #armTimer(entry: Pending): void {
    if (entry.timer !== undefined) clearTimeout(entry.timer);
    entry.timer = undefined;
    if (entry.timeoutMs > 0 && this.#suspensions === 0) {
      entry.timer = setTimeout(
        () => this.#expire(entry, `Request ${entry.method} timed out after ${entry.timeoutMs} ms`),
        entry.timeoutMs,
      );
    }
  }

  #armTotalTimer(entry: Pending): void {
    if (entry.totalLeftMs <= 0 || this.#suspensions > 0) return;
    entry.totalSince = Date.now();
    entry.totalTimer = setTimeout(() => this.#expire(entry, `Request ${entry.method} exceeded its maximum total time of ${entry.totalMs} ms`), entry.totalLeftMs);
  }

  /** See {@link ChannelSink.suspendTimers}. */
  #suspendTimers(): () => void {
    if (this.#suspensions++ === 0) {
      const now = Date.now();
      for (const entry of this.#pending.values()) {
        if (entry.timer !== undefined) clearTimeout(entry.timer);
        entry.timer = undefined;
        if (entry.totalTimer !== undefined) {
          clearTimeout(entry.totalTimer);
          entry.totalTimer = undefined;
          entry.totalLeftMs = Math.max(1, entry.totalLeftMs - (now - entry.totalSince));
        }
      }
    }
    let resumed = false;
    return () => {
      if (resumed) return;
      resumed = true;
      if (--this.#suspensions > 0) return;
      for (const entry of this.#pending.values()) {
        this.#armTimer(entry);
        this.#armTotalTimer(entry);
      }
    };
  }

  /** Removes a pending entry and its timers/listeners. False when it was already settled. */
  #settle(entry: Pending): boolean {
    if (this.#pending.get(entry.id) !== entry) return false;
    this.#pending.delete(entry.id);
    if (entry.onProgress !== undefined) this.#byProgressToken.delete(entry.id);
    if (entry.timer !== undefined) clearTimeout(entry.timer);
    if (entry.totalTimer !== undefined) clearTimeout(entry.totalTimer);
    entry.unlisten?.();
    return true;
  }

  #expire(entry: Pending, message: string): void {
    if (!this.#settle(entry)) return;
    this.#sendCancel(entry, 'timeout');
    entry.reject(new McpError(McpErrorCode.RequestTimeout, message));
  }

  #abort(entry: Pending, reason: unknown): void {
    if (!this.#settle(entry)) return;
    this.#sendCancel(entry, reason instanceof Error ? reason.message : typeof reason === 'string' ? reason : 'cancelled');
    entry.reject(new McpError(McpErrorCode.RequestCancelled, `Request ${entry.method} was cancelled`, { cause: reason }));
  }

  #sendCancel(entry: Pending, reason: string): void {
    if (!entry.notifyCancel || this.#state !== 'open') return;
    const options = entry.relatedRequestId === undefined ? {} : { relatedRequestId: entry.relatedRequestId };
    this.notify(CancelledNotification, { requestId: entry.id, reason }, options).catch((error: unknown) => {
      this.#logger.debug('could not send a cancellation', { requestId: entry.id, error: String(error) });
    });
  }

  #receive(frame: DecodeResult, extra: MessageExtra | undefined): void {
    if (this.#state !== 'open') return;
    if (isBatchResult(frame)) {
      this.#receiveBatch(frame.batch, extra);
      return;
    }
    if (!frame.ok) {
      this.#receiveInvalid(frame, extra, undefined);
      return;
    }
    void this.#dispatch(frame.message, extra, undefined);
  }

  #receiveInvalid(item: Extract<DecodedItem, { ok: false }>, extra: MessageExtra | undefined, collect: JsonRpcResponse[] | undefined): void {
    if (item.isResponse) {
      const entry = item.id === null ? undefined : this.#pending.get(item.id);
      if (entry !== undefined && this.#settle(entry)) {
        entry.reject(new McpError(McpErrorCode.InvalidResponse, `Invalid response to ${entry.method}: ${item.error.message}`, { cause: item.error }));
      } else {
        this.#logger.warn('dropped a malformed response', { id: item.id, error: item.error.message });
      }
      return;
    }
    if (!this.#answerInvalid) {
      this.#logger.warn('dropped an undecodable frame', { id: item.id, error: item.error.message });
      return;
    }
    const response: JsonRpcErrorResponse = { jsonrpc: '2.0', id: item.id, error: item.error.toJSON() };
    if (collect !== undefined) collect.push(response);
    else this.#sendResponse(response, extra);
  }

  #receiveBatch(items: readonly DecodedItem[], extra: MessageExtra | undefined): void {
    const responses: JsonRpcResponse[] = [];
    const waits: Promise<void>[] = [];
    for (const item of items) {
      if (!item.ok) this.#receiveInvalid(item, extra, responses);
      else {
        const wait = this.#dispatch(item.message, extra, responses);
        if (wait !== undefined) waits.push(wait);
      }
    }
    void Promise.all(waits).then(() => {
      if (responses.length > 0 && this.#state === 'open') {
        this.#channel.send(responses).catch((error: unknown) => {
          this.#logger.warn('could not send a batch response', { error: String(error) });
        });
      }
    });
  }

  /** Routes one valid message. Returns a promise for incoming requests (for batches). */
  #dispatch(message: JsonRpcMessage, extra: MessageExtra | undefined, collect: JsonRpcResponse[] | undefined): Promise<void> | undefined {
    if ('method' in message) {
      if ('id' in message) return this.#handleRequest(message, extra, collect);
      this.#handleNotification(message, extra);
      return undefined;
    }
    this.#handleResponse(message);
    return undefined;
  }

  #handleResponse(response: JsonRpcResponse): void {
    const entry = response.id === null ? undefined : this.#pending.get(response.id);
    if (entry === undefined) {
      // Late answers to requests we gave up on are expected; anything else is a peer bug.
      this.#logger.warn('dropped a response with an unknown id', { id: response.id });
      return;
    }
    this.#settle(entry);
    if ('error' in response) entry.reject(JsonRpcError.fromObject(response.error, response));
    else entry.resolve(response.result);
  }

  #handleNotification(notification: JsonRpcNotification, extra: MessageExtra | undefined): void {
    const params = notification.params;
    if (notification.method === CancelledNotification) {
      const requestId = params?.['requestId'];
      if (typeof requestId === 'string' || typeof requestId === 'number') {
        const flight = this.#inFlight.get(requestId);
        if (flight !== undefined && !flight.aborted) {
          flight.abort(new McpError(McpErrorCode.RequestCancelled, 'The peer cancelled the request', { cause: params?.['reason'] }));
        }
      }
      // Unknown or finished ids are ignored, as the cancellation pattern allows. The notice
      // still reaches onNotification below, through the same guard as any other.
    }
    if (notification.method === ProgressNotification) {
      const token = params?.['progressToken'];
      const entry = typeof token === 'string' || typeof token === 'number' ? this.#byProgressToken.get(token) : undefined;
      if (entry !== undefined && typeof params?.['progress'] === 'number') {
        if (entry.resetOnProgress) this.#armTimer(entry);
        const progress: Progress = {
          progress: params['progress'],
          ...(typeof params['total'] === 'number' ? { total: params['total'] } : {}),
          ...(typeof params['message'] === 'string' ? { message: params['message'] } : {}),
        };
        try {
          entry.onProgress?.(progress);
        } catch (error) {
          this.#logger.warn('a progress callback threw', { error: String(error) });
        }
        return;
      }
    }
    if (this.#onNotification === undefined) return;
    try {
      this.#onNotification(notification, extra);
    } catch (error) {
      this.#logger.warn('a notification handler threw', { method: notification.method, error: String(error) });
    }
  }

  async #handleRequest(request: JsonRpcRequest, extra: MessageExtra | undefined, collect: JsonRpcResponse[] | undefined): Promise<void> {
    const id = request.id;
    if (this.#inFlight.has(id)) {
      // Reusing the id of an unanswered request breaks correlation: refuse the newcomer.
      this.#respond({ jsonrpc: '2.0', id, error: JsonRpcError.invalidRequest(`id ${JSON.stringify(id)} is already in use by a pending request`).toJSON() }, extra, collect);
      return;
    }
    const handler = this.#onRequest;
    if (handler === undefined) {
      this.#respond({ jsonrpc: '2.0', id, error: JsonRpcError.methodNotFound(request.method).toJSON() }, extra, collect);
      return;
    }
    const flight = new InFlight();
    this.#inFlight.set(id, flight);
    const meta = request.params?.['_meta'];
    const token = typeof meta === 'object' && meta !== null ? (meta as Record<string, unknown>)['progressToken'] : undefined;
    const context: RequestContext = new IncomingContext(
      id,
      request.method,
      flight,
      extra,
      typeof token === 'string' || typeof token === 'number' ? token : undefined,
      async (method, params) => {
        if (flight.aborted || this.#state !== 'open') return;
        await this.notify(method, params, { relatedRequestId: id });
      },
    );
    let response: JsonRpcResponse;
    try {
      const result: unknown = await handler(request, context);
      if (typeof result !== 'object' || result === null || Array.isArray(result)) {
        // Not a JSON object: sent as is, it would be a malformed response the peer answers.
        throw new TypeError(`The handler for ${request.method} returned ${result === null ? 'null' : Array.isArray(result) ? 'an array' : typeof result}, not a result object`);
      }
      response = { jsonrpc: '2.0', id, result: result as Record<string, unknown> };
    } catch (error) {
      response = { jsonrpc: '2.0', id, error: this.#errorFor(error, request) };
    } finally {
      this.#inFlight.delete(id);
    }
    // A cancelled request gets no answer: the peer has already moved on.
    if (!flight.aborted) this.#respond(response, extra, collect);
    if (this.#inFlight.size === 0 && this.#drainWaiters.length > 0) {
      const waiters = this.#drainWaiters;
      this.#drainWaiters = [];
      for (const waiter of waiters) waiter();
    }
  }

  #errorFor(error: unknown, request: JsonRpcRequest): JsonRpcErrorResponse['error'] {
    if (error instanceof JsonRpcError) return error.toJSON();
    if (this.#onHandlerError !== undefined) {
      try {
        this.#onHandlerError(error, request);
      } catch {
        // a failing reporter must not change the answer
      }
    } else {
      this.#logger.error('a request handler failed', { method: request.method, error: error instanceof Error ? error.stack ?? error.message : String(error) });
    }
    return { code: ErrorCode.InternalError, message: 'Internal error' };
  }

  #respond(response: JsonRpcResponse, extra: MessageExtra | undefined, collect: JsonRpcResponse[] | undefined): void {
    if (collect !== undefined) collect.push(response);
    else this.#sendResponse(response, extra);
  }

  #sendResponse(response: JsonRpcResponse, _extra: MessageExtra | undefined): void {
    if (this.#state !== 'open') return;
    const options = response.id === null ? undefined : { relatedRequestId: response.id };
    this.#channel.send(response, options).catch((error: unknown) => {
      this.#logger.warn('could not send a response', { id: response.id, error: String(error) });
    });
  }

  #handleClosed(reason?: Error): void {
    if (this.#state === 'closed') return;
    this.#state = 'closed';
    this.#closeReason = reason;
    const error = new McpError(McpErrorCode.ConnectionClosed, reason ? `The connection closed: ${reason.message}` : 'The connection closed', { cause: reason });
    for (const entry of [...this.#pending.values()]) {
      if (this.#settle(entry)) entry.reject(error);
    }
    for (const flight of this.#inFlight.values()) {
      flight.abort(error);
    }
    const listeners = this.#closeListeners.splice(0);
    for (const listener of listeners) {
      try {
        listener(reason);
      } catch (e) {
        this.#logger.warn('a close listener threw', { error: String(e) });
      }
    }
  }
}
