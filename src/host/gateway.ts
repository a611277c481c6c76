/**
 * The gateway: the host's aggregated, guarded view served as one MCP server. Any client that
 * speaks MCP (either era) sees one server whose tools, prompts, resources and templates are
 * those of the host, namespaced, and every request goes through the host's interceptor chain
 * to the one server that owns it.
 *
 * The view is an ordinary `McpServer` whose entries are forwarded definitions, kept byte for
 * byte as the downstream servers sent them (only the name or URI changes where namespacing
 * says so), so every protection of the server layer (schema-checked params, `Mcp-Name` and
 * `x-mcp-header` checks, sealed `requestState`, per-session list_changed) applies unchanged.
 *
 * `exposure: "search"` replaces the full tool list with `search_tools` (offline BM25 over the
 * host's tools, returning full definitions) and `call_tool`, for clients whose context or tool
 * cap (VS Code stops at 128) the full list would overflow.
 *
 * The tasks extension (`io.modelcontextprotocol/tasks`) is passed through to the server that
 * creates a task, under gateway task ids bound to server and caller (see `gatewayTasks.ts`
 * for the design and why the gateway does not own tasks itself).
 *
 * @module
 */
import { JsonRpcError } from '../jsonrpc/errors.js';
import { hasExtension, type ClientCapabilities } from '../protocol/model/capabilities.js';
import { TASKS_EXTENSION_ID } from '../protocol/meta.js';
import { isStateless } from '../protocol/revisions.js';
import { signInInputRequired, signInUnsupported } from './principalClients.js';
import type { Implementation, ItemKind } from '../protocol/model/common.js';
import type { InputRequest } from '../protocol/model/mrtr.js';
import type { Tool } from '../protocol/model/tool.js';
import { missingRequiredClientCapability } from '../protocol/errors.js';
import { McpServer, type McpServerOptions } from '../server/mcpServer.js';
import type { ForwardedHandle } from '../server/types.js';
import type { HandlerContext } from '../server/types.js';
import type { CallToolResult } from '../protocol/model/tools.js';
import type { GetPromptResult } from '../protocol/model/prompts.js';
import type { ReadResourceResult } from '../protocol/model/resources.js';
import { McpError, McpErrorCode } from '../util/errors.js';
import { silentLogger } from '../util/logger.js';
import { signalOf } from '../util/lazyAbort.js';
import { SWITCHBOARD_VERSION } from '../util/version.js';
import { PendingCalls, type Attempt, type LaunchRound as Round, type PendingCall, type PendingCallsOptions, type Step } from './bridge.js';
import type { ExposedTool, Host, HostCallOptions } from './host.js';
import { UpstreamSubscriptions } from './gatewaySubscriptions.js';
import { GatewayTasks, withTasksExtension, type GatewayTasksOptions } from './gatewayTasks.js';
import { driveTask, requiresTask } from './taskDriver.js';
import { RECORDED_METHODS, type RecordedMethod } from './interceptors.js';
import type { ListRequest } from '../server/core.js';
import type { MiddlewareContext } from '../server/middleware.js';
import { ToolSearchIndex } from './toolSearch.js';
import { SETUP_TOOL, setupNoticeResult, setupNoticeTool } from './setupNotice.js';
import { attempt, failedAnswer, manual, metaOf, missingCapabilities, scopeOf, scopeOfRequest, toWireError, UpstreamDriver } from './gatewayUpstream.js';

/** Options of a {@link Gateway}. */
export interface GatewayOptions {
  /** The gateway's identity. Default `{ name: 'switchboard-gateway', version: SWITCHBOARD_VERSION }`. */
  readonly info?: Implementation & { readonly instructions?: string };
  /** `all` (default): every tool listed; `search`: `search_tools` and `call_tool` only. */
  readonly exposure?: 'all' | 'search';
  /** Options of the underlying `McpServer` (logger, requestState keys, page size, ...). */
  readonly server?: McpServerOptions;
  /** Calls waiting for the upstream's answers (era bridging). */
  readonly pending?: PendingCallsOptions;
  /**
   * The tasks extension, passed through to the servers that create tasks (see
   * `gatewayTasks.ts`); `false` turns it off (no task is ever asked for downstream). Default on.
   */
  readonly tasks?: GatewayTasksOptions | false;
}

const DEFAULT_INFO = { name: 'switchboard-gateway', version: SWITCHBOARD_VERSION } as const;

/**
 * What a gateway's downstream clients declare: everything it can bridge to an upstream
 * client. Whether the upstream can answer is checked for each question.
 */
export const GATEWAY_CLIENT_CAPABILITIES: ClientCapabilities = Object.freeze({ elicitation: { form: {}, url: {} }, sampling: {}, roots: { listChanged: true } });

/** The name of the search tool in `exposure: "search"`. */
export const SEARCH_TOOL = 'search_tools';
/** The name of the dispatch tool in `exposure: "search"`. */
export const CALL_TOOL = 'call_tool';

/** One MCP server in front of a {@link Host}. */
export class Gateway {
  /** The MCP server to serve over any transport (HTTP handler, stdio). */
  readonly server: McpServer;
  readonly #host: Host;
  readonly #exposure: 'all' | 'search';
  readonly #pending: PendingCalls;
  readonly #handles: Record<ItemKind, Map<string, { handle: ForwardedHandle<never>; definition: unknown }>> = {
    tool: new Map(),
    prompt: new Map(),
    resource: new Map(),
    template: new Map(),
  };
  readonly #unsubscribe: (() => void)[] = [];
  readonly #subscriptions: UpstreamSubscriptions;
  /** The search index of `exposure: "search"`, for the host's tool list it was built from. */
  #search: { readonly listed: readonly ExposedTool[]; readonly index: ToolSearchIndex } | undefined;
  /** The tools of `exposure: "search"` (what its `tools/list` serves). */
  readonly #searchTools: Tool[] = [];
  readonly #tasks: GatewayTasks | undefined;
  /** The setup notice's tool while one is shown (see {@link setupNotice}). */
  #notice: { readonly text: string; readonly tool: Tool; readonly handle: ForwardedHandle<Tool> } | undefined;

  constructor(host: Host, options: GatewayOptions = {}) {
    this.#host = host;
    this.#exposure = options.exposure ?? 'all';
    this.#pending = new PendingCalls(options.pending);
    const logger = options.server?.logger ?? silentLogger;
    const tasks = options.tasks === false ? undefined : new GatewayTasks(host, { logger, ...options.tasks });
    this.#tasks = tasks;
    this.server = new McpServer(options.info ?? DEFAULT_INFO, {
      ...options.server,
      // One registry: every list is the host's, decided by its chain for this caller.
      lists: (kind, request) => this.#list(kind, request),
      ...(tasks !== undefined ? { forwardedTasks: { serve: (method, params, ctx) => tasks.serve(method, params, scopeOf(ctx)).catch((error: unknown) => Promise.reject(toWireError(error))) } } : {}),
      capabilities: {
        tools: { listChanged: true },
        prompts: { listChanged: true },
        resources: { listChanged: true, subscribe: true },
        completions: {},
        ...options.server?.capabilities,
      },
    });
    this.#subscriptions = new UpstreamSubscriptions(host, logger, toWireError, (ctx) => this.#scope(ctx));
    this.server.use((ctx, next) => this.#recordOrRefuse(ctx, next));
    this.server.use(this.#subscriptions.middleware());
    this.server.addListenSource(this.#subscriptions.listenSource());
    if (tasks !== undefined) this.server.addListenSource(tasks.listenSource());
    if (this.#exposure === 'search') this.#registerSearchTools();
    this.#unsubscribe.push(
      host.onChange((change) => {
        if (change !== 'servers' && change !== 'withheld') this.#sync();
      }),
      host.onResourceUpdated((_serverId, uri) => this.server.notifyResourceUpdated(uri)),
    );
    this.#sync();
  }

  /**
   * Shows the setup notice (one tool, `switchboard_setup_required`, saying `text`: what to do
   * so the missing servers start) or, with undefined, takes it away. Its calls pass the
   * chain's audit as any call does. See `setupNotice.ts` for why a tool.
   */
  setupNotice(text: string | undefined): void {
    if (text === this.#notice?.text) return;
    this.#notice?.handle.remove();
    this.#notice = undefined;
    if (text === undefined) return;
    const tool = setupNoticeTool(text);
    const handle = this.server.forwardTool(tool, (params, ctx): Promise<CallToolResult> => {
      const args = (params['arguments'] ?? {}) as Record<string, unknown>;
      return this.#host.record('tools/call', scopeOf(ctx), () => Promise.resolve(setupNoticeResult(text)), { name: SETUP_TOOL, arguments: args });
    }) as ForwardedHandle<Tool>;
    this.#notice = { text, tool, handle };
  }

  /** How many forwarded calls wait for their upstream's answers. */
  get pendingCalls(): number {
    return this.#pending.size;
  }

  /** Stops following the host and abandons waiting calls (the host itself is not closed). */
  async close(): Promise<void> {
    for (const u of this.#unsubscribe.splice(0)) u();
    this.#pending.clear('The gateway is closing');
    this.#subscriptions.clear();
    this.#tasks?.clear();
    await this.server.close();
  }

  // ---- keeping the forwarded entries in step with the host -----------------------------

  #sync(): void {
    void this.server.batchChanges(() => {
      if (this.#exposure === 'all') {
        this.#reconcile(
          'tool',
          this.#host.tools.map((t) => [t.name, t.tool]),
          (tool) => this.server.forwardTool(tool as Tool, (params, ctx) => this.#callTool((tool as Tool).name, params, ctx) as Promise<CallToolResult>),
        );
      } else {
        this.#search = undefined;
      }
      this.#reconcile(
        'prompt',
        this.#host.prompts.map((p) => [p.name, p.prompt]),
        (prompt) =>
          this.server.forwardPrompt(prompt as never, (params, ctx) => this.#getPrompt((prompt as { name: string }).name, params, ctx) as Promise<GetPromptResult>, {
            complete: (params, ctx) => this.#complete(params, ctx) as never,
          }),
      );
      this.#reconcile(
        'resource',
        this.#host.resources.map((r) => [r.uri, r.resource]),
        (resource) => this.server.forwardResource(resource as never, (params, ctx) => this.#readResource(params, ctx) as Promise<ReadResourceResult>),
      );
      this.#reconcile(
        'template',
        this.#host.templates.map((t) => [t.uriTemplate, t.template]),
        (template) =>
          this.server.forwardTemplate(template as never, (params, ctx) => this.#readResource(params, ctx) as Promise<ReadResourceResult>, {
            complete: (params, ctx) => this.#complete(params, ctx) as never,
          }),
      );
    });
  }

  /**
   * A list request: the host's list for this caller, through the chain (the scanner hides what
   * it blocks, the policy what a rule denies for this principal; the audit log records it).
   * With `exposure: "search"` the tools are the two search tools, once the chain allowed the list.
   */
  #list(kind: ItemKind, request: ListRequest): Promise<readonly Readonly<Record<string, unknown>>[]> {
    const scope = scopeOfRequest(request.principal, request.session, request.meta, undefined, request.clientCapabilities);
    const host = this.#host;
    if (kind === 'tool') {
      return host.listTools(scope).then((tools) => {
        const listed = this.#exposure === 'search' ? this.#searchTools : tools.map((t) => t.tool);
        return this.#notice === undefined ? listed : [...listed, this.#notice.tool];
      });
    }
    if (kind === 'prompt') return host.listPrompts(scope).then((prompts) => prompts.map((p) => p.prompt));
    if (kind === 'resource') return host.listResources(scope).then((resources) => resources.map((r) => r.resource));
    return host.listTemplates(scope).then((templates) => templates.map((t) => t.template));
  }

  /**
   * Outermost middleware. A request no server is routed for (`initialize`, `ping`, ...) is
   * recorded by the host's chain; a call, get, read or completion by a name the routing table
   * lacks (withheld by trust, or unknown) goes to the host, which records it and refuses it with
   * the trust layer's reason (never "Unknown tool" for a tool that exists), or with the server
   * layer's own not-found answer.
   */
  #recordOrRefuse(ctx: MiddlewareContext, next: () => Promise<Record<string, unknown>>): Promise<Record<string, unknown>> {
    const method = ctx.method;
    if (RECORDED_METHODS.has(method)) return this.#host.record(method as RecordedMethod, this.#scope(ctx), next, { ...ctx.params });
    const unrouted = this.#unrouted(method, ctx.params);
    if (unrouted === undefined) return next();
    // A name of a server that may be ready at the end of the start window: asked again then.
    const starting = this.#host.starting;
    if (starting !== undefined) return starting.then(() => this.#recordOrRefuse(ctx, next));
    const [kind, name] = unrouted;
    const refused = this.#host.refuse(method as 'tools/call', kind, name, { ...ctx.params }, this.#scope(ctx), next);
    return refused.catch((error: unknown) => failedAnswer(method, error));
  }

  /** The kind and name of a use the routing table cannot route, or undefined (the common case: a map lookup). */
  #unrouted(method: string, params: Readonly<Record<string, unknown>>): readonly ['tool' | 'prompt' | 'resource', string] | undefined {
    if (method === 'tools/call') {
      const name = params['name'];
      return typeof name === 'string' && !this.#handles.tool.has(name) && !this.#searchTools.some((t) => t.name === name) && this.#notice?.tool.name !== name ? ['tool', name] : undefined;
    }
    if (method === 'prompts/get') {
      const name = params['name'];
      return typeof name === 'string' && !this.#handles.prompt.has(name) ? ['prompt', name] : undefined;
    }
    if (method === 'resources/read') {
      const uri = params['uri'];
      return typeof uri === 'string' && this.#host.resolveUri(uri) === undefined ? ['resource', uri] : undefined;
    }
    if (method === 'completion/complete') {
      const ref = params['ref'] as Record<string, unknown> | undefined;
      if (ref?.['type'] === 'ref/prompt' && typeof ref['name'] === 'string' && !this.#handles.prompt.has(ref['name'])) return ['prompt', ref['name']];
      if (ref?.['type'] === 'ref/resource' && typeof ref['uri'] === 'string' && !this.#handles.template.has(ref['uri'])) return ['resource', ref['uri']];
    }
    return undefined;
  }

  #scope(ctx: MiddlewareContext): HostCallOptions {
    return scopeOfRequest(ctx.principal, ctx.session, metaOf(ctx.params), ctx.signal, undefined);
  }

  #reconcile(kind: ItemKind, wanted: readonly (readonly [string, unknown])[], register: (definition: unknown) => ForwardedHandle<never>): void {
    const handles = this.#handles[kind];
    const keep = new Set<string>();
    for (const [key, definition] of wanted) {
      keep.add(key);
      const known = handles.get(key);
      if (known === undefined) handles.set(key, { handle: register(definition), definition });
      else if (known.definition !== definition) {
        known.handle.update(definition as never);
        known.definition = definition;
      }
    }
    for (const [key, known] of handles) {
      if (keep.has(key)) continue;
      known.handle.remove();
      handles.delete(key);
    }
  }

  // ---- forwarded requests --------------------------------------------------------------

  #callTool(name: string, params: Readonly<Record<string, unknown>>, ctx: HandlerContext): Promise<Record<string, unknown>> {
    const args = params['arguments'] as Record<string, unknown> | undefined;
    // The tasks extension is asked for downstream only on a request whose upstream declared it
    // (gatewayTasks.ts), or to run a task-only tool for a 2025-11-25 caller (taskDriver.ts).
    const tasks = this.#tasks !== undefined && hasExtension(ctx.clientCapabilities, TASKS_EXTENSION_ID) ? this.#tasks : undefined;
    const drive = this.#tasks !== undefined && tasks === undefined && !isStateless(ctx.protocolVersion) && requiresTask(this.#host.tool(name)?.definition);
    // The chain sees the method's own result; the era bridge's attempt is made outside it.
    return this.#bridge(params, ctx, 'tools/call', (scope, round) =>
      this.#host
        .callTool(name, args, scope, (client, p, o) => {
          const options = tasks === undefined && !drive ? o : { ...o, capabilities: withTasksExtension(o.capabilities) };
          const call = client.callTool(p['name'] as string, p['arguments'] as Record<string, unknown> | undefined, manual(options, round));
          if (tasks !== undefined) return call.then((result) => (result.resultType === 'task' ? tasks.adopt(client, name, scope, result) : result));
          if (drive) {
            return call.then(async (result) =>
              result.resultType === 'task' ? await driveTask(client, result, { signal: signalOf(o.signal), capabilities: options.capabilities as ClientCapabilities, handlers: round.handlers }) : result,
            );
          }
          return call;
        })
        .then(attempt),
    );
  }

  #getPrompt(name: string, params: Readonly<Record<string, unknown>>, ctx: HandlerContext): Promise<Record<string, unknown>> {
    const args = params['arguments'] as Record<string, string> | undefined;
    return this.#bridge(params, ctx, 'prompts/get', (scope, round) =>
      this.#host.getPrompt(name, args, scope, (client, p, o) => client.getPrompt(p['name'] as string, p['arguments'] as Record<string, string> | undefined, manual(o, round))).then(attempt),
    );
  }

  #readResource(params: Readonly<Record<string, unknown>>, ctx: HandlerContext): Promise<Record<string, unknown>> {
    const uri = params['uri'] as string;
    return this.#bridge(params, ctx, 'resources/read', (scope, round) => this.#host.readResource(uri, scope, (client, p, o) => client.readResource(p['uri'] as string, manual(o, round))).then(attempt));
  }

  async #complete(params: Readonly<Record<string, unknown>>, ctx: HandlerContext): Promise<Record<string, unknown>> {
    try {
      return await this.#host.complete(params, scopeOf(ctx));
    } catch (error) {
      throw toWireError(error);
    }
  }

  /**
   * Runs one upstream request of a forwarded call: a new call, or the retry of one that
   * asked a question (its `requestState`, sealed by the server layer, names it).
   */
  #bridge(
    params: Readonly<Record<string, unknown>>,
    ctx: HandlerContext,
    method: 'tools/call' | 'prompts/get' | 'resources/read',
    launch: (scope: HostCallOptions, round: Round) => Promise<Attempt>,
  ): Promise<Record<string, unknown>> {
    // Chained once rather than `async` (this runs on every forwarded call); every failure,
    // thrown here or by the step, takes `failed`.
    const failed = (error: unknown): Record<string, unknown> => {
      const stateless = isStateless(ctx.protocolVersion);
      return signInInputRequired(error, stateless, ctx.clientCapabilities) ?? failedAnswer(method, signInUnsupported(error, stateless, ctx.clientCapabilities));
    };
    const principal = ctx.principal?.id;
    const driver = new UpstreamDriver(ctx);
    const state = params['requestState'];
    let call: PendingCall;
    let stepping: Promise<Step>;
    try {
      if (typeof state === 'string') {
        const taken = this.#pending.take(state, principal);
        if (taken === undefined) throw JsonRpcError.invalidParams('The requestState names no waiting call (it expired, was answered, or belongs to another caller); send the request again without it');
        call = taken;
        stepping = checkedAnswers(taken, (params['inputResponses'] as Record<string, unknown> | undefined) ?? {}).then((answers) => taken.resume(driver, answers));
      } else {
        // The call's own signal replaces the upstream request's, which is then never created.
        call = this.#pending.create(principal, (round) => launch(scopeOf(ctx, round), round));
        stepping = call.start(driver);
      }
    } catch (error) {
      try {
        return Promise.resolve(failed(error));
      } catch (wire) {
        return Promise.reject(wire);
      }
    }
    return stepping.then((step) => (step.kind === 'complete' ? step.value : this.#ask(call, method, params, ctx, step.inputRequests).catch(failed)), failed);
  }

  /**
   * The server's questions of a forwarded call (a stateful server's real requests, or a
   * 2026-07-28 server's own input round), on their way to the upstream: each passes the chain
   * as a `server/request` (the sanitiser strips what it hides, the policy's server-request
   * rule may ask a person or deny, the audit log records it), and goes out as vetted. A
   * question refused, or a server that can no longer be named, abandons the call.
   *
   * @see https://modelcontextprotocol.io/specification/2025-11-25/client/elicitation#security-considerations
   */
  async #ask(
    call: PendingCall,
    method: 'tools/call' | 'prompts/get' | 'resources/read',
    params: Readonly<Record<string, unknown>>,
    ctx: HandlerContext,
    requests: Readonly<Record<string, InputRequest>>,
  ): Promise<Record<string, unknown>> {
    try {
      const missing = missingCapabilities(requests, ctx.clientCapabilities);
      if (missing !== undefined) throw missingRequiredClientCapability(missing);
      const serverId = this.#serverOf(method, params);
      if (serverId === undefined) throw new McpError(McpErrorCode.ServerUnavailable, 'The server of this call is no longer configured');
      const scope = scopeOf(ctx);
      const vetted: Record<string, InputRequest> = {};
      for (const [key, request] of Object.entries(requests)) {
        const asked = { ...(request.params as Record<string, unknown> | undefined) };
        // The run stays open while the question is out: the upstream's answer comes back through it (checkedAnswers).
        const sent = await new Promise<Record<string, unknown>>((resolveSent, refused) => {
          let answer: (value: unknown) => void = () => undefined;
          let cancel: (error: unknown) => void = () => undefined;
          const answered = new Promise<unknown>((resolve, reject) => {
            answer = resolve;
            cancel = reject;
          });
          // A question refused before it was sent never reads its answer: its cancellation is nobody's error.
          answered.catch(() => undefined);
          const checked = this.#host.serverRequest(serverId, request.method, asked, scope, (out) => {
            resolveSent(out);
            return answered;
          });
          // Refused before it was sent, the question fails here; after, its answer's fate is read by checkedAnswers.
          checked.catch(refused);
          call.held.get(key)?.cancel(new McpError(McpErrorCode.RequestCancelled, 'The question was asked again'));
          call.held.set(key, { answer, cancel, checked });
        });
        vetted[key] = { ...request, params: sent } as InputRequest;
      }
      this.#pending.park(call);
      return { resultType: 'input_required', inputRequests: vetted, requestState: call.id };
    } catch (error) {
      call.abandon('The server’s question was not sent upstream');
      throw error;
    }
  }

  /** The server a forwarded call went to, by what the upstream named. */
  #serverOf(method: 'tools/call' | 'prompts/get' | 'resources/read', params: Readonly<Record<string, unknown>>): string | undefined {
    if (method === 'tools/call') return this.#host.tool(String(params['name']))?.serverId;
    if (method === 'prompts/get') return this.#host.prompt(String(params['name']))?.serverId;
    return this.#host.resolveUri(String(params['uri']))?.serverId;
  }

  // ---- exposure: "search" --------------------------------------------------------------

  #registerSearchTools(): void {
    const search: Tool = {
      name: SEARCH_TOOL,
      title: 'Search tools',
      description: 'Finds tools of the connected servers by what they do. Returns their full definitions (name, description, input schema); call one with call_tool.',
      inputSchema: {
        type: 'object',
        properties: {
          query: { type: 'string', description: 'What the tool should do, in a few words' },
          limit: { type: 'integer', minimum: 1, maximum: 50, description: 'Most results (default 5)' },
        },
        required: ['query'],
      },
    } as Tool;
    const dispatch = {
      name: CALL_TOOL,
      title: 'Call a tool',
      description: 'Calls a tool found with search_tools, by its exact name, with its arguments.',
      inputSchema: {
        type: 'object',
        properties: { name: { type: 'string', description: 'The tool name search_tools returned' }, arguments: { type: 'object', description: 'The tool arguments' } },
        required: ['name'],
      },
    } as Tool;
    this.#searchTools.push(search, dispatch);
    // A search is answered by the gateway: it is recorded as the call it is, and searches only
    // what the chain lists for this caller (the listing is recorded as the tools/list it is).
    this.server.forwardTool(search, (params, ctx): Promise<CallToolResult> => {
      const args = (params['arguments'] ?? {}) as Record<string, unknown>;
      const scope = scopeOf(ctx);
      return this.#host.record('tools/call', scope, async () => {
        const listed = await this.#host.listTools(scope);
        if (this.#search?.listed !== listed) this.#search = { listed, index: new ToolSearchIndex(listed.map((t) => ({ name: t.name, tool: t.tool }))) };
        const hits = this.#search.index.search(String(args['query']), { limit: typeof args['limit'] === 'number' ? args['limit'] : 5 });
        const tools = hits.map((h) => h.tool);
        return { content: [{ type: 'text', text: JSON.stringify(tools) }], structuredContent: { tools } };
      }, { name: SEARCH_TOOL, arguments: args });
    });
    this.server.forwardTool(dispatch, (params, ctx): Promise<CallToolResult> => {
      const args = (params['arguments'] ?? {}) as Record<string, unknown>;
      const name = String(args['name']);
      const inner = { ...params, arguments: (args['arguments'] ?? {}) as Record<string, unknown> };
      if (this.#host.tool(name) !== undefined) return this.#callTool(name, inner, ctx) as Promise<CallToolResult>;
      // A name the host does not route is still the host's to record and refuse: a withheld tool with its
      // reason, an unknown one as a tool error the model can act on (the name is call_tool's argument).
      const unknown: CallToolResult = { content: [{ type: 'text', text: `Unknown tool: ${name}. Use ${SEARCH_TOOL} to find tools.` }], isError: true };
      return this.#host.refuse('tools/call', 'tool', name, { arguments: inner.arguments }, scopeOf(ctx), () => Promise.resolve(unknown)).catch((error: unknown) => failedAnswer('tools/call', error) as CallToolResult);
    });
  }
}

/**
 * The upstream's answers to `call`'s questions, each given back to the chain run its question
 * is held in (`HeldAnswer`, bridge.ts) and as that run let it through: an answer the chain withholds
 * (another server's secret in it) abandons the call, so the server never receives it.
 */
async function checkedAnswers(call: PendingCall, responses: Readonly<Record<string, unknown>>): Promise<Readonly<Record<string, unknown>>> {
  if (call.held.size === 0) return responses;
  const answers: Record<string, unknown> = { ...responses };
  const runs: Promise<void>[] = [];
  for (const [key, held] of [...call.held]) {
    if (!Object.hasOwn(responses, key)) continue;
    call.held.delete(key);
    held.answer(responses[key]);
    runs.push(
      held.checked.then((value) => {
        answers[key] = value;
      }),
    );
  }
  try {
    await Promise.all(runs);
  } catch (error) {
    call.abandon('An answer to the server’s question was withheld');
    throw error;
  }
  return answers;
}
