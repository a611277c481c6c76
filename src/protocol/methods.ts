/**
 * Typed method descriptors (wire name paired with neutral Params/Result types, in the style of
 * LSP's `RequestType`) and the per-revision method registries.
 *
 * A method absent from a revision's registry is simply not found there; the receiving side
 * answers -32601 by absence.
 *
 * @see https://modelcontextprotocol.io/specification/2026-07-28/basic
 * @module
 */

import type { EmptyResult, RequestParams, NotificationParams, PaginatedParams } from './model/common.js';
import type { ElicitParams, ElicitResult, ElicitationCompleteParams } from './model/elicitation.js';
import type { DiscoverResult, InitializeParams, InitializeResult } from './model/lifecycle.js';
import type { InputRequiredResult } from './model/mrtr.js';
import type { GetPromptParams, GetPromptResult, ListPromptsResult } from './model/prompts.js';
import type {
  ListResourceTemplatesResult,
  ListResourcesResult,
  ReadResourceParams,
  ReadResourceResult,
  ResourceRequestParams,
  ResourceUpdatedParams,
} from './model/resources.js';
import type { CreateMessageParams, CreateMessageResult } from './model/sampling.js';
import type { ListenParams, ListenResult, SubscriptionsAcknowledgedParams } from './model/subscriptions.js';
import type {
  CreateTaskResult,
  DetailedTask,
  ExtCreateTaskResult,
  GetTaskResult,
  ListTasksResult,
  TaskIdParams,
  TaskStatusParams,
  UpdateTaskParams,
} from './model/tasks.js';
import type { CallToolParams, CallToolResult, ListToolsResult } from './model/tools.js';
import type {
  CancelledParams,
  CompleteParams,
  CompleteResult,
  ListRootsResult,
  LoggingMessageParams,
  ProgressParams,
  SetLevelParams,
} from './model/utilities.js';
import type { MethodRegistry, MethodSpec } from './methodSpec.js';
import type { ProtocolRevision } from './revisions.js';
import { registry as registry20250326 } from './rev2025-03-26/registry.js';
import { registry as registry20250618 } from './rev2025-06-18/registry.js';
import { registry as registry20251125 } from './rev2025-11-25/registry.js';
import { registry as registry20260728 } from './rev2026-07-28/registry.js';

/** A request descriptor: wire name plus phantom Params and Result types. */
export interface RequestType<M extends string, P, R> {
  readonly method: M;
  readonly kind: 'request';
  /** Phantom; never set at run time. */
  readonly _types?: { readonly params: P; readonly result: R };
}

/** A notification descriptor: wire name plus phantom Params type. */
export interface NotificationType<M extends string, P> {
  readonly method: M;
  readonly kind: 'notification';
  /** Phantom; never set at run time. */
  readonly _types?: { readonly params: P };
}

/** The params type of a descriptor. */
export type ParamsOf<D> = D extends { readonly _types?: { readonly params: infer P } } ? P : never;
/** The result type of a request descriptor. */
export type ResultOf<D> = D extends { readonly _types?: { readonly result: infer R } } ? R : never;

function request<P, R>() {
  return <const M extends string>(method: M): RequestType<M, P, R> => Object.freeze({ method, kind: 'request' as const });
}
function notification<P>() {
  return <const M extends string>(method: M): NotificationType<M, P> => Object.freeze({ method, kind: 'notification' as const });
}

/** `initialize` (stateful revisions). */
export const InitializeRequest = request<InitializeParams, InitializeResult>()('initialize');
/** `notifications/initialized` (stateful revisions). */
export const InitializedNotification = notification<NotificationParams>()('notifications/initialized');
/** `ping` (stateful revisions). */
export const PingRequest = request<RequestParams, EmptyResult>()('ping');
/** `server/discover` (2026-07-28). */
export const DiscoverRequest = request<RequestParams, DiscoverResult>()('server/discover');
/** `tools/list`. */
export const ListToolsRequest = request<PaginatedParams, ListToolsResult>()('tools/list');
/** `tools/call`; may answer with an `InputRequiredResult` (2026) or a task (tasks). */
export const CallToolRequest = request<CallToolParams, CallToolResult | InputRequiredResult | CreateTaskResult | ExtCreateTaskResult>()(
  'tools/call',
);
/** `prompts/list`. */
export const ListPromptsRequest = request<PaginatedParams, ListPromptsResult>()('prompts/list');
/** `prompts/get`. */
export const GetPromptRequest = request<GetPromptParams, GetPromptResult | InputRequiredResult>()('prompts/get');
/** `resources/list`. */
export const ListResourcesRequest = request<PaginatedParams, ListResourcesResult>()('resources/list');
/** `resources/templates/list`. */
export const ListResourceTemplatesRequest = request<PaginatedParams, ListResourceTemplatesResult>()('resources/templates/list');
/** `resources/read`. */
export const ReadResourceRequest = request<ReadResourceParams, ReadResourceResult | InputRequiredResult>()('resources/read');
/** `resources/subscribe` (stateful revisions). */
export const SubscribeRequest = request<ResourceRequestParams, EmptyResult>()('resources/subscribe');
/** `resources/unsubscribe` (stateful revisions). */
export const UnsubscribeRequest = request<ResourceRequestParams, EmptyResult>()('resources/unsubscribe');
/** `completion/complete`. */
export const CompleteRequest = request<CompleteParams, CompleteResult>()('completion/complete');
/** `logging/setLevel` (stateful revisions). */
export const SetLevelRequest = request<SetLevelParams, EmptyResult>()('logging/setLevel');
/** `subscriptions/listen` (2026-07-28). */
export const ListenRequest = request<ListenParams, ListenResult>()('subscriptions/listen');
/** `sampling/createMessage` (server → client in stateful revisions; MRTR input in 2026). */
export const CreateMessageRequest = request<CreateMessageParams, CreateMessageResult | CreateTaskResult>()('sampling/createMessage');
/** `roots/list` (server → client in stateful revisions; MRTR input in 2026). */
export const ListRootsRequest = request<RequestParams, ListRootsResult>()('roots/list');
/** `elicitation/create` (server → client 2025-06-18/11-25; MRTR input in 2026). */
export const ElicitRequest = request<ElicitParams, ElicitResult | CreateTaskResult>()('elicitation/create');
/** `tasks/get` (2025-11-25 core: a `Task`; tasks extension: a `DetailedTask`). */
export const GetTaskRequest = request<TaskIdParams, GetTaskResult | DetailedTask>()('tasks/get');
/** `tasks/result` (2025-11-25 core). */
export const GetTaskPayloadRequest = request<TaskIdParams, EmptyResult>()('tasks/result');
/** `tasks/list` (2025-11-25 core). */
export const ListTasksRequest = request<PaginatedParams, ListTasksResult>()('tasks/list');
/** `tasks/cancel` (2025-11-25 core: a `Task`; tasks extension: empty ack). */
export const CancelTaskRequest = request<TaskIdParams, GetTaskResult | EmptyResult>()('tasks/cancel');
/** `tasks/update` (tasks extension). */
export const UpdateTaskRequest = request<UpdateTaskParams, EmptyResult>()('tasks/update');

/** `notifications/cancelled`. */
export const CancelledNotification = notification<CancelledParams>()('notifications/cancelled');
/** `notifications/progress`. */
export const ProgressNotification = notification<ProgressParams>()('notifications/progress');
/** `notifications/message`. */
export const LoggingMessageNotification = notification<LoggingMessageParams>()('notifications/message');
/** `notifications/tools/list_changed`. */
export const ToolListChangedNotification = notification<NotificationParams>()('notifications/tools/list_changed');
/** `notifications/prompts/list_changed`. */
export const PromptListChangedNotification = notification<NotificationParams>()('notifications/prompts/list_changed');
/** `notifications/resources/list_changed`. */
export const ResourceListChangedNotification = notification<NotificationParams>()('notifications/resources/list_changed');
/** `notifications/resources/updated`. */
export const ResourceUpdatedNotification = notification<ResourceUpdatedParams>()('notifications/resources/updated');
/** `notifications/roots/list_changed` (stateful revisions). */
export const RootsListChangedNotification = notification<NotificationParams>()('notifications/roots/list_changed');
/** `notifications/subscriptions/acknowledged` (2026-07-28). */
export const SubscriptionsAcknowledgedNotification = notification<SubscriptionsAcknowledgedParams>()(
  'notifications/subscriptions/acknowledged',
);
/** `notifications/elicitation/complete` (2025-11-25). */
export const ElicitationCompleteNotification = notification<ElicitationCompleteParams>()('notifications/elicitation/complete');
/** `notifications/tasks/status` (2025-11-25 core tasks). */
export const TaskStatusNotification = notification<TaskStatusParams>()('notifications/tasks/status');
/** `notifications/tasks` (tasks extension). */
export const TasksNotification = notification<DetailedTask>()('notifications/tasks');

const registries: Readonly<Record<ProtocolRevision, MethodRegistry>> = {
  '2025-03-26': registry20250326,
  '2025-06-18': registry20250618,
  '2025-11-25': registry20251125,
  '2026-07-28': registry20260728,
};

/** The method registry of `revision` (built once; lookups are O(1)). */
export function methodRegistry(revision: ProtocolRevision): MethodRegistry {
  return registries[revision];
}

/** The spec of `method` in `revision`, or undefined when the revision has no such method. */
export function lookupMethod(revision: ProtocolRevision, method: string): MethodSpec | undefined {
  return registries[revision].get(method);
}
