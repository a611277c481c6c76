/**
 * The transport contracts.
 *
 * - Message-stream transports (stdio, the in-memory pair) implement {@link Transport}:
 *   `start(sink)`, `send(message, options)`, `close()`. They frame and decode; a
 *   `Connection` correlates.
 * - Request-per-message transports (Streamable HTTP) call a {@link McpDispatcher} once per
 *   incoming message: the server implements it, so the transport never imports the server.
 *
 * Per-transport knobs live in each transport's own options, never here.
 *
 * @module
 */
import type { Channel, MessageExtra } from '../jsonrpc/channel.js';
import type { JsonRpcNotification, JsonRpcRequest, JsonRpcResponse, Params } from '../jsonrpc/messages.js';
import type { Principal } from './principal.js';

export { PRINCIPAL, principalIn, withPrincipal, type Principal } from './principal.js';

export type { ChannelSink as TransportSink, SendOptions, MessageExtra } from '../jsonrpc/channel.js';

/** A transport is a JSON-RPC {@link Channel}. */
export type Transport = Channel;

/** Sends requests to the peer that sent the message being handled (stateful eras only). */
export interface PeerRequester {
  /** Sends a request to the client and resolves with its result (rejects with JsonRpcError/McpError). */
  request(method: string, params: Params | undefined, options?: { signal?: AbortSignal; timeoutMs?: number }): Promise<Record<string, unknown>>;
}

/** How a stateful session reaches its client outside any request (stateful eras only). */
export interface SessionPeer extends PeerRequester {
  /** Sends a notification not tied to a request (list_changed, resources/updated, log). */
  notify(notification: JsonRpcNotification): void;
}

/** What a transport knows about one incoming message and how to talk back while it is handled. */
export interface DispatchEnv {
  /** Aborted when the client cancels (HTTP: closes the response stream) or the transport closes. */
  readonly signal: AbortSignal;
  /**
   * Calls `listener` once when {@link signal} aborts, without creating the signal (creating
   * one costs microseconds and two allocations on Node 20); returns the remover. Optional:
   * without it a listener goes on the signal.
   */
  onAbort?(listener: () => void): () => void;
  /** Transport facts: HTTP headers, ... */
  readonly extra: MessageExtra | undefined;
  /**
   * Who sent the message, when the transport authenticated it (HTTP `auth`) or was told
   * (an application `extra` hook, `createInMemoryPair({ principal })`); see `principal.ts`.
   */
  readonly principal?: Principal | undefined;
  /**
   * Sends a notification tied to this message (progress, log, listen-stream traffic). On
   * HTTP the first one turns the response into an SSE stream. Ignored once the exchange ended.
   */
  notify(notification: JsonRpcNotification): void;
  /** Present on stateful sessions: requests to the client (sampling, elicitation, roots). */
  readonly peer?: PeerRequester;
  /** Opaque per-session state owned by the dispatcher (stateful eras); see {@link McpDispatcher.createSession}. */
  readonly session?: unknown;
  /**
   * Present only on stateful Streamable HTTP sessions that negotiated 2025-11-25 or later
   * (SEP-1699 polling): ends the HTTP response now, while the handler keeps running. Later
   * notifications, server→client requests and the response are kept in the event store;
   * the client reconnects with `GET` + `Last-Event-ID` (after the `retry` hint) and gets them.
   *
   * @see https://modelcontextprotocol.io/specification/2025-11-25/basic/transports#sending-messages-to-the-server
   */
  readonly closeStream?: () => void;
}

/** One `x-mcp-header` parameter of a tool, as the HTTP transport checks it. */
export interface ToolHeaderParam {
  /** The `{Name}` of `Mcp-Param-{Name}`. */
  readonly name: string;
  /** The path of properties from the arguments object to the value. */
  readonly path: readonly string[];
  /** The JSON type of the property. */
  readonly type: 'string' | 'integer' | 'boolean';
}

/** The server side as a request-per-message transport sees it. */
export interface McpDispatcher {
  /**
   * Handles one request or notification and resolves with the response (undefined for a
   * notification). Never rejects: failures are JSON-RPC error responses.
   */
  dispatch(message: JsonRpcRequest | JsonRpcNotification, env: DispatchEnv): Promise<JsonRpcResponse | undefined>;
  /**
   * The `x-mcp-header` parameters of a tool, or undefined when no such tool is visible to
   * this request. Used to validate `Mcp-Param-*` headers against the body.
   */
  toolHeaders?(toolName: string, env: DispatchEnv): readonly ToolHeaderParam[] | undefined;
  /**
   * Creates the protocol state of a new stateful session (revisions up to 2025-11-25); the
   * transport passes it back as `DispatchEnv.session` with every message of that session.
   */
  createSession?(peer: SessionPeer): unknown;
  /** Ends a session created by {@link createSession} (DELETE, expiry, transport close). */
  closeSession?(session: unknown): void;
  /**
   * The session's state as JSON, for a transport that shares sessions between instances
   * (client info and capabilities, log level, subscriptions …); undefined when there is none.
   * Called after every message of a shared session: keep it cheap.
   */
  exportSession?(session: unknown): Record<string, unknown> | undefined;
  /**
   * Applies {@link exportSession}'s output of another instance to a session made here with
   * {@link createSession} (a session rehydrated, or changed elsewhere). Unknown members are
   * ignored. `principal` is the one of the request that rehydrated the session (bound to it).
   */
  importSession?(session: unknown, state: Record<string, unknown>, principal?: Principal): void;
  /**
   * A public document the server serves at a `/.well-known/` path (HTTP GET), such as its
   * signed manifest; undefined when it has none there.
   */
  wellKnown?(path: string): Promise<{ readonly contentType: string; readonly body: string } | undefined>;
}
