/**
 * The end-to-end harness: `verifies(id, body)` registers one test per transport × revision
 * the requirement applies to, each against a fresh fixture server, and hands the body a
 * {@link Peer}: a raw client that shows every byte-level fact a requirement talks about
 * (ids, statuses, notifications, server-initiated requests, late responses).
 *
 * Transports are built lazily inside each test, so a transport whose module is missing or
 * broken fails its tests instead of the whole suite.
 *
 * @module
 */
import { PRINCIPAL } from '../../src/transport/principal.js';
import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { fileURLToPath } from 'node:url';
import type { DecodeResult } from '../../src/jsonrpc/decode.js';
import type { JsonRpcMessage, JsonRpcNotification, JsonRpcRequest, JsonRpcResponse, RequestId } from '../../src/jsonrpc/messages.js';
import type { McpServer } from '../../src/server/mcpServer.js';
import type { Transport } from '../../src/transport/types.js';
import type { FixtureOptions } from './fixtures/app.js';
import { requirements, type RequirementId, type TransportName } from './requirements.js';

export type { TransportName } from './requirements.js';

/** The revisions a test can run under. */
export type Revision = '2026-07-28' | '2025-11-25';

export const PROTOCOL_VERSION = 'io.modelcontextprotocol/protocolVersion';
export const CLIENT_CAPABILITIES = 'io.modelcontextprotocol/clientCapabilities';
export const LOG_LEVEL = 'io.modelcontextprotocol/logLevel';
export const SUBSCRIPTION_ID = 'io.modelcontextprotocol/subscriptionId';

/** A JSON-RPC error as received. */
export interface WireError {
  readonly code: number;
  readonly message: string;
  readonly data?: unknown;
}

/** What came back for one request. */
export interface Reply {
  /** The id of the response (undefined when it carried none). */
  readonly id: RequestId | undefined;
  readonly result?: Record<string, unknown>;
  readonly error?: WireError;
  /** The raw response message, when there was one. */
  readonly message?: Record<string, unknown>;
  /** HTTP only: the status and content type. */
  readonly status?: number;
  readonly contentType?: string | null;
  /** Notifications tied to this request: HTTP its SSE events; streams those received while it was pending. */
  readonly notifications: JsonRpcNotification[];
}

/** Options of one request. */
export interface RequestOptions {
  /** The JSON-RPC id (default: the next integer). */
  readonly id?: RequestId;
  /** Aborting cancels: stdio/memory send `notifications/cancelled`, HTTP closes the response. */
  readonly signal?: AbortSignal;
  /** `false`: send params as given, without the per-request `_meta`. */
  readonly meta?: false;
  /** Client capabilities for this request (default `{}`). */
  readonly caps?: Record<string, unknown>;
  /** HTTP only: headers to add or replace; `undefined` removes one. */
  readonly headers?: Readonly<Record<string, string | undefined>>;
}

/** A raw client of the fixture server. */
export interface Peer {
  readonly transport: TransportName;
  readonly revision: Revision;
  /** The per-request `_meta` of this revision (empty on legacy sessions). */
  meta(caps?: Record<string, unknown>): Record<string, unknown>;
  /** Sends a request (with `_meta` merged into params) and resolves with whatever came back. */
  request(method: string, params?: Record<string, unknown>, options?: RequestOptions): Promise<Reply>;
  /** Like {@link request} but resolves with the result and fails the test on an error. */
  call(method: string, params?: Record<string, unknown>, options?: RequestOptions): Promise<Record<string, unknown>>;
  /** Sends a notification; HTTP resolves with the response status and body text. */
  notify(method: string, params?: Record<string, unknown>, options?: Pick<RequestOptions, 'headers'>): Promise<{ status?: number; body?: string }>;
  /** Every notification received, in order. */
  readonly notifications: JsonRpcNotification[];
  /** Every JSON-RPC request the server sent. */
  readonly serverRequests: JsonRpcRequest[];
  /** Every message received, in order (responses included). */
  readonly received: Record<string, unknown>[];
  /** Frames that were not valid JSON-RPC. */
  readonly invalidFrames: number;
  /** Responses that arrived for requests this peer had cancelled. */
  readonly lateResponses: JsonRpcResponse[];
  /** Resolves with the first notification (already received or coming) that matches. */
  waitFor(match: (n: JsonRpcNotification) => boolean, timeoutMs?: number): Promise<JsonRpcNotification>;
  close(): Promise<void>;
}

/** Options when opening another peer on the same server. */
export interface ConnectOptions {
  /** The authenticated principal (memory: transport `extra`; HTTP: the `extra` hook). */
  readonly principal?: string;
  /** Answers server-to-client requests on legacy sessions (default: accept with name "Legacy"). */
  readonly answer?: (request: JsonRpcRequest) => Record<string, unknown>;
}

/** What a test body gets. */
export interface E2EContext {
  readonly peer: Peer;
  readonly transport: TransportName;
  readonly revision: Revision;
  /** Opens another client on the same server (not on stdio, where a process is one client). */
  connect(options?: ConnectOptions): Promise<Peer>;
  /** HTTP only: the endpoint and a raw POST/any-method helper. */
  readonly http?: { readonly url: string; raw(init: RequestInit): Promise<Response> };
}

/** Options of {@link verifies}. */
export interface VerifyOptions {
  /** Narrow the transports further than the requirement does. */
  readonly transports?: readonly TransportName[];
  /** Revisions to run under (default 2026-07-28). */
  readonly revisions?: readonly Revision[];
  /** Fixture server knobs. */
  readonly server?: FixtureOptions;
  /** A title for the scenario (default: the requirement's behaviour). */
  readonly title?: string;
  /** Per-test timeout. Default 20 s. */
  readonly timeoutMs?: number;
}

const ALL: readonly TransportName[] = ['memory', 'stdio', 'http'];
const LEGACY_TRANSPORTS: readonly TransportName[] = ['memory', 'stdio'];
const root = fileURLToPath(new URL('../..', import.meta.url));
const fixtureServer = fileURLToPath(new URL('./fixtures/server.ts', import.meta.url));

/** The transports a requirement applies to. */
export function transportsOf(id: RequirementId): readonly TransportName[] {
  const requirement = requirements.find((r) => r.id === id);
  if (requirement === undefined) throw new Error(`unknown requirement ${id}`);
  return 'transports' in requirement ? requirement.transports : ALL;
}

/**
 * Registers the scenario `body` for requirement `id`: one test per applicable transport ×
 * revision, each with a fresh server.
 */
export function verifies(id: RequirementId, body: (ctx: E2EContext) => Promise<void>, options: VerifyOptions = {}): void {
  const requirement = requirements.find((r) => r.id === id);
  if (requirement === undefined) throw new Error(`verifies(): unknown requirement ${id}`);
  const transports = transportsOf(id).filter((t) => options.transports === undefined || options.transports.includes(t));
  const revisions = options.revisions ?? ['2026-07-28'];
  describe(`${id}: ${options.title ?? requirement.behaviour}`, { concurrency: true }, () => {
    for (const transport of transports) {
      for (const revision of revisions) {
        if (revision !== '2026-07-28' && !LEGACY_TRANSPORTS.includes(transport)) continue;
        it(`${transport} × ${revision}`, { timeout: options.timeoutMs ?? 20_000 }, async () => {
          const world = await openWorld(transport, revision, options.server ?? {});
          try {
            const peer = await world.connect({});
            await body({ peer, transport, revision, connect: (o) => world.connect(o ?? {}), ...(world.http !== undefined ? { http: world.http } : {}) });
          } finally {
            await world.close();
          }
        });
      }
    }
  });
}

// ---------------------------------------------------------------------------------------
// Worlds: one server and its clients

interface World {
  connect(options: ConnectOptions): Promise<Peer>;
  readonly http?: E2EContext['http'];
  close(): Promise<void>;
}

async function openWorld(transport: TransportName, revision: Revision, options: FixtureOptions): Promise<World> {
  const peers: Peer[] = [];
  const track = (peer: Peer): Peer => {
    peers.push(peer);
    return peer;
  };
  const closePeers = async (): Promise<void> => {
    await Promise.allSettled(peers.map((p) => p.close()));
  };
  if (transport === 'stdio') {
    const { StdioClientTransport } = await import('../../src/transport/stdio/index.js');
    let used = false;
    return {
      async connect(connectOptions) {
        if (used) throw new Error('stdio: one process is one client; this scenario needs memory or http');
        used = true;
        const stderr: string[] = [];
        const channel = new StdioClientTransport({
          command: process.execPath,
          args: ['--import', 'tsx', fixtureServer, JSON.stringify(options)],
          cwd: root,
          stderr: (chunk) => void stderr.push(chunk),
          shutdownTimeoutMs: 1000,
        });
        return track(await StreamPeer.open('stdio', revision, channel, connectOptions));
      },
      close: closePeers,
    };
  }
  const { buildServer } = await import('./fixtures/app.js');
  const server: McpServer = buildServer(options);
  if (transport === 'memory') {
    const { createInMemoryPair } = await import('../../src/transport/memory.js');
    return {
      async connect(connectOptions) {
        const [client, serverSide] = createInMemoryPair(connectOptions.principal !== undefined ? { principal: { id: connectOptions.principal } } : {});
        await server.connect(serverSide);
        return track(await StreamPeer.open('memory', revision, client, connectOptions));
      },
      async close() {
        await closePeers();
        await server.close();
      },
    };
  }
  const { createStreamableHttpHandler } = await import('../../src/transport/http/index.js');
  const { listen } = await import('../../src/adapters/nodeHttp.js');
  const handler = createStreamableHttpHandler(server, {
    extra: (req) => {
      const principal = req.header('x-test-principal');
      return principal === undefined ? undefined : { [PRINCIPAL]: { id: principal } };
    },
    sseKeepAliveMs: 0,
  });
  const listening = await listen(handler, { port: 0 });
  const url = listening.url;
  return {
    http: { url, raw: (init) => fetch(url, init) },
    async connect(connectOptions) {
      return track(new HttpPeer(url, connectOptions.principal));
    },
    async close() {
      await closePeers();
      await server.close();
      await listening.close();
    },
  };
}

// ---------------------------------------------------------------------------------------
// Peers

function metaFor(revision: Revision, caps: Record<string, unknown> = {}): Record<string, unknown> {
  if (revision !== '2026-07-28') return {};
  return { [PROTOCOL_VERSION]: revision, [CLIENT_CAPABILITIES]: caps, 'io.modelcontextprotocol/clientInfo': { name: 'e2e', version: '1.0.0' } };
}

function withMeta(revision: Revision, params: Record<string, unknown>, options: RequestOptions): Record<string, unknown> {
  if (options.meta === false || revision !== '2026-07-28') return params;
  const given = params['_meta'];
  return { ...params, _meta: { ...metaFor(revision, options.caps), ...(typeof given === 'object' && given !== null ? given : {}) } };
}

abstract class BasePeer implements Peer {
  readonly notifications: JsonRpcNotification[] = [];
  readonly serverRequests: JsonRpcRequest[] = [];
  readonly received: Record<string, unknown>[] = [];
  readonly lateResponses: JsonRpcResponse[] = [];
  invalidFrames = 0;
  #nextId = 1;
  readonly #waiters = new Set<{ match: (n: JsonRpcNotification) => boolean; resolve: (n: JsonRpcNotification) => void }>();

  constructor(
    readonly transport: TransportName,
    readonly revision: Revision,
  ) {}

  meta(caps?: Record<string, unknown>): Record<string, unknown> {
    return metaFor(this.revision, caps);
  }

  protected nextId(): number {
    return this.#nextId++;
  }

  protected gotNotification(n: JsonRpcNotification): void {
    this.notifications.push(n);
    for (const waiter of [...this.#waiters]) {
      if (waiter.match(n)) {
        this.#waiters.delete(waiter);
        waiter.resolve(n);
      }
    }
  }

  waitFor(match: (n: JsonRpcNotification) => boolean, timeoutMs = 3000): Promise<JsonRpcNotification> {
    const seen = this.notifications.find(match);
    if (seen !== undefined) return Promise.resolve(seen);
    return new Promise((resolve, reject) => {
      const waiter = {
        match,
        resolve: (n: JsonRpcNotification) => {
          clearTimeout(timer);
          resolve(n);
        },
      };
      const timer = setTimeout(() => {
        this.#waiters.delete(waiter);
        reject(new Error(`no matching notification within ${timeoutMs} ms; got ${JSON.stringify(this.notifications.map((x) => x.method))}`));
      }, timeoutMs);
      this.#waiters.add(waiter);
    });
  }

  abstract request(method: string, params?: Record<string, unknown>, options?: RequestOptions): Promise<Reply>;
  abstract notify(method: string, params?: Record<string, unknown>, options?: Pick<RequestOptions, 'headers'>): Promise<{ status?: number; body?: string }>;
  abstract close(): Promise<void>;

  async call(method: string, params: Record<string, unknown> = {}, options: RequestOptions = {}): Promise<Record<string, unknown>> {
    const reply = await this.request(method, params, options);
    if (reply.error !== undefined || reply.result === undefined) {
      assert.fail(`${method} failed: ${JSON.stringify(reply.error ?? reply)}`);
    }
    return reply.result;
  }
}

interface PendingRequest {
  readonly resolve: (reply: Reply) => void;
  readonly notifications: JsonRpcNotification[];
}

/** A raw peer over a message-stream transport (memory, stdio). */
class StreamPeer extends BasePeer {
  readonly #channel: Transport;
  readonly #pending = new Map<RequestId, PendingRequest>();
  readonly #cancelled = new Set<RequestId>();
  readonly #answer: (request: JsonRpcRequest) => Record<string, unknown>;

  private constructor(transport: TransportName, revision: Revision, channel: Transport, answer: ConnectOptions['answer']) {
    super(transport, revision);
    this.#channel = channel;
    this.#answer = answer ?? (() => ({ action: 'accept', content: { name: 'Legacy' } }));
  }

  static async open(transport: TransportName, revision: Revision, channel: Transport, options: ConnectOptions): Promise<StreamPeer> {
    const peer = new StreamPeer(transport, revision, channel, options.answer);
    await channel.start({ receive: (frame) => peer.#receive(frame), closed: () => peer.#closed() });
    if (revision !== '2026-07-28') {
      const init = await peer.request('initialize', {
        protocolVersion: revision,
        capabilities: { elicitation: {} },
        clientInfo: { name: 'e2e-legacy', version: '1.0.0' },
      });
      assert.equal((init.result as Record<string, unknown> | undefined)?.['protocolVersion'], revision, `initialize failed: ${JSON.stringify(init)}`);
      await peer.notify('notifications/initialized');
    } else if (transport === 'stdio') {
      // Wait until the child has booted (tsx takes seconds under load), so scenario timings
      // measure the server, not the start-up; then forget the warm-up traffic.
      await peer.request('server/discover', {}, { id: 'warm-up' });
      peer.received.length = 0;
    }
    return peer;
  }

  #receive(frame: DecodeResult): void {
    if (!frame.ok || !('message' in frame)) {
      this.invalidFrames++;
      return;
    }
    this.#message(frame.message);
  }

  #message(message: JsonRpcMessage): void {
    this.received.push(message as unknown as Record<string, unknown>);
    if ('method' in message) {
      if ('id' in message) {
        this.serverRequests.push(message);
        const result = this.#answer(message);
        void this.#channel.send({ jsonrpc: '2.0', id: message.id, result }).catch(() => undefined);
        return;
      }
      for (const p of this.#pending.values()) p.notifications.push(message);
      this.gotNotification(message);
      return;
    }
    const id = (message as { id?: RequestId }).id;
    if (id === undefined || id === null) return;
    if (this.#cancelled.has(id)) {
      this.lateResponses.push(message);
      return;
    }
    const pending = this.#pending.get(id);
    if (pending === undefined) return;
    this.#pending.delete(id);
    const raw = message as unknown as Record<string, unknown>;
    pending.resolve({
      id,
      notifications: pending.notifications,
      message: raw,
      ...('result' in message ? { result: message.result } : {}),
      ...('error' in message ? { error: message.error } : {}),
    });
  }

  #closed(): void {
    for (const [id, p] of this.#pending) p.resolve({ id, notifications: p.notifications, error: { code: 0, message: 'connection closed' } });
    this.#pending.clear();
  }

  request(method: string, params: Record<string, unknown> = {}, options: RequestOptions = {}): Promise<Reply> {
    const id = options.id ?? this.nextId();
    const body = withMeta(this.revision, params, options);
    return new Promise<Reply>((resolve, reject) => {
      this.#pending.set(id, { resolve, notifications: [] });
      options.signal?.addEventListener(
        'abort',
        () => {
          if (!this.#pending.delete(id)) return;
          this.#cancelled.add(id);
          void this.#channel.send({ jsonrpc: '2.0', method: 'notifications/cancelled', params: { requestId: id, reason: 'test cancelled' } }).catch(() => undefined);
          reject(new Error('cancelled'));
        },
        { once: true },
      );
      this.#channel.send({ jsonrpc: '2.0', id, method, params: body }).catch((error: unknown) => {
        this.#pending.delete(id);
        reject(error as Error);
      });
    });
  }

  async notify(method: string, params?: Record<string, unknown>): Promise<{ status?: number; body?: string }> {
    await this.#channel.send(params === undefined ? { jsonrpc: '2.0', method } : { jsonrpc: '2.0', method, params });
    return {};
  }

  /** Sends a raw message (for cancellations of foreign ids and the like). */
  async send(message: JsonRpcMessage): Promise<void> {
    await this.#channel.send(message);
  }

  async close(): Promise<void> {
    await this.#channel.close();
  }
}

/** The `Mcp-Name` source of a method (2026-07-28). */
function nameOf(method: string, params: Record<string, unknown>): unknown {
  if (method === 'tools/call' || method === 'prompts/get') return params['name'];
  if (method === 'resources/read') return params['uri'];
  return undefined;
}

/** Header-safe form of a value: as-is when plain printable ASCII, else the Base64 sentinel. */
export function headerValue(value: string): string {
  const plain = /^[\x21-\x7e]([\x20-\x7e]*[\x21-\x7e])?$/.test(value) && !/^=\?base64\?.*\?=$/.test(value);
  return plain ? value : `=?base64?${Buffer.from(value, 'utf8').toString('base64')}?=`;
}

/** A raw Streamable HTTP client built on `fetch`. */
class HttpPeer extends BasePeer {
  readonly #url: string;
  readonly #principal: string | undefined;
  readonly #open = new Set<AbortController>();

  constructor(url: string, principal: string | undefined) {
    super('http', '2026-07-28');
    this.#url = url;
    this.#principal = principal;
  }

  #headers(method: string, params: Record<string, unknown>, extra: RequestOptions['headers']): Record<string, string> {
    const meta = params['_meta'] as Record<string, unknown> | undefined;
    const version = meta?.[PROTOCOL_VERSION];
    const headers: Record<string, string | undefined> = {
      'content-type': 'application/json',
      accept: 'application/json, text/event-stream',
      'mcp-protocol-version': typeof version === 'string' ? version : '2026-07-28',
      'mcp-method': method,
    };
    const name = nameOf(method, params);
    if (typeof name === 'string') headers['mcp-name'] = headerValue(name);
    else if (typeof name === 'number' || typeof name === 'boolean') headers['mcp-name'] = String(name);
    if (this.#principal !== undefined) headers['x-test-principal'] = this.#principal;
    for (const [key, value] of Object.entries(extra ?? {})) headers[key.toLowerCase()] = value;
    return Object.fromEntries(Object.entries(headers).filter((e): e is [string, string] => e[1] !== undefined));
  }

  async request(method: string, params: Record<string, unknown> = {}, options: RequestOptions = {}): Promise<Reply> {
    const id = options.id ?? this.nextId();
    const body = withMeta(this.revision, params, options);
    const controller = new AbortController();
    this.#open.add(controller);
    options.signal?.addEventListener('abort', () => controller.abort(new Error('cancelled')), { once: true });
    try {
      const response = await fetch(this.#url, {
        method: 'POST',
        headers: this.#headers(method, body, options.headers),
        body: JSON.stringify({ jsonrpc: '2.0', id, method, params: body }),
        signal: controller.signal,
      });
      const contentType = response.headers.get('content-type');
      const notifications: JsonRpcNotification[] = [];
      let message: Record<string, unknown> | undefined;
      if (contentType?.startsWith('text/event-stream') === true && response.body !== null) {
        for await (const data of sseData(response.body)) {
          let parsed: Record<string, unknown>;
          try {
            parsed = JSON.parse(data) as Record<string, unknown>;
          } catch {
            this.invalidFrames++;
            continue;
          }
          this.received.push(parsed);
          if (typeof parsed['method'] === 'string') {
            if ('id' in parsed) {
              this.serverRequests.push(parsed as unknown as JsonRpcRequest);
              continue;
            }
            notifications.push(parsed as unknown as JsonRpcNotification);
            this.gotNotification(parsed as unknown as JsonRpcNotification);
          } else {
            message = parsed;
          }
        }
      } else {
        const text = await response.text();
        if (text.length > 0) {
          try {
            message = JSON.parse(text) as Record<string, unknown>;
            this.received.push(message);
          } catch {
            this.invalidFrames++;
          }
        }
      }
      return {
        id: message?.['id'] as RequestId | undefined,
        status: response.status,
        contentType,
        notifications,
        ...(message !== undefined ? { message } : {}),
        ...(message !== undefined && 'result' in message ? { result: message['result'] as Record<string, unknown> } : {}),
        ...(message !== undefined && 'error' in message ? { error: message['error'] as WireError } : {}),
      };
    } finally {
      this.#open.delete(controller);
    }
  }

  async notify(method: string, params?: Record<string, unknown>, options: Pick<RequestOptions, 'headers'> = {}): Promise<{ status?: number; body?: string }> {
    const body = params === undefined ? { jsonrpc: '2.0', method } : { jsonrpc: '2.0', method, params };
    const response = await fetch(this.#url, { method: 'POST', headers: this.#headers(method, params ?? {}, options.headers), body: JSON.stringify(body) });
    return { status: response.status, body: await response.text() };
  }

  async close(): Promise<void> {
    for (const c of this.#open) c.abort(new Error('closed'));
  }
}

/** Yields the `data` of each SSE event of a response body. */
export async function* sseData(body: ReadableStream<Uint8Array>): AsyncGenerator<string> {
  const decoder = new TextDecoder();
  let buffer = '';
  let data: string[] = [];
  const reader = body.getReader();
  try {
    for (;;) {
      const { done, value } = await reader.read();
      if (done) break;
      buffer += decoder.decode(value, { stream: true });
      let newline: number;
      while ((newline = buffer.search(/\r\n|\r|\n/)) >= 0) {
        const line = buffer.slice(0, newline);
        buffer = buffer.slice(newline + (buffer.startsWith('\r\n', newline) ? 2 : 1));
        if (line === '') {
          if (data.length > 0) yield data.join('\n');
          data = [];
        } else if (line.startsWith('data:')) {
          data.push(line.slice(line.startsWith('data: ') ? 6 : 5));
        }
        // comments (':') and other fields are ignored
      }
    }
    if (data.length > 0) yield data.join('\n');
  } finally {
    reader.releaseLock();
  }
}

// ---------------------------------------------------------------------------------------
// Assertion helpers

/** Asserts an error reply with `code` (and HTTP `status` when on HTTP). */
export function assertError(reply: Reply, code: number, status?: number): WireError {
  assert.ok(reply.error !== undefined, `expected error ${code}, got ${JSON.stringify(reply.message ?? reply)}`);
  assert.equal(reply.error.code, code, `expected error ${code}, got ${JSON.stringify(reply.error)}`);
  if (status !== undefined && reply.status !== undefined) assert.equal(reply.status, status, `HTTP status for ${code}`);
  return reply.error;
}

/** The text of the first text content block of a tool result. */
export function textOf(result: Record<string, unknown> | undefined): string {
  const content = result?.['content'] as { type: string; text?: string }[] | undefined;
  return content?.find((c) => c.type === 'text')?.text ?? '';
}

/** Waits `ms`. */
export function delay(ms: number): Promise<void> {
  return new Promise((resolve) => setTimeout(resolve, ms));
}

/** The subscription id tag of a listen-stream notification. */
export function subscriptionIdOf(n: JsonRpcNotification): unknown {
  return (n.params?.['_meta'] as Record<string, unknown> | undefined)?.[SUBSCRIPTION_ID];
}
