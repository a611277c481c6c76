/**
 * Handler contexts for a prepared request, and running a handler that may ask the client for
 * input: on 2026-07-28 (MRTR) the server opens the returned `requestState`, answers from it and
 * `inputResponses`, and turns an unanswered question into an `InputRequiredResult` with a
 * freshly sealed state; on the stateful revisions the questions go to the peer as requests.
 *
 * @see https://modelcontextprotocol.io/specification/2026-07-28/basic/patterns/mrtr
 * @module
 */
import { ErrorCode, JsonRpcError } from '../jsonrpc/errors.js';
import { loggingLevels, type LoggingLevel } from '../protocol/model/common.js';
import { isStateless } from '../protocol/revisions.js';
import { InputRequiredError, PeerInputBroker, RequestContext, StatelessInputBroker, type InputBroker } from './context.js';
import type { ServerCore } from './core.js';
import { isObject, readTrace, type Call } from './pipeline.js';
import { digestParams, type StateBinding } from './requestState.js';
import type { InputRequest } from '../protocol/model/mrtr.js';
import type { HandlerContext } from './types.js';

/** The handler context of `call` for MRTR round `round` (with the handler's carried `state`). */
export function contextFor(call: Call, broker: InputBroker | undefined, round: number, state: unknown): RequestContext {
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

/** The binding of a `requestState` issued for (or returned with) `call`. */
export async function bindingOf(call: Call): Promise<StateBinding> {
  return { method: call.method, digest: await digestParams(call.params), principal: call.principal?.id ?? '' };
}

/** Runs one round of a handler: `params` are the request params as this round sees them. */
export type RoundRunner = (context: HandlerContext, params: Readonly<Record<string, unknown>>) => Promise<Record<string, unknown>>;

/** Rounds of server-fulfilled input (stateful revisions) before a handler's `InputRequiredResult` is refused. */
export const MAX_INPUT_ROUNDS = 8;

function isInputRequired(result: Record<string, unknown>): boolean {
  return result['resultType'] === 'input_required';
}

/** What the server seals for a handler that answered with its own `InputRequiredResult`. */
interface ForwardedState {
  readonly forwarded: true;
  readonly requestState?: string;
  /** The input keys the handler asked for: answers under other keys are dropped. */
  readonly asked: readonly string[];
}

function isForwardedState(value: unknown): value is ForwardedState {
  return isObject(value) && value['forwarded'] === true && Array.isArray(value['asked']);
}

/** The params a handler sees on a retry after its own `InputRequiredResult`: state unsealed, unasked answers dropped. */
function retryParams(params: Readonly<Record<string, unknown>>, state: ForwardedState | undefined): Readonly<Record<string, unknown>> {
  const { requestState: _sealed, inputResponses, ...rest } = params;
  const out: Record<string, unknown> = rest;
  if (state?.requestState !== undefined) out['requestState'] = state.requestState;
  if (isObject(inputResponses)) {
    const asked = new Set(state?.asked ?? []);
    const kept = Object.fromEntries(Object.entries(inputResponses).filter(([key]) => asked.has(key)));
    if (Object.keys(kept).length > 0) out['inputResponses'] = kept;
  }
  return out;
}

/**
 * Runs a handler that may ask the client for input (see the module comment). A handler may
 * also answer with its own `InputRequiredResult`: on 2026-07-28 it goes to the client with
 * its `requestState` sealed (bound like the server's own) and the handler sees it unsealed,
 * with the answers to the keys it asked, on the retry; on the stateful revisions the server
 * sends each input request to the client and calls the handler again with `inputResponses`
 * and `requestState` in params, for at most {@link MAX_INPUT_ROUNDS} rounds.
 */
export function withInput(core: ServerCore, call: Call, run: RoundRunner): Promise<Record<string, unknown>> {
  if (!isStateless(call.revision)) return peerRounds(call, run);
  // Not `async`: most calls carry no `requestState` and complete at once, so the round runs at
  // once and costs the handler's promise and one `then` (a forwarding gateway pays every
  // promise per call); sealing, when the handler asks something, is async.
  const token = call.params['requestState'];
  if (typeof token === 'string') return openedRound(core, call, run, token);
  return statelessRound(core, call, run, {}, 1, undefined, false);
}

/** The stateful revisions: each question goes to the peer as a request, then the handler runs again. */
async function peerRounds(call: Call, run: RoundRunner): Promise<Record<string, unknown>> {
  const peer = call.env.peer;
  const broker = peer === undefined ? undefined : new PeerInputBroker(peer, call.caps);
  const context = contextFor(call, broker, 1, undefined);
  let params: Readonly<Record<string, unknown>> = call.params;
  for (let round = 1; ; round++) {
    const result = await run(context, params);
    if (!isInputRequired(result)) return result;
    if (broker === undefined || round >= MAX_INPUT_ROUNDS) throw JsonRpcError.internal(`the handler still needed input after ${round} rounds`);
    if (context.signal.aborted) throw JsonRpcError.internal('the request was cancelled');
    const requests = (result['inputRequests'] ?? {}) as Record<string, InputRequest>;
    const answers = await broker.ask(requests, context.signal);
    const { inputResponses: _r, requestState: _s, ...base } = call.params;
    const next: Record<string, unknown> = { ...base, inputResponses: answers };
    if (typeof result['requestState'] === 'string') next['requestState'] = result['requestState'];
    params = next;
  }
}

/** A retry carrying `requestState`: opened (bound to the request), then the round runs with its answers. */
async function openedRound(core: ServerCore, call: Call, run: RoundRunner, token: string): Promise<Record<string, unknown>> {
  const sealer = await core.sealer();
  const binding = await bindingOf(call);
  const opened = await sealer.open(token, binding);
  if (!opened.ok) {
    throw new JsonRpcError(ErrorCode.InvalidParams, `Invalid params: requestState was rejected (${opened.reason})`, { reason: opened.reason });
  }
  return statelessRound(core, call, run, { ...opened.content.answers }, opened.content.round + 1, opened.content.data, true, binding);
}

/**
 * One 2026-07-28 round: the handler runs with the answers so far; a question it asks (or its
 * own `InputRequiredResult`) goes back with a freshly sealed `requestState`.
 */
function statelessRound(
  core: ServerCore,
  call: Call,
  run: RoundRunner,
  answers: Record<string, unknown>,
  round: number,
  state: unknown,
  retried: boolean,
  binding?: StateBinding,
): Promise<Record<string, unknown>> {
  const responses = call.params['inputResponses'];
  if (isObject(responses)) Object.assign(answers, responses);
  const forwarded = isForwardedState(state) ? state : undefined;
  const broker = new StatelessInputBroker(forwarded === undefined ? answers : {}, call.caps);
  const context = contextFor(call, broker, round, forwarded === undefined ? state : undefined);
  const bind = async (): Promise<StateBinding> => (binding ??= await bindingOf(call));
  let running: Promise<Record<string, unknown>>;
  try {
    running = run(context, retried || isObject(responses) ? retryParams(call.params, forwarded) : call.params);
  } catch (error) {
    running = Promise.reject(error);
  }
  return running.then(
    async (result) => {
      if (!isInputRequired(result)) return result;
      const inputRequests = result['inputRequests'];
      const inner = result['requestState'];
      const sealedState: ForwardedState = {
        forwarded: true,
        asked: isObject(inputRequests) ? Object.keys(inputRequests) : [],
        ...(typeof inner === 'string' ? { requestState: inner } : {}),
      };
      const sealed = await (await core.sealer()).seal(await bind(), { answers: {}, round, data: sealedState });
      return { ...result, requestState: sealed };
    },
    async (error: unknown) => {
      if (!(error instanceof InputRequiredError)) throw error;
      const sealed = await (await core.sealer()).seal(await bind(), {
        answers: broker.used,
        round,
        ...(context.nextState !== undefined ? { data: context.nextState } : {}),
        ...(context.singleUse ? { singleUse: true } : {}),
      });
      return { resultType: 'input_required', inputRequests: error.requests, requestState: sealed };
    },
  );
}
