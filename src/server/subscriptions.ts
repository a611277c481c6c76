/**
 * `subscriptions/listen` (2026-07-28): one long-lived request per listener. The server
 * acknowledges first with the granted subset of the filter, tags every notification with
 * the subscription id (the listen request's JSON-RPC id), sends only what was asked for, and
 * ends the stream with a graceful result when it shuts down.
 *
 * @see https://modelcontextprotocol.io/specification/2026-07-28/basic/patterns/subscriptions
 * @module
 */
import type { RequestId } from '../jsonrpc/messages.js';
import { META_SUBSCRIPTION_ID } from '../protocol/meta.js';
import type { ClientCapabilities, ServerCapabilities } from '../protocol/model/capabilities.js';
import type { DispatchEnv } from '../transport/types.js';
import type { ItemKind } from '../protocol/model/common.js';
import type { Listed } from './visibility.js';

/**
 * Part of a listen filter granted by a {@link ListenSource}, and how to start delivering it.
 */
export interface ListenGrant {
  /** Filter members granted (merged into the acknowledgement). */
  readonly granted: Readonly<Record<string, unknown>>;
  /** Starts delivery right after the acknowledgement; returns the cleanup. */
  attach(send: (method: string, params: Record<string, unknown>) => void): () => void;
}

/**
 * An extra source of listen-stream notifications (extensions, e.g. `notifications/tasks` for
 * the filter member `taskIds`). `grant` may reject (e.g. -32021) before anything is sent.
 */
export interface ListenSource {
  grant(requested: Readonly<Record<string, unknown>>, request: ListenRequest): Promise<ListenGrant | undefined>;
}

/** The listen request as the pipeline prepared it (decided once: never re-read from `_meta`). */
export interface ListenRequest {
  readonly id: RequestId;
  readonly params: Readonly<Record<string, unknown>>;
  /** The client capabilities the request declared. */
  readonly caps: ClientCapabilities;
  readonly env: DispatchEnv;
  /** Whether the listener can see one of the changed entries (default: yes). */
  readonly sees?: (kind: ItemKind, changed: readonly Listed[]) => boolean;
}

/** A registry as the hub watches it. */
export interface ChangeSource {
  onChange(listener: (changed: readonly Listed[]) => void): () => void;
}

interface Listener {
  readonly resources: readonly string[];
  readonly onResource: (uri: string) => void;
  readonly end: () => void;
}

/** Fans registry changes and resource updates out to listen streams. */
export class SubscriptionHub {
  readonly #tools: ChangeSource;
  readonly #prompts: ChangeSource;
  readonly #resources: ChangeSource;
  readonly #templates: ChangeSource;
  readonly #listeners = new Set<Listener>();
  readonly #sources: ListenSource[] = [];

  constructor(tools: ChangeSource, prompts: ChangeSource, resources: ChangeSource, templates: ChangeSource) {
    this.#tools = tools;
    this.#prompts = prompts;
    this.#resources = resources;
    this.#templates = templates;
  }

  /** Adds a source of extension notifications (see {@link ListenSource}). */
  addSource(source: ListenSource): void {
    this.#sources.push(source);
  }

  /** How many listen streams are open. */
  get size(): number {
    return this.#listeners.size;
  }

  /**
   * Serves one listen request: resolves with the graceful-close result when the server ends
   * the subscription, or when the client goes away (the transport then drops the answer).
   */
  async listen(request: ListenRequest, caps: ServerCapabilities): Promise<Record<string, unknown>> {
    const { id, params, env } = request;
    const requested = (params['notifications'] ?? {}) as Record<string, unknown>;
    const granted: Record<string, unknown> = {};
    if (requested['toolsListChanged'] === true && caps.tools?.listChanged === true) granted['toolsListChanged'] = true;
    if (requested['promptsListChanged'] === true && caps.prompts?.listChanged === true) granted['promptsListChanged'] = true;
    if (requested['resourcesListChanged'] === true && caps.resources?.listChanged === true) granted['resourcesListChanged'] = true;
    const uris = Array.isArray(requested['resourceSubscriptions']) ? (requested['resourceSubscriptions'] as unknown[]).filter((u): u is string => typeof u === 'string') : [];
    if (uris.length > 0 && caps.resources?.subscribe === true) granted['resourceSubscriptions'] = uris;
    const grants: ListenGrant[] = [];
    for (const source of this.#sources) {
      const grant = await source.grant(requested, request);
      if (grant !== undefined) {
        Object.assign(granted, grant.granted);
        grants.push(grant);
      }
    }

    const tag = { [META_SUBSCRIPTION_ID]: id };
    const send = (method: string, extra?: Record<string, unknown>): void => {
      if (!env.signal.aborted) env.notify({ jsonrpc: '2.0', method, params: { ...extra, _meta: tag } });
    };
    // The acknowledgement is the first message of the subscription, always.
    send('notifications/subscriptions/acknowledged', { notifications: granted });

    const cleanups: (() => void)[] = grants.map((grant) => grant.attach(send));
    const sees = request.sees ?? (() => true);
    const watch = (registry: ChangeSource, kind: ItemKind, method: string): void => {
      cleanups.push(registry.onChange((changed) => sees(kind, changed) && send(method)));
    };
    if (granted['toolsListChanged'] === true) watch(this.#tools, 'tool', 'notifications/tools/list_changed');
    if (granted['promptsListChanged'] === true) watch(this.#prompts, 'prompt', 'notifications/prompts/list_changed');
    if (granted['resourcesListChanged'] === true) {
      watch(this.#resources, 'resource', 'notifications/resources/list_changed');
      watch(this.#templates, 'template', 'notifications/resources/list_changed');
    }

    await new Promise<void>((resolve) => {
      const listener: Listener = {
        resources: (granted['resourceSubscriptions'] as string[] | undefined) ?? [],
        onResource: (uri) => send('notifications/resources/updated', { uri }),
        end: resolve,
      };
      this.#listeners.add(listener);
      cleanups.push(() => this.#listeners.delete(listener));
      if (env.signal.aborted) resolve();
      else env.signal.addEventListener('abort', () => resolve(), { once: true });
    });
    for (const cleanup of cleanups) cleanup();
    return { _meta: tag };
  }

  /** Delivers `notifications/resources/updated` to listeners subscribed to `uri` or a parent of it. */
  resourceUpdated(uri: string): void {
    for (const listener of this.#listeners) {
      if (listener.resources.some((s) => uri === s || uri.startsWith(s.endsWith('/') ? s : `${s}/`))) listener.onResource(uri);
    }
  }

  /** Ends every subscription gracefully. */
  closeAll(): void {
    for (const listener of [...this.#listeners]) listener.end();
  }
}
