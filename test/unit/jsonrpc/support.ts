/**
 * Shared helpers for the JSON-RPC unit tests: a capturing logger, a raw wire peer on an
 * in-memory transport, a scripted in-process channel, and a microtask flush.
 *
 * @module
 */
import type { Channel, ChannelSink, MessageExtra } from '../../../src/jsonrpc/channel.js';
import { Connection, type ConnectionOptions } from '../../../src/jsonrpc/connection.js';
import { decodeFrame, isBatchResult, type DecodeLimits, type DecodeResult } from '../../../src/jsonrpc/decode.js';
import type { JsonRpcMessage } from '../../../src/jsonrpc/messages.js';
import { createInMemoryPair, type InMemoryOptions } from '../../../src/transport/memory.js';
import type { Transport } from '../../../src/transport/types.js';
import type { Logger } from '../../../src/util/logger.js';

/** One captured log entry. */
export interface LogEntry {
  readonly level: 'debug' | 'info' | 'warn' | 'error';
  readonly message: string;
  readonly fields: Record<string, unknown> | undefined;
}

/** A logger that records every entry. */
export function capturingLogger(): Logger & { readonly entries: LogEntry[] } {
  const entries: LogEntry[] = [];
  const at = (level: LogEntry['level']) => (message: string, fields?: Record<string, unknown>) => {
    entries.push({ level, message, fields });
  };
  return { entries, debug: at('debug'), info: at('info'), warn: at('warn'), error: at('error') };
}

/**
 * Lets every queued microtask (and the promise chains they start) run. Uses a real
 * `setImmediate`, which the tests never mock.
 */
export function flush(rounds = 1): Promise<void> {
  let p = new Promise<void>((resolve) => setImmediate(resolve));
  for (let i = 1; i < rounds; i++) p = p.then(() => new Promise<void>((resolve) => setImmediate(resolve)));
  return p;
}

/** A promise with its resolvers exposed. */
export interface Deferred<T> {
  readonly promise: Promise<T>;
  resolve(value: T): void;
  reject(error: unknown): void;
}

/** Creates a {@link Deferred}. */
export function deferred<T = void>(): Deferred<T> {
  let resolve!: (value: T) => void;
  let reject!: (error: unknown) => void;
  const promise = new Promise<T>((res, rej) => {
    resolve = res;
    reject = rej;
  });
  return { promise, resolve, reject };
}

/** Two started Connections over an in-memory pair. */
export async function connectedPair(
  a: ConnectionOptions = {},
  b: ConnectionOptions = {},
  memory: InMemoryOptions = {},
): Promise<{ a: Connection; b: Connection }> {
  const [ta, tb] = createInMemoryPair(memory);
  const ca = new Connection(ta, a);
  const cb = new Connection(tb, b);
  await ca.start();
  await cb.start();
  return { a: ca, b: cb };
}

/**
 * The far end of an in-memory pair driven by hand: it records every decoded frame it
 * receives and can send arbitrary (even invalid) JSON values.
 */
export class RawPeer {
  readonly frames: DecodeResult[] = [];
  readonly extras: (MessageExtra | undefined)[] = [];
  closedCount = 0;
  readonly #transport: Transport;
  #waiters: { count: number; resolve: () => void }[] = [];

  constructor(transport: Transport) {
    this.#transport = transport;
  }

  async start(): Promise<void> {
    await this.#transport.start({
      receive: (frame, extra) => {
        this.frames.push(frame);
        this.extras.push(extra);
        this.#waiters = this.#waiters.filter((w) => {
          if (this.frames.length >= w.count) w.resolve();
          return this.frames.length < w.count;
        });
      },
      closed: () => {
        this.closedCount++;
      },
    });
  }

  /** Sends any JSON value, valid message or not. */
  send(value: unknown): Promise<void> {
    return this.#transport.send(value as JsonRpcMessage);
  }

  close(): Promise<void> {
    return this.#transport.close();
  }

  /** Resolves once at least `count` frames have arrived in total. */
  waitFor(count: number): Promise<void> {
    if (this.frames.length >= count) return Promise.resolve();
    return new Promise((resolve) => this.#waiters.push({ count, resolve }));
  }

  /** The single valid messages received so far (batches and errors skipped). */
  get messages(): Record<string, unknown>[] {
    const out: Record<string, unknown>[] = [];
    for (const f of this.frames) {
      if (!isBatchResult(f) && f.ok) out.push(f.message as unknown as Record<string, unknown>);
    }
    return out;
  }
}

/** A Connection on one side of an in-memory pair and a {@link RawPeer} on the other. */
export async function connectionWithRawPeer(
  options: ConnectionOptions = {},
  memory: InMemoryOptions = {},
): Promise<{ conn: Connection; peer: RawPeer }> {
  const [ta, tb] = createInMemoryPair(memory);
  const conn = new Connection(ta, options);
  const peer = new RawPeer(tb);
  await peer.start();
  await conn.start();
  return { conn, peer };
}

/**
 * A synchronous in-process channel: `deliver` hands a frame to the sink on the caller's
 * stack (so a throw escaping the Connection is visible to the test), and every sent
 * message is recorded after a JSON round trip (what a peer would see).
 */
export class ScriptedChannel implements Channel {
  readonly sent: unknown[] = [];
  sink: ChannelSink | undefined;
  failSends = false;
  closeCalls = 0;

  async start(sink: ChannelSink): Promise<void> {
    this.sink = sink;
  }

  async send(message: JsonRpcMessage | readonly JsonRpcMessage[]): Promise<void> {
    if (this.failSends) throw new Error('write EPIPE');
    this.sent.push(JSON.parse(JSON.stringify(message)));
  }

  async close(): Promise<void> {
    this.closeCalls++;
    this.sink?.closed();
  }

  /** Decodes `frame` with `limits` and delivers it synchronously. */
  deliver(frame: string | Uint8Array, limits?: DecodeLimits, extra?: MessageExtra): DecodeResult {
    const decoded = decodeFrame(frame, limits);
    if (this.sink === undefined) throw new Error('not started');
    this.sink.receive(decoded, extra);
    return decoded;
  }

  /** Simulates the transport closing underneath, optionally with an error. */
  drop(reason?: Error): void {
    this.sink?.closed(reason);
  }
}

/** UTF-8 bytes of a string. */
export function utf8(text: string): Uint8Array {
  return new TextEncoder().encode(text);
}
