/** Drives the policy interceptor with hand-made contexts (no host, no servers). */
import { interceptContext, InterceptorChain, type InterceptContext, type InterceptedMethod, type Interceptor } from '../../../../src/host/interceptors.js';
import type { Principal } from '../../../../src/transport/principal.js';

/** One request's shape. */
export interface Req {
  readonly method?: InterceptedMethod;
  readonly server?: string;
  readonly tool?: string;
  readonly args?: Record<string, unknown>;
  readonly principal?: string;
  readonly claims?: Record<string, unknown>;
  readonly session?: string;
  readonly conversation?: string;
  readonly serverMethod?: string;
  readonly params?: Record<string, unknown>;
  readonly annotations?: Record<string, unknown>;
  readonly definition?: Record<string, unknown>;
}

const definitions = new Map<string, Record<string, unknown>>();

/** One definition object per server/tool (as the host keeps them). */
export function definitionOf(server: string, tool: string, annotations?: Record<string, unknown>): Record<string, unknown> {
  const key = `${server}/${tool}/${JSON.stringify(annotations ?? null)}`;
  let d = definitions.get(key);
  if (d === undefined) definitions.set(key, (d = { name: tool, inputSchema: { type: 'object' }, ...(annotations !== undefined ? { annotations } : {}) }));
  return d;
}

/** A context for `req`. */
export function contextOf(req: Req): InterceptContext {
  const method = req.method ?? 'tools/call';
  const principal: Principal | undefined =
    req.principal === undefined
      ? undefined
      : {
          id: req.principal,
          ...(req.claims !== undefined ? { auth: { subject: req.principal, clientId: undefined, scopes: [], issuer: 'https://as.example', audience: [], expiresAt: undefined, claims: req.claims, jkt: undefined } } : {}),
        };
  const server = req.server ?? 's';
  const tool = req.tool ?? 't';
  return interceptContext({
    method,
    principal,
    session: req.session,
    ...(req.conversation !== undefined ? { conversation: req.conversation } : {}),
    server: method.endsWith('/list') ? undefined : { id: server },
    ...(method === 'tools/call' ? { exposedName: `${server}__${tool}`, definition: req.definition ?? definitionOf(server, tool, req.annotations) } : {}),
    ...(req.serverMethod !== undefined ? { serverMethod: req.serverMethod } : {}),
    params: req.params ?? (method === 'tools/call' ? { name: tool, ...(req.args !== undefined ? { arguments: req.args } : {}) } : {}),
    signal: new AbortController().signal,
  });
}

/** Runs `req` through `interceptors`; the route answers `result` (or the function's value) and counts. */
export async function run(
  interceptors: readonly Interceptor[],
  req: Req,
  result: unknown = { content: [{ type: 'text', text: 'ok' }] },
): Promise<{ ctx: InterceptContext; result?: unknown; error?: unknown; routed: boolean }> {
  const ctx = contextOf(req);
  let routed = false;
  try {
    const out = await new InterceptorChain(interceptors).run(ctx, async () => {
      routed = true;
      return typeof result === 'function' ? (result as () => unknown)() : result;
    });
    return { ctx, result: out, routed };
  } catch (error) {
    return { ctx, error, routed };
  }
}

/** A text result. */
export function text(value: string): unknown {
  return { content: [{ type: 'text', text: value }] };
}

/** An interceptor in the guard phase that records what the sanitize layer records on injection markers. */
export const fakeSanitizer: Interceptor = {
  id: 'guard.sanitize',
  phase: 'guard',
  async intercept(ctx, next) {
    const result = await next();
    if (JSON.stringify(result).includes('IGNORE PREVIOUS')) ctx.record({ interceptor: 'guard.sanitize', outcome: 'observe', detail: { injection: true, markers: ['override'] } });
    return result;
  },
};

/** A tiny secret detector for tests: `sk_test_` tokens. */
export const detect = (value: string): readonly string[] => [...value.matchAll(/sk_test_[A-Za-z0-9]{16,}/g)].map((m) => m[0]);
