/**
 * An in-memory transport pair for tests and for hosting a server in the same process.
 * Each message is serialized to JSON and decoded by the same strict decoder the byte
 * transports use, so tests see exactly what a peer on a wire would.
 *
 * @module
 */
import { decodeFrame, defaultDecodeLimits, type DecodeLimits } from '../jsonrpc/decode.js';
import type { JsonRpcMessage } from '../jsonrpc/messages.js';
import { McpError, McpErrorCode } from '../util/errors.js';
import { withPrincipal, type Principal } from './principal.js';
import type { MessageExtra, SendOptions, Transport, TransportSink } from './types.js';

/** Options for {@link createInMemoryPair}. */
export interface InMemoryOptions {
  /** Decoder limits applied on each side. */
  readonly limits?: DecodeLimits;
  /** Facts attached to every message each side receives. */
  readonly extra?: MessageExtra;
  /** The principal of every message each side receives (`DispatchEnv.principal` on a served side). */
  readonly principal?: Principal;
}

class InMemoryTransport implements Transport {
  #sink: TransportSink | undefined;
  #peer: InMemoryTransport | undefined;
  #closed = false;
  readonly #queue: string[] = [];
  readonly #limits: DecodeLimits;
  readonly #extra: MessageExtra | undefined;

  constructor(limits: DecodeLimits, extra: MessageExtra | undefined) {
    this.#limits = limits;
    this.#extra = extra;
  }

  link(peer: InMemoryTransport): void {
    this.#peer = peer;
  }

  async start(sink: TransportSink): Promise<void> {
    if (this.#sink !== undefined) throw new McpError(McpErrorCode.AlreadyStarted, 'The transport was already started');
    if (this.#closed) throw new McpError(McpErrorCode.ConnectionClosed, 'The transport is closed');
    this.#sink = sink;
    const queued = this.#queue.splice(0);
    for (const text of queued) this.#deliverNow(text);
  }

  async send(message: JsonRpcMessage | readonly JsonRpcMessage[], _options?: SendOptions): Promise<void> {
    if (this.#closed || this.#peer === undefined || this.#peer.#closed) {
      throw new McpError(McpErrorCode.ConnectionClosed, 'The in-memory transport is closed');
    }
    const text = JSON.stringify(message);
    const peer = this.#peer;
    queueMicrotask(() => peer.#deliver(text));
  }

  #deliver(text: string): void {
    if (this.#closed) return;
    if (this.#sink === undefined) this.#queue.push(text);
    else this.#deliverNow(text);
  }

  #deliverNow(text: string): void {
    this.#sink?.receive(decodeFrame(text, this.#limits), this.#extra);
  }

  async close(): Promise<void> {
    if (this.#closed) return;
    this.#closed = true;
    this.#sink?.closed();
    const peer = this.#peer;
    if (peer !== undefined && !peer.#closed) queueMicrotask(() => void peer.close());
  }
}

/**
 * Two linked transports: what one sends, the other receives. Closing either closes both.
 */
export function createInMemoryPair(options: InMemoryOptions = {}): [Transport, Transport] {
  const limits = options.limits ?? defaultDecodeLimits;
  const extra = options.principal === undefined ? options.extra : withPrincipal(options.extra ?? {}, options.principal);
  const a = new InMemoryTransport(limits, extra);
  const b = new InMemoryTransport(limits, extra);
  a.link(b);
  b.link(a);
  return [a, b];
}
