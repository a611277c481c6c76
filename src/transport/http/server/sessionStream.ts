/**
 * One logical SSE stream of a stateful Streamable HTTP session, and the HTTP responses that
 * carry it. A stream outlives its connections: a POST's stream keeps collecting events (in
 * the {@link EventStore}) after the client dropped the connection or the handler closed it
 * early (SEP-1699 polling), and a `GET` with `Last-Event-ID` replays what was missed and
 * continues it. The session's standalone `GET` stream buffers unsolicited messages while no
 * connection is open and flushes them when one opens.
 *
 * Event ids are `<streamId>_<seq>` (see `eventStore.ts`): unique across the session and
 * naming their stream, so a replay never crosses streams.
 *
 * @see https://modelcontextprotocol.io/specification/2025-11-25/basic/transports#resumability-and-redelivery
 * @see https://modelcontextprotocol.io/specification/2025-11-25/basic/transports#listening-for-messages-from-the-server
 * @module
 */
import type { JsonRpcMessage } from '../../../jsonrpc/messages.js';
import type { Logger } from '../../../util/logger.js';
import { formatEventId, type EventStore } from './eventStore.js';
import { encodeSseComment } from '../sse.js';
import { PushSseStream } from './sseStream.js';

/** The handler-wide settings a {@link SessionStream} works with. */
export interface StreamSettings {
  /** Where events are kept for replay. */
  readonly store: EventStore;
  /** Diagnostics. */
  readonly logger: Logger;
  /** Interval of keep-alive comments in ms; 0 disables. */
  readonly keepAliveMs: number;
  /** How far a reader may fall behind before its connection is cut (bytes); 0 disables. */
  readonly maxSseBufferedBytes: number;
  /** The SEP-1699 `retry` hint in ms sent with priming events. */
  readonly retryMs: number;
  /** Unsent standalone messages kept while no GET stream is open. */
  readonly maxPending: number;
}

/** What a {@link SessionStream} needs from its session. */
export interface StreamHost {
  /** The session id, the key in the event store. */
  readonly id: string;
  /** The handler-wide stream settings. */
  readonly settings: StreamSettings;
  /** True when new connections start with a priming event (revision 2025-11-25 and later). */
  readonly priming: boolean;
  /** A connection of the session opened (+1) or ended (-1); sessions with open ones are not idle. */
  activity(delta: 1 | -1): void;
}

/** One HTTP response carrying (part of) a {@link SessionStream}. */
export class SseConnection {
  /** The response body handed to the adapter. */
  readonly body: PushSseStream;
  /** The highest seq written; replays and live writes never go at or below it. */
  lastSeq: number;
  #held: { seq: number; text: string }[] | undefined;
  #endWhenReleased = false;
  #timer: ReturnType<typeof setInterval> | undefined;
  #open = true;
  readonly #onGone: (conn: SseConnection) => void;

  constructor(lastSeq: number, keepAliveMs: number, maxBufferedBytes: number, onGone: (conn: SseConnection) => void) {
    this.lastSeq = lastSeq;
    this.#onGone = onGone;
    this.body = new PushSseStream(() => this.#gone(), maxBufferedBytes);
    if (keepAliveMs > 0) {
      const comment = encodeSseComment();
      const timer = setInterval(() => this.body.write(comment), keepAliveMs);
      (timer as { unref?: () => void }).unref?.();
      this.#timer = timer;
    }
  }

  /** True until ended or cancelled. */
  get open(): boolean {
    return this.#open;
  }

  /** Writes an event (held while a replay runs); skipped when not newer than {@link lastSeq}. */
  event(seq: number, text: string, replay = false): void {
    if (!this.#open || seq <= this.lastSeq) return;
    if (this.#held !== undefined && !replay) {
      this.#held.push({ seq, text });
      return;
    }
    this.lastSeq = seq;
    this.body.write(text);
  }

  /** Writes text that carries no stream position (priming). */
  raw(text: string): void {
    if (this.#open) this.body.write(text);
  }

  /** Holds live events until {@link release} (a replay is being written). */
  hold(): void {
    this.#held ??= [];
  }

  /** Writes the held live events that the replay did not cover, then ends if asked meanwhile. */
  release(): void {
    const held = this.#held;
    this.#held = undefined;
    if (held !== undefined) for (const h of held) this.event(h.seq, h.text);
    if (this.#endWhenReleased) {
      this.#endWhenReleased = false;
      this.end();
    }
  }

  /** Ends the HTTP response (the logical stream may continue). Idempotent. */
  end(): void {
    if (!this.#open) return;
    if (this.#held !== undefined) {
      // A replay is being written: end after it and the events held meanwhile, not before
      // (the stream's final response may arrive while an async store is still replaying).
      this.#endWhenReleased = true;
      return;
    }
    this.body.close();
    this.#finish();
  }

  #gone(): void {
    if (this.#open) this.#finish();
  }

  #finish(): void {
    this.#open = false;
    this.#held = undefined;
    if (this.#timer !== undefined) clearInterval(this.#timer);
    this.#timer = undefined;
    this.#onGone(this);
  }
}

/** Encodes one JSON-RPC message as an SSE event with an id. */
function encodeEvent(id: string, message: JsonRpcMessage): string {
  return `id: ${id}\ndata: ${JSON.stringify(message)}\n\n`;
}

/** A logical SSE stream of a session (a POST's, or the standalone GET one). */
export class SessionStream {
  /** The stream id (`0` for the standalone stream). */
  readonly id: string;
  /** True for the standalone GET stream. */
  readonly standalone: boolean;
  /** True once the POST's final response was sent: the stream only replays now. */
  finished = false;
  readonly #host: StreamHost;
  #seq = 0;
  #conn: SseConnection | undefined;
  #pending: JsonRpcMessage[] | undefined;
  #appends: Promise<void> | undefined;
  /** A standalone stream's replay is being written: new messages wait (unnumbered) until it ends. */
  #resuming = false;

  constructor(host: StreamHost, id: string, standalone: boolean) {
    this.#host = host;
    this.id = id;
    this.standalone = standalone;
  }

  /** True while a connection carries the stream. */
  get connected(): boolean {
    return this.#conn !== undefined;
  }

  /**
   * Sends a message on the stream: numbered, stored for replay and written to the open
   * connection. The standalone stream keeps messages unnumbered while no connection is open
   * (bounded; the oldest are dropped) and numbers them when one opens.
   */
  send(message: JsonRpcMessage): void {
    if (this.finished) return;
    if (this.standalone && (this.#conn === undefined || this.#resuming)) {
      const pending = (this.#pending ??= []);
      pending.push(message);
      if (pending.length > this.#host.settings.maxPending) {
        pending.shift();
        this.#host.settings.logger.warn('dropping the oldest buffered message of an unopened GET stream', { session: this.#host.id });
      }
      return;
    }
    const seq = ++this.#seq;
    const text = encodeEvent(formatEventId(this.id, seq), message);
    this.#record(seq, message, text.length);
    this.#conn?.event(seq, text);
  }

  /** Sends the POST's final message, then ends the connection; later sends are dropped. */
  finish(message: JsonRpcMessage): void {
    this.send(message);
    this.finished = true;
    this.#conn?.end();
  }

  /** Ends the current connection without ending the stream (SEP-1699 polling). */
  endConnection(): void {
    this.#conn?.end();
  }

  /** Settles once every event sent so far is in the store; undefined when none is pending. */
  get pendingAppends(): Promise<void> | undefined {
    return this.#appends;
  }

  /** Ends the connection and forgets buffered messages (the session ended). */
  close(): void {
    this.finished = true;
    this.#pending = undefined;
    this.#conn?.end();
  }

  /**
   * Opens a new connection for the stream: a fresh one (priming event first on 2025-11-25
   * sessions, then buffered standalone messages), or a resumption after `lastSeq` that
   * replays the stored events first. Replaces (ends) a connection already open.
   */
  open(lastSeq?: number): SseConnection {
    const conn = this.#connect(lastSeq ?? 0);
    if (lastSeq === undefined) {
      const host = this.#host;
      if (host.priming) {
        const seq = ++this.#seq;
        conn.lastSeq = seq;
        conn.raw(`id: ${formatEventId(this.id, seq)}\nretry: ${host.settings.retryMs}\ndata: \n\n`);
      }
      this.#flushPending();
      if (this.finished) conn.end();
      return conn;
    }
    // Live numbering continues after what the client saw (and, below, after what was stored).
    if (lastSeq > this.#seq) this.#seq = lastSeq;
    conn.hold();
    if (this.standalone) this.#resuming = true;
    void this.#replay(conn, this.id, lastSeq);
    return conn;
  }

  /**
   * Opens a connection of this (standalone) stream that first replays another instance's
   * standalone stream `streamId` after `lastSeq` (a shared session's GET stream resumed on
   * another instance), with that stream's event ids, then carries this stream on.
   */
  openAfter(streamId: string, lastSeq: number): SseConnection {
    const conn = this.#connect(this.#seq);
    conn.hold();
    this.#resuming = true;
    void this.#replay(conn, streamId, lastSeq);
    return conn;
  }

  #connect(lastSeq: number): SseConnection {
    const host = this.#host;
    this.#conn?.end();
    const conn = new SseConnection(lastSeq, host.settings.keepAliveMs, host.settings.maxSseBufferedBytes, (c) => {
      if (this.#conn === c) this.#conn = undefined;
      host.activity(-1);
    });
    host.activity(1);
    this.#conn = conn;
    return conn;
  }

  async #replay(conn: SseConnection, streamId: string, lastSeq: number): Promise<void> {
    const host = this.#host;
    const own = streamId === this.id;
    try {
      if (own && this.#appends !== undefined) await this.#appends;
      const events = await host.settings.store.replayAfter(host.id, streamId, lastSeq);
      for (const e of events) {
        const text = encodeEvent(formatEventId(streamId, e.seq), e.message);
        if (!own) conn.raw(text);
        else {
          if (e.seq > this.#seq) this.#seq = e.seq;
          conn.event(e.seq, text, true);
        }
      }
    } catch (e) {
      host.settings.logger.error('replaying SSE events failed', { session: host.id, stream: streamId, error: String(e) });
    }
    this.#resuming = false;
    conn.release();
    if (this.#conn !== conn) return;
    this.#flushPending();
    if (this.finished) conn.end();
  }

  #flushPending(): void {
    const pending = this.#pending;
    if (pending === undefined) return;
    this.#pending = undefined;
    for (const message of pending) this.send(message);
  }

  #record(seq: number, message: JsonRpcMessage, size: number): void {
    const host = this.#host;
    let result: void | Promise<void>;
    try {
      result = host.settings.store.append(host.id, this.id, { seq, message, size });
    } catch (e) {
      host.settings.logger.error('storing an SSE event failed', { session: host.id, error: String(e) });
      return;
    }
    if (result === undefined) return;
    const done = Promise.resolve(result).catch((e: unknown) => {
      host.settings.logger.error('storing an SSE event failed', { session: host.id, error: String(e) });
    });
    const previous = this.#appends;
    const chained = previous === undefined ? done : previous.then(() => done);
    this.#appends = chained;
    void chained.then(() => {
      if (this.#appends === chained) this.#appends = undefined;
    });
  }
}
