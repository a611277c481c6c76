// Test support for the client: an in-memory everything server, a wire recorder, and a
// scripted raw peer for behaviours no well-behaved server shows.
import { createEverythingServer } from '../../../src/demo/everything/server.js';
import { McpClient } from '../../../src/client/mcpClient.js';
import type { McpClientOptions } from '../../../src/client/types.js';
import type { ChannelSink, SendOptions } from '../../../src/jsonrpc/channel.js';
import { Connection, type RequestHandler } from '../../../src/jsonrpc/connection.js';
import type { JsonRpcMessage, JsonRpcNotification, JsonRpcRequest } from '../../../src/jsonrpc/messages.js';
import type { ProtocolRevision } from '../../../src/protocol/revisions.js';
import { McpServer } from '../../../src/server/mcpServer.js';
import { createInMemoryPair } from '../../../src/transport/memory.js';
import type { Transport } from '../../../src/transport/types.js';
import type { Logger } from '../../../src/util/logger.js';

/** Records every message a transport sends and receives. */
export class WireTap implements Transport {
  readonly sent: JsonRpcMessage[] = [];
  readonly received: JsonRpcMessage[] = [];
  readonly #inner: Transport;
  constructor(inner: Transport) {
    this.#inner = inner;
  }
  start(sink: ChannelSink): Promise<void> {
    return this.#inner.start({
      receive: (frame, extra) => {
        if ('message' in frame && frame.ok) this.received.push(frame.message);
        sink.receive(frame, extra);
      },
      closed: (reason) => sink.closed(reason),
    });
  }
  send(message: JsonRpcMessage | readonly JsonRpcMessage[], options?: SendOptions): Promise<void> {
    if (!Array.isArray(message)) this.sent.push(structuredClone(message as JsonRpcMessage));
    return this.#inner.send(message, options);
  }
  close(): Promise<void> {
    return this.#inner.close();
  }
  /** Requests sent with `method`. */
  requests(method?: string): JsonRpcRequest[] {
    return this.sent.filter((m): m is JsonRpcRequest => 'method' in m && 'id' in m && (method === undefined || m.method === method));
  }
}

/** A logger that keeps what it is told. */
export function memoryLogger(): Logger & { readonly lines: { level: string; message: string; fields?: Record<string, unknown> }[] } {
  const lines: { level: string; message: string; fields?: Record<string, unknown> }[] = [];
  const at = (level: string) => (message: string, fields?: Record<string, unknown>) => void lines.push(fields === undefined ? { level, message } : { level, message, fields });
  return { lines, debug: at('debug'), info: at('info'), warn: at('warn'), error: at('error') };
}

export const CLIENT_INFO = { name: 'client-test', version: '1.0.0' } as const;

export interface Setup {
  readonly client: McpClient;
  readonly server: McpServer;
  readonly wire: WireTap;
  close(): Promise<void>;
}

/** An everything server (optionally restricted to `versions`) and a connected client. */
export async function connectEverything(options: McpClientOptions = {}, serverVersions?: readonly ProtocolRevision[]): Promise<Setup> {
  const server =
    serverVersions === undefined ? createEverythingServer({ watchIntervalMs: 0 }) : buildRestricted(serverVersions);
  return connectServer(server, options);
}

/** `server` over an in-memory pair, and a client connected to it through a {@link WireTap}. */
export async function connectServer(server: McpServer, options: McpClientOptions = {}): Promise<Setup> {
  const [clientSide, serverSide] = createInMemoryPair();
  await server.connect(serverSide);
  const wire = new WireTap(clientSide);
  const client = new McpClient(CLIENT_INFO, { defaultTimeoutMs: 5000, ...options });
  await client.connect(wire);
  return {
    client,
    server,
    wire,
    close: async () => {
      await client.close();
      await server.close();
    },
  };
}

function buildRestricted(versions: readonly ProtocolRevision[]): McpServer {
  const server = new McpServer({ name: 'restricted', version: '1.0.0' }, { versions });
  server.tool('echo', { inputSchema: { type: 'object', properties: { message: { type: 'string' } }, required: ['message'] } }, (args) => String(args['message']));
  return server;
}

/** A raw peer that answers requests with `handler` (for behaviours real servers avoid). */
export async function scriptedPeer(
  handler: RequestHandler,
  onNotification?: (n: JsonRpcNotification) => void,
): Promise<{ readonly peer: Connection; readonly transport: WireTap }> {
  const [clientSide, serverSide] = createInMemoryPair();
  const peer = new Connection(serverSide, { onRequest: handler, ...(onNotification ? { onNotification } : {}) });
  await peer.start();
  return { peer, transport: new WireTap(clientSide) };
}

/** A standard initialize answer for scripted legacy peers. */
export function initializeResult(version = '2025-11-25'): Record<string, unknown> {
  return { protocolVersion: version, capabilities: { tools: {} }, serverInfo: { name: 'scripted', version: '0.0.1' } };
}

export function delay(ms: number): Promise<void> {
  return new Promise((resolve) => setTimeout(resolve, ms));
}
