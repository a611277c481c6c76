/**
 * `Host`: the host of the MCP architecture. It runs one isolated client per configured server
 * ({@link Downstream}), keeps an aggregated, namespaced registry of their tools, prompts,
 * resources and templates, and routes every request to the server that owns it through the
 * {@link InterceptorChain}. The gateway serves this view as one MCP server; an agent uses it
 * directly (see `toolFormats.ts` for the Anthropic and OpenAI tool formats).
 *
 * Isolation: a request reaches exactly one server, with that server's own name or URI; a
 * server's notifications reach only the upstream requests and subscriptions that concern it;
 * no upstream credential is ever passed down (the transports carry each server's own).
 *
 * @see https://modelcontextprotocol.io/specification/2025-11-25/architecture
 * @module
 */
import type { McpClient } from '../client/mcpClient.js';
import type { Implementation, ItemKind } from '../protocol/model/common.js';
import type { ListRootsResult, LoggingMessageParams } from '../protocol/model/utilities.js';
import { McpError, McpErrorCode } from '../util/errors.js';
import { silentLogger, type Logger } from '../util/logger.js';
import { LazyAbort, type AbortLike } from '../util/lazyAbort.js';
import { SWITCHBOARD_VERSION } from '../util/version.js';
import { observeCall } from './callMetrics.js';
import { Downstream, type RunOptions, type ServerHealth } from './downstream.js';
import { DeniedError, InterceptorChain, interceptContext, type InterceptedMethod, type RoutedMethod, type InterceptContext, type Interceptor, type NotificationMethod, type RoutedServer } from './interceptors.js';
import { Namespacer } from './namespacing.js';
import { sameSpec, withoutRoots, type DownstreamSpec } from './spec.js';
import { compileToolFilter } from './toolFilter.js';
import { relayCall, relayLogs } from './notificationLimits.js';
import { UriNamespacer } from './uriNamespacing.js';
import { vettedHandlers, vettedListener } from './vettedHandlers.js';
import { refuseOtherModes } from './principalClients.js';
import { changesOf, completionTarget, emptyExposure, exposeServer, parseTemplate, startWindow } from './hostRegistry.js';

export type { ExposedTool, ExposedPrompt, ExposedResource, ExposedTemplate, HostChange, HostOptions, WithheldItem, RequestScope, HostCallOptions, RouteOptions, DownstreamRoute } from './hostTypes.js';
export { sharedCapabilities } from './hostTypes.js';
import { sharedCapabilities, type ExposedTool, type ExposedPrompt, type ExposedResource, type ExposedTemplate, type HostChange, type HostOptions, type WithheldItem, type RequestScope, type HostCallOptions, type RouteOptions, type DownstreamRoute } from './hostTypes.js';

const DEFAULT_CLIENT_INFO: Implementation = Object.freeze({ name: 'switchboard', version: SWITCHBOARD_VERSION });

/** Who a request for a withheld item is refused by, when no trust interceptor refused it first: the trust layer that withheld it (the pins). */
const WITHHELD_INTERCEPTOR_ID = 'trust.pins';

/** Many servers behind one guarded, namespaced view. */
export class Host {
  readonly #options: HostOptions;
  readonly #logger: Logger;
  readonly #chain: InterceptorChain;
  readonly #names: Namespacer;
  readonly #uris: UriNamespacer;
  readonly #servers = new Map<string, Downstream>();
  readonly #filters = new WeakMap<Downstream, (name: string) => boolean>();
  /** Each server's {@link RoutedServer} as the chain last saw it (see `#routedServer`). */
  readonly #routedServers = new WeakMap<Downstream, RoutedServer>();
  /** Why a server's catalog is not exposed (a name it cannot get in `never` mode, ...). */
  readonly #problems = new Map<string, string>();
  readonly #listeners = new Set<(change: HostChange) => void>();
  readonly #logListeners = new Set<(serverId: string, params: LoggingMessageParams) => void>();
  readonly #updateListeners = new Set<(serverId: string, uri: string) => void>();
  #tools: readonly ExposedTool[] = [];
  #prompts: readonly ExposedPrompt[] = [];
  #resources: readonly ExposedResource[] = [];
  #templates: readonly ExposedTemplate[] = [];
  #toolIndex = new Map<string, ExposedTool>();
  #promptIndex = new Map<string, ExposedPrompt>();
  #withheld: readonly WithheldItem[] = [];
  /** `<kind>:<exposed name>` → the withheld item. */
  #withheldByName = new Map<string, WithheldItem>();
  #closed = false;
  /** The start window while it is open (see `HostOptions.startWindowMs`): catalogs wait for its end. */
  #starting: Promise<void> | undefined;

  private constructor(options: HostOptions, names: Namespacer) {
    this.#options = options;
    this.#logger = options.logger ?? silentLogger;
    this.#chain = new InterceptorChain(options.interceptors ?? []);
    this.#names = names;
    this.#uris = new UriNamespacer({ mode: names.mode });
  }

  /** Creates a host (persisted names loaded) without starting its servers; call {@link start}. */
  static async open(options: HostOptions): Promise<Host> {
    let host: Host | undefined = undefined;
    const names = await Namespacer.open({
      mode: options.namespacing ?? 'on-collision',
      separator: options.separator ?? '__',
      ...(options.nameStore !== undefined ? { store: options.nameStore } : {}),
      // Every configured server, started or not: a name may not take another one's prefix.
      serverIds: () => (host === undefined ? [] : host.#servers.keys()),
    });
    host = new Host(options, names);
    for (const spec of options.servers) host.#add(spec);
    return host;
  }

  /** The interceptor chain, in run order. */
  get interceptors(): readonly Interceptor[] {
    return this.#chain.interceptors;
  }

  /**
   * Starts every server; resolves once each was ready or failed once (failures restart in the
   * background). The ready ones are exposed when the start window ends, later ones as they come.
   */
  async start(): Promise<void> {
    const all = Promise.all([...this.#servers.values()].map((s) => s.start()));
    this.#starting = startWindow(all, this.#options.startWindowMs).then(() => {
      this.#starting = undefined;
      this.#rebuild();
    });
    await Promise.all([all, this.#starting]);
  }

  /** The start window while it is open (see `HostOptions.startWindowMs`): resolves when it ends. */
  get starting(): Promise<void> | undefined {
    return this.#starting;
  }

  /** Each server's health, in configuration order, with the reason its catalog is withheld if any. */
  health(): (ServerHealth & { readonly problem?: string })[] {
    return [...this.#servers.values()].map((s) => {
      const problem = this.#problems.get(s.id);
      return problem === undefined ? s.health : { ...s.health, problem };
    });
  }

  /** The ids of the configured servers. */
  get serverIds(): readonly string[] {
    return [...this.#servers.keys()];
  }

  /** The server behind `id` (for the gateway and tests). */
  server(id: string): Downstream | undefined {
    return this.#servers.get(id);
  }

  /**
   * Applies a new server list (config reload): removed servers stop, added ones start,
   * changed ones restart; unchanged ones keep running untouched.
   */
  async reconcile(specs: readonly DownstreamSpec[]): Promise<void> {
    const wanted = new Map(specs.map((s) => [s.id, s]));
    const stops: Promise<void>[] = [];
    const rootChanges: Promise<void>[] = [];
    for (const [id, server] of this.#servers) {
      const next = wanted.get(id);
      if (next !== undefined && sameSpec(next, server.spec)) {
        wanted.delete(id);
        continue;
      }
      if (next !== undefined && sameSpec(withoutRoots(next), withoutRoots(server.spec))) {
        // Only the roots changed: the server is told, not restarted.
        wanted.delete(id);
        rootChanges.push(server.setRoots(next.options.roots ?? []));
        continue;
      }
      this.#servers.delete(id);
      this.#problems.delete(id);
      if (next === undefined) this.#names.forget(id);
      else this.#names.release(id);
      stops.push(server.stop());
    }
    await Promise.all([...stops, ...rootChanges]);
    this.#rebuild();
    const added = [...wanted.values()].map((spec) => this.#add(spec));
    this.#emit('servers');
    await Promise.all(added.map((s) => s.start()));
  }

  /** Calls `listener` after every change of the aggregated registry; returns an unsubscribe function. */
  onChange(listener: (change: HostChange) => void): () => void {
    this.#listeners.add(listener);
    return () => this.#listeners.delete(listener);
  }

  /** Log messages servers send outside a call. */
  onLog(listener: (serverId: string, params: LoggingMessageParams) => void): () => void {
    this.#logListeners.add(listener);
    return () => this.#logListeners.delete(listener);
  }

  /** `notifications/resources/updated` from a server, with the URI as exposed. */
  onResourceUpdated(listener: (serverId: string, exposedUri: string) => void): () => void {
    this.#updateListeners.add(listener);
    return () => this.#updateListeners.delete(listener);
  }

  /** Every exposed tool, in server order then the server's own order. */
  get tools(): readonly ExposedTool[] {
    return this.#tools;
  }

  /** Every exposed prompt. */
  get prompts(): readonly ExposedPrompt[] {
    return this.#prompts;
  }

  /** Every exposed resource. */
  get resources(): readonly ExposedResource[] {
    return this.#resources;
  }

  /** Every exposed resource template. */
  get templates(): readonly ExposedTemplate[] {
    return this.#templates;
  }

  /** What the trust layer withholds (hidden from the model, calls refused). */
  get withheld(): readonly WithheldItem[] {
    return this.#withheld;
  }

  /**
   * Why the tool or prompt behind an exposed name, or the resource behind an exposed URI, is
   * withheld, or undefined. A map lookup; a URI no withheld resource has is matched against the
   * withheld templates (asked only for a URI nothing served resolves).
   */
  withheldReason(kind: Exclude<ItemKind, 'template'>, exposedName: string): string | undefined {
    return this.#withheldItem(kind, exposedName)?.reason;
  }

  /** Vets every server's last lists again (after a person approved or rejected a pin). */
  async refreshTrust(): Promise<void> {
    await Promise.all([...this.#servers.values()].map((s) => s.revet()));
  }

  /** The exposed tool behind a name, or undefined. */
  tool(name: string): ExposedTool | undefined {
    return this.#toolIndex.get(name);
  }

  /** The exposed prompt behind a name, or undefined. */
  prompt(name: string): ExposedPrompt | undefined {
    return this.#promptIndex.get(name);
  }

  /** The server and original URI behind an exposed URI (listed, rewritten, or matching a template). */
  resolveUri(exposed: string): { readonly serverId: string; readonly uri: string } | undefined {
    return this.#uris.resolve(exposed);
  }

  /** The exposed form of a server's URI (identity unless it collides). */
  exposedUri(serverId: string, uri: string): string {
    return this.#uris.exposedUriOf(serverId, uri);
  }

  /** Runs a list through the chain: interceptors may filter or change what the caller sees. */
  listTools(scope: RequestScope = {}): Promise<readonly ExposedTool[]> {
    return this.#list('tools/list', scope, () => this.#tools);
  }

  /** Like {@link listTools}, for prompts. */
  listPrompts(scope: RequestScope = {}): Promise<readonly ExposedPrompt[]> {
    return this.#list('prompts/list', scope, () => this.#prompts);
  }

  /** Like {@link listTools}, for resources. */
  listResources(scope: RequestScope = {}): Promise<readonly ExposedResource[]> {
    return this.#list('resources/list', scope, () => this.#resources);
  }

  /** Like {@link listTools}, for resource templates. */
  listTemplates(scope: RequestScope = {}): Promise<readonly ExposedTemplate[]> {
    return this.#list('resources/templates/list', scope, () => this.#templates);
  }

  /**
   * Routes a call to `tools/call` of the server that owns the exposed `name` through the
   * chain. An unknown name is `ERR_MCP_INVALID_ARGUMENT` (`Unknown tool: …`).
   *
   * `route` performs the downstream call on the ready client; the gateway passes one that
   * bridges the eras, an agent the plain default.
   */
  callTool<R = Record<string, unknown>>(
    name: string,
    args: Readonly<Record<string, unknown>> | undefined,
    options: HostCallOptions = {},
    route: DownstreamRoute<R> = (client, params, o) => client.callTool(params['name'] as string, params['arguments'] as Record<string, unknown> | undefined, o) as Promise<R>,
  ): Promise<R> {
    // Not `async` (one promise less per call); a throw still becomes a rejection.
    const exposed = this.#toolIndex.get(name);
    if (exposed === undefined) return this.#refuse('tools/call', 'tool', name, args === undefined ? {} : { arguments: args }, options);
    const params: Record<string, unknown> = { name: exposed.definition.name, ...(args !== undefined ? { arguments: args } : {}) };
    try {
      return this.#route('tools/call', exposed.serverId, name, exposed.definition, params, options, route);
    } catch (error) {
      return Promise.reject(error);
    }
  }

  /** Routes `prompts/get` to the server that owns the exposed prompt `name`. */
  async getPrompt<R = Record<string, unknown>>(
    name: string,
    args: Readonly<Record<string, string>> | undefined,
    options: HostCallOptions = {},
    route: DownstreamRoute<R> = (client, params, o) => client.getPrompt(params['name'] as string, params['arguments'] as Record<string, string> | undefined, o) as Promise<R>,
  ): Promise<R> {
    const exposed = this.#promptIndex.get(name);
    if (exposed === undefined) return this.#refuse('prompts/get', 'prompt', name, args === undefined ? {} : { arguments: args }, options);
    const params: Record<string, unknown> = { name: exposed.definition.name, ...(args !== undefined ? { arguments: args } : {}) };
    return this.#route('prompts/get', exposed.serverId, name, exposed.definition, params, options, route);
  }

  /** Routes `resources/read` of an exposed URI to its server, with the server's own URI. */
  async readResource<R = Record<string, unknown>>(
    uri: string,
    options: HostCallOptions = {},
    route: DownstreamRoute<R> = (client, params, o) => client.readResource(params['uri'] as string, o) as Promise<R>,
  ): Promise<R> {
    const owner = this.#uris.resolve(uri);
    if (owner === undefined) return this.#refuse('resources/read', 'resource', uri, {}, options);
    const definition = this.#resources.find((r) => r.uri === uri)?.definition;
    return this.#route('resources/read', owner.serverId, uri, definition, { uri: owner.uri }, options, route);
  }

  /**
   * Routes `completion/complete`: a `ref/prompt` to the prompt's server (with its own name), a
   * `ref/resource` to the template's server (with its own URI template).
   */
  async complete<R = Record<string, unknown>>(params: Readonly<Record<string, unknown>>, options: RequestScope = {}, route?: DownstreamRoute<R>): Promise<R> {
    const target = completionTarget(params['ref'], (name) => this.#promptIndex.get(name), this.#templates, this.#uris);
    if (target === undefined) {
      const invalid = new McpError(McpErrorCode.InvalidArgument, 'completion/complete needs a ref of type ref/prompt (with name) or ref/resource (with uri)');
      return this.#chain.run(this.#context('completion/complete', undefined, undefined, undefined, { ...params }, options), () => Promise.reject(invalid), 'trust');
    }
    const { serverId, exposedName, ownRef } = target;
    if (serverId === undefined || ownRef === undefined) return this.#refuse('completion/complete', target.kind, exposedName, { ...params }, options);
    const defaultRoute: DownstreamRoute<R> = (client, p, o) => client.request('completion/complete', p, o) as Promise<R>;
    return this.#route('completion/complete', serverId, exposedName, undefined, { ...params, ref: ownRef }, options, route ?? defaultRoute);
  }

  /**
   * Subscribes to `notifications/resources/updated` of an exposed URI on its server, whatever
   * the server's era (see `resourceSubscriptions.ts`), and resolves with the function that
   * ends this subscription (idempotent). Subscriptions are counted per server and URI: the
   * last one ended ends the server's subscription; held ones are renewed after a restart.
   * Updates arrive through {@link onResourceUpdated}.
   */
  async subscribeResource(uri: string, scope: RequestScope = {}): Promise<() => void> {
    const owner = this.#uris.resolve(uri);
    if (owner === undefined) return this.#refuse('resources/subscribe', 'resource', uri, {}, scope);
    const server = this.#downstream(owner.serverId);
    const definition = this.#resources.find((r) => r.uri === uri)?.definition;
    const ctx = this.#context('resources/subscribe', owner.serverId, uri, definition, { uri: owner.uri }, scope);
    await this.#chain.run(ctx, () => server.subscribeResource(owner.uri));
    let released = false;
    return () => {
      if (released) return;
      released = true;
      server.unsubscribeResource(owner.uri);
    };
  }

  /**
   * Records an upstream request no server is routed for (`initialize`, `ping`,
   * `logging/setLevel`, ...: a {@link RecordedMethod}): it passes the `audit` phase only, so
   * every request a client sends leaves one record, and `run` answers it.
   */
  record<T>(method: InterceptedMethod, scope: RequestScope, run: () => Promise<T>, params: Record<string, unknown> = {}): Promise<T> {
    const name = typeof params['name'] === 'string' ? params['name'] : params['uri'];
    return this.#chain.run(this.#context(method, undefined, typeof name === 'string' ? name : undefined, undefined, params, scope), run, 'audit');
  }

  /**
   * A use of a name the caller's routing could not resolve (the gateway's server has no entry
   * for it): recorded and refused through the chain like {@link callTool} refuses an unknown
   * name, but an unknown one is answered by `notFound` (the server layer's own answer).
   */
  refuse<R>(method: 'tools/call' | 'prompts/get' | 'resources/read' | 'completion/complete', kind: 'tool' | 'prompt' | 'resource', exposedName: string, params: Record<string, unknown>, scope: RequestScope, notFound: () => Promise<R>): Promise<R> {
    return this.#refuse(method, kind, exposedName, params, scope, notFound);
  }

  /**
   * Routes a tasks-extension request about a task of server `serverId` through the chain
   * (`gatewayTasks.ts` checked whose task it is): `tool` is the exposed name of the tool whose
   * call created it, `params` carry the server's own task id.
   */
  routeTaskRequest<R>(
    method: 'tasks/get' | 'tasks/update' | 'tasks/cancel',
    serverId: string,
    tool: string,
    params: Record<string, unknown>,
    scope: RequestScope,
    route: DownstreamRoute<R>,
  ): Promise<R> {
    return this.#route(method, serverId, tool, undefined, params, scope, route);
  }

  /**
   * Runs a server's question (elicitation, sampling, roots) through the chain before it is
   * answered upstream by `answer`.
   */
  serverRequest<R>(serverId: string, method: string, params: Record<string, unknown>, scope: RequestScope, answer: (params: Record<string, unknown>) => Promise<R>): Promise<R> {
    const ctx = this.#context('server/request', serverId, undefined, undefined, params, scope, method);
    return this.#chain.run(ctx, () => answer(ctx.params));
  }

  /**
   * A notification of server `serverId` that reaches the upstream outside the host's own
   * routing (a relayed `notifications/tasks`), through the chain's notification hooks:
   * the params to send, or undefined when it is suppressed.
   */
  notification(method: NotificationMethod, params: Record<string, unknown>): Record<string, unknown> | undefined {
    return this.#chain.notify(method, params, undefined);
  }

  /** Stops every server (and its child process). */
  async close(): Promise<void> {
    if (this.#closed) return;
    this.#closed = true;
    await Promise.all([...this.#servers.values()].map((s) => s.stop()));
    await this.#names.flush().catch((error: unknown) => this.#logger.warn('could not save the name assignments', { error: String(error) }));
  }

  // ---- internals ------------------------------------------------------------------------

  /**
   * A request for a name nothing serves: it passes the `audit` and `trust` phases (so it is
   * recorded, and the trust layer refuses a withheld item with its own reason), then is refused
   * with the withholding reason, or as unknown. Policy, consent and guards never see it: there is
   * nothing to route.
   */
  #refuse<R>(method: RoutedMethod, kind: Exclude<ItemKind, 'template'>, exposedName: string, params: Record<string, unknown>, scope: RequestScope, notFound?: () => Promise<R>): Promise<R> {
    const held = this.#withheldItem(kind, exposedName);
    // The withheld item's own name or URI, as the trust layer keyed its verdict.
    const own = held === undefined ? exposedName : held.name;
    const named: Record<string, unknown> = method === 'completion/complete' ? params : kind === 'resource' ? { ...params, uri: own } : { ...params, name: own };
    const refusal = held === undefined ? new McpError(McpErrorCode.InvalidArgument, `Unknown ${kind}: ${exposedName}`) : new DeniedError(WITHHELD_INTERCEPTOR_ID, held.reason);
    try {
      const ctx = this.#context(method, held?.serverId, exposedName, undefined, named, scope);
      return this.#chain.run(ctx, held === undefined && notFound !== undefined ? notFound : () => Promise.reject(refusal), 'trust');
    } catch (error) {
      return Promise.reject(error);
    }
  }

  /** The withheld item behind an exposed name or URI (a withheld template matches a URI). */
  #withheldItem(kind: Exclude<ItemKind, 'template'>, exposedName: string): WithheldItem | undefined {
    const direct = this.#withheldByName.get(`${kind}:${exposedName}`);
    if (direct !== undefined || kind !== 'resource') return direct;
    return this.#withheld.find((w) => w.kind === 'template' && parseTemplate(w.exposedName)?.match(exposedName) !== undefined);
  }

  #add(spec: DownstreamSpec): Downstream {
    const server: Downstream = new Downstream(spec, {
      clientInfo: this.#options.clientInfo ?? DEFAULT_CLIENT_INFO,
      transport: this.#options.transport,
      logger: this.#logger,
      ...(this.#options.backoff !== undefined ? { backoff: this.#options.backoff } : {}),
      handlers: {
        ...vettedHandlers(this.#options.handlers, (method, params, answer) => this.serverRequest(spec.id, method, params, {}, answer)),
        // Asked outside a call, the host answers with the configured roots (through the chain).
        roots: this.#options.handlers?.roots ?? ((): Promise<ListRootsResult> => this.serverRequest(spec.id, 'roots/list', {}, {}, () => Promise.resolve({ roots: [...(server.spec.options.roots ?? [])] }))),
      },
      ...(this.#options.capabilities !== undefined ? { capabilities: this.#options.capabilities } : {}),
      ...(this.#options.trust !== undefined ? { vetter: this.#options.trust } : {}),
      onHealth: () => this.#emit('servers'),
      onCatalog: () => {
        if (this.#starting === undefined && this.#servers.get(spec.id) === server) this.#rebuild();
      },
      ...(this.#options.notificationLimits !== undefined ? { listChangedWindowMs: this.#options.notificationLimits.listChangedWindowMs } : {}),
      // Outside any call: sanitised by the chain's notification hooks, with no request to record on.
      onLog: relayLogs(vettedListener<LoggingMessageParams>(this.#chain, 'notifications/message', (params) => {
        for (const l of this.#logListeners) l(spec.id, params);
      }, undefined), this.#options.notificationLimits, spec.id),
      onResourceUpdated: (uri) => {
        const exposed = this.exposedUri(spec.id, uri);
        for (const l of this.#updateListeners) l(spec.id, exposed);
      },
    });
    this.#servers.set(spec.id, server);
    return server;
  }

  /** The compiled tool filter of a server (compiled once per spec). */
  #filterOf(server: Downstream): (name: string) => boolean {
    const filter = this.#filters.get(server) ?? compileToolFilter(server.spec.options.tools);
    this.#filters.set(server, filter);
    return filter;
  }

  #downstream(serverId: string): Downstream {
    const server = this.#servers.get(serverId);
    if (server === undefined) throw new McpError(McpErrorCode.ServerUnavailable, `Server ${serverId} is not configured`);
    return server;
  }

  /** Recomputes the exposed registry from every server's catalog and announces what changed. */
  #rebuild(): void {
    const next = emptyExposure();
    for (const server of this.#servers.values()) {
      try {
        exposeServer(server, this.#filterOf(server), this.#names, this.#uris, next);
        this.#problems.delete(server.id);
      } catch (error) {
        this.#names.release(server.id);
        const message = error instanceof Error ? error.message : String(error);
        if (this.#problems.get(server.id) !== message) this.#logger.error(`server ${server.id}: its catalog is not exposed: ${message}`, { server: server.id });
        this.#problems.set(server.id, message);
      }
    }
    const changed = changesOf({ tools: this.#tools, prompts: this.#prompts, resources: this.#resources, templates: this.#templates, withheld: this.#withheld }, next);
    this.#tools = Object.freeze(next.tools);
    this.#prompts = Object.freeze(next.prompts);
    this.#resources = Object.freeze(next.resources);
    this.#templates = Object.freeze(next.templates);
    this.#toolIndex = new Map(next.tools.map((t) => [t.name, t]));
    this.#promptIndex = new Map(next.prompts.map((p) => [p.name, p]));
    this.#withheld = Object.freeze(next.withheld);
    this.#withheldByName = new Map(next.withheld.filter((w) => w.kind !== 'template').map((w) => [`${w.kind}:${w.exposedName}`, w]));
    for (const change of changed) this.#emit(change);
  }

  #emit(change: HostChange): void {
    for (const listener of this.#listeners) {
      try {
        listener(change);
      } catch (error) {
        this.#logger.warn('a host change listener failed', { error: String(error) });
      }
    }
  }

  async #list<T>(method: InterceptedMethod, scope: RequestScope, read: () => readonly T[]): Promise<readonly T[]> {
    await this.#starting;
    const ctx = this.#context(method, undefined, undefined, undefined, {}, scope);
    return this.#chain.run(ctx, () => Promise.resolve(read()));
  }

  #route<R>(
    method: InterceptedMethod,
    serverId: string,
    exposedName: string,
    definition: Readonly<Record<string, unknown>> | undefined,
    params: Record<string, unknown>,
    options: HostCallOptions,
    route: DownstreamRoute<R>,
  ): Promise<R> {
    const server = this.#downstream(serverId);
    const ctx = this.#context(method, serverId, exposedName, definition, params, options);
    const target = typeof params['name'] === 'string' ? params['name'] : undefined;
    // Rate-limited before the chain's notification hooks: a flood costs the sanitiser nothing.
    const relay = relayCall(this.#options.notificationLimits, serverId, options.onProgress && vettedListener(this.#chain, 'notifications/progress', options.onProgress, ctx), options.onLog && vettedListener(this.#chain, 'notifications/message', options.onLog, ctx));
    const upstream = options.clientCapabilities;
    const task = (client: McpClient, o: { signal: AbortLike; timeoutMs: number }): Promise<R> => {
      // Built by assignment, not conditional spreads: no temporary objects per call.
      const routed: Mutable<RouteOptions> = { signal: o.signal, timeoutMs: o.timeoutMs };
      if (relay?.onProgress !== undefined) routed.onProgress = relay.onProgress;
      if (relay?.onLog !== undefined) routed.onLog = relay.onLog;
      if (upstream !== undefined) routed.capabilities = sharedCapabilities(client.capabilities, upstream);
      return route(client, ctx.params, routed);
    };
    // Read from the scope, not `ctx.signal`, which would make a lazy abort's signal.
    const signal = options.signal;
    let runOptions: RunOptions = {};
    if (signal !== undefined) runOptions = options.abort === undefined ? { signal } : { signal, abort: options.abort };
    const as = this.#options.authority?.wrap(server, options.principal, ctx, task) ?? refuseOtherModes(server, task);
    return observeCall(this.#logger, { method, serverId, target }, () => this.#chain.run(ctx, () => (relay === undefined ? server.run(as, runOptions) : relay.around(server.run(as, runOptions)))));
  }

  #context(
    method: InterceptedMethod,
    serverId: string | undefined,
    exposedName: string | undefined,
    definition: Readonly<Record<string, unknown>> | undefined,
    params: Record<string, unknown>,
    scope: RequestScope,
    serverMethod?: string,
  ): InterceptContext {
    // Every member present, in one order (see `interceptContext`): no shape varies per call.
    return interceptContext({
      method,
      serverMethod,
      principal: scope.principal,
      session: scope.session,
      conversation: scope.conversation,
      server: serverId === undefined ? undefined : this.#routedServer(serverId),
      exposedName,
      definition,
      params,
      signal: scope.signal ?? new LazyAbort(),
      elicit: scope.elicit,
    });
  }

  /** Server `serverId` as the chain sees it, reused while its `serverInfo` stays the same. */
  #routedServer(serverId: string): RoutedServer {
    const server = this.#servers.get(serverId);
    const info = server?.client?.serverInfo;
    const known = server === undefined ? undefined : this.#routedServers.get(server);
    if (known !== undefined && known.info === info) return known;
    const routed: RoutedServer = Object.freeze(info !== undefined ? { id: serverId, info } : { id: serverId });
    if (server !== undefined) this.#routedServers.set(server, routed);
    return routed;
  }
}

type Mutable<T> = { -readonly [K in keyof T]: T[K] };
