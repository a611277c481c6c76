// Test support: an everything server on an in-memory pair, driven by a raw JSON-RPC
// Connection that stamps 2026-07-28 `_meta` on every request.
import { createEverythingServer, type EverythingOptions } from '../../../../src/demo/everything/server.js';
import { Connection } from '../../../../src/jsonrpc/connection.js';
import { JsonRpcError } from '../../../../src/jsonrpc/errors.js';
import type { JsonRpcNotification } from '../../../../src/jsonrpc/messages.js';
import type { McpServer } from '../../../../src/server/mcpServer.js';
import { createInMemoryPair } from '../../../../src/transport/memory.js';

export const REVISION = '2026-07-28';
export const ALL_CAPS = { elicitation: {}, sampling: {}, roots: { listChanged: true } } as const;

/** `_meta` of a 2026-07-28 request. */
export function meta(caps: Record<string, unknown> = ALL_CAPS, extra: Record<string, unknown> = {}): Record<string, unknown> {
  return {
    'io.modelcontextprotocol/protocolVersion': REVISION,
    'io.modelcontextprotocol/clientCapabilities': caps,
    'io.modelcontextprotocol/clientInfo': { name: 'everything-test', version: '1.0.0' },
    ...extra,
  };
}

export type Result = Record<string, unknown> & {
  resultType?: string;
  content?: { type: string; text?: string; data?: string; mimeType?: string; resource?: Record<string, unknown> }[];
  isError?: boolean;
  inputRequests?: Record<string, { method: string; params: Record<string, unknown> }>;
  requestState?: string;
};

export interface Harness {
  readonly server: McpServer;
  readonly conn: Connection;
  readonly notifications: JsonRpcNotification[];
  /** Sends `method` with `params` and 2026 `_meta` (`caps`, `metaExtra` merged in). */
  request(method: string, params?: Record<string, unknown>, options?: { caps?: Record<string, unknown>; metaExtra?: Record<string, unknown>; signal?: AbortSignal }): Promise<Result>;
  /** `tools/call` shortcut. */
  call(name: string, args?: Record<string, unknown>, more?: Record<string, unknown>, caps?: Record<string, unknown>): Promise<Result>;
  /** Resolves once a notification matching `pred` has arrived (or rejects after `ms`). */
  waitFor(pred: (n: JsonRpcNotification) => boolean, ms?: number): Promise<JsonRpcNotification>;
  close(): Promise<void>;
}

/** Starts a fresh server (watched-resource timer off unless asked) and a raw client. */
export async function start(options: EverythingOptions = {}): Promise<Harness> {
  const server = createEverythingServer({ watchIntervalMs: 0, ...options });
  const [clientSide, serverSide] = createInMemoryPair();
  await server.connect(serverSide);
  const notifications: JsonRpcNotification[] = [];
  const waiters = new Set<{ pred: (n: JsonRpcNotification) => boolean; resolve: (n: JsonRpcNotification) => void }>();
  const conn = new Connection(clientSide, {
    defaultTimeoutMs: 5_000,
    onNotification: (n) => {
      notifications.push(n);
      for (const w of [...waiters]) {
        if (w.pred(n)) {
          waiters.delete(w);
          w.resolve(n);
        }
      }
    },
  });
  await conn.start();
  const request: Harness['request'] = async (method, params = {}, options = {}) => {
    const ownMeta = (params['_meta'] ?? {}) as Record<string, unknown>;
    const body = { ...params, _meta: { ...meta(options.caps, options.metaExtra), ...ownMeta } };
    return (await conn.request(method, body, options.signal === undefined ? {} : { signal: options.signal })) as Result;
  };
  return {
    server,
    conn,
    notifications,
    request,
    call: (name, args = {}, more = {}, caps) => request('tools/call', { name, arguments: args, ...more }, caps === undefined ? {} : { caps }),
    waitFor: (pred, ms = 2_000) => {
      const seen = notifications.find(pred);
      if (seen !== undefined) return Promise.resolve(seen);
      return new Promise((resolve, reject) => {
        const entry = { pred, resolve };
        waiters.add(entry);
        setTimeout(() => {
          if (waiters.delete(entry)) reject(new Error('timed out waiting for a notification'));
        }, ms).unref();
      });
    },
    close: async () => {
      await conn.close();
      await server.close();
    },
  };
}

/** The single text of a complete tool result (asserting there is exactly one text block). */
export function textOf(result: Result): string {
  const content = result.content ?? [];
  const first = content[0];
  if (content.length !== 1 || first?.type !== 'text' || typeof first.text !== 'string') {
    throw new Error(`expected one text block, got ${JSON.stringify(result)}`);
  }
  return first.text;
}

/** Asserts `promise` rejects with a JSON-RPC error of `code`; returns it. */
export async function rpcError(promise: Promise<unknown>, code: number): Promise<JsonRpcError> {
  try {
    await promise;
  } catch (error) {
    if (error instanceof JsonRpcError && error.code === code) return error;
    throw new Error(`expected JSON-RPC error ${code}, got ${error instanceof JsonRpcError ? `${error.code} ${error.message}` : String(error)}`);
  }
  throw new Error(`expected JSON-RPC error ${code}, got a result`);
}

/** Lets queued microtasks and one macrotask run (notifications in flight arrive). */
export function settle(ms = 10): Promise<void> {
  return new Promise((resolve) => setTimeout(resolve, ms));
}

export const elicitAccept = (content: Record<string, unknown>) => ({ action: 'accept', content });
export const sampled = (text: string) => ({ role: 'assistant', content: { type: 'text', text }, model: 'test-model', stopReason: 'endTurn' });
export const roots = (...uris: string[]) => ({ roots: uris.map((uri, i) => ({ uri, name: `root ${i}` })) });
