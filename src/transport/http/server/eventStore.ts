/**
 * Resumability storage for the stateful Streamable HTTP revisions (2025-03-26, 2025-06-18,
 * 2025-11-25): every SSE event a session sends gets an id `<streamId>_<seq>` (unique across
 * the session, and naming the stream it belongs to), and is appended to an {@link EventStore}
 * so that a client reconnecting with `GET` + `Last-Event-ID` gets exactly the events of THAT
 * stream it missed, never another stream's.
 *
 * The interface is async-friendly (every method may return a promise) so a Redis or SQL store
 * fits; {@link InMemoryEventStore} is the bounded default.
 *
 * @see https://modelcontextprotocol.io/specification/2025-11-25/basic/transports#resumability-and-redelivery
 * @module
 */
import type { JsonRpcMessage } from '../../../jsonrpc/messages.js';

/** One stored SSE event of a session's stream. */
export interface StoredEvent {
  /** The position in its stream; ids are `<streamId>_<seq>`, `seq` grows by at least 1. */
  readonly seq: number;
  /** The JSON-RPC message the event carried. */
  readonly message: JsonRpcMessage;
  /**
   * The length of the encoded event (its SSE text) when the transport knows it, so a store
   * can bound memory without serialising the message again.
   */
  readonly size?: number;
}

/**
 * Where a session's SSE events are kept for replay. Calls for one session arrive in order;
 * the transport awaits pending appends of a stream before asking to replay it.
 */
export interface EventStore {
  /** Records the event `seq` of `streamId` in session `sessionId`. */
  append(sessionId: string, streamId: string, event: StoredEvent): void | Promise<void>;
  /**
   * The events of `streamId` with a `seq` greater than `afterSeq`, oldest first. Events the
   * store has dropped (bounds, expiry) are simply missing.
   */
  replayAfter(sessionId: string, streamId: string, afterSeq: number): readonly StoredEvent[] | Promise<readonly StoredEvent[]>;
  /** Forgets everything of a session (DELETE, expiry). */
  dropSession(sessionId: string): void | Promise<void>;
}

/** Options for {@link InMemoryEventStore}. */
export interface InMemoryEventStoreOptions {
  /** Events kept per session, across its streams; the oldest are dropped first. Default 1,000. */
  readonly maxEventsPerSession?: number;
  /**
   * Encoded size (characters of SSE text, {@link StoredEvent.size}) kept per session; the
   * oldest events are dropped first, but the newest one is always kept. A handful of huge
   * tool results cannot pin memory the way 1,000 small events cannot. Default 4 MiB.
   */
  readonly maxSizePerSession?: number;
}

interface SessionLog {
  /** Per stream, its events in order. */
  readonly streams: Map<string, StoredEvent[]>;
  /** Stream ids in append order, one entry per event: the eviction order. */
  readonly order: string[];
  /** Index of the oldest live entry in `order` (a cheap queue). */
  head: number;
  /** Sum of the live events' sizes. */
  size: number;
}

/**
 * The default {@link EventStore}: plain maps in memory, bounded per session (oldest events
 * dropped first). Single-process only; use a shared store behind a load balancer.
 */
export class InMemoryEventStore implements EventStore {
  readonly #max: number;
  readonly #maxSize: number;
  readonly #sessions = new Map<string, SessionLog>();

  constructor(options: InMemoryEventStoreOptions = {}) {
    this.#max = Math.max(1, options.maxEventsPerSession ?? 1000);
    this.#maxSize = Math.max(0, options.maxSizePerSession ?? 4 * 1024 * 1024);
  }

  /** {@inheritDoc EventStore.append} */
  append(sessionId: string, streamId: string, event: StoredEvent): void {
    let log = this.#sessions.get(sessionId);
    if (log === undefined) {
      log = { streams: new Map(), order: [], head: 0, size: 0 };
      this.#sessions.set(sessionId, log);
    }
    let events = log.streams.get(streamId);
    if (events === undefined) {
      events = [];
      log.streams.set(streamId, events);
    }
    events.push(event);
    log.order.push(streamId);
    log.size += event.size ?? 0;
    while (log.order.length - log.head > this.#max || (log.size > this.#maxSize && log.order.length - log.head > 1)) {
      const oldest = log.order[log.head] as string;
      log.head++;
      const list = log.streams.get(oldest);
      if (list !== undefined) {
        const dropped = list.shift();
        log.size -= dropped?.size ?? 0;
        if (list.length === 0) log.streams.delete(oldest);
      }
    }
    if (log.head > 1024 && log.head * 2 > log.order.length) {
      log.order.splice(0, log.head);
      log.head = 0;
    }
  }

  /** {@inheritDoc EventStore.replayAfter} */
  replayAfter(sessionId: string, streamId: string, afterSeq: number): readonly StoredEvent[] {
    const events = this.#sessions.get(sessionId)?.streams.get(streamId);
    if (events === undefined) return [];
    let lo = 0;
    let hi = events.length;
    while (lo < hi) {
      const mid = (lo + hi) >>> 1;
      if ((events[mid] as StoredEvent).seq <= afterSeq) lo = mid + 1;
      else hi = mid;
    }
    return events.slice(lo);
  }

  /** {@inheritDoc EventStore.dropSession} */
  dropSession(sessionId: string): void {
    this.#sessions.delete(sessionId);
  }

  /** The summed {@link StoredEvent.size} kept for a session (diagnostics, tests). */
  sizeOf(sessionId: string): number {
    return this.#sessions.get(sessionId)?.size ?? 0;
  }

  /** How many events are kept for a session (diagnostics, tests). */
  size(sessionId: string): number {
    const log = this.#sessions.get(sessionId);
    return log === undefined ? 0 : log.order.length - log.head;
  }
}

/** The id of the session's standalone GET stream. POST streams get `1`, `2`, … (base 36). */
export const STANDALONE_STREAM_ID = '0';

/** Formats an SSE event id: `<streamId>_<seq>`. */
export function formatEventId(streamId: string, seq: number): string {
  return `${streamId}_${seq}`;
}

/** Parses an id made by {@link formatEventId}; undefined when it is not one. */
export function parseEventId(id: string): { readonly streamId: string; readonly seq: number } | undefined {
  const at = id.indexOf('_');
  if (at <= 0 || at === id.length - 1 || id.length > 64) return undefined;
  const streamId = id.slice(0, at);
  const digits = id.slice(at + 1);
  if (!/^[0-9a-z]+$/.test(streamId) || !/^[0-9]+$/.test(digits)) return undefined;
  const seq = Number(digits);
  return Number.isSafeInteger(seq) ? { streamId, seq } : undefined;
}
