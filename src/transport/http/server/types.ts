/**
 * The minimal, allocation-light request and response shapes the Streamable HTTP server core
 * works on. Adapters (Node `http`, the web `fetch` entry) translate to and from them, so the
 * hot path never builds WHATWG `Request`/`Response` objects.
 *
 * @see https://modelcontextprotocol.io/specification/2026-07-28/basic/transports/streamable-http
 * @module
 */

/** Reads one request header by its lowercase name; undefined when absent. */
export type HeaderGetter = (lowercaseName: string) => string | undefined;

/**
 * Reads the whole body, stopping as soon as it exceeds `maxBytes`. Resolves with the bytes,
 * or with `undefined` when the body was too large (the reader stops consuming it).
 */
export type BodyReader = (maxBytes: number) => Promise<Uint8Array | undefined>;

/** A request body: bytes already in memory, a stream of chunks, or a reader that enforces the limit itself. */
export type HttpRequestBody = Uint8Array | AsyncIterable<Uint8Array> | BodyReader;

/** One incoming HTTP request, as the core sees it. */
export interface HttpRequestLike {
  /** The method, uppercase (`POST`). */
  readonly method: string;
  /** The URL path (no query), for logging and routing hooks. */
  readonly path: string;
  /**
   * The raw query string without `?`, when the URL has one. Read by the `auth` option (an
   * `access_token` there is refused: MCP forbids tokens in URLs) and by `authFetchHandler`.
   */
  readonly query?: string | undefined;
  /** The headers, looked up by lowercase name. Multiple values are joined with `, `. */
  readonly header: HeaderGetter;
  /** The body; absent for methods without one. Read at most once. */
  readonly body?: HttpRequestBody;
  /** Aborted when the client goes away (connection closed, response stream cancelled). */
  readonly signal?: AbortSignal;
  /**
   * The client's network address, when the adapter knows it (Node: the socket's). Counts the
   * sessions of callers without a principal (`maxSessionsPerPrincipal`); never trusted from a header.
   */
  readonly remoteAddress?: string | undefined;
  /**
   * A cheaper alternative to `signal` for adapters: registers the one listener to call when
   * the client goes away (call it at once if it already has). On Node 20 merely creating an
   * `AbortSignal` costs several microseconds, so the hot path avoids it.
   */
  readonly onAbort?: (listener: (reason: unknown) => void) => void;
}

/** Where an {@link SseStream} writes. Adapters implement it over their own output. */
export interface SseSink {
  /** Writes encoded SSE text; the adapter should send it without buffering. */
  write(chunk: string): void;
  /** Ends the response. Called at most once. */
  end(): void;
  /**
   * Bytes written but not yet taken by the network (Node: `res.writableLength`). When the
   * adapter provides it, a stream whose reader falls further behind than the handler's
   * `maxSseBufferedBytes` is cut instead of growing memory without bound.
   */
  buffered?(): number;
  /** Drops the response at once, discarding what is still buffered (used with {@link buffered}). */
  abort?(reason: unknown): void;
}

/**
 * A push-based SSE response body. The adapter sends the status and headers, then calls
 * {@link SseStream.start} once; events produced before that are queued and written first.
 */
export interface SseStream {
  /** Discriminates the SSE body from a plain one. */
  readonly kind: 'sse';
  /** Attaches the output. Called once, after the headers are sent. */
  start(sink: SseSink): void;
  /**
   * The client went away: abort the request's `DispatchEnv.signal` and write nothing more.
   * Idempotent; adapters that abort {@link HttpRequestLike.signal} need not call it.
   */
  cancel(reason?: unknown): void;
}

/** The response the core produces. */
export interface HttpResponseLike {
  /** The HTTP status code. */
  readonly status: number;
  /** Response headers with lowercase names. `content-length` is left to the adapter. */
  readonly headers: Readonly<Record<string, string>>;
  /** Absent for an empty body (202, 405 ...), text or bytes for JSON, or an SSE stream. */
  readonly body?: string | Uint8Array | SseStream;
}

/** True when a response body is an {@link SseStream}. */
export function isSseStream(body: HttpResponseLike['body']): body is SseStream {
  return typeof body === 'object' && body !== null && !(body instanceof Uint8Array) && body.kind === 'sse';
}

/**
 * Transport facts the handler puts into `DispatchEnv.extra.http`, next to whatever the
 * `extra` option adds.
 */
export interface HttpExtra {
  /** The request's headers, by lowercase name. */
  readonly getHeader: HeaderGetter;
  /** The HTTP method. */
  readonly method: string;
  /** The URL path. */
  readonly path: string;
}

/**
 * Extra endpoints served beside the MCP endpoint (health checks, an admin API, a web page):
 * the handler's `mounts` option. They run after the handler's `Host`/`Origin` policy and
 * before its MCP routing and MCP authentication (a mount has its own credential, or none).
 */
export interface MountedRoutes {
  /** True for a path this mount answers (then no other route sees the request). */
  owns(path: string): boolean;
  /** Answers a request whose path it owns; undefined is a 404. */
  handle(request: HttpRequestLike): Promise<HttpResponseLike | undefined>;
}
