/**
 * The resource subscriptions the host holds on one downstream server, counted: the first
 * subscriber of a URI subscribes downstream, the last one to leave unsubscribes, and every
 * held URI is subscribed again after the server restarts (a stateless server keeps no
 * subscription across connections, a stateful one none across sessions).
 *
 * The subscription goes through the client's era-neutral `listen`: on 2026-07-28 one
 * `subscriptions/listen` stream per URI (`resourceSubscriptions`), on the stateful revisions
 * `resources/subscribe` / `resources/unsubscribe`.
 *
 * @see https://modelcontextprotocol.io/specification/2026-07-28/basic/patterns/subscriptions
 * @see https://modelcontextprotocol.io/specification/2025-11-25/server/resources#subscriptions
 * @module
 */
import type { McpClient } from '../client/mcpClient.js';
import type { Subscription } from '../client/types.js';
import { McpError, McpErrorCode, describeError } from '../util/errors.js';
import type { Logger } from '../util/logger.js';

/** Counted resource subscriptions on one server. */
export class ResourceSubscriptions {
  readonly #serverId: string;
  readonly #logger: Logger;
  readonly #counts = new Map<string, number>();
  /** The downstream subscription of each held URI on the current client. */
  readonly #open = new Map<string, Promise<Subscription | undefined>>();
  #client: McpClient | undefined;

  constructor(serverId: string, logger: Logger) {
    this.#serverId = serverId;
    this.#logger = logger;
  }

  /** URIs held, with how many subscribers each has. */
  get held(): ReadonlyMap<string, number> {
    return this.#counts;
  }

  /**
   * Adds a subscriber of `uri`. The first one subscribes downstream now when the server is
   * ready (else once it is); a server that does not support subscriptions fails it with
   * `ERR_MCP_UNSUPPORTED`, and the subscriber is not counted.
   */
  async acquire(uri: string): Promise<void> {
    this.#counts.set(uri, (this.#counts.get(uri) ?? 0) + 1);
    const client = this.#client;
    if (client === undefined) return;
    try {
      await this.#subscribe(client, uri);
    } catch (error) {
      this.release(uri);
      throw error;
    }
  }

  /** Removes a subscriber of `uri`; the last one ends the downstream subscription. Unknown URIs are ignored. */
  release(uri: string): void {
    const count = this.#counts.get(uri);
    if (count === undefined) return;
    if (count > 1) {
      this.#counts.set(uri, count - 1);
      return;
    }
    this.#counts.delete(uri);
    const open = this.#open.get(uri);
    this.#open.delete(uri);
    void open?.then((s) => s?.close()).catch(() => undefined);
  }

  /** The server is ready on `client`: every held URI is subscribed there. */
  attach(client: McpClient): void {
    this.#client = client;
    this.#open.clear();
    for (const uri of this.#counts.keys()) {
      this.#subscribe(client, uri).catch((error: unknown) =>
        this.#logger.warn(`server ${this.#serverId}: could not subscribe again to ${uri}`, { server: this.#serverId, error: describeError(error) }),
      );
    }
  }

  /** The client is gone (its subscriptions ended with it); the counts are kept for the next one. */
  detach(): void {
    this.#client = undefined;
    this.#open.clear();
  }

  #subscribe(client: McpClient, uri: string): Promise<void> {
    let open = this.#open.get(uri);
    if (open === undefined) {
      open = client.listen({ resourceSubscriptions: [uri] }).then((subscription) => {
        if (!(subscription.granted.resourceSubscriptions ?? []).includes(uri)) {
          subscription.close();
          return undefined;
        }
        // Released (or the client replaced) while the server was acknowledging.
        if (this.#client !== client || !this.#counts.has(uri)) subscription.close();
        return subscription;
      });
      this.#open.set(uri, open);
      open.catch(() => {
        if (this.#open.get(uri) === open) this.#open.delete(uri);
      });
    }
    return open.then((subscription) => {
      if (subscription !== undefined) return;
      if (this.#open.get(uri) === open) this.#open.delete(uri);
      throw new McpError(McpErrorCode.Unsupported, `Server ${this.#serverId} does not support resource subscriptions (it did not grant ${uri})`);
    });
  }
}
