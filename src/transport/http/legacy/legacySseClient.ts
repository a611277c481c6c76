/**
 * The client side of the deprecated HTTP+SSE transport of protocol revision 2024-11-05, for
 * servers that only expose an SSE endpoint. The client opens `GET <url>` as an event stream;
 * the server's first event, `endpoint`, names the URI the client POSTs its messages to; every
 * server→client message (responses, requests, notifications) arrives as a `message` event on
 * the stream.
 *
 * This is a transport only: the JSON-RPC messages it carries are those of whatever revision
 * the client and server negotiate through `initialize`.
 *
 * @see https://modelcontextprotocol.io/specification/2024-11-05/basic/transports#http-with-sse
 * @see https://modelcontextprotocol.io/specification/2025-03-26/basic/transports#backwards-compatibility
 * @module
 */
import type { ChannelSink, SendOptions } from '../../../jsonrpc/channel.js';
import { decodeFrame, defaultDecodeLimits, type DecodeLimits } from '../../../jsonrpc/decode.js';
import type { JsonRpcMessage } from '../../../jsonrpc/messages.js';
import { McpError, McpErrorCode, describeError } from '../../../util/errors.js';
import { silentLogger, type Logger } from '../../../util/logger.js';
import type { Transport } from '../../types.js';
import { authHooksOf, authorizedFetch, type ClientAuthHooks } from '../client/clientAuth.js';
import { H, type HeaderMap } from '../client/clientHeaders.js';
import type { FetchLike, StreamableHttpClientOptions } from '../client/clientOptions.js';
import { ERROR_BODY_SNIPPET, httpStatusError, lossyText, mediaType, pumpSse, readBody } from '../client/clientStream.js';
import { SseBufferOverflowError, SseParser, type SseEvent } from '../sse.js';

/** Options for a {@link LegacySseClientTransport}; the shared ones mean what they mean for Streamable HTTP. */
export interface LegacySseClientOptions
  extends Pick<StreamableHttpClientOptions, 'fetch' | 'headers' | 'authorize' | 'authorizationHeaders' | 'onUnauthorized' | 'limits' | 'logger'> {
  /** The server's SSE endpoint (often `…/sse`). */
  readonly url: string | URL;
  /** How long `start()` waits for the stream to open and name its `endpoint`, in ms; 0 waits forever. Default 10,000. */
  readonly connectTimeoutMs?: number;
}

/** How much of a 2xx POST answer is read (so the connection can be reused) before it is cancelled. */
const MAX_ACK_BODY = 64 * 1024;

type State = 'new' | 'starting' | 'open' | 'closed';

/**
 * A {@link Transport} to a server speaking the HTTP+SSE transport of revision 2024-11-05.
 *
 * - `start()` opens the SSE stream and resolves once the server's `endpoint` event named
 *   where to POST. It rejects (and closes the sink with the same reason) with
 *   `ERR_MCP_HTTP_STATUS` (non-2xx or not an event stream; `cause` is `HttpStatusCause`),
 *   `ERR_MCP_SEND_FAILED` (network failure), `ERR_MCP_REQUEST_TIMEOUT` (no `endpoint` within
 *   `connectTimeoutMs`), `ERR_MCP_INVALID_RESPONSE` (an unusable endpoint, including one on
 *   another origin than the SSE URL: the client never sends its messages and credentials to
 *   a host the user did not name), or `ERR_MCP_CONNECTION_CLOSED` (the stream ended first).
 * - Each `message` event is decoded with `limits` and handed to the sink; other events are
 *   ignored. An event larger than `limits.maxBytes` characters closes the transport with
 *   `ERR_MCP_LIMIT_EXCEEDED`; the stream ending or failing closes it with
 *   `ERR_MCP_CONNECTION_CLOSED`. Either way the sink learns the reason.
 * - `send()` POSTs one message as JSON to the endpoint and resolves on a 2xx answer (the
 *   answer itself comes on the stream); otherwise it rejects with `ERR_MCP_HTTP_STATUS`,
 *   `ERR_MCP_SEND_FAILED` or, once closed, `ERR_MCP_CONNECTION_CLOSED`.
 * - `close()` aborts the stream and every POST under way and closes the sink. Idempotent.
 *
 * @example
 * ```ts
 * const client = new McpClient({ name: 'my-host', version: '1.0.0' }, { era: 'stateful' });
 * await client.connect(new LegacySseClientTransport({ url: 'https://example.com/sse' }));
 * ```
 */
export class LegacySseClientTransport implements Transport {
  readonly #url: URL;
  readonly #fetch: FetchLike;
  readonly #auth: ClientAuthHooks;
  readonly #limits: DecodeLimits;
  readonly #logger: Logger;
  readonly #connectTimeoutMs: number;
  readonly #getHeaders: HeaderMap;
  readonly #postHeaders: HeaderMap;
  readonly #stream = new AbortController();
  readonly #posts = new Set<AbortController>();
  #state: State = 'new';
  #sink: ChannelSink | undefined;
  #endpoint: string | undefined;
  #closeReason: Error | undefined;
  #ready: { resolve(): void; reject(error: Error): void } | undefined;

  /** Throws `ERR_MCP_INVALID_ARGUMENT` when `url` is not an absolute http(s) URL. */
  constructor(options: LegacySseClientOptions) {
    let url: URL;
    try {
      url = new URL(String(options.url));
    } catch (error) {
      throw new McpError(McpErrorCode.InvalidArgument, `Invalid SSE URL ${JSON.stringify(String(options.url))}`, { cause: error });
    }
    if (url.protocol !== 'http:' && url.protocol !== 'https:') throw new McpError(McpErrorCode.InvalidArgument, `The SSE URL must be http(s), not ${url.protocol}`);
    this.#url = url;
    this.#fetch = options.fetch ?? ((u, init) => fetch(u, init));
    this.#auth = authHooksOf(options);
    this.#limits = options.limits ?? defaultDecodeLimits;
    this.#logger = options.logger ?? silentLogger;
    this.#connectTimeoutMs = options.connectTimeoutMs ?? 10_000;
    const extra: HeaderMap = {};
    for (const [name, value] of Object.entries(options.headers ?? {})) extra[name.toLowerCase()] = value;
    this.#getHeaders = Object.freeze({ ...extra, [H.accept]: 'text/event-stream' });
    this.#postHeaders = Object.freeze({ ...extra, [H.contentType]: 'application/json' });
  }

  /** The absolute URL messages are POSTed to, once the server named it. */
  get endpoint(): string | undefined {
    return this.#endpoint;
  }

  /** Opens the SSE stream; resolves once the `endpoint` event arrived (see the class notes). */
  async start(sink: ChannelSink): Promise<void> {
    if (this.#sink !== undefined) throw new McpError(McpErrorCode.AlreadyStarted, 'The SSE transport was already started');
    if (this.#state === 'closed') throw new McpError(McpErrorCode.ConnectionClosed, 'The SSE transport is closed');
    this.#sink = sink;
    this.#state = 'starting';
    const ready = new Promise<void>((resolve, reject) => (this.#ready = { resolve, reject }));
    const ms = this.#connectTimeoutMs;
    const timer =
      ms > 0
        ? setTimeout(() => this.#finish(new McpError(McpErrorCode.RequestTimeout, `The server named no message endpoint within ${ms} ms`)), ms)
        : undefined;
    void this.#run();
    try {
      await ready;
    } finally {
      clearTimeout(timer);
    }
  }

  /** POSTs one message to the endpoint; resolves on a 2xx answer (see the class notes). */
  async send(message: JsonRpcMessage | readonly JsonRpcMessage[], _options?: SendOptions): Promise<void> {
    if (this.#state === 'closed') {
      const why = this.#closeReason === undefined ? 'the transport is closed' : this.#closeReason.message;
      throw new McpError(McpErrorCode.ConnectionClosed, `Cannot send: ${why}`, { cause: this.#closeReason });
    }
    const endpoint = this.#endpoint;
    if (endpoint === undefined) throw new McpError(McpErrorCode.NotConnected, 'The SSE transport has no message endpoint yet (not started)');
    const what = Array.isArray(message) ? 'a batch' : 'method' in message ? message.method : 'a response';
    const controller = new AbortController();
    this.#posts.add(controller);
    const signal = controller.signal;
    try {
      const response = await authorizedFetch(this.#fetch, this.#auth, {
        method: 'POST',
        url: endpoint,
        headers: this.#postHeaders,
        body: JSON.stringify(message),
        signal,
        mayRetry: true,
        sink: this.#sink,
      });
      if (response.status >= 200 && response.status <= 299) {
        // Read the short acknowledgement ("Accepted") so the connection goes back to the pool.
        await readBody(response.body, MAX_ACK_BODY).catch(() => undefined);
        return;
      }
      const text = lossyText(await readBody(response.body, ERROR_BODY_SNIPPET));
      throw httpStatusError(response.status, text, `the server refused ${what}`, response.headers.get('www-authenticate'));
    } catch (error) {
      if (signal.aborted && signal.reason instanceof McpError) throw signal.reason;
      if (error instanceof McpError) throw error;
      const detail = describeError(error);
      throw new McpError(McpErrorCode.SendFailed, `HTTP POST of ${what} failed: ${detail}`, { cause: error });
    } finally {
      this.#posts.delete(controller);
    }
  }

  /** Aborts the stream and every POST under way; the sink is closed without a reason. Idempotent. */
  close(): Promise<void> {
    this.#finish(undefined);
    return Promise.resolve();
  }

  /** Opens the stream and reads it to its end; every failure ends in {@link #finish}. */
  async #run(): Promise<void> {
    const signal = this.#stream.signal;
    let response: Response;
    try {
      response = await authorizedFetch(this.#fetch, this.#auth, { method: 'GET', url: this.#url.href, headers: this.#getHeaders, body: null, signal, mayRetry: true, sink: this.#sink });
      const type = mediaType(response.headers.get(H.contentType));
      if (response.status < 200 || response.status > 299 || type !== 'text/event-stream') {
        const text = lossyText(await readBody(response.body, ERROR_BODY_SNIPPET));
        const why = response.ok ? `the SSE endpoint answered with content type "${type}"` : 'the SSE stream could not be opened';
        throw httpStatusError(response.status, text, why, response.headers.get('www-authenticate'));
      }
    } catch (error) {
      if (this.#state === 'closed') return;
      const detail = describeError(error);
      this.#finish(error instanceof McpError ? error : new McpError(McpErrorCode.SendFailed, `Could not open the SSE stream: ${detail}`, { cause: error }));
      return;
    }
    const max = this.#limits.maxBytes ?? defaultDecodeLimits.maxBytes;
    const parser = new SseParser({ onEvent: (event) => this.#onEvent(event), maxBufferLength: max });
    const outcome = await pumpSse(response.body, parser, () => this.#state === 'closed');
    if (this.#state === 'closed') return;
    const error = outcome.error;
    if (error instanceof SseBufferOverflowError) {
      this.#finish(new McpError(McpErrorCode.LimitExceeded, `The server sent an SSE event larger than the limit: ${error.message}`, { cause: error }));
    } else if (error !== undefined) {
      const detail = describeError(error);
      this.#finish(new McpError(McpErrorCode.ConnectionClosed, `The SSE stream failed: ${detail}`, { cause: error }));
    } else {
      this.#finish(new McpError(McpErrorCode.ConnectionClosed, 'The server ended the SSE stream'));
    }
  }

  #onEvent(event: SseEvent): void {
    if (this.#state === 'closed') return;
    if (event.event === 'endpoint') {
      this.#onEndpoint(event.data);
      return;
    }
    if (event.event !== 'message') {
      this.#logger.debug('ignored an SSE event', { event: event.event });
      return;
    }
    if (event.data === '') return;
    const frame = decodeFrame(event.data, this.#limits);
    if (!frame.ok && !('batch' in frame)) this.#logger.warn('the server sent an invalid JSON-RPC message', { error: frame.error.message });
    try {
      this.#sink?.receive(frame);
    } catch (error) {
      this.#logger.error('the sink threw while receiving a frame', { error: String(error) });
    }
  }

  /**
   * Accepts the first `endpoint` event: a URI resolved against the SSE URL, which must keep
   * its origin (scheme, host and port).
   */
  #onEndpoint(data: string): void {
    if (this.#endpoint !== undefined) {
      this.#logger.warn('ignored a second endpoint event', {});
      return;
    }
    let url: URL;
    try {
      url = new URL(data.trim(), this.#url);
    } catch (error) {
      this.#finish(new McpError(McpErrorCode.InvalidResponse, 'The server named an invalid message endpoint', { cause: { endpoint: data, error } }));
      return;
    }
    if (url.origin !== this.#url.origin) {
      this.#finish(
        new McpError(
          McpErrorCode.InvalidResponse,
          `Refused the message endpoint on ${url.origin}: it must be on the SSE URL's origin ${this.#url.origin}, or messages and credentials would go to another server`,
          { cause: { endpoint: data } },
        ),
      );
      return;
    }
    url.hash = '';
    this.#endpoint = url.href;
    this.#state = 'open';
    this.#ready?.resolve();
    this.#ready = undefined;
  }

  /** Closes for good: `reason` undefined for `close()`, else why the stream was lost. */
  #finish(reason: Error | undefined): void {
    if (this.#state === 'closed') return;
    this.#state = 'closed';
    this.#closeReason = reason;
    const abort = reason ?? new McpError(McpErrorCode.ConnectionClosed, 'The SSE transport was closed');
    this.#stream.abort(abort);
    for (const post of this.#posts) post.abort(abort);
    this.#posts.clear();
    this.#ready?.reject(abort);
    this.#ready = undefined;
    this.#sink?.closed(reason);
  }
}
