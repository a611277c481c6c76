/**
 * The public types of the client API: options, the handlers that answer what a server asks
 * (one callback API for both eras), event hooks, and per-call options.
 *
 * A handler is written once. On the stateful revisions (2025-11-25 and earlier) it answers
 * real server-to-client JSON-RPC requests; on 2026-07-28 it answers the input requests
 * embedded in an `InputRequiredResult`, and the client retries the original request (MRTR).
 *
 * @see https://modelcontextprotocol.io/specification/2026-07-28/basic/patterns/mrtr
 * @module
 */
import type { JsonRpcNotification, RequestId } from '../jsonrpc/messages.js';
import type { Progress } from '../jsonrpc/connection.js';
import type { ClientCapabilities } from '../protocol/model/capabilities.js';
import type { Implementation, LoggingLevel } from '../protocol/model/common.js';
import type { ElicitParams, ElicitResult } from '../protocol/model/elicitation.js';
import type { InputRequiredResult } from '../protocol/model/mrtr.js';
import type { CreateMessageParams, CreateMessageResult } from '../protocol/model/sampling.js';
import type { SubscriptionFilter } from '../protocol/model/subscriptions.js';
import type { ListRootsResult, LoggingMessageParams, ProgressParams, Root } from '../protocol/model/utilities.js';
import type { ProtocolRevision } from '../protocol/revisions.js';
import type { Transport } from '../transport/types.js';
import type { Logger } from '../util/logger.js';
import type { AbortLike } from '../util/lazyAbort.js';
import type { ResultCache } from './cache.js';

/** The two protocol eras: `stateless` (2026-07-28+, per-request `_meta`) and `stateful` (handshake). */
export type Era = 'stateless' | 'stateful';

/** Where a handler's question came from. */
export interface InputContext {
  /** Aborted when the call that caused the question is cancelled or the client closes. */
  readonly signal: AbortSignal;
  /** The revision in use. */
  readonly protocolVersion: ProtocolRevision;
  /** `mrtr`: an input request inside an `InputRequiredResult`; `request`: a legacy server-to-client request. */
  readonly via: 'mrtr' | 'request';
  /** MRTR: the key the server gave the input request. */
  readonly key?: string;
  /** MRTR: the method of the request being retried (`tools/call`, `prompts/get`, `resources/read`). */
  readonly method?: string;
  /**
   * The JSON-RPC id of the client's request the question belongs to: MRTR, the request whose
   * answer carried it; a server request, the call it was attributed to (on Streamable HTTP
   * the POST whose stream it arrived on; over stdio the only call in flight). Absent when it
   * belongs to no known call.
   */
  readonly relatedRequestId?: RequestId;
}

/**
 * Answers a server's questions. Each handler present makes the client declare the matching
 * capability (unless `capabilities` is given explicitly).
 */
export interface ClientHandlers {
  /**
   * Asks the user (form or URL mode). For an accepted form, fields the answer omits are filled
   * from the schema's `default`s before the answer is sent.
   */
  elicitation?(params: ElicitParams, context: InputContext): ElicitResult | Promise<ElicitResult>;
  /** Asks the client's model for a completion (deprecated feature in 2026-07-28). */
  sampling?(params: CreateMessageParams, context: InputContext): CreateMessageResult | Promise<CreateMessageResult>;
  /** Lists the client's roots (deprecated feature in 2026-07-28). */
  roots?(context: InputContext): ListRootsResult | readonly Root[] | Promise<ListRootsResult | readonly Root[]>;
}

/** Typed hooks for what the server announces. Each fires whatever the era or stream it came on. */
export interface ClientEvents {
  /** `notifications/tools/list_changed` (legacy unsolicited, or on a listen stream). */
  toolsListChanged?(): void;
  /** `notifications/prompts/list_changed`. */
  promptsListChanged?(): void;
  /** `notifications/resources/list_changed`. */
  resourcesListChanged?(): void;
  /** `notifications/resources/updated`. */
  resourceUpdated?(uri: string): void;
  /** `notifications/message` (log messages). */
  logMessage?(params: LoggingMessageParams): void;
  /** `notifications/progress` that no call asked for through its own `onProgress`. */
  progress?(params: ProgressParams): void;
  /** The connection ended (once per connection; see {@link ClientClosedEvent}). */
  closed?(event: ClientClosedEvent): void;
}

/**
 * Why a connection of the client ended, as `on.closed` and `client.closed` report it.
 *
 * - `client.close()` or `reconnect()` ended it: `byClient` true, no `cause`.
 * - The transport closed cleanly (the server ended the stream): `byClient` false, no `cause`.
 * - The transport failed: `cause` is its reason, e.g. the stdio server process exiting
 *   (`ERR_MCP_CONNECTION_CLOSED` whose `cause` is `{ code, signal }`), or on Streamable HTTP
 *   the server forgetting the session (`ERR_MCP_SESSION_EXPIRED`, cause `{ status: 404 }`),
 *   which ends a stateful connection: `reconnect()` starts a new session.
 */
export interface ClientClosedEvent {
  /** What ended the connection, when it did not end cleanly. */
  readonly cause?: unknown;
  /** True when this client ended it (`close()`, `reconnect()`); false when the other side or the transport did. */
  readonly byClient: boolean;
}

/**
 * Makes a fresh transport for {@link McpClient.connect}; `reconnect()` calls it again for
 * each new connection (a stdio server is respawned, an HTTP session started anew).
 */
export type TransportFactory = () => Transport | Promise<Transport>;

/** Options of an {@link McpClient}. */
export interface McpClientOptions {
  /** Capabilities to declare. Default: derived from {@link handlers}. */
  readonly capabilities?: ClientCapabilities;
  /** Answers elicitation, sampling and roots questions, in both eras. */
  readonly handlers?: ClientHandlers;
  /** Where the client logs (dropped tools, skipped schemas, handler failures). */
  readonly logger?: Logger;
  /** Per-request timeout in ms (reset by progress when the call asks for progress). Default 60,000; 0 = none. */
  readonly defaultTimeoutMs?: number;
  /** Hard cap on one request's total time in ms, progress or not. Default 0 (none). */
  readonly maxTotalTimeoutMs?: number;
  /** Most MRTR rounds one call may take before it fails with `ERR_MCP_LIMIT_EXCEEDED`. Default 8. */
  readonly maxInputRounds?: number;
  /**
   * A result cache to use instead of the client's own, to share `public` entries among
   * clients of the same server (never share one across servers).
   */
  readonly cache?: ResultCache;
  /** Identifies the authorization context: `private` cache entries are only reused under the same key. */
  readonly cacheKey?: string;
  /** Revisions the client will speak, preferred first. Default: every supported revision, newest first. */
  readonly versions?: readonly ProtocolRevision[];
  /** Force an era instead of probing. Default: probe with `server/discover`. */
  readonly era?: Era;
  /** How long the `server/discover` probe waits before assuming a legacy server. Default 5,000 ms. */
  readonly probeTimeoutMs?: number;
  /** Receives every notification the client does not consume itself (after the typed hooks). */
  readonly onNotification?: (notification: JsonRpcNotification) => void;
  /** Typed notification hooks. */
  readonly on?: ClientEvents;
  /**
   * Added to the OpenTelemetry span and duration metric of every request (a host adds
   * `switchboard.server.id`). Telemetry is a no-op until the application registers an
   * OpenTelemetry SDK.
   */
  readonly telemetryAttributes?: Readonly<Record<string, string>>;
}

/** Options of {@link McpClient.connect}. */
export interface ConnectOptions {
  /** Aborts the negotiation. */
  readonly signal?: AbortSignal;
}

/**
 * What a call does with an `InputRequiredResult` (2026-07-28 MRTR): `auto` (the default)
 * answers its input requests with the handlers and retries until the result is complete;
 * `manual` hands it to the caller, who answers and retries with
 * {@link CallOptions.inputResponses} and {@link CallOptions.requestState}. Stateful servers
 * never answer `input_required` (they send real requests, answered by the handlers), so there
 * both modes resolve with the complete result.
 *
 * @see https://modelcontextprotocol.io/specification/2026-07-28/basic/patterns/mrtr
 */
export type InputMode = 'auto' | 'manual';

/** The interim MRTR answer a `manual` call resolves with; see {@link isInputRequired}. */
export type { InputRequiredResult };

/** Options of one request. */
export interface CallOptions {
  /**
   * This call's own handlers, kind by kind over the client's: they answer its MRTR rounds
   * (2026-07-28) and, on stateful servers, the server→client requests attributed to it (see
   * {@link InputContext.relatedRequestId}), and no other call's questions. A question the
   * client did not declare the capability for is still refused.
   */
  readonly handlers?: ClientHandlers;
  /**
   * Cancels the call (the server is told with `notifications/cancelled` where the transport
   * allows). A `LazyAbort` belonging to this call alone is listened to without making
   * its `AbortSignal` (the gateway forwards each call this way).
   */
  readonly signal?: AbortLike;
  /** Per-request timeout in ms (each MRTR round is one request). Default: the client's. */
  readonly timeoutMs?: number;
  /** Hard cap on one request's total time in ms. Default: the client's. */
  readonly maxTotalTimeoutMs?: number;
  /** Receives progress; also makes progress reset the timeout. */
  readonly onProgress?: (progress: Progress) => void;
  /**
   * Receives the `notifications/message` log messages attributed to this call (instead of
   * `on.logMessage`): on Streamable HTTP those on the call's own response stream, over stdio
   * those that arrive while it is the only request in flight (the wire names no request
   * there). On 2026-07-28 the server sends them only when a log level is set
   * (`setLoggingLevel`).
   *
   * @see https://modelcontextprotocol.io/specification/2026-07-28/server/utilities/logging
   */
  readonly onLog?: (params: LoggingMessageParams) => void;
  /**
   * The client capabilities this request declares, in place of the client's (2026-07-28:
   * stamped into its `_meta`, and what its MRTR rounds may ask for). A gateway passes what
   * its own caller can answer, so the server only asks what can be answered. Ignored on the
   * stateful era, whose capabilities `initialize` fixed for the session.
   *
   * @see https://modelcontextprotocol.io/specification/2026-07-28/basic/patterns/mrtr
   */
  readonly capabilities?: ClientCapabilities;
  /** `manual`: resolve with an `InputRequiredResult` instead of answering it. Default `auto`. */
  readonly input?: InputMode;
  /**
   * The retry of a `manual` round: the answers to the previous result's `inputRequests`,
   * keyed as asked, sent as the request's `inputResponses`. Only MRTR-capable methods
   * (`tools/call`, `prompts/get`, `resources/read`) on 2026-07-28 carry it; ignored elsewhere.
   */
  readonly inputResponses?: Readonly<Record<string, unknown>> | undefined;
  /** The retry of a `manual` round: the previous result's `requestState`, echoed unchanged. */
  readonly requestState?: string | undefined;
}

/** {@link CallOptions} of a call that hands `input_required` back to the caller. */
export type ManualCallOptions = CallOptions & { readonly input: 'manual' };

/** {@link CallOptions} of a call that answers `input_required` itself (the default). */
export type AutoCallOptions = CallOptions & { readonly input?: 'auto' };

/** Options of the list methods. */
export interface ListOptions extends CallOptions {
  /**
   * Serve a page from the cache while it is fresh (default true). `fresh: false` bypasses the
   * cache and always asks the server (the answer is still cached).
   */
  readonly fresh?: boolean;
}

/** Options of {@link McpClient.listen}. */
export interface ListenOptions {
  /** Receives each notification of this subscription (already demultiplexed by subscription id). */
  readonly onNotification?: (notification: JsonRpcNotification) => void;
  /** Ends the subscription. */
  readonly signal?: AbortSignal;
  /**
   * The client capabilities the listen request declares (stateless era), instead of the
   * client's own: e.g. with the tasks extension, to ask for `taskIds`.
   */
  readonly capabilities?: ClientCapabilities;
}

/** How a subscription ended. */
export interface ListenEnd {
  /** `graceful`: the server sent the listen result; `aborted`: we ended it; `error`: the request failed. */
  readonly reason: 'graceful' | 'aborted' | 'error';
  /** The failure, when `reason` is `error`. */
  readonly error?: Error;
}

/** An open `subscriptions/listen` stream. */
export interface Subscription {
  /** The subscription id (the listen request's JSON-RPC id). */
  readonly id: string | number;
  /** What the server granted (from `notifications/subscriptions/acknowledged`). */
  readonly granted: SubscriptionFilter;
  /** Settles when the subscription ends (never rejects). */
  readonly ended: Promise<ListenEnd>;
  /** Ends the subscription (sends `notifications/cancelled` on message-stream transports). */
  close(): void;
}

/** What `connect` learned about the server. */
export interface ServerDescription {
  readonly era: Era;
  readonly protocolVersion: ProtocolRevision;
  readonly serverInfo: Implementation | undefined;
  readonly serverCapabilities: Readonly<Record<string, unknown>> | undefined;
  readonly instructions: string | undefined;
  /** 2026-07-28: every version the server listed in `server/discover`. */
  readonly supportedVersions?: readonly string[];
}

/** A logging level, re-exported for callers of `setLoggingLevel`. */
export type { LoggingLevel };
