/**
 * MRTR (multi round-trip requests, 2026-07-28): instead of sending JSON-RPC requests, a server
 * answers `tools/call`, `prompts/get` or `resources/read` with an `InputRequiredResult`; the
 * client fulfils the embedded input requests and retries with `inputResponses` and the echoed
 * `requestState`.
 *
 * @see https://modelcontextprotocol.io/specification/2026-07-28/basic/patterns/mrtr
 * @module
 */

import { literal, object, optional, record, refine, string, type Infer } from '../../util/schema.js';
import { JsonObject, Meta, RequestParams, select } from './common.js';
import { ElicitParams, ElicitResult } from './elicitation.js';
import { CreateMessageParams, CreateMessageResult } from './sampling.js';
import { ListRootsResult } from './utilities.js';

/** The only methods an input request may carry. */
export const inputRequestMethods = ['elicitation/create', 'sampling/createMessage', 'roots/list'] as const;

/** An embedded elicitation request (no `jsonrpc`, no `id`). */
export const ElicitInputRequest = object({ method: literal('elicitation/create'), params: ElicitParams });
/** An embedded sampling request. */
export const CreateMessageInputRequest = object({ method: literal('sampling/createMessage'), params: CreateMessageParams });
/** An embedded roots request. */
export const ListRootsInputRequest = object({ method: literal('roots/list'), params: optional(RequestParams) });

/** `{method, params}` restricted to `elicitation/create`, `sampling/createMessage`, `roots/list`. */
export const InputRequest = select([ElicitInputRequest, CreateMessageInputRequest, ListRootsInputRequest], (v) =>
  v['method'] === 'sampling/createMessage' ? 1 : v['method'] === 'roots/list' ? 2 : 0,
);
/** @see {@link InputRequest} */
export type InputRequest = Infer<typeof InputRequest>;

/** Server-chosen key → input request. */
export const InputRequests = record(InputRequest);
/** @see {@link InputRequests} */
export type InputRequests = Infer<typeof InputRequests>;

/** A client's answer to one input request (carries no `resultType`). */
export const InputResponse = select([ElicitResult, CreateMessageResult, ListRootsResult], (v) =>
  'action' in v ? 0 : 'roots' in v ? 2 : 1,
);
/** @see {@link InputResponse} */
export type InputResponse = Infer<typeof InputResponse>;

/** Key (same as in `inputRequests`) → answer. */
export const InputResponses = record(InputResponse);
/** @see {@link InputResponses} */
export type InputResponses = Infer<typeof InputResponses>;

/** The retry members of an MRTR-capable request's params. */
export const inputResponseShape = {
  // Only the map's shape is checked on receipt: each answer is validated against the input
  // request it answers when the server uses it, and answers under keys the server did not
  // ask for are ignored, as the spec asks (a SHOULD), whatever their shape.
  inputResponses: optional(record(JsonObject)),
  requestState: optional(string()),
} as const;

/**
 * An interim result asking for client input; carries `inputRequests`, `requestState`, or both.
 * Never carries caching hints.
 */
export const InputRequiredResult = refine(
  object({
    resultType: literal('input_required'),
    inputRequests: optional(InputRequests),
    requestState: optional(string()),
    _meta: optional(Meta),
  }),
  (r) => r.inputRequests !== undefined || r.requestState !== undefined,
  'must carry inputRequests or requestState',
);
/** @see {@link InputRequiredResult} */
export type InputRequiredResult = Infer<typeof InputRequiredResult>;
