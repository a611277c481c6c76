/**
 * The server side of the stdio transport: newline-delimited JSON-RPC over a readable input
 * (the process's stdin) and a writable output (its stdout).
 *
 * The transport takes its streams as options and never touches the global `process`, so it
 * works equally over a socket, a pipe pair or `PassThrough` streams in tests. Only protocol
 * messages are ever written to `output`; diagnostics go to the `logger` (point it at stderr).
 *
 * @see https://modelcontextprotocol.io/specification/2026-07-28/basic/transports/stdio
 * @module
 */
import type { Readable, Writable } from 'node:stream';
import type { ChannelSink } from '../../jsonrpc/channel.js';
import { defaultDecodeLimits, type DecodeLimits, type DecodeResult } from '../../jsonrpc/decode.js';
import type { JsonRpcMessage } from '../../jsonrpc/messages.js';
import { encodeLine, type LineReader } from '../../jsonrpc/ndjson.js';
import { McpError, McpErrorCode } from '../../util/errors.js';
import { silentLogger, type Logger } from '../../util/logger.js';
import type { SendOptions, Transport } from '../types.js';
import { createFrameReader, LineWriter, toBytes } from './framing.js';

/** Options for a {@link StdioServerTransport}. */
export interface StdioServerTransportOptions {
  /** Where requests arrive, one JSON-RPC message per line (usually `process.stdin`). */
  readonly input: Readable;
  /** Where messages are written, one per line (usually `process.stdout`). Nothing else is ever written to it. */
  readonly output: Writable;
  /** Decoder limits; `maxBytes` also bounds how much of one line is buffered. */
  readonly limits?: DecodeLimits;
  /** Receives warnings (a truncated last message, a broken output). Never writes to `output`. */
  readonly logger?: Logger;
}

/**
 * A {@link Transport} over an input/output stream pair, framed as newline-delimited JSON.
 *
 * - Each complete line is decoded strictly and handed to the sink; a line longer than
 *   `limits.maxBytes` is skipped and delivered as a -32600 error frame (id `null`), so the
 *   connection answers it and goes on with the next line.
 * - End of input closes the transport cleanly (`sink.closed()` with no reason). An unfinished
 *   last line (a peer that exited mid-message) is dropped with a warning.
 * - Writes are queued in order and wait for `'drain'` when the output is full.
 * - An output error (EPIPE: the client went away) closes the transport with that error as
 *   the reason instead of crashing the process.
 * - `close()` stops reading, ends `output` once queued writes are flushed, and is idempotent.
 *
 * @example
 * ```ts
 * const transport = new StdioServerTransport({ input: process.stdin, output: process.stdout });
 * const connection = new Connection(transport, { onRequest });
 * await connection.start();
 * ```
 */
export class StdioServerTransport implements Transport {
  readonly #input: Readable;
  readonly #output: Writable;
  readonly #logger: Logger;
  readonly #reader: LineReader;
  readonly #writer: LineWriter;
  #sink: ChannelSink | undefined;
  #state: 'new' | 'open' | 'closed' = 'new';

  constructor(options: StdioServerTransportOptions) {
    this.#input = options.input;
    this.#output = options.output;
    this.#logger = options.logger ?? silentLogger;
    this.#reader = createFrameReader(options.limits ?? defaultDecodeLimits, (frame) => this.#deliver(frame));
    this.#writer = new LineWriter(this.#output, 'the output stream');
  }

  /**
   * Starts reading `input` and delivering frames to `sink`. Rejects with
   * `ERR_MCP_ALREADY_STARTED` when called twice, `ERR_MCP_CONNECTION_CLOSED` after `close()`.
   */
  async start(sink: ChannelSink): Promise<void> {
    if (this.#sink !== undefined) throw new McpError(McpErrorCode.AlreadyStarted, 'The transport was already started');
    if (this.#state === 'closed') throw new McpError(McpErrorCode.ConnectionClosed, 'The transport is closed');
    this.#sink = sink;
    this.#state = 'open';
    const input = this.#input;
    // Error listeners stay attached for good: an error after close must not crash the process.
    input.on('error', this.#onInputError);
    this.#output.on('error', this.#onOutputError);
    this.#output.on('close', this.#onOutputClose);
    if (input.readableEnded || input.destroyed) {
      this.#onInputEnd();
      return;
    }
    input.on('data', this.#onData);
    input.on('end', this.#onInputEnd);
    input.on('close', this.#onInputEnd);
    input.resume();
  }

  /**
   * Writes one message (or batch) as a line. Resolves once the output accepted it, after
   * `'drain'` when it was full. Rejects with `ERR_MCP_CONNECTION_CLOSED` once closed.
   */
  send(message: JsonRpcMessage | readonly JsonRpcMessage[], _options?: SendOptions): Promise<void> {
    // Not `async`: the writer's promise is returned as is (one promise per flush, not one more per message).
    if (this.#state === 'closed') return Promise.reject(new McpError(McpErrorCode.ConnectionClosed, 'The stdio transport is closed'));
    try {
      return this.#writer.write(encodeLine(message));
    } catch (error) {
      return Promise.reject(error);
    }
  }

  /** Stops reading, ends the output after queued writes, and calls `sink.closed()`. Idempotent. */
  async close(): Promise<void> {
    this.#shutdown(undefined);
  }

  readonly #onData = (chunk: unknown): void => {
    if (this.#state !== 'open') return;
    this.#reader.push(toBytes(chunk));
  };

  readonly #onInputEnd = (): void => {
    if (this.#state !== 'open') return;
    const left = this.#reader.end();
    if (left > 0) {
      this.#logger.warn('the input ended in the middle of a message; dropped the unfinished line', { bytes: left });
    }
    this.#shutdown(undefined);
  };

  readonly #onInputError = (error: Error): void => {
    if (this.#state !== 'open') {
      this.#logger.debug('input error after close', { error: error.message });
      return;
    }
    this.#logger.warn('the input stream failed', { error: error.message });
    this.#shutdown(new McpError(McpErrorCode.ConnectionClosed, `The input stream failed: ${error.message}`, { cause: error }));
  };

  readonly #onOutputError = (error: Error): void => {
    const reason = new McpError(McpErrorCode.ConnectionClosed, `The output stream failed: ${error.message}`, { cause: error });
    this.#writer.fail(reason);
    if (this.#state !== 'open') {
      this.#logger.debug('output error after close', { error: error.message });
      return;
    }
    this.#logger.warn('the output stream failed; closing the transport', { error: error.message, code: (error as { code?: unknown }).code });
    this.#shutdown(reason);
  };

  readonly #onOutputClose = (): void => {
    const reason = new McpError(McpErrorCode.ConnectionClosed, 'The output stream closed');
    this.#writer.fail(reason);
    if (this.#state === 'open') this.#shutdown(reason);
  };

  #deliver(frame: DecodeResult): void {
    if (this.#state !== 'open') return;
    try {
      this.#sink?.receive(frame);
    } catch (error) {
      this.#logger.error('the sink threw while receiving a frame', { error: String(error) });
    }
  }

  #shutdown(reason: Error | undefined): void {
    if (this.#state === 'closed') return;
    const wasOpen = this.#state === 'open';
    this.#state = 'closed';
    const input = this.#input;
    input.off('data', this.#onData);
    input.off('end', this.#onInputEnd);
    input.off('close', this.#onInputEnd);
    // Let the process exit: a paused stdin no longer holds the event loop open.
    input.pause();
    this.#reader.end();
    this.#writer.end();
    if (wasOpen) this.#sink?.closed(reason);
  }
}
