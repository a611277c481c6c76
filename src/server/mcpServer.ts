/**
 * `McpServer`: tools, resources and prompts registered once and shared by every request,
 * served over any transport and (from one set of handlers) on both protocol eras.
 *
 * The request pipeline, for each message: era and version from `_meta` (2026-07-28) →
 * method lookup in that revision's registry (absent = -32601) → params validated against the
 * revision's schema (-32602 naming the field) → middleware chain → the method's handler →
 * result stamped for the revision (`resultType`, cache hints, `serverInfo`). Handler throws
 * that are not `JsonRpcError`s become a generic -32603; the detail goes to `onError`.
 *
 * The steps live next to this file: `pipeline.ts` (revision, validation, stamping),
 * `methods.ts` (the method handlers), `input.ts` (handler contexts and MRTR), `connect.ts`
 * (message-stream transports), `tasks/glue.ts` (tasks).
 *
 * @see https://modelcontextprotocol.io/specification/2026-07-28
 * @module
 */
import type { Connection } from '../jsonrpc/connection.js';
import { JsonRpcError } from '../jsonrpc/errors.js';
import type { JsonRpcNotification, JsonRpcRequest, JsonRpcResponse, RequestId } from '../jsonrpc/messages.js';
import type { ServerCapabilities } from '../protocol/model/capabilities.js';
import type { Implementation } from '../protocol/model/common.js';
import { latestStatefulRevision, type ProtocolRevision } from '../protocol/revisions.js';
import type { DispatchEnv, McpDispatcher, MessageExtra, Principal, SessionPeer, ToolHeaderParam, Transport } from '../transport/types.js';
import { McpError, McpErrorCode } from '../util/errors.js';
import { connectTransport } from './connect.js';
import { ServerCore, type McpServerOptions } from './core.js';
import { methodHandlers, watchListChanges } from './methods.js';
import { compose, type Middleware, type MiddlewareContext, type Terminal } from './middleware.js';
import { prepare, stamp, type Call, type MethodHandler } from './pipeline.js';
import { makePrompt } from './prompts.js';
import type { Registry } from './registry.js';
import { makeResource, makeTemplate, type RegisteredTemplate } from './resources.js';
import { exportServerSession, importServerSession, ServerSession } from './session.js';
import type { ListenSource } from './subscriptions.js';
import { installTasks } from './tasks/glue.js';
import { installForwardedTasks } from './tasks/forwarded.js';
import { compileTool } from './tools.js';
import {
  forwardedPrompt,
  forwardedResource,
  forwardedTemplate,
  forwardedTool,
  type ForwardCompleteOptions,
  type ForwardedHandle,
  type ForwardedHandler,
  type ForwardToolOptions,
} from './forward.js';
import type { Prompt, GetPromptResult } from '../protocol/model/prompts.js';
import type { Resource, ResourceTemplate } from '../protocol/model/resource.js';
import type { ReadResourceResult } from '../protocol/model/resources.js';
import type { Tool } from '../protocol/model/tool.js';
import type { CallToolResult } from '../protocol/model/tools.js';
import { observe, preloadTelemetry, telemetryActive } from '../protocol/telemetry.js';
import { MANIFEST_WELL_KNOWN_PATH } from '../protocol/manifest.js';
import type {
  InferArgs,
  InferStructured,
  JsonSchemaObject,
  PromptDefinition,
  PromptHandler,
  RegisteredHandle,
  ResourceDefinition,
  ResourceHandler,
  ResourceTemplateDefinition,
  ServerInfo,
  StandardSchemaV1,
  TemplateHandler,
  ToolDefinition,
  ToolHandler,
} from './types.js';

export type { McpServerOptions } from './core.js';

/** An MCP server. Register primitives, then serve it over HTTP (as a dispatcher) or `connect` a stream transport. */
export class McpServer implements McpDispatcher {
  /** The server's identity. */
  readonly info: Implementation;
  readonly #core: ServerCore;
  readonly #closeListeners: (() => void)[] = [];
  readonly #middleware: Middleware[] = [];
  readonly #handlers: Map<string, MethodHandler>;
  #chain: Terminal;
  readonly #connections = new Set<Connection>();

  constructor(info: ServerInfo, options: McpServerOptions = {}) {
    const core = new ServerCore(info, options);
    this.#core = core;
    this.info = core.info;
    this.#handlers = methodHandlers(core);
    this.#chain = this.#terminal;
    // Spans need @opentelemetry/api, loaded only when an application registered with it.
    void preloadTelemetry();
    if (options.forwardedTasks !== undefined) {
      if (options.tasks !== undefined && options.tasks !== false) throw new McpError(McpErrorCode.InvalidArgument, 'tasks and forwardedTasks cannot both be set');
      installForwardedTasks(core, options.forwardedTasks, this.#handlers);
    }
    const stopTasks = installTasks(core, options.tasks, this.#handlers);
    if (stopTasks !== undefined) this.onClose(stopTasks);
  }

  // ---- registration -------------------------------------------------------------------

  /**
   * Registers a tool. `inputSchema` is JSON Schema (root `type: "object"`) or a Standard
   * Schema; arguments are validated against it before `handler` runs.
   * Throws `ERR_MCP_INVALID_ARGUMENT` for an invalid name or schema.
   */
  tool<S extends JsonSchemaObject | StandardSchemaV1, O extends JsonSchemaObject | StandardSchemaV1 = JsonSchemaObject>(
    name: string,
    definition: ToolDefinition<S, O>,
    handler: ToolHandler<InferArgs<S>, InferStructured<O>>,
  ): RegisteredHandle {
    const compiled = compileTool(name, definition, handler as ToolHandler<never>);
    this.#core.tools.add(compiled);
    return handleOf(this.#core.tools, compiled);
  }

  /** Registers a fixed resource at `uri`. */
  resource(uri: string, definition: ResourceDefinition, handler: ResourceHandler): RegisteredHandle {
    const entry = makeResource(uri, definition, handler);
    this.#core.resources.add(entry);
    return handleOf(this.#core.resources, entry);
  }

  /** Registers an RFC 6570 resource template; `handler` gets the matched variables. */
  resourceTemplate(uriTemplate: string, definition: ResourceTemplateDefinition, handler: TemplateHandler): RegisteredHandle {
    let entry: RegisteredTemplate;
    try {
      entry = makeTemplate(uriTemplate, definition, handler);
    } catch (error) {
      throw new McpError(McpErrorCode.InvalidArgument, `invalid resource template ${JSON.stringify(uriTemplate)}`, { cause: error });
    }
    this.#core.templates.add(entry);
    return handleOf(this.#core.templates, entry);
  }

  /** Registers a prompt. Missing required arguments are answered -32602 before `handler` runs. */
  prompt(name: string, definition: PromptDefinition, handler: PromptHandler): RegisteredHandle {
    const entry = makePrompt(name, definition, handler);
    this.#core.prompts.add(entry);
    return handleOf(this.#core.prompts, entry);
  }

  // ---- definitions from elsewhere (see forward.ts) -----------------------------------

  /**
   * Serves a tool defined elsewhere, its wire form kept byte for byte (`tools/list` returns it
   * as given, key order included). Calls go to `handler` with the params as received;
   * arguments are validated against `inputSchema` only with `validateArguments` (a schema the
   * validators cannot compile then means no validation, with a logged warning).
   */
  forwardTool(tool: Tool, handler: ForwardedHandler<CallToolResult>, options: ForwardToolOptions = {}): ForwardedHandle<Tool> {
    const logger = this.#core.logger;
    return forwardedHandle(this.#core.tools, forwardedTool(tool, handler, options, logger), (d) => forwardedTool(d, handler, options, logger));
  }

  /** Serves a prompt defined elsewhere; `complete` serves its `completion/complete`. */
  forwardPrompt(prompt: Prompt, handler: ForwardedHandler<GetPromptResult>, options: ForwardCompleteOptions = {}): ForwardedHandle<Prompt> {
    const forward = handler as ForwardedHandler<Record<string, unknown>>;
    return forwardedHandle(this.#core.prompts, forwardedPrompt(prompt, forward, options), (d) => forwardedPrompt(d, forward, options));
  }

  /** Serves a resource defined elsewhere: `resources/read` of its URI goes to `handler`. */
  forwardResource(resource: Resource, handler: ForwardedHandler<ReadResourceResult>): ForwardedHandle<Resource> {
    const forward = handler as ForwardedHandler<Record<string, unknown>>;
    return forwardedHandle(this.#core.resources, forwardedResource(resource, forward), (d) => forwardedResource(d, forward));
  }

  /** Serves a template defined elsewhere: a read matching it goes to `handler`; `complete` serves completions. */
  forwardTemplate(template: ResourceTemplate, handler: ForwardedHandler<ReadResourceResult>, options: ForwardCompleteOptions = {}): ForwardedHandle<ResourceTemplate> {
    const forward = handler as ForwardedHandler<Record<string, unknown>>;
    return forwardedHandle(this.#core.templates, forwardedTemplate(template, forward, options), (d) => forwardedTemplate(d, forward, options));
  }

  /**
   * Runs `fn`; every add, update, remove, enable or disable inside it sends at most one
   * `list_changed` per kind to each session or listen stream, once `fn` settles.
   */
  batchChanges(fn: () => void | Promise<void>): Promise<void> {
    return this.#core.batch(fn);
  }

  /** Adds middleware around every request (outermost first). */
  use(middleware: Middleware): this {
    this.#middleware.push(middleware);
    this.#chain = compose(this.#middleware, this.#terminal);
    return this;
  }

  /**
   * Adds a source of `subscriptions/listen` grants (2026-07-28): it sees every listen
   * request's filter before the acknowledgement and is told when the stream ends, e.g. a
   * gateway subscribing downstream to the `resourceSubscriptions` its listeners ask for.
   */
  addListenSource(source: ListenSource): this {
    this.#core.hub.addSource(source);
    return this;
  }

  /** Tells listeners subscribed to `uri` (or a parent of it) that the resource changed. */
  notifyResourceUpdated(uri: string): void {
    this.#core.hub.resourceUpdated(uri);
    for (const session of this.#core.sessions) {
      if ([...session.subscriptions].some((s) => uri === s || uri.startsWith(s.endsWith('/') ? s : `${s}/`))) {
        session.send('notifications/resources/updated', { uri });
      }
    }
  }

  /**
   * Tells a 2025-11-25 session's client that the out-of-band interaction of a URL-mode
   * elicitation finished (`notifications/elicitation/complete`). Returns false when the
   * session is closed or negotiated another revision (the notification does not exist there).
   */
  notifyElicitationComplete(session: ServerSession, elicitationId: string): boolean {
    if (session.closed || session.revision !== '2025-11-25') return false;
    session.send('notifications/elicitation/complete', { elicitationId });
    return true;
  }

  // ---- sessions -----------------------------------------------------------------------

  /**
   * Creates the state of a stateful session (revisions up to 2025-11-25). Transports call it
   * once per stdio connection or `Mcp-Session-Id`, and pass it back as `DispatchEnv.session`.
   */
  createSession(peer: SessionPeer): ServerSession {
    const session = new ServerSession(peer);
    const sessions = this.#core.sessions;
    sessions.add(session);
    session.onClose(() => sessions.delete(session));
    return session;
  }

  /** Ends a session created by {@link createSession}. */
  closeSession(session: unknown): void {
    if (session instanceof ServerSession) session.close();
  }

  /** {@inheritDoc McpDispatcher.exportSession} */
  exportSession(session: unknown): Record<string, unknown> | undefined {
    return session instanceof ServerSession ? exportServerSession(session) : undefined;
  }

  /** {@inheritDoc McpDispatcher.importSession} */
  importSession(session: unknown, state: Record<string, unknown>, principal?: Principal): void {
    if (!(session instanceof ServerSession)) return;
    const fresh = session.revision === undefined;
    importServerSession(session, state);
    // A session rebuilt from another instance's record watches the lists as its initialize did.
    if (fresh && session.revision !== undefined) watchListChanges(this.#core, session, { principal, session, revision: session.revision });
  }

  /** How many stateful sessions are open. */
  get sessionCount(): number {
    return this.#core.sessions.size;
  }

  /** The capabilities this server declares, computed from what is registered. */
  capabilities(): ServerCapabilities {
    return this.#core.capabilities();
  }

  // ---- serving ------------------------------------------------------------------------

  /** Handles one message from a request-per-message transport (HTTP). Never rejects. */
  async dispatch(message: JsonRpcRequest | JsonRpcNotification, env: DispatchEnv): Promise<JsonRpcResponse | undefined> {
    if (!('id' in message)) {
      this.#notification(message, env.session);
      return undefined;
    }
    try {
      return { jsonrpc: '2.0', id: message.id, result: await this.#serve(message, env) };
    } catch (error) {
      return { jsonrpc: '2.0', id: message.id, error: this.#wireError(error, message).toJSON() };
    }
  }

  /**
   * The `x-mcp-header` parameters of a tool visible to the request in `env` (for the HTTP
   * transport's `Mcp-Name` / `Mcp-Param-*` checks); undefined for a missing, disabled or
   * invisible tool alike. The revision is the session's, else the newest stateless one
   * (the headers are a 2026-07-28 feature).
   */
  toolHeaders(toolName: string, env?: DispatchEnv): readonly ToolHeaderParam[] | undefined {
    const core = this.#core;
    const tool = core.tools.get(toolName);
    const session = env?.session instanceof ServerSession ? env.session : undefined;
    const revision = session?.revision ?? core.statelessVersions[core.statelessVersions.length - 1] ?? latestStatefulRevision;
    return core.views.sees('tool', tool, { principal: env?.principal, session, revision }) ? tool?.headers : undefined;
  }

  /**
   * The documents this server serves at `/.well-known/` paths over HTTP: its signed manifest
   * (`application/jose`) at `/.well-known/mcp-manifest` and `/.well-known/mcp-manifest/<endpoint>`,
   * when it was given a signing key.
   */
  async wellKnown(path: string): Promise<{ readonly contentType: string; readonly body: string } | undefined> {
    const manifest = this.#core.manifest;
    if (manifest === undefined) return undefined;
    if (path !== MANIFEST_WELL_KNOWN_PATH && !path.startsWith(`${MANIFEST_WELL_KNOWN_PATH}/`)) return undefined;
    return { contentType: 'application/jose', body: (await manifest.envelope()).jws };
  }

  /**
   * Serves this server over a message-stream transport (stdio, in-memory). Resolves once the
   * transport is started; the returned connection closes it.
   */
  connect(transport: Transport, options: { readonly requestTimeoutMs?: number } = {}): Promise<Connection> {
    const core = this.#core;
    return connectTransport(
      {
        logger: core.logger,
        serve: (request, env) => this.#serve(request, env),
        notification: (n, session) => this.#notification(n, session),
        reportError: (error, method, id) => core.reportError(error, method, id),
        createSession: (peer) => this.createSession(peer),
        track: (connection) => {
          this.#connections.add(connection);
          connection.onClose(() => this.#connections.delete(connection));
        },
      },
      transport,
      options,
    );
  }

  /** Calls `listener` once when {@link close} runs (to stop timers, watchers, ...). */
  onClose(listener: () => void): void {
    this.#closeListeners.push(listener);
  }

  /** Ends every listen stream gracefully, closes sessions and connected transports. */
  async close(): Promise<void> {
    for (const listener of this.#closeListeners.splice(0)) {
      try {
        listener();
      } catch (error) {
        this.#core.logger.warn('a close listener threw', { error: String(error) });
      }
    }
    // Listen streams end with their graceful result, sent before the transports close.
    this.#core.hub.closeAll();
    await Promise.all([...this.#connections].map((c) => c.drain(1000)));
    for (const session of [...this.#core.sessions]) session.close();
    await Promise.all([...this.#connections].map((c) => c.close()));
  }

  // ---- pipeline -----------------------------------------------------------------------

  // Not `async` (returning #run's promise from an async function costs two more microtask
  // turns per request); a throw still becomes a rejection.
  #serve(request: JsonRpcRequest, env: DispatchEnv): Promise<Record<string, unknown>> {
    try {
      const call = prepare(this.#core, request, env);
      const handler = this.#handlers.get(call.method);
      if (handler === undefined) throw JsonRpcError.methodNotFound(call.method);
      // Without a registered OpenTelemetry global `observe` is exactly `fn()`: skip its description.
      if (!telemetryActive()) return this.#run(call, handler);
      const target = call.params['name'] ?? call.params['uri'];
      return observe(
        { side: 'server', method: call.method, requestId: call.id, protocolVersion: call.revision, target: typeof target === 'string' ? target : undefined },
        () => this.#run(call, handler),
        call.meta,
      );
    } catch (error) {
      return Promise.reject(error);
    }
  }

  async #run(call: Call, handler: MethodHandler): Promise<Record<string, unknown>> {
    try {
      return stamp(this.#core, call, this.#middleware.length === 0 ? await handler(call) : await this.#chain(new CallMiddlewareContext(call)));
    } finally {
      call.life.done = true;
    }
  }

  readonly #terminal: Terminal = (context) => {
    const call = CallMiddlewareContext.callOf(context);
    return (this.#handlers.get(call.method) as MethodHandler)(call);
  };

  #notification(notification: JsonRpcNotification, session: unknown): void {
    if (!(session instanceof ServerSession)) return;
    if (notification.method === 'notifications/initialized') session.initialized = true;
    else if (notification.method === 'notifications/roots/list_changed' && this.#core.onRootsListChanged !== undefined) {
      try {
        this.#core.onRootsListChanged(session);
      } catch (error) {
        this.#core.logger.warn('onRootsListChanged threw', { error: String(error) });
      }
    }
  }

  #wireError(error: unknown, request: JsonRpcRequest): JsonRpcError {
    if (error instanceof JsonRpcError) return error;
    this.#core.reportError(error, request.method, request.id);
    return JsonRpcError.internal();
  }
}

/**
 * What middleware sees of a call. A class with `signal` and `locals` on the prototype, made on
 * first read: an object literal with `get signal()` was a new closure and hidden class per
 * request, and most middleware never reads either.
 */
class CallMiddlewareContext implements MiddlewareContext {
  readonly requestId: RequestId;
  readonly method: string;
  readonly params: Readonly<Record<string, unknown>>;
  readonly protocolVersion: ProtocolRevision;
  readonly principal: Principal | undefined;
  readonly extra: MessageExtra | undefined;
  readonly session: ServerSession | undefined;
  readonly #call: Call;
  #locals: Record<string, unknown> | undefined;

  constructor(call: Call) {
    this.requestId = call.id;
    this.method = call.method;
    this.params = call.params;
    this.protocolVersion = call.revision;
    this.principal = call.principal;
    this.extra = call.env.extra;
    this.session = call.session;
    this.#call = call;
  }

  get signal(): AbortSignal {
    return this.#call.env.signal;
  }

  get locals(): Record<string, unknown> {
    return (this.#locals ??= {});
  }

  /** The call behind a context the server made (the terminal step runs its handler). */
  static callOf(context: MiddlewareContext): Call {
    if (!(context instanceof CallMiddlewareContext)) throw new TypeError('middleware passed on a context the server did not make');
    return context.#call;
  }
}

function forwardedHandle<T extends { key: string; disabled: boolean }, D>(registry: Registry<T>, first: T, make: (definition: D) => T): ForwardedHandle<D> {
  registry.add(first);
  let current = first;
  return {
    update: (definition) => {
      const next = make(definition);
      next.disabled = current.disabled;
      const live = registry.get(current.key) === current;
      if (live && next.key !== current.key) registry.delete(current.key);
      current = next;
      if (live) registry.set(next); // the same key keeps its position
    },
    remove: () => {
      if (registry.get(current.key) === current) registry.delete(current.key);
    },
    enable: () => toggle(registry, current, false),
    disable: () => toggle(registry, current, true),
  };
}

function toggle<T extends { key: string; disabled: boolean }>(registry: Registry<T>, entry: T, disabled: boolean): void {
  if (entry.disabled === disabled) return;
  entry.disabled = disabled;
  if (registry.get(entry.key) === entry) registry.set(entry);
}

function handleOf<T extends { key: string; disabled: boolean }>(registry: Registry<T>, entry: T): RegisteredHandle {
  return {
    remove: () => {
      if (registry.get(entry.key) === entry) registry.delete(entry.key);
    },
    disable: (disabled = true) => toggle(registry, entry, disabled),
  };
}
