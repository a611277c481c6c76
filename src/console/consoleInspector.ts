/**
 * The console's inspector: a server's tools, resources, prompts and templates as the gateway
 * exposes them, and a tool call, resource read or prompt get THROUGH the host's interceptor
 * chain (audit, pins, scanner, policy, consent, guards, sanitiser), never straight to the
 * downstream client. The principal is {@link INSPECTOR_PRINCIPAL}, so every call is audited
 * under that name; a call that needs consent waits for it like any other.
 *
 * A server's `elicitation/create` during an Inspector tool call is the same `server/request`
 * the gateway runs for any client (`host.serverRequest` behind `vettedHandlers`: the sanitiser,
 * `builtin.server-request`, the audit log, and the value-taint guard of the answer); vetted, it
 * waits in the console's question table for the page ({@link inspectorAnswer}).
 *
 * @module
 */
import type { ClientHandlers } from '../client/types.js';
import type { DownstreamRoute, HostCallOptions } from '../host/host.js';
import { vettedHandlers } from '../host/vettedHandlers.js';
import type { HttpResponseLike } from '../transport/http/server/types.js';
import { describeError } from '../util/errors.js';
import { failure, json } from './consoleResponses.js';
import type { RouteContext } from './consoleTypes.js';
import { CALL_ID } from './inspectorQuestions.js';

/** The principal of inspector calls (in the audit log and policy rules). */
export const INSPECTOR_PRINCIPAL = 'console:admin';
const SESSION = 'console-inspector';

function scope(ctx: RouteContext): HostCallOptions {
  const controller = new AbortController();
  ctx.request.onAbort?.(() => controller.abort(new Error('the console page went away')));
  return { principal: { id: INSPECTOR_PRINCIPAL }, session: SESSION, signal: controller.signal };
}

/** `GET inspector/<server>`: what the gateway exposes of one server (listed through the chain). */
export async function inspectServer(ctx: RouteContext): Promise<HttpResponseLike> {
  const { host } = ctx.options;
  const id = ctx.params['server'] as string;
  const health = host.health().find((h) => h.id === id);
  if (health === undefined) return failure(404, `no server ${id} (servers: ${host.serverIds.join(', ') || 'none'})`);
  const s = { principal: { id: INSPECTOR_PRINCIPAL }, session: SESSION };
  const [tools, resources, prompts, templates] = await Promise.all([host.listTools(s), host.listResources(s), host.listPrompts(s), host.listTemplates(s)]);
  return json(200, {
    server: id,
    state: health.state,
    tools: tools.filter((t) => t.serverId === id).map((t) => t.tool),
    resources: resources.filter((r) => r.serverId === id).map((r) => r.resource),
    prompts: prompts.filter((p) => p.serverId === id).map((p) => p.prompt),
    templates: templates.filter((t) => t.serverId === id).map((t) => t.template),
  });
}

/** The outcome of a call as JSON: `{ result }` or `{ error: { code, message } }` (still 200: the call was made). */
async function outcome(run: () => Promise<unknown>): Promise<HttpResponseLike> {
  try {
    return json(200, { result: await run() });
  } catch (error) {
    const code = (error as { code?: unknown } | null)?.code;
    return json(200, { error: { code: typeof code === 'string' || typeof code === 'number' ? String(code) : 'error', message: describeError(error) } });
  }
}

function objectArg(value: unknown, what: string): Record<string, unknown> | string {
  if (value === undefined) return {};
  if (typeof value !== 'object' || value === null || Array.isArray(value)) return `"${what}" must be a JSON object`;
  return value as Record<string, unknown>;
}

/** `POST inspector/call` `{ tool, arguments? }`. */
export async function inspectorCall(ctx: RouteContext): Promise<HttpResponseLike> {
  const body = await ctx.body();
  const tool = body['tool'];
  const args = objectArg(body['arguments'], 'arguments');
  if (typeof tool !== 'string' || tool === '') return failure(400, 'the body needs "tool" (an exposed tool name)');
  if (typeof args === 'string') return failure(400, args);
  const call = body['call'] ?? crypto.randomUUID();
  if (typeof call !== 'string' || !CALL_ID.test(call)) return failure(400, '"call" (optional) is 8 to 64 letters, digits, "-" or "_"');
  const { host } = ctx.options;
  const callScope = scope(ctx);
  const serverId = host.tool(tool)?.serverId;
  if (serverId === undefined) return outcome(() => host.callTool(tool, args, callScope));
  // The server's questions during this call go to the page, vetted like any client's (the scope names the inspector).
  const asks: ClientHandlers = { elicitation: (params, input) => ctx.questions.ask(call, serverId, params, input.signal) };
  const handlers = vettedHandlers(asks, (method, params, answer) => host.serverRequest(serverId, method, params, { principal: callScope.principal, session: SESSION }, answer));
  const route: DownstreamRoute<Record<string, unknown>> = (client, p, o) =>
    client.callTool(p['name'] as string, p['arguments'] as Record<string, unknown> | undefined, { ...o, handlers }) as Promise<Record<string, unknown>>;
  return outcome(() => host.callTool(tool, args, callScope, route));
}

/** `POST inspector/answer` `{ call, question, action, content? }`: the person's answer to a server's question, once. */
export async function inspectorAnswer(ctx: RouteContext): Promise<HttpResponseLike> {
  const body = await ctx.body();
  const refused = ctx.questions.answer(body['call'], body['question'], body['action'], body['content']);
  if (refused !== undefined) return failure(refused.status, refused.error);
  return json(200, { call: body['call'], question: body['question'], action: body['action'] });
}

/** `POST inspector/read` `{ uri }`. */
export async function inspectorRead(ctx: RouteContext): Promise<HttpResponseLike> {
  const body = await ctx.body();
  const uri = body['uri'];
  if (typeof uri !== 'string' || uri === '') return failure(400, 'the body needs "uri" (an exposed resource URI)');
  return outcome(() => ctx.options.host.readResource(uri, scope(ctx)));
}

/** `POST inspector/prompt` `{ name, arguments? }` (argument values are strings). */
export async function inspectorPrompt(ctx: RouteContext): Promise<HttpResponseLike> {
  const body = await ctx.body();
  const name = body['name'];
  const args = objectArg(body['arguments'], 'arguments');
  if (typeof name !== 'string' || name === '') return failure(400, 'the body needs "name" (an exposed prompt name)');
  if (typeof args === 'string') return failure(400, args);
  if (Object.values(args).some((v) => typeof v !== 'string')) return failure(400, 'prompt arguments are strings');
  return outcome(() => ctx.options.host.getPrompt(name, args as Record<string, string>, scope(ctx)));
}
