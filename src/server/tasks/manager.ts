/**
 * The task manager: decides per `tools/call` whether to answer with a task, runs the handler
 * in the background with its own `AbortController`, records every status change in the
 * {@link TaskStore}, and pushes changes (2025-11-25 `notifications/tasks/status` to the
 * session; 2026-07-28 `notifications/tasks` to `subscriptions/listen` streams that asked
 * for the task id). Both eras share one store; every task is bound to its owner.
 *
 * Decision rules:
 * - 2026-07-28 (tasks extension): only when the request declares `io.modelcontextprotocol/tasks`
 *   in its own capabilities; a tool with `execution.taskSupport: "required"` called without it
 *   is -32021 naming the extension. With it, {@link TasksOptions.mode} decides; a handler not
 *   started as a task may still become one with `runAsTask(ctx)` (MRTR rounds first, then a task).
 * - 2025-11-25 (core): the client opts in with `params.task`; `taskSupport` absent/`forbidden`
 *   ⇒ -32601 for a task call, `required` ⇒ -32601 for a plain call.
 *
 * @see https://modelcontextprotocol.io/extensions/tasks/overview
 * @see https://modelcontextprotocol.io/specification/2025-11-25/basic/utilities/tasks
 * @module
 */
import { ErrorCode, JsonRpcError } from '../../jsonrpc/errors.js';
import type { RequestId } from '../../jsonrpc/messages.js';
import { missingRequiredClientCapability } from '../../protocol/errors.js';
import { TASKS_EXTENSION_ID } from '../../protocol/meta.js';
import { hasExtension, type ClientCapabilities } from '../../protocol/model/capabilities.js';
import type { InputRequest } from '../../protocol/model/mrtr.js';
import type { Tool } from '../../protocol/model/tool.js';
import { isStateless, type ProtocolRevision } from '../../protocol/revisions.js';
import type { InputBroker } from '../context.js';
import type { ServerSession } from '../session.js';
import type { HandlerContext } from '../types.js';
import { SessionTaskBroker, TaskInputBroker } from './brokers.js';
import { bindEscalation, bindTask, SwitchableContext } from './context.js';
import { MemoryTaskStore, TaskCapacityError, type TaskEra, type TaskOwner, type TaskPatch, type TaskRecord, type TaskStore } from './store.js';
import { coreTask, extCreateResult } from './wire.js';

/** Which `tools/call` requests (of clients declaring the tasks extension) become tasks. */
export type TaskMode = 'auto' | 'always' | 'never' | ((tool: Tool, request: TaskDecisionInfo) => boolean);

/** What a {@link TaskMode} function may look at. */
export interface TaskDecisionInfo {
  readonly protocolVersion: ProtocolRevision;
  readonly principal: string | undefined;
  readonly arguments: unknown;
  readonly meta: Readonly<Record<string, unknown>>;
}

/** The `tasks` option of `McpServer`. */
export interface TasksOptions {
  /** Where tasks live. Default: a {@link MemoryTaskStore}. */
  readonly store?: TaskStore;
  /**
   * 2026-07-28: `auto` (default) = tools whose `execution.taskSupport` is `optional` or
   * `required`; `always` = every tool not marked `forbidden`; `never`; or a function.
   */
  readonly mode?: TaskMode;
  /** Task lifetime in ms (null = unlimited). Default one hour. Caps a 2025-11-25 `params.task.ttl`. */
  readonly ttlMs?: number | null;
  /** Suggested polling interval in ms. Default 500. */
  readonly pollIntervalMs?: number;
  /** Tasks per `tasks/list` page (2025-11-25). Default 50. */
  readonly pageSize?: number;
  /** Task id generator; ids must be unguessable. Default `crypto.randomUUID()`. */
  readonly newId?: () => string;
}

/** One request as the task manager needs it (built by `McpServer`). */
export interface TaskCall {
  readonly id: RequestId;
  readonly method: string;
  readonly params: Readonly<Record<string, unknown>>;
  readonly meta: Readonly<Record<string, unknown>>;
  readonly revision: ProtocolRevision;
  readonly caps: ClientCapabilities;
  readonly principal: string | undefined;
  readonly signal: AbortSignal;
  /** The stateful session (2025-11-25 requests). */
  readonly session: ServerSession | undefined;
  /** A handler context for a background run, with its own broker and signal. */
  context(broker: InputBroker, signal: AbortSignal): HandlerContext;
}

/** Runs the tool handler with a context. */
export type ToolRun = (context: HandlerContext) => Promise<Record<string, unknown>>;
/** Runs `run` under the server's ordinary input handling (MRTR / session requests). */
export type WithInput = (run: ToolRun) => Promise<Record<string, unknown>>;
/** Reports a handler failure that is not a JSON-RPC error. */
export type ErrorReporter = (error: unknown, info: { readonly method: string; readonly requestId: RequestId }) => void;

interface Running {
  readonly controller: AbortController;
  readonly broker: TaskInputBroker | undefined;
  readonly session: ServerSession | undefined;
  readonly timer: ReturnType<typeof setTimeout> | undefined;
}

function isObject(value: unknown): value is Record<string, unknown> {
  return typeof value === 'object' && value !== null && !Array.isArray(value);
}

/** The -32602 for a task that does not exist for this requestor (never says which). */
export function unknownTask(taskId: string): JsonRpcError {
  return JsonRpcError.invalidParams(`Failed to retrieve task: Task not found`, { taskId });
}

/** Owns the running tasks of one server. */
export class TaskManager {
  /** The store (shared by both eras). */
  readonly store: TaskStore;
  readonly #mode: TaskMode;
  readonly #ttlMs: number | null;
  readonly #pollMs: number;
  /** Tasks per `tasks/list` page. */
  readonly pageSize: number;
  readonly #newId: () => string;
  readonly #report: ErrorReporter;
  readonly #running = new Map<string, Running>();
  readonly #watchers = new Map<string, Set<(task: TaskRecord) => void>>();
  readonly #sessionIds = new WeakMap<ServerSession, string>();

  constructor(options: TasksOptions, report: ErrorReporter) {
    this.store = options.store ?? new MemoryTaskStore();
    this.#mode = options.mode ?? 'auto';
    this.#ttlMs = options.ttlMs === undefined ? 3_600_000 : options.ttlMs;
    this.#pollMs = options.pollIntervalMs ?? 500;
    this.pageSize = options.pageSize ?? 50;
    this.#newId = options.newId ?? (() => crypto.randomUUID());
    this.#report = report;
  }

  /** How many task handlers are running. */
  get runningCount(): number {
    return this.#running.size;
  }

  /** Who owns what `call` creates or asks about. */
  ownerOf(call: Pick<TaskCall, 'principal' | 'session'>): TaskOwner {
    const principal = call.principal ?? '';
    if (call.session === undefined) return { principal };
    let id = this.#sessionIds.get(call.session);
    if (id === undefined) this.#sessionIds.set(call.session, (id = crypto.randomUUID()));
    return { principal, session: id };
  }

  /** Serves `tools/call` of `tool`: as a task, or through `withInput` as usual. */
  /**
   * Whether a `tools/call` involves tasks at all: the client declared the tasks extension
   * (2026-07-28), asked for a task (`params.task`, 2025-11-25), or the tool requires one.
   * When not, {@link callTool} would only run the call, so the caller skips the task path.
   */
  static involves(revision: TaskCall['revision'], caps: TaskCall['caps'], params: Readonly<Record<string, unknown>>, tool: Tool): boolean {
    if (tool.execution?.taskSupport === 'required') return true;
    if (isStateless(revision)) return hasExtension(caps, TASKS_EXTENSION_ID);
    return revision === '2025-11-25' && isObject(params['task']);
  }

  async callTool(call: TaskCall, tool: Tool, run: ToolRun, withInput: WithInput): Promise<Record<string, unknown>> {
    const support = tool.execution?.taskSupport ?? 'forbidden';
    if (isStateless(call.revision)) {
      if (!hasExtension(call.caps, TASKS_EXTENSION_ID)) {
        if (support === 'required') throw missingRequiredClientCapability({ extensions: { [TASKS_EXTENSION_ID]: {} } });
        return withInput(run);
      }
      if (this.#wants(tool, call)) return this.#start(call, 'extension', this.#ttlMs, run);
      return this.#deferred(call, run, withInput);
    }
    if (call.revision !== '2025-11-25') return withInput(run);
    const requested = call.params['task'];
    if (!isObject(requested)) {
      if (support === 'required') throw new JsonRpcError(ErrorCode.MethodNotFound, `Tool ${tool.name} must be called as a task (params.task)`, { name: tool.name });
      return withInput(run);
    }
    if (support === 'forbidden') throw new JsonRpcError(ErrorCode.MethodNotFound, `Tool ${tool.name} does not support task-augmented calls`, { name: tool.name });
    const ttl = requested['ttl'];
    const wanted = typeof ttl === 'number' ? ttl : this.#ttlMs;
    const ttlMs = wanted === null ? this.#ttlMs : this.#ttlMs === null ? wanted : Math.min(wanted, this.#ttlMs);
    return this.#start(call, 'core', ttlMs, run);
  }

  /** The task `taskId` if `call`'s requestor owns it; -32602 otherwise (unknown, expired or not theirs). */
  async owned(taskId: string, call: Pick<TaskCall, 'principal' | 'session'>): Promise<TaskRecord> {
    const task = await this.store.get(taskId);
    const owner = this.ownerOf(call);
    if (task === undefined || task.owner.principal !== owner.principal || task.owner.session !== owner.session) throw unknownTask(taskId);
    return task;
  }

  /** Feeds `tasks/update` answers to the task's handler (ignored when it is not waiting). */
  async deliver(taskId: string, responses: Readonly<Record<string, unknown>>): Promise<void> {
    await this.#running.get(taskId)?.broker?.deliver(responses);
  }

  /** Moves a non-terminal task to `cancelled` and aborts its handler. Resolves with the new state. */
  async cancel(task: TaskRecord): Promise<TaskRecord> {
    const running = this.#running.get(task.taskId);
    const updated = await this.#apply(task.taskId, { status: 'cancelled', statusMessage: 'Cancelled at the requestor\u2019s request', inputRequests: null });
    running?.controller.abort(new JsonRpcError(ErrorCode.InternalError, 'The task was cancelled'));
    return updated ?? task;
  }

  /**
   * Resolves on the next change of `taskId`, after `ms`, or rejects when `signal` aborts.
   * Lets `tasks/result` block without busy polling (and still see other instances' changes).
   */
  changed(taskId: string, signal: AbortSignal, ms = 1_000): Promise<void> {
    return new Promise<void>((resolve, reject) => {
      const done = (): void => {
        clearTimeout(timer);
        unwatch();
        signal.removeEventListener('abort', onAbort);
      };
      const onAbort = (): void => {
        done();
        reject(signal.reason ?? new Error('aborted'));
      };
      const unwatch = this.watch(taskId, () => {
        done();
        resolve();
      });
      const timer = setTimeout(() => {
        done();
        resolve();
      }, ms);
      if (signal.aborted) onAbort();
      else signal.addEventListener('abort', onAbort, { once: true });
    });
  }

  /** Calls `listener` with every new state of `taskId`. Returns the unsubscribe function. */
  watch(taskId: string, listener: (task: TaskRecord) => void): () => void {
    let set = this.#watchers.get(taskId);
    if (set === undefined) this.#watchers.set(taskId, (set = new Set()));
    set.add(listener);
    return () => {
      set.delete(listener);
      if (set.size === 0 && this.#watchers.get(taskId) === set) this.#watchers.delete(taskId);
    };
  }

  /** Aborts every running handler (server shutdown). */
  close(): void {
    for (const [taskId, running] of this.#running) {
      running.controller.abort(new JsonRpcError(ErrorCode.InternalError, 'The server is shutting down'));
      this.#untrack(taskId);
    }
  }

  // ---- internals ----------------------------------------------------------------------

  #wants(tool: Tool, call: TaskCall): boolean {
    const support = tool.execution?.taskSupport;
    const mode = this.#mode;
    if (mode === 'never') return false;
    if (mode === 'always') return support !== 'forbidden';
    if (mode === 'auto') return support === 'optional' || support === 'required';
    return mode(tool, { protocolVersion: call.revision, principal: call.principal, arguments: call.params['arguments'], meta: call.meta });
  }

  async #create(call: TaskCall, era: TaskEra, ttlMs: number | null): Promise<TaskRecord> {
    try {
      return await this.store.create({
        taskId: this.#newId(),
        owner: this.ownerOf(call),
        era,
        method: call.method,
        ttlMs,
        pollIntervalMs: this.#pollMs,
      });
    } catch (error) {
      if (error instanceof TaskCapacityError) throw JsonRpcError.internal('The server cannot take more tasks right now');
      throw error;
    }
  }

  /** Creates the task, then runs the handler in the background with the task's context. */
  async #start(call: TaskCall, era: TaskEra, ttlMs: number | null, run: ToolRun): Promise<Record<string, unknown>> {
    const task = await this.#create(call, era, ttlMs);
    const context = this.#launch(call, task);
    void this.#settle(task, Promise.resolve().then(() => run(context)));
    return era === 'extension' ? extCreateResult(task) : { task: coreTask(task) };
  }

  /** Tracks a created task and builds its handler context. */
  #launch(call: TaskCall, task: TaskRecord): HandlerContext {
    const controller = new AbortController();
    const publish = (outstanding: Readonly<Record<string, InputRequest>>): Promise<void> => this.#publishInputs(task.taskId, outstanding);
    let broker: InputBroker;
    let extBroker: TaskInputBroker | undefined;
    if (task.era === 'core' && call.session !== undefined) {
      broker = new SessionTaskBroker(call.session.peer, call.caps, task.taskId, publish);
    } else {
      broker = extBroker = new TaskInputBroker(call.caps, publish);
    }
    let timer: ReturnType<typeof setTimeout> | undefined;
    if (task.ttlMs !== null) {
      timer = setTimeout(() => {
        controller.abort(new JsonRpcError(ErrorCode.InternalError, 'The task expired'));
        this.#untrack(task.taskId);
      }, task.ttlMs);
      (timer as { unref?: () => void }).unref?.();
    }
    this.#running.set(task.taskId, { controller, broker: extBroker, session: call.session, timer });
    const context = call.context(broker, controller.signal);
    bindTask(context, task.taskId);
    return context;
  }

  /** Runs under MRTR; the handler may escalate with `runAsTask(ctx)`, answering with the task. */
  #deferred(call: TaskCall, run: ToolRun, withInput: WithInput): Promise<Record<string, unknown>> {
    return withInput(async (inner) => {
      const outer = new SwitchableContext(inner);
      let task: TaskRecord | undefined;
      let announce: (task: TaskRecord) => void = () => undefined;
      const escalated = new Promise<TaskRecord>((resolve) => (announce = resolve));
      let escalating: Promise<boolean> | undefined;
      bindEscalation(outer, () =>
        (escalating ??= (async () => {
          const created = await this.#create(call, 'extension', this.#ttlMs);
          outer.switchTo(this.#launch(call, created), created.taskId);
          task = created;
          announce(created);
          return true;
        })()),
      );
      const work = run(outer);
      const first = await Promise.race([work.then(() => undefined), escalated]);
      if (task === undefined) return work;
      void this.#settle(task, work);
      return extCreateResult(first ?? task);
    });
  }

  /** Records the handler's outcome (terminal states never change afterwards). */
  async #settle(task: TaskRecord, work: Promise<Record<string, unknown>>): Promise<void> {
    let patch: TaskPatch;
    try {
      const result = await work;
      const failed = task.era === 'core' && result['isError'] === true;
      patch = { status: failed ? 'failed' : 'completed', result, inputRequests: null };
    } catch (error) {
      let wire;
      if (error instanceof JsonRpcError) wire = error.toJSON();
      else {
        if (this.#running.get(task.taskId)?.controller.signal.aborted !== true) this.#report(error, { method: task.method, requestId: task.taskId });
        wire = JsonRpcError.internal().toJSON();
      }
      patch = { status: 'failed', statusMessage: wire.message, error: wire, inputRequests: null };
    }
    try {
      await this.#apply(task.taskId, patch);
    } catch (error) {
      this.#report(error, { method: task.method, requestId: task.taskId });
    } finally {
      this.#untrack(task.taskId);
    }
  }

  async #publishInputs(taskId: string, outstanding: Readonly<Record<string, InputRequest>>): Promise<void> {
    const waiting = Object.keys(outstanding).length > 0;
    await this.#apply(taskId, waiting ? { status: 'input_required', inputRequests: outstanding } : { status: 'working', inputRequests: null });
  }

  /** Updates the store and tells watchers (and the legacy session) when the status took. */
  async #apply(taskId: string, patch: TaskPatch): Promise<TaskRecord | undefined> {
    const task = await this.store.update(taskId, patch);
    if (task === undefined || (patch.status !== undefined && task.status !== patch.status)) return task;
    for (const listener of [...(this.#watchers.get(taskId) ?? [])]) {
      try {
        listener(task);
      } catch {
        // a broken watcher must not stop the task
      }
    }
    const session = this.#running.get(taskId)?.session;
    if (task.era === 'core' && session !== undefined) session.send('notifications/tasks/status', coreTask(task));
    return task;
  }

  #untrack(taskId: string): void {
    const running = this.#running.get(taskId);
    if (running === undefined) return;
    if (running.timer !== undefined) clearTimeout(running.timer);
    this.#running.delete(taskId);
  }
}

