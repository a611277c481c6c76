/**
 * Small utilities: roots, completion, progress, cancellation, logging and list-changed
 * notifications.
 *
 * @see https://modelcontextprotocol.io/specification/2026-07-28/basic/patterns/progress
 * @see https://modelcontextprotocol.io/specification/2026-07-28/server/utilities/completion
 * @module
 */

import { array, boolean, discriminated, extend, integer, literal, number, object, optional, record, string, unknown, type Infer } from '../../util/schema.js';
import { LoggingLevel, Meta, NotificationParams, ProgressToken, RequestId, RequestParams, Result } from './common.js';

/** A root the client exposes: a `file://` URI and an optional name. */
export const Root = object({ uri: string({ pattern: /^file:\/\//, patternMessage: 'must be a file:// URI' }), name: optional(string()), _meta: optional(Meta) });
/** @see {@link Root} */
export type Root = Infer<typeof Root>;

/** `roots/list` params. */
export const ListRootsParams = RequestParams;
/** @see {@link ListRootsParams} */
export type ListRootsParams = Infer<typeof ListRootsParams>;

/** `roots/list` result. */
export const ListRootsResult = extend(Result, { roots: array(Root) });
/** @see {@link ListRootsResult} */
export type ListRootsResult = Infer<typeof ListRootsResult>;

/** A reference to a prompt, for completion. */
export const PromptReference = object({ type: literal('ref/prompt'), name: string(), title: optional(string()) });
/** @see {@link PromptReference} */
export type PromptReference = Infer<typeof PromptReference>;

/** A reference to a resource template (or resource), for completion. */
export const ResourceTemplateReference = object({ type: literal('ref/resource'), uri: string() });
/** @see {@link ResourceTemplateReference} */
export type ResourceTemplateReference = Infer<typeof ResourceTemplateReference>;

/** `completion/complete` params (`context` from 2025-06-18). */
export const CompleteParams = extend(RequestParams, {
  ref: discriminated('type', { 'ref/prompt': PromptReference, 'ref/resource': ResourceTemplateReference }),
  argument: object({ name: string(), value: string() }),
  context: optional(object({ arguments: optional(record(string())) })),
});
/** @see {@link CompleteParams} */
export type CompleteParams = Infer<typeof CompleteParams>;

/** `completion/complete` result: at most 100 values. */
export const CompleteResult = extend(Result, {
  completion: object({
    values: array(string(), { maxItems: 100 }),
    total: optional(integer({ minimum: 0 })),
    hasMore: optional(boolean()),
  }),
});
/** @see {@link CompleteResult} */
export type CompleteResult = Infer<typeof CompleteResult>;

/** `notifications/progress` params (`message` from 2025-03-26). */
export const ProgressParams = extend(NotificationParams, {
  progressToken: ProgressToken,
  progress: number(),
  total: optional(number()),
  message: optional(string()),
});
/** @see {@link ProgressParams} */
export type ProgressParams = Infer<typeof ProgressParams>;

/**
 * `notifications/cancelled` params. `requestId` is optional only in 2025-11-25 (task
 * cancellation moved to `tasks/cancel`); the other revisions require it.
 */
export const CancelledParams = extend(NotificationParams, { requestId: optional(RequestId), reason: optional(string()) });
/** @see {@link CancelledParams} */
export type CancelledParams = Infer<typeof CancelledParams>;

/** `notifications/message` params. */
export const LoggingMessageParams = extend(NotificationParams, { level: LoggingLevel, logger: optional(string()), data: unknown() });
/** @see {@link LoggingMessageParams} */
export type LoggingMessageParams = Infer<typeof LoggingMessageParams>;

/** `logging/setLevel` params (legacy only). */
export const SetLevelParams = extend(RequestParams, { level: LoggingLevel });
/** @see {@link SetLevelParams} */
export type SetLevelParams = Infer<typeof SetLevelParams>;

/** Params of `notifications/{tools,prompts,resources,roots}/list_changed` and `initialized`. */
export const ListChangedParams = NotificationParams;
/** @see {@link ListChangedParams} */
export type ListChangedParams = Infer<typeof ListChangedParams>;
