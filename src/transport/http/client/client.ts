/**
 * The Streamable HTTP client transport, for both protocol eras, behind the plain
 * `start(sink)` / `send(message)` / `close()` contract. Everything HTTP-specific is derived
 * from the messages it carries:
 *
 * - **2026-07-28** (a request whose `params._meta` names `io.modelcontextprotocol/protocolVersion`):
 *   one POST per message with `MCP-Protocol-Version`, `Mcp-Method`, `Mcp-Name` and the
 *   `Mcp-Param-{Name}` headers of the called tool's `x-mcp-header` parameters, learned from
 *   the `tools/list` results that pass through.
 * - **2025-03-26 … 2025-11-25**: the `initialize` result sets the negotiated version and the
 *   `Mcp-Session-Id`, echoed on every later request; once `notifications/initialized` is
 *   accepted the standalone GET stream opens; `close()` sends DELETE.
 *
 * Responses may be JSON or SSE; SSE events are delivered as they arrive, and a stream that
 * ends before its response (after an event id was seen) is resumed with `GET` +
 * `Last-Event-ID` after the server's `retry` delay (SEP-1699 polling).
 *
 * @see https://modelcontextprotocol.io/specification/2026-07-28/basic/transports/streamable-http
 * @see https://modelcontextprotocol.io/specification/2025-11-25/basic/transports#streamable-http
 * @module
 */
import { RELATED_REQUEST_ID, type ChannelSink, type MessageExtra, type SendOptions } from '../../../jsonrpc/channel.js';
import { decodeFrame, defaultDecodeLimits, isBatchResult, type DecodeLimits, type DecodeResult, type DecodedItem } from '../../../jsonrpc/decode.js';
import { isErrorResponse, isRequest, isRequestId, type JsonRpcMessage, type RequestId } from '../../../jsonrpc/messages.js';
import { McpError, McpErrorCode, describeError } from '../../../util/errors.js';
import { silentLogger, type Logger } from '../../../util/logger.js';
import type { Transport } from '../../types.js';
import { addModernHeaders, H, isValidSessionId, metaProtocolVersion, ToolHeaderCache, type HeaderMap } from './clientHeaders.js';
import { authHooksOf, authorizedFetch, type ClientAuthHooks } from './clientAuth.js';
import { Cancellation } from './clientCancel.js';
import type { FetchLike, StreamableHttpClientOptions } from './clientOptions.js';
import { ClientSession } from './clientSession.js';
import { discard, followSse, httpStatusError, isJsonType, lossyText, mediaType, readBody, readResponse, takeBufferedBody } from './clientStream.js';

export type { HttpStatusCause } from './clientStream.js';
export type { FetchLike, StreamableHttpClientOptions, UnauthorizedInfo } from './clientOptions.js';

/** One HTTP exchange: a POST and the GETs that resume its stream. */
interface Exchange {
  readonly cancel: Cancellation;
  /** Ids of the requests sent whose responses have not arrived yet. */
  readonly awaiting: RequestId[];
  /**
   * What the server's messages on this exchange's stream relate to (the
   * `MessageExtra` of each): the POST's request, when it carried exactly one.
   */
  readonly extra: MessageExtra | undefined;
  readonly method: string;
  readonly modern: boolean;
  readonly limits: DecodeLimits;
  /** The session id the POST carried (a 404 then means the session expired). */
  readonly session: string | undefined;
  /** The `Mcp-Session-Id` of an `initialize` response, committed when its result arrives. */
  newSession: string | undefined;
}

type Watch = 'initialize' | 'list' | 'list+';

const JSON_ACCEPT = 'application/json, text/event-stream';
/** The extra of messages on the standalone GET stream: related to no request. */
const UNRELATED: MessageExtra = Object.freeze({ [RELATED_REQUEST_ID]: null });
const DELETE_TIMEOUT_MS = 5000;
const MAX_ERROR_BODY = 1024 * 1024;

function isBatch(message: JsonRpcMessage | readonly JsonRpcMessage[]): message is readonly JsonRpcMessage[] {
  return Array.isArray(message);
}

/**
 * A Streamable HTTP client {@link Transport}.
 *
 * - `send()` POSTs one message (or a 2025-03-26 batch). For a request it resolves once the
 *   response was handed to the sink, and rejects when none can arrive: `ERR_MCP_HTTP_STATUS`
 *   (non-2xx without a JSON-RPC error for it; `cause` is {@link HttpStatusCause}),
 *   `ERR_MCP_SESSION_EXPIRED` (404 on a session), `ERR_MCP_SEND_FAILED` (network failure or a
 *   stream that ended unanswered; `cause` is the underlying error), `ERR_MCP_INVALID_RESPONSE`
 *   (a body without the response). A non-2xx whose body is a JSON-RPC error for the request
 *   (or with id null) is delivered as that request's error response.
 * - A `notifications/cancelled` for a 2026-07-28 request closes that request's HTTP exchange
 *   instead of being POSTed (disconnect is cancellation there); in the stateful eras it is
 *   POSTed and the exchange is then closed.
 * - `close()` aborts every exchange and stream, DELETEs the session (405 is fine) and closes
 *   the sink.
 * - Each message a POST's SSE stream carries reaches the sink with the `MessageExtra`
 *   `{ relatedRequestId: <that POST's request id> }`, and each one of the standalone GET stream
 *   with `{ relatedRequestId: null }`: a client can tell which of its calls a server→client
 *   request belongs to.
 *
 * @example
 * ```ts
 * const connection = new Connection(new StreamableHttpClientTransport({ url: 'http://127.0.0.1:3000/mcp' }));
 * await connection.start();
 * ```
 */
export class StreamableHttpClientTransport implements Transport {
  readonly #url: string;
  readonly #fetch: FetchLike;
  readonly #auth: ClientAuthHooks;
  readonly #openGet: boolean;
  readonly #maxReconnects: number;
  readonly #retryMs: number;
  readonly #limits: DecodeLimits;
  readonly #batchLimits: DecodeLimits;
  readonly #logger: Logger;
  readonly #tools: ToolHeaderCache;
  /** What `close()` aborts: the exchanges in flight and the standalone GET stream. */
  readonly #controllers = new Set<{ abort(reason: unknown): void }>();
  readonly #requests = new Map<RequestId, Exchange>();
  readonly #watch = new Map<RequestId, Watch>();
  readonly #plainBase: HeaderMap;
  #sink: ChannelSink | undefined;
  #closing: Promise<void> | undefined;
  readonly #session: ClientSession;
  #getStream: AbortController | undefined;

  constructor(options: StreamableHttpClientOptions) {
    this.#url = String(options.url);
    this.#fetch = options.fetch ?? ((url, init) => fetch(url, init));
    const extra: HeaderMap = {};
    for (const [name, value] of Object.entries(options.headers ?? {})) extra[name.toLowerCase()] = value;
    this.#auth = authHooksOf(options);
    this.#openGet = options.openGetStream ?? true;
    this.#maxReconnects = options.maxReconnects ?? 5;
    this.#retryMs = options.reconnectDelayMs ?? 1000;
    this.#limits = options.limits ?? defaultDecodeLimits;
    this.#batchLimits = { ...this.#limits, allowBatch: true };
    this.#logger = options.logger ?? silentLogger;
    this.#tools = new ToolHeaderCache(this.#logger);
    this.#plainBase = Object.freeze({ ...extra, [H.accept]: JSON_ACCEPT, [H.contentType]: 'application/json' });
    this.#session = new ClientSession(this.#plainBase, extra);
  }

  /** The session id the server assigned (stateful eras), if any. */
  get sessionId(): string | undefined {
    return this.#session.id;
  }

  /** The protocol version negotiated by `initialize` (stateful eras), if any. */
  get protocolVersion(): string | undefined {
    return this.#session.version;
  }

  /** Attaches the sink. No HTTP traffic happens until the first `send`. */
  start(sink: ChannelSink): Promise<void> {
    if (this.#sink !== undefined) return Promise.reject(new McpError(McpErrorCode.AlreadyStarted, 'The HTTP transport was already started'));
    if (this.#closing !== undefined) return Promise.reject(new McpError(McpErrorCode.ConnectionClosed, 'The HTTP transport is closed'));
    this.#sink = sink;
    return Promise.resolve();
  }

  /** POSTs one message (or a 2025-03-26 batch); see the class notes for what it resolves on. */
  async send(message: JsonRpcMessage | readonly JsonRpcMessage[], _options?: SendOptions): Promise<void> {
    if (this.#sink === undefined) throw new McpError(McpErrorCode.NotConnected, 'The HTTP transport is not started');
    if (this.#closing !== undefined) throw new McpError(McpErrorCode.ConnectionClosed, 'The HTTP transport is closed');
    const single = isBatch(message) ? undefined : message;
    let cancelled: Exchange | undefined;
    if (single !== undefined && 'method' in single && single.method === 'notifications/cancelled' && !('id' in single)) {
      const target = single.params?.['requestId'];
      cancelled = isRequestId(target) ? this.#requests.get(target) : undefined;
      if (cancelled?.modern === true || (cancelled === undefined && this.#session.version === undefined)) {
        // 2026-07-28 HTTP: closing the response stream is the cancellation.
        cancelled?.cancel.abort(new McpError(McpErrorCode.RequestCancelled, 'The request was cancelled'));
        return;
      }
    }
    const version = single === undefined ? undefined : metaProtocolVersion(single);
    const method = single !== undefined && 'method' in single ? single.method : '';
    let headers: HeaderMap;
    if (version !== undefined && single !== undefined) {
      headers = { ...this.#plainBase };
      addModernHeaders(single, version, headers, this.#tools);
    } else if (method === 'initialize') {
      this.#getStream?.abort(new McpError(McpErrorCode.ConnectionClosed, 'A new session is starting'));
      this.#session.reset();
      headers = this.#plainBase;
    } else {
      if (this.#session.expired) throw new McpError(McpErrorCode.SessionExpired, 'The session expired; initialize again');
      headers = this.#session.postHeaders;
    }
    const awaiting: RequestId[] = [];
    if (single === undefined) {
      for (const m of message as readonly JsonRpcMessage[]) if ('method' in m && isRequest(m)) awaiting.push(m.id);
    } else if ('method' in single && isRequest(single)) {
      awaiting.push(single.id);
      if (method === 'initialize') this.#watch.set(single.id, 'initialize');
      else if (method === 'tools/list') this.#watch.set(single.id, single.params?.['cursor'] === undefined ? 'list' : 'list+');
    }
    const requestId = awaiting.length === 1 && single !== undefined ? awaiting[0] : undefined;
    const exchange: Exchange = {
      cancel: new Cancellation(),
      awaiting,
      extra: requestId === undefined ? undefined : { [RELATED_REQUEST_ID]: requestId },
      method,
      modern: version !== undefined,
      limits: single === undefined || this.#session.allowsBatches ? this.#batchLimits : this.#limits,
      session: version === undefined ? headers[H.sessionId] : undefined,
      newSession: undefined,
    };
    this.#controllers.add(exchange.cancel);
    if (requestId !== undefined) this.#requests.set(requestId, exchange);
    try {
      await this.#post(exchange, JSON.stringify(message), headers);
    } catch (error) {
      throw this.#failure(error, exchange);
    } finally {
      this.#controllers.delete(exchange.cancel);
      if (requestId !== undefined) {
        this.#requests.delete(requestId);
        this.#watch.delete(requestId);
      }
      cancelled?.cancel.abort(new McpError(McpErrorCode.RequestCancelled, 'The request was cancelled'));
    }
  }

  /** Aborts every exchange and stream, DELETEs the session, closes the sink. Idempotent. */
  close(): Promise<void> {
    this.#closing ??= this.#shutdown();
    return this.#closing;
  }

  async #shutdown(): Promise<void> {
    const reason = new McpError(McpErrorCode.ConnectionClosed, 'The HTTP transport was closed');
    for (const controller of this.#controllers) controller.abort(reason);
    this.#controllers.clear();
    if (this.#session.id !== undefined) {
      try {
        const response = await this.#request('DELETE', this.#session.postHeaders, null, AbortSignal.timeout(DELETE_TIMEOUT_MS), false);
        discard(response);
        if (!response.ok && response.status !== 405) this.#logger.debug('session DELETE refused', { status: response.status });
      } catch (error) {
        this.#logger.debug('session DELETE failed', { error: String(error) });
      }
    }
    this.#session.reset();
    this.#sink?.closed();
  }

  async #post(exchange: Exchange, body: string, headers: HeaderMap): Promise<void> {
    const response = await this.#request('POST', headers, body, exchange.cancel, true);
    const status = response.status;
    if (status === 404 && exchange.session !== undefined) {
      discard(response);
      this.#expireSession(exchange.session);
      throw new McpError(McpErrorCode.SessionExpired, 'The server no longer knows the session (HTTP 404); initialize again', { cause: { status, body: '' } });
    }
    if (status < 200 || status > 299) return this.#refused(response, exchange);
    if (exchange.method === 'initialize') {
      const id = response.headers.get(H.sessionId);
      if (id !== null && isValidSessionId(id)) exchange.newSession = id;
      else if (id !== null) this.#logger.warn('ignored an invalid Mcp-Session-Id', { length: id.length });
    }
    if (exchange.awaiting.length === 0) {
      discard(response);
      if (exchange.method === 'notifications/initialized') this.#startGetStream();
      return;
    }
    const type = mediaType(response.headers.get(H.contentType));
    if (type === 'text/event-stream') {
      await this.#stream(response, exchange, exchange.cancel.signal);
    } else if (isJsonType(type)) {
      const max = exchange.limits.maxBytes ?? defaultDecodeLimits.maxBytes;
      // A body the fetch read whole is decoded now, without a turn of the event loop.
      this.#deliver(decodeFrame(takeBufferedBody(response) ?? (await readBody(response.body, max)), exchange.limits), exchange);
    } else {
      const text = lossyText(await readBody(response.body, MAX_ERROR_BODY));
      throw httpStatusError(status, text, `unexpected content type "${type}" in the answer to ${exchange.method}`);
    }
    if (exchange.awaiting.length > 0) {
      throw new McpError(McpErrorCode.InvalidResponse, `The server's answer held no response to ${exchange.method}`);
    }
  }

  /** A non-2xx answer: deliver its JSON-RPC error for the request, or fail with the status. */
  async #refused(response: Response, exchange: Exchange): Promise<void> {
    const bytes = await readResponse(response, Math.min(MAX_ERROR_BODY, exchange.limits.maxBytes ?? MAX_ERROR_BODY));
    const id = exchange.awaiting.length === 1 ? exchange.awaiting[0] : undefined;
    if (id !== undefined && bytes.byteLength > 0) {
      const frame = decodeFrame(bytes, this.#limits);
      if (!isBatchResult(frame) && frame.ok && isErrorResponse(frame.message) && (frame.message.id === id || frame.message.id === null)) {
        const message = frame.message.id === id ? frame.message : { ...frame.message, id };
        this.#deliver({ ok: true, message }, exchange);
        return;
      }
    }
    throw httpStatusError(response.status, lossyText(bytes), `no JSON-RPC answer to ${exchange.method || 'the message'}`, response.headers.get('www-authenticate'));
  }

  /** One HTTP request to the endpoint with auth (and its retries); see {@link authorizedFetch}. */
  #request(method: string, headers: HeaderMap, body: string | null, signal: AbortSignal | Cancellation, mayRetry: boolean): Promise<Response> {
    return authorizedFetch(this.#fetch, this.#auth, { method, url: this.#url, headers, body, signal, mayRetry, sink: this.#sink });
  }

  /** Follows an SSE body (resuming it when it drops); see {@link followSse}. */
  async #stream(first: Response | undefined, exchange: Exchange | undefined, signal: AbortSignal): Promise<void> {
    const limits = exchange?.limits ?? (this.#session.allowsBatches ? this.#batchLimits : this.#limits);
    const outcome = await followSse(first, {
      signal,
      retryMs: this.#retryMs,
      maxReconnects: this.#maxReconnects,
      maxBuffer: limits.maxBytes ?? defaultDecodeLimits.maxBytes,
      needsEventId: exchange !== undefined,
      onData: (data) => this.#deliver(decodeFrame(data, limits), exchange),
      done: () => exchange !== undefined && exchange.awaiting.length === 0,
      reconnect: (lastId) => this.#resume(lastId, signal),
    });
    if (outcome.done || exchange === undefined) return;
    throw new McpError(McpErrorCode.SendFailed, `The response stream for ${exchange.method} ended before the response arrived`, { cause: outcome.lastError });
  }

  /** GETs the SSE stream (resuming after `lastId` when set); undefined after a network failure. */
  async #resume(lastId: string, signal: AbortSignal): Promise<Response | undefined> {
    const headers = lastId === '' ? this.#session.getHeaders : { ...this.#session.getHeaders, [H.lastEventId]: lastId };
    let response: Response;
    try {
      response = await this.#request('GET', headers, null, signal, true);
    } catch (error) {
      if (signal.aborted) throw signal.reason;
      this.#logger.debug('SSE reconnection failed', { error: String(error) });
      return undefined;
    }
    const status = response.status;
    if (status === 404 && headers[H.sessionId] !== undefined) {
      discard(response);
      this.#expireSession(headers[H.sessionId]);
      throw new McpError(McpErrorCode.SessionExpired, 'The server no longer knows the session (HTTP 404); initialize again', { cause: { status, body: '' } });
    }
    if (status >= 200 && status <= 299 && mediaType(response.headers.get(H.contentType)) === 'text/event-stream') return response;
    const text = lossyText(await readBody(response.body, MAX_ERROR_BODY));
    throw httpStatusError(status, text, 'the GET stream could not be opened', response.headers.get('www-authenticate'));
  }

  #startGetStream(): void {
    if (!this.#openGet || this.#getStream !== undefined || this.#closing !== undefined || this.#session.version === undefined) return;
    const controller = new AbortController();
    this.#getStream = controller;
    this.#controllers.add(controller);
    const signal = controller.signal;
    const run = async (): Promise<void> => {
      const response = await this.#resume('', signal);
      await this.#stream(response, undefined, signal);
    };
    run()
      .catch((error: unknown) => {
        if (signal.aborted) return;
        const status = error instanceof McpError && error.code === McpErrorCode.HttpStatus ? (error.cause as { status: number }).status : undefined;
        if (status === 405) this.#logger.debug('the server offers no standalone GET stream');
        else this.#logger.warn('the standalone GET stream failed', { error: String(error) });
      })
      .finally(() => {
        this.#controllers.delete(controller);
        if (this.#getStream === controller) this.#getStream = undefined;
      });
  }

  /**
   * Hands a decoded frame to the sink, noting answered requests and watched results. A
   * message on a POST's stream carries that POST's request id as its related request
   * (`MessageExtra` {@link RELATED_REQUEST_ID}); one on the standalone GET stream carries `null`.
   */
  #deliver(frame: DecodeResult, exchange: Exchange | undefined): void {
    if (isBatchResult(frame)) for (const item of frame.batch) this.#note(item, exchange);
    else this.#note(frame, exchange);
    this.#sink?.receive(frame, exchange === undefined ? UNRELATED : exchange.extra);
  }

  #note(item: DecodedItem, exchange: Exchange | undefined): void {
    let id: RequestId | null;
    if (item.ok) {
      const message = item.message;
      if ('method' in message) return;
      id = message.id;
      if (id !== null && this.#watch.size > 0 && 'result' in message) this.#observe(id, message.result);
    } else {
      if (!item.isResponse) return;
      id = item.id;
    }
    if (id === null) return;
    // A response may also arrive on the standalone GET stream (resumption): find its exchange.
    const target = exchange ?? this.#requests.get(id);
    if (target === undefined) return;
    const index = target.awaiting.indexOf(id);
    if (index >= 0) target.awaiting.splice(index, 1);
  }

  #observe(id: RequestId, result: Record<string, unknown>): void {
    const watch = this.#watch.get(id);
    if (watch === undefined) return;
    this.#watch.delete(id);
    if (watch !== 'initialize') {
      this.#tools.observe(result, watch === 'list');
      return;
    }
    const version = result['protocolVersion'];
    if (typeof version !== 'string') return;
    this.#session.begin(version, this.#requests.get(id)?.newSession);
  }

  #expireSession(id: string | undefined): void {
    if (!this.#session.expire(id)) return;
    this.#logger.info('the server ended the session', {});
    this.#getStream?.abort(new McpError(McpErrorCode.SessionExpired, 'The session expired'));
  }

  #failure(error: unknown, exchange: Exchange): McpError {
    const cancel = exchange.cancel;
    if (cancel.aborted && cancel.reason instanceof McpError) return cancel.reason;
    if (error instanceof McpError) return error;
    const detail = describeError(error);
    return new McpError(McpErrorCode.SendFailed, `HTTP ${exchange.method || 'message'} failed: ${detail}`, { cause: error });
  }
}
