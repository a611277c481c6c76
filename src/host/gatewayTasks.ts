/**
 * The tasks extension (`io.modelcontextprotocol/tasks`, SEP-2663) through the gateway, by
 * pass-through: the server that runs a tool decides whether its call becomes a task, and the
 * gateway only routes.
 *
 * - **Creation.** A `tools/call` whose upstream request declared the extension declares it
 *   downstream too (on that request only). A downstream `CreateTaskResult` reaches the upstream
 *   with a gateway task id: 128 random bits, bound to the server, the server's own task id,
 *   the tool, and the upstream caller (the principal id; `''` when anonymous). The server's own
 *   id never leaves the gateway.
 * - **`tasks/get`, `tasks/update`, `tasks/cancel`** are looked up by gateway id and caller: a task
 *   of another caller, an expired one, one the owning server forgot and a forged id are all the
 *   same -32602 ("Task not found"), so an id never lets someone else read, answer or cancel a
 *   task, nor learn that it exists. Known ones go through the host's interceptor chain (method
 *   `tasks/get|update|cancel`, the owning server, the tool's exposed name; audit sees them) to
 *   the server that created the task and to no other, with its own id; `tasks/update` carries the
 *   upstream's answers to that server's `inputRequests` verbatim.
 * - **`notifications/tasks`**: a `subscriptions/listen` asking for `taskIds` is granted the
 *   caller's own tasks (-32021 without the extension on the listen request); the gateway listens
 *   on the owning servers for them and relays each notification with the gateway id.
 *
 * Why not gateway-owned tasks (our own task manager running the downstream call in the
 * background): the spec makes the server the sole decider, a tool that gathers input over MRTR
 * and then escalates (`runAsTask`) must first answer `input_required`, a long task would hold a
 * downstream request open against the server's timeout, and a downstream task's own
 * `inputRequests` would have to be re-modelled. Pass-through keeps every one of those as the
 * server implements it.
 *
 * Era bridging: the extension exists only on 2026-07-28. An upstream that does not declare it
 * never receives a task: its calls run as ordinary calls. A tool the server runs only as a task
 * (`taskSupport: "required"`) is the server's -32021 for a 2026-07-28 caller (it can declare the
 * extension), and for a 2025-11-25 caller (it cannot) the gateway runs the task itself and
 * answers with its result (`taskDriver.ts`). A downstream server on 2025-11-25 (core tasks,
 * `params.task`) or without the extension is never asked for a task, so its calls stay ordinary. The gateway advertises the extension upstream because it can always honour it:
 * it routes the methods and returns a task only where the owning server created one.
 *
 * Limits: the id table lives in the gateway process (a restart forgets it: the ids become
 * unknown). Results inlined in relayed notifications pass the chain's notification hooks (the
 * sanitiser), polled ones the whole chain (`tasks/get`).
 *
 * @see https://modelcontextprotocol.io/extensions/tasks/overview
 * @module
 */
import { ErrorCode, JsonRpcError } from '../jsonrpc/errors.js';
import type { JsonRpcNotification } from '../jsonrpc/messages.js';
import { missingRequiredClientCapability } from '../protocol/errors.js';
import { TASKS_EXTENSION_ID } from '../protocol/meta.js';
import { hasExtension, type ClientCapabilities } from '../protocol/model/capabilities.js';
import type { McpClient } from '../client/mcpClient.js';
import type { ListenGrant, ListenSource } from '../server/subscriptions.js';
import type { ForwardedTaskMethod } from '../server/tasks/forwarded.js';
import { unknownTask } from '../server/tasks/manager.js';
import { describeError } from '../util/errors.js';
import { silentLogger, type Logger } from '../util/logger.js';
import { randomId } from './bridge.js';
import type { Host, RequestScope } from './host.js';

/** Options of {@link GatewayTasks}. */
export interface GatewayTasksOptions {
  /** Most tasks remembered at once (expired, then finished, then the oldest make room). Default 10,000. */
  readonly maxTasks?: number;
  /** Longest a task is remembered; caps the server's `ttlMs` (and stands for `null`). Default 24 h. */
  readonly maxTtlMs?: number;
  /** The clock (tests). Default `Date.now`. */
  readonly now?: () => number;
  /** Mints gateway task ids; they must be unguessable. Default 128 random bits as hex. */
  readonly newId?: () => string;
  readonly logger?: Logger;
}

/** One task as the gateway remembers it. */
interface Entry {
  /** The gateway's id (what the upstream sees). */
  readonly id: string;
  readonly serverId: string;
  /** The server's own task id. */
  readonly taskId: string;
  /** The upstream caller (principal id, `''` when anonymous). */
  readonly owner: string;
  /** The exposed name of the tool whose call created the task. */
  readonly tool: string;
  expiresAt: number;
  finished: boolean;
}

const TERMINAL: ReadonlySet<unknown> = new Set(['completed', 'failed', 'cancelled']);
const WITH_TASKS: ClientCapabilities = Object.freeze({ extensions: Object.freeze({ [TASKS_EXTENSION_ID]: Object.freeze({}) }) });

/** `caps` plus the tasks extension (kept: any other extension it declares). */
export function withTasksExtension(caps: ClientCapabilities | undefined): ClientCapabilities {
  if (caps === undefined) return WITH_TASKS;
  return { ...caps, extensions: { ...caps.extensions, [TASKS_EXTENSION_ID]: {} } };
}

/** The owner key of a request's caller. */
function ownerOf(scope: Pick<RequestScope, 'principal'>): string {
  return scope.principal?.id ?? '';
}

/** The gateway's table of forwarded tasks (see the module comment). */
export class GatewayTasks {
  readonly #host: Host;
  readonly #entries = new Map<string, Entry>();
  readonly #max: number;
  readonly #maxTtlMs: number;
  readonly #now: () => number;
  readonly #newId: () => string;
  readonly #logger: Logger;

  constructor(host: Host, options: GatewayTasksOptions = {}) {
    this.#host = host;
    this.#max = options.maxTasks ?? 10_000;
    this.#maxTtlMs = options.maxTtlMs ?? 86_400_000;
    this.#now = options.now ?? Date.now;
    this.#newId = options.newId ?? randomId;
    this.#logger = options.logger ?? silentLogger;
  }

  /** How many tasks are remembered (expired ones until swept). */
  get size(): number {
    return this.#entries.size;
  }

  /**
   * Takes a downstream `CreateTaskResult` of `client` (one of the host's servers) for `tool`,
   * created for `scope`'s caller: remembers it and returns the upstream's copy, whose `taskId`
   * is the gateway's. A result of an unknown client is refused (-32603).
   */
  adopt(client: McpClient, tool: string, scope: Pick<RequestScope, 'principal'>, result: Record<string, unknown>): Record<string, unknown> {
    const serverId = this.#host.serverIds.find((id) => this.#host.server(id)?.client === client);
    const taskId = result['taskId'];
    if (serverId === undefined || typeof taskId !== 'string') throw JsonRpcError.internal('The server answered with a task the gateway cannot route');
    this.#makeRoom();
    let id = this.#newId();
    while (this.#entries.has(id)) id = this.#newId();
    const entry: Entry = { id, serverId, taskId, owner: ownerOf(scope), tool, expiresAt: 0, finished: TERMINAL.has(result['status']) };
    this.#touch(entry, result['ttlMs']);
    this.#entries.set(id, entry);
    return { ...result, taskId: id };
  }

  /**
   * Serves `tasks/get`, `tasks/update` or `tasks/cancel` for `scope`'s caller: -32602 unless the
   * task is theirs; else routed through the host's chain to the server that owns it.
   */
  async serve(method: ForwardedTaskMethod, params: Readonly<Record<string, unknown>>, scope: RequestScope): Promise<Record<string, unknown>> {
    const id = params['taskId'];
    let entry: Entry;
    try {
      if (typeof id !== 'string') throw JsonRpcError.invalidParams('taskId is required');
      entry = this.#owned(id, ownerOf(scope));
    } catch (error) {
      // Not this caller's task (or none): nothing is routed, but the request is recorded.
      return this.#host.record(method, scope, () => Promise.reject(error), { taskId: id });
    }
    const own: Record<string, unknown> = { taskId: entry.taskId };
    if (method === 'tasks/update') own['inputResponses'] = params['inputResponses'];
    let result: Record<string, unknown>;
    try {
      result = await this.#host.routeTaskRequest(method, entry.serverId, entry.tool, own, scope, (client, p, o) =>
        client.request(method, p, { signal: o.signal, timeoutMs: o.timeoutMs, capabilities: withTasksExtension(o.capabilities) }),
      );
    } catch (error) {
      // The server forgot it (expired, restarted): gone for the upstream too, under the gateway's id.
      if (error instanceof JsonRpcError && error.code === ErrorCode.InvalidParams && !('inputResponse' in (asObject(error.data) ?? {}))) {
        this.#entries.delete(entry.id);
        throw unknownTask(entry.id);
      }
      throw error;
    }
    if (method !== 'tasks/get') return {};
    this.#touch(entry, result['ttlMs']);
    if (TERMINAL.has(result['status'])) entry.finished = true;
    return { ...result, taskId: entry.id };
  }

  /**
   * The `subscriptions/listen` source of `notifications/tasks` (filter member `taskIds`):
   * -32021 when the listen request does not declare the extension; grants only the caller's own
   * tasks, relayed from the servers that own them.
   */
  listenSource(): ListenSource {
    return {
      grant: async (requested, request): Promise<ListenGrant | undefined> => {
        const ids = requested['taskIds'];
        if (!Array.isArray(ids) || ids.length === 0) return undefined;
        if (!hasExtension(request.caps, TASKS_EXTENSION_ID)) throw missingRequiredClientCapability({ extensions: { [TASKS_EXTENSION_ID]: {} } });
        const owner = ownerOf(request.env);
        const entries: Entry[] = [];
        for (const id of new Set(ids)) {
          const entry = typeof id === 'string' ? this.#live(id) : undefined;
          if (entry !== undefined && entry.owner === owner) entries.push(entry);
        }
        return { granted: { taskIds: entries.map((e) => e.id) }, attach: (send) => this.#relay(entries, send) };
      },
    };
  }

  /** Forgets every task (the gateway is closing). */
  clear(): void {
    this.#entries.clear();
  }

  // ---- internals ------------------------------------------------------------------------

  /** Listens on each owning server for its tasks; returns the cleanup. */
  #relay(entries: readonly Entry[], send: (method: string, params: Record<string, unknown>) => void): () => void {
    const controller = new AbortController();
    const byServer = new Map<string, Map<string, Entry>>();
    for (const e of entries) {
      let own = byServer.get(e.serverId);
      if (own === undefined) byServer.set(e.serverId, (own = new Map()));
      own.set(e.taskId, e);
    }
    for (const [serverId, own] of byServer) {
      const client = this.#host.server(serverId)?.client;
      if (client === undefined || client.era !== 'stateless') continue; // polling still works
      const onNotification = (n: JsonRpcNotification): void => {
        if (n.method !== 'notifications/tasks') return;
        const { _meta: _drop, ...params } = n.params ?? {};
        const entry = typeof params['taskId'] === 'string' ? own.get(params['taskId']) : undefined;
        if (entry === undefined) return;
        if (TERMINAL.has(params['status'])) entry.finished = true;
        // Through the chain's notification hooks (an inlined result is sanitised like a polled one).
        const vetted = this.#host.notification('notifications/tasks', { ...params, taskId: entry.id });
        if (vetted !== undefined) send('notifications/tasks', vetted);
      };
      client.listen({ taskIds: [...own.keys()] }, { capabilities: WITH_TASKS, signal: controller.signal, onNotification }).catch((error: unknown) => {
        if (!controller.signal.aborted) this.#logger.warn(`server ${serverId}: could not listen for task notifications`, { server: serverId, error: describeError(error) });
      });
    }
    return () => controller.abort();
  }

  #owned(id: string, owner: string): Entry {
    const entry = this.#live(id);
    if (entry === undefined || entry.owner !== owner) throw unknownTask(id);
    return entry;
  }

  #live(id: string): Entry | undefined {
    const entry = this.#entries.get(id);
    if (entry === undefined) return undefined;
    if (this.#now() >= entry.expiresAt) {
      this.#entries.delete(id);
      return undefined;
    }
    return entry;
  }

  /** Remembers the task for its (possibly changed) lifetime from now, capped. */
  #touch(entry: Entry, ttlMs: unknown): void {
    const ttl = typeof ttlMs === 'number' && Number.isFinite(ttlMs) && ttlMs >= 0 ? Math.min(ttlMs, this.#maxTtlMs) : this.#maxTtlMs;
    entry.expiresAt = Math.max(entry.expiresAt, this.#now() + ttl);
  }

  #makeRoom(): void {
    if (this.#entries.size < this.#max) return;
    const now = this.#now();
    for (const [id, e] of this.#entries) if (now >= e.expiresAt) this.#entries.delete(id);
    for (const [id, e] of this.#entries) {
      if (this.#entries.size < this.#max) return;
      if (e.finished) this.#entries.delete(id);
    }
    // Map order is creation order: the oldest running task goes last of all.
    for (const id of this.#entries.keys()) {
      if (this.#entries.size < this.#max) return;
      this.#entries.delete(id);
    }
  }
}

function asObject(value: unknown): Record<string, unknown> | undefined {
  return typeof value === 'object' && value !== null ? (value as Record<string, unknown>) : undefined;
}
