/**
 * Tasks, in both of their forms:
 *
 * - 2025-11-25 experimental core tasks (`tasks/get|result|list|cancel`,
 *   `notifications/tasks/status`; `ttl`/`pollInterval`);
 * - the 2026-07-28 tasks extension `io.modelcontextprotocol/tasks` (`tasks/get|update|cancel`,
 *   `notifications/tasks`; `ttlMs`/`pollIntervalMs`, `resultType: "task"`, `DetailedTask`).
 *
 * @see https://modelcontextprotocol.io/specification/2025-11-25/basic/utilities/tasks
 * @see https://modelcontextprotocol.io/extensions/tasks/overview
 * @module
 */

import { array, discriminated, enumeration, extend, integer, literal, nullable, object, optional, record, string, type Infer } from '../../util/schema.js';
import { JsonObject, Meta, NotificationParams, PaginatedParams, RequestParams, Result, paginatedShape } from './common.js';
import { InputRequests } from './mrtr.js';

/** Task states; `completed`, `failed`, `cancelled` are terminal. */
export const taskStatuses = ['working', 'input_required', 'completed', 'failed', 'cancelled'] as const;
/** A task's state. */
export const TaskStatus = enumeration(taskStatuses);
/** @see {@link TaskStatus} */
export type TaskStatus = Infer<typeof TaskStatus>;

/** True for terminal states (immutable once reached). */
export function isTerminalTaskStatus(status: TaskStatus): boolean {
  return status === 'completed' || status === 'failed' || status === 'cancelled';
}

// ---- 2025-11-25 core tasks ----------------------------------------------------------------

/** A task (2025-11-25 core): `ttl` and `pollInterval` in ms. */
export const Task = object({
  taskId: string(),
  status: TaskStatus,
  statusMessage: optional(string()),
  createdAt: string(),
  lastUpdatedAt: string(),
  ttl: nullable(integer({ minimum: 0 })),
  pollInterval: optional(integer({ minimum: 0 })),
});
/** @see {@link Task} */
export type Task = Infer<typeof Task>;

/** Result of a task-augmented request (2025-11-25). */
export const CreateTaskResult = extend(Result, { task: Task });
/** @see {@link CreateTaskResult} */
export type CreateTaskResult = Infer<typeof CreateTaskResult>;

/** Params naming one task (`tasks/get`, `tasks/result`, `tasks/cancel`). */
export const TaskIdParams = extend(RequestParams, { taskId: string() });
/** @see {@link TaskIdParams} */
export type TaskIdParams = Infer<typeof TaskIdParams>;

/** `tasks/get` and `tasks/cancel` result (2025-11-25): the task itself. */
export const GetTaskResult = extend(Result, Task.shape);
/** @see {@link GetTaskResult} */
export type GetTaskResult = Infer<typeof GetTaskResult>;

/** `tasks/result` result: exactly the underlying request's result (any object). */
export const TaskPayloadResult = Result;

/** `tasks/list` params. */
export const ListTasksParams = PaginatedParams;

/** `tasks/list` result (2025-11-25). */
export const ListTasksResult = extend(Result, { ...paginatedShape, tasks: array(Task) });
/** @see {@link ListTasksResult} */
export type ListTasksResult = Infer<typeof ListTasksResult>;

/** `notifications/tasks/status` params (2025-11-25). */
export const TaskStatusParams = extend(NotificationParams, Task.shape);
/** @see {@link TaskStatusParams} */
export type TaskStatusParams = Infer<typeof TaskStatusParams>;

// ---- 2026-07-28 tasks extension -----------------------------------------------------------

/** A task (tasks extension): `ttlMs` (null = unlimited) and `pollIntervalMs`. */
export const ExtTask = object({
  taskId: string(),
  status: TaskStatus,
  statusMessage: optional(string()),
  createdAt: string(),
  lastUpdatedAt: string(),
  ttlMs: nullable(integer({ minimum: 0 })),
  pollIntervalMs: optional(integer({ minimum: 0 })),
});
/** @see {@link ExtTask} */
export type ExtTask = Infer<typeof ExtTask>;

/** `CreateTaskResult` of the tasks extension: `Result & Task` with `resultType: "task"`. */
export const ExtCreateTaskResult = extend(ExtTask, { resultType: literal('task'), _meta: optional(Meta) });
/** @see {@link ExtCreateTaskResult} */
export type ExtCreateTaskResult = Infer<typeof ExtCreateTaskResult>;

/** A task with its status-specific payload (`inputRequests`, `result` or `error`). */
export const DetailedTask = discriminated('status', {
  working: extend(ExtTask, { status: literal('working') }),
  input_required: extend(ExtTask, { status: literal('input_required'), inputRequests: InputRequests }),
  completed: extend(ExtTask, { status: literal('completed'), result: JsonObject }),
  failed: extend(ExtTask, { status: literal('failed'), error: JsonObject }),
  cancelled: extend(ExtTask, { status: literal('cancelled') }),
});
/** @see {@link DetailedTask} */
export type DetailedTask = Infer<typeof DetailedTask>;

/**
 * `tasks/update` params (tasks extension). As for MRTR retries, only the map's shape is checked
 * on receipt: the spec tells servers to ignore answers under keys that are not outstanding
 * (whatever their shape), and each answer is validated against the input request it answers
 * when it is used.
 */
export const UpdateTaskParams = extend(RequestParams, { taskId: string(), inputResponses: record(JsonObject) });
/** @see {@link UpdateTaskParams} */
export type UpdateTaskParams = Infer<typeof UpdateTaskParams>;

/** `notifications/tasks` params (tasks extension): the full task state. */
export const ExtTaskNotificationParams = DetailedTask;
