/**
 * The stateful side of the Streamable HTTP server (revisions 2025-03-26, 2025-06-18,
 * 2025-11-25), on the same endpoint as the stateless 2026-07-28 path:
 *
 * | Request | Answer |
 * |---|---|
 * | POST `initialize` without `Mcp-Session-Id` (no 2026 `_meta` version) | new session; `Mcp-Session-Id` on success; 503 + `Retry-After` at `maxSessions`; 429 + `Retry-After` at `maxSessionsPerPrincipal` when none of the caller's sessions is idle (else its least recently used idle one is ended) |
 * | any request with an unknown, expired, deleted or foreign (principal) session id | 404 + JSON-RPC error `ErrorCode.SessionNotFound` (-32001) |
 * | `MCP-Protocol-Version` ≠ the negotiated version | 400 |
 * | POST request(s) | JSON, or the POST's SSE stream once anything is sent before the response |
 * | POST notification(s) / response(s) only | 202 (responses settle server→client requests) |
 * | POST batch | only in 2025-03-26 sessions, never with `initialize`; else 400 |
 * | GET (`Accept: text/event-stream`) | the standalone stream (a second concurrent one: 409) |
 * | GET + `Last-Event-ID` | replay of THAT stream after the id, then its continuation |
 * | DELETE | `closeSession`, 200; the id then gets 404 |
 * | any of the above on a shared session (`sessionStore`) while the store cannot be reached | 503 + `Retry-After` + `ErrorCode.ServiceUnavailable` (-32000) naming `ERR_MCP_STORE_UNAVAILABLE` |
 *
 * Which requests come here is decided by `routing.ts`: a request whose body carries the 2026
 * `_meta` protocol version goes to the stateless path, session header or not (2026-07-28
 * ignores `Mcp-Session-Id`).
 *
 * With a `sessionStore` (and `sessionBus`), sessions are shared by several instances: one this
 * instance does not hold is rebuilt from its record (`sharedSessions.ts`).
 *
 * @see https://modelcontextprotocol.io/specification/2025-11-25/basic/transports#streamable-http
 * @see https://modelcontextprotocol.io/specification/2025-03-26/basic/transports#streamable-http
 * @module
 */
import type { MessageExtra } from '../../../jsonrpc/channel.js';
import { decodeFrame, isBatchResult, type DecodeLimits, type DecodeResult, type DecodedItem } from '../../../jsonrpc/decode.js';
import { ErrorCode, JsonRpcError } from '../../../jsonrpc/errors.js';
import type { JsonRpcNotification, JsonRpcRequest, JsonRpcResponse, RequestId } from '../../../jsonrpc/messages.js';
import type { Logger } from '../../../util/logger.js';
import { principalIn } from '../../principal.js';
import type { McpDispatcher } from '../../types.js';
import { InMemoryEventStore, parseEventId, STANDALONE_STREAM_ID, type EventStore } from './eventStore.js';
import { trimOws } from '../headerValue.js';
import { HttpSession, SessionRegistry, type NoRoom, type SessionSettings } from './sessions.js';
import { StatefulPost } from './statefulPost.js';
import type { HttpRequestLike, HttpResponseLike } from './types.js';
import { acceptsSse } from './validate.js';
import { isThenable } from './exchange.js';
import { spreadCopy } from '../../../util/object.js';
import { SharedSessions, storeUnavailableError, type SharedSessionOptions } from './sharedSessions.js';

/** A request's live session and its `DispatchEnv.extra` (a class: told apart from an answer by `instanceof`). */
class Found {
  constructor(
    readonly session: HttpSession,
    readonly extra: MessageExtra,
  ) {}
}

/** Options of the stateful path (a subset of the handler's options). */
export interface StatefulOptions extends SharedSessionOptions {
  /** Most sessions at once; `initialize` beyond gets 503. Default 10,000. */
  readonly maxSessions?: number;
  /**
   * Most sessions one principal holds at once (callers without a principal: per remote
   * address, when the adapter tells it). Past it, `initialize` ends the caller's least
   * recently used idle session, or gets 429 when all are busy. Default: no cap beyond `maxSessions`.
   */
  readonly maxSessionsPerPrincipal?: number;
  /** Idle sessions are ended after this many ms (no request, no open stream). Default 30 min; 0 never. */
  readonly sessionIdleTimeoutMs?: number;
  /** Events kept per session for replay, and unsent GET-stream messages buffered. Default 1,000. */
  readonly maxBufferedEventsPerSession?: number;
  /**
   * Encoded size (characters of SSE text) of the events kept per session by the default
   * in-memory store, oldest dropped first (the newest is always kept). Default 4 MiB.
   */
  readonly maxBufferedEventSizePerSession?: number;
  /** The resumability store. Default: an {@link InMemoryEventStore}. */
  readonly eventStore?: EventStore;
  /** The SEP-1699 `retry` hint (ms) sent with priming events on 2025-11-25 sessions. Default 1,000. */
  readonly retryMs?: number;
  /** Default timeout of server→client requests (ms); 0 none. Default 60,000. */
  readonly peerRequestTimeoutMs?: number;
}

/** What the stateful path needs from the handler. */
export interface StatefulContext {
  /** Diagnostics. */
  readonly logger: Logger;
  /** Interval of SSE keep-alive comments (ms); 0 disables. */
  readonly keepAliveMs: number;
  /** How far an SSE reader may fall behind before its stream is cut (bytes); 0 disables. */
  readonly maxSseBufferedBytes: number;
  /** The handler's decoder limits (batches are re-decoded with `allowBatch` for 2025-03-26 sessions). */
  readonly limits: DecodeLimits;
  /** Builds `DispatchEnv.extra` for a request (the handler's `extra` hook plus `http`); synchronous when it can be. */
  readonly extra: (req: HttpRequestLike) => MessageExtra | Promise<MessageExtra>;
}

const JSON_HEADERS: Readonly<Record<string, string>> = Object.freeze({ 'content-type': 'application/json' });
const ACCEPTED: HttpResponseLike = Object.freeze({ status: 202, headers: Object.freeze({}) });
const OK_EMPTY: HttpResponseLike = Object.freeze({ status: 200, headers: Object.freeze({}) });
const SSE_HEADERS: Readonly<Record<string, string>> = Object.freeze({
  'content-type': 'text/event-stream',
  'cache-control': 'no-cache',
  'x-accel-buffering': 'no',
});
/** The revision that allowed JSON-RPC batches. */
const BATCH_REVISION = '2025-03-26';

function errorAnswer(status: number, error: JsonRpcError, id?: RequestId, headers: Readonly<Record<string, string>> = JSON_HEADERS): HttpResponseLike {
  const body = id === undefined ? { jsonrpc: '2.0', error: error.toJSON() } : { jsonrpc: '2.0', id, error: error.toJSON() };
  return { status, headers, body: JSON.stringify(body) };
}

/** The 503 answer at `maxSessions` (with `Retry-After`). */
export function busyAnswer(id?: RequestId): HttpResponseLike {
  const error = new JsonRpcError(ErrorCode.ServiceUnavailable, 'Server busy: the maximum number of sessions is reached; retry later', { retryAfterSeconds: 5 });
  return errorAnswer(503, error, id, { 'content-type': 'application/json', 'retry-after': '5' });
}

/**
 * The 429 answer when a caller holds its share of sessions and all are busy: its own quota,
 * not the server's capacity (RFC 6585 section 4; 503 is for the server as a whole).
 *
 * @see https://www.rfc-editor.org/rfc/rfc6585#section-4
 */
export function noRoomAnswer(reason: NoRoom, id?: RequestId): HttpResponseLike {
  if (reason === 'busy') return busyAnswer(id);
  const error = new JsonRpcError(ErrorCode.ServiceUnavailable, 'Too many sessions: this caller holds its maximum number of sessions, all in use; end one (DELETE) or retry later', { retryAfterSeconds: 5 });
  return errorAnswer(429, error, id, { 'content-type': 'application/json', 'retry-after': '5' });
}

function principalOf(extra: MessageExtra): string | undefined {
  return principalIn(extra)?.id;
}

/** Whose sessions count together for `maxSessionsPerPrincipal`: the principal, else the remote address (else all anonymous callers). */
function holderOf(extra: MessageExtra, remote: string | undefined): string {
  const principal = principalOf(extra);
  return principal !== undefined ? `principal:${principal}` : `address:${remote ?? ''}`;
}

function startsWithBracket(bytes: Uint8Array): boolean {
  for (const b of bytes) {
    if (b === 0x20 || b === 0x09 || b === 0x0a || b === 0x0d) continue;
    return b === 0x5b;
  }
  return false;
}

/** `{ ...extra, sessionId }`, built by assignment: the spread form is slow on Node 20 (util/object.ts). */
function sessionExtra(extra: MessageExtra, session: HttpSession): MessageExtra {
  const copy: Record<string, unknown> = spreadCopy(extra);
  copy['sessionId'] = session.id;
  return copy;
}

function newSessionId(): string {
  // 122 random bits from the platform CSPRNG; only [0-9a-f-], all visible ASCII.
  return globalThis.crypto.randomUUID();
}

/**
 * The stateful path of one handler. `DispatchEnv.extra` of stateful messages carries the
 * handler's `extra` output, `http`, and `sessionId`; the principal's id
 * (`DispatchEnv.principal`) seen at `initialize` is bound to the session.
 */
export class StatefulHttp {
  readonly #dispatcher: McpDispatcher;
  readonly #context: StatefulContext;
  readonly #registry: SessionRegistry;
  readonly #settings: SessionSettings;
  readonly #batchLimits: DecodeLimits;
  /** Set when sessions are shared between instances (`sessionStore`). */
  readonly #shared: SharedSessions | undefined;

  constructor(dispatcher: McpDispatcher, options: StatefulOptions, context: StatefulContext) {
    this.#dispatcher = dispatcher;
    this.#context = context;
    const maxBuffered = Math.max(1, options.maxBufferedEventsPerSession ?? 1000);
    const maxSize = options.maxBufferedEventSizePerSession;
    this.#settings = {
      store: options.eventStore ?? new InMemoryEventStore({ maxEventsPerSession: maxBuffered, ...(maxSize === undefined ? {} : { maxSizePerSession: maxSize }) }),
      logger: context.logger,
      keepAliveMs: context.keepAliveMs,
      maxSseBufferedBytes: context.maxSseBufferedBytes,
      retryMs: options.retryMs ?? 1000,
      maxPending: maxBuffered,
      peerRequestTimeoutMs: options.peerRequestTimeoutMs ?? 60_000,
    };
    this.#registry = new SessionRegistry({
      maxSessions: options.maxSessions ?? 10_000,
      ...(options.maxSessionsPerPrincipal !== undefined ? { maxSessionsPerHolder: options.maxSessionsPerPrincipal } : {}),
      idleTimeoutMs: options.sessionIdleTimeoutMs ?? 30 * 60_000,
      onExpire: (session) => {
        context.logger.debug('stateful session expired', { session: session.id });
        this.#end(session);
      },
    });
    this.#batchLimits = { ...context.limits, allowBatch: true };
    const store = options.sessionStore;
    if (store !== undefined) {
      const shared = new SharedSessions(store, options.sessionBus, dispatcher, context.logger, options.sessionRevalidateMs);
      shared.onEndLocal((session) => {
        this.#registry.delete(session);
        this.#end(session);
      });
      this.#shared = shared;
    }
  }

  /** How many sessions are open. */
  get sessionCount(): number {
    return this.#registry.size;
  }

  /** Ends every session and stops the sweep timer. */
  close(): void {
    for (const session of this.#registry.all()) {
      this.#registry.delete(session);
      this.#end(session);
    }
    this.#registry.dispose();
  }

  /** Forgets a session and ends it (`closeSession`, streams closed, requests aborted). */
  endSession(session: HttpSession): void {
    this.#registry.delete(session);
    this.#end(session);
  }

  /**
   * Creates a session bound to the principal of `extra` (`createSession`, then registered for the caps
   * and the idle sweep); why not when there is no room (answer {@link noRoomAnswer}). `remote`
   * (the client's address) counts the sessions of callers without a principal. `make` builds
   * the session object from a fresh random id.
   */
  openSession<S extends HttpSession>(extra: MessageExtra, remote: string | undefined, make: (id: string, principal: string | undefined, settings: SessionSettings, now: number) => S): S | NoRoom {
    const registry = this.#registry;
    const holder = holderOf(extra, remote);
    const refused = registry.claim(holder);
    if (refused !== undefined) {
      this.#context.logger.warn(refused === 'busy' ? 'refusing a new stateful session: maxSessions reached' : 'refusing a new stateful session: the caller holds maxSessionsPerPrincipal, all busy', { sessions: registry.size });
      return refused;
    }
    const session = make(newSessionId(), principalOf(extra), this.#settings, Date.now());
    session.state = this.#dispatcher.createSession?.(session);
    registry.add(session, holder);
    return session;
  }

  /**
   * The live session `id` names for the principal of `extra`, of the given kind (legacy
   * HTTP+SSE or Streamable); undefined for an unknown, expired, closed or foreign one, which
   * all get the same 404 (session ids reveal nothing).
   */
  findSession(id: string, extra: MessageExtra, legacy: boolean): HttpSession | undefined {
    const session = this.#registry.get(id);
    if (session === undefined || session.closed || session.legacy !== legacy || principalOf(extra) !== session.principal) return undefined;
    return session;
  }

  /** Ends a session here; `everywhere` also drops what other instances share of it (DELETE). */
  #end(session: HttpSession, everywhere = false): void {
    if (session.sharing !== undefined) this.#shared?.detached(session);
    session.close(session.sharing !== undefined && !everywhere);
    try {
      this.#dispatcher.closeSession?.(session.state);
    } catch (e) {
      this.#context.logger.error('closeSession failed', { session: session.id, error: String(e) });
    }
  }

  /**
   * Looks up the session of a request; an error answer when it is unknown, foreign or on
   * another version. Synchronous on the single-instance path with a synchronous `extra`
   * (the hot path: no promise, no await).
   */
  #session(req: HttpRequestLike, id: string, requestId?: RequestId): Found | HttpResponseLike | Promise<Found | HttpResponseLike> {
    const extra = this.#context.extra(req);
    if (this.#shared !== undefined || isThenable(extra)) return this.#sessionAsync(req, id, requestId, extra);
    return this.#checked(req, this.findSession(id, extra, false), extra, requestId);
  }

  async #sessionAsync(req: HttpRequestLike, id: string, requestId: RequestId | undefined, pending: MessageExtra | Promise<MessageExtra>): Promise<Found | HttpResponseLike> {
    const extra = await pending;
    let session = this.findSession(id, extra, false);
    const shared = this.#shared;
    if (shared !== undefined) {
      try {
        if (session === undefined) {
          const rehydrated = await this.#rehydrate(shared, id, extra, req.remoteAddress);
          if (rehydrated === 'busy' || rehydrated === 'holder') return noRoomAnswer(rehydrated, requestId);
          session = rehydrated;
        } else if (!(await shared.revalidate(session, Date.now()))) session = undefined;
      } catch (error) {
        this.#context.logger.warn('refusing a stateful request: the session store cannot be reached', { session: id, error: String(error) });
        return errorAnswer(503, storeUnavailableError(error), requestId, { 'content-type': 'application/json', 'retry-after': '1' });
      }
    }
    return this.#checked(req, session, extra, requestId);
  }

  /** The found session, or the 404 / version-mismatch answer; marks the session used. */
  #checked(req: HttpRequestLike, session: HttpSession | undefined, extra: MessageExtra, requestId: RequestId | undefined): Found | HttpResponseLike {
    if (session === undefined) {
      return errorAnswer(404, new JsonRpcError(ErrorCode.SessionNotFound, 'Session not found: initialize a new session'), requestId);
    }
    const header = req.header('mcp-protocol-version');
    if (header !== undefined && session.version !== undefined && trimOws(header) !== session.version) {
      const requested = trimOws(header);
      return errorAnswer(
        400,
        JsonRpcError.invalidRequest(`MCP-Protocol-Version ${requested} does not match the version negotiated for this session (${session.version})`, {
          supported: [session.version],
          requested,
        }),
        requestId,
      );
    }
    session.lastUsed = Date.now();
    return new Found(session, extra);
  }

  /**
   * A session another instance created, rebuilt here from the shared record; undefined when
   * there is none or it is bound to another principal (the same 404: ids reveal nothing),
   * why not when there is no room. Rejects when the store cannot be reached.
   */
  async #rehydrate(shared: SharedSessions, id: string, extra: MessageExtra, remote: string | undefined): Promise<HttpSession | NoRoom | undefined> {
    const record = await shared.load(id);
    if (record === undefined || (record.principal ?? undefined) !== principalOf(extra) || record.version === '') return undefined;
    // Another request of the same session may have rebuilt it while this one waited.
    const raced = this.findSession(id, extra, false);
    if (raced !== undefined) return raced;
    const holder = holderOf(extra, remote);
    const refused = this.#registry.claim(holder);
    if (refused !== undefined) return refused;
    const session = new HttpSession(record.id, record.principal ?? undefined, this.#settings, Date.now());
    session.state = this.#dispatcher.createSession?.(session);
    this.#registry.add(session, holder);
    try {
      await shared.rehydrated(session, record, principalIn(extra));
    } catch (error) {
      this.#registry.delete(session);
      this.#end(session);
      throw error;
    }
    this.#context.logger.debug('stateful session rehydrated from the shared store', { session: id });
    return session;
  }

  /** DELETE with a session id (routed by `routing.ts`): `closeSession`, 200; or the session's error answer. */
  async deleteSession(req: HttpRequestLike, sessionId: string): Promise<HttpResponseLike> {
    const found = await this.#session(req, sessionId);
    if (!(found instanceof Found)) return found;
    const session = found.session;
    if (session.sharing !== undefined && this.#shared !== undefined) {
      try {
        await this.#shared.deleted(session);
      } catch (error) {
        return errorAnswer(503, storeUnavailableError(error), undefined, { 'content-type': 'application/json', 'retry-after': '1' });
      }
    }
    this.#registry.delete(session);
    this.#end(session, true);
    return OK_EMPTY;
  }

  /** GET with a session id (routed by `routing.ts`): the standalone stream, or a replay after `Last-Event-ID`. */
  async openStream(req: HttpRequestLike, sessionId: string): Promise<HttpResponseLike> {
    const found = await this.#session(req, sessionId);
    if (!(found instanceof Found)) return found;
    const { session } = found;
    if (!acceptsSse(req.header('accept'))) {
      return errorAnswer(406, JsonRpcError.invalidRequest('the Accept header must list text/event-stream'));
    }
    const last = req.header('last-event-id');
    if (last !== undefined) {
      const parsed = parseEventId(trimOws(last));
      if (parsed !== undefined && session.sharing !== undefined && parsed.streamId.startsWith(STANDALONE_STREAM_ID) && parsed.streamId !== session.standalone.id) {
        // Another instance's GET stream: replay what it sent after the id, then go on with this one's.
        return { status: 200, headers: SSE_HEADERS, body: session.standalone.openAfter(parsed.streamId, parsed.seq).body };
      }
      const stream = parsed === undefined ? undefined : session.streamFor(parsed.streamId);
      if (parsed === undefined || stream === undefined) {
        return errorAnswer(400, JsonRpcError.invalidRequest('the Last-Event-ID does not name an event of this session'));
      }
      return { status: 200, headers: SSE_HEADERS, body: stream.open(parsed.seq).body };
    }
    const standalone = session.standalone;
    if (standalone.connected) {
      return errorAnswer(409, JsonRpcError.invalidRequest('a GET stream is already open for this session'));
    }
    return { status: 200, headers: SSE_HEADERS, body: standalone.open().body };
  }

  /** A POST with a session id (routed by `routing.ts`): its message(s) in that session, or the session's error answer. */
  sessionPost(req: HttpRequestLike, sessionId: string, bytes: Uint8Array, decoded: DecodeResult): Promise<HttpResponseLike> {
    const requestId = !isBatchResult(decoded) && decoded.ok && 'id' in decoded.message && 'method' in decoded.message ? decoded.message.id : undefined;
    const found = this.#session(req, sessionId, requestId);
    if (isThenable(found)) return found.then((settled) => this.#post(settled, bytes, decoded));
    return this.#post(found, bytes, decoded);
  }

  #post(found: Found | HttpResponseLike, bytes: Uint8Array, decoded: DecodeResult): Promise<HttpResponseLike> {
    if (!(found instanceof Found)) return Promise.resolve(found);
    const { session, extra } = found;
    if (startsWithBracket(bytes)) {
      if (session.version !== BATCH_REVISION) {
        return Promise.resolve(errorAnswer(400, JsonRpcError.invalidRequest(`batches are not supported by protocol revision ${session.version ?? 'of this session'}`)));
      }
      const batch = decodeFrame(bytes, this.#batchLimits);
      if (!isBatchResult(batch)) return Promise.resolve(errorAnswer(400, batch.ok ? JsonRpcError.invalidRequest('not a batch') : batch.error));
      return this.#messages(session, extra, batch.batch, true);
    }
    if (isBatchResult(decoded)) return Promise.resolve(errorAnswer(400, JsonRpcError.invalidRequest('unexpected batch')));
    if (!decoded.ok) return Promise.resolve(errorAnswer(400, decoded.error, decoded.id === null || decoded.isResponse ? undefined : decoded.id));
    const message = decoded.message;
    // One request (the common case): straight to its POST, no notification to run first.
    if ('method' in message && 'id' in message) return new StatefulPost(session, sessionExtra(extra, session)).run(this.#dispatcher, [message], false);
    return this.#messages(session, extra, [decoded], false);
  }

  /** An `initialize` request without a session id (routed by `routing.ts`): a new session, or 503 at `maxSessions`. */
  async initialize(req: HttpRequestLike, message: JsonRpcRequest): Promise<HttpResponseLike> {
    const registry = this.#registry;
    const extra = await this.#context.extra(req);
    const session = this.openSession(extra, req.remoteAddress, (id, principal, settings, now) => new HttpSession(id, principal, settings, now));
    if (typeof session === 'string') return noRoomAnswer(session, message.id);
    const sessionHeaders = { 'mcp-session-id': session.id, 'access-control-expose-headers': 'Mcp-Session-Id' };
    const shared = this.#shared;
    let saving: Promise<void> | undefined;
    const post = new StatefulPost(session, { ...extra, sessionId: session.id }, {
      headers: sessionHeaders,
      onDone: (responses) => {
        const response = responses[0];
        const version = response !== undefined && 'result' in response ? response.result['protocolVersion'] : undefined;
        if (typeof version === 'string') {
          session.version = version;
          // Shared: the record is stored before the id is handed out (any instance may get the next request).
          if (shared !== undefined) saving = shared.created(session);
          return undefined;
        }
        // A failed initialize allocates nothing: the session is discarded, no id is given out.
        registry.delete(session);
        this.#end(session);
        return undefined;
      },
    });
    const response = await post.run(this.#dispatcher, [message], false);
    if (saving !== undefined) {
      const failed = (error: unknown): void => {
        this.#context.logger.warn('refusing a new stateful session: the session store cannot be reached', { error: String(error) });
        this.endSession(session);
      };
      if (typeof response.body !== 'string') saving.catch(failed);
      else {
        try {
          await saving;
        } catch (error) {
          failed(error);
          return errorAnswer(503, storeUnavailableError(error), message.id, { 'content-type': 'application/json', 'retry-after': '1' });
        }
      }
    }
    if (session.version === undefined && response.body !== undefined && typeof response.body === 'string') {
      // JSON error answer: do not hand out the discarded id.
      const { 'mcp-session-id': _, 'access-control-expose-headers': __, ...rest } = response.headers;
      return { ...response, headers: rest };
    }
    return response;
  }

  /** The messages of one POST (a single one or a 2025-03-26 batch) in a session. */
  async #messages(session: HttpSession, baseExtra: MessageExtra, items: readonly DecodedItem[], batch: boolean): Promise<HttpResponseLike> {
    const extra = sessionExtra(baseExtra, session);
    const requests: JsonRpcRequest[] = [];
    const errors: JsonRpcResponse[] = [];
    const notifications: JsonRpcNotification[] = [];
    for (const item of items) {
      if (!item.ok) {
        if (!batch) return errorAnswer(400, item.error, item.id === null || item.isResponse ? undefined : item.id);
        if (!item.isResponse && item.id !== null) errors.push({ jsonrpc: '2.0', id: item.id, error: item.error.toJSON() });
        continue;
      }
      const message = item.message;
      if (!('method' in message)) {
        if (!session.settle(message)) this.#context.logger.warn('ignoring a response to an unknown server request', { session: session.id, id: message.id });
        continue;
      }
      if (!('id' in message)) {
        notifications.push(message);
        continue;
      }
      if (batch && message.method === 'initialize') {
        errors.push({ jsonrpc: '2.0', id: message.id, error: JsonRpcError.invalidRequest('initialize must not be part of a batch').toJSON() });
        continue;
      }
      requests.push(message);
    }
    for (const notification of notifications) await this.notification(session, extra, notification);
    const saving = notifications.length > 0 ? session.sharing?.sync(session) : undefined;
    if (saving !== undefined) {
      try {
        await saving;
      } catch (error) {
        return errorAnswer(503, storeUnavailableError(error), undefined, { 'content-type': 'application/json', 'retry-after': '1' });
      }
    }
    if (requests.length === 0) {
      if (errors.length === 0) return ACCEPTED;
      return { status: 200, headers: JSON_HEADERS, body: JSON.stringify(errors) };
    }
    return new StatefulPost(session, extra).run(this.#dispatcher, requests, batch, errors);
  }

  /** Dispatches a client notification of a session (`notifications/cancelled` aborts the named request first). */
  async notification(session: HttpSession, extra: MessageExtra, notification: JsonRpcNotification): Promise<void> {
    if (notification.method === 'notifications/cancelled') {
      const id = notification.params?.['requestId'];
      if (typeof id === 'string' || typeof id === 'number') session.cancel(id, notification.params?.['reason'] ?? 'cancelled by the client');
    }
    const env = {
      signal: new AbortController().signal,
      extra,
      principal: principalIn(extra),
      notify: (n: JsonRpcNotification) => session.notify(n),
      peer: session,
      session: session.state,
    };
    try {
      await this.#dispatcher.dispatch(notification, env);
    } catch (e) {
      this.#context.logger.error('dispatcher rejected a notification', { method: notification.method, error: String(e) });
    }
  }
}
