/**
 * The push-based {@link SseStream} the server core hands to adapters: it queues encoded
 * events until the adapter attaches its output, forwards them afterwards, and turns a client
 * disconnect into a cancellation callback. Framing lives in `sse.ts`; this file only moves
 * already-encoded text.
 *
 * @module
 */
import type { SseSink, SseStream } from './types.js';

/** An {@link SseStream} that the producer writes to and the adapter drains. */
export class PushSseStream implements SseStream {
  /** Always `'sse'`. */
  readonly kind = 'sse' as const;
  readonly #onCancel: (reason: unknown) => void;
  #sink: SseSink | undefined;
  #queue: string[] = [];
  #ended = false;
  #cancelled = false;

  /** `onCancel` runs once when the consumer goes away (never after a normal {@link close}). */
  constructor(onCancel: (reason: unknown) => void) {
    this.#onCancel = onCancel;
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
      return;
    }
    try {
      sink.write(chunk);
    } catch (e) {
      this.cancel(e);
    }
  }

  /** Ends the stream after everything written so far. Idempotent. */
  close(): void {
    if (this.#ended || this.#cancelled) return;
    this.#ended = true;
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
    if (this.#cancelled) return;
    const queued = this.#queue;
    this.#queue = [];
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
    this.#queue = [];
    this.#onCancel(reason);
  }
}
