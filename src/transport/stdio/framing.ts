/**
 * NDJSON plumbing shared by both stdio transports: a size-bounded frame reader that turns
 * bytes into decoded frames (oversize lines become the -32600 error frame the connection
 * answers), and a FIFO line writer that honours stream backpressure.
 *
 * Internal to `transport/stdio`; not part of the public API.
 *
 * @see https://modelcontextprotocol.io/specification/2026-07-28/basic/transports/stdio
 * @module
 */
import { Buffer } from 'node:buffer';
import type { Writable } from 'node:stream';
import { decodeFrame, defaultDecodeLimits, type DecodeLimits, type DecodeResult } from '../../jsonrpc/decode.js';
import { JsonRpcError } from '../../jsonrpc/errors.js';
import { LineReader } from '../../jsonrpc/ndjson.js';
import { McpError, McpErrorCode } from '../../util/errors.js';

/**
 * The frame a line longer than `limit` bytes deserves: the same shape `decodeFrame` gives an
 * oversize frame, so the connection answers it with -32600 and id `null`.
 */
export function oversizeFrame(limit: number): DecodeResult {
  return {
    ok: false,
    error: JsonRpcError.invalidRequest(`the message is larger than ${limit} bytes`, { limit }),
    id: null,
    isResponse: false,
  };
}

/**
 * A {@link LineReader} bounded by `limits.maxBytes` whose complete lines are decoded with
 * {@link decodeFrame} and handed to `deliver`, in order.
 */
export function createFrameReader(limits: DecodeLimits, deliver: (frame: DecodeResult) => void): LineReader {
  const maxBytes = limits.maxBytes ?? defaultDecodeLimits.maxBytes;
  return new LineReader(
    {
      line: (bytes) => deliver(decodeFrame(bytes, limits)),
      oversize: () => deliver(oversizeFrame(maxBytes)),
    },
    maxBytes,
  );
}

/** Normalizes a `'data'` chunk (a Buffer, or a string when an encoding was set) to bytes. */
export function toBytes(chunk: unknown): Uint8Array {
  if (chunk instanceof Uint8Array) return chunk;
  return Buffer.from(String(chunk), 'utf8');
}

/** Lines waiting for the next flush, and the one promise their writers share. */
interface Batch {
  text: string;
  readonly promise: Promise<void>;
  readonly resolve: () => void;
  readonly reject: (error: unknown) => void;
}

function newBatch(text: string): Batch {
  let resolve!: () => void;
  let reject!: (error: unknown) => void;
  const promise = new Promise<void>((res, rej) => {
    resolve = res;
    reject = rej;
  });
  return { text, promise, resolve, reject };
}

/**
 * When a {@link LineWriter} flushes what was written: `microtask` (lines written in the same
 * synchronous run share a `write`; nothing waits for the next loop turn, which a process
 * exiting right after its last answer may not see: a server's stdout), or `turn` (lines
 * written anywhere in this turn of the event loop share a `write`, flushed in its check phase:
 * a host writing to a server's stdin, where the requests of many upstream connections read in
 * one poll go out in one syscall instead of one each).
 */
export type FlushTiming = 'microtask' | 'turn';

/**
 * Writes lines to a stream in call order, coalesced per {@link FlushTiming} into one `write`
 * (one syscall instead of one per message: under load most of a stdio transport's cost). When
 * the stream's buffer is full (`write` returned false) the pending write's promise waits for
 * `'drain'`, and later batches queue behind it, so a slow reader slows the sender instead of
 * growing memory in the stream. The lines of one batch share one promise (one allocation per
 * flush, not per message), and a flush with nothing queued writes at once.
 */
export class LineWriter {
  readonly #stream: Writable;
  readonly #describe: string;
  readonly #schedule: (flush: () => void) => void;
  #failure: Error | undefined;
  #batch: Batch | undefined;
  /** A write waits for `'drain'`: later batches wait in {@link #backlog}. */
  #blocked = false;
  readonly #backlog: Batch[] = [];
  /** Run once nothing is blocked or queued (`end()` behind a full pipe). */
  #onIdle: (() => void)[] = [];

  readonly #explain: ((closed: McpError) => Promise<Error>) | undefined;

  /**
   * `describe` names the stream in error messages ("stdout", "the server's stdin"). `explain`
   * turns "the stream closed under a pending write" into what caused it (a child process's exit
   * code), for the writes that meet the close.
   */
  constructor(stream: Writable, describe: string, timing: FlushTiming = 'microtask', explain?: (closed: McpError) => Promise<Error>) {
    this.#stream = stream;
    this.#describe = describe;
    this.#explain = explain;
    this.#schedule = timing === 'turn' ? (flush) => void setImmediate(flush) : (flush) => queueMicrotask(flush);
  }

  /** Marks the writer failed: queued and later writes reject with `error`. */
  fail(error: Error): void {
    this.#failure ??= error;
  }

  /** Queues `text`; resolves once the stream accepted it (after `'drain'` if it was full). */
  write(text: string): Promise<void> {
    const batch = this.#batch;
    if (batch !== undefined) {
      batch.text += text;
      return batch.promise;
    }
    const fresh = newBatch(text);
    this.#batch = fresh;
    this.#schedule(this.#flush);
    return fresh.promise;
  }

  /** Writes the batch now, or queues it behind a write waiting for `'drain'`. */
  readonly #flush = (): void => {
    const batch = this.#batch;
    if (batch === undefined) return;
    this.#batch = undefined;
    if (this.#blocked) this.#backlog.push(batch);
    else this.#send(batch);
  };

  #send(batch: Batch): void {
    let wait: Promise<void> | undefined;
    try {
      wait = this.#writeNow(batch.text);
    } catch (error) {
      batch.reject(error);
      return;
    }
    if (wait === undefined) {
      batch.resolve();
      return;
    }
    this.#blocked = true;
    void wait.then(batch.resolve, batch.reject).then(() => {
      this.#blocked = false;
      while (!this.#blocked) {
        const next = this.#backlog.shift();
        if (next === undefined) break;
        this.#send(next);
      }
      if (this.#blocked) return;
      const idle = this.#onIdle;
      this.#onIdle = [];
      for (const run of idle) run();
    });
  }

  /** Ends the stream after every queued write, without waiting for it. */
  end(): void {
    this.#flush();
    const finish = (): void => {
      const stream = this.#stream;
      if (stream.destroyed || stream.writableEnded) return;
      try {
        stream.end();
      } catch {
        // some special streams refuse end(); the owner closes them
      }
    };
    if (this.#blocked) this.#onIdle.push(finish);
    else finish();
  }

  /** Rejects a write the stream's close met: with the writer's failure, else what `explain` makes of the close. */
  #closed(reject: (error: Error) => void, cause?: Error): void {
    if (this.#failure !== undefined) return reject(this.#failure);
    const closed = new McpError(McpErrorCode.ConnectionClosed, `${this.#describe} closed before the message was flushed`, cause === undefined ? undefined : { cause });
    if (this.#explain === undefined) return reject(closed);
    this.#explain(closed).then(reject, () => reject(closed));
  }

  #writeNow(text: string): Promise<void> | undefined {
    if (this.#failure !== undefined) throw this.#failure;
    const stream = this.#stream;
    if (stream.destroyed || stream.writableEnded || !stream.writable) {
      throw new McpError(McpErrorCode.ConnectionClosed, `Cannot write: ${this.#describe} is closed`);
    }
    if (stream.write(text)) return undefined;
    return new Promise<void>((resolve, reject) => {
      const cleanup = (): void => {
        stream.off('drain', onDrain);
        stream.off('error', onError);
        stream.off('close', onClose);
      };
      const onDrain = (): void => {
        cleanup();
        resolve();
      };
      const onError = (error: Error): void => {
        cleanup();
        // A pipe whose reader is gone (the process died) is a closed connection, not a failed write.
        const code = (error as Error & { code?: unknown }).code;
        if (code === 'EPIPE' || code === 'ERR_STREAM_DESTROYED') {
          this.#closed(reject, error);
          return;
        }
        reject(new McpError(McpErrorCode.SendFailed, `Writing to ${this.#describe} failed`, { cause: error }));
      };
      const onClose = (): void => {
        cleanup();
        this.#closed(reject);
      };
      stream.on('drain', onDrain);
      stream.on('error', onError);
      stream.on('close', onClose);
    });
  }
}

