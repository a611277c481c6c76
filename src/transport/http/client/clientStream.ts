/**
 * Body plumbing for the Streamable HTTP client: bounded reads of JSON bodies, pumping an SSE
 * body through an incremental {@link SseParser}, abortable delays and the local errors the
 * client raises for HTTP failures. No JSON-RPC correlation happens here.
 *
 * @see https://modelcontextprotocol.io/specification/2026-07-28/basic/transports/streamable-http
 * @module
 */
import { sleep } from '../../../util/time.js';
import { McpError, McpErrorCode } from '../../../util/errors.js';
import { SseBufferOverflowError, SseParser } from '../sse.js';
import { concatBytes } from '../../../util/bytes.js';

/** How much of an error body is kept in {@link HttpStatusCause.body}. */
export const ERROR_BODY_SNIPPET = 4096;

/** The `cause` of an `ERR_MCP_HTTP_STATUS` error. */
export interface HttpStatusCause {
  /** The HTTP status. */
  readonly status: number;
  /** The first 4 KiB of the response body (UTF-8, lossy). */
  readonly body: string;
  /** The `WWW-Authenticate` header, when the server sent one. */
  readonly wwwAuthenticate?: string;
}

/** Builds the `ERR_MCP_HTTP_STATUS` error for a response without a usable JSON-RPC answer. */
export function httpStatusError(status: number, body: string, why: string, wwwAuthenticate?: string | null): McpError {
  const cause: HttpStatusCause =
    wwwAuthenticate === undefined || wwwAuthenticate === null
      ? { status, body: body.slice(0, ERROR_BODY_SNIPPET) }
      : { status, body: body.slice(0, ERROR_BODY_SNIPPET), wwwAuthenticate };
  return new McpError(McpErrorCode.HttpStatus, `HTTP ${status}: ${why}`, { cause });
}

/** The lower-cased media type of a response (`text/event-stream`), without parameters. */
export function mediaType(contentType: string | null): string {
  if (contentType === null) return '';
  const semi = contentType.indexOf(';');
  return (semi < 0 ? contentType : contentType.slice(0, semi)).trim().toLowerCase();
}

/** True for `application/json` and `application/*+json`. */
export function isJsonType(type: string): boolean {
  return type === 'application/json' || (type.startsWith('application/') && type.endsWith('+json'));
}

/**
 * The key of a method a `fetch` may put on the responses whose body it already read whole
 * (`nodeFetch` does for sized JSON answers): it hands the bytes over once, or `undefined` when
 * the body was already read or streamed. {@link readResponse} uses it to skip the web stream.
 */
export const TAKE_BUFFERED_BODY = Symbol('switchboard.takeBufferedBody');

/** A response that may carry its body as bytes (see {@link TAKE_BUFFERED_BODY}). */
interface MaybeBuffered {
  readonly [TAKE_BUFFERED_BODY]?: () => Uint8Array | undefined;
}

/**
 * {@link readBody} of a response's body, or its buffered bytes when the fetch already read it
 * whole (more than `max` bytes come back whole: the decoder reports the oversize frame).
 */
export function readResponse(response: Response, max: number): Promise<Uint8Array> {
  const bytes = takeBufferedBody(response);
  return bytes !== undefined ? Promise.resolve(bytes) : readBody(response.body, max);
}

/** The bytes of a response whose `fetch` read it whole (see {@link TAKE_BUFFERED_BODY}), once; else undefined. */
export function takeBufferedBody(response: Response): Uint8Array | undefined {
  return (response as MaybeBuffered)[TAKE_BUFFERED_BODY]?.();
}

/**
 * Reads a body into one buffer, stopping (and cancelling the rest) once it holds more than
 * `max` bytes; the caller's decoder then reports the oversize frame.
 */
export async function readBody(body: ReadableStream<Uint8Array> | null, max: number): Promise<Uint8Array> {
  if (body === null) return new Uint8Array(0);
  const reader = body.getReader();
  const chunks: Uint8Array[] = [];
  let total = 0;
  try {
    for (;;) {
      const { done, value } = await reader.read();
      if (done) break;
      chunks.push(value);
      total += value.byteLength;
      if (total > max) {
        await reader.cancel().catch(() => undefined);
        break;
      }
    }
  } finally {
    reader.releaseLock();
  }
  return concatBytes(chunks, total);
}

/** Decodes bytes as UTF-8, replacing invalid sequences (for error snippets). */
export function lossyText(bytes: Uint8Array): string {
  return new TextDecoder('utf-8').decode(bytes);
}

/** Drops a body we will not read, without letting a failure escape. */
export function discard(response: Response): void {
  if (response.body !== null) response.body.cancel().catch(() => undefined);
}

/** How an SSE body ended. */
export interface PumpResult {
  /** The read error (network failure, abort, parser overflow), or undefined at a clean end. */
  readonly error: unknown;
  /** True when `stop()` asked to stop early (the reader was cancelled). */
  readonly stopped: boolean;
}

/**
 * Feeds an SSE body to `parser` chunk by chunk, so events are delivered as they arrive.
 * After each chunk `afterChunk()` runs; when it returns true the rest of the body is
 * cancelled. Never rejects.
 */
export async function pumpSse(body: ReadableStream<Uint8Array> | null, parser: SseParser, afterChunk: () => boolean): Promise<PumpResult> {
  if (body === null) return { error: undefined, stopped: false };
  const reader = body.getReader();
  try {
    for (;;) {
      const { done, value } = await reader.read();
      if (done) {
        parser.end();
        return { error: undefined, stopped: false };
      }
      parser.push(value);
      if (afterChunk()) {
        await reader.cancel().catch(() => undefined);
        return { error: undefined, stopped: true };
      }
    }
  } catch (error) {
    reader.cancel().catch(() => undefined);
    return { error, stopped: false };
  } finally {
    reader.releaseLock();
  }
}


/** What {@link followSse} needs from its caller. */
export interface FollowContext {
  /** Aborts the whole exchange (reads, delays, reconnections). */
  readonly signal: AbortSignal;
  /** Reconnection delay until the server sends `retry:`. */
  readonly retryMs: number;
  /** Reconnections in a row without progress before giving up. */
  readonly maxReconnects: number;
  /** Largest SSE line or event, in UTF-16 code units. */
  readonly maxBuffer: number;
  /** A request's stream is only resumable once an event id was seen; the standalone GET stream always is. */
  readonly needsEventId: boolean;
  /** Handles the `data` of one `message` event (non-empty). */
  onData(data: string): void;
  /** True once everything awaited on this stream arrived: stop reading. */
  done(): boolean;
  /** Opens `GET` (+ `Last-Event-ID` when set); undefined after a network failure (counts as a miss). */
  reconnect(lastEventId: string): Promise<Response | undefined>;
}

/**
 * Reads an SSE body, handing each message event to `onData` as it arrives. When the body
 * ends before `done()`, waits the `retry` delay (the server's, else the default) and resumes
 * with `GET` + `Last-Event-ID`, up to `maxReconnects` times in a row without progress (a new
 * event id or any event). Resolves true when `done()`, false when it gave up (the last read
 * error, if any, in `lastError`); rejects with the signal's reason on abort and with
 * `ERR_MCP_LIMIT_EXCEEDED` when an event outgrows the buffer.
 *
 * @see https://modelcontextprotocol.io/specification/2025-11-25/basic/transports#resumability-and-redelivery
 */
export async function followSse(first: Response | undefined, ctx: FollowContext): Promise<{ done: boolean; lastError: unknown }> {
  let response = first;
  let lastId = '';
  let retryMs = ctx.retryMs;
  let misses = 0;
  let lastError: unknown;
  for (;;) {
    let progressed = false;
    if (response !== undefined) {
      const parser = new SseParser({
        onEvent: (event) => {
          progressed = true;
          if (event.event === 'message' && event.data !== '') ctx.onData(event.data);
        },
        onRetry: (ms) => {
          retryMs = ms;
        },
        maxBufferLength: ctx.maxBuffer,
      });
      const result = await pumpSse(response.body, parser, () => {
        const id = parser.lastEventId;
        if (id !== '' && id !== lastId) {
          lastId = id;
          progressed = true;
        }
        return ctx.done();
      });
      if (ctx.done()) return { done: true, lastError: undefined };
      if (ctx.signal.aborted) throw ctx.signal.reason;
      lastError = result.error;
      if (lastError instanceof SseBufferOverflowError) throw new McpError(McpErrorCode.LimitExceeded, lastError.message, { cause: lastError });
    }
    if (progressed) misses = 0;
    if ((ctx.needsEventId && lastId === '') || misses >= ctx.maxReconnects) return { done: false, lastError };
    misses++;
    await sleep(retryMs, ctx.signal);
    response = await ctx.reconnect(lastId);
  }
}
