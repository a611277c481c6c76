/**
 * Handler contexts of task runs, and {@link runAsTask}: how a handler that first gathers input
 * synchronously (MRTR rounds on 2026-07-28) turns itself into a task for the rest of its work.
 *
 * A tool the server decides to run as a task from the start gets a context whose input broker
 * is the task's own (questions surface through `tasks/get` / session requests). A tool that
 * escalates later gets a {@link SwitchableContext}: it forwards to the request's ordinary
 * context until {@link runAsTask} creates the task, then to the task's context — so the same
 * handler code serves both paths.
 *
 * @see https://modelcontextprotocol.io/extensions/tasks/overview
 * @module
 */
import type { ServerSession } from '../session.js';
import type { RequestId } from '../../jsonrpc/messages.js';
import type { ClientCapabilities } from '../../protocol/model/capabilities.js';
import type { Implementation, LoggingLevel } from '../../protocol/model/common.js';
import type { ElicitParams, ElicitResult } from '../../protocol/model/elicitation.js';
import type { InputRequest } from '../../protocol/model/mrtr.js';
import type { CreateMessageParams, CreateMessageResult } from '../../protocol/model/sampling.js';
import type { ListRootsResult } from '../../protocol/model/utilities.js';
import type { ProtocolRevision } from '../../protocol/revisions.js';
import type { MessageExtra, Principal } from '../../transport/types.js';
import type { HandlerContext, InputOptions, TraceContext } from '../types.js';

/** What a context knows about its task: the id once the run is a task, and how to become one. */
interface TaskBinding {
  taskId: string | undefined;
  readonly escalate: () => Promise<boolean>;
}

const bindings = new WeakMap<HandlerContext, TaskBinding>();

/** Marks `context` as the context of task `taskId` (internal to the task manager). */
export function bindTask(context: HandlerContext, taskId: string): void {
  bindings.set(context, { taskId, escalate: async () => true });
}

/** Lets `context` escalate through `escalate` (internal to the task manager). */
export function bindEscalation(context: HandlerContext, escalate: () => Promise<boolean>): void {
  bindings.set(context, { taskId: undefined, escalate });
}

/**
 * Continues the current tool call as a task: the server answers the request with a
 * `CreateTaskResult` now and the handler keeps running in the background, its result kept for
 * `tasks/get`. Resolves true once the run is a task (immediately when it already is), false
 * when this request cannot become one (tasks off, legacy request without `params.task`, or a
 * client that did not declare the tasks extension) — the handler then simply continues.
 *
 * Call it after the synchronous part (e.g. questions answered over MRTR), before slow work.
 */
export async function runAsTask(context: HandlerContext): Promise<boolean> {
  const binding = bindings.get(context);
  return binding === undefined ? false : binding.escalate();
}

/** The id of the task `context` runs in, if any. */
export function taskIdOf(context: HandlerContext): string | undefined {
  return bindings.get(context)?.taskId;
}

/** A context that forwards to the request's context, then (after escalation) to the task's. */
export class SwitchableContext implements HandlerContext {
  #inner: HandlerContext;

  constructor(inner: HandlerContext) {
    this.#inner = inner;
  }

  /** Forwards to `inner` from now on, as the context of task `taskId`. */
  switchTo(inner: HandlerContext, taskId: string): void {
    this.#inner = inner;
    const binding = bindings.get(this);
    if (binding !== undefined) binding.taskId = taskId;
  }

  get requestId(): RequestId {
    return this.#inner.requestId;
  }
  get method(): string {
    return this.#inner.method;
  }
  get protocolVersion(): ProtocolRevision {
    return this.#inner.protocolVersion;
  }
  get clientCapabilities(): ClientCapabilities {
    return this.#inner.clientCapabilities;
  }
  get clientInfo(): Implementation | undefined {
    return this.#inner.clientInfo;
  }
  get session(): ServerSession | undefined {
    return this.#inner.session;
  }
  get principal(): Principal | undefined {
    return this.#inner.principal;
  }
  get signal(): AbortSignal {
    return this.#inner.signal;
  }
  onAbort(listener: () => void): () => void {
    return this.#inner.onAbort(listener);
  }
  get meta(): Readonly<Record<string, unknown>> {
    return this.#inner.meta;
  }
  get extra(): MessageExtra | undefined {
    return this.#inner.extra;
  }
  get trace(): TraceContext | undefined {
    return this.#inner.trace;
  }
  get round(): number {
    return this.#inner.round;
  }
  get state(): unknown {
    return this.#inner.state;
  }
  progress(progress: number, total?: number, message?: string): Promise<void> {
    return this.#inner.progress(progress, total, message);
  }
  log(level: LoggingLevel, data: unknown, logger?: string): Promise<void> {
    return this.#inner.log(level, data, logger);
  }
  elicit(params: ElicitParams, options?: InputOptions): Promise<ElicitResult> {
    return this.#inner.elicit(params, options);
  }
  sample(params: CreateMessageParams, options?: InputOptions): Promise<CreateMessageResult> {
    return this.#inner.sample(params, options);
  }
  listRoots(options?: InputOptions): Promise<ListRootsResult> {
    return this.#inner.listRoots(options);
  }
  input<K extends string>(requests: Readonly<Record<K, InputRequest>>): Promise<Record<K, unknown>> {
    return this.#inner.input(requests);
  }
  setState(value: unknown): void {
    this.#inner.setState(value);
  }
  singleUseState(): void {
    this.#inner.singleUseState();
  }
  closeStream(): boolean {
    return this.#inner.closeStream();
  }
}
