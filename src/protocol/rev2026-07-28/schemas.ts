/**
 * 2026-07-28 wire shapes: every request's params carry a required `_meta` with the protocol
 * version and client capabilities; every result carries `resultType`; cacheable results carry
 * required `ttlMs` and `cacheScope`; `structuredContent` and `outputSchema` are unrestricted.
 *
 * @see https://modelcontextprotocol.io/specification/2026-07-28/basic
 * @module
 */

import {
  discriminated,
  extend,
  literal,
  object,
  omit,
  optional,
  string,
  type Infer,
  type ObjectSchema,
  type Shape,
} from '../../util/schema.js';
import {
  CacheScope,
  Implementation,
  LoggingLevel,
  Meta,
  NotificationParams,
  PaginatedParams,
  ProgressToken,
  RequestId,
  RequestParams,
  Result,
  TtlMs,
} from '../model/common.js';
import { ClientCapabilities } from '../model/capabilities.js';
import { META_CLIENT_CAPABILITIES, META_CLIENT_INFO, META_LOG_LEVEL, META_PROTOCOL_VERSION } from '../meta.js';
import { DiscoverResult } from '../model/lifecycle.js';
import { GetPromptParams, GetPromptResult, ListPromptsResult } from '../model/prompts.js';
import { ListResourceTemplatesResult, ListResourcesResult, ReadResourceParams, ReadResourceResult } from '../model/resources.js';
import { ListenParams, ListenResult } from '../model/subscriptions.js';
import { ExtTask, TaskIdParams, UpdateTaskParams } from '../model/tasks.js';
import { CallToolParams, CallToolResult, ListToolsResult } from '../model/tools.js';
import { CancelledParams, CompleteParams, CompleteResult } from '../model/utilities.js';
import { InputRequests } from '../model/mrtr.js';
import { JsonObject } from '../model/common.js';

/** The required per-request `_meta` of 2026-07-28. */
export const RequestMeta = object({
  [META_PROTOCOL_VERSION]: string(),
  [META_CLIENT_CAPABILITIES]: ClientCapabilities,
  [META_CLIENT_INFO]: optional(Implementation),
  [META_LOG_LEVEL]: optional(LoggingLevel),
  progressToken: optional(ProgressToken),
});
/** @see {@link RequestMeta} */
export type RequestMeta = Infer<typeof RequestMeta>;

/** Makes `_meta` required (and typed) on a request's params. */
export function withRequestMeta<const S extends Shape>(params: ObjectSchema<S>) {
  return extend(params, { _meta: RequestMeta });
}

/** Marks a result as final: `resultType: "complete"`. */
export function complete<const S extends Shape>(result: ObjectSchema<S>) {
  return extend(result, { resultType: literal('complete') });
}

/** A final cacheable result: `resultType: "complete"` plus required `ttlMs` and `cacheScope`. */
export function cacheable<const S extends Shape>(result: ObjectSchema<S>) {
  return extend(result, { resultType: literal('complete'), ttlMs: TtlMs, cacheScope: CacheScope });
}

/** Base params of 2026-07-28 requests. */
export const RequestParamsV = withRequestMeta(RequestParams);
/** Params of a paginated list. */
export const PaginatedParamsV = withRequestMeta(PaginatedParams);
/** `tools/call` params (no core-tasks `task` member). */
export const CallToolParamsV = withRequestMeta(omit(CallToolParams, ['task']));
/** `prompts/get` params. */
export const GetPromptParamsV = withRequestMeta(GetPromptParams);
/** `resources/read` params. */
export const ReadResourceParamsV = withRequestMeta(ReadResourceParams);
/** `completion/complete` params. */
export const CompleteParamsV = withRequestMeta(CompleteParams);
/** `subscriptions/listen` params. */
export const ListenParamsV = withRequestMeta(ListenParams);

/** `server/discover` result. */
export const DiscoverResultV = cacheable(DiscoverResult);
/** `tools/list` result. */
export const ListToolsResultV = cacheable(ListToolsResult);
/** `tools/call` result (`structuredContent` is any JSON value). */
export const CallToolResultV = complete(CallToolResult);
/** `prompts/list` result. */
export const ListPromptsResultV = cacheable(ListPromptsResult);
/** `prompts/get` result. */
export const GetPromptResultV = complete(GetPromptResult);
/** `resources/list` result. */
export const ListResourcesResultV = cacheable(ListResourcesResult);
/** `resources/templates/list` result. */
export const ListResourceTemplatesResultV = cacheable(ListResourceTemplatesResult);
/** `resources/read` result. */
export const ReadResourceResultV = cacheable(ReadResourceResult);
/** `completion/complete` result. */
export const CompleteResultV = complete(CompleteResult);
/** `subscriptions/listen` graceful-close result. */
export const ListenResultV = complete(ListenResult);
/** An empty final result (acknowledgements). */
export const EmptyResultV = complete(Result);

/** `notifications/cancelled` params (`requestId` required). */
export const CancelledParamsV = extend(CancelledParams, { requestId: RequestId });

// ---- tasks extension (io.modelcontextprotocol/tasks) --------------------------------------

/** `tasks/get` and `tasks/cancel` params. */
export const TaskIdParamsV = withRequestMeta(TaskIdParams);
/** `tasks/update` params. */
export const UpdateTaskParamsV = withRequestMeta(UpdateTaskParams);

const taskResult = { resultType: literal('complete'), _meta: optional(Meta) } as const;

/** `tasks/get` result: a `DetailedTask` with `resultType: "complete"`. */
export const GetTaskResultV = discriminated('status', {
  working: extend(ExtTask, { status: literal('working'), ...taskResult }),
  input_required: extend(ExtTask, { status: literal('input_required'), inputRequests: InputRequests, ...taskResult }),
  completed: extend(ExtTask, { status: literal('completed'), result: JsonObject, ...taskResult }),
  failed: extend(ExtTask, { status: literal('failed'), error: JsonObject, ...taskResult }),
  cancelled: extend(ExtTask, { status: literal('cancelled'), ...taskResult }),
});
/** @see {@link GetTaskResultV} */
export type GetTaskResultV = Infer<typeof GetTaskResultV>;

/** Base notification params. */
export const NotificationParamsV = NotificationParams;
