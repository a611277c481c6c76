/**
 * Runs a downstream task to its end on behalf of an upstream client that cannot take tasks: a
 * 2025-11-25 client (the tasks extension does not exist on its revision, so it has no way to
 * declare it) calling a tool the server runs only as a task (`execution.taskSupport:
 * "required"`). The gateway asks for the task, polls `tasks/get` at the server's
 * `pollIntervalMs`, asks the upstream each new `inputRequests` entry through the call's own
 * handlers (the era bridge: real `elicitation/create` requests for a stateful client) and
 * answers with `tasks/update`, then returns what the call would have returned: the task's
 * `result`, or its JSON-RPC `error`. When the upstream call is cancelled (or times out), the
 * task is cancelled too.
 *
 * A 2026-07-28 client without the extension still gets the server's -32021, which tells it what
 * to declare.
 *
 * @see https://modelcontextprotocol.io/extensions/tasks/overview
 * @module
 */
import type { McpClient } from '../client/mcpClient.js';
import type { ClientHandlers, InputContext } from '../client/types.js';
import { ErrorCode, JsonRpcError } from '../jsonrpc/errors.js';
import type { ClientCapabilities } from '../protocol/model/capabilities.js';
import type { ElicitParams } from '../protocol/model/elicitation.js';
import type { InputRequest } from '../protocol/model/mrtr.js';
import type { CreateMessageParams } from '../protocol/model/sampling.js';
import type { Tool } from '../protocol/model/tool.js';
import { McpError, McpErrorCode } from '../util/errors.js';
import { sleep } from '../util/time.js';

/** Polling bounds (ms): the server's `pollIntervalMs`, kept within these. */
const MIN_POLL_MS = 10;
const MAX_POLL_MS = 5_000;

/** Whether the server runs `tool` only as a task. */
export function requiresTask(tool: Tool | undefined): boolean {
  return tool?.execution?.taskSupport === 'required';
}

/** What {@link driveTask} needs of the call it runs in. */
export interface DriveOptions {
  readonly signal: AbortSignal;
  /** The capabilities of the call (with the tasks extension). */
  readonly capabilities: ClientCapabilities;
  /** The call's own handlers: questions go to the upstream that made the call. */
  readonly handlers: ClientHandlers;
}

/** Polls the task `created` names until it ends (see the module comment). */
export async function driveTask(client: McpClient, created: Record<string, unknown>, options: DriveOptions): Promise<Record<string, unknown>> {
  const taskId = created['taskId'];
  if (typeof taskId !== 'string') throw JsonRpcError.internal('The server answered with a task without an id');
  const { signal, capabilities } = options;
  const asked = new Set<string>();
  let pollMs = pollOf(created['pollIntervalMs'], 500);
  try {
    for (;;) {
      const task = await client.request('tasks/get', { taskId }, { signal, capabilities });
      const status = task['status'];
      if (status === 'completed') return (task['result'] ?? {}) as Record<string, unknown>;
      if (status === 'failed') throw failure(task['error']);
      if (status === 'cancelled') throw JsonRpcError.internal('The server cancelled the task');
      pollMs = pollOf(task['pollIntervalMs'], pollMs);
      const fresh = Object.entries((task['inputRequests'] ?? {}) as Record<string, InputRequest>).filter(([key]) => !asked.has(key));
      if (status === 'input_required' && fresh.length > 0) {
        for (const [key] of fresh) asked.add(key);
        const answers = await Promise.all(fresh.map(async ([key, request]) => [key, await ask(options.handlers, request, key, signal)] as const));
        await client.request('tasks/update', { taskId, inputResponses: Object.fromEntries(answers) }, { signal, capabilities });
        continue;
      }
      await sleep(pollMs, signal);
    }
  } catch (error) {
    if (signal.aborted) void client.request('tasks/cancel', { taskId }, { capabilities }).catch(() => undefined);
    throw error;
  }
}

function pollOf(value: unknown, fallback: number): number {
  const ms = typeof value === 'number' && Number.isFinite(value) ? value : fallback;
  return Math.min(MAX_POLL_MS, Math.max(MIN_POLL_MS, ms));
}

/** The task's JSON-RPC error, as the call's own error. */
function failure(error: unknown): JsonRpcError {
  const e = (typeof error === 'object' && error !== null ? error : {}) as { code?: unknown; message?: unknown; data?: unknown };
  return new JsonRpcError(typeof e.code === 'number' ? e.code : ErrorCode.InternalError, typeof e.message === 'string' ? e.message : 'The task failed', e.data);
}

/** Asks one of the task's input requests through the call's handlers. */
async function ask(handlers: ClientHandlers, request: InputRequest, key: string, signal: AbortSignal): Promise<unknown> {
  const context = { signal, protocolVersion: '2026-07-28', via: 'mrtr', key, method: 'tools/call' } as InputContext;
  const params = (request as { params?: unknown }).params;
  switch (request.method) {
    case 'elicitation/create':
      if (handlers.elicitation !== undefined) return handlers.elicitation(params as ElicitParams, context);
      break;
    case 'sampling/createMessage':
      if (handlers.sampling !== undefined) return handlers.sampling(params as CreateMessageParams, context);
      break;
    case 'roots/list':
      if (handlers.roots !== undefined) return handlers.roots(context);
      break;
    default:
      break;
  }
  throw new McpError(McpErrorCode.Unsupported, `The task asked for ${String(request.method)}, which cannot be forwarded to this client`);
}
