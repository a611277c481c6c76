/**
 * Helpers for the stateful Streamable HTTP tests: a fake dispatcher with sessions, request
 * builders for the internal shapes, and an incremental SSE reader.
 *
 * @module
 */
import type { JsonRpcRequest, JsonRpcResponse, Params } from '../../../../../src/jsonrpc/messages.js';
import { SseParser, type SseEvent } from '../../../../../src/transport/http/sse.js';
import { isSseStream, type HttpRequestLike, type HttpResponseLike } from '../../../../../src/transport/http/server/types.js';
import type { McpDispatcher, SessionPeer } from '../../../../../src/transport/types.js';
import { within } from './support.js';

/** The fake dispatcher's per-session state. */
export interface FakeSession {
  readonly peer: SessionPeer;
  version: string | undefined;
  closed: boolean;
}

/** A fake stateful server. */
export interface FakeStatefulDispatcher extends McpDispatcher {
  readonly sessions: FakeSession[];
  readonly closed: FakeSession[];
  readonly notifications: string[];
  readonly aborted: (string | number)[];
  /** Resolves the pending `gate` requests. */
  open(): void;
  /** Resolves when the next session is closed (or with the first closed one not yet awaited). */
  nextClose(): Promise<FakeSession>;
  /** Resolves once a `gate` request is waiting (at once if one is). */
  gated(): Promise<void>;
}

const STATEFUL = ['2025-03-26', '2025-06-18', '2025-11-25'];
const delay = (ms: number): Promise<void> => new Promise((r) => setTimeout(r, ms));

/**
 * Methods: `initialize`, `echo`, `progress {count}`, `ask` (elicitation/create via env.peer),
 * `poll` (closeStream, then notifications and the result later), `gate` (waits for
 * {@link FakeStatefulDispatcher.open} or abort), `shout {tag?}` (an unsolicited notification via the session peer).
 */
export function fakeStatefulDispatcher(): FakeStatefulDispatcher {
  const sessions: FakeSession[] = [];
  const closed: FakeSession[] = [];
  const notifications: string[] = [];
  const aborted: (string | number)[] = [];
  let gates: (() => void)[] = [];
  let closesAwaited = 0;
  let onClose: (() => void)[] = [];
  let onGate: (() => void)[] = [];
  const fire = (list: (() => void)[]): void => {
    for (const f of list) f();
  };
  const ok = (id: JsonRpcRequest['id'], result: Record<string, unknown>): JsonRpcResponse => ({ jsonrpc: '2.0', id, result });
  return {
    sessions,
    closed,
    notifications,
    aborted,
    open() {
      const g = gates;
      gates = [];
      for (const f of g) f();
    },
    async nextClose() {
      const index = closesAwaited++;
      const closing = async (): Promise<FakeSession> => {
        while (closed.length <= index) await new Promise<void>((resolve) => onClose.push(resolve));
        return closed[index] as FakeSession;
      };
      // The sweep's timer is unref'd: `within`'s deadline keeps the process alive meanwhile.
      return within(closing(), 'a session to close');
    },
    async gated() {
      if (gates.length === 0) await new Promise<void>((resolve) => onGate.push(resolve));
    },
    createSession(peer) {
      const s: FakeSession = { peer, version: undefined, closed: false };
      sessions.push(s);
      return s;
    },
    closeSession(session) {
      (session as FakeSession).closed = true;
      closed.push(session as FakeSession);
      const waiting = onClose;
      onClose = [];
      fire(waiting);
    },
    async dispatch(message, env) {
      const session = env.session as FakeSession | undefined;
      if (!('id' in message)) {
        notifications.push(message.method);
        return undefined;
      }
      const { id } = message;
      const params: Params = message.params ?? {};
      env.signal.addEventListener('abort', () => aborted.push(id), { once: true });
      switch (message.method) {
        case 'initialize': {
          if (session === undefined) return { jsonrpc: '2.0', id, error: { code: -32602, message: 'stateless' } };
          const requested = params['protocolVersion'];
          if (requested === 'broken') return { jsonrpc: '2.0', id, error: { code: -32602, message: 'bad init' } };
          const version = typeof requested === 'string' && STATEFUL.includes(requested) ? requested : '2025-11-25';
          session.version = version;
          return ok(id, { protocolVersion: version, capabilities: {}, serverInfo: { name: 'fake', version: '1' } });
        }
        case 'echo':
          return ok(id, { echo: params, principal: env.principal?.id ?? null, hasSession: session !== undefined });
        case 'progress': {
          const n = typeof params['count'] === 'number' ? params['count'] : 2;
          for (let i = 0; i < n; i++) {
            env.notify({ jsonrpc: '2.0', method: 'notifications/progress', params: { progress: i } });
            await delay(typeof params['gapMs'] === 'number' ? params['gapMs'] : 1);
          }
          return ok(id, { done: n });
        }
        case 'ask': {
          if (env.peer === undefined) return { jsonrpc: '2.0', id, error: { code: -32603, message: 'no peer' } };
          try {
            const answer = await env.peer.request('elicitation/create', { message: 'name?', requestedSchema: { type: 'object', properties: {} } });
            return ok(id, { answer });
          } catch (e) {
            return { jsonrpc: '2.0', id, error: { code: -32603, message: String(e) } };
          }
        }
        case 'poll': {
          env.notify({ jsonrpc: '2.0', method: 'notifications/progress', params: { progress: 0 } });
          if (env.closeStream === undefined) return ok(id, { closeStream: false });
          env.closeStream();
          await delay(typeof params['ms'] === 'number' ? params['ms'] : 20);
          env.notify({ jsonrpc: '2.0', method: 'notifications/progress', params: { progress: 1 } });
          return ok(id, { polled: true });
        }
        case 'gate':
          await new Promise<void>((resolve) => {
            gates.push(resolve);
            env.signal.addEventListener('abort', () => resolve(), { once: true });
            const waiting = onGate;
            onGate = [];
            fire(waiting);
          });
          return ok(id, { opened: !env.signal.aborted });
        case 'shout':
          // `tag` marks the notification (in `_meta`), so a test can use one as a sentinel.
          session?.peer.notify({ jsonrpc: '2.0', method: 'notifications/tools/list_changed', ...(typeof params['tag'] === 'string' ? { params: { _meta: { tag: params['tag'] } } } : {}) });
          return ok(id, {});
        default:
          return { jsonrpc: '2.0', id, error: { code: -32601, message: `Method not found: ${message.method}` } };
      }
    },
  };
}

const enc = new TextEncoder();

/** A request on the internal shapes; header names lowercase, `undefined` values dropped. */
export function httpReq(method: string, body: unknown, headers: Record<string, string | undefined> = {}): HttpRequestLike {
  const all: Record<string, string> = { host: 'localhost:3000' };
  if (method === 'POST') {
    all['content-type'] = 'application/json';
    all['accept'] = 'application/json, text/event-stream';
  } else if (method === 'GET') all['accept'] = 'text/event-stream';
  for (const [k, v] of Object.entries(headers)) {
    if (v === undefined) delete all[k.toLowerCase()];
    else all[k.toLowerCase()] = v;
  }
  const base = { method, path: '/mcp', header: (n: string) => all[n] };
  return body === undefined ? base : { ...base, body: enc.encode(typeof body === 'string' ? body : JSON.stringify(body)) };
}

/** A JSON-RPC request object (no 2026 `_meta`). */
export function rpc(method: string, params: Params = {}, id: number | string = 1): JsonRpcRequest {
  return { jsonrpc: '2.0', id, method, params };
}

/** The `initialize` request of a client asking for `version`. */
export function initRequest(version = '2025-11-25', id: number | string = 1): JsonRpcRequest {
  return rpc('initialize', { protocolVersion: version, capabilities: { elicitation: {} }, clientInfo: { name: 't', version: '1' } }, id);
}

/** The JSON body of a plain response. */
export function bodyJson(response: HttpResponseLike): unknown {
  const body = response.body;
  if (body === undefined || isSseStream(body)) throw new Error(`expected a JSON body, got ${body === undefined ? 'none' : 'SSE'} (status ${response.status})`);
  return JSON.parse(typeof body === 'string' ? body : new TextDecoder().decode(body));
}

/** Reads an SSE response incrementally. */
export class SseReader {
  readonly events: SseEvent[] = [];
  ended = false;
  retry: number | undefined;
  #waiters: (() => void)[] = [];
  readonly #cancel: () => void;

  constructor(response: HttpResponseLike) {
    const body = response.body;
    if (!isSseStream(body)) throw new Error(`expected an SSE body (status ${response.status})`);
    const parser = new SseParser({
      onEvent: (e) => {
        this.events.push(e);
        this.#wake();
      },
      onRetry: (ms: number) => {
        this.retry = ms;
      },
    });
    body.start({
      write: (chunk) => parser.push(chunk),
      end: () => {
        parser.end();
        this.ended = true;
        this.#wake();
      },
    });
    this.#cancel = () => body.cancel(new Error('test disconnect'));
  }

  #wake(): void {
    const w = this.#waiters;
    this.#waiters = [];
    for (const f of w) f();
  }

  /** Waits until `n` events arrived (or the stream ended); rejects after `ms`. */
  async waitFor(n: number, ms = 2000): Promise<SseEvent[]> {
    const deadline = Date.now() + ms;
    while (this.events.length < n && !this.ended) {
      if (Date.now() > deadline) throw new Error(`timed out waiting for ${n} events (have ${this.events.length})`);
      await new Promise<void>((resolve) => {
        this.#waiters.push(resolve);
        setTimeout(resolve, 20);
      });
    }
    return this.events;
  }

  /** Waits for the end of the stream. */
  async waitEnd(ms = 2000): Promise<SseEvent[]> {
    const deadline = Date.now() + ms;
    while (!this.ended) {
      if (Date.now() > deadline) throw new Error('timed out waiting for the stream to end');
      await new Promise<void>((resolve) => {
        this.#waiters.push(resolve);
        setTimeout(resolve, 20);
      });
    }
    return this.events;
  }

  /** The client drops the connection. */
  disconnect(): void {
    this.#cancel();
  }

  /** The JSON messages of the events with data (priming events skipped). */
  messages(): Record<string, unknown>[] {
    return this.events.filter((e) => e.data !== '').map((e) => JSON.parse(e.data) as Record<string, unknown>);
  }

  /** The ids of all events, in order. */
  ids(): string[] {
    return this.events.map((e) => e.id ?? '');
  }
}
