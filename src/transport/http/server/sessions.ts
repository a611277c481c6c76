/**
 * Sessions of the stateful Streamable HTTP revisions (2025-03-26, 2025-06-18, 2025-11-25):
 * one {@link HttpSession} per `Mcp-Session-Id` (its streams, the server→client requests
 * waiting for an answer, the requests in flight), and the {@link SessionRegistry} that owns
 * them (cap, idle expiry).
 *
 * An idle session holds only a few scalars and the dispatcher's state; maps and streams are
 * created on first use.
 *
 * @see https://modelcontextprotocol.io/specification/2025-11-25/basic/transports#session-management
 * @module
 */
import { ErrorCode, JsonRpcError } from '../../../jsonrpc/errors.js';
import type { JsonRpcMessage, JsonRpcNotification, JsonRpcRequest, JsonRpcResponse, Params, RequestId } from '../../../jsonrpc/messages.js';
import type { SessionPeer } from '../../types.js';
import { IdTable } from '../../../util/idTable.js';
import { STANDALONE_STREAM_ID } from './eventStore.js';
import { SessionStream, type StreamHost, type StreamSettings } from './sessionStream.js';

/** Settings shared by every session of a handler: its streams' settings, and these. */
export interface SessionSettings extends StreamSettings {
  /** Default timeout of server→client requests (ms); 0 none. */
  readonly peerRequestTimeoutMs: number;
}

/** Where a message sent "on behalf of" something goes: a POST's stream or the standalone one. */
export interface MessageTarget {
  /** Sends one message on the target's stream. */
  send(message: JsonRpcMessage): void;
}

interface PendingPeerRequest {
  resolve(result: Record<string, unknown>): void;
  reject(error: unknown): void;
}

/** Something in flight that `notifications/cancelled` or the session's end can abort. */
export interface Abortable {
  /** Aborts it (idempotent). */
  abort(reason: unknown): void;
}

/**
 * How a session shared by several instances (a {@link SessionStore} is set) reaches the others;
 * see `sharedSessions.ts`. Absent on the single-instance path.
 */
export interface SessionSharing {
  /** This instance's id: a letter then `[0-9a-z]`, never `0` first (it prefixes stream and request ids). */
  readonly instance: string;
  /** A message for the standalone GET stream while no connection of this instance carries it. */
  publishSend(session: HttpSession, message: JsonRpcMessage): void;
  /** A client's answer no request of this instance waits for. */
  publishAnswer(session: HttpSession, response: JsonRpcResponse): void;
  /** After a message was dispatched: shares the dispatcher's state when it changed; a promise while saving. */
  sync(session: HttpSession): Promise<void> | undefined;
}

/** The first revision whose SSE streams start with a priming event (SEP-1699). */
const PRIMING_SINCE = '2025-11-25';

/** One stateful session. It is also the {@link SessionPeer} handed to `createSession`. */
export class HttpSession implements SessionPeer, StreamHost {
  /** The `Mcp-Session-Id`. */
  readonly id: string;
  /** The principal's id at `initialize`; later requests must carry the same. */
  readonly principal: string | undefined;
  /** The dispatcher's state for the session (`createSession`'s result). */
  state: unknown;
  /** The negotiated protocol version; undefined until `initialize` succeeded. */
  version: string | undefined;
  /** Last use (ms since epoch). */
  lastUsed: number;
  /** Requests in flight plus open connections: a session with any is not idle. */
  active = 0;
  /** True once ended. */
  closed = false;
  /** Whose session it is for the per-caller cap: the principal, or an anonymous caller's address (set by {@link SessionRegistry.add}). */
  holder = '';
  /** True for a session of the deprecated HTTP+SSE transport (`legacySse.ts`): never reachable by `Mcp-Session-Id`. */
  readonly legacy: boolean = false;
  /** Set when the session is shared with other instances (see {@link SessionSharing}). */
  sharing: SessionSharing | undefined;
  readonly #settings: SessionSettings;
  #nextStream = 0;
  #nextPeerId = 0;
  #standalone: SessionStream | undefined;
  #live: Map<string, SessionStream> | undefined;
  #peerRequests: Map<RequestId, PendingPeerRequest> | undefined;
  /** An IdTable, not a Map: see util/idTable.ts. */
  #inflight: IdTable<RequestId, Abortable> | undefined;

  constructor(id: string, principal: string | undefined, settings: SessionSettings, now: number) {
    this.id = id;
    this.principal = principal;
    this.#settings = settings;
    this.lastUsed = now;
  }

  // ---- StreamHost ------------------------------------------------------------------------

  /** {@inheritDoc StreamHost.settings} */
  get settings(): SessionSettings {
    return this.#settings;
  }
  /** {@inheritDoc StreamHost.priming} */
  get priming(): boolean {
    return this.version !== undefined && this.version >= PRIMING_SINCE;
  }
  /** {@inheritDoc StreamHost.activity} */
  activity(delta: 1 | -1): void {
    this.active += delta;
    this.lastUsed = Date.now();
  }

  // ---- streams ---------------------------------------------------------------------------

  /** The standalone GET stream (created on first use). */
  get standalone(): SessionStream {
    // Shared: each instance's GET stream is its own logical stream (`0<instance>`), so two
    // instances never number events of one stream.
    return (this.#standalone ??= new SessionStream(this, this.sharing === undefined ? STANDALONE_STREAM_ID : `${STANDALONE_STREAM_ID}${this.sharing.instance}`, true));
  }

  /** A new POST stream, live until {@link endStream}. */
  newStream(): SessionStream {
    const n = (++this.#nextStream).toString(36);
    const stream = new SessionStream(this, this.sharing === undefined ? n : `${this.sharing.instance}${n}`, false);
    (this.#live ??= new Map()).set(stream.id, stream);
    return stream;
  }

  /** The stream an event id names: the standalone one, a live POST one, or a finished one (replay only). */
  streamFor(streamId: string): SessionStream | undefined {
    if (streamId === this.standalone.id) return this.standalone;
    const live = this.#live?.get(streamId);
    if (live !== undefined) return live;
    if (this.sharing !== undefined) {
      // Another instance's stream, or a finished one of this instance: the shared event store
      // has what exists (another instance's GET stream is resumed by continuing this one's).
      if (streamId.startsWith(STANDALONE_STREAM_ID)) return undefined;
      const done = new SessionStream(this, streamId, false);
      done.finished = true;
      return done;
    }
    // A finished POST stream: replay what the store kept, then end.
    const n = parseInt(streamId, 36);
    if (!(n >= 1 && n <= this.#nextStream)) return undefined;
    const done = new SessionStream(this, streamId, false);
    done.finished = true;
    return done;
  }

  /**
   * A POST stream sent its final response. With an async event store its last events may
   * still be on their way into the store: the stream stays findable until they are, so a
   * client that resumes right away gets them replayed rather than an empty, ended stream.
   */
  endStream(stream: SessionStream): void {
    const pending = stream.pendingAppends;
    if (pending === undefined) {
      this.#live?.delete(stream.id);
      return;
    }
    void pending.then(() => {
      if (this.#live?.get(stream.id) === stream) this.#live.delete(stream.id);
    });
  }

  // ---- SessionPeer: unsolicited traffic goes on the standalone stream ---------------------

  /** {@inheritDoc SessionPeer.notify} */
  notify(notification: JsonRpcNotification): void {
    if (!this.closed) this.unsolicited.send(notification);
  }

  /** {@inheritDoc SessionPeer.request} */
  request(method: string, params: Params | undefined, options?: { signal?: AbortSignal; timeoutMs?: number }): Promise<Record<string, unknown>> {
    return this.requestOn(this.unsolicited, method, params, options);
  }

  /**
   * Where unsolicited traffic goes: the standalone stream; when shared and no connection of
   * this instance carries it, the instance holding the session's GET stream (over the bus).
   */
  get unsolicited(): MessageTarget {
    const sharing = this.sharing;
    if (sharing === undefined) return this.standalone;
    return {
      send: (message) => {
        const standalone = this.standalone;
        if (standalone.connected) standalone.send(message);
        else sharing.publishSend(this, message);
      },
    };
  }

  /** Sends a server→client request on `target` and waits for the client's POSTed answer. */
  requestOn(
    target: MessageTarget,
    method: string,
    params: Params | undefined,
    options: { signal?: AbortSignal; timeoutMs?: number } = {},
  ): Promise<Record<string, unknown>> {
    if (this.closed) return Promise.reject(new JsonRpcError(ErrorCode.ConnectionClosed, 'the session is closed'));
    const signal = options.signal;
    if (signal?.aborted === true) return Promise.reject(signal.reason);
    // Shared: ids name this instance, so an answer POSTed to another one finds its way back.
    const id: RequestId = this.sharing === undefined ? ++this.#nextPeerId : `${this.sharing.instance}-${++this.#nextPeerId}`;
    const requests: Map<RequestId, PendingPeerRequest> = (this.#peerRequests ??= new Map());
    return new Promise<Record<string, unknown>>((resolve, reject) => {
      const timeoutMs = options.timeoutMs ?? this.#settings.peerRequestTimeoutMs;
      let timer: ReturnType<typeof setTimeout> | undefined;
      const cleanup = (): void => {
        requests.delete(id);
        if (timer !== undefined) clearTimeout(timer);
        signal?.removeEventListener('abort', onAbort);
      };
      const cancel = (reason: string): void => {
        target.send({ jsonrpc: '2.0', method: 'notifications/cancelled', params: { requestId: id, reason } });
      };
      const onAbort = (): void => {
        cleanup();
        cancel('the request was cancelled');
        reject(signal?.reason);
      };
      if (timeoutMs > 0) {
        timer = setTimeout(() => {
          cleanup();
          cancel('timed out');
          reject(new JsonRpcError(ErrorCode.RequestTimeout, `the client did not answer ${method} within ${timeoutMs} ms`));
        }, timeoutMs);
        (timer as { unref?: () => void }).unref?.();
      }
      signal?.addEventListener('abort', onAbort, { once: true });
      requests.set(id, {
        resolve: (result) => {
          cleanup();
          resolve(result);
        },
        reject: (error) => {
          cleanup();
          reject(error);
        },
      });
      const message: JsonRpcRequest = params === undefined ? { jsonrpc: '2.0', id, method } : { jsonrpc: '2.0', id, method, params };
      target.send(message);
    });
  }

  /**
   * Hands a client's response to the waiting server→client request; false for an unknown id.
   * Shared: an id another instance issued is forwarded to it over the bus (unless `forward` is
   * false: it came from the bus, and is never sent round again).
   */
  settle(response: JsonRpcResponse, forward = true): boolean {
    if (response.id === null) return false;
    const pending = this.#peerRequests?.get(response.id);
    if (pending === undefined) {
      if (!forward || this.sharing === undefined || typeof response.id !== 'string' || response.id.startsWith(`${this.sharing.instance}-`)) return false;
      this.sharing.publishAnswer(this, response);
      return true;
    }
    if ('error' in response) pending.reject(JsonRpcError.fromObject(response.error));
    else pending.resolve(response.result);
    return true;
  }

  // ---- requests in flight ----------------------------------------------------------------

  /** Registers a client request in flight (for `notifications/cancelled`). */
  track(id: RequestId, request: Abortable): void {
    (this.#inflight ??= new IdTable()).set(id, request);
  }

  /** Forgets a request once answered. */
  untrack(id: RequestId, request: Abortable): void {
    if (this.#inflight?.get(id) === request) this.#inflight.delete(id);
  }

  /** Aborts a request in flight (`notifications/cancelled`); false when unknown. */
  cancel(id: RequestId, reason: unknown): boolean {
    const request = this.#inflight?.get(id);
    if (request === undefined) return false;
    request.abort(reason);
    return true;
  }

  /**
   * Ends the session: aborts requests, rejects server→client requests, ends streams, drops
   * stored events. `keepShared` ends only this instance's copy of a shared session (its
   * stored events stay for the other instances).
   */
  close(keepShared = false): void {
    if (this.closed) return;
    this.closed = true;
    const reason = new Error('the session ended');
    for (const request of [...(this.#inflight?.values() ?? [])]) request.abort(reason);
    this.#inflight = undefined;
    for (const pending of [...(this.#peerRequests?.values() ?? [])]) pending.reject(new JsonRpcError(ErrorCode.ConnectionClosed, 'the session ended'));
    this.#peerRequests = undefined;
    this.#standalone?.close();
    for (const stream of this.#live?.values() ?? []) stream.close();
    this.#live = undefined;
    if (keepShared) return;
    try {
      const dropped = this.#settings.store.dropSession(this.id);
      if (dropped !== undefined) {
        dropped.catch((e: unknown) => this.#settings.logger.error('dropping stored events failed', { session: this.id, error: String(e) }));
      }
    } catch (e) {
      this.#settings.logger.error('dropping stored events failed', { session: this.id, error: String(e) });
    }
  }
}

/** Options for {@link SessionRegistry}. */
export interface SessionRegistryOptions {
  /** Most sessions at once. */
  readonly maxSessions: number;
  /** Most sessions one holder (principal, or anonymous address) has at once; default no cap beyond `maxSessions`. */
  readonly maxSessionsPerHolder?: number;
  /** Idle time (ms) after which a session without activity is ended; 0 never. */
  readonly idleTimeoutMs: number;
  /** Ends a session (the registry has already forgotten it). */
  readonly onExpire: (session: HttpSession) => void;
}

/**
 * Why no session can be opened: `busy`, every slot is taken (503); `holder`, the caller holds
 * its share and none of its sessions is idle (429).
 */
export type NoRoom = 'busy' | 'holder';

/** The sessions of one handler: lookup, caps (in all and per holder) and the idle sweep (an unref'd timer). */
export class SessionRegistry {
  readonly #sessions = new Map<string, HttpSession>();
  readonly #byHolder = new Map<string, Set<HttpSession>>();
  readonly #options: SessionRegistryOptions;
  #timer: ReturnType<typeof setInterval> | undefined;

  constructor(options: SessionRegistryOptions) {
    this.#options = options;
  }

  /** How many sessions exist. */
  get size(): number {
    return this.#sessions.size;
  }

  /** True when one more session fits (after sweeping idle ones if the cap is reached). */
  hasRoom(): boolean {
    if (this.#sessions.size < this.#options.maxSessions) return true;
    this.sweep();
    return this.#sessions.size < this.#options.maxSessions;
  }

  /**
   * Makes room for one more session of `holder`, or says why there is none. At its share
   * (`maxSessionsPerHolder`) the holder's least recently used idle session (no request in
   * flight, no open stream) is ended to make room: one caller's sessions never take another
   * caller's slots, and a client that forgets its sessions is not locked out for the idle
   * timeout. When all of them are busy: `holder`.
   */
  claim(holder: string): NoRoom | undefined {
    const held = this.#byHolder.get(holder);
    const share = this.#options.maxSessionsPerHolder ?? Infinity;
    if (held !== undefined && held.size >= share) {
      let oldest: HttpSession | undefined;
      for (const session of held) if (session.active === 0 && (oldest === undefined || session.lastUsed < oldest.lastUsed)) oldest = session;
      if (oldest === undefined) return 'holder';
      this.#expire(oldest);
    }
    return this.hasRoom() ? undefined : 'busy';
  }

  /** Adds a session of `holder` (default its principal) and starts the sweep timer when needed. */
  add(session: HttpSession, holder = session.principal ?? ''): void {
    this.#sessions.set(session.id, session);
    session.holder = holder;
    let held = this.#byHolder.get(holder);
    if (held === undefined) this.#byHolder.set(holder, (held = new Set()));
    held.add(session);
    if (this.#timer === undefined && this.#options.idleTimeoutMs > 0 && Number.isFinite(this.#options.idleTimeoutMs)) {
      const every = Math.max(5, Math.min(this.#options.idleTimeoutMs / 2, 60_000));
      const timer = setInterval(() => this.sweep(), every);
      (timer as { unref?: () => void }).unref?.();
      this.#timer = timer;
    }
  }

  /** The live session with this id; an expired one is ended and reported missing. */
  get(id: string): HttpSession | undefined {
    const session = this.#sessions.get(id);
    if (session === undefined) return undefined;
    if (this.#expired(session, Date.now())) {
      this.#expire(session);
      return undefined;
    }
    return session;
  }

  /** Forgets a session (without ending it). */
  delete(session: HttpSession): void {
    if (this.#sessions.get(session.id) === session) this.#sessions.delete(session.id);
    const held = this.#byHolder.get(session.holder);
    if (held?.delete(session) === true && held.size === 0) this.#byHolder.delete(session.holder);
    if (this.#sessions.size === 0) this.#stopTimer();
  }

  /** Ends every idle session past the timeout. */
  sweep(): void {
    const now = Date.now();
    for (const session of this.#sessions.values()) if (this.#expired(session, now)) this.#expire(session);
  }

  /** Every session (for shutdown). */
  all(): HttpSession[] {
    return [...this.#sessions.values()];
  }

  /** Stops the sweep timer. */
  dispose(): void {
    this.#stopTimer();
  }

  #expired(session: HttpSession, now: number): boolean {
    const timeout = this.#options.idleTimeoutMs;
    return timeout > 0 && session.active === 0 && now - session.lastUsed > timeout;
  }

  #expire(session: HttpSession): void {
    this.delete(session);
    this.#options.onExpire(session);
  }

  #stopTimer(): void {
    if (this.#timer !== undefined) clearInterval(this.#timer);
    this.#timer = undefined;
  }
}
