/**
 * The vocabulary of a `Connection` (`connection.ts`): its options, the options of one outgoing request, the
 * context an incoming request's handler gets, the handler types, and the two notifications the
 * connection consumes itself (cancellation and progress).
 *
 * @see https://modelcontextprotocol.io/specification/2026-07-28/basic/patterns/cancellation
 * @see https://modelcontextprotocol.io/specification/2026-07-28/basic/patterns/progress
 * @module
 */
import type { AbortLike } from '../util/lazyAbort.js';
import type { Logger } from '../util/logger.js';
import type { MessageExtra } from './channel.js';
import type { JsonRpcNotification, JsonRpcRequest, Params, RequestId } from './messages.js';

/** The method names the connection itself acts on. */
export const CancelledNotification = 'notifications/cancelled';
/** See {@link CancelledNotification}. */
export const ProgressNotification = 'notifications/progress';

/** A progress update for an outgoing request. */
export interface Progress {
  readonly progress: number;
  readonly total?: number;
  readonly message?: string;
}

/** Options for one outgoing request. */
export interface RequestOptions {
  /**
   * Aborting it cancels the request: the promise rejects and the peer is told. A
   * `LazyAbort` is listened to without making its `AbortSignal`.
   */
  readonly signal?: AbortLike;
  /** Milliseconds to wait for an answer (default: the connection's `defaultTimeoutMs`). 0 = none. */
  readonly timeoutMs?: number;
  /** Restart the `timeoutMs` clock whenever progress arrives. Default true when `onProgress` is set. */
  readonly resetTimeoutOnProgress?: boolean;
  /** Hard cap on the whole request, progress or not (default: the connection's `maxTotalTimeoutMs`). */
  readonly maxTotalTimeoutMs?: number;
  /** Receives `notifications/progress` for this request; adds `_meta.progressToken`. */
  readonly onProgress?: (progress: Progress) => void;
  /** Send `notifications/cancelled` when the request is aborted or times out. Default true. */
  readonly notifyCancel?: boolean;
  /** The incoming request this one is made on behalf of (for stream-routing transports). */
  readonly relatedRequestId?: RequestId;
  /**
   * Called synchronously with the request's JSON-RPC id once it is numbered, before the
   * message is handed to the channel: the id a later message may name (a subscription id,
   * a `notifications/cancelled`, the related request of a server→client request). Not
   * called when the request is refused before it is numbered (closed, already aborted).
   */
  readonly onId?: (id: RequestId) => void;
}

/** What an incoming-request handler gets besides the request. */
export interface RequestContext {
  /** The request's id, exactly as received. */
  readonly id: RequestId;
  /** The request's method. */
  readonly method: string;
  /** Aborted when the peer cancels the request or the connection closes. */
  readonly signal: AbortSignal;
  /**
   * Calls `listener` once when {@link signal} aborts, without creating the signal where the
   * implementation can avoid it; returns the remover. Absent on contexts that have only the signal.
   */
  onAbort?(listener: () => void): () => void;
  /** Transport facts about the message (headers, principal, ...). */
  readonly extra: MessageExtra | undefined;
  /** The progress token the peer asked for, if any. */
  readonly progressToken: RequestId | undefined;
  /** Sends a notification tied to this request (progress, logging). Dropped once cancelled. */
  notify(method: string, params?: Params): Promise<void>;
}

/** Answers an incoming request with a result object, or throws a {@link JsonRpcError}. */
export type RequestHandler = (request: JsonRpcRequest, context: RequestContext) => Promise<Record<string, unknown>> | Record<string, unknown>;

/** Receives an incoming notification (other than cancellation and progress, which the connection consumes). */
export type NotificationHandler = (notification: JsonRpcNotification, extra: MessageExtra | undefined) => void;

/** Options for a {@link Connection}. */
export interface ConnectionOptions {
  /** Where warnings (unknown response ids, handler failures) go. */
  readonly logger?: Logger;
  /** Default per-request timeout in ms. Default 60,000. 0 = none. */
  readonly defaultTimeoutMs?: number;
  /** Default cap on a request's total time in ms, progress or not. Default 0 (none). */
  readonly maxTotalTimeoutMs?: number;
  /** Handles incoming requests. Without one, every request is answered -32601. */
  readonly onRequest?: RequestHandler;
  /** Handles incoming notifications. */
  readonly onNotification?: NotificationHandler;
  /**
   * Called with the real error when a handler throws something other than a
   * `JsonRpcError`; the peer only sees a generic -32603.
   */
  readonly onHandlerError?: (error: unknown, request: JsonRpcRequest) => void;
  /**
   * Answer frames that fail to decode (malformed JSON, bad envelopes) with an error response
   * (`id: null` when unreadable). Default true, as JSON-RPC servers do. A stdio client sets it
   * false: it may write only requests and notifications, so it logs and drops such frames.
   */
  readonly answerInvalidFrames?: boolean;
}
