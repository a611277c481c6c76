/**
 * One stateless (2026-07-28) request in flight: the {@link DispatchEnv} the dispatcher sees,
 * and the switch from a pending JSON answer to a request-scoped SSE stream on the first
 * notification. Closing that stream (or the connection) cancels the request. Also the body
 * reader shared by the handler.
 *
 * @see https://modelcontextprotocol.io/specification/2026-07-28/basic/transports/streamable-http
 * @module
 */
import type { MessageExtra } from '../../../jsonrpc/channel.js';
import { ErrorCode, JsonRpcError } from '../../../jsonrpc/errors.js';
import type { JsonRpcNotification, JsonRpcRequest, JsonRpcResponse, RequestId } from '../../../jsonrpc/messages.js';
import type { Logger } from '../../../util/logger.js';
import { principalIn, type Principal } from '../../principal.js';
import type { DispatchEnv, McpDispatcher } from '../../types.js';
import { encodeSseComment, encodeSseJson } from '../sse.js';
import { PushSseStream } from './sseStream.js';
import type { HttpRequestBody, HttpRequestLike, HttpResponseLike } from './types.js';
import { httpStatusForError } from '../../../protocol/errors.js';
import { lacksRequiredMeta } from './validate.js';
import { concatBytes } from '../../../util/bytes.js';
import { LazyAbort } from '../../../util/lazyAbort.js';

const JSON_HEADERS: Readonly<Record<string, string>> = Object.freeze({ 'content-type': 'application/json' });
const SSE_HEADERS: Readonly<Record<string, string>> = Object.freeze({
  'content-type': 'text/event-stream',
  'cache-control': 'no-cache',
  'x-accel-buffering': 'no',
});

/**
 * Reads a body of any accepted shape; undefined when it exceeds `max`. Not `async`: a reader
 * function's promise (the Node adapter's) is returned as is, not wrapped in another.
 */
export function readBody(body: HttpRequestBody | undefined, max: number): Promise<Uint8Array | undefined> {
  if (body === undefined) return Promise.resolve(new Uint8Array(0));
  if (body instanceof Uint8Array) return Promise.resolve(body.byteLength > max ? undefined : body);
  try {
    if (typeof body === 'function') return Promise.resolve(body(max));
  } catch (error) {
    return Promise.reject(error);
  }
  return readChunks(body, max);
}

async function readChunks(body: AsyncIterable<Uint8Array>, max: number): Promise<Uint8Array | undefined> {
  const chunks: Uint8Array[] = [];
  let total = 0;
  for await (const chunk of body) {
    total += chunk.byteLength;
    if (total > max) return undefined;
    chunks.push(chunk);
  }
  return concatBytes(chunks, total);
}

/**
 * One request in flight: the {@link DispatchEnv} the dispatcher sees, and the switch from a
 * pending JSON answer to an SSE stream on the first notification.
 */
export class Exchange extends LazyAbort implements DispatchEnv {
  readonly extra: MessageExtra;
  readonly principal: Principal | undefined;
  readonly #parent: AbortSignal | undefined;
  readonly #keepAliveMs: number;
  readonly #maxSseBufferedBytes: number;
  #state: 0 | 1 | 2 = 0; // 0 pending, 1 streaming, 2 done
  #stream: PushSseStream | undefined;
  #timer: ReturnType<typeof setInterval> | undefined;
  #resolve: ((response: HttpResponseLike) => void) | undefined;

  constructor(req: HttpRequestLike, extra: MessageExtra, keepAliveMs: number, maxSseBufferedBytes: number) {
    super();
    this.extra = extra;
    this.principal = principalIn(extra);
    this.#keepAliveMs = keepAliveMs;
    this.#maxSseBufferedBytes = maxSseBufferedBytes;
    const parent = req.signal;
    this.#parent = parent;
    if (parent !== undefined) {
      if (parent.aborted) this.abort(parent.reason);
      else parent.addEventListener('abort', this.#onParentAbort, { once: true });
    }
    req.onAbort?.((reason) => this.abort(reason));
  }

  readonly #onParentAbort = (): void => {
    this.abort(this.#parent?.reason);
  };

  /** {@inheritDoc DispatchEnv.notify} */
  readonly notify = (notification: JsonRpcNotification): void => {
    if (this.#state === 2) return;
    if (this.#state === 0) {
      const resolve = this.#resolve;
      if (resolve === undefined) return; // before dispatch (e.g. from toolHeaders): nothing to attach to
      this.#state = 1;
      const stream = new PushSseStream((reason) => this.abort(reason), this.#maxSseBufferedBytes);
      this.#stream = stream;
      stream.write(encodeSseJson(notification));
      if (this.#keepAliveMs > 0) {
        const comment = encodeSseComment();
        const timer = setInterval(() => stream.write(comment), this.#keepAliveMs);
        // Do not keep a Node process alive just for keep-alives.
        (timer as { unref?: () => void }).unref?.();
        this.#timer = timer;
      }
      resolve({ status: 200, headers: SSE_HEADERS, body: stream });
      return;
    }
    this.#stream?.write(encodeSseJson(notification));
  };

  /** Dispatches and resolves with the JSON answer, or with the SSE response at the first notification. */
  run(
    dispatcher: McpDispatcher,
    message: JsonRpcRequest,
    logger: Logger,
  ): Promise<HttpResponseLike> {
    return new Promise<HttpResponseLike>((resolve) => {
      this.#resolve = resolve;
      let dispatched: Promise<JsonRpcResponse | undefined>;
      try {
        dispatched = dispatcher.dispatch(message, this);
      } catch (e) {
        dispatched = Promise.reject(e);
      }
      dispatched.then(
        (response) => this.#finish(response ?? internalErrorResponse(message.id), message),
        (error: unknown) => {
          logger.error('dispatcher rejected; answering -32603', { method: message.method, error: String(error) });
          this.#finish(internalErrorResponse(message.id), message);
        },
      );
    });
  }

  #finish(response: JsonRpcResponse, message: JsonRpcRequest): void {
    const state = this.#state;
    this.#state = 2;
    this.#cleanup();
    if (state === 0) {
      let status = 200;
      if ('error' in response) {
        const code = response.error.code;
        status = httpStatusForError(code, code === ErrorCode.InvalidParams && lacksRequiredMeta(message));
      }
      this.#resolve?.({ status, headers: JSON_HEADERS, body: JSON.stringify(response) });
    } else if (state === 1) {
      const stream = this.#stream as PushSseStream;
      if (!this.aborted) stream.write(encodeSseJson(response));
      stream.close();
    }
  }

  /** Aborts the request (client gone, stream cut, parent signal): also ends its stream. Idempotent. */
  override abort(reason: unknown): void {
    if (this.aborted) return;
    super.abort(reason);
    if (this.#state === 1) {
      // Nothing more may be sent for a request cancelled by stream close.
      this.#state = 2;
      this.#stream?.cancel(reason);
    }
    this.#cleanup();
  }

  /** Releases the parent-signal listener and timers (for exchanges that never {@link run}). */
  dispose(): void {
    this.#state = 2;
    this.#cleanup();
  }

  #cleanup(): void {
    if (this.#timer !== undefined) {
      clearInterval(this.#timer);
      this.#timer = undefined;
    }
    this.#parent?.removeEventListener('abort', this.#onParentAbort);
  }
}

function internalErrorResponse(id: RequestId): JsonRpcResponse {
  return { jsonrpc: '2.0', id, error: JsonRpcError.internal().toJSON() };
}

/** True for promises and other thenables. */
export function isThenable<T>(value: unknown): value is PromiseLike<T> {
  return typeof value === 'object' && value !== null && typeof (value as { then?: unknown }).then === 'function';
}
