/**
 * The deprecated HTTP+SSE transport of revision 2024-11-05, served by the Streamable HTTP
 * handler for older clients that only know it (the `legacySse` option):
 *
 * | Request | Answer |
 * |---|---|
 * | `GET <path>` (`Accept: text/event-stream`) | new session; SSE stream whose first event is `event: endpoint`, data `<messagesPath>?sessionId=<id>`; 503 + `Retry-After` at `maxSessions` |
 * | `POST <messagesPath>?sessionId=<id>` with one JSON-RPC message | 202, empty; every server→client message goes on the stream as `event: message` |
 * | POST without `sessionId` | 400 |
 * | POST for an unknown, ended or foreign (principal) session | 404 |
 * | POST not `application/json` / larger than `maxBodyBytes` / malformed or a batch | 415 / 413 / 400 (as SDK v1's `SSEServerTransport`: nothing goes on the stream) |
 *
 * The sessions are those of the stateful path (`stateful.ts`): created through
 * `dispatcher.createSession`, bound to the principal that opened the GET, counted against
 * `maxSessions`, dispatched with the same request tracking (`statefulPost.ts`). What differs is
 * only where messages go: one stream per session, carrying every response, server→client
 * request and notification. Closing that stream ends the session (in-flight handlers are
 * aborted). The messages follow the revision `initialize` negotiates.
 *
 * @see https://modelcontextprotocol.io/specification/2024-11-05/basic/transports#http-with-sse
 * @module
 */
import type { MessageExtra } from '../../../jsonrpc/channel.js';
import { decodeFrame, isBatchResult, type DecodeLimits, type DecodeResult } from '../../../jsonrpc/decode.js';
import { ErrorCode, JsonRpcError } from '../../../jsonrpc/errors.js';
import type { JsonRpcMessage, JsonRpcNotification, JsonRpcResponse, Params, RequestId } from '../../../jsonrpc/messages.js';
import type { Logger } from '../../../util/logger.js';
import { spreadCopy } from '../../../util/object.js';
import type { McpDispatcher } from '../../types.js';
import { readBody } from '../server/exchange.js';
import { encodeSseComment } from '../sse.js';
import { HttpSession, type MessageTarget, type SessionSettings } from '../server/sessions.js';
import { PushSseStream } from '../server/sseStream.js';
import { noRoomAnswer, type StatefulHttp } from '../server/stateful.js';
import { dispatchSessionRequest, sessionRequestEnv, type RequestEnv } from '../server/statefulPost.js';
import type { HttpRequestLike, HttpResponseLike } from '../server/types.js';
import { acceptsSse, isJsonContentType } from '../server/validate.js';

/** The `legacySse` option of `createStreamableHttpHandler`. */
export interface LegacySseOptions {
  /** The path of the SSE stream a client opens with GET (e.g. `/sse`). */
  readonly path: string;
  /** The path clients POST their messages to (e.g. `/messages`); the endpoint event names it with `?sessionId=`. */
  readonly messagesPath: string;
}

/** What the legacy endpoint needs from the handler. */
export interface LegacySseContext {
  /** The stateful path whose sessions it shares. */
  readonly sessions: StatefulHttp;
  /** The server. */
  readonly dispatcher: McpDispatcher;
  /** Diagnostics. */
  readonly logger: Logger;
  /** Largest POST body (bytes). */
  readonly maxBodyBytes: number;
  /** The handler's decoder limits (no batches). */
  readonly limits: DecodeLimits;
  /** Builds `DispatchEnv.extra` for a request (the handler's `extra` hook, `http`, the principal). */
  readonly extra: (req: HttpRequestLike) => Promise<MessageExtra>;
  /** The handler's `auth` check (undefined when `auth` is off): a refusal, or undefined to go on. */
  readonly authenticate:
    | ((req: HttpRequestLike, body: { readonly bytes: Uint8Array; readonly decoded: DecodeResult } | undefined) => Promise<HttpResponseLike | undefined>)
    | undefined;
}

const JSON_HEADERS: Readonly<Record<string, string>> = Object.freeze({ 'content-type': 'application/json' });
const ACCEPTED: HttpResponseLike = Object.freeze({ status: 202, headers: Object.freeze({}) });
const SSE_HEADERS: Readonly<Record<string, string>> = Object.freeze({
  'content-type': 'text/event-stream',
  'cache-control': 'no-cache',
  'x-accel-buffering': 'no',
});

function refuse(status: number, error: JsonRpcError, id?: RequestId, headers: Readonly<Record<string, string>> = JSON_HEADERS): HttpResponseLike {
  const body = id === undefined ? { jsonrpc: '2.0', error: error.toJSON() } : { jsonrpc: '2.0', id, error: error.toJSON() };
  return { status, headers, body: JSON.stringify(body) };
}

/**
 * A session of the HTTP+SSE transport: an {@link HttpSession} whose every outgoing message
 * (responses, notifications, server→client requests, related or not) goes on its one stream.
 */
class LegacySseSession extends HttpSession implements MessageTarget {
  override readonly legacy = true;
  /** The GET response's body. */
  readonly stream: PushSseStream;
  #timer: ReturnType<typeof setInterval> | undefined;

  constructor(id: string, principal: string | undefined, settings: SessionSettings, now: number, endpoint: string, onGone: (session: LegacySseSession) => void) {
    super(id, principal, settings, now);
    this.stream = new PushSseStream(() => {
      this.#stopTimer();
      this.activity(-1);
      onGone(this);
    }, settings.maxSseBufferedBytes);
    // The endpoint event goes first, before anything createSession might send.
    this.stream.write(`event: endpoint\ndata: ${endpoint}\n\n`);
    this.activity(1);
    if (settings.keepAliveMs > 0) {
      const comment = encodeSseComment();
      const timer = setInterval(() => this.stream.write(comment), settings.keepAliveMs);
      (timer as { unref?: () => void }).unref?.();
      this.#timer = timer;
    }
  }

  /** {@inheritDoc MessageTarget.send} */
  send(message: JsonRpcMessage): void {
    this.stream.write(`event: message\ndata: ${JSON.stringify(message)}\n\n`);
  }

  /** {@inheritDoc SessionPeer.notify} — on the session's stream. */
  override notify(notification: JsonRpcNotification): void {
    if (!this.closed) this.send(notification);
  }

  /** {@inheritDoc SessionPeer.request} — on the session's stream. */
  override request(method: string, params: Params | undefined, options?: { signal?: AbortSignal; timeoutMs?: number }): Promise<Record<string, unknown>> {
    return this.requestOn(this, method, params, options);
  }

  /** Ends the session and its stream. */
  override close(): void {
    super.close();
    this.#stopTimer();
    this.stream.close();
  }

  #stopTimer(): void {
    if (this.#timer !== undefined) clearInterval(this.#timer);
    this.#timer = undefined;
  }
}

/** The two legacy paths of one handler. */
export class LegacySseEndpoint {
  readonly #options: LegacySseOptions;
  readonly #context: LegacySseContext;

  constructor(options: LegacySseOptions, context: LegacySseContext) {
    this.#options = options;
    this.#context = context;
  }

  /** The path of the SSE stream (GET), for the handler's routing. */
  get path(): string {
    return this.#options.path;
  }

  /** The path of the client's POSTs, for the handler's routing. */
  get messagesPath(): string {
    return this.#options.messagesPath;
  }

  /** `GET <path>` (routed by `routing.ts`): a new session and its stream. */
  async open(req: HttpRequestLike): Promise<HttpResponseLike> {
    const context = this.#context;
    const refused = await context.authenticate?.(req, undefined);
    if (refused !== undefined) return refused;
    if (!acceptsSse(req.header('accept'))) return refuse(406, JsonRpcError.invalidRequest('the Accept header must list text/event-stream'));
    const extra = await context.extra(req);
    const messagesPath = this.#options.messagesPath;
    const session = context.sessions.openSession(extra, req.remoteAddress, (id, principal, settings, now) => {
      const endpoint = `${messagesPath}?sessionId=${encodeURIComponent(id)}`;
      return new LegacySseSession(id, principal, settings, now, endpoint, (gone) => {
        context.logger.debug('legacy SSE stream closed; ending its session', { session: gone.id });
        context.sessions.endSession(gone);
      });
    });
    if (typeof session === 'string') return noRoomAnswer(session);
    return { status: 200, headers: SSE_HEADERS, body: session.stream };
  }

  /** `POST <messagesPath>` (routed by `routing.ts`): one message of a session, answered on its stream. */
  async post(req: HttpRequestLike): Promise<HttpResponseLike> {
    const context = this.#context;
    const max = context.maxBodyBytes;
    if (!isJsonContentType(req.header('content-type'))) return refuse(415, JsonRpcError.invalidRequest('the Content-Type must be application/json'));
    const declared = req.header('content-length');
    if (declared !== undefined && Number(declared) > max) return refuse(413, JsonRpcError.invalidRequest(`the body is larger than ${max} bytes`));
    let bytes: Uint8Array | undefined;
    try {
      bytes = await readBody(req.body, max);
    } catch (e) {
      context.logger.debug('reading the request body failed', { error: String(e) });
      return refuse(400, JsonRpcError.invalidRequest('the request body could not be read'));
    }
    if (bytes === undefined) return refuse(413, JsonRpcError.invalidRequest(`the body is larger than ${max} bytes`));
    const decoded = decodeFrame(bytes, context.limits);
    const refused = await context.authenticate?.(req, { bytes, decoded });
    if (refused !== undefined) return refused;

    const id = req.query === undefined ? null : new URLSearchParams(req.query).get('sessionId');
    if (id === null || id === '') return refuse(400, JsonRpcError.invalidRequest('the sessionId query parameter is missing'));
    const extra = await context.extra(req);
    const found = context.sessions.findSession(id, extra, true);
    // Unknown, ended and foreign sessions look the same.
    if (found === undefined) return refuse(404, new JsonRpcError(ErrorCode.SessionNotFound, 'Session not found: open a new SSE stream'));
    const session = found as LegacySseSession;
    session.lastUsed = Date.now();

    if (isBatchResult(decoded)) return refuse(400, JsonRpcError.invalidRequest('the body must be a single JSON-RPC message, not a batch'));
    if (!decoded.ok) return refuse(400, decoded.error, decoded.id === null || decoded.isResponse ? undefined : decoded.id);
    const message = decoded.message;
    if (!('method' in message)) {
      if (!session.settle(message)) context.logger.warn('ignoring a response to an unknown server request', { session: session.id, id: message.id });
      return ACCEPTED;
    }
    const sessionExtra: Record<string, unknown> = spreadCopy(extra);
    sessionExtra['sessionId'] = session.id;
    if (!('id' in message)) {
      await context.sessions.notification(session, sessionExtra, message);
      return ACCEPTED;
    }
    const isInitialize = message.method === 'initialize';
    dispatchSessionRequest(
      context.dispatcher,
      session,
      message,
      (request: RequestEnv) => sessionRequestEnv(session, request, sessionExtra, session),
      (response: JsonRpcResponse) => {
        if (isInitialize && 'result' in response && typeof response.result['protocolVersion'] === 'string') {
          session.version ??= response.result['protocolVersion'];
        }
        session.send(response);
      },
    );
    return ACCEPTED;
  }
}
