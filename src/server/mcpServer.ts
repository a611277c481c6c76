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
 * @see https://modelcontextprotocol.io/specification/2026-07-28
 * @module
 */
import { Connection, type RequestContext as ConnectionRequestContext } from '../jsonrpc/connection.js';
import { ErrorCode, JsonRpcError } from '../jsonrpc/errors.js';
import type { JsonRpcNotification, JsonRpcRequest, JsonRpcResponse, Params, RequestId } from '../jsonrpc/messages.js';
import { decodeRequestParams, encodeResult } from '../protocol/codec.js';
import { invalidParamsFromIssues, resourceNotFound, unsupportedProtocolVersion } from '../protocol/errors.js';
import {
  META_CLIENT_CAPABILITIES,
  META_CLIENT_INFO,
  META_LOG_LEVEL,
  META_PROTOCOL_VERSION,
  META_SERVER_INFO,
  META_TRACEPARENT,
  META_TRACESTATE,
  META_BAGGAGE,
} from '../protocol/meta.js';
import type { ClientCapabilities, ServerCapabilities } from '../protocol/model/capabilities.js';
import { loggingLevels, type Implementation, type LoggingLevel } from '../protocol/model/common.js';
import { isStateless, isSupportedRevision, latestStatefulRevision, supportedRevisions, type ProtocolRevision } from '../protocol/revisions.js';
import type { DispatchEnv, McpDispatcher, MessageExtra, PeerRequester, SessionPeer, ToolHeaderParam, Transport } from '../transport/types.js';
import { McpError, McpErrorCode } from '../util/errors.js';
import { silentLogger, type Logger } from '../util/logger.js';
import { RequestContext, InputRequiredSignal, PeerInputBroker, StatelessInputBroker, type InputBroker } from './context.js';
import { compose, type Middleware, type MiddlewareContext, type Terminal } from './middleware.js';
import { Registry } from './registry.js';
import { digestParams, RequestStateSealer, type RequestStateOptions, type StateBinding } from './requestState.js';
import { findReader, makeResource, makeTemplate, toReadResult, type RegisteredResource, type RegisteredTemplate } from './resources.js';
import { compileTool, runTool, type CompiledTool } from './tools.js';
import type {
  CacheHints,
  Completer,
  HandlerContext,
  JsonSchemaObject,
  PromptDefinition,
  PromptHandler,
  RegisteredHandle,
  ResourceDefinition,
  ResourceHandler,
  ResourceTemplateDefinition,
  ServerInfo,
  StandardSchemaV1,
  InferArgs,
  InferStructured,
  TemplateHandler,
  ToolDefinition,
  ToolHandler,
  TraceContext,
} from './types.js';
import { ServerSession } from './session.js';
import { SubscriptionHub } from './subscriptions.js';
import { preloadTracing, traced, tracingActive } from './tracing.js';
import { spreadCopy } from '../util/object.js';
// ---- tasks integration (src/server/tasks) ----
import { TASKS_EXTENSION_ID } from '../protocol/meta.js';
import { TaskManager, type TaskCall, type TasksOptions } from './tasks/manager.js';
import { CORE_TASKS_CAPABILITY, serveTaskMethod, TASK_METHODS, taskListenSource } from './tasks/methods.js';

/** Options of an {@link McpServer}. */
export interface McpServerOptions {
  /** Where the server logs (never stdout). */
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
}

interface PromptEntry {
  readonly key: string;
  readonly wire: Readonly<Record<string, unknown>>;
  readonly definition: PromptDefinition;
  readonly handler: PromptHandler;
  disabled: boolean;
}

/** One request on its way through the pipeline. */
interface Call {
  readonly id: RequestId;
  readonly method: string;
  readonly params: Record<string, unknown>;
  readonly meta: Readonly<Record<string, unknown>>;
  readonly revision: ProtocolRevision;
  readonly caps: ClientCapabilities;
  readonly clientInfo: Implementation | undefined;
  readonly principal: string | undefined;
  readonly logLevel: LoggingLevel | undefined;
  readonly env: DispatchEnv;
  /** The stateful session this request belongs to (legacy revisions only). */
  readonly session: ServerSession | undefined;
  /** Set once the request is answered: nothing more may be sent for it. */
  readonly life: { done: boolean };
}

type MethodHandler = (call: Call) => Promise<Record<string, unknown>>;

const EMPTY: Readonly<Record<string, unknown>> = Object.freeze({});
const TASK_EXTENSIONS: ReadonlySet<string> = new Set([TASKS_EXTENSION_ID]);
const TRACEPARENT = /^[0-9a-f]{2}-[0-9a-f]{32}-[0-9a-f]{16}-[0-9a-f]{2}$/;

function isObject(value: unknown): value is Record<string, unknown> {
  return typeof value === 'object' && value !== null && !Array.isArray(value);
}

function readTrace(meta: Readonly<Record<string, unknown>>): TraceContext | undefined {
  const parent = meta[META_TRACEPARENT];
  if (typeof parent !== 'string' || !TRACEPARENT.test(parent)) return undefined;
  const state = meta[META_TRACESTATE];
  const baggage = meta[META_BAGGAGE];
  return {
    traceparent: parent,
    ...(typeof state === 'string' ? { tracestate: state } : {}),
    ...(typeof baggage === 'string' ? { baggage } : {}),
  };
}

function withoutMember(caps: ServerCapabilities, member: string): ServerCapabilities {
  const { [member]: _drop, ...rest } = caps as Record<string, unknown>;
  return rest as ServerCapabilities;
}

function principalOf(env: DispatchEnv): string | undefined {
  const p = env.extra?.['principal'];
  return typeof p === 'string' ? p : undefined;
}

/** An MCP server. Register primitives, then serve it over HTTP (as a dispatcher) or `connect` a stream transport. */
export class McpServer implements McpDispatcher {
  /** The server's identity. */
  readonly info: Implementation;
  readonly #instructions: string | undefined;
  readonly #logger: Logger;
  readonly #pageSize: number;
  readonly #cache: CacheHints;
  readonly #methodCache: Readonly<Partial<Record<string, CacheHints>>>;
  readonly #closeListeners: (() => void)[] = [];
  readonly #versions: readonly ProtocolRevision[];
  readonly #statelessVersions: readonly ProtocolRevision[];
  readonly #statefulVersions: readonly ProtocolRevision[];
  readonly #sessions = new Set<ServerSession>();
  readonly #logging: boolean;
  readonly #extraCaps: ServerCapabilities | undefined;
  readonly #onError: McpServerOptions['onError'];
  readonly #onRootsListChanged: McpServerOptions['onRootsListChanged'];
  readonly #stateOptions: RequestStateOptions;
  #sealer: Promise<RequestStateSealer> | undefined;
  readonly #tools = new Registry<CompiledTool>('tool');
  readonly #resources = new Registry<RegisteredResource>('resource');
  readonly #templates = new Registry<RegisteredTemplate>('resource template');
  readonly #prompts = new Registry<PromptEntry>('prompt');
  readonly #middleware: Middleware[] = [];
  readonly #handlers: ReadonlyMap<string, MethodHandler>;
  readonly #hub: SubscriptionHub;
  #capabilities: ServerCapabilities | undefined;
  #chain: Terminal;
  readonly #connections = new Set<Connection>();
  /** Tasks, when enabled (see `src/server/tasks`). */
  readonly #tasks: TaskManager | undefined;

  constructor(info: ServerInfo, options: McpServerOptions = {}) {
    const { instructions, ...identity } = info;
    this.info = Object.freeze({ ...identity });
    this.#instructions = instructions;
    this.#logger = options.logger ?? silentLogger;
    this.#pageSize = options.pageSize ?? 100;
    this.#cache = options.cache ?? { ttlMs: 0, cacheScope: 'private' };
    this.#methodCache = options.methodCache ?? {};
    this.#versions = options.versions ?? supportedRevisions;
    this.#statelessVersions = this.#versions.filter(isStateless);
    this.#statefulVersions = this.#versions.filter((v) => !isStateless(v));
    this.#logging = options.logging ?? true;
    this.#extraCaps = options.capabilities;
    this.#onError = options.onError;
    this.#onRootsListChanged = options.onRootsListChanged;
    this.#stateOptions = options.requestState ?? {};
    this.#hub = new SubscriptionHub(this.#tools, this.#prompts, this.#resources, this.#templates);
    for (const registry of [this.#tools, this.#resources, this.#templates, this.#prompts] as const) {
      registry.onChange(() => (this.#capabilities = undefined));
    }
    this.#handlers = new Map<string, MethodHandler>([
      ['server/discover', (c) => this.#discover(c)],
      ['tools/list', (c) => this.#list(c, this.#tools, 'tools', (t) => t.wire)],
      ['tools/call', (c) => this.#callTool(c)],
      ['resources/list', (c) => this.#listResources(c)],
      ['resources/templates/list', (c) => this.#list(c, this.#templates, 'resourceTemplates', (t) => t.wire)],
      ['resources/read', (c) => this.#readResource(c)],
      ['prompts/list', (c) => this.#list(c, this.#prompts, 'prompts', (p) => p.wire)],
      ['prompts/get', (c) => this.#getPrompt(c)],
      ['completion/complete', (c) => this.#complete(c)],
      ['subscriptions/listen', (c) => this.#hub.listen(c.id, c.params, this.capabilities(), c.env)],
      ['initialize', (c) => this.#initialize(c)],
      ['ping', async () => ({})],
      ['logging/setLevel', (c) => this.#setLevel(c)],
      ['resources/subscribe', (c) => this.#subscribe(c, true)],
      ['resources/unsubscribe', (c) => this.#subscribe(c, false)],
    ]);
    this.#chain = this.#terminal;
    // Spans need @opentelemetry/api, loaded only when an application registered with it.
    void preloadTracing();
    // ---- tasks integration ----
    if (options.tasks !== undefined && options.tasks !== false) {
      const tasks = new TaskManager(options.tasks === true ? {} : options.tasks, (error, info) => this.#reportError(error, info.method, info.requestId));
      this.#tasks = tasks;
      const handlers = this.#handlers as Map<string, MethodHandler>;
      for (const method of TASK_METHODS) handlers.set(method, (c) => serveTaskMethod(tasks, this.#taskCall(c)));
      this.#hub.addSource(taskListenSource(tasks));
      this.onClose(() => tasks.close());
    }
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
    this.#tools.add(compiled);
    return this.#handle(this.#tools, compiled);
  }

  /** Registers a fixed resource at `uri`. */
  resource(uri: string, definition: ResourceDefinition, handler: ResourceHandler): RegisteredHandle {
    const entry = makeResource(uri, definition, handler);
    this.#resources.add(entry);
    return this.#handle(this.#resources, entry);
  }

  /** Registers an RFC 6570 resource template; `handler` gets the matched variables. */
  resourceTemplate(uriTemplate: string, definition: ResourceTemplateDefinition, handler: TemplateHandler): RegisteredHandle {
    let entry: RegisteredTemplate;
    try {
      entry = makeTemplate(uriTemplate, definition, handler);
    } catch (error) {
      throw new McpError(McpErrorCode.InvalidArgument, `invalid resource template ${JSON.stringify(uriTemplate)}`, { cause: error });
    }
    this.#templates.add(entry);
    return this.#handle(this.#templates, entry);
  }

  /** Registers a prompt. Missing required arguments are answered -32602 before `handler` runs. */
  prompt(name: string, definition: PromptDefinition, handler: PromptHandler): RegisteredHandle {
    const wire: Record<string, unknown> = { name };
    if (definition.title !== undefined) wire['title'] = definition.title;
    if (definition.description !== undefined) wire['description'] = definition.description;
    if (definition.arguments !== undefined) {
      wire['arguments'] = definition.arguments.map(({ complete: _c, ...arg }) => ({ ...arg }));
    }
    if (definition.icons !== undefined) wire['icons'] = [...definition.icons];
    if (definition._meta !== undefined) wire['_meta'] = { ...definition._meta };
    const entry: PromptEntry = { key: name, wire: Object.freeze(wire), definition, handler, disabled: false };
    this.#prompts.add(entry);
    return this.#handle(this.#prompts, entry);
  }

  /** Adds middleware around every request (outermost first). */
  use(middleware: Middleware): this {
    this.#middleware.push(middleware);
    this.#chain = compose(this.#middleware, this.#terminal);
    return this;
  }

  /** Tells listeners subscribed to `uri` (or a parent of it) that the resource changed. */
  notifyResourceUpdated(uri: string): void {
    this.#hub.resourceUpdated(uri);
    for (const session of this.#sessions) {
      if ([...session.subscriptions].some((s) => uri === s || uri.startsWith(s.endsWith('/') ? s : `${s}/`))) {
        session.send('notifications/resources/updated', { uri });
      }
    }
  }

  /**
   * Creates the state of a stateful session (revisions up to 2025-11-25). Transports call it
   * once per stdio connection or `Mcp-Session-Id`, and pass it back as `DispatchEnv.session`.
   */
  createSession(peer: SessionPeer): ServerSession {
    const session = new ServerSession(peer);
    this.#sessions.add(session);
    session.onClose(() => this.#sessions.delete(session));
    return session;
  }

  /** Ends a session created by {@link createSession}. */
  closeSession(session: unknown): void {
    if (session instanceof ServerSession) session.close();
  }

  /** How many stateful sessions are open. */
  get sessionCount(): number {
    return this.#sessions.size;
  }

  /** The capabilities this server declares, computed from what is registered. */
  capabilities(): ServerCapabilities {
    if (this.#capabilities !== undefined) return this.#capabilities;
    const caps: Record<string, unknown> = {};
    if (this.#tools.size > 0) caps['tools'] = { listChanged: true };
    if (this.#prompts.size > 0) caps['prompts'] = { listChanged: true };
    if (this.#resources.size > 0 || this.#templates.size > 0) caps['resources'] = { subscribe: true, listChanged: true };
    if (this.#hasCompleters()) caps['completions'] = {};
    if (this.#logging) caps['logging'] = {};
    if (this.#tasks !== undefined) {
      // tasks integration: `tasks` is for 2025-11-25 initialize, `extensions` for server/discover
      caps['tasks'] = CORE_TASKS_CAPABILITY;
      caps['extensions'] = { [TASKS_EXTENSION_ID]: {} };
    }
    Object.assign(caps, this.#extraCaps);
    return (this.#capabilities = Object.freeze(caps) as ServerCapabilities);
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

  /** The `x-mcp-header` parameters of a visible tool (for the HTTP transport's header checks). */
  toolHeaders(toolName: string): readonly ToolHeaderParam[] | undefined {
    const tool = this.#tools.get(toolName);
    return tool === undefined || tool.disabled ? undefined : tool.headers;
  }

  /**
   * Serves this server over a message-stream transport (stdio, in-memory). Resolves once the
   * transport is started; the returned connection closes it.
   */
  async connect(transport: Transport, options: { readonly requestTimeoutMs?: number } = {}): Promise<Connection> {
    // One stdio connection is one (potential) stateful session; 2026-07-28 requests on it
    // are still served statelessly, request by request.
    const connection: Connection = new Connection(transport, {
      logger: this.#logger,
      defaultTimeoutMs: options.requestTimeoutMs ?? 60_000,
      onRequest: (request, rctx) =>
        this.#serve(
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
      onNotification: (n) => this.#notification(n, session),
      onHandlerError: (error, request) => this.#reportError(error, request.method, request.id),
    });
    const session = this.createSession({
      request: (method, params, opts) => connection.request(method, params, opts ?? {}),
      notify: (n) => {
        if (!connection.closed) connection.notify(n.method, n.params).catch(() => undefined);
      },
    });
    connection.onClose(() => {
      this.#connections.delete(connection);
      session.close();
    });
    this.#connections.add(connection);
    await connection.start();
    return connection;
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
        this.#logger.warn('a close listener threw', { error: String(error) });
      }
    }
    // Listen streams end with their graceful result, sent before the transports close.
    this.#hub.closeAll();
    await Promise.all([...this.#connections].map((c) => c.drain(1000)));
    for (const session of [...this.#sessions]) session.close();
    await Promise.all([...this.#connections].map((c) => c.close()));
  }

  // ---- pipeline -----------------------------------------------------------------------

  async #serve(request: JsonRpcRequest, env: DispatchEnv): Promise<Record<string, unknown>> {
    const call = this.#prepare(request, env);
    const handler = this.#handlers.get(call.method);
    if (handler === undefined) throw JsonRpcError.methodNotFound(call.method);
    // Without a registered OpenTelemetry global `traced` is exactly `fn()`: skip its span info.
    if (!tracingActive()) return this.#run(call, handler);
    const target = call.params['name'] ?? call.params['uri'];
    return traced(
      {
        method: call.method,
        requestId: call.id,
        protocolVersion: call.revision,
        target: typeof target === 'string' ? target : undefined,
        meta: call.meta,
      },
      () => this.#run(call, handler),
    );
  }

  async #run(call: Call, handler: MethodHandler): Promise<Record<string, unknown>> {
    try {
      return this.#stamp(call, this.#middleware.length === 0 ? await handler(call) : await this.#chain(this.#middlewareContext(call)));
    } finally {
      call.life.done = true;
    }
  }

  readonly #terminal: Terminal = (context) => {
    const call = (context.locals as { call: Call }).call;
    return (this.#handlers.get(call.method) as MethodHandler)(call);
  };

  #middlewareContext(call: Call): MiddlewareContext {
    return {
      requestId: call.id,
      method: call.method,
      params: call.params,
      protocolVersion: call.revision,
      principal: call.principal,
      extra: call.env.extra,
      get signal() {
        return call.env.signal;
      },
      locals: { call },
    };
  }

  /**
   * Finds the revision of a request and validates it: a request whose `_meta` names a
   * protocol version is served statelessly (2026-07-28); otherwise it belongs to its stateful
   * session (after `initialize`).
   */
  #prepare(request: JsonRpcRequest, env: DispatchEnv): Call {
    const params = request.params ?? EMPTY;
    const rawMeta = params['_meta'];
    const meta = isObject(rawMeta) ? rawMeta : EMPTY;
    const version = meta[META_PROTOCOL_VERSION];
    const session = env.session instanceof ServerSession ? env.session : undefined;
    // A session takes a request once it is initialized, or when the request is `initialize`;
    // anything else without a 2026 `_meta` version is answered as a stateless request would be.
    if (version === undefined && session !== undefined && this.#statefulVersions.length > 0 && (session.revision !== undefined || request.method === 'initialize')) {
      return this.#prepareStateful(request, params, meta, env, session);
    }
    if (version === undefined) {
      if (request.method === 'initialize') {
        const requested = params['protocolVersion'];
        throw unsupportedProtocolVersion(this.#statelessVersions, typeof requested === 'string' ? requested : '');
      }
      throw invalidParamsFromIssues([{ path: ['params', '_meta', META_PROTOCOL_VERSION], message: 'is required' }]);
    }
    if (typeof version !== 'string' || !isSupportedRevision(version) || !this.#statelessVersions.includes(version)) {
      throw unsupportedProtocolVersion(this.#statelessVersions, typeof version === 'string' ? version : JSON.stringify(version));
    }
    const decoded = decodeRequestParams(version, request.method, params, {
      from: 'client',
      serverCapabilities: this.capabilities(),
      ...(this.#tasks !== undefined ? { extensions: TASK_EXTENSIONS } : {}), // tasks integration
    });
    if (!decoded.ok) throw decoded.error;
    const caps = meta[META_CLIENT_CAPABILITIES] as ClientCapabilities;
    const info = meta[META_CLIENT_INFO];
    const level = meta[META_LOG_LEVEL];
    if (level !== undefined && !(loggingLevels as readonly unknown[]).includes(level)) {
      throw invalidParamsFromIssues([{ path: ['params', '_meta', META_LOG_LEVEL], message: `must be one of ${loggingLevels.join(', ')}` }]);
    }
    return {
      id: request.id,
      method: request.method,
      params: decoded.value,
      meta,
      revision: version,
      caps,
      clientInfo: isObject(info) ? (info as Implementation) : undefined,
      principal: principalOf(env),
      logLevel: this.#logging ? (level as LoggingLevel | undefined) : undefined,
      env,
      session: undefined,
      life: { done: false },
    };
  }

  #prepareStateful(
    request: JsonRpcRequest,
    params: Readonly<Record<string, unknown>>,
    meta: Readonly<Record<string, unknown>>,
    env: DispatchEnv,
    session: ServerSession,
  ): Call {
    let revision = session.revision;
    if (request.method === 'initialize') {
      if (revision !== undefined) throw JsonRpcError.invalidRequest('the session is already initialized');
      revision = this.#negotiate(params['protocolVersion']);
    } else if (revision === undefined) {
      throw JsonRpcError.invalidRequest('the session is not initialized: send initialize first');
    }
    const decoded = decodeRequestParams(revision, request.method, params, {
      from: 'client',
      serverCapabilities: this.capabilities(),
    });
    if (!decoded.ok) throw decoded.error;
    return {
      id: request.id,
      method: request.method,
      params: decoded.value,
      meta,
      revision,
      caps: session.clientCapabilities,
      clientInfo: session.clientInfo,
      principal: principalOf(env),
      logLevel: this.#logging ? (session.logLevel ?? 'debug') : undefined,
      env: env.peer === undefined ? withPeer(env, session.peer) : env,
      session,
      life: { done: false },
    };
  }

  /** The revision to answer `initialize` with: the requested one when served, else our latest stateful one. */
  #negotiate(requested: unknown): ProtocolRevision {
    if (typeof requested === 'string' && isSupportedRevision(requested) && this.#statefulVersions.includes(requested)) return requested;
    return this.#statefulVersions.includes(latestStatefulRevision)
      ? latestStatefulRevision
      : (this.#statefulVersions[this.#statefulVersions.length - 1] as ProtocolRevision);
  }

  #notification(notification: JsonRpcNotification, session: unknown): void {
    if (!(session instanceof ServerSession)) return;
    if (notification.method === 'notifications/initialized') session.initialized = true;
    else if (notification.method === 'notifications/roots/list_changed' && this.#onRootsListChanged !== undefined) {
      try {
        this.#onRootsListChanged(session);
      } catch (error) {
        this.#logger.warn('onRootsListChanged threw', { error: String(error) });
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

  /** Stamps the result for the wire: resultType, cache defaults, serverInfo. */
  #stamp(call: Call, result: Record<string, unknown>): Record<string, unknown> {
    const out = encodeResult(call.revision, call.method, result);
    if (!isStateless(call.revision)) return out;
    // spreadCopy, not `{ ...x }`: members are added to the copies (util/object.ts).
    const target = out === result ? spreadCopy(out) : out;
    const meta = target['_meta'];
    const stamped: Record<string, unknown> = isObject(meta) ? spreadCopy(meta) : {};
    stamped[META_SERVER_INFO] = this.info;
    target['_meta'] = stamped;
    return target;
  }

  #wireError(error: unknown, request: JsonRpcRequest): JsonRpcError {
    if (error instanceof JsonRpcError) return error;
    this.#reportError(error, request.method, request.id);
    return JsonRpcError.internal();
  }

  #reportError(error: unknown, method: string, requestId: RequestId): void {
    if (this.#onError !== undefined) {
      try {
        this.#onError(error, { method, requestId });
      } catch {
        // the reporter must not change the answer
      }
    } else {
      this.#logger.error('a handler failed', { method, requestId, error: error instanceof Error ? (error.stack ?? error.message) : String(error) });
    }
  }

  // ---- context and MRTR ---------------------------------------------------------------

  #sealerPromise(): Promise<RequestStateSealer> {
    return (this.#sealer ??= RequestStateSealer.create(this.#stateOptions));
  }

  #context(call: Call, broker: InputBroker | undefined, round: number, state: unknown): RequestContext {
    const env = call.env;
    const token = call.meta['progressToken'];
    let last = -Infinity;
    const sendProgress =
      typeof token === 'string' || typeof token === 'number'
        ? async (progress: number, total?: number, message?: string) => {
            if (call.life.done || !(progress > last)) return; // only while active; progress MUST increase
            last = progress;
            const params: Record<string, unknown> = { progressToken: token, progress };
            if (total !== undefined) params['total'] = total;
            if (message !== undefined) params['message'] = message;
            env.notify({ jsonrpc: '2.0', method: 'notifications/progress', params });
          }
        : undefined;
    const min = call.logLevel === undefined ? -1 : loggingLevels.indexOf(call.logLevel);
    const sendLog =
      min < 0
        ? undefined
        : async (level: LoggingLevel, data: unknown, logger?: string) => {
            if (call.life.done || loggingLevels.indexOf(level) < min) return;
            const params: Record<string, unknown> = { level, data };
            if (logger !== undefined) params['logger'] = logger;
            env.notify({ jsonrpc: '2.0', method: 'notifications/message', params });
          };
    return new RequestContext({
      requestId: call.id,
      method: call.method,
      protocolVersion: call.revision,
      clientCapabilities: call.caps,
      clientInfo: call.clientInfo,
      session: call.session,
      principal: call.principal,
      env,
      meta: call.meta,
      extra: env.extra,
      trace: readTrace(call.meta),
      round,
      state,
      broker,
      sendProgress,
      sendLog,
    });
  }

  /**
   * Runs a handler that may ask the client for input. Stateless: opens the returned
   * `requestState`, answers from it and `inputResponses`, and turns an unanswered question
   * into an `InputRequiredResult` with a freshly sealed state. Stateful: asks the peer.
   */
  async #withInput(call: Call, run: (context: HandlerContext) => Promise<Record<string, unknown>>): Promise<Record<string, unknown>> {
    if (!isStateless(call.revision)) {
      const broker = call.env.peer === undefined ? undefined : new PeerInputBroker(call.env.peer, call.caps);
      return run(this.#context(call, broker, 1, undefined));
    }
    let binding: StateBinding | undefined;
    const bind = async (): Promise<StateBinding> =>
      (binding ??= { method: call.method, digest: await digestParams(call.params), principal: call.principal ?? '' });
    let answers: Record<string, unknown> = {};
    let round = 1;
    let state: unknown;
    const token = call.params['requestState'];
    if (typeof token === 'string') {
      const opened = await (await this.#sealerPromise()).open(token, await bind());
      if (!opened.ok) {
        throw new JsonRpcError(ErrorCode.InvalidParams, `Invalid params: requestState was rejected (${opened.reason})`, { reason: opened.reason });
      }
      answers = { ...opened.content.answers };
      round = opened.content.round + 1;
      state = opened.content.data;
    }
    const responses = call.params['inputResponses'];
    if (isObject(responses)) Object.assign(answers, responses);
    const broker = new StatelessInputBroker(answers, call.caps);
    const context = this.#context(call, broker, round, state);
    try {
      return await run(context);
    } catch (error) {
      if (!(error instanceof InputRequiredSignal)) throw error;
      const sealed = await (await this.#sealerPromise()).seal(await bind(), {
        answers: broker.used,
        round,
        ...(context.nextState !== undefined ? { data: context.nextState } : {}),
        ...(context.singleUse ? { singleUse: true } : {}),
      });
      return { resultType: 'input_required', inputRequests: error.requests, requestState: sealed };
    }
  }

  // ---- methods ------------------------------------------------------------------------

  async #discover(_call: Call): Promise<Record<string, unknown>> {
    const result: Record<string, unknown> = {
      supportedVersions: [...this.#statelessVersions],
      capabilities: this.#tasks === undefined ? this.capabilities() : withoutMember(this.capabilities(), 'tasks'), // tasks integration
      ...this.#cacheFor('server/discover'),
    };
    if (this.#instructions !== undefined) result['instructions'] = this.#instructions;
    return result;
  }

  async #list<T extends { key: string; disabled: boolean }>(
    call: Call,
    registry: Registry<T>,
    member: string,
    wire: (entry: T) => unknown,
  ): Promise<Record<string, unknown>> {
    const cursor = call.params['cursor'];
    const page = registry.page(typeof cursor === 'string' ? cursor : undefined, this.#pageSize, (e) => !e.disabled);
    const result: Record<string, unknown> = { [member]: page.items.map(wire), ...this.#cacheFor(call.method) };
    if (page.nextCursor !== undefined) result['nextCursor'] = page.nextCursor;
    return result;
  }

  async #listResources(call: Call): Promise<Record<string, unknown>> {
    const templates = this.#templates.all().filter((t) => !t.disabled && t.definition.list !== undefined);
    if (templates.length === 0) return this.#list(call, this.#resources, 'resources', (r) => r.wire);
    // Template listings are dynamic: gather everything, then page over the combined list.
    const context = this.#context(call, undefined, 1, undefined);
    const listed: unknown[] = this.#resources.all().filter((r) => !r.disabled).map((r) => r.wire);
    for (const t of templates) {
      const items = await (t.definition.list as NonNullable<ResourceTemplateDefinition['list']>)(context);
      for (const { cache: _cache, ...item } of items) listed.push(item);
    }
    const temp = new Registry<{ key: string; disabled: boolean; wire: unknown }>('resource');
    listed.forEach((wire, i) => temp.set({ key: String(i), disabled: false, wire }));
    return this.#list(call, temp, 'resources', (e) => e.wire);
  }

  async #callTool(call: Call): Promise<Record<string, unknown>> {
    const name = call.params['name'] as string;
    const tool = this.#tools.get(name);
    if (tool === undefined || tool.disabled) throw JsonRpcError.invalidParams(`Unknown tool: ${name}`, { name });
    const run = (context: HandlerContext): Promise<Record<string, unknown>> => runTool(tool, call.params['arguments'], context);
    // ---- tasks integration: the task manager decides task vs. ordinary call ----
    if (this.#tasks !== undefined) return this.#tasks.callTool(this.#taskCall(call), tool.wire, run, (r) => this.#withInput(call, r));
    return this.#withInput(call, run);
  }

  /** tasks integration: the view of a call the task manager needs, incl. a background-context factory. */
  #taskCall(call: Call): TaskCall {
    const session = call.session;
    return {
      id: call.id,
      method: call.method,
      params: call.params,
      meta: call.meta,
      revision: call.revision,
      caps: call.caps,
      principal: call.principal,
      get signal() {
        return call.env.signal;
      },
      session,
      context: (broker, signal) => {
        // Background runs outlive the request: own signal; notifications go to the session (legacy) or nowhere.
        const notify = session === undefined ? () => undefined : (n: JsonRpcNotification) => session.peer.notify(n);
        const { peer: _peer, ...env } = call.env;
        return this.#context({ ...call, env: { ...env, signal, notify } }, broker, 1, undefined);
      },
    };
  }

  async #readResource(call: Call): Promise<Record<string, unknown>> {
    const uri = call.params['uri'] as string;
    const reader = findReader(uri, (u) => this.#resources.get(u), this.#templates.all());
    if (reader === undefined) throw resourceNotFound(uri, call.revision);
    const cache = reader.cache ?? this.#cacheFor('resources/read');
    return this.#withInput(call, async (context) => {
      const result = toReadResult(await reader.read(context), uri);
      result['ttlMs'] = cache.ttlMs;
      result['cacheScope'] = cache.cacheScope;
      return result;
    });
  }

  async #getPrompt(call: Call): Promise<Record<string, unknown>> {
    const name = call.params['name'] as string;
    const prompt = this.#prompts.get(name);
    if (prompt === undefined || prompt.disabled) throw JsonRpcError.invalidParams(`Unknown prompt: ${name}`, { name });
    const args = (call.params['arguments'] ?? {}) as Record<string, string>;
    const missing = (prompt.definition.arguments ?? []).filter((a) => a.required === true && typeof args[a.name] !== 'string').map((a) => a.name);
    if (missing.length > 0) {
      throw invalidParamsFromIssues(missing.map((m) => ({ path: ['params', 'arguments', m], message: 'is required' })));
    }
    return this.#withInput(call, async (context) => {
      const out = await prompt.handler(args, context);
      const result: Record<string, unknown> = { messages: [...out.messages] };
      if (out.description !== undefined) result['description'] = out.description;
      if (out._meta !== undefined) result['_meta'] = { ...out._meta };
      return result;
    });
  }

  async #complete(call: Call): Promise<Record<string, unknown>> {
    const ref = call.params['ref'] as { type: string; name?: string; uri?: string };
    const argument = call.params['argument'] as { name: string; value: string };
    const context = call.params['context'] as { arguments?: Record<string, string> } | undefined;
    let completer: Completer | undefined;
    if (ref.type === 'ref/prompt') {
      const prompt = this.#prompts.get(ref.name ?? '');
      if (prompt === undefined || prompt.disabled) throw JsonRpcError.invalidParams(`Unknown prompt: ${ref.name ?? ''}`, { name: ref.name });
      completer = prompt.definition.arguments?.find((a) => a.name === argument.name)?.complete;
    } else {
      const template = this.#templates.get(ref.uri ?? '');
      if (template === undefined || template.disabled) {
        throw JsonRpcError.invalidParams(`Unknown resource template: ${ref.uri ?? ''}`, { uri: ref.uri });
      }
      completer = template.definition.complete?.[argument.name];
    }
    const values = completer === undefined ? [] : await completer(argument.value, { arguments: context?.arguments ?? {}, handler: this.#context(call, undefined, 1, undefined) });
    const first = values.slice(0, 100);
    return { completion: { values: first, total: values.length, hasMore: values.length > first.length } };
  }

  async #initialize(call: Call): Promise<Record<string, unknown>> {
    const session = call.session as ServerSession;
    session.revision = call.revision;
    session.clientCapabilities = (call.params['capabilities'] ?? {}) as ClientCapabilities;
    const info = call.params['clientInfo'];
    session.clientInfo = isObject(info) ? (info as Implementation) : undefined;
    // Unsolicited list_changed for stateful sessions (capability `listChanged: true`).
    session.onClose(this.#tools.onChange(() => session.send('notifications/tools/list_changed')));
    session.onClose(this.#prompts.onChange(() => session.send('notifications/prompts/list_changed')));
    const resourcesChanged = (): void => session.send('notifications/resources/list_changed');
    session.onClose(this.#resources.onChange(resourcesChanged));
    session.onClose(this.#templates.onChange(resourcesChanged));
    const { extensions: _ext, ...capabilities } = this.capabilities() as Record<string, unknown>;
    if (call.revision !== '2025-11-25') delete capabilities['tasks']; // tasks integration: core tasks are 2025-11-25 only
    const result: Record<string, unknown> = { protocolVersion: call.revision, capabilities, serverInfo: this.info };
    if (this.#instructions !== undefined) result['instructions'] = this.#instructions;
    return result;
  }

  async #setLevel(call: Call): Promise<Record<string, unknown>> {
    (call.session as ServerSession).logLevel = call.params['level'] as LoggingLevel;
    return {};
  }

  async #subscribe(call: Call, on: boolean): Promise<Record<string, unknown>> {
    const uri = call.params['uri'] as string;
    const session = call.session as ServerSession;
    if (on) session.subscriptions.add(uri);
    else session.subscriptions.delete(uri);
    return {};
  }

  // ---- helpers ------------------------------------------------------------------------

  #cacheFor(method: string): CacheHints {
    const hints = this.#methodCache[method] ?? this.#cache;
    return { ttlMs: hints.ttlMs, cacheScope: hints.cacheScope };
  }

  #hasCompleters(): boolean {
    return (
      this.#prompts.all().some((p) => p.definition.arguments?.some((a) => a.complete !== undefined) === true) ||
      this.#templates.all().some((t) => t.definition.complete !== undefined && Object.keys(t.definition.complete).length > 0)
    );
  }

  #handle<T extends { key: string; disabled: boolean }>(registry: Registry<T>, entry: T): RegisteredHandle {
    return {
      remove: () => {
        if (registry.get(entry.key) === entry) registry.delete(entry.key);
      },
      disable: (disabled = true) => {
        if (entry.disabled === disabled) return;
        entry.disabled = disabled;
        if (registry.get(entry.key) === entry) registry.set(entry);
      },
    };
  }
}

/** `{ ...env, peer }` without leaving V8's fast path (see util/object.ts). */
function withPeer(env: DispatchEnv, peer: SessionPeer): DispatchEnv {
  const copy = spreadCopy(env) as Record<string, unknown>;
  copy['peer'] = peer;
  return copy as unknown as DispatchEnv;
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
  readonly notify: (notification: JsonRpcNotification) => void;
  readonly peer: PeerRequester;
  readonly session: unknown;

  constructor(rctx: ConnectionRequestContext, notify: (notification: JsonRpcNotification) => void, peer: PeerRequester, session: unknown) {
    this.#rctx = rctx;
    this.extra = rctx.extra;
    this.notify = notify;
    this.peer = peer;
    this.session = session;
  }

  /** {@inheritDoc DispatchEnv.signal} */
  get signal(): AbortSignal {
    return this.#rctx.signal;
  }
}
