/**
 * Stateful sessions shared by several instances of the Streamable HTTP server (no sticky
 * sessions): the glue between one handler's in-memory {@link HttpSession}s and the shared
 * {@link SessionStore} and {@link SessionBus}.
 *
 * - **Create.** A successful `initialize` saves the session's record (principal binding,
 *   negotiated version, the dispatcher's exported state) before its `Mcp-Session-Id` is answered.
 * - **Rehydrate.** A request naming a session this instance does not hold loads the record and
 *   rebuilds the session (`createSession` + `importSession`); a record bound to another
 *   principal is treated as unknown (404), like an unknown id.
 * - **Keep in step.** After a message changed the dispatcher's state (`logging/setLevel`,
 *   `resources/subscribe`, `notifications/initialized` …) the record is saved before the answer
 *   goes out, and the other instances' copies are updated over the bus. A session is checked
 *   against the store at most once per `revalidateMs` per instance: a session deleted elsewhere
 *   or expired ends here too.
 * - **Route.** A message for the GET stream open on another instance, and a client's answer to
 *   a server→client request waiting on another instance, travel over the bus (a channel per
 *   session, listened to by every instance holding the session).
 * - **Fail closed.** When the store cannot be reached, requests of shared sessions are refused
 *   with HTTP 503 and `ERR_MCP_STORE_UNAVAILABLE` (nothing is served from a copy that cannot
 *   be checked); they work again once the store is back.
 *
 * @see https://modelcontextprotocol.io/specification/2025-11-25/basic/transports#session-management
 * @module
 */
import { ErrorCode, JsonRpcError } from '../../../jsonrpc/errors.js';
import type { JsonRpcMessage, JsonRpcResponse } from '../../../jsonrpc/messages.js';
import { describeError } from '../../../util/errors.js';
import type { Logger } from '../../../util/logger.js';
import type { McpDispatcher, Principal } from '../../types.js';
import type { HttpSession, SessionSharing } from './sessions.js';
import type { SessionBus, SessionBusEnvelope, SessionRecord, SessionStore } from './sessionStore.js';

/** Options of a handler whose sessions are shared (members of the handler's options). */
export interface SharedSessionOptions {
  /** The shared session records. Unset: sessions live in this handler's memory only (one instance). */
  readonly sessionStore?: SessionStore;
  /** The bus between instances (GET stream elsewhere, answers, state). Unset with a store: one instance, no routing. */
  readonly sessionBus?: SessionBus;
  /** How often (ms) an instance re-checks a session it holds against the store. Default 1,000. */
  readonly sessionRevalidateMs?: number;
}

/** The {@link ErrorCode.ServiceUnavailable} error of a request refused because the session store cannot be reached. */
export function storeUnavailableError(error: unknown): JsonRpcError {
  return new JsonRpcError(ErrorCode.ServiceUnavailable, `ERR_MCP_STORE_UNAVAILABLE: the session store cannot be reached (${describeError(error)}); retry later`, { code: 'ERR_MCP_STORE_UNAVAILABLE' });
}

/** A letter then 7 base-36 characters: never starts with the standalone stream's `0`. */
function newInstanceId(): string {
  const bytes = globalThis.crypto.getRandomValues(new Uint8Array(8));
  const alphabet = '0123456789abcdefghijklmnopqrstuvwxyz';
  let id = String.fromCharCode(97 + ((bytes[0] as number) % 26));
  for (let i = 1; i < 8; i++) id += alphabet[(bytes[i] as number) % 36];
  return id;
}

interface Held {
  state: string;
  checkedAt: number;
  unsubscribe: (() => void) | undefined;
}

/** The shared side of one handler's sessions (see the module comment). */
export class SharedSessions implements SessionSharing {
  /** This instance's id. */
  readonly instance = newInstanceId();
  readonly #store: SessionStore;
  readonly #bus: SessionBus | undefined;
  readonly #dispatcher: McpDispatcher;
  readonly #logger: Logger;
  readonly #revalidateMs: number;
  readonly #held = new Map<HttpSession, Held>();
  #keepAlive: ReturnType<typeof setInterval> | undefined;
  readonly #loading = new Map<string, Promise<SessionRecord | undefined>>();
  /** Ends this instance's copy of a session (the handler forgets it). */
  #endLocal: (session: HttpSession) => void = () => undefined;

  constructor(store: SessionStore, bus: SessionBus | undefined, dispatcher: McpDispatcher, logger: Logger, revalidateMs = 1000) {
    this.#store = store;
    this.#bus = bus;
    this.#dispatcher = dispatcher;
    this.#logger = logger;
    this.#revalidateMs = revalidateMs;
  }

  /** Sets what ends a local copy (the handler's registry removal + `closeSession`). */
  onEndLocal(end: (session: HttpSession) => void): void {
    this.#endLocal = end;
  }

  #export(session: HttpSession): Record<string, unknown> | undefined {
    return this.#dispatcher.exportSession?.(session.state);
  }

  /** Saves the record of a session whose `initialize` succeeded, then attaches it to the bus. */
  async created(session: HttpSession): Promise<void> {
    const now = Date.now();
    const state = this.#export(session);
    session.sharing = this;
    const record: SessionRecord = { id: session.id, principal: session.principal ?? null, version: session.version ?? '', createdAt: now, lastSeen: now, ...(state === undefined ? {} : { state }) };
    this.#held.set(session, { state: JSON.stringify(state ?? null), checkedAt: now, unsubscribe: undefined });
    await this.#store.save(record);
    await this.#attach(session);
  }

  /** Loads the record of `id` (one load at a time per id); rejects when the store cannot be reached. */
  load(id: string): Promise<SessionRecord | undefined> {
    let loading = this.#loading.get(id);
    if (loading === undefined) {
      loading = this.#store.load(id).finally(() => this.#loading.delete(id));
      this.#loading.set(id, loading);
    }
    return loading;
  }

  /** Rebuilds a session from its record (`session` was just made with the record's id and principal). */
  async rehydrated(session: HttpSession, record: SessionRecord, principal: Principal | undefined): Promise<void> {
    session.version = record.version;
    session.sharing = this;
    if (record.state !== undefined) this.#dispatcher.importSession?.(session.state, record.state, principal);
    this.#held.set(session, { state: JSON.stringify(record.state ?? null), checkedAt: Date.now(), unsubscribe: undefined });
    await this.#attach(session);
  }

  async #attach(session: HttpSession): Promise<void> {
    this.#startKeepAlive();
    const bus = this.#bus;
    if (bus === undefined) return;
    const unsubscribe = await bus.subscribe(session.id, (envelope) => this.#received(session, envelope));
    const held = this.#held.get(session);
    if (held === undefined || session.closed) unsubscribe();
    else held.unsubscribe = unsubscribe;
  }

  /**
   * Checks a held session against the store when the last check is older than `revalidateMs`,
   * extending the record's life. Resolves false when the record is gone (the local copy is
   * ended); rejects when the store cannot be reached.
   */
  async revalidate(session: HttpSession, now: number): Promise<boolean> {
    const held = this.#held.get(session);
    if (held === undefined || now - held.checkedAt < this.#revalidateMs) return true;
    const alive = await this.#store.touch(session.id, now);
    held.checkedAt = now;
    if (!alive) this.#endLocal(session);
    return alive;
  }

  /** {@inheritDoc SessionSharing.sync} */
  sync(session: HttpSession): Promise<void> | undefined {
    const held = this.#held.get(session);
    if (held === undefined || session.closed) return undefined;
    const state = this.#export(session);
    const text = JSON.stringify(state ?? null);
    if (text === held.state || state === undefined) return undefined;
    held.state = text;
    const now = Date.now();
    const record: SessionRecord = { id: session.id, principal: session.principal ?? null, version: session.version ?? '', createdAt: now, lastSeen: now, state };
    return this.#store.load(session.id).then(async (stored) => {
      await this.#store.save(stored === undefined ? record : { ...record, createdAt: stored.createdAt });
      this.#publish(session, { kind: 'state', state });
    });
  }

  /** {@inheritDoc SessionSharing.publishSend} */
  publishSend(session: HttpSession, message: JsonRpcMessage): void {
    this.#publish(session, { kind: 'send', message });
  }

  /** {@inheritDoc SessionSharing.publishAnswer} */
  publishAnswer(session: HttpSession, response: JsonRpcResponse): void {
    this.#publish(session, { kind: 'answer', message: response });
  }

  /** The session was deleted (DELETE): the record goes, and the other instances end their copies. */
  async deleted(session: HttpSession): Promise<void> {
    this.#detach(session);
    await this.#store.delete(session.id);
    this.#publish(session, { kind: 'end' });
  }

  /** This instance's copy ended (expiry, shutdown, deletion): stop listening to its channel. */
  detached(session: HttpSession): void {
    this.#detach(session);
  }

  #detach(session: HttpSession): void {
    const held = this.#held.get(session);
    this.#held.delete(session);
    held?.unsubscribe?.();
    if (this.#held.size === 0 && this.#keepAlive !== undefined) {
      clearInterval(this.#keepAlive);
      this.#keepAlive = undefined;
    }
  }

  /**
   * A session whose only traffic is an open GET stream sends no request that would extend its
   * record: every third of the TTL, the records of held sessions with an open connection or a
   * request in flight are extended.
   */
  #startKeepAlive(): void {
    if (this.#keepAlive !== undefined) return;
    const every = Math.max(1000, Math.floor(this.#store.ttlMs / 3));
    const timer = setInterval(() => {
      const now = Date.now();
      for (const [session, held] of this.#held) {
        if (session.active === 0 || session.closed) continue;
        held.checkedAt = now;
        this.#store.touch(session.id, now).then(
          (alive) => {
            if (!alive) this.#endLocal(session);
          },
          (error: unknown) => this.#logger.warn('extending a shared session failed', { session: session.id, error: describeError(error) }),
        );
      }
    }, every);
    (timer as { unref?: () => void }).unref?.();
    this.#keepAlive = timer;
  }

  #publish(session: HttpSession, body: SessionBusEnvelope['body']): void {
    const bus = this.#bus;
    if (bus === undefined) return;
    bus.publish(session.id, { from: this.instance, body }).catch((error: unknown) => {
      this.#logger.error('publishing to the session bus failed', { session: session.id, kind: body.kind, error: describeError(error) });
    });
  }

  #received(session: HttpSession, envelope: SessionBusEnvelope): void {
    if (envelope.from === this.instance || session.closed) return;
    const body = envelope.body;
    try {
      switch (body.kind) {
        case 'send': {
          const standalone = session.standalone;
          if (standalone.connected) standalone.send(body.message);
          return;
        }
        case 'answer':
          session.settle(body.message, false);
          return;
        case 'state': {
          const held = this.#held.get(session);
          if (held !== undefined) held.state = JSON.stringify(body.state);
          this.#dispatcher.importSession?.(session.state, body.state);
          return;
        }
        case 'end':
          this.#endLocal(session);
          return;
      }
    } catch (error) {
      this.#logger.error('handling a session bus message failed', { session: session.id, error: describeError(error) });
    }
  }
}
