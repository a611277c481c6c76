// Test support for the tasks tests: an McpServer with task tools, reached over in-memory pairs
// by raw JSON-RPC Connections (optionally as a given principal), in either era.
import { Connection } from '../../../src/jsonrpc/connection.js';
import { JsonRpcError } from '../../../src/jsonrpc/errors.js';
import type { JsonRpcNotification, JsonRpcRequest } from '../../../src/jsonrpc/messages.js';
import { McpServer, type McpServerOptions } from '../../../src/server/mcpServer.js';
import { runAsTask } from '../../../src/server/tasks/context.js';
import type { TasksOptions } from '../../../src/server/tasks/manager.js';
import { ToolError } from '../../../src/server/tools.js';
import type { HandlerContext } from '../../../src/server/types.js';
import { createInMemoryPair } from '../../../src/transport/memory.js';

export const TASKS_EXT = 'io.modelcontextprotocol/tasks';
export const WITH_EXT = { elicitation: {}, extensions: { [TASKS_EXT]: {} } } as const;
export const NO_EXT = { elicitation: {} } as const;

export type Result = Record<string, unknown> & {
  resultType?: string;
  taskId?: string;
  status?: string;
  content?: { type: string; text?: string }[];
  isError?: boolean;
  result?: Record<string, unknown> & { content?: { text?: string }[]; isError?: boolean; _meta?: Record<string, unknown> };
  error?: { code: number; message: string };
  inputRequests?: Record<string, { method: string; params: Record<string, unknown> }>;
  task?: Record<string, unknown> & { taskId: string; status: string };
  tasks?: { taskId: string }[];
  nextCursor?: string;
};

/** A gate a test opens to let a tool finish. */
export class Gate {
  #open: () => void = () => undefined;
  readonly opened = new Promise<void>((resolve) => (this.#open = resolve));
  open(): void {
    this.#open();
  }
}

function sleep(ms: number, signal: AbortSignal): Promise<void> {
  return new Promise((resolve, reject) => {
    const timer = setTimeout(resolve, ms);
    signal.addEventListener('abort', () => {
      clearTimeout(timer);
      reject(signal.reason);
    });
  });
}

/** A server with the test tools; `gate` holds `wait` until opened. */
export function makeServer(tasks: TasksOptions | boolean = true, extra: Partial<McpServerOptions> = {}): { server: McpServer; gate: Gate; errors: unknown[] } {
  const errors: unknown[] = [];
  const server = new McpServer({ name: 'tasks-test', version: '1.0.0' }, { tasks, onError: (e) => errors.push(e), ...extra });
  const gate = new Gate();
  const optional = { taskSupport: 'optional' } as const;
  server.tool('plain', { description: 'never a task' }, () => 'plain result');
  server.tool('wait', { execution: optional }, async (_a, ctx) => {
    await new Promise<void>((resolve, reject) => {
      void gate.opened.then(resolve);
      ctx.signal.addEventListener('abort', () => reject(ctx.signal.reason));
    });
    return 'waited';
  });
  server.tool('sleepy', { execution: optional }, async (_a, ctx) => {
    await sleep(60_000, ctx.signal);
    return 'never';
  });
  server.tool('fast', { execution: optional }, () => 'fast result');
  server.tool('tool_error', { execution: { taskSupport: 'required' } }, () => {
    throw new ToolError('it broke');
  });
  server.tool('rpc_error', { execution: optional }, () => {
    throw new JsonRpcError(-32603, 'protocol failure');
  });
  server.tool('ask', { execution: optional }, async (_a, ctx: HandlerContext) => {
    const answer = await ctx.elicit({ message: 'ok?', requestedSchema: { type: 'object', properties: { ok: { type: 'boolean' } } } }, { key: 'ok' });
    return `answer: ${JSON.stringify(answer.content ?? null)}`;
  });
  server.tool('ask_twice', { execution: optional }, async (_a, ctx: HandlerContext) => {
    const schema = { type: 'object', properties: { v: { type: 'string' } } } as const;
    const [a, b] = await Promise.all([ctx.elicit({ message: 'a?', requestedSchema: schema }, { key: 'a' }), ctx.elicit({ message: 'b?', requestedSchema: schema }, { key: 'b' })]);
    const again = await ctx.elicit({ message: 'a again?', requestedSchema: schema }, { key: 'a' });
    return `${String(a.content?.['v'])}-${String(b.content?.['v'])}-${String(again.content?.['v'])}`;
  });
  server.tool('escalate', {}, async (_a, ctx: HandlerContext) => {
    const answer = await ctx.elicit({ message: 'name?', requestedSchema: { type: 'object', properties: { name: { type: 'string' } } } }, { key: 'user_name' });
    const became = await runAsTask(ctx);
    return `Hello ${String(answer.content?.['name'])} (task: ${became})`;
  });
  return { server, gate, errors };
}

export interface Client {
  readonly conn: Connection;
  readonly notifications: JsonRpcNotification[];
  /** Server→client requests received (legacy sessions). */
  readonly requests: JsonRpcRequest[];
  /** A 2026-07-28 request with per-request caps. */
  req(method: string, params?: Record<string, unknown>, caps?: Record<string, unknown>): Promise<Result>;
  /** A stateful request (after `initialize`). */
  legacy(method: string, params?: Record<string, unknown>): Promise<Result>;
  /** The first notification (already received or still to come) matching `predicate`. */
  notified(predicate: (n: JsonRpcNotification) => boolean): Promise<JsonRpcNotification>;
  close(): Promise<void>;
}

/** Connects a raw client, as `principal` when given; `answer` serves server→client requests. */
export async function connect(server: McpServer, principal?: string, answer?: (request: JsonRpcRequest) => Record<string, unknown>): Promise<Client> {
  const [clientSide, serverSide] = createInMemoryPair(principal === undefined ? {} : { principal: { id: principal } });
  await server.connect(serverSide);
  const notifications: JsonRpcNotification[] = [];
  const requests: JsonRpcRequest[] = [];
  let waiters: { readonly predicate: (n: JsonRpcNotification) => boolean; readonly resolve: (n: JsonRpcNotification) => void }[] = [];
  const conn = new Connection(clientSide, {
    defaultTimeoutMs: 5_000,
    onNotification: (n) => {
      notifications.push(n);
      waiters = waiters.filter((w) => (w.predicate(n) ? (w.resolve(n), false) : true));
    },
    onRequest: async (request) => {
      requests.push(request);
      return answer?.(request) ?? {};
    },
  });
  await conn.start();
  return {
    conn,
    notifications,
    requests,
    req: async (method, params = {}, caps = WITH_EXT) => {
      const meta = {
        'io.modelcontextprotocol/protocolVersion': '2026-07-28',
        'io.modelcontextprotocol/clientCapabilities': caps,
        ...((params['_meta'] as Record<string, unknown> | undefined) ?? {}),
      };
      return (await conn.request(method, { ...params, _meta: meta })) as Result;
    },
    legacy: async (method, params = {}) => (await conn.request(method, params)) as Result,
    notified: (predicate) => {
      const seen = notifications.find(predicate);
      return seen !== undefined ? Promise.resolve(seen) : new Promise((resolve) => waiters.push({ predicate, resolve }));
    },
    close: () => conn.close(),
  };
}

/** `initialize` + `notifications/initialized` for 2025-11-25. */
export async function initLegacy(client: Client, capabilities: Record<string, unknown> = { elicitation: {} }): Promise<Result> {
  const result = await client.legacy('initialize', { protocolVersion: '2025-11-25', capabilities, clientInfo: { name: 't', version: '1' } });
  await client.conn.notify('notifications/initialized');
  return result;
}

/** Polls `tasks/get` (2026) until `pred` holds. */
export async function pollUntil(client: Client, taskId: string, pred: (task: Result) => boolean, ms = 3_000): Promise<Result> {
  const end = Date.now() + ms;
  for (;;) {
    const task = await client.req('tasks/get', { taskId });
    if (pred(task)) return task;
    if (Date.now() > end) throw new Error(`task ${taskId} stuck: ${JSON.stringify(task)}`);
    await new Promise((r) => setTimeout(r, 10));
  }
}

/** Asserts `promise` rejects with JSON-RPC `code`; returns the error. */
export async function rpcError(promise: Promise<unknown>, code: number): Promise<JsonRpcError> {
  try {
    await promise;
  } catch (error) {
    if (error instanceof JsonRpcError && error.code === code) return error;
    throw new Error(`expected ${code}, got ${error instanceof JsonRpcError ? `${error.code} ${error.message}` : String(error)}`);
  }
  throw new Error(`expected ${code}, got a result`);
}

export const terminal = (t: Result): boolean => t.status === 'completed' || t.status === 'failed' || t.status === 'cancelled';
