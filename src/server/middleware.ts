/**
 * Server middleware: `(ctx, next)` functions around every request, for cross-cutting
 * concerns (authentication checks, logging, metrics, policy) without patching handler maps.
 * The chain is composed once when middleware is added, not per request.
 *
 * @module
 */
import type { RequestId } from '../jsonrpc/messages.js';
import type { ProtocolRevision } from '../protocol/revisions.js';
import type { MessageExtra, Principal } from '../transport/types.js';
import type { ServerSession } from './session.js';

/** What middleware sees of one request (after protocol validation, before the handler). */
export interface MiddlewareContext {
  readonly requestId: RequestId;
  readonly method: string;
  /** The validated params (treat as read-only). */
  readonly params: Readonly<Record<string, unknown>>;
  readonly protocolVersion: ProtocolRevision;
  /** Who sent the request (see `HandlerContext.principal`). */
  readonly principal: Principal | undefined;
  readonly extra: MessageExtra | undefined;
  /**
   * The stateful session the request belongs to (2025-11-25 and earlier); undefined on the
   * stateless 2026-07-28 path. Middleware that keeps per-session state (a gateway's resource
   * subscriptions) releases it with `session.onClose`.
   */
  readonly session: ServerSession | undefined;
  readonly signal: AbortSignal;
  /** A bag for middleware to pass data down the chain. */
  readonly locals: Record<string, unknown>;
}

/**
 * Middleware: call `next()` to continue (and possibly change its result), or return/throw
 * without calling it to short-circuit. Throw a `JsonRpcError` to answer with an error.
 */
export type Middleware = (context: MiddlewareContext, next: () => Promise<Record<string, unknown>>) => Promise<Record<string, unknown>>;

/** The innermost step: runs the method's handler. */
export type Terminal = (context: MiddlewareContext) => Promise<Record<string, unknown>>;

/** Composes middleware around a terminal handler into one function. */
export function compose(middleware: readonly Middleware[], terminal: Terminal): Terminal {
  if (middleware.length === 0) return terminal;
  return (context) => {
    const step = (index: number): Promise<Record<string, unknown>> => {
      if (index === middleware.length) return terminal(context);
      let called = false;
      return (middleware[index] as Middleware)(context, () => {
        if (called) return Promise.reject(new Error('next() called twice by one middleware'));
        called = true;
        return step(index + 1);
      });
    };
    return step(0);
  };
}
