/**
 * Wire forms of a stored task, per era:
 *
 * - 2025-11-25 core: `Task{taskId, status, statusMessage?, createdAt, lastUpdatedAt, ttl, pollInterval?}`,
 *   wrapped as `CreateTaskResult{task}`;
 * - tasks extension: `Task{…, ttlMs, pollIntervalMs?}`, flat `CreateTaskResult` with
 *   `resultType: "task"`, and `DetailedTask` (adds `inputRequests`, `result` or `error` by status).
 *
 * Timestamps are ISO 8601. None of these carries `requestState` or related-task `_meta`.
 *
 * @see https://modelcontextprotocol.io/extensions/tasks/overview
 * @module
 */
import { ErrorCode } from '../../jsonrpc/errors.js';
import type { TaskRecord } from './store.js';

function base(task: TaskRecord): Record<string, unknown> {
  const out: Record<string, unknown> = { taskId: task.taskId, status: task.status };
  if (task.statusMessage !== undefined) out['statusMessage'] = task.statusMessage;
  out['createdAt'] = new Date(task.createdAt).toISOString();
  out['lastUpdatedAt'] = new Date(task.lastUpdatedAt).toISOString();
  return out;
}

/** The 2025-11-25 `Task`. */
export function coreTask(task: TaskRecord): Record<string, unknown> {
  const out = base(task);
  out['ttl'] = task.ttlMs;
  if (task.pollIntervalMs !== undefined) out['pollInterval'] = task.pollIntervalMs;
  return out;
}

/** The tasks-extension `Task`. */
export function extTask(task: TaskRecord): Record<string, unknown> {
  const out = base(task);
  out['ttlMs'] = task.ttlMs;
  if (task.pollIntervalMs !== undefined) out['pollIntervalMs'] = task.pollIntervalMs;
  return out;
}

/** The tasks-extension `CreateTaskResult` (`Result & Task`, `resultType: "task"`). */
export function extCreateResult(task: TaskRecord): Record<string, unknown> {
  return { resultType: 'task', ...extTask(task) };
}

/** The tasks-extension `DetailedTask` (`tasks/get`, `notifications/tasks`). */
export function detailedTask(task: TaskRecord): Record<string, unknown> {
  const out = extTask(task);
  switch (task.status) {
    case 'input_required':
      out['inputRequests'] = { ...task.inputRequests };
      break;
    case 'completed':
      out['result'] = { ...task.result };
      break;
    case 'failed':
      out['error'] = { ...(task.error ?? { code: ErrorCode.InternalError, message: 'Internal error' }) };
      break;
    default:
      break;
  }
  return out;
}
