/**
 * The `tasks/*` request handlers of both eras, and the `subscriptions/listen` source of
 * `notifications/tasks`.
 *
 * - 2026-07-28 extension: `tasks/get` → `DetailedTask`; `tasks/update` → empty ack once the
 *   answers are visible; `tasks/cancel` → empty ack (idempotent on terminal tasks). `tasks/result`
 *   and `tasks/list` do not exist there (-32601, from the registry).
 * - 2025-11-25 core: `tasks/get` → `Task`; `tasks/result` blocks until terminal and returns
 *   exactly the underlying result (with related-task `_meta`) or error; `tasks/list` pages the
 *   requestor's tasks; `tasks/cancel` → the cancelled `Task` (terminal ⇒ -32602).
 *
 * A task of another principal (or, on legacy sessions, another session) is answered exactly
 * like an unknown one: -32602.
 *
 * @see https://modelcontextprotocol.io/extensions/tasks/overview
 * @see https://modelcontextprotocol.io/specification/2025-11-25/basic/utilities/tasks
 * @module
 */
import { ErrorCode, JsonRpcError } from '../../jsonrpc/errors.js';
import { missingRequiredClientCapability } from '../../protocol/errors.js';
import { META_RELATED_TASK, TASKS_EXTENSION_ID } from '../../protocol/meta.js';
import { hasExtension } from '../../protocol/model/capabilities.js';
import { isTerminalTaskStatus } from '../../protocol/model/tasks.js';
import { isStateless } from '../../protocol/revisions.js';
import type { ListenGrant, ListenRequest, ListenSource } from '../subscriptions.js';
import type { TaskCall, TaskManager } from './manager.js';
import { InvalidCursorError, ownedBy, type TaskRecord } from './store.js';
import { coreTask, detailedTask } from './wire.js';

/** The request methods served by {@link serveTaskMethod}. */
export const TASK_METHODS = ['tasks/get', 'tasks/update', 'tasks/cancel', 'tasks/result', 'tasks/list'] as const;

/** The 2025-11-25 server capability declared when tasks are on. */
export const CORE_TASKS_CAPABILITY = Object.freeze({ list: {}, cancel: {}, requests: { tools: { call: {} } } });

function isObject(value: unknown): value is Record<string, unknown> {
  return typeof value === 'object' && value !== null && !Array.isArray(value);
}

/** Serves one `tasks/*` request (already validated against the request's revision). */
export async function serveTaskMethod(manager: TaskManager, call: TaskCall): Promise<Record<string, unknown>> {
  const taskId = call.params['taskId'];
  if (call.method === 'tasks/list') return listTasks(manager, call);
  if (typeof taskId !== 'string') throw JsonRpcError.invalidParams('taskId is required');
  const task = await manager.owned(taskId, call);
  const extension = isStateless(call.revision);
  switch (call.method) {
    case 'tasks/get':
      return extension ? detailedTask(task) : coreTask(task);
    case 'tasks/update': {
      const responses = call.params['inputResponses'];
      if (isObject(responses) && !isTerminalTaskStatus(task.status)) await manager.deliver(taskId, responses);
      return {};
    }
    case 'tasks/cancel': {
      if (isTerminalTaskStatus(task.status)) {
        if (extension) return {};
        throw JsonRpcError.invalidParams(`Task ${taskId} is already ${task.status} and cannot be cancelled`, { taskId, status: task.status });
      }
      const cancelled = await manager.cancel(task);
      return extension ? {} : coreTask(cancelled);
    }
    case 'tasks/result':
      return taskResult(manager, call, task);
    default:
      throw JsonRpcError.methodNotFound(call.method);
  }
}

async function listTasks(manager: TaskManager, call: TaskCall): Promise<Record<string, unknown>> {
  const cursor = call.params['cursor'];
  try {
    const page = await manager.store.list(manager.ownerOf(call), {
      limit: manager.pageSize,
      ...(typeof cursor === 'string' ? { cursor } : {}),
    });
    const result: Record<string, unknown> = { tasks: page.tasks.map(coreTask) };
    if (page.nextCursor !== undefined) result['nextCursor'] = page.nextCursor;
    return result;
  } catch (error) {
    if (error instanceof InvalidCursorError) throw JsonRpcError.invalidParams('invalid cursor', { cursor });
    throw error;
  }
}

/** `tasks/result` (2025-11-25): waits for a terminal state, then answers as the request would have. */
async function taskResult(manager: TaskManager, call: TaskCall, first: TaskRecord): Promise<Record<string, unknown>> {
  let task = first;
  while (!isTerminalTaskStatus(task.status)) {
    await manager.changed(task.taskId, call.signal);
    task = await manager.owned(task.taskId, call);
  }
  const related = { [META_RELATED_TASK]: { taskId: task.taskId } };
  if (task.result !== undefined) {
    const meta = task.result['_meta'];
    return { ...task.result, _meta: isObject(meta) ? { ...meta, ...related } : related };
  }
  if (task.error !== undefined) throw new JsonRpcError(task.error.code, task.error.message, { ...(isObject(task.error.data) ? task.error.data : {}), _meta: related });
  throw new JsonRpcError(ErrorCode.InternalError, `Task ${task.taskId} was cancelled before it produced a result`, { taskId: task.taskId, status: task.status, _meta: related });
}

/**
 * The `subscriptions/listen` source of `notifications/tasks` (filter member `taskIds`): -32021
 * when the listen request does not declare the extension; grants only the requestor's tasks;
 * sends each granted task's current state right after the acknowledgement, then every change.
 */
export function taskListenSource(manager: TaskManager): ListenSource {
  return {
    async grant(requested: Readonly<Record<string, unknown>>, { caps, env }: ListenRequest): Promise<ListenGrant | undefined> {
      const ids = requested['taskIds'];
      if (!Array.isArray(ids) || ids.length === 0) return undefined;
      if (!hasExtension(caps, TASKS_EXTENSION_ID)) throw missingRequiredClientCapability({ extensions: { [TASKS_EXTENSION_ID]: {} } });
      const owner = { principal: env.principal?.id ?? '' };
      const granted: string[] = [];
      for (const id of new Set(ids)) {
        if (typeof id !== 'string') continue;
        const task = await manager.store.get(id);
        if (task !== undefined && ownedBy(task, owner)) granted.push(id);
      }
      return {
        granted: { taskIds: granted },
        attach(send) {
          const stops = granted.map((id) => manager.watch(id, (task) => send('notifications/tasks', detailedTask(task))));
          for (const id of granted) {
            void manager.store.get(id).then(
              (task) => {
                if (task !== undefined) send('notifications/tasks', detailedTask(task));
              },
              () => undefined,
            );
          }
          return () => {
            for (const stop of stops) stop();
          };
        },
      };
    },
  };
}
