/**
 * Tasks another component owns: a server that forwards tools from elsewhere (a gateway) serves
 * the tasks extension's methods (`tasks/get`, `tasks/update`, `tasks/cancel`, 2026-07-28) by
 * handing them to a {@link ForwardedTasks} handler instead of a local task manager.
 *
 * What the server layer still does for them: the extension is advertised in `server/discover`,
 * the methods are decoded against the revision's schemas, a request that does not declare the
 * extension is -32021 before the handler runs, and a forwarded `tools/call` may answer with a
 * `CreateTaskResult` only when its own request declared the extension (else -32603: the spec
 * forbids a task to a client that did not declare support on that request).
 *
 * @see https://modelcontextprotocol.io/extensions/tasks/overview
 * @module
 */
import { JsonRpcError } from '../../jsonrpc/errors.js';
import { TASKS_EXTENSION_ID } from '../../protocol/meta.js';
import { hasExtension } from '../../protocol/model/capabilities.js';
import type { ServerCore } from '../core.js';
import { contextFor } from '../input.js';
import type { MethodHandler } from '../pipeline.js';
import type { ForwardedTaskMethod, ForwardedTasks, HandlerContext } from '../types.js';

export type { ForwardedTaskMethod, ForwardedTasks } from '../types.js';

/** The methods served by a {@link ForwardedTasks} handler. */
export const FORWARDED_TASK_METHODS: readonly ForwardedTaskMethod[] = ['tasks/get', 'tasks/update', 'tasks/cancel'];

/** Registers the task methods on `handlers`, served by `forwarded`. */
export function installForwardedTasks(core: ServerCore, forwarded: ForwardedTasks, handlers: Map<string, MethodHandler>): void {
  core.forwardedTasks = forwarded;
  for (const method of FORWARDED_TASK_METHODS) {
    handlers.set(method, (call) => forwarded.serve(method, call.params, contextFor(call, undefined, 1, undefined)));
  }
}

/**
 * Refuses a forwarded `CreateTaskResult` for a request that did not declare the extension (the
 * forwarder must not have asked the downstream server for one; this is the last line).
 */
export function checkForwardedTask(result: Record<string, unknown>, ctx: HandlerContext): Record<string, unknown> {
  if (result['resultType'] === 'task' && !hasExtension(ctx.clientCapabilities, TASKS_EXTENSION_ID)) {
    throw JsonRpcError.internal('A task was created for a request that did not declare the tasks extension');
  }
  return result;
}
