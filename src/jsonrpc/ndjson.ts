/**
 * Newline-delimited JSON framing (the stdio transport's wire format): one JSON-RPC message
 * per line, UTF-8, no embedded newlines. Framing is kept apart from decoding and from
 * correlation; the reader only cuts lines, bounded in size.
 *
 * @see https://modelcontextprotocol.io/specification/2026-07-28/basic/transports/stdio
 * @module
 */
import type { JsonRpcMessage } from './messages.js';
import { concatBytes } from '../util/bytes.js';

const LF = 0x0a;
const CR = 0x0d;

/** Callbacks of a {@link LineReader}. */
export interface LineReaderEvents {
  /** One complete line, without its line ending. Empty lines are skipped. */
  line(frame: Uint8Array): void;
  /** A line grew past the limit; it is discarded up to its end. `size` is what was seen so far. */
  oversize(size: number): void;
}

/**
 * Cuts a byte stream into lines. A line longer than `maxBytes` is reported once and skipped
 * up to the next newline, so one huge message never buffers without bound.
 */
export class LineReader {
  readonly #events: LineReaderEvents;
  readonly #maxBytes: number;
  #parts: Uint8Array[] = [];
  #buffered = 0;
  #discarding = false;

  constructor(events: LineReaderEvents, maxBytes: number) {
    this.#events = events;
    this.#maxBytes = maxBytes;
  }

  /** Bytes held for an unfinished line. */
  get buffered(): number {
    return this.#buffered;
  }

  /** Feeds one chunk; complete lines are emitted synchronously, in order. */
  push(chunk: Uint8Array): void {
    let start = 0;
    while (start < chunk.length) {
      const nl = chunk.indexOf(LF, start);
      if (nl === -1) {
        this.#hold(chunk.subarray(start));
        return;
      }
      const segment = chunk.subarray(start, nl);
      start = nl + 1;
      if (this.#discarding) {
        this.#discarding = false;
        continue;
      }
      // One byte of slack for the CR of a CRLF ending, which is not part of the line.
      if (this.#buffered + segment.length > this.#maxBytes + 1) {
        const seen = this.#buffered + segment.length;
        this.#reset();
        this.#events.oversize(seen);
        continue;
      }
      let line: Uint8Array;
      if (this.#parts.length === 0) line = segment;
      else {
        this.#parts.push(segment);
        line = concatBytes(this.#parts, this.#buffered + segment.length);
        this.#reset();
      }
      let end = line.length;
      if (end > 0 && line[end - 1] === CR) end--;
      if (end > this.#maxBytes) {
        this.#events.oversize(line.length);
        continue;
      }
      if (isBlank(line, end)) continue;
      this.#events.line(end === line.length ? line : line.subarray(0, end));
    }
  }

  /**
   * The stream ended. Returns the number of bytes of an unfinished last line (a peer that
   * closed mid-message), which are dropped.
   */
  end(): number {
    const left = this.#buffered;
    this.#reset();
    this.#discarding = false;
    return left;
  }

  #hold(rest: Uint8Array): void {
    if (this.#discarding || rest.length === 0) return;
    if (this.#buffered + rest.length > this.#maxBytes + 1) {
      const seen = this.#buffered + rest.length;
      this.#reset();
      this.#discarding = true;
      this.#events.oversize(seen);
      return;
    }
    this.#parts.push(rest);
    this.#buffered += rest.length;
  }

  #reset(): void {
    this.#parts = [];
    this.#buffered = 0;
  }
}

function isBlank(line: Uint8Array, end: number): boolean {
  for (let i = 0; i < end; i++) {
    const c = line[i];
    if (c !== 0x20 && c !== 0x09 && c !== CR) return false;
  }
  return true;
}

/** Serializes a message (or batch) as one line, newline included. */
export function encodeLine(message: JsonRpcMessage | readonly JsonRpcMessage[]): string {
  // JSON.stringify escapes every control character, so the line has no embedded newline.
  return JSON.stringify(message) + '\n';
}
