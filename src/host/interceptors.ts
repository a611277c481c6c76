/**
 * The host's interceptor chain: every list, call, read, get and complete an upstream client
 * sends, and every request a downstream server sends back (elicitation, sampling, roots),
 * passes `(ctx, next)` interceptors before it is routed. An interceptor can observe, change
 * (`ctx.params`), deny (throw {@link DeniedError}) or ask (`ctx.elicit`), and each has an id
 * that the decisions it records carry.
 *
 * The order is fixed by phase, then by registration within a phase:
 *
 * | phase | for | runs |
 * |---|---|---|
 * | `audit` | the tamper-evident log | first in, last out: it sees every outcome, denials included |
 * | `trust` | pinned and signed definitions, the poisoning scanner | before anything trusts a definition |
 * | `policy` | trifecta taint, rules | on trusted definitions |
 * | `consent` | asking the person, bound to the exact call | after policy allowed it to be asked |
 * | `guard` | argument and result guards, rewriting | last before the server, first on the result |
 *
 * This is the seam the trust, policy, consent, guard and audit layers plug into without
 * touching routing.
 *
 * @module
 */
import type { Principal } from '../transport/principal.js';
import type { ElicitParams, ElicitResult } from '../protocol/model/elicitation.js';
import type { Implementation } from '../protocol/model/common.js';
import type { CallToolResult } from '../protocol/model/tools.js';
import type { GetPromptResult } from '../protocol/model/prompts.js';
import type { ReadResourceResult } from '../protocol/model/resources.js';
import type { ExposedPrompt, ExposedResource, ExposedTemplate, ExposedTool } from './exposed.js';
import { McpError, McpErrorCode } from '../util/errors.js';
import { signalOf, type AbortLike } from '../util/lazyAbort.js';

/** The phases, in the order they run. */
export const INTERCEPTOR_PHASES = ['audit', 'trust', 'policy', 'consent', 'guard'] as const;
/** One of {@link INTERCEPTOR_PHASES}. */
export type InterceptorPhase = (typeof INTERCEPTOR_PHASES)[number];

/**
 * What passes the chain: the upstream methods, `server/request` for a downstream server's
 * questions, and the tasks extension's `tasks/get|update|cancel` about a task a `tools/call`
 * created (routed to the server that owns it, `exposedName` = that tool; see `gatewayTasks.ts`).
 */
export type InterceptedMethod = RoutedMethod | RecordedMethod;

/** The methods the chain decides in full: lists, uses of an item, task requests, a server's questions. */
export type RoutedMethod =
  | 'tools/list'
  | 'tools/call'
  | 'tasks/get'
  | 'tasks/update'
  | 'tasks/cancel'
  | 'prompts/list'
  | 'prompts/get'
  | 'resources/list'
  | 'resources/templates/list'
  | 'resources/read'
  | 'resources/subscribe'
  | 'completion/complete'
  | 'server/request';

/**
 * The upstream requests no server is routed for (the session's own: `initialize`, `ping`,
 * `logging/setLevel`, discovery, listen streams, task listings). They pass the `audit` phase
 * only ({@link InterceptorChain.record}): every request leaves a record, and nothing else
 * has anything to decide on them.
 */
export type RecordedMethod = 'initialize' | 'ping' | 'logging/setLevel' | 'server/discover' | 'subscriptions/listen' | 'resources/unsubscribe' | 'tasks/list' | 'tasks/result';

/** The methods that pass the `audit` phase only (see {@link RecordedMethod}). */
export const RECORDED_METHODS: ReadonlySet<string> = new Set<RecordedMethod>(['initialize', 'ping', 'logging/setLevel', 'server/discover', 'subscriptions/listen', 'resources/unsubscribe', 'tasks/list', 'tasks/result']);

/** A decision an interceptor recorded. */
export interface Decision {
  /** The interceptor's id. */
  readonly interceptor: string;
  readonly outcome: 'allow' | 'deny' | 'ask' | 'change' | 'observe';
  readonly reason?: string;
  readonly detail?: Readonly<Record<string, unknown>>;
}

/**
 * The server a request is routed to, as the chain sees it: its configured id and what it said
 * it is. Not its stable identity (what pins and consent grants are keyed by: `serverIdentity`
 * in `pins/serverIdentity.ts`).
 */
export interface RoutedServer {
  /** The configured id. */
  readonly id: string;
  /** What it said it is (`serverInfo`), when connected. */
  readonly info?: Implementation;
}

/** One request on its way through the chain. */
export interface InterceptContext {
  readonly method: InterceptedMethod;
  /** For `server/request`: the downstream method (`elicitation/create`, `sampling/createMessage`, `roots/list`). */
  readonly serverMethod?: string | undefined;
  /** The upstream caller, when authenticated (behind an OAuth gateway `auth` holds the verified claims). */
  readonly principal: Principal | undefined;
  /** The upstream session (a stateful session id, or undefined on the stateless era). */
  readonly session: string | undefined;
  /**
   * On 2026-07-28 (no protocol session): the conversation id the client carried in
   * `_meta["io.switchboard/conversation"]`, if any (policy keys taint by it; see `policy/taint.ts`).
   */
  readonly conversation?: string | undefined;
  /** The target server (undefined for aggregated lists). */
  readonly server: RoutedServer | undefined;
  /** The exposed name or URI the upstream used (calls, gets, reads). */
  readonly exposedName?: string | undefined;
  /** The definition as the server sent it (and as trust pinned it). */
  readonly definition?: Readonly<Record<string, unknown>> | undefined;
  /**
   * The request's params as they will reach the server (`arguments` for calls, with the
   * server's own name or URI). Interceptors may replace members; record a `change` decision.
   */
  params: Record<string, unknown>;
  /** Decisions recorded so far, in order. */
  readonly decisions: Decision[];
  /** Aborted when the upstream request is cancelled. */
  readonly signal: AbortSignal;
  /** Records a decision of interceptor `id`. */
  record(decision: Decision): void;
  /** Asks the upstream user (consent); absent where nobody can be asked. */
  readonly elicit?: ((params: ElicitParams) => Promise<ElicitResult>) | undefined;
}

/** The rest of the chain, ending in routing. */
export type Next = () => Promise<unknown>;

/**
 * Each method's params (as they reach the server) and result (as `next()` resolves: the
 * server's own result, or the host's list), for interceptors written for one method or a few
 * (see {@link methodInterceptor}). Lists resolve with the host's exposed entries; a server's
 * question with its answer; the session's own requests with whatever the server layer answers.
 */
export interface InterceptedTypes {
  'tools/list': { params: Record<string, unknown>; result: readonly ExposedTool[] };
  'tools/call': { params: { name: string; arguments?: Record<string, unknown> }; result: CallToolResult };
  'prompts/list': { params: Record<string, unknown>; result: readonly ExposedPrompt[] };
  'prompts/get': { params: { name: string; arguments?: Record<string, string> }; result: GetPromptResult };
  'resources/list': { params: Record<string, unknown>; result: readonly ExposedResource[] };
  'resources/templates/list': { params: Record<string, unknown>; result: readonly ExposedTemplate[] };
  'resources/read': { params: { uri: string }; result: ReadResourceResult };
  'resources/subscribe': { params: { uri: string }; result: void };
  'completion/complete': { params: { ref: Record<string, unknown>; argument?: { name: string; value: string } }; result: Record<string, unknown> };
  'tasks/get': { params: { taskId: string }; result: Record<string, unknown> };
  'tasks/update': { params: { taskId: string; inputResponses?: Record<string, unknown> }; result: Record<string, unknown> };
  'tasks/cancel': { params: { taskId: string }; result: Record<string, unknown> };
  'server/request': { params: Record<string, unknown>; result: unknown };
  initialize: { params: Record<string, unknown>; result: unknown };
  ping: { params: Record<string, unknown>; result: unknown };
  'logging/setLevel': { params: Record<string, unknown>; result: unknown };
  'server/discover': { params: Record<string, unknown>; result: unknown };
  'subscriptions/listen': { params: Record<string, unknown>; result: unknown };
  'resources/unsubscribe': { params: { uri: string }; result: unknown };
  'tasks/list': { params: Record<string, unknown>; result: unknown };
  'tasks/result': { params: Record<string, unknown>; result: unknown };
}

/** The params of method `M` as interceptors see them (mutable members; other members pass through). */
export type ParamsOf<M extends InterceptedMethod> = InterceptedTypes[M]['params'] & Record<string, unknown>;
/** What `next()` resolves with for method `M`. */
export type ResultOf<M extends InterceptedMethod> = InterceptedTypes[M]['result'];

/** The context of a request of one of the methods `M`: `method` narrowed, `params` typed. */
export type MethodContext<M extends InterceptedMethod> = { [K in M]: Omit<InterceptContext, 'method' | 'params'> & { readonly method: K; params: ParamsOf<K> } }[M];

/** An interceptor written for the methods `M`: its context and `next()` carry their types. */
export interface MethodInterceptor<M extends InterceptedMethod> {
  readonly id: string;
  readonly phase: InterceptorPhase;
  readonly methods: readonly M[];
  intercept(ctx: MethodContext<M>, next: () => Promise<ResultOf<M>>): Promise<ResultOf<M>>;
  notification?: Interceptor['notification'];
}

/**
 * An {@link Interceptor} from one written for the methods `M` (the chain gives it only those,
 * so the types it sees are the ones the chain passes). The same object: no wrapper, no cost.
 */
export function methodInterceptor<M extends InterceptedMethod>(interceptor: MethodInterceptor<M>): Interceptor {
  return interceptor as unknown as Interceptor;
}

/** One interceptor. */
export interface Interceptor {
  /** Stable id, recorded with every decision (e.g. `trust.pins`, `policy.trifecta`). */
  readonly id: string;
  readonly phase: InterceptorPhase;
  /** Which methods it sees. Default: all. */
  readonly methods?: readonly InterceptedMethod[];
  /** Runs the step: call `next()` to continue (and get the result to observe or change), or throw to deny. */
  intercept(ctx: InterceptContext, next: Next): Promise<unknown>;
  /**
   * Sees a notification a downstream server sends on its way upstream (see
   * {@link InterceptorChain.notify}) and returns its params, changed or not. `ctx` is the
   * request it belongs to (progress and log messages of a call), or undefined (a log message
   * outside any call, a relayed task notification); decisions go to `ctx`. Synchronous: a
   * notification is not held back.
   */
  notification?(method: NotificationMethod, params: Record<string, unknown>, ctx: InterceptContext | undefined): Record<string, unknown>;
}

/** The server-to-client notifications that carry text and pass {@link Interceptor.notification}. */
export type NotificationMethod = 'notifications/progress' | 'notifications/message' | 'notifications/tasks';

/** An interceptor refused a request. The upstream sees `reason`, prefixed with who refused. */
export class DeniedError extends McpError {
  /** The interceptor that refused. */
  readonly interceptor: string;
  readonly reason: string;

  constructor(interceptor: string, reason: string) {
    super(McpErrorCode.Denied, `Denied by ${interceptor}: ${reason}`);
    this.interceptor = interceptor;
    this.reason = reason;
  }
}

/** An ordered, immutable chain of interceptors. */
export class InterceptorChain {
  /** The interceptors in the order they run. */
  readonly interceptors: readonly Interceptor[];
  readonly #byMethod = new Map<string, readonly Interceptor[]>();
  readonly #notified: readonly Interceptor[];

  constructor(interceptors: readonly Interceptor[] = []) {
    const ids = new Set<string>();
    for (const i of interceptors) {
      if (ids.has(i.id)) throw new McpError(McpErrorCode.InvalidArgument, `Two interceptors share the id ${JSON.stringify(i.id)}`);
      if (!INTERCEPTOR_PHASES.includes(i.phase)) throw new McpError(McpErrorCode.InvalidArgument, `Interceptor ${i.id} has an unknown phase ${JSON.stringify(i.phase)}`);
      ids.add(i.id);
    }
    const rank = (i: Interceptor): number => INTERCEPTOR_PHASES.indexOf(i.phase);
    this.interceptors = Object.freeze(
      interceptors
        .map((interceptor, index) => ({ interceptor, index }))
        .sort((a, b) => rank(a.interceptor) - rank(b.interceptor) || a.index - b.index)
        .map((e) => e.interceptor),
    );
    this.#notified = this.interceptors.filter((i) => i.notification !== undefined);
  }

  /**
   * Runs `ctx` through the interceptors that see its method, then `route`. With none, `route`
   * runs directly. `through` ends the chain after that phase: a request that cannot be routed
   * (an unknown or withheld name) passes `audit` and `trust` only, so it is recorded and the
   * trust layer names its reason, while policy, consent and guards never see it.
   */
  run<T>(ctx: InterceptContext, route: () => Promise<T>, through: InterceptorPhase = 'guard'): Promise<T> {
    const steps = this.#steps(ctx.method, through);
    if (steps.length === 0) return route();
    const at = (index: number): Promise<unknown> => {
      if (index === steps.length) return route();
      const step = steps[index] as Interceptor;
      let called = false;
      try {
        return step.intercept(ctx, () => {
          if (called) return Promise.reject(new McpError(McpErrorCode.InvalidArgument, `Interceptor ${step.id} called next() twice`));
          called = true;
          return at(index + 1);
        });
      } catch (error) {
        // An interceptor that is not `async` may throw: that is a rejection (fail closed).
        return Promise.reject(error);
      }
    };
    return at(0) as Promise<T>;
  }

  /** Whether any interceptor sees notifications (else {@link notify} is the identity and callers may skip it). */
  get seesNotifications(): boolean {
    return this.#notified.length > 0;
  }

  /**
   * Passes a server's notification through every interceptor's `notification` hook, in chain
   * order. A hook that throws suppresses it (undefined): a notification that could not be vetted
   * is not passed on (fail closed).
   */
  notify(method: NotificationMethod, params: Record<string, unknown>, ctx: InterceptContext | undefined): Record<string, unknown> | undefined {
    let out = params;
    for (const i of this.#notified) {
      try {
        out = (i.notification as NonNullable<Interceptor['notification']>)(method, out, ctx);
      } catch {
        // A notification that cannot be vetted is not passed on (fail closed).
        return undefined;
      }
    }
    return out;
  }

  #steps(method: InterceptedMethod, through: InterceptorPhase): readonly Interceptor[] {
    const key = through === 'guard' ? method : `${method}\u0000${through}`;
    let steps = this.#byMethod.get(key);
    if (steps === undefined) {
      const last = INTERCEPTOR_PHASES.indexOf(through);
      steps = this.interceptors.filter((i) => INTERCEPTOR_PHASES.indexOf(i.phase) <= last && (i.methods === undefined || i.methods.includes(method)));
      this.#byMethod.set(key, steps);
    }
    return steps;
  }
}

/**
 * An {@link InterceptContext} of one fixed shape: every member present (undefined where
 * absent), always in the same order, so the interceptors' loads of its members stay
 * monomorphic across methods and callers, and building one adds no property transitions.
 */
class Context implements InterceptContext {
  readonly method: InterceptedMethod;
  readonly serverMethod: string | undefined;
  readonly principal: Principal | undefined;
  readonly session: string | undefined;
  readonly conversation: string | undefined;
  readonly server: RoutedServer | undefined;
  readonly exposedName: string | undefined;
  readonly definition: Readonly<Record<string, unknown>> | undefined;
  params: Record<string, unknown>;
  readonly decisions: Decision[] = [];
  readonly elicit: ((params: ElicitParams) => Promise<ElicitResult>) | undefined;
  /** The request's abort state: a lazy one makes its signal only when an interceptor reads it. */
  readonly #abort: AbortLike;

  constructor(init: InterceptContextInit) {
    this.method = init.method;
    this.serverMethod = init.serverMethod;
    this.principal = init.principal;
    this.session = init.session;
    this.conversation = init.conversation;
    this.server = init.server;
    this.exposedName = init.exposedName;
    this.definition = init.definition;
    this.params = init.params;
    this.#abort = init.signal;
    this.elicit = init.elicit;
  }

  get signal(): AbortSignal {
    return signalOf(this.#abort);
  }

  record(decision: Decision): void {
    // A frozen decision is kept as it is: the policy's default allow is one object recorded on
    // every call, and its identity lets the audit log and the redactor remember their work on it.
    this.decisions.push(Object.isFrozen(decision) ? decision : Object.freeze({ ...decision }));
  }
}

/**
 * What {@link interceptContext} is built from: the context's members but `decisions` and
 * `record`, with `signal` an `AbortSignal` or a `LazyAbort` (whose signal is then made only if
 * an interceptor reads `signal`).
 */
export type InterceptContextInit = Omit<InterceptContext, 'decisions' | 'record' | 'signal'> & { readonly signal: AbortLike };

/** Builds an {@link InterceptContext}; `record` appends to `decisions`. */
export function interceptContext(init: InterceptContextInit): InterceptContext {
  return new Context(init);
}
