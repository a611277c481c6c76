/**
 * Server-Sent Events framing, both directions, and nothing else: encoding events for the
 * server and an incremental parser for the client. Correlating the JSON inside `data` with
 * requests is somebody else's job.
 *
 * The parser follows the WHATWG event-stream interpretation rules: lines end in CRLF, LF or
 * CR (a CR at the end of one chunk and an LF at the start of the next are one line end); a
 * leading U+FEFF is dropped once; lines starting with `:` are comments; `id` values holding
 * NUL are ignored; `retry` takes ASCII digits only; a pending event at end of stream is
 * discarded.
 *
 * @see https://html.spec.whatwg.org/multipage/server-sent-events.html#event-stream-interpretation
 * @see https://modelcontextprotocol.io/specification/2026-07-28/basic/transports/streamable-http#receiving-messages
 * @module
 */

/** One event to encode. Every field is optional; `data` may span lines. */
export interface SseEventInit {
  /** The `id:` field. Must not contain CR, LF or NUL. */
  readonly id?: string;
  /** The `event:` field (the event type). Must not contain CR or LF. */
  readonly event?: string;
  /** The `retry:` field, a reconnection time in milliseconds (a non-negative integer). */
  readonly retry?: number;
  /** The payload. Each line of it (split on CRLF, CR or LF) becomes its own `data:` line. */
  readonly data?: string;
}

const LINE_BREAK = /\r\n|\r|\n/;

function checkField(name: string, value: string, allowNul: boolean): void {
  for (let i = 0; i < value.length; i++) {
    const c = value.charCodeAt(i);
    if (c === 0x0a || c === 0x0d || (!allowNul && c === 0)) {
      throw new TypeError(`SSE ${name} must not contain ${c === 0 ? 'NUL' : 'a line break'}`);
    }
  }
}

/**
 * Encodes one event, ending with the blank line that dispatches it. Throws `TypeError` for
 * an `id`/`event` with a line break (or NUL in `id`) or a bad `retry`, since those would
 * corrupt the stream.
 *
 * @example
 * ```ts
 * encodeSseEvent({ data: 'a\nb' }); // "data: a\ndata: b\n\n"
 * ```
 */
export function encodeSseEvent(event: SseEventInit): string {
  let out = '';
  if (event.id !== undefined) {
    checkField('id', event.id, false);
    out += `id: ${event.id}\n`;
  }
  if (event.event !== undefined) {
    checkField('event', event.event, true);
    out += `event: ${event.event}\n`;
  }
  if (event.retry !== undefined) {
    if (!Number.isSafeInteger(event.retry) || event.retry < 0) throw new TypeError('SSE retry must be a non-negative integer');
    out += `retry: ${event.retry}\n`;
  }
  if (event.data !== undefined) out += encodeSseData(event.data);
  return out + '\n';
}

/** Encodes `data` as `data:` lines (without the dispatching blank line). */
function encodeSseData(data: string): string {
  if (data.indexOf('\n') < 0 && data.indexOf('\r') < 0) return `data: ${data}\n`;
  let out = '';
  for (const line of data.split(LINE_BREAK)) out += `data: ${line}\n`;
  return out;
}

/**
 * Encodes a JSON-RPC message as a `data`-only event. `JSON.stringify` never emits raw line
 * breaks, so this is a single `data:` line.
 */
export function encodeSseJson(message: unknown): string {
  return `data: ${JSON.stringify(message)}\n\n`;
}

/** A comment line (`: text`), ignored by every client; used as a keep-alive. */
export function encodeSseComment(text = ''): string {
  checkField('comment', text, true);
  return text === '' ? ':\n\n' : `: ${text}\n\n`;
}

/** One parsed event. */
export interface SseEvent {
  /** The event type; `"message"` when the stream set none. */
  readonly event: string;
  /** The data lines joined with LF. */
  readonly data: string;
  /** The last event id seen on the stream so far (the WHATWG "last event ID"). */
  readonly id: string;
}

/** Callbacks and limits for an {@link SseParser}. */
export interface SseParserOptions {
  /** Called for each dispatched event. */
  readonly onEvent: (event: SseEvent) => void;
  /** Called with the text of each comment line (after the colon, one leading space removed). */
  readonly onComment?: (text: string) => void;
  /** Called when a valid `retry:` field sets the reconnection time. */
  readonly onRetry?: (ms: number) => void;
  /** Largest pending line or event data, in UTF-16 code units. Default 16 MiB. */
  readonly maxBufferLength?: number;
}

/** Thrown by {@link SseParser.push} when a line or an event outgrows `maxBufferLength`. */
export class SseBufferOverflowError extends Error {
  override readonly name = 'SseBufferOverflowError';
  /** The limit that was exceeded. */
  readonly limit: number;
  constructor(limit: number) {
    super(`SSE line or event larger than ${limit} characters`);
    this.limit = limit;
  }
}

/**
 * An incremental SSE parser. Feed it chunks of any size, split anywhere (even inside a
 * UTF-8 sequence or between CR and LF), then call {@link SseParser.end}.
 *
 * @example
 * ```ts
 * const parser = new SseParser({ onEvent: (e) => handle(JSON.parse(e.data)) });
 * for await (const chunk of response.body) parser.push(chunk);
 * parser.end();
 * ```
 */
export class SseParser {
  readonly #onEvent: (event: SseEvent) => void;
  readonly #onComment: ((text: string) => void) | undefined;
  readonly #onRetry: ((ms: number) => void) | undefined;
  readonly #max: number;
  readonly #decoder = new TextDecoder('utf-8', { ignoreBOM: true });
  #line = '';
  #afterCr = false;
  #started = false;
  #data = '';
  #hasData = false;
  #eventType = '';
  #lastId = '';

  constructor(options: SseParserOptions) {
    this.#onEvent = options.onEvent;
    this.#onComment = options.onComment;
    this.#onRetry = options.onRetry;
    this.#max = options.maxBufferLength ?? 16 * 1024 * 1024;
  }

  /** The last event id seen so far (for a client's `Last-Event-ID`). */
  get lastEventId(): string {
    return this.#lastId;
  }

  /** Feeds a chunk of bytes (UTF-8, decoded incrementally) or of text. */
  push(chunk: Uint8Array | string): void {
    let text = typeof chunk === 'string' ? chunk : this.#decoder.decode(chunk, { stream: true });
    if (!this.#started) {
      if (text.length === 0) return;
      this.#started = true;
      if (text.charCodeAt(0) === 0xfeff) text = text.slice(1);
    }
    this.#feed(text);
  }

  /** Ends the stream: flushes the decoder; an event without its blank line is discarded. */
  end(): void {
    const rest = this.#decoder.decode();
    if (rest.length > 0) this.push(rest);
    // A final line without a terminator is incomplete and, with its event, is dropped.
    this.#line = '';
    this.#data = '';
    this.#hasData = false;
    this.#eventType = '';
  }

  #feed(text: string): void {
    let pos = 0;
    const n = text.length;
    if (this.#afterCr) {
      this.#afterCr = false;
      if (n > 0 && text.charCodeAt(0) === 0x0a) pos = 1;
    }
    while (pos < n) {
      // Find the next CR or LF.
      let end = pos;
      let c = 0;
      for (; end < n; end++) {
        c = text.charCodeAt(end);
        if (c === 0x0a || c === 0x0d) break;
      }
      if (end === n) {
        this.#line += text.slice(pos);
        if (this.#line.length > this.#max) throw new SseBufferOverflowError(this.#max);
        return;
      }
      const line = this.#line.length > 0 ? this.#line + text.slice(pos, end) : text.slice(pos, end);
      this.#line = '';
      pos = end + 1;
      if (c === 0x0d) {
        if (pos < n) {
          if (text.charCodeAt(pos) === 0x0a) pos++;
        } else {
          this.#afterCr = true;
        }
      }
      this.#processLine(line);
    }
  }

  #processLine(line: string): void {
    if (line.length === 0) {
      this.#dispatch();
      return;
    }
    const colon = line.indexOf(':');
    if (colon === 0) {
      if (this.#onComment !== undefined) {
        this.#onComment(line.charCodeAt(1) === 0x20 ? line.slice(2) : line.slice(1));
      }
      return;
    }
    let field: string;
    let value: string;
    if (colon < 0) {
      field = line;
      value = '';
    } else {
      field = line.slice(0, colon);
      value = line.charCodeAt(colon + 1) === 0x20 ? line.slice(colon + 2) : line.slice(colon + 1);
    }
    switch (field) {
      case 'data':
        this.#data = this.#hasData ? this.#data + '\n' + value : value;
        this.#hasData = true;
        if (this.#data.length > this.#max) throw new SseBufferOverflowError(this.#max);
        break;
      case 'event':
        this.#eventType = value;
        break;
      case 'id':
        if (value.indexOf('\0') < 0) this.#lastId = value;
        break;
      case 'retry':
        if (/^[0-9]+$/.test(value) && this.#onRetry !== undefined) this.#onRetry(Number(value));
        break;
      default:
        // Unknown fields are ignored.
        break;
    }
  }

  #dispatch(): void {
    if (!this.#hasData) {
      this.#eventType = '';
      return;
    }
    const event: SseEvent = { event: this.#eventType === '' ? 'message' : this.#eventType, data: this.#data, id: this.#lastId };
    this.#data = '';
    this.#hasData = false;
    this.#eventType = '';
    this.#onEvent(event);
  }
}
