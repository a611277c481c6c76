/**
 * `subscriptions/listen` on the client (2026-07-28): one long-lived request per
 * subscription. Its notifications carry `_meta["io.modelcontextprotocol/subscriptionId"]`
 * (the listen request's JSON-RPC id), by which they are demultiplexed; the first one is the
 * acknowledgement with the granted filter. The subscription ends with the server's graceful
 * result, or when the client aborts it (on message-stream transports the connection then
 * sends `notifications/cancelled`).
 *
 * The request id is learned from the connection as it numbers the request
 * (`RequestOptions.onId`), before the request is written.
 *
 * @see https://modelcontextprotocol.io/specification/2026-07-28/basic/patterns/subscriptions
 * @module
 */
import type { JsonRpcNotification, RequestId } from '../jsonrpc/messages.js';
import { META_SUBSCRIPTION_ID } from '../protocol/meta.js';
import type { SubscriptionFilter } from '../protocol/model/subscriptions.js';
import { McpError, McpErrorCode } from '../util/errors.js';
import type { ListenEnd, ListenOptions, Subscription } from './types.js';

/** The subscription id a notification is tagged with, if any. */
export function subscriptionIdOf(notification: JsonRpcNotification): RequestId | undefined {
  const meta = notification.params?.['_meta'];
  if (typeof meta !== 'object' || meta === null) return undefined;
  const id = (meta as Record<string, unknown>)[META_SUBSCRIPTION_ID];
  return typeof id === 'string' || typeof id === 'number' ? id : undefined;
}

interface Listener {
  ack(granted: SubscriptionFilter): void;
  deliver(notification: JsonRpcNotification): void;
  abort(): void;
}

/** What opening a subscription needs from the client. */
export interface ListenDeps {
  /**
   * Sends the listen request (stamped); resolves with the graceful result. Calls `onId`
   * synchronously with the request's id before anything is written.
   */
  send(params: Record<string, unknown>, signal: AbortSignal, onId: (id: RequestId) => void): Promise<Record<string, unknown>>;
  /** How long to wait for the acknowledgement. 0 = forever. */
  readonly ackTimeoutMs: number;
}

/** The open subscriptions of one client, by id. */
export class ListenHub {
  readonly #listeners = new Map<RequestId, Listener>();

  /** How many subscriptions are open. */
  get size(): number {
    return this.#listeners.size;
  }

  /**
   * Routes a tagged notification to its subscription. Returns false when no open
   * subscription has that id (a late notification after the subscription ended).
   */
  route(id: RequestId, notification: JsonRpcNotification): boolean {
    const listener = this.#listeners.get(id);
    if (listener === undefined) return false;
    if (notification.method === 'notifications/subscriptions/acknowledged') {
      const granted = notification.params?.['notifications'];
      listener.ack(typeof granted === 'object' && granted !== null ? (granted as SubscriptionFilter) : {});
    } else listener.deliver(notification);
    return true;
  }

  /** Ends every subscription (client close). */
  abortAll(): void {
    for (const listener of [...this.#listeners.values()]) listener.abort();
  }

  /** Opens a subscription; resolves once the server acknowledged it. */
  async open(filter: SubscriptionFilter, options: ListenOptions, deps: ListenDeps): Promise<Subscription> {
    const outer = options.signal;
    if (outer?.aborted === true) throw new McpError(McpErrorCode.RequestCancelled, 'The subscription was cancelled before it started', { cause: outer.reason });
    const controller = new AbortController();
    const onOuterAbort = (): void => controller.abort(outer?.reason);
    outer?.addEventListener('abort', onOuterAbort, { once: true });

    let acked = false;
    let resolveAck!: (granted: SubscriptionFilter) => void;
    let rejectAck!: (error: Error) => void;
    const ackPromise = new Promise<SubscriptionFilter>((resolve, reject) => {
      resolveAck = resolve;
      rejectAck = reject;
    });
    let id: RequestId | undefined;
    const listener: Listener = {
      ack: (granted) => {
        if (acked) return;
        acked = true;
        resolveAck(granted);
      },
      deliver: (notification) => {
        if (!acked) return; // nothing may precede the acknowledgement
        options.onNotification?.(notification);
      },
      abort: () => controller.abort(new McpError(McpErrorCode.ConnectionClosed, 'The client closed')),
    };
    // Registered before the request is written, so not even an immediate acknowledgement is missed.
    const pending = deps.send({ notifications: filter }, controller.signal, (requestId) => {
      id = requestId;
      this.#listeners.set(requestId, listener);
    });
    const ackTimer =
      deps.ackTimeoutMs > 0
        ? setTimeout(() => {
            if (!acked) rejectAck(new McpError(McpErrorCode.RequestTimeout, `subscriptions/listen was not acknowledged within ${deps.ackTimeoutMs} ms`));
          }, deps.ackTimeoutMs)
        : undefined;
    const ended: Promise<ListenEnd> = pending.then(
      () => ({ reason: 'graceful' as const }),
      (error: unknown) => (controller.signal.aborted ? { reason: 'aborted' as const } : { reason: 'error' as const, error: error instanceof Error ? error : new Error(String(error)) }),
    );
    void ended.then((end) => {
      if (id !== undefined) this.#listeners.delete(id);
      outer?.removeEventListener('abort', onOuterAbort);
      if (ackTimer !== undefined) clearTimeout(ackTimer);
      if (!acked) {
        rejectAck(end.error ?? new McpError(end.reason === 'aborted' ? McpErrorCode.RequestCancelled : McpErrorCode.InvalidResponse, `subscriptions/listen ended before it was acknowledged`));
      }
    });
    let granted: SubscriptionFilter;
    try {
      granted = await ackPromise;
    } catch (error) {
      controller.abort(error);
      throw error;
    } finally {
      if (ackTimer !== undefined) clearTimeout(ackTimer);
    }
    return { id: id as RequestId, granted, ended, close: () => controller.abort(new McpError(McpErrorCode.RequestCancelled, 'The subscription was closed')) };
  }
}
