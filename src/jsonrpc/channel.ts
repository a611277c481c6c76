/**
 * The seam between a {@link Connection} and whatever moves its bytes. A transport frames
 * and decodes; the connection correlates. Handing the sink to `start` means no message can
 * arrive before someone is listening.
 *
 * @module
 */
import type { DecodeResult } from './decode.js';
import type { JsonRpcMessage, RequestId } from './messages.js';

/**
 * Transport-specific facts about one incoming message (for example the HTTP request's
 * headers, or the authenticated principal). Opaque to the JSON-RPC layer.
 */
export type MessageExtra = Readonly<Record<string, unknown>>;

/** Where a transport delivers what it reads. */
export interface ChannelSink {
  /** One decoded frame: a message, a batch, or the error it deserves. */
  receive(frame: DecodeResult, extra?: MessageExtra): void;
  /** The channel is closed for good; `reason` is set when it did not close cleanly. */
  closed(reason?: Error): void;
  /**
   * Stops the timers of every pending request until the returned function is called: the
   * channel is waiting on a person (an interactive sign-in) and that wait must not count
   * against any request timeout. On resume each request gets its full timeout again (the
   * channel sends it anew) and what was left of its total cap. Calls nest; the resume
   * function is idempotent. Optional: a sink without it keeps its timers running.
   */
  suspendTimers?(): () => void;
}

/** Options for one {@link Channel.send}. */
export interface SendOptions {
  /**
   * The incoming request this message belongs to (its response, or a notification about
   * it). Stream-per-request transports route by it.
   */
  readonly relatedRequestId?: RequestId;
}

/** A bidirectional message channel: the minimal transport contract. */
export interface Channel {
  /** Begins delivering incoming frames to `sink`. Rejects if called twice. */
  start(sink: ChannelSink): Promise<void>;
  /** Writes one message, or a batch where the revision allows it. */
  send(message: JsonRpcMessage | readonly JsonRpcMessage[], options?: SendOptions): Promise<void>;
  /** Closes the channel; `sink.closed` follows. Idempotent. */
  close(): Promise<void>;
}
