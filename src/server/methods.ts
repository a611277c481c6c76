/**
 * The method handlers of `McpServer`: discovery and initialization, the list methods, and
 * `tools/call`, `resources/read`, `prompts/get`, `completion/complete`, plus the stateful
 * session's `logging/setLevel` and `resources/(un)subscribe`.
 *
 * @see https://modelcontextprotocol.io/specification/2026-07-28/server
 * @module
 */
import { JsonRpcError } from '../jsonrpc/errors.js';
import { invalidParamsFromIssues, resourceNotFound } from '../protocol/errors.js';
import type { ClientCapabilities, ServerCapabilities } from '../protocol/model/capabilities.js';
import type { Implementation, ItemKind, LoggingLevel } from '../protocol/model/common.js';
import type { ServerCore } from './core.js';
import { contextFor, withInput } from './input.js';
import { isObject, type Call, type MethodHandler } from './pipeline.js';
import { Registry } from './registry.js';
import { findReader, toReadResult } from './resources.js';
import type { ServerSession } from './session.js';
import { involvesTasks, taskCall } from './tasks/glue.js';
import { checkForwardedTask } from './tasks/forwarded.js';
import { invalidArguments, runTool, type CompiledTool } from './tools.js';
import type { ForwardedCompleter, ForwardedHandler } from './types.js';
import type { Completer, HandlerContext, ResourceTemplateDefinition } from './types.js';
import type { Listed, VisibilityContext } from './visibility.js';

type Result = Promise<Record<string, unknown>>;

function withoutMember(caps: ServerCapabilities, member: string): ServerCapabilities {
  const { [member]: _drop, ...rest } = caps as Record<string, unknown>;
  return rest as ServerCapabilities;
}

/** The handler map of a server (the task methods are added by `installTasks`). */
export function methodHandlers(core: ServerCore): Map<string, MethodHandler> {
  return new Map<string, MethodHandler>([
    ['server/discover', async () => discover(core)],
    ['tools/list', (c) => list(core, c, core.tools, 'tool', 'tools')],
    ['tools/call', (c) => callTool(core, c)],
    ['resources/list', (c) => listResources(core, c)],
    ['resources/templates/list', (c) => list(core, c, core.templates, 'template', 'resourceTemplates')],
    ['resources/read', (c) => readResource(core, c)],
    ['prompts/list', (c) => list(core, c, core.prompts, 'prompt', 'prompts')],
    ['prompts/get', (c) => getPrompt(core, c)],
    ['completion/complete', (c) => complete(c, core)],
    ['subscriptions/listen', (c) => core.hub.listen({ ...c, sees: (kind, changed) => core.views.anyAllowed(kind, changed, viewOf(c)) }, core.capabilities())],
    ['initialize', async (c) => initialize(core, c)],
    ['ping', async () => ({})],
    ['logging/setLevel', async (c) => setLevel(c)],
    ['resources/subscribe', async (c) => subscribe(c, true)],
    ['resources/unsubscribe', async (c) => subscribe(c, false)],
  ]);
}

function discover(core: ServerCore): Record<string, unknown> {
  const result: Record<string, unknown> = {
    supportedVersions: [...core.statelessVersions],
    capabilities: core.tasks === undefined ? core.capabilities() : withoutMember(core.capabilities(), 'tasks'), // tasks integration
    ...core.cacheFor('server/discover'),
  };
  if (core.instructions !== undefined) result['instructions'] = core.instructions;
  return result;
}

/** Who is looking, for the `visibility` hook. */
export function viewOf(call: Call): VisibilityContext {
  return { principal: call.principal, session: call.session, revision: call.revision };
}

async function list<T extends Listed>(core: ServerCore, call: Call, registry: Registry<T>, kind: ItemKind, member: string): Result {
  const provided = core.lists?.(kind, { method: call.method, principal: call.principal, session: call.session, revision: call.revision, meta: call.meta, clientCapabilities: call.caps });
  return provided === undefined ? listPage(core, call, registry, kind, member) : listPage(core, call, listedRegistry(kind, await provided), kind, member);
}

async function listPage<T extends Listed>(core: ServerCore, call: Call, registry: Registry<T>, kind: ItemKind, member: string): Result {
  const cursor = call.params['cursor'];
  const view = viewOf(call);
  // Filtered before paging: every page is full.
  const page = registry.page(typeof cursor === 'string' ? cursor : undefined, core.pageSize, (e) => core.views.sees(kind, e, view));
  const result: Record<string, unknown> = { [member]: page.items.map((e) => e.wire), ...core.cacheFor(call.method) };
  if (page.nextCursor !== undefined) result['nextCursor'] = page.nextCursor;
  if (core.manifest !== undefined && member !== 'resources') result['_meta'] = await core.manifest.meta();
  return result;
}

/** The items a `lists` hook served, as a registry to page over (keys as the entries' own). */
function listedRegistry(kind: ItemKind, items: readonly Readonly<Record<string, unknown>>[]): Registry<Listed> {
  const registry = new Registry<Listed>(kind === 'template' ? 'resource template' : kind);
  const field = kind === 'resource' ? 'uri' : kind === 'template' ? 'uriTemplate' : 'name';
  for (const wire of items) registry.set({ key: String(wire[field]), disabled: false, wire });
  return registry;
}

async function listResources(core: ServerCore, call: Call): Result {
  if (core.lists !== undefined) return list(core, call, core.resources, 'resource', 'resources');
  const templates = core.templates.all().filter((t) => !t.disabled && t.definition.list !== undefined);
  if (templates.length === 0) return list(core, call, core.resources, 'resource', 'resources');
  // Template listings are dynamic: gather everything, then page over the combined list.
  const view = viewOf(call);
  const context = contextFor(call, undefined, 1, undefined);
  const temp = new Registry<Listed>('resource');
  for (const r of core.resources.all()) temp.set(r);
  for (const t of templates) {
    if (!core.views.sees('template', t, view)) continue;
    const items = await (t.definition.list as NonNullable<ResourceTemplateDefinition['list']>)(context);
    for (const { cache: _cache, ...item } of items) {
      if (!temp.get(item.uri)) temp.set({ key: item.uri, disabled: false, wire: item });
    }
  }
  return list(core, call, temp, 'resource', 'resources');
}

// Not `async` (an async function returning a promise costs two more microtask turns, on
// every forwarded call); a throw still becomes a rejection.
function callTool(core: ServerCore, call: Call): Result {
  try {
    const name = call.params['name'] as string;
    const tool = core.tools.get(name);
    // An invisible tool is unknown: the same answer as a missing one.
    if (tool === undefined || !core.views.sees('tool', tool, viewOf(call))) throw JsonRpcError.invalidParams(`Unknown tool: ${name}`, { name });
    const forward = tool.forward;
    const run = (context: HandlerContext, params: Readonly<Record<string, unknown>> = call.params): Result =>
      forward === undefined ? runTool(tool, call.params['arguments'], context) : runForwardedTool(tool, forward, params, context);
    // tasks integration: the task manager decides task vs. ordinary call
    if (core.tasks !== undefined && involvesTasks(call, tool.wire)) {
      return core.tasks.callTool(taskCall(call), tool.wire, run, (r) => withInput(core, call, r));
    }
    return withInput(core, call, run);
  } catch (error) {
    return Promise.reject(error);
  }
}

async function readResource(core: ServerCore, call: Call): Result {
  const uri = call.params['uri'] as string;
  const view = viewOf(call);
  const reader = findReader(
    uri,
    (u) => {
      const exact = core.resources.get(u);
      return core.views.sees('resource', exact, view) ? exact : undefined;
    },
    core.templates.all().filter((t) => core.views.sees('template', t, view)),
  );
  if (reader === undefined) throw resourceNotFound(uri, call.revision);
  const cache = reader.cache ?? core.cacheFor('resources/read');
  const forward = reader.forward;
  if (forward !== undefined) return withInput(core, call, (context, params) => forward(params, context) as Result);
  return withInput(core, call, async (context) => {
    const result = toReadResult(await reader.read(context), uri);
    result['ttlMs'] = cache.ttlMs;
    result['cacheScope'] = cache.cacheScope;
    return result;
  });
}

async function getPrompt(core: ServerCore, call: Call): Result {
  const name = call.params['name'] as string;
  const prompt = core.prompts.get(name);
  if (prompt === undefined || !core.views.sees('prompt', prompt, viewOf(call))) throw JsonRpcError.invalidParams(`Unknown prompt: ${name}`, { name });
  const forward = prompt.forward;
  if (forward !== undefined) return withInput(core, call, (context, params) => forward(params, context) as Result);
  const args = (call.params['arguments'] ?? {}) as Record<string, string>;
  const missing = (prompt.definition.arguments ?? []).filter((a) => a.required === true && typeof args[a.name] !== 'string').map((a) => a.name);
  if (missing.length > 0) {
    throw invalidParamsFromIssues(missing.map((m) => ({ path: ['params', 'arguments', m], message: 'is required' })));
  }
  return withInput(core, call, async (context) => {
    const out = await prompt.handler(args, context);
    const result: Record<string, unknown> = { messages: [...out.messages] };
    if (out.description !== undefined) result['description'] = out.description;
    if (out._meta !== undefined) result['_meta'] = { ...out._meta };
    return result;
  });
}

async function complete(call: Call, core: ServerCore): Result {
  const ref = call.params['ref'] as { type: string; name?: string; uri?: string };
  const argument = call.params['argument'] as { name: string; value: string };
  const context = call.params['context'] as { arguments?: Record<string, string> } | undefined;
  let completer: Completer | undefined;
  if (ref.type === 'ref/prompt') {
    const prompt = core.prompts.get(ref.name ?? '');
    if (prompt === undefined || !core.views.sees('prompt', prompt, viewOf(call))) throw JsonRpcError.invalidParams(`Unknown prompt: ${ref.name ?? ''}`, { name: ref.name });
    if (prompt.forward !== undefined) return forwardedCompletion(prompt.forwardComplete, call);
    completer = prompt.definition.arguments?.find((a) => a.name === argument.name)?.complete;
  } else {
    const template = core.templates.get(ref.uri ?? '');
    if (template === undefined || !core.views.sees('template', template, viewOf(call))) {
      throw JsonRpcError.invalidParams(`Unknown resource template: ${ref.uri ?? ''}`, { uri: ref.uri });
    }
    if (template.forward !== undefined) return forwardedCompletion(template.forwardComplete, call);
    completer = template.definition.complete?.[argument.name];
  }
  const values = completer === undefined ? [] : await completer(argument.value, { arguments: context?.arguments ?? {}, handler: contextFor(call, undefined, 1, undefined) });
  const first = values.slice(0, 100);
  return { completion: { values: first, total: values.length, hasMore: values.length > first.length } };
}

/** A forwarded tool's call: optional argument validation, then the handler with the params as received. */
function runForwardedTool(tool: CompiledTool, forward: ForwardedHandler<Record<string, unknown>>, params: Readonly<Record<string, unknown>>, context: HandlerContext): Result {
  // Chained, not `async`: without argument validation the check is synchronous and costs no
  // microtask turn; a throw still becomes a rejection.
  try {
    const checked = tool.validateInput(params['arguments'] ?? {});
    if ('ok' in checked) return forwardChecked(tool, forward, params, context, checked);
    return Promise.resolve(checked).then((c) => forwardChecked(tool, forward, params, context, c));
  } catch (error) {
    return Promise.reject(error);
  }
}

type ValidatorOutcome = Awaited<ReturnType<CompiledTool['validateInput']>>;

function forwardChecked(tool: CompiledTool, forward: ForwardedHandler<Record<string, unknown>>, params: Readonly<Record<string, unknown>>, context: HandlerContext, checked: ValidatorOutcome): Result {
  if (!checked.ok) return Promise.resolve(invalidArguments(tool.name, checked.issues));
  return forward(params, context).then((result) => checkForwardedTask(result, context));
}

async function forwardedCompletion(complete: ForwardedCompleter | undefined, call: Call): Result {
  if (complete === undefined) return { completion: { values: [], total: 0, hasMore: false } };
  return (await complete(call.params, contextFor(call, undefined, 1, undefined))) as Record<string, unknown>;
}

/**
 * Unsolicited list_changed for a stateful session (capability `listChanged: true`), only when
 * the session can see one of the changed entries (as `view`, its initialize principal). Set up
 * by `initialize`, and by a session rehydrated from another instance's record.
 */
export function watchListChanges(core: ServerCore, session: ServerSession, view: VisibilityContext): void {
  const watch = <T extends Listed>(registry: Registry<T>, kind: ItemKind, method: string): void =>
    session.onClose(registry.onChange((changed) => core.views.anyAllowed(kind, changed, view) && session.send(method)));
  watch(core.tools, 'tool', 'notifications/tools/list_changed');
  watch(core.prompts, 'prompt', 'notifications/prompts/list_changed');
  watch(core.resources, 'resource', 'notifications/resources/list_changed');
  watch(core.templates, 'template', 'notifications/resources/list_changed');
}

function initialize(core: ServerCore, call: Call): Record<string, unknown> {
  const session = call.session as ServerSession;
  session.revision = call.revision;
  session.clientCapabilities = (call.params['capabilities'] ?? {}) as ClientCapabilities;
  const info = call.params['clientInfo'];
  session.clientInfo = isObject(info) ? (info as Implementation) : undefined;
  watchListChanges(core, session, viewOf(call));
  const { extensions: _ext, ...capabilities } = core.capabilities() as Record<string, unknown>;
  if (call.revision !== '2025-11-25') delete capabilities['tasks']; // tasks integration: core tasks are 2025-11-25 only
  const result: Record<string, unknown> = { protocolVersion: call.revision, capabilities, serverInfo: core.info };
  if (core.instructions !== undefined) result['instructions'] = core.instructions;
  return result;
}

function setLevel(call: Call): Record<string, unknown> {
  (call.session as ServerSession).logLevel = call.params['level'] as LoggingLevel;
  return {};
}

function subscribe(call: Call, on: boolean): Record<string, unknown> {
  const uri = call.params['uri'] as string;
  const session = call.session as ServerSession;
  if (on) session.subscriptions.add(uri);
  else session.subscriptions.delete(uri);
  return {};
}
