/**
 * Helpers for the shared-session tests: two "instances" (a real `McpServer` each, behind its
 * own Streamable HTTP handler on 127.0.0.1) sharing one {@link SessionStore}, bus and event
 * store, and an SSE reader that resolves on the awaited message (no polling).
 *
 * @module
 */
import assert from 'node:assert/strict';
import { listen, type ListeningServer } from '../../../../../src/adapters/nodeHttp.js';
import { McpServer } from '../../../../../src/server/mcpServer.js';
import type { EventStore } from '../../../../../src/transport/http/server/eventStore.js';
import { createStreamableHttpHandler, type StreamableHttpHandler } from '../../../../../src/transport/http/server/server.js';
import type { SessionBus, SessionStore } from '../../../../../src/transport/http/server/sessionStore.js';
import { SseParser, type SseEvent } from '../../../../../src/transport/http/sse.js';
import { PRINCIPAL } from '../../../../../src/transport/types.js';

/** What two instances share. */
export interface SharedBackends {
  readonly sessionStore: SessionStore;
  readonly sessionBus: SessionBus;
  readonly eventStore: EventStore;
}

/** One instance: its server, handler and URL. */
export interface Instance {
  readonly server: McpServer;
  readonly handler: StreamableHttpHandler;
  readonly url: string;
  close(): Promise<void>;
}

/** Starts an instance whose principal is the `x-test-principal` header (a stand-in for real authentication). */
export async function startInstance(backends: SharedBackends): Promise<Instance> {
  const server = new McpServer({ name: 'shared', version: '1.0.0' });
  server.tool('add', { inputSchema: { type: 'object', properties: { a: { type: 'number' }, b: { type: 'number' } } } }, (args) => String(Number(args['a']) + Number(args['b'])));
  server.tool('ask', {}, async (_args, ctx) => {
    const answer = await ctx.elicit({ message: 'Your name?', requestedSchema: { type: 'object', properties: { name: { type: 'string' } } } });
    return `Hello ${String((answer.content as Record<string, unknown> | undefined)?.['name'])}`;
  });
  // A request on the session's own channel (the GET stream), not on the call's POST stream.
  server.tool('roots', {}, async (_args, ctx) => JSON.stringify(await ctx.session?.peer.request('roots/list', undefined)));
  const handler = createStreamableHttpHandler(server, {
    sseKeepAliveMs: 0,
    sessionRevalidateMs: 0,
    ...backends,
    extra: (req) => {
      const who = req.header('x-test-principal');
      return who === undefined ? undefined : { [PRINCIPAL]: { id: who } };
    },
  });
  const running: ListeningServer = await listen(handler, { port: 0 });
  return {
    server,
    handler,
    url: `${running.url}mcp`,
    close: async () => {
      await running.close();
      await handler.close();
      await server.close();
    },
  };
}

const BASE = { 'content-type': 'application/json', accept: 'application/json, text/event-stream' };

/** POSTs a JSON-RPC message to `url` in `session`, as `principal`. */
export function post(url: string, body: unknown, session?: string, principal = 'alice'): Promise<Response> {
  return fetch(url, {
    method: 'POST',
    headers: { ...BASE, 'x-test-principal': principal, ...(session === undefined ? {} : { 'mcp-session-id': session, 'mcp-protocol-version': '2025-11-25' }) },
    body: JSON.stringify(body),
  });
}

/** Opens the GET stream of `session` at `url` (optionally resuming after `lastEventId`). */
export function openGet(url: string, session: string, lastEventId?: string, principal = 'alice'): Promise<Response> {
  return fetch(url, {
    method: 'GET',
    headers: { accept: 'text/event-stream', 'x-test-principal': principal, 'mcp-session-id': session, 'mcp-protocol-version': '2025-11-25', ...(lastEventId === undefined ? {} : { 'last-event-id': lastEventId }) },
  });
}

/** Initializes a 2025-11-25 session at `url` as `principal`; resolves with its id. */
export async function initialize(url: string, principal = 'alice'): Promise<string> {
  const res = await post(url, { jsonrpc: '2.0', id: 1, method: 'initialize', params: { protocolVersion: '2025-11-25', capabilities: { elicitation: {} }, clientInfo: { name: 'shared-test', version: '1' } } }, undefined, principal);
  assert.equal(res.status, 200);
  const id = res.headers.get('mcp-session-id');
  assert.ok(id !== null);
  await res.body?.cancel();
  return id;
}

type Waiter = { readonly predicate: (m: Record<string, unknown>) => boolean; readonly resolve: (m: Record<string, unknown>) => void };

/** Reads SSE events of a response; {@link next} resolves when a matching message arrives. */
export class Events {
  readonly list: SseEvent[] = [];
  readonly #reader: ReadableStreamDefaultReader<Uint8Array>;
  #waiters: Waiter[] = [];
  /** Settles when the stream ends (or is cancelled). */
  readonly finished: Promise<void>;

  constructor(res: Response) {
    assert.equal(res.headers.get('content-type'), 'text/event-stream');
    const reader = (res.body as ReadableStream<Uint8Array>).getReader();
    this.#reader = reader;
    const parser = new SseParser({
      onEvent: (e) => {
        this.list.push(e);
        if (e.data === '') return;
        const m = JSON.parse(e.data) as Record<string, unknown>;
        this.#waiters = this.#waiters.filter((w) => {
          if (!w.predicate(m)) return true;
          w.resolve(m);
          return false;
        });
      },
    });
    this.finished = (async () => {
      try {
        for (;;) {
          const { done, value } = await reader.read();
          if (done) break;
          parser.push(value);
        }
      } catch {
        // cancelled
      }
    })();
  }

  /** The first message (already received or still to come) matching `predicate`. */
  next(predicate: (m: Record<string, unknown>) => boolean): Promise<Record<string, unknown>> {
    for (const e of this.list) {
      if (e.data === '') continue;
      const m = JSON.parse(e.data) as Record<string, unknown>;
      if (predicate(m)) return Promise.resolve(m);
    }
    return new Promise((resolve) => this.#waiters.push({ predicate, resolve }));
  }

  /** The id of the event carrying the first message matching `predicate` (or of the priming event for `undefined`). */
  idOf(predicate?: (m: Record<string, unknown>) => boolean): string {
    const event = this.list.find((e) => (predicate === undefined ? e.data === '' : e.data !== '' && predicate(JSON.parse(e.data) as Record<string, unknown>)));
    assert.ok(event?.id !== undefined, 'the event has an id');
    return event.id;
  }

  /** Closes the connection. */
  async cancel(): Promise<void> {
    await this.#reader.cancel().catch(() => undefined);
  }
}
