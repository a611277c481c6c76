/**
 * Task storage: the {@link TaskStore} contract (async, so a SQL or Redis implementation fits)
 * and {@link MemoryTaskStore}, the in-process default with TTL expiry and a size bound.
 *
 * A store keeps the durable half of a task: its owner, status, timestamps, lifetime, the
 * outstanding input requests and, once terminal, the result or JSON-RPC error. The running
 * handler (in-process) lives in the task manager; the store never sees it. Stores enforce the
 * one rule every backend must keep: a terminal task (`completed`, `failed`, `cancelled`) never
 * changes again.
 *
 * @see https://modelcontextprotocol.io/specification/2025-11-25/basic/utilities/tasks
 * @module
 */
import type { JsonRpcErrorObject } from '../../jsonrpc/errors.js';
import type { InputRequest } from '../../protocol/model/mrtr.js';
import { isTerminalTaskStatus, type TaskStatus } from '../../protocol/model/tasks.js';

/** Who may see a task: the authenticated principal ('' when anonymous) and, on legacy sessions, the session. */
export interface TaskOwner {
  readonly principal: string;
  /** Set for tasks created on a stateful (2025-11-25) session. */
  readonly session?: string;
}

/** Which wire form created the task. */
export type TaskEra = 'core' | 'extension';

/** A stored task. Times are epoch milliseconds. */
export interface TaskRecord {
  readonly taskId: string;
  readonly owner: TaskOwner;
  readonly era: TaskEra;
  /** The request the task stands for (`tools/call`). */
  readonly method: string;
  readonly status: TaskStatus;
  readonly statusMessage?: string;
  readonly createdAt: number;
  readonly lastUpdatedAt: number;
  /** Lifetime from creation in ms; null = unlimited. */
  readonly ttlMs: number | null;
  readonly pollIntervalMs?: number;
  /** Outstanding input requests by (task-unique) key, while `input_required`. */
  readonly inputRequests?: Readonly<Record<string, InputRequest>>;
  /** The underlying request's result (when it produced one). */
  readonly result?: Readonly<Record<string, unknown>>;
  /** The underlying request's JSON-RPC error (status `failed`). */
  readonly error?: JsonRpcErrorObject;
}

/** What {@link TaskStore.create} needs. */
export type NewTask = Omit<TaskRecord, 'status' | 'createdAt' | 'lastUpdatedAt' | 'inputRequests' | 'result' | 'error'>;

/** A change to a task. `inputRequests: null` clears them. */
export interface TaskPatch {
  readonly status?: TaskStatus;
  readonly statusMessage?: string;
  readonly inputRequests?: Readonly<Record<string, InputRequest>> | null;
  readonly result?: Readonly<Record<string, unknown>>;
  readonly error?: JsonRpcErrorObject;
}

/** One page of {@link TaskStore.list}. */
export interface TaskPage {
  readonly tasks: readonly TaskRecord[];
  readonly nextCursor?: string;
}

/** Thrown by {@link TaskStore.list} for a cursor it did not issue. */
export class InvalidCursorError extends Error {
  override readonly name = 'InvalidCursorError';
}

/** Thrown by {@link TaskStore.create} when no room can be made. */
export class TaskCapacityError extends Error {
  override readonly name = 'TaskCapacityError';
}

/**
 * Durable task state. Every method is async so shared backends fit. Implementations must
 * resolve `get` for a task as soon as `create` has resolved (strong consistency), hide
 * expired tasks, and refuse to change a terminal task.
 */
export interface TaskStore {
  /** Stores a new task in status `working`; resolves once a `get` would find it. */
  create(task: NewTask): Promise<TaskRecord>;
  /** The task, or undefined when unknown or expired. */
  get(taskId: string): Promise<TaskRecord | undefined>;
  /**
   * Applies `patch` (bumping `lastUpdatedAt`). Resolves with the new record, or with the
   * unchanged record when it is already terminal, or undefined when unknown/expired.
   */
  update(taskId: string, patch: TaskPatch): Promise<TaskRecord | undefined>;
  /** The owner's tasks, oldest first, `limit` per page. Rejects with {@link InvalidCursorError}. */
  list(owner: TaskOwner, options: { readonly cursor?: string; readonly limit: number }): Promise<TaskPage>;
  /** Forgets a task. Resolves true when it existed. */
  delete(taskId: string): Promise<boolean>;
}

/** True when `task` belongs to `owner` (same principal; same session when the task has one). */
export function ownedBy(task: TaskRecord, owner: TaskOwner): boolean {
  return task.owner.principal === owner.principal && task.owner.session === owner.session;
}

/** Options of {@link MemoryTaskStore}. */
export interface MemoryTaskStoreOptions {
  /** Most tasks kept; expired then the oldest terminal ones make room. Default 10 000. */
  readonly maxTasks?: number;
  /** The clock (epoch ms). */
  readonly now?: () => number;
}

function expired(task: TaskRecord, now: number): boolean {
  return task.ttlMs !== null && now >= task.createdAt + task.ttlMs;
}

/** An in-process {@link TaskStore}: TTL expiry on access and on creation, bounded size. */
export class MemoryTaskStore implements TaskStore {
  readonly #tasks = new Map<string, TaskRecord>();
  readonly #max: number;
  readonly #now: () => number;

  constructor(options: MemoryTaskStoreOptions = {}) {
    this.#max = options.maxTasks ?? 10_000;
    this.#now = options.now ?? Date.now;
  }

  /** Number of stored tasks (expired ones included until swept). */
  get size(): number {
    return this.#tasks.size;
  }

  async create(task: NewTask): Promise<TaskRecord> {
    if (this.#tasks.size >= this.#max) this.#makeRoom();
    const now = this.#now();
    const record: TaskRecord = { ...task, status: 'working', createdAt: now, lastUpdatedAt: now };
    this.#tasks.set(record.taskId, record);
    return record;
  }

  async get(taskId: string): Promise<TaskRecord | undefined> {
    return this.#live(taskId);
  }

  async update(taskId: string, patch: TaskPatch): Promise<TaskRecord | undefined> {
    const current = this.#live(taskId);
    if (current === undefined || isTerminalTaskStatus(current.status)) return current;
    const { inputRequests, ...rest } = patch;
    const next: Record<string, unknown> = { ...current, ...rest, lastUpdatedAt: Math.max(this.#now(), current.lastUpdatedAt) };
    if (inputRequests === null) delete next['inputRequests'];
    else if (inputRequests !== undefined) next['inputRequests'] = inputRequests;
    const record = next as unknown as TaskRecord;
    this.#tasks.set(taskId, record);
    return record;
  }

  async list(owner: TaskOwner, options: { readonly cursor?: string; readonly limit: number }): Promise<TaskPage> {
    const now = this.#now();
    const mine = [...this.#tasks.values()].filter((t) => !expired(t, now) && ownedBy(t, owner));
    let start = 0;
    if (options.cursor !== undefined) {
      const index = mine.findIndex((t) => t.taskId === options.cursor);
      if (index < 0) throw new InvalidCursorError('unknown cursor');
      start = index + 1;
    }
    const tasks = mine.slice(start, start + options.limit);
    const last = tasks[tasks.length - 1];
    return start + tasks.length < mine.length && last !== undefined ? { tasks, nextCursor: last.taskId } : { tasks };
  }

  async delete(taskId: string): Promise<boolean> {
    return this.#tasks.delete(taskId);
  }

  #live(taskId: string): TaskRecord | undefined {
    const task = this.#tasks.get(taskId);
    if (task === undefined) return undefined;
    if (expired(task, this.#now())) {
      this.#tasks.delete(taskId);
      return undefined;
    }
    return task;
  }

  #makeRoom(): void {
    const now = this.#now();
    for (const [id, task] of this.#tasks) if (expired(task, now)) this.#tasks.delete(id);
    if (this.#tasks.size < this.#max) return;
    // Map order is creation order: evict the oldest finished tasks first.
    for (const [id, task] of this.#tasks) {
      if (isTerminalTaskStatus(task.status)) {
        this.#tasks.delete(id);
        if (this.#tasks.size < this.#max) return;
      }
    }
    throw new TaskCapacityError(`the task store is full (${this.#max} running tasks)`);
  }
}
