/**
 * Which call a server→client request or a log message belongs to. Every request the client
 * sends for a call is registered here under its JSON-RPC id while it is in flight, with the
 * call's own handlers and log sink. A server request (stateful era) or a
 * `notifications/message` (both eras: on 2026-07-28 log messages are request-scoped) is
 * attributed:
 *
 * 1. to the call the transport names (`MessageExtra` `relatedRequestId`: on Streamable HTTP
 *    the POST whose response stream the request arrived on);
 * 2. to no call when the transport says it relates to none (the standalone GET stream);
 * 3. when the transport cannot tell (stdio, in-memory: the server names no related request
 *    on the wire), to the only call in flight, if exactly one is;
 * 4. otherwise to no call: the client-level handlers answer it.
 *
 * A call's handlers are therefore never asked a question that may belong to another call.
 *
 * @see https://modelcontextprotocol.io/specification/2025-11-25/basic/transports#sending-messages-to-the-server
 * @module
 */
import { relatedRequestIdOf, type MessageExtra } from '../jsonrpc/channel.js';
import type { RequestId } from '../jsonrpc/messages.js';
import { IdTable } from '../util/idTable.js';
import type { LoggingMessageParams } from '../protocol/model/utilities.js';
import type { ClientHandlers } from './types.js';

/** The call a server request was attributed to. */
export interface Attribution {
  /** The id of the call's request (undefined: attributed to no call). */
  readonly relatedRequestId: RequestId | undefined;
  /** The call's own handlers, when it has any. */
  readonly handlers: ClientHandlers | undefined;
  /** The call's own log sink, when it has one. */
  readonly onLog: ((params: LoggingMessageParams) => void) | undefined;
}

/** What a call registers for its requests in flight. */
export interface CallSinks {
  readonly handlers?: ClientHandlers | undefined;
  readonly onLog?: ((params: LoggingMessageParams) => void) | undefined;
}

const NONE: Attribution = Object.freeze({ relatedRequestId: undefined, handlers: undefined, onLog: undefined });

/** The client's requests in flight, by id, with the handlers of the call each belongs to. */
export class CallRegistry {
  /** An IdTable, not a Map: see util/idTable.ts. */
  readonly #calls = new IdTable<RequestId, CallSinks>();

  /** How many requests are in flight. */
  get size(): number {
    return this.#calls.size;
  }

  /** Registers a request of a call (its handlers and log sink, if the call has its own). */
  open(id: RequestId, sinks: CallSinks): void {
    this.#calls.set(id, sinks);
  }

  /** Forgets a request once it settled. */
  close(id: RequestId): void {
    this.#calls.delete(id);
  }

  /** Attributes an incoming server request by the transport's `extra` (see the module notes). */
  attribute(extra: MessageExtra | undefined): Attribution {
    const named = relatedRequestIdOf(extra);
    if (named === null) return NONE;
    if (named !== undefined) {
      // A request that already settled (or never was ours) has no handlers left to ask.
      const sinks = this.#calls.get(named);
      return { relatedRequestId: named, handlers: sinks?.handlers, onLog: sinks?.onLog };
    }
    if (this.#calls.size !== 1) return NONE;
    const [only] = this.#calls.entries();
    return only === undefined ? NONE : { relatedRequestId: only[0], handlers: only[1].handlers, onLog: only[1].onLog };
  }
}
