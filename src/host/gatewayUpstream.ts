/**
 * The upstream side of a request through the gateway: the host's scope of it (principal,
 * session, conversation, signal), the driver a pending call uses to reach its upstream
 * request (progress, log, questions), the era bridge's attempt made of a downstream result,
 * and how a local failure reaches the upstream (a tool error the model can act on, or a
 * JSON-RPC error).
 *
 * @module
 */
import type { CallOptions } from '../client/types.js';
import { ErrorCode, JsonRpcError } from '../jsonrpc/errors.js';
import type { ClientCapabilities } from '../protocol/model/capabilities.js';
import type { LoggingMessageParams } from '../protocol/model/utilities.js';
import type { Progress } from '../jsonrpc/connection.js';
import type { InputRequest } from '../protocol/model/mrtr.js';
import type { ServerSession } from '../server/session.js';
import type { HandlerContext } from '../server/types.js';
import type { Principal } from '../transport/principal.js';
import { isMcpError, McpErrorCode } from '../util/errors.js';
import type { AbortLike } from '../util/lazyAbort.js';
import type { Attempt, Driver, LaunchRound as Round } from './bridge.js';
import type { HostCallOptions, RouteOptions } from './host.js';
import { DeniedError } from './interceptors.js';
import { CONVERSATION_META_KEY } from './policy/taint.js';

/** The client capability each question a server can ask needs. */
export const CAPABILITY: Readonly<Record<string, keyof ClientCapabilities>> = {
  'elicitation/create': 'elicitation',
  'sampling/createMessage': 'sampling',
  'roots/list': 'roots',
};

/**
 * The client options of a forwarded attempt. Progress and log messages go through `o` (the
 * host's, which pass the chain's notification hooks: the sanitiser sees them), never straight
 * from `round` to the upstream.
 */
export function manual(o: RouteOptions, round: Round): CallOptions & { input: 'manual' } {
  // Built by assignment, not conditional spreads: this runs for every forwarded call.
  const options: { -readonly [K in keyof CallOptions]: CallOptions[K] } & { input: 'manual' } = { signal: o.signal, timeoutMs: o.timeoutMs, handlers: round.handlers, input: 'manual' };
  if (o.onProgress !== undefined) options.onProgress = o.onProgress;
  if (o.onLog !== undefined) options.onLog = o.onLog;
  if (o.capabilities !== undefined) options.capabilities = o.capabilities;
  if (round.inputResponses !== undefined) options.inputResponses = round.inputResponses;
  if (round.requestState !== undefined) options.requestState = round.requestState;
  return options;
}

/** The capabilities the upstream lacks to answer `requests` (a downstream 2026-07-28 server asked the host's client, which declares them all). */
export function missingCapabilities(requests: Readonly<Record<string, InputRequest>>, caps: ClientCapabilities): ClientCapabilities | undefined {
  const missing: Record<string, object> = {};
  for (const request of Object.values(requests)) {
    const capability = CAPABILITY[request.method];
    if (capability !== undefined && caps[capability] === undefined) missing[capability] = {};
  }
  return Object.keys(missing).length === 0 ? undefined : (missing as ClientCapabilities);
}

export function attempt(result: Record<string, unknown>): Attempt {
  if (result['resultType'] === 'input_required') {
    return {
      kind: 'input',
      inputRequests: (result['inputRequests'] ?? {}) as Record<string, InputRequest>,
      requestState: typeof result['requestState'] === 'string' ? result['requestState'] : undefined,
    };
  }
  return { kind: 'complete', value: result };
}

const sessionIds = new WeakMap<ServerSession, string>();

/** A stable id for an upstream stateful session (for interceptors and audit). */
export function sessionId(session: ServerSession | undefined): string | undefined {
  if (session === undefined) return undefined;
  let id = sessionIds.get(session);
  if (id === undefined) {
    id = crypto.randomUUID();
    sessionIds.set(session, id);
  }
  return id;
}

/**
 * The host's view of an upstream request. A forwarded call passes its own signal and abort (its
 * pending call's, which outlive the request across MRTR rounds); then the request's own
 * `AbortSignal` is never created.
 */
export function scopeOf(ctx: HandlerContext, own?: Round): HostCallOptions {
  const scope = scopeOfRequest(ctx.principal, ctx.session, ctx.meta, own === undefined ? ctx.signal : own.signal, ctx.clientCapabilities);
  if (ctx.clientCapabilities.elicitation !== undefined) scope.elicit = (p) => ctx.elicit(p);
  if (own !== undefined) {
    scope.abort = own.abort;
    // Relayed through the host, which puts them through the chain's notification hooks.
    if (own.onProgress !== undefined) scope.onProgress = own.onProgress;
    scope.onLog = own.onLog;
  }
  return scope;
}

/** The upstream request driving a pending call: one object per request, its methods on the prototype. */
export class UpstreamDriver implements Driver {
  readonly #ctx: HandlerContext;

  constructor(ctx: HandlerContext) {
    this.#ctx = ctx;
  }

  onAbort(listener: () => void): () => void {
    return this.#ctx.onAbort(listener);
  }

  /** Whether the upstream request carries a progress token (without one, progress goes nowhere). */
  get acceptsProgress(): boolean {
    const token = this.#ctx.meta['progressToken'];
    return typeof token === 'string' || typeof token === 'number';
  }

  progress(p: Progress): void {
    this.#ctx.progress(p.progress, p.total, p.message).catch(ignore);
  }

  log(p: LoggingMessageParams): void {
    this.#ctx.log(p.level, p.data, p.logger).catch(ignore);
  }

  canAsk(method: string): boolean {
    const capability = CAPABILITY[method];
    return capability !== undefined && this.#ctx.clientCapabilities[capability] !== undefined;
  }
}

const ignore = (): void => undefined;

/** The scope of an upstream request: who asks, in which session and conversation. */
export function scopeOfRequest(
  principal: Principal | undefined,
  session: ServerSession | undefined,
  meta: Readonly<Record<string, unknown>>,
  signal: AbortLike | undefined,
  clientCapabilities: ClientCapabilities | undefined,
): { -readonly [K in keyof HostCallOptions]: HostCallOptions[K] } {
  const scope: { -readonly [K in keyof HostCallOptions]: HostCallOptions[K] } = { principal, session: sessionId(session) };
  if (signal !== undefined) scope.signal = signal;
  if (clientCapabilities !== undefined) scope.clientCapabilities = clientCapabilities;
  const conversation = conversationOf(meta);
  if (conversation !== undefined) scope.conversation = conversation;
  return scope;
}

/** A request's `_meta` (empty when absent or malformed). */
export function metaOf(params: Readonly<Record<string, unknown>>): Readonly<Record<string, unknown>> {
  const meta = params['_meta'];
  return typeof meta === 'object' && meta !== null && !Array.isArray(meta) ? (meta as Record<string, unknown>) : {};
}

/**
 * The conversation id a client carries in `_meta["io.switchboard/conversation"]` (a string of
 * 1 to 128 characters; anything else is ignored). Policy joins the principal's taint anyway,
 * so dropping or changing it sheds nothing (see `policy/taint.ts`).
 */
export function conversationOf(meta: Readonly<Record<string, unknown>>): string | undefined {
  const value = meta[CONVERSATION_META_KEY];
  return typeof value === 'string' && value.length > 0 && value.length <= 128 ? value : undefined;
}

/** Failures a model should see as a tool result (and can act on) rather than as a protocol error. */
export function isToolLevel(error: unknown): boolean {
  if (error instanceof DeniedError) return true;
  return isMcpError(error) && (error.code === McpErrorCode.ServerUnavailable || error.code === McpErrorCode.RequestTimeout || error.code === McpErrorCode.LimitExceeded);
}

/**
 * The answer to a failed request: for a call, a failure the model can act on (a denial, an
 * unavailable server, a timeout, a limit) is a tool error result; anything else is thrown as
 * the JSON-RPC error the upstream gets.
 */
export function failedAnswer(method: string, error: unknown): Record<string, unknown> {
  if (method === 'tools/call' && isToolLevel(error)) return { content: [{ type: 'text', text: (error as Error).message }], isError: true };
  throw toWireError(error);
}

/** A local failure as the JSON-RPC error the upstream gets. */
export function toWireError(error: unknown): unknown {
  if (error instanceof JsonRpcError) return error;
  if (error instanceof DeniedError) return new JsonRpcError(ErrorCode.Denied, error.message, { interceptor: error.interceptor });
  if (isMcpError(error)) {
    if (error.code === McpErrorCode.InvalidArgument) return JsonRpcError.invalidParams(error.message);
    return new JsonRpcError(ErrorCode.InternalError, error.message);
  }
  return error;
}
