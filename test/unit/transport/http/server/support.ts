/**
 * Shared helpers for the Streamable HTTP tests: a fake dispatcher (echo, notifications on
 * demand, a never-ending listen), request builders and SSE collectors.
 *
 * @module
 */
import type { JsonRpcNotification, JsonRpcRequest, JsonRpcResponse, Params } from '../../../../../src/jsonrpc/messages.js';
import { SseParser } from '../../../../../src/transport/http/sse.js';
import { isSseStream, type HttpRequestLike, type HttpResponseLike } from '../../../../../src/transport/http/server/types.js';
import type { DispatchEnv, McpDispatcher, ToolHeaderParam } from '../../../../../src/transport/types.js';

export const VERSION = '2026-07-28';

/** A fake server. Methods: `echo`, `tools/call`, `prompts/get`, `resources/read`, `tasks/get`, `progress`, `listen`, `fail`, `slow`. */
export interface FakeDispatcher extends McpDispatcher {
  readonly envs: DispatchEnv[];
  readonly messages: (JsonRpcRequest | JsonRpcNotification)[];
  readonly aborted: string[];
  /** Each dispatch's own promise, in arrival order (await one to know that request is done). */
  readonly settled: Promise<JsonRpcResponse | undefined>[];
  /** Resolves once `n` dispatches have begun. */
  began(n: number): Promise<void>;
}

const sqlHeaders: readonly ToolHeaderParam[] = [
  { name: 'Region', path: ['region'], type: 'string' },
  { name: 'Limit', path: ['opts', 'limit'], type: 'integer' },
  { name: 'Dry', path: ['dry'], type: 'boolean' },
];

function ok(id: JsonRpcRequest['id'], result: Record<string, unknown>): JsonRpcResponse {
  return { jsonrpc: '2.0', id, result: { resultType: 'complete', ...result } };
}

export function fakeDispatcher(): FakeDispatcher {
  const envs: DispatchEnv[] = [];
  const messages: (JsonRpcRequest | JsonRpcNotification)[] = [];
  const aborted: string[] = [];
  const settled: Promise<JsonRpcResponse | undefined>[] = [];
  let waiting: { readonly n: number; readonly resolve: () => void }[] = [];
  const dispatch = async (message: JsonRpcRequest | JsonRpcNotification, env: DispatchEnv): Promise<JsonRpcResponse | undefined> => {
    envs.push(env);
    messages.push(message);
    waiting = waiting.filter((w) => (envs.length >= w.n ? (w.resolve(), false) : true));
    env.signal.addEventListener('abort', () => aborted.push(message.method), { once: true });
    if (!('id' in message)) return undefined;
    const params = message.params ?? {};
    const { id } = message;
    switch (message.method) {
      case 'echo':
      case 'tools/call':
      case 'prompts/get':
      case 'resources/read':
      case 'tasks/get':
      case 'tools/list':
        return ok(id, { echo: params });
      case 'progress': {
        const n = typeof params['count'] === 'number' ? params['count'] : 2;
        for (let i = 0; i < n; i++) {
          env.notify({ jsonrpc: '2.0', method: 'notifications/progress', params: { progress: i, text: 'line1\nline2' } });
          await new Promise((r) => setTimeout(r, 1));
        }
        return ok(id, { done: n });
      }
      case 'listen':
        env.notify({ jsonrpc: '2.0', method: 'notifications/subscriptions/acknowledged', params: { _meta: { 'io.modelcontextprotocol/subscriptionId': id } } });
        await new Promise<void>((resolve) => {
          if (env.signal.aborted) resolve();
          env.signal.addEventListener('abort', () => resolve(), { once: true });
        });
        // The transport must drop anything sent after cancellation.
        env.notify({ jsonrpc: '2.0', method: 'notifications/too_late' });
        return ok(id, { late: true });
      case 'fail': {
        const code = typeof params['code'] === 'number' ? params['code'] : -32603;
        return { jsonrpc: '2.0', id, error: { code, message: 'failed' } };
      }
      case 'slow':
        await new Promise((r) => setTimeout(r, typeof params['ms'] === 'number' ? params['ms'] : 5));
        return ok(id, { echo: params });
      default:
        return { jsonrpc: '2.0', id, error: { code: -32601, message: `Method not found: ${message.method}` } };
    }
  };
  return {
    envs,
    messages,
    aborted,
    settled,
    began(n) {
      return envs.length >= n ? Promise.resolve() : new Promise<void>((resolve) => waiting.push({ n, resolve }));
    },
    toolHeaders(name) {
      return name === 'sql' ? sqlHeaders : name === 'plain' ? [] : undefined;
    },
    dispatch(message, env) {
      const done = dispatch(message, env);
      settled.push(done);
      return done;
    },
  };
}

/**
 * Waits for `promise` with a deadline. The deadline timer is ref'd, so waiting on an event that
 * only unref'd timers produce (session sweeps, keep-alives) keeps the test process alive.
 */
export async function within<T>(promise: Promise<T>, what: string, ms = 5000): Promise<T> {
  let timer: ReturnType<typeof setTimeout> | undefined;
  const expired = new Promise<never>((_resolve, reject) => {
    timer = setTimeout(() => reject(new Error(`timed out after ${ms} ms waiting for ${what}`)), ms);
  });
  try {
    return await Promise.race([promise, expired]);
  } finally {
    clearTimeout(timer);
  }
}

/** `params` with a valid 2026 `_meta`. */
export function withMeta(params: Params = {}): Params {
  return { ...params, _meta: { 'io.modelcontextprotocol/protocolVersion': VERSION, 'io.modelcontextprotocol/clientCapabilities': {} } };
}

export function request(method: string, params: Params = {}, id: number | string = 1): JsonRpcRequest {
  return { jsonrpc: '2.0', id, method, params: withMeta(params) };
}

/** The headers a conforming client sends for `message`, lowercase. */
export function standardHeaders(message: { method: string; params?: Params }): Record<string, string> {
  const h: Record<string, string> = {
    host: 'localhost:3000',
    'content-type': 'application/json',
    accept: 'application/json, text/event-stream',
    'mcp-protocol-version': VERSION,
    'mcp-method': message.method,
  };
  const p = message.params ?? {};
  const name = message.method === 'resources/read' ? p['uri'] : message.method.startsWith('tasks/') ? p['taskId'] : p['name'];
  if (typeof name === 'string' && ['tools/call', 'prompts/get', 'resources/read', 'tasks/get'].includes(message.method)) h['mcp-name'] = name;
  return h;
}

const enc = new TextEncoder();

/**
 * An {@link HttpRequestLike} for `body` (an object is JSON-encoded) with the standard headers
 * of `message`; `headers` overrides them (names any case; `undefined` removes one).
 */
export function post(
  body: unknown,
  headers: Record<string, string | undefined> = {},
  extra: { method?: string; signal?: AbortSignal; chunks?: boolean } = {},
): HttpRequestLike {
  const message = typeof body === 'object' && body !== null && 'method' in body ? (body as { method: string; params?: Params }) : { method: 'echo' };
  const all: Record<string, string> = standardHeaders(message);
  for (const [k, v] of Object.entries(headers)) {
    if (v === undefined) delete all[k.toLowerCase()];
    else all[k.toLowerCase()] = v;
  }
  const bytes = typeof body === 'string' ? enc.encode(body) : body instanceof Uint8Array ? body : enc.encode(JSON.stringify(body));
  const req: HttpRequestLike = {
    method: extra.method ?? 'POST',
    path: '/mcp',
    header: (n) => all[n],
    body: extra.chunks === true ? chunked(bytes) : bytes,
    ...(extra.signal === undefined ? {} : { signal: extra.signal }),
  };
  return req;
}

async function* chunked(bytes: Uint8Array): AsyncIterable<Uint8Array> {
  for (let i = 0; i < bytes.length; i += 7) yield bytes.subarray(i, i + 7);
}

/** The JSON body of a plain response. */
export function json(response: HttpResponseLike): { id?: unknown; result?: Record<string, unknown>; error?: { code: number; message: string; data?: unknown } } {
  const body = response.body;
  if (body === undefined || isSseStream(body)) throw new Error('expected a JSON body');
  return JSON.parse(typeof body === 'string' ? body : new TextDecoder().decode(body)) as never;
}

/** Collects an SSE response until it ends; returns the parsed `data` JSON values. */
export function collectSse(response: HttpResponseLike): Promise<unknown[]> {
  const body = response.body;
  if (!isSseStream(body)) throw new Error('expected an SSE body');
  return new Promise((resolve) => {
    const out: unknown[] = [];
    const parser = new SseParser({ onEvent: (e) => out.push(JSON.parse(e.data)) });
    body.start({
      write: (chunk) => parser.push(chunk),
      end: () => {
        parser.end();
        resolve(out);
      },
    });
  });
}
