/**
 * The console's policy routes: the rules and built-in checks as the gateway applied them at
 * start, and a dry run of one call. The dry run runs a fresh instance of the real policy
 * interceptor (same rules, labels, built-ins) on the call, with a `next` that calls nothing:
 * the decision, the rule ids and the reasons are what the gateway's policy would record for
 * that call in a new session (no taint from earlier calls). Nothing is called or recorded.
 *
 * @module
 */
import { DeniedError, interceptContext, type Decision } from '../host/interceptors.js';
import { LabelResolver } from '../host/policy/labels.js';
import { POLICY_INTERCEPTOR_ID, policyInterceptor } from '../host/policy/policyEngine.js';
import type { HttpResponseLike } from '../transport/http/server/types.js';
import { failure, json } from './consoleResponses.js';
import type { RouteContext } from './consoleTypes.js';

/** `GET policy`. */
export function policyState(ctx: RouteContext): Promise<HttpResponseLike> {
  const policy = ctx.options.policy;
  if (policy === undefined) return Promise.resolve(failure(404, 'no policy is configured on this gateway'));
  const c = policy.config;
  return Promise.resolve(
    json(200, {
      installed: policy.installed,
      rules: c.rules.map((r) => ({ id: r.id, when: r.when, outcome: r.outcome, ...(r.reason !== undefined ? { reason: r.reason } : {}) })),
      builtins: { trifecta: c.trifecta, valueTaint: c.valueTaint, serverRequests: c.serverRequests },
      dryRun: c.dryRun,
      labels: policy.labels,
    }),
  );
}

/** `POST policy/dry-run` `{ server, tool, arguments?, principal? }`. */
export async function policyDryRun(ctx: RouteContext): Promise<HttpResponseLike> {
  const policy = ctx.options.policy;
  if (policy === undefined) return failure(404, 'no policy is configured on this gateway');
  const body = await ctx.body();
  const { server, tool, principal } = body;
  const args = body['arguments'] ?? {};
  if (typeof server !== 'string' || typeof tool !== 'string') return failure(400, 'the body needs "server" and "tool" (its exposed or its own name)');
  if (typeof args !== 'object' || args === null || Array.isArray(args)) return failure(400, '"arguments" must be a JSON object');
  if (principal !== undefined && typeof principal !== 'string') return failure(400, '"principal" must be a string');
  const { host } = ctx.options;
  if (!host.serverIds.includes(server)) return failure(404, `no server ${server}`);
  const exposed = host.tools.find((t) => t.serverId === server && (t.name === tool || t.definition.name === tool));
  const ownName = exposed?.definition.name ?? tool;
  const definition = exposed?.definition as Readonly<Record<string, unknown>> | undefined;
  const scanner = ctx.options.scanner;
  const interceptor = policyInterceptor({
    rules: { compiled: policy.config.compiled },
    labels: policy.labels,
    trifecta: policy.config.trifecta,
    valueTaint: 'off',
    serverRequests: policy.config.serverRequests,
    canAsk: true,
    ...(policy.redact !== undefined ? { redact: policy.redact } : {}),
    ...(scanner !== undefined ? { findingsOf: (d: object) => scanner.verdictOf(d)?.findings } : {}),
  });
  const info = host.server(server)?.client?.serverInfo;
  const call = interceptContext({
    method: 'tools/call',
    principal: { id: principal ?? 'console:dry-run' },
    session: undefined,
    server: { id: server, ...(info !== undefined ? { info } : {}) },
    exposedName: exposed?.name ?? tool,
    ...(definition !== undefined ? { definition } : {}),
    params: { name: ownName, arguments: args },
    signal: new AbortController().signal,
  });
  let denied: string | undefined;
  try {
    await interceptor.intercept(call, () => Promise.resolve({ content: [] }));
  } catch (error) {
    if (!(error instanceof DeniedError)) throw error;
    denied = error.reason;
  }
  const decisions = call.decisions.filter((d) => d.interceptor === POLICY_INTERCEPTOR_ID);
  const labels = new LabelResolver(policy.labels, scanner === undefined ? undefined : (d) => scanner.verdictOf(d)?.findings).resolve(server, ownName, definition);
  return json(200, {
    decision: decisionOf(decisions, denied),
    rules: rulesOf(decisions),
    reasons: decisions.map((d) => d.reason).filter((r): r is string => r !== undefined && r !== ''),
    labels: labels.labels,
    known: exposed !== undefined,
    ...(policy.config.dryRun ? { note: 'the gateway runs its policy in dry-run mode: it records these decisions but does not enforce them' } : {}),
  });
}

function decisionOf(decisions: readonly Decision[], denied: string | undefined): string {
  if (denied !== undefined) return 'deny';
  const last = decisions.at(-1);
  if (last === undefined) return 'allow';
  if (last.outcome === 'change') return 'redact';
  return last.outcome === 'ask' ? 'ask' : 'allow';
}

function rulesOf(decisions: readonly Decision[]): string[] {
  const ids = new Set<string>();
  for (const d of decisions) {
    const rule = d.detail?.['rule'];
    if (typeof rule === 'string') ids.add(rule);
  }
  return [...ids];
}
