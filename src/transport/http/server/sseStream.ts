/**
 * The push-based {@link SseStream} the server core hands to adapters: it queues encoded
 * events until the adapter attaches its output, forwards them afterwards, and turns a client
 * disconnect into a cancellation callback. Framing lives in `sse.ts`; this file only moves
 * already-encoded text.
 *
 * @module
 */
import { McpError, McpErrorCode } from '../../../util/errors.js';
import type { SseSink, SseStream } from './types.js';

/** Default of `maxSseBufferedBytes`: how far a reader may fall behind before its stream is cut. */
export const DEFAULT_MAX_SSE_BUFFERED_BYTES = 8 * 1024 * 1024;

const MAX_TIMER_MS = 2 ** 31 - 1;

/** An {@link SseStream} that the producer writes to and the adapter drains. */
export class PushSseStream implements SseStream {
  /** Always `'sse'`. */
  readonly kind = 'sse' as const;
  readonly #onCancel: (reason: unknown) => void;
  readonly #maxBuffered: number;
  #sink: SseSink | undefined;
  #queue: string[] = [];
  #queuedChars = 0;
  #ended = false;
  #cancelled = false;
  #cancelReason: unknown;
  #deadline: ReturnType<typeof setTimeout> | undefined;

  /**
   * `onCancel` runs once when the consumer goes away (never after a normal {@link close}),
   * including when it falls more than `maxBufferedBytes` behind (a slow or stalled reader);
   * 0 disables that bound.
   */
  constructor(onCancel: (reason: unknown) => void, maxBufferedBytes: number = DEFAULT_MAX_SSE_BUFFERED_BYTES) {
    this.#onCancel = onCancel;
    this.#maxBuffered = maxBufferedBytes;
  }

  /** True once closed or cancelled: writes are dropped. */
  get finished(): boolean {
    return this.#ended || this.#cancelled;
  }

  /** Queues or writes encoded SSE text. Dropped after close or cancel. */
  write(chunk: string): void {
    if (this.#ended || this.#cancelled) return;
    const sink = this.#sink;
    if (sink === undefined) {
      this.#queue.push(chunk);
      // UTF-16 length ≤ UTF-8 bytes ≤ 3× it: a cheap bound that never under-counts by more than 3×.
      this.#queuedChars += chunk.length;
      if (this.#maxBuffered > 0 && this.#queuedChars > this.#maxBuffered) this.cancel(this.#overflow(this.#queuedChars));
      return;
    }
    try {
      sink.write(chunk);
    } catch (e) {
      this.cancel(e);
      return;
    }
    if (this.#maxBuffered > 0 && sink.buffered !== undefined) {
      const behind = sink.buffered();
      if (behind > this.#maxBuffered) this.cut(this.#overflow(behind));
    }
  }

  /**
   * Cuts the stream from the server side: the producer is told (as on a client disconnect)
   * and the adapter drops the response (or ends it when it cannot drop).
   */
  cut(reason: unknown): void {
    if (this.#ended || this.#cancelled) return;
    this.cancel(reason);
    const sink = this.#sink;
    if (sink === undefined) return; // start() ends it when the adapter attaches
    try {
      if (sink.abort !== undefined) sink.abort(reason);
      else sink.end();
    } catch {
      // The consumer is gone already.
    }
  }

  /**
   * Cuts the stream at `epochMs` (e.g. when the access token it was opened with expires),
   * unless it ended before. The timer does not keep a process alive.
   */
  cutAt(epochMs: number, reason: () => unknown): void {
    if (this.#ended || this.#cancelled) return;
    if (this.#deadline !== undefined) clearTimeout(this.#deadline);
    const delay = epochMs - Date.now();
    if (delay <= 0) {
      this.cut(reason());
      return;
    }
    // setTimeout caps at 2^31-1 ms (~24.8 days); re-arm past that.
    const timer = setTimeout(() => (delay > MAX_TIMER_MS ? this.cutAt(epochMs, reason) : this.cut(reason())), Math.min(delay, MAX_TIMER_MS));
    (timer as { unref?: () => void }).unref?.();
    this.#deadline = timer;
  }

  #clearDeadline(): void {
    if (this.#deadline === undefined) return;
    clearTimeout(this.#deadline);
    this.#deadline = undefined;
  }

  #overflow(behind: number): McpError {
    return new McpError(
      McpErrorCode.ConnectionClosed,
      `the SSE reader fell ${behind} bytes behind (limit ${this.#maxBuffered}): stream cut; a resumable stream can be resumed with Last-Event-ID`,
    );
  }

  /** Ends the stream after everything written so far. Idempotent. */
  close(): void {
    if (this.#ended || this.#cancelled) return;
    this.#ended = true;
    this.#clearDeadline();
    const sink = this.#sink;
    if (sink === undefined) return;
    try {
      sink.end();
    } catch {
      // The consumer is gone; nothing left to do.
    }
  }

  /** {@inheritDoc SseStream.start} */
  start(sink: SseSink): void {
    if (this.#sink !== undefined) throw new Error('SSE stream already started');
    this.#sink = sink;
    if (this.#cancelled) {
      // Cut before the adapter attached (an overflowing queue, an early cancel): the response
      // must still end, or its reader would wait forever.
      try {
        if (sink.abort !== undefined) sink.abort(this.#cancelReason);
        else sink.end();
      } catch {
        // The consumer is gone already.
      }
      return;
    }
    const queued = this.#queue;
    this.#queue = [];
    this.#queuedChars = 0;
    try {
      for (const chunk of queued) sink.write(chunk);
      if (this.#ended) sink.end();
    } catch (e) {
      this.cancel(e);
    }
  }

  /** {@inheritDoc SseStream.cancel} */
  cancel(reason?: unknown): void {
    if (this.#cancelled || this.#ended) return;
    this.#cancelled = true;
    this.#cancelReason = reason;
    this.#clearDeadline();
    this.#queue = [];
    this.#queuedChars = 0;
    this.#onCancel(reason);
  }
}
