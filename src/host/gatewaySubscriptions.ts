/**
 * Resource subscriptions through the gateway, both eras upstream: what an upstream client
 * subscribes to, the host subscribes to on the server that owns the URI (counted, so two
 * clients of one URI share one downstream subscription, and one leaving does not end the
 * other's), and every subscription ends with the request or session that made it.
 *
 * - 2025-11-25 upstream: `resources/subscribe` / `resources/unsubscribe` on a session; the
 *   session's subscriptions end when it closes, unsubscribed or not.
 * - 2026-07-28 upstream: `resourceSubscriptions` in a `subscriptions/listen` filter; they
 *   end with the stream.
 *
 * The server layer delivers the gateway's `notifications/resources/updated` to the sessions
 * and streams subscribed to the URI; this module only keeps the downstream side in step.
 *
 * @see https://modelcontextprotocol.io/specification/2025-11-25/server/resources#subscriptions
 * @see https://modelcontextprotocol.io/specification/2026-07-28/basic/patterns/subscriptions
 * @module
 */
import type { Middleware, MiddlewareContext } from '../server/middleware.js';
import type { ServerSession } from '../server/session.js';
import type { ListenSource } from '../server/subscriptions.js';
import { describeError } from '../util/errors.js';
import type { Logger } from '../util/logger.js';
import type { Host, RequestScope } from './host.js';

/** The downstream side of the upstream clients' resource subscriptions. */
export class UpstreamSubscriptions {
  readonly #host: Host;
  readonly #logger: Logger;
  readonly #toWireError: (error: unknown) => unknown;
  readonly #scopeOf: (ctx: MiddlewareContext) => RequestScope;
  /** Per stateful session: the URIs it subscribed to, with the function that ends each. */
  readonly #sessions = new Map<ServerSession, Map<string, () => void>>();
  /** The releases of open listen streams. */
  readonly #streams = new Set<() => void>();

  constructor(host: Host, logger: Logger, toWireError: (error: unknown) => unknown, scopeOf: (ctx: MiddlewareContext) => RequestScope) {
    this.#host = host;
    this.#scopeOf = scopeOf;
    this.#logger = logger;
    this.#toWireError = toWireError;
  }

  /** How many downstream subscriptions upstream clients hold through the gateway. */
  get size(): number {
    let n = this.#streams.size;
    for (const uris of this.#sessions.values()) n += uris.size;
    return n;
  }

  /** Middleware for `resources/subscribe` / `resources/unsubscribe` (stateful upstream sessions). */
  middleware(): Middleware {
    // Every request passes through: only (un)subscribe pays for an async step.
    return (ctx, next) => {
      const uri = ctx.params['uri'];
      const session = ctx.session;
      if ((ctx.method !== 'resources/subscribe' && ctx.method !== 'resources/unsubscribe') || typeof uri !== 'string' || session === undefined) return next();
      return this.#subscription(ctx.method, uri, session, ctx, next);
    };
  }

  /** The (un)subscribe step of {@link middleware}: the downstream subscription is held per upstream session. */
  async #subscription(
    method: 'resources/subscribe' | 'resources/unsubscribe',
    uri: string,
    session: ServerSession,
    ctx: MiddlewareContext,
    next: () => Promise<Record<string, unknown>>,
  ): Promise<Record<string, unknown>> {
    const held = this.#held(session);
    if (method === 'resources/unsubscribe') {
      held.get(uri)?.();
      held.delete(uri);
    } else if (held.has(uri)) {
      // Already held for this session: nothing goes downstream, but the request is recorded.
      return this.#host.record('resources/subscribe', this.#scopeOf(ctx), next, { uri });
    } else {
      let release: () => void;
      try {
        // Through the chain: a rule that denies the resource refuses its subscription, and it is recorded.
        release = await this.#host.subscribeResource(uri, this.#scopeOf(ctx));
      } catch (error) {
        throw this.#toWireError(error);
      }
      // The session ended, or subscribed to the same URI concurrently, while the server subscribed.
      if (this.#sessions.get(session) !== held || held.has(uri)) release();
      else held.set(uri, release);
    }
    return next();
  }

  /**
   * A listen source for 2026-07-28 upstream streams: each `resourceSubscriptions` URI the
   * gateway exposes is subscribed downstream before the acknowledgement, and released when
   * the stream ends. A URI no server exposes, or one its server cannot subscribe to, is
   * still granted by the server layer (as a direct server would) but has no downstream side.
   */
  listenSource(): ListenSource {
    return {
      grant: async (requested, request) => {
        // Each URI passes the chain as a subscription of this caller (recorded; a denying rule refuses it).
        const scope: RequestScope = { principal: request.env.principal };
        const uris = Array.isArray(requested['resourceSubscriptions']) ? requested['resourceSubscriptions'].filter((u): u is string => typeof u === 'string') : [];
        const known = [...new Set(uris)].filter((uri) => this.#host.resolveUri(uri) !== undefined);
        if (known.length === 0) return undefined;
        const releases = await Promise.all(
          known.map((uri) =>
            this.#host.subscribeResource(uri, scope).catch((error: unknown) => {
              this.#logger.warn(`could not subscribe to ${uri} for a listener`, { error: describeError(error) });
              return undefined;
            }),
          ),
        );
        const release = (): void => {
          for (const r of releases) r?.();
          this.#streams.delete(release);
        };
        this.#streams.add(release);
        return { granted: {}, attach: () => release };
      },
    };
  }

  /** Ends every subscription (the gateway is closing). */
  clear(): void {
    for (const session of [...this.#sessions.keys()]) this.#endSession(session);
    for (const release of [...this.#streams]) release();
  }

  #held(session: ServerSession): Map<string, () => void> {
    let held = this.#sessions.get(session);
    if (held === undefined) {
      held = new Map();
      this.#sessions.set(session, held);
      session.onClose(() => this.#endSession(session));
    }
    return held;
  }

  #endSession(session: ServerSession): void {
    const held = this.#sessions.get(session);
    this.#sessions.delete(session);
    for (const release of held?.values() ?? []) release();
  }
}
