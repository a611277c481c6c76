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
 * headers, or the authenticated principal). Opaque to the JSON-RPC layer, except for
 * {@link RELATED_REQUEST_ID}.
 */
export type MessageExtra = Readonly<Record<string, unknown>>;

/**
 * The {@link MessageExtra} key under which a stream-per-request transport names the
 * outgoing request whose response stream an incoming message arrived on (the HTTP client: the
 * POST's JSON-RPC request id), or `null` for a stream tied to no request (the standalone GET
 * stream). Absent when the transport cannot tell (stdio, the in-memory pair).
 */
export const RELATED_REQUEST_ID = 'relatedRequestId';

/**
 * The related request an incoming message's {@link MessageExtra} names: its id, `null` when
 * the transport says it relates to none, or undefined when the transport cannot tell.
 */
export function relatedRequestIdOf(extra: MessageExtra | undefined): RequestId | null | undefined {
  const value = extra?.[RELATED_REQUEST_ID];
  if (value === null) return null;
  return typeof value === 'string' || typeof value === 'number' ? value : undefined;
}

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
