/**
 * The console's inspector: a server's tools, resources, prompts and templates as the gateway
 * exposes them, and a tool call, resource read or prompt get THROUGH the host's interceptor
 * chain (audit, pins, scanner, policy, consent, guards, sanitiser), never straight to the
 * downstream client. The principal is {@link INSPECTOR_PRINCIPAL}, so every call is audited
 * under that name; a call that needs consent waits for it like any other.
 *
 * @module
 */
import type { HostCallOptions } from '../host/host.js';
import type { HttpResponseLike } from '../transport/http/server/types.js';
import { describeError } from '../util/errors.js';
import { failure, json } from './consoleResponses.js';
import type { RouteContext } from './consoleTypes.js';

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
  return outcome(() => ctx.options.host.callTool(tool, args, scope(ctx)));
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
