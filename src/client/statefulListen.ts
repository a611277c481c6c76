/**
 * `listen` on a stateful server (2025-11-25 and earlier), where `subscriptions/listen` does
 * not exist: the same {@link Subscription} is mapped onto what those revisions have.
 *
 * - `toolsListChanged`, `promptsListChanged`, `resourcesListChanged` are granted when the
 *   server declared `listChanged` for that capability; those notifications arrive unsolicited
 *   on the session and are handed to every subscription that was granted them.
 * - `resourceSubscriptions` are granted when the server declared `resources.subscribe`: each
 *   URI is `resources/subscribe`d (once, however many subscriptions name it) and its
 *   `notifications/resources/updated` go to the subscriptions naming it; closing the last
 *   subscription of a URI sends `resources/unsubscribe`.
 * - `taskIds` is never granted (task status notifications are not a subscription there).
 *
 * The subscription id is local (`stateful-<n>`): nothing on the wire names it.
 *
 * @see https://modelcontextprotocol.io/specification/2025-11-25/server/resources#subscriptions
 * @see https://modelcontextprotocol.io/specification/2025-11-25/server/tools#list-changed-notification
 * @module
 */
import type { JsonRpcNotification } from '../jsonrpc/messages.js';
import type { SubscriptionFilter } from '../protocol/model/subscriptions.js';
import { McpError, McpErrorCode } from '../util/errors.js';
import type { ListenEnd, ListenOptions, Subscription } from './types.js';

const LIST_KEYS = {
  'notifications/tools/list_changed': ['toolsListChanged', 'tools'],
  'notifications/prompts/list_changed': ['promptsListChanged', 'prompts'],
  'notifications/resources/list_changed': ['resourcesListChanged', 'resources'],
} as const;

interface Entry {
  readonly granted: SubscriptionFilter;
  readonly onNotification: ((notification: JsonRpcNotification) => void) | undefined;
  readonly end: (end: ListenEnd) => void;
}

/** What a stateful subscription needs from the client. */
export interface StatefulListenDeps {
  /** The server's declared capabilities. */
  readonly serverCapabilities: Readonly<Record<string, unknown>> | undefined;
  /** Sends `resources/subscribe` or `resources/unsubscribe` for `uri`. */
  request(method: 'resources/subscribe' | 'resources/unsubscribe', uri: string, signal: AbortSignal | undefined): Promise<void>;
  /** Logs a failed unsubscribe (the subscription ends anyway). */
  warn(message: string, fields: Record<string, unknown>): void;
}

function declares(capabilities: Readonly<Record<string, unknown>> | undefined, capability: string, flag: string): boolean {
  const value = capabilities?.[capability];
  return typeof value === 'object' && value !== null && (value as Record<string, unknown>)[flag] === true;
}

/** The stateful subscriptions of one client connection. */
export class StatefulListens {
  readonly #entries = new Set<Entry>();
  /** Subscribed URI → how many open subscriptions name it. */
  readonly #uris = new Map<string, number>();
  #next = 1;

  /** How many subscriptions are open. */
  get size(): number {
    return this.#entries.size;
  }

  /** Hands an unsolicited notification to the subscriptions granted it. */
  deliver(notification: JsonRpcNotification): void {
    const list = LIST_KEYS[notification.method as keyof typeof LIST_KEYS];
    const uri = notification.params?.['uri'];
    for (const entry of this.#entries) {
      const wanted =
        list !== undefined
          ? entry.granted[list[0]] === true
          : notification.method === 'notifications/resources/updated' && typeof uri === 'string' && entry.granted.resourceSubscriptions?.includes(uri) === true;
      if (wanted) entry.onNotification?.(notification);
    }
  }

  /** Ends every subscription (connection closed: nothing to unsubscribe from). */
  abortAll(): void {
    for (const entry of [...this.#entries]) entry.end({ reason: 'aborted' });
    this.#uris.clear();
  }

  /** Opens a subscription: grants what the server can do and subscribes to its resource URIs. */
  async open(filter: SubscriptionFilter, options: ListenOptions, deps: StatefulListenDeps): Promise<Subscription> {
    if (options.signal?.aborted === true) throw new McpError(McpErrorCode.RequestCancelled, 'The subscription was cancelled before it started', { cause: options.signal.reason });
    const caps = deps.serverCapabilities;
    const granted: { -readonly [K in keyof SubscriptionFilter]: SubscriptionFilter[K] } = {};
    for (const [key, capability] of Object.values(LIST_KEYS)) {
      if (filter[key] === true && declares(caps, capability, 'listChanged')) granted[key] = true;
    }
    const uris = filter.resourceSubscriptions !== undefined && declares(caps, 'resources', 'subscribe') ? [...new Set(filter.resourceSubscriptions)] : [];
    const subscribed: string[] = [];
    try {
      for (const uri of uris) {
        const count = this.#uris.get(uri) ?? 0;
        if (count === 0) await deps.request('resources/subscribe', uri, options.signal);
        this.#uris.set(uri, (this.#uris.get(uri) ?? 0) + 1);
        subscribed.push(uri);
      }
    } catch (error) {
      await this.#release(subscribed, deps);
      throw error;
    }
    if (filter.resourceSubscriptions !== undefined && declares(caps, 'resources', 'subscribe')) granted.resourceSubscriptions = uris;

    let resolveEnded!: (end: ListenEnd) => void;
    const ended = new Promise<ListenEnd>((resolve) => (resolveEnded = resolve));
    let open = true;
    const onAbort = (): void => void close();
    const entry: Entry = {
      granted,
      onNotification: options.onNotification,
      end: (end) => {
        if (!open) return;
        open = false;
        this.#entries.delete(entry);
        options.signal?.removeEventListener('abort', onAbort);
        resolveEnded(end);
      },
    };
    const close = async (): Promise<void> => {
      if (!open) return;
      entry.end({ reason: 'aborted' });
      await this.#release(subscribed, deps);
    };
    this.#entries.add(entry);
    options.signal?.addEventListener('abort', onAbort, { once: true });
    return { id: `stateful-${this.#next++}`, granted, ended, close: () => void close() };
  }

  async #release(uris: readonly string[], deps: StatefulListenDeps): Promise<void> {
    for (const uri of uris) {
      const count = (this.#uris.get(uri) ?? 0) - 1;
      if (count > 0) {
        this.#uris.set(uri, count);
        continue;
      }
      this.#uris.delete(uri);
      await deps.request('resources/unsubscribe', uri, undefined).catch((error: unknown) => deps.warn('resources/unsubscribe failed', { uri, error: String(error) }));
    }
  }
}
