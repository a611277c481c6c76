/**
 * The `consent` interceptor (phase `consent`): when an earlier interceptor (the policy)
 * recorded an `ask` decision, it asks a person, through the configured providers, whether
 * this exact call may go on.
 *
 * - The person sees the server (configured id and stable identity), the tool's own name,
 *   the FULL arguments (for a downstream server's `server/request`: the full params, e.g.
 *   the sampling prompt) and every reason given.
 * - A kept approval (a grant) that covers the call answers without asking: same server
 *   identity, tool, definition digest and principal, and the arguments its scope admits.
 * - Providers are raced: every available one is asked, the first answer wins, the others are
 *   cancelled. A provider that fails, no provider available, no answer within `timeoutMs`,
 *   or the call cancelled: {@link DeniedError} (fail closed).
 * - An answer from the agent's own client (elicitation, `mediated: 'client'`) approves only
 *   this one call: it can never widen into a grant.
 * - Every answer is audited as its own `approval` record through `audit` (the log's hash
 *   chain), before the call goes on; the request's own record carries the `consent` decision
 *   (`allow` with the approval id, mediation and scope, or `deny`). An approval that cannot
 *   be audited is a denial.
 *
 * @module
 */
import type { AuditEntry } from '../audit.js';
import { DeniedError, type Decision, type InterceptContext, type Interceptor } from '../interceptors.js';
import { digestOf } from '../pins/pinDigests.js';
import { describeError } from '../../util/errors.js';
import { checkScope, findGrant, grantOf, MemoryGrantStore, type ConsentGrant, type ConsentGrantStore } from './consentGrants.js';
import { ONCE, type CallBinding, type ConsentAnswer, type ConsentProvider, type ConsentRequest, type GrantScope } from './consentTypes.js';

/** The interceptor id. */
export const CONSENT_INTERCEPTOR_ID = 'consent';

/** Default wait for an answer: two minutes. */
export const DEFAULT_CONSENT_TIMEOUT_MS = 120_000;

/** Options of {@link consentInterceptor}. */
export interface ConsentInterceptorOptions {
  /** Asked in parallel; the first answer wins. */
  readonly providers: readonly ConsentProvider[];
  /** Kept approvals. Default: in memory. */
  readonly grants?: ConsentGrantStore;
  /** The stable identity of a configured server id (`pins/serverIdentity.ts`); undefined = unknown (denied). */
  readonly identityOf: (serverId: string) => string | undefined;
  /** How long a request waits for an answer. Default {@link DEFAULT_CONSENT_TIMEOUT_MS}. */
  readonly timeoutMs?: number;
  /** Writes an `approval` record (the audit log's `append`); a failure denies the call. */
  readonly audit?: (entry: AuditEntry) => Promise<void>;
  /**
   * Reasons to ask even without a policy `ask` (the config's `consent.ask` list), or
   * undefined. Recorded as an `ask` decision of `consent` itself.
   */
  readonly alwaysAsk?: (ctx: InterceptContext) => readonly string[] | undefined;
  /** The clock (tests). Default `Date.now`. */
  readonly now?: () => number;
  /** Request and grant ids. Default `crypto.randomUUID`. */
  readonly newId?: () => string;
}

const NO_ASKS: readonly Decision[] = Object.freeze([]);

/** The `ask` decisions of a request, in order (a shared empty list for the many that have none). */
function asksOf(decisions: readonly Decision[]): readonly Decision[] {
  for (const d of decisions) if (d.outcome === 'ask') return decisions.filter((e) => e.outcome === 'ask');
  return NO_ASKS;
}

/** The consent interceptor; see the module description. */
export function consentInterceptor(options: ConsentInterceptorOptions): Interceptor {
  const grants = options.grants ?? new MemoryGrantStore();
  const now = options.now ?? Date.now;
  const newId = options.newId ?? (() => crypto.randomUUID());
  const timeoutMs = options.timeoutMs ?? DEFAULT_CONSENT_TIMEOUT_MS;
  return {
    id: CONSENT_INTERCEPTOR_ID,
    phase: 'consent',
    // Not `async`: a call nothing asks about (most) passes straight on, with no promise of its own.
    intercept(ctx, next) {
      let asks: readonly Decision[];
      try {
        const extra = options.alwaysAsk?.(ctx);
        if (extra !== undefined && extra.length > 0) ctx.record({ interceptor: CONSENT_INTERCEPTOR_ID, outcome: 'ask', reason: extra.join('; '), detail: { rule: 'consent.ask', reasons: [...extra] } });
        asks = asksOf(ctx.decisions);
      } catch (error) {
        return Promise.reject(error);
      }
      if (asks.length === 0) return next();
      return decide(ctx, next, asks);
    },
  };

  async function decide(ctx: InterceptContext, next: () => Promise<unknown>, asks: readonly Decision[]): Promise<unknown> {
    const request = requestOf(ctx, asks, options.identityOf, newId(), now(), timeoutMs);
    const call = { binding: request.binding, arguments: request.arguments, principal: request.principal, session: request.session };
    const grant = findGrant(await listGrants(grants, now()), call, now());
    if (grant !== undefined) {
      ctx.record({ interceptor: CONSENT_INTERCEPTOR_ID, outcome: 'allow', reason: `covered by approval ${grant.id} of ${grant.approver}`, detail: { approval: grant.id, mediated: grant.mediated, scope: grant.scope, kept: true } });
      return next();
    }
    const started = now();
    const answer = await race(options.providers, request, ctx, timeoutMs);
    // The agent's own client may approve this one call, never more.
    const scope: GrantScope = answer.approved ? (answer.mediated === 'client' ? ONCE : answer.scope) : ONCE;
    let problem: string | undefined;
    if (answer.approved) {
      try {
        checkScope(scope, request, now());
      } catch (error) {
        problem = describeError(error);
      }
    }
    const approved = answer.approved && problem === undefined;
    // How long the call waited for a person: latency charts leave it out (it is not the server's time).
    const waitedMs = Math.max(0, now() - started);
    const decision: Decision = approved
      ? { interceptor: CONSENT_INTERCEPTOR_ID, outcome: 'allow', reason: `approved by ${answer.approver}`, detail: { approval: request.id, mediated: answer.mediated, scope, approver: answer.approver, waitedMs } }
      : {
          interceptor: CONSENT_INTERCEPTOR_ID,
          outcome: 'deny',
          reason: problem ?? (answer.approved ? 'approval refused' : answer.reason),
          detail: { approval: request.id, mediated: answer.mediated, approver: answer.approver, waitedMs },
        };
    if (options.audit !== undefined) {
      try {
        await options.audit(approvalEntry(request, decision, started, now()));
      } catch (error) {
        throw new DeniedError(CONSENT_INTERCEPTOR_ID, `the answer could not be audited (${describeError(error)}); the call is denied`);
      }
    }
    ctx.record(decision);
    if (!approved) {
      const why = problem ?? (answer.approved ? 'approval refused' : answer.reason);
      throw new DeniedError(CONSENT_INTERCEPTOR_ID, `${answer.approver} did not approve ${request.tool} on server ${request.server.id}: ${why}`);
    }
    const kept = grantOf(newId(), request, scope, answer.approver, answer.mediated, now());
    if (kept !== undefined) {
      try {
        await grants.add(kept);
      } catch (error) {
        // The call itself was approved; only the widening is lost (later calls ask again).
        ctx.record({ interceptor: CONSENT_INTERCEPTOR_ID, outcome: 'observe', reason: `the widened approval could not be kept (${describeError(error)})` });
      }
    }
    return next();
  }
}

/** What the request shows and is bound to. Denies when the server or its identity is unknown. */
function requestOf(
  ctx: InterceptContext,
  asks: readonly Decision[],
  identityOf: (serverId: string) => string | undefined,
  id: string,
  now: number,
  timeoutMs: number,
): ConsentRequest {
  if (ctx.server === undefined) throw new DeniedError(CONSENT_INTERCEPTOR_ID, `${ctx.method} needs a person's consent, but it names no server to ask about; denied`);
  const identity = identityOf(ctx.server.id);
  if (identity === undefined) throw new DeniedError(CONSENT_INTERCEPTOR_ID, `the identity of server ${ctx.server.id} is unknown, so no approval can be bound to it; denied`);
  const tool = itemName(ctx);
  const args = argumentsOf(ctx);
  const binding: CallBinding = {
    serverIdentity: identity,
    tool,
    definitionDigest: ctx.definition === undefined ? 'none' : digestOf(ctx.definition),
    argumentsDigest: digestOf(args),
  };
  const info = ctx.server.info;
  return Object.freeze({
    id,
    createdAt: new Date(now).toISOString(),
    expiresAt: new Date(now + timeoutMs).toISOString(),
    method: ctx.method,
    ...(ctx.serverMethod !== undefined ? { serverMethod: ctx.serverMethod } : {}),
    server: { id: ctx.server.id, identity, ...(info !== undefined ? { name: info.name, version: info.version } : {}) },
    ...(ctx.exposedName !== undefined ? { exposedName: ctx.exposedName } : {}),
    tool,
    arguments: args,
    reasons: reasonsOf(asks),
    ...(ctx.principal !== undefined ? { principal: ctx.principal.id } : {}),
    ...(ctx.session !== undefined ? { session: ctx.session } : {}),
    binding,
  });
}

/** The reasons of the `ask` decisions: their `detail.reasons`, or their `reason`. */
export function reasonsOf(asks: readonly Decision[]): string[] {
  const out: string[] = [];
  for (const d of asks) {
    const listed = d.detail?.['reasons'];
    if (Array.isArray(listed) && listed.length > 0) out.push(...listed.map(String));
    else if (d.reason !== undefined) out.push(d.reason);
    else out.push(`${d.interceptor} asks for consent`);
  }
  return out;
}

function itemName(ctx: InterceptContext): string {
  if (ctx.method === 'server/request') return ctx.serverMethod ?? 'server/request';
  const name = ctx.params['name'] ?? ctx.params['uri'] ?? ctx.exposedName;
  return typeof name === 'string' ? name : ctx.method;
}

function argumentsOf(ctx: InterceptContext): unknown {
  switch (ctx.method) {
    case 'tools/call':
    case 'prompts/get':
      return ctx.params['arguments'] ?? {};
    case 'resources/read':
      return { uri: ctx.params['uri'] };
    default:
      return ctx.params;
  }
}

async function listGrants(store: ConsentGrantStore, now: number): Promise<readonly ConsentGrant[]> {
  try {
    return await store.list(now);
  } catch {
    // An unreadable grant store covers nothing: the person is asked.
    return [];
  }
}

/** Asks every available provider; the first answer wins. Every failure is a {@link DeniedError}. */
async function race(providers: readonly ConsentProvider[], request: ConsentRequest, ctx: InterceptContext, timeoutMs: number): Promise<ConsentAnswer> {
  const controller = new AbortController();
  const env = { signal: controller.signal, ...(ctx.elicit !== undefined ? { elicit: ctx.elicit } : {}) };
  const available = providers.filter((p) => p.available(request, env));
  if (available.length === 0) {
    const names = providers.map((p) => p.name).join(', ') || 'none';
    throw new DeniedError(CONSENT_INTERCEPTOR_ID, `this call needs a person's consent and no consent provider can ask anyone now (configured: ${names}); denied`);
  }
  let timer: ReturnType<typeof setTimeout> | undefined;
  let onCancel: (() => void) | undefined;
  const stops = new Promise<never>((_, reject) => {
    timer = setTimeout(() => reject(new DeniedError(CONSENT_INTERCEPTOR_ID, `nobody answered the consent request ${request.id} within ${Math.round(timeoutMs / 1000)} s; denied`)), timeoutMs);
    onCancel = () => reject(new DeniedError(CONSENT_INTERCEPTOR_ID, 'the call was cancelled while it waited for consent'));
    if (ctx.signal.aborted) onCancel();
    else ctx.signal.addEventListener('abort', onCancel, { once: true });
  });
  const asked = available.map((p) =>
    Promise.resolve()
      .then(() => p.ask(request, env))
      .catch((error: unknown) => {
        if (controller.signal.aborted) throw error;
        throw new DeniedError(CONSENT_INTERCEPTOR_ID, `the ${p.name} consent provider failed (${describeError(error)}); denied`);
      }),
  );
  try {
    return await Promise.race([...asked, stops]);
  } finally {
    clearTimeout(timer);
    if (onCancel !== undefined) ctx.signal.removeEventListener('abort', onCancel);
    controller.abort(new Error('consent settled'));
  }
}

/** The `approval` audit record of one answer. */
function approvalEntry(request: ConsentRequest, decision: Decision, started: number, ended: number): AuditEntry {
  return {
    time: new Date(ended).toISOString(),
    kind: 'approval',
    method: request.method,
    ...(request.serverMethod !== undefined ? { serverMethod: request.serverMethod } : {}),
    ...(request.principal !== undefined ? { principal: request.principal } : {}),
    ...(request.session !== undefined ? { session: request.session } : {}),
    server: request.server.id,
    name: request.exposedName ?? request.tool,
    arguments: request.arguments,
    decisions: [decision],
    outcome: decision.outcome === 'allow' ? 'ok' : 'denied',
    ...(decision.outcome === 'allow' ? {} : { error: decision.reason ?? 'denied' }),
    latencyMs: ended - started,
  };
}
