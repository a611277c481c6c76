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

/**
 * Runs a handler that may ask the client for input (see the module comment).
 */
export async function withInput(core: ServerCore, call: Call, run: (context: HandlerContext) => Promise<Record<string, unknown>>): Promise<Record<string, unknown>> {
  if (!isStateless(call.revision)) {
    const broker = call.env.peer === undefined ? undefined : new PeerInputBroker(call.env.peer, call.caps);
    return run(contextFor(call, broker, 1, undefined));
  }
  let binding: StateBinding | undefined;
  const bind = async (): Promise<StateBinding> => (binding ??= await bindingOf(call));
  let answers: Record<string, unknown> = {};
  let round = 1;
  let state: unknown;
  const token = call.params['requestState'];
  if (typeof token === 'string') {
    const opened = await (await core.sealer()).open(token, await bind());
    if (!opened.ok) {
      throw new JsonRpcError(ErrorCode.InvalidParams, `Invalid params: requestState was rejected (${opened.reason})`, { reason: opened.reason });
    }
    answers = { ...opened.content.answers };
    round = opened.content.round + 1;
    state = opened.content.data;
  }
  const responses = call.params['inputResponses'];
  if (isObject(responses)) Object.assign(answers, responses);
  const broker = new StatelessInputBroker(answers, call.caps);
  const context = contextFor(call, broker, round, state);
  try {
    return await run(context);
  } catch (error) {
    if (!(error instanceof InputRequiredError)) throw error;
    const sealed = await (await core.sealer()).seal(await bind(), {
      answers: broker.used,
      round,
      ...(context.nextState !== undefined ? { data: context.nextState } : {}),
      ...(context.singleUse ? { singleUse: true } : {}),
    });
    return { resultType: 'input_required', inputRequests: error.requests, requestState: sealed };
  }
}
