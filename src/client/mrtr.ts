/**
 * The client half of MRTR (multi round-trip requests, 2026-07-28). When `tools/call`,
 * `prompts/get` or `resources/read` answers `resultType: "input_required"`, the client
 * answers every embedded input request with its handlers and retries: a new JSON-RPC request
 * (new id) with the original params plus `inputResponses` (keyed as asked) and the
 * `requestState` echoed byte for byte (omitted when none was given). Rounds are bounded.
 *
 * The retry fields never leak elsewhere: each retry is built from the caller's original
 * params, and only the latest round's answers and state are sent.
 *
 * @see https://modelcontextprotocol.io/specification/2026-07-28/basic/patterns/mrtr
 * @module
 */
import type { Params, RequestId } from '../jsonrpc/messages.js';
import type { ResultType } from '../protocol/model/common.js';
import type { ProtocolRevision } from '../protocol/revisions.js';
import { McpError, McpErrorCode } from '../util/errors.js';
import { abortReasonOf, signalOf, type AbortLike } from '../util/lazyAbort.js';
import { answer } from './inputs.js';
import type { ClientHandlers } from './types.js';
import type { ClientCapabilities } from '../protocol/model/capabilities.js';

/** One decoded answer of the server. */
export interface RoundResult {
  readonly value: Record<string, unknown>;
  readonly resultType: ResultType;
  /** The JSON-RPC id of the round's request (the related request of its input requests). */
  readonly requestId?: RequestId;
}

/** What the MRTR loop needs. */
export interface MrtrDeps {
  readonly handlers: ClientHandlers;
  readonly capabilities: ClientCapabilities;
  readonly revision: ProtocolRevision;
  readonly maxRounds: number;
  /** Sends one round (a fresh JSON-RPC request) and decodes the answer. */
  send(params: Params): Promise<RoundResult>;
}

/** The final answer and how many input rounds it took (0: answered at once). */
export interface MrtrOutcome {
  readonly value: Record<string, unknown>;
  readonly rounds: number;
}

/**
 * The retry fields a caller continuing a manual round gave (`inputResponses`, and
 * `requestState` exactly as received), or undefined when it gave none.
 */
export function retryFields(options: { readonly inputResponses?: Readonly<Record<string, unknown>> | undefined; readonly requestState?: string | undefined }): Params | undefined {
  if (options.inputResponses === undefined && options.requestState === undefined) return undefined;
  const fields: Params = {};
  if (options.inputResponses !== undefined) fields['inputResponses'] = options.inputResponses;
  if (options.requestState !== undefined) fields['requestState'] = options.requestState;
  return fields;
}

/**
 * Runs `method` with `params` to a complete result, answering input requests on the way.
 * `first` holds the retry fields of the first round (a caller continuing a manual round);
 * later rounds are built from `params` alone plus that round's answers.
 */
export async function runWithInput(method: string, params: Params, deps: MrtrDeps, signal: AbortLike | undefined, first?: Params): Promise<MrtrOutcome> {
  let retry: Params | undefined = first;
  for (let round = 0; ; round++) {
    const { value, resultType, requestId } = await deps.send(retry === undefined ? params : { ...params, ...retry });
    if (resultType !== 'input_required') return { value, rounds: round };
    if (round >= deps.maxRounds) {
      throw new McpError(McpErrorCode.LimitExceeded, `${method} still asked for input after ${deps.maxRounds} rounds`, { cause: value });
    }
    const requests = value['inputRequests'] as Record<string, { method: string; params?: unknown }> | undefined;
    const next: Params = {};
    if (requests !== undefined) {
      const responses: Record<string, unknown> = {};
      for (const [key, request] of Object.entries(requests)) {
        if (signal?.aborted === true) throw new McpError(McpErrorCode.RequestCancelled, `Request ${method} was cancelled`, { cause: abortReasonOf(signal) });
        responses[key] = await answer(
          deps.handlers,
          deps.capabilities,
          { method: request.method, params: request.params ?? {} },
          {
            signal: signal === undefined ? new AbortController().signal : signalOf(signal),
            protocolVersion: deps.revision,
            via: 'mrtr',
            key,
            method,
            ...(requestId !== undefined ? { relatedRequestId: requestId } : {}),
          },
          (message) => new McpError(McpErrorCode.InvalidResponse, `Invalid input request ${JSON.stringify(key)}: ${message}`, { cause: value }),
        );
      }
      next['inputResponses'] = responses;
    }
    // Opaque: echoed exactly as received, never parsed or modified.
    if (value['requestState'] !== undefined) next['requestState'] = value['requestState'];
    if (signal?.aborted === true) throw new McpError(McpErrorCode.RequestCancelled, `Request ${method} was cancelled`, { cause: abortReasonOf(signal) });
    retry = next;
  }
}
