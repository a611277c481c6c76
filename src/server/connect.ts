/**
 * Serving an `McpServer` over a message-stream transport (stdio, in-memory): one
 * `Connection` per transport, one potential stateful session per connection. 2026-07-28
 * requests on it are still served statelessly, request by request.
 *
 * @module
 */
import { Connection, type RequestContext as ConnectionRequestContext } from '../jsonrpc/connection.js';
import type { JsonRpcNotification, JsonRpcRequest, Params, RequestId } from '../jsonrpc/messages.js';
import { onAbortOf } from '../util/lazyAbort.js';
import type { Logger } from '../util/logger.js';
import { principalIn, type DispatchEnv, type MessageExtra, type PeerRequester, type Principal, type SessionPeer, type Transport } from '../transport/types.js';
import type { ServerSession } from './session.js';

/** What {@link connectTransport} needs from the server. */
export interface ConnectTarget {
  readonly logger: Logger;
  serve(request: JsonRpcRequest, env: DispatchEnv): Promise<Record<string, unknown>>;
  notification(notification: JsonRpcNotification, session: unknown): void;
  reportError(error: unknown, method: string, requestId: RequestId): void;
  createSession(peer: SessionPeer): ServerSession;
  /** Called with the connection before it starts (the server closes it on `close()`). */
  track(connection: Connection): void;
}

/** Starts a connection on `transport` served by `target`; resolves once the transport is started. */
export async function connectTransport(target: ConnectTarget, transport: Transport, options: { readonly requestTimeoutMs?: number }): Promise<Connection> {
  const connection: Connection = new Connection(transport, {
    logger: target.logger,
    defaultTimeoutMs: options.requestTimeoutMs ?? 60_000,
    onRequest: (request, rctx) =>
      target.serve(
        request,
        new ConnectionEnv(
          rctx,
          (n) => {
            rctx.notify(n.method, n.params).catch(() => undefined);
          },
          {
            request: (method: string, params: Params | undefined, opts?: { signal?: AbortSignal; timeoutMs?: number }) =>
              connection.request(method, params, {
                relatedRequestId: rctx.id,
                ...(opts?.signal !== undefined ? { signal: opts.signal } : {}),
                ...(opts?.timeoutMs !== undefined ? { timeoutMs: opts.timeoutMs } : {}),
              }),
          },
          session,
        ),
      ),
    onNotification: (n) => target.notification(n, session),
    onHandlerError: (error, request) => target.reportError(error, request.method, request.id),
  });
  const session = target.createSession({
    request: (method, params, opts) => connection.request(method, params, opts ?? {}),
    notify: (n) => {
      if (!connection.closed) connection.notify(n.method, n.params).catch(() => undefined);
    },
  });
  connection.onClose(() => session.close());
  target.track(connection);
  await connection.start();
  return connection;
}

/**
 * The {@link DispatchEnv} of a request on a message-stream connection (stdio, in-memory).
 * `signal` is read from the connection's context only when a handler asks for it (creating an
 * AbortSignal costs microseconds on Node 20; a cancellation before that still applies), and it
 * sits on the prototype: a per-request `get signal()` literal would give every env its own
 * hidden class.
 */
class ConnectionEnv implements DispatchEnv {
  readonly #rctx: ConnectionRequestContext;
  readonly extra: MessageExtra | undefined;
  readonly principal: Principal | undefined;
  readonly notify: (notification: JsonRpcNotification) => void;
  readonly peer: PeerRequester;
  readonly session: unknown;

  constructor(rctx: ConnectionRequestContext, notify: (notification: JsonRpcNotification) => void, peer: PeerRequester, session: unknown) {
    this.#rctx = rctx;
    this.extra = rctx.extra;
    this.principal = principalIn(rctx.extra);
    this.notify = notify;
    this.peer = peer;
    this.session = session;
  }

  /** {@inheritDoc DispatchEnv.signal} */
  get signal(): AbortSignal {
    return this.#rctx.signal;
  }

  /** {@inheritDoc DispatchEnv.onAbort} */
  onAbort(listener: () => void): () => void {
    return onAbortOf(this.#rctx, listener);
  }
}
