/**
 * The transport contract: `start(sink)`, `send(message, options)`, `close()`.
 *
 * A transport frames and decodes bytes and hands each decoded frame to its sink; it does not
 * correlate (that is the `Connection`'s job). Per-transport knobs live in each transport's
 * own options, never on this interface.
 *
 * @module
 */
import type { Channel } from '../jsonrpc/channel.js';

export type { ChannelSink as TransportSink, SendOptions, MessageExtra } from '../jsonrpc/channel.js';

/** A transport is a JSON-RPC {@link Channel}. */
export type Transport = Channel;
