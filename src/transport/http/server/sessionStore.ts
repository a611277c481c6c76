/**
 * Where the stateful Streamable HTTP sessions (2025-03-26 … 2025-11-25, `Mcp-Session-Id`) of
 * several server instances meet: the {@link SessionStore} holds each session's record (so any
 * instance can serve a request of a session another one created, after rehydrating it), and the
 * {@link SessionBus} carries what one instance must hand to another (a message for the GET stream
 * open elsewhere, a client's answer to a server→client request waiting elsewhere, the end of a
 * session).
 *
 * A handler without a store keeps its sessions in its own memory only (the default, unchanged
 * single-instance path: no store call on any request). {@link InMemorySessionStore} and
 * {@link MemorySessionBus} are the in-process implementations (several handlers of one process,
 * tests); `store/redis/redisSessionStore.ts` implements both on Redis for a cluster.
 *
 * @see https://modelcontextprotocol.io/specification/2025-11-25/basic/transports#session-management
 * @module
 */
import type { JsonRpcMessage, JsonRpcResponse } from '../../../jsonrpc/messages.js';

/** The shared record of one stateful session. */
export interface SessionRecord {
  /** The `Mcp-Session-Id`. */
  readonly id: string;
  /** The principal's id bound at `initialize` (null without authentication); a request of another principal is refused. */
  readonly principal: string | null;
  /** The negotiated protocol version. */
  readonly version: string;
  /**
   * The dispatcher's own state of the session as JSON (`McpDispatcher.exportSession`: client
   * info and capabilities, log level, resource subscriptions, …); absent when it has none.
   */
  readonly state?: Record<string, unknown>;
  /** When the session was created (ms since epoch). */
  readonly createdAt: number;
  /** Its last use seen by the store (ms since epoch); the record expires `ttlMs` after it. */
  readonly lastSeen: number;
}

/** Shared session records (see the module comment). Every method may reject (a store that cannot be reached): the caller refuses the request. */
export interface SessionStore {
  /** How long a record lives after its last use, in ms. */
  readonly ttlMs: number;
  /** Creates or replaces a record; it expires `ttlMs` after `record.lastSeen`. */
  save(record: SessionRecord): Promise<void>;
  /** The live record of `id`; undefined when unknown, deleted or expired. */
  load(id: string): Promise<SessionRecord | undefined>;
  /** Marks a use at `at`, extending the record's life; false when the record is gone. */
  touch(id: string, at: number): Promise<boolean>;
  /** Deletes a record (DELETE of the session); later loads find nothing. */
  delete(id: string): Promise<void>;
}

/** What instances tell each other about one session. */
export type SessionBusMessage =
  /** A message for the session's standalone GET stream: the instance holding it open writes it. */
  | { readonly kind: 'send'; readonly message: JsonRpcMessage }
  /** A client's answer to a server→client request: the instance waiting for that id settles it. */
  | { readonly kind: 'answer'; readonly message: JsonRpcResponse }
  /** The session's dispatcher state changed: instances holding it update their copy. */
  | { readonly kind: 'state'; readonly state: Record<string, unknown> }
  /** The session ended (DELETE): instances holding it end their copy. */
  | { readonly kind: 'end' };

/** One message on the bus, with the instance that published it. */
export interface SessionBusEnvelope {
  /** The publishing instance's id (an instance ignores its own messages). */
  readonly from: string;
  /** The message. */
  readonly body: SessionBusMessage;
}

/** Publish/subscribe per session between instances (see the module comment). */
export interface SessionBus {
  /** Publishes to every instance subscribed to `sessionId`; rejects when the bus cannot be reached. */
  publish(sessionId: string, envelope: SessionBusEnvelope): Promise<void>;
  /** Listens to `sessionId` until the returned function is called. */
  subscribe(sessionId: string, listener: (envelope: SessionBusEnvelope) => void): Promise<() => void>;
}

/** {@link SessionStore} in memory: one process (several handlers, tests). Expiry is checked on read. */
export class InMemorySessionStore implements SessionStore {
  readonly ttlMs: number;
  readonly #records = new Map<string, SessionRecord>();

  constructor(options: { readonly ttlMs?: number } = {}) {
    this.ttlMs = options.ttlMs ?? 30 * 60_000;
  }

  /** {@inheritDoc SessionStore.save} */
  save(record: SessionRecord): Promise<void> {
    this.#records.set(record.id, { ...record, ...(record.state === undefined ? {} : { state: structuredClone(record.state) }) });
    return Promise.resolve();
  }

  /** {@inheritDoc SessionStore.load} */
  load(id: string): Promise<SessionRecord | undefined> {
    const record = this.#live(id, Date.now());
    return Promise.resolve(record === undefined ? undefined : { ...record, ...(record.state === undefined ? {} : { state: structuredClone(record.state) }) });
  }

  /** {@inheritDoc SessionStore.touch} */
  touch(id: string, at: number): Promise<boolean> {
    const record = this.#live(id, at);
    if (record !== undefined) this.#records.set(id, { ...record, lastSeen: Math.max(record.lastSeen, at) });
    return Promise.resolve(record !== undefined);
  }

  /** {@inheritDoc SessionStore.delete} */
  delete(id: string): Promise<void> {
    this.#records.delete(id);
    return Promise.resolve();
  }

  #live(id: string, now: number): SessionRecord | undefined {
    const record = this.#records.get(id);
    if (record === undefined) return undefined;
    if (now - record.lastSeen > this.ttlMs) {
      this.#records.delete(id);
      return undefined;
    }
    return record;
  }
}

/** {@link SessionBus} in memory: delivers to the subscribers of one process (asynchronously, like a network bus). */
export class MemorySessionBus implements SessionBus {
  readonly #listeners = new Map<string, Set<(envelope: SessionBusEnvelope) => void>>();

  /** {@inheritDoc SessionBus.publish} */
  publish(sessionId: string, envelope: SessionBusEnvelope): Promise<void> {
    const listeners = [...(this.#listeners.get(sessionId) ?? [])];
    const copy = structuredClone(envelope);
    queueMicrotask(() => {
      for (const listener of listeners) listener(copy);
    });
    return Promise.resolve();
  }

  /** {@inheritDoc SessionBus.subscribe} */
  subscribe(sessionId: string, listener: (envelope: SessionBusEnvelope) => void): Promise<() => void> {
    let set = this.#listeners.get(sessionId);
    if (set === undefined) this.#listeners.set(sessionId, (set = new Set()));
    const own = set;
    const wrapped = (envelope: SessionBusEnvelope): void => listener(envelope);
    own.add(wrapped);
    return Promise.resolve(() => {
      own.delete(wrapped);
      if (own.size === 0 && this.#listeners.get(sessionId) === own) this.#listeners.delete(sessionId);
    });
  }
}
