/**
 * The state one `McpServer` shares with its request pipeline, method handlers, sessions and
 * extensions: options, the four registries, the listen hub, open sessions, the sealer of
 * `requestState`, and the few helpers they all use (capabilities, cache hints, error
 * reporting). Internal: the public surface is `McpServer`.
 *
 * @module
 */
import type { RequestId } from '../jsonrpc/messages.js';
import { TASKS_EXTENSION_ID } from '../protocol/meta.js';
import type { ClientCapabilities, ServerCapabilities } from '../protocol/model/capabilities.js';
import type { Implementation } from '../protocol/model/common.js';
import { isStateless, supportedRevisions, type ProtocolRevision } from '../protocol/revisions.js';
import { isCancellation } from '../util/errors.js';
import { consoleErrorLogger, type Logger } from '../util/logger.js';
import type { PromptEntry } from './prompts.js';
import { Registry } from './registry.js';
import { RequestStateSealer, type RequestStateOptions } from './requestState.js';
import type { RegisteredResource, RegisteredTemplate } from './resources.js';
import type { ServerSession } from './session.js';
import { SubscriptionHub } from './subscriptions.js';
import { CORE_TASKS_CAPABILITY } from './tasks/methods.js';
import type { TaskManager, TasksOptions } from './tasks/manager.js';
import type { CompiledTool } from './tools.js';
import type { CacheHints, ForwardedTasks, ServerInfo } from './types.js';
import { Views, type Visibility } from './visibility.js';
import type { ItemKind } from '../protocol/model/common.js';
import type { Principal } from '../transport/types.js';
import { ManifestPublisher, type ServerSigningOptions } from './manifestPublisher.js';

/** Options of an {@link McpServer}. */
export interface McpServerOptions {
  /** Where the server logs (never stdout). Default {@link consoleErrorLogger}: warnings and errors on stderr. */
  readonly logger?: Logger;
  /** Entries per page of the list methods. Default 100. */
  readonly pageSize?: number;
  /** Cache hints on cacheable results (2026-07-28). Default `{ ttlMs: 0, cacheScope: 'private' }`. */
  readonly cache?: CacheHints;
  /**
   * Cache hints per method, over `cache`: `server/discover`, `tools/list`, `prompts/list`,
   * `resources/list`, `resources/templates/list`, `resources/read` (a resource's own `cache`
   * still wins for its reads).
   */
  readonly methodCache?: Readonly<Partial<Record<string, CacheHints>>>;
  /** Keys, lifetime and replay store of sealed `requestState` (MRTR). */
  readonly requestState?: RequestStateOptions;
  /** Revisions served. Default: all supported. */
  readonly versions?: readonly ProtocolRevision[];
  /** Declare the (deprecated) logging capability and honour log levels. Default true. */
  readonly logging?: boolean;
  /** Extra capabilities to declare (merged over the computed ones). */
  readonly capabilities?: ServerCapabilities;
  /**
   * Called when a stateful-session client sends `notifications/roots/list_changed` (its roots
   * changed; ask again with `roots/list` when you need them).
   */
  readonly onRootsListChanged?: (session: ServerSession) => void;
  /** Receives the real error when a handler throws something that is not a `JsonRpcError`. */
  readonly onError?: (error: unknown, info: { readonly method: string; readonly requestId: RequestId }) => void;
  /**
   * Tasks (long-running tool calls): 2025-11-25 core tasks and the 2026-07-28 extension
   * `io.modelcontextprotocol/tasks`, on one store. `true` = defaults. Default: off.
   */
  readonly tasks?: TasksOptions | boolean;
  /**
   * Tasks another component owns (a gateway forwarding a downstream server's tasks): the
   * extension is advertised and `tasks/get|update|cancel` go to this handler (see
   * `tasks/forwarded.ts`). Exclusive with `tasks`.
   */
  readonly forwardedTasks?: ForwardedTasks;
  /**
   * Per-principal views: which entries exist for a request, session or listen stream (see
   * `visibility.ts`). Default: every enabled entry is visible to everyone.
   */
  readonly visibility?: Visibility;
  /**
   * Serves the list methods from a catalog kept elsewhere (a gateway's host, which decides each
   * list through its interceptor chain for the caller): called once per list request with who is
   * asking, it resolves with the items (wire definitions) that caller sees, and the server pages
   * over them as over its own registry (cursor, page size, cache hints). Undefined from the hook:
   * the registry's own list. The registries then serve routing only: a call by a name the hook
   * did not list still reaches its entry, whose handler decides.
   */
  readonly lists?: ListProvider;
  /**
   * Sign the lists: a JWS over the digests of the tools, prompts and resource templates is
   * published in the `_meta` of their list results and, over HTTP, at
   * `/.well-known/mcp-manifest` (see `docs/signing.md`). Default: unsigned.
   */
  readonly signing?: ServerSigningOptions;
}

/** What a {@link McpServerOptions.lists} hook sees of one list request. */
export interface ListRequest {
  readonly method: string;
  readonly principal: Principal | undefined;
  readonly session: ServerSession | undefined;
  readonly revision: ProtocolRevision;
  readonly meta: Readonly<Record<string, unknown>>;
  readonly clientCapabilities: ClientCapabilities;
}

/** See {@link McpServerOptions.lists}. */
export type ListProvider = (kind: ItemKind, request: ListRequest) => Promise<readonly Readonly<Record<string, unknown>>[]> | undefined;

/** The shared state of one server (see the module comment). */
export class ServerCore {
  readonly info: Implementation;
  readonly instructions: string | undefined;
  readonly logger: Logger;
  readonly pageSize: number;
  readonly logging: boolean;
  readonly versions: readonly ProtocolRevision[];
  readonly statelessVersions: readonly ProtocolRevision[];
  readonly statefulVersions: readonly ProtocolRevision[];
  readonly onRootsListChanged: McpServerOptions['onRootsListChanged'];
  readonly sessions = new Set<ServerSession>();
  readonly tools = new Registry<CompiledTool>('tool');
  readonly resources = new Registry<RegisteredResource>('resource');
  readonly templates = new Registry<RegisteredTemplate>('resource template');
  readonly prompts = new Registry<PromptEntry>('prompt');
  readonly hub: SubscriptionHub;
  /** The `visibility` option applied. */
  readonly views: Views;
  /** The `lists` option. */
  readonly lists: ListProvider | undefined;
  /** The signed manifest, when a signing key was given. */
  readonly manifest: ManifestPublisher | undefined;
  /** Tasks, when enabled (see `src/server/tasks`); set once by the server's constructor. */
  tasks: TaskManager | undefined;
  /** Forwarded tasks, when enabled (`McpServerOptions.forwardedTasks`); set once by the server's constructor. */
  forwardedTasks: ForwardedTasks | undefined;
  readonly #cache: CacheHints;
  readonly #methodCache: Readonly<Partial<Record<string, CacheHints>>>;
  readonly #extraCaps: ServerCapabilities | undefined;
  readonly #onError: McpServerOptions['onError'];
  readonly #stateOptions: RequestStateOptions;
  #sealer: Promise<RequestStateSealer> | undefined;
  #capabilities: ServerCapabilities | undefined;

  constructor(info: ServerInfo, options: McpServerOptions) {
    const { instructions, ...identity } = info;
    this.info = Object.freeze({ ...identity });
    this.instructions = instructions;
    this.logger = options.logger ?? consoleErrorLogger;
    this.pageSize = options.pageSize ?? 100;
    this.#cache = options.cache ?? { ttlMs: 0, cacheScope: 'private' };
    this.#methodCache = options.methodCache ?? {};
    this.versions = options.versions ?? supportedRevisions;
    this.statelessVersions = this.versions.filter(isStateless);
    this.statefulVersions = this.versions.filter((v) => !isStateless(v));
    this.logging = options.logging ?? true;
    this.#extraCaps = options.capabilities;
    this.#onError = options.onError;
    this.onRootsListChanged = options.onRootsListChanged;
    this.#stateOptions = options.requestState ?? {};
    this.views = new Views(options.visibility, this.logger);
    this.lists = options.lists;
    this.manifest = options.signing === undefined ? undefined : new ManifestPublisher(this.info.name, { tools: this.tools, prompts: this.prompts, templates: this.templates }, options.signing);
    this.hub = new SubscriptionHub(this.tools, this.prompts, this.resources, this.templates);
    for (const registry of [this.tools, this.resources, this.templates, this.prompts] as const) {
      registry.onChange(() => (this.#capabilities = undefined));
    }
  }

  /** The capabilities this server declares, computed from what is registered (cached until a change). */
  capabilities(): ServerCapabilities {
    if (this.#capabilities !== undefined) return this.#capabilities;
    const caps: Record<string, unknown> = {};
    if (this.tools.size > 0) caps['tools'] = { listChanged: true };
    if (this.prompts.size > 0) caps['prompts'] = { listChanged: true };
    if (this.resources.size > 0 || this.templates.size > 0) caps['resources'] = { subscribe: true, listChanged: true };
    if (this.#hasCompleters()) caps['completions'] = {};
    if (this.logging) caps['logging'] = {};
    if (this.tasks !== undefined) {
      // tasks integration: `tasks` is for 2025-11-25 initialize, `extensions` for server/discover
      caps['tasks'] = CORE_TASKS_CAPABILITY;
      caps['extensions'] = { [TASKS_EXTENSION_ID]: {} };
    } else if (this.forwardedTasks !== undefined) {
      caps['extensions'] = { [TASKS_EXTENSION_ID]: {} };
    }
    Object.assign(caps, this.#extraCaps);
    return (this.#capabilities = Object.freeze(caps) as ServerCapabilities);
  }

  /**
   * Runs `fn` with every registry held: all its changes send at most one `list_changed` per
   * kind (and per listener), after `fn` settles.
   */
  async batch(fn: () => void | Promise<void>): Promise<void> {
    const registries = [this.tools, this.prompts, this.resources, this.templates] as const;
    for (const registry of registries) registry.hold();
    try {
      await fn();
    } finally {
      for (const registry of registries) registry.release();
    }
  }

  /** The cache hints of `method`'s results. */
  cacheFor(method: string): CacheHints {
    const hints = this.#methodCache[method] ?? this.#cache;
    return { ttlMs: hints.ttlMs, cacheScope: hints.cacheScope };
  }

  /** The sealer of `requestState` (created on first use). */
  sealer(): Promise<RequestStateSealer> {
    return (this.#sealer ??= RequestStateSealer.create(this.#stateOptions));
  }

  /** Hands a handler failure to `onError`, or logs it. */
  reportError(error: unknown, method: string, requestId: RequestId): void {
    if (isCancellation(error)) return this.logger.debug('a request ended early: the client cancelled or went away', { method, requestId, reason: String(error) });
    if (this.#onError !== undefined) {
      try {
        this.#onError(error, { method, requestId });
      } catch {
        // the reporter must not change the answer
      }
    } else {
      this.logger.error('a handler failed', { method, requestId, error: error instanceof Error ? (error.stack ?? error.message) : String(error) });
    }
  }

  #hasCompleters(): boolean {
    return (
      this.prompts.all().some((p) => p.forwardComplete !== undefined || p.definition.arguments?.some((a) => a.complete !== undefined) === true) ||
      this.templates.all().some((t) => t.forwardComplete !== undefined || (t.definition.complete !== undefined && Object.keys(t.definition.complete).length > 0))
    );
  }
}
