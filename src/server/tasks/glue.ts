/**
 * How `McpServer` plugs tasks in: the task methods join the handler map, task notifications
 * join `subscriptions/listen`, and a `tools/call` goes through the task manager, which
 * decides task vs. ordinary call. The manager sees a request as a {@link TaskCall}.
 *
 * @module
 */
import type { JsonRpcNotification } from '../../jsonrpc/messages.js';
import type { Tool } from '../../protocol/model/tool.js';
import type { ServerCore } from '../core.js';
import { contextFor } from '../input.js';
import type { Call, MethodHandler } from '../pipeline.js';
import { TaskManager, type TaskCall, type TasksOptions } from './manager.js';
import { serveTaskMethod, TASK_METHODS, taskListenSource } from './methods.js';

/**
 * Enables tasks on `core` when `options` asks for them: registers the task methods in
 * `handlers` and the listen source; returns the cleanup to run when the server closes.
 */
export function installTasks(core: ServerCore, options: TasksOptions | boolean | undefined, handlers: Map<string, MethodHandler>): (() => void) | undefined {
  if (options === undefined || options === false) return undefined;
  const tasks = new TaskManager(options === true ? {} : options, (error, info) => core.reportError(error, info.method, info.requestId));
  core.tasks = tasks;
  for (const method of TASK_METHODS) handlers.set(method, (c) => serveTaskMethod(tasks, taskCall(c)));
  core.hub.addSource(taskListenSource(tasks));
  return () => tasks.close();
}

/** Whether `call` of `tool` goes through the task manager (see {@link TaskManager.involves}). */
export function involvesTasks(call: Call, tool: Tool): boolean {
  return TaskManager.involves(call.revision, call.caps, call.params, tool);
}

/** The view of a call the task manager needs, incl. a background-context factory. */
export function taskCall(call: Call): TaskCall {
  const session = call.session;
  return {
    id: call.id,
    method: call.method,
    params: call.params,
    meta: call.meta,
    revision: call.revision,
    caps: call.caps,
    principal: call.principal?.id,
    get signal() {
      return call.env.signal;
    },
    session,
    context: (broker, signal) => {
      // Background runs outlive the request: own signal; notifications go to the session (legacy) or nowhere.
      const notify = session === undefined ? () => undefined : (n: JsonRpcNotification) => session.peer.notify(n);
      const { peer: _peer, ...env } = call.env;
      return contextFor({ ...call, env: { ...env, signal, notify } }, broker, 1, undefined);
    },
  };
}
