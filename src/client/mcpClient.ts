/**
 * `McpClient`: one client for both protocol eras. `connect` probes the server with
 * `server/discover` and settles on the stateless era (2026-07-28: every request carries its
 * version, capabilities and identity in `_meta`; server questions arrive as MRTR input
 * requests) or falls back to the stateful era (`initialize` handshake; server questions
 * arrive as JSON-RPC requests). The same handlers answer the questions in both.
 *
 * The client holds a `Connection`; it never inherits one, and it sees only the `Transport`
 * contract, never a concrete transport.
 *
 * @see https://modelcontextprotocol.io/specification/2026-07-28
 * @module
 */
import { Connection, type RequestOptions } from '../jsonrpc/connection.js';
import type { MessageExtra } from '../jsonrpc/channel.js';
import type { JsonRpcNotification, Params, RequestId } from '../jsonrpc/messages.js';
import { decodeResult, encodeRequestParams } from '../protocol/codec.js';
import { lookupMethod } from '../protocol/methods.js';
import { observe, preloadTelemetry, telemetryActive, type OperationScope } from '../protocol/telemetry.js';
import { explainMissingCapability } from '../protocol/errors.js';
import { hasExtension, type ClientCapabilities } from '../protocol/model/capabilities.js';
import { TASKS_EXTENSION_ID } from '../protocol/meta.js';
import type { Implementation, LoggingLevel } from '../protocol/model/common.js';
import type { SubscriptionFilter } from '../protocol/model/subscriptions.js';
import type { LoggingMessageParams, ProgressParams } from '../protocol/model/utilities.js';
import { isStateless, supportedRevisions, type ProtocolRevision } from '../protocol/revisions.js';
import type { Transport } from '../transport/types.js';
import { McpError, McpErrorCode } from '../util/errors.js';
import { silentLogger, type Logger } from '../util/logger.js';
import { LazyAbort, type AbortLike } from '../util/lazyAbort.js';
import { ResultCache } from './cache.js';
import { capabilitiesFor, handlersFor, legacyRequestHandler } from './inputs.js';
import { ListenHub, subscriptionIdOf } from './listen.js';
import { retryFields, runWithInput, type RoundResult } from './mrtr.js';
import { mcpErrorIn, negotiate } from './negotiate.js';
import { CallRegistry } from './routing.js';
import { StatefulListens } from './statefulListen.js';
import { SignalFanout } from './signals.js';
import { McpClientCalls, type SendOutcome } from './calls.js';
import type {
  CallOptions,
  ClientClosedEvent,
  ConnectOptions,
  Era,
  ListenOptions,
  McpClientOptions,
  ServerDescription,
  Subscription,
  TransportFactory,
} from './types.js';

const LIST_CHANGED: Readonly<Record<string, readonly string[]>> = {
  'notifications/tools/list_changed': ['tools/list'],
  'notifications/prompts/list_changed': ['prompts/list'],
  'notifications/resources/list_changed': ['resources/list', 'resources/templates/list'],
};

/** Newest first, as `versions` defaults. */
const DEFAULT_VERSIONS: readonly ProtocolRevision[] = [...supportedRevisions].reverse();

/**
 * An MCP client. Construct it with the client's identity, `connect` it to a transport, then
 * use the typed calls (inherited from {@link McpClientCalls}).
 *
 * @example
 * ```ts
 * const client = new McpClient({ name: 'my-host', version: '1.0.0' }, { handlers: { elicitation: async () => ({ action: 'decline' }) } });
 * await client.connect(transport);
 * const tools = await client.listTools();
 * const result = await client.callTool('echo', { message: 'hi' });
 * await client.close();
 * ```
 */
export class McpClient extends McpClientCalls {
  /** The client's identity, sent as `clientInfo`. */
  readonly info: Implementation;
  readonly #options: McpClientOptions;
  readonly #logger: Logger;
  readonly #capabilities: ClientCapabilities;
  readonly #versions: readonly ProtocolRevision[];
  readonly #listens = new ListenHub();
  readonly #statefulListens = new StatefulListens();
  readonly #signals = new SignalFanout();
  readonly #calls = new CallRegistry();
  #connection: Connection | undefined;
  #description: ServerDescription | undefined;
  #logLevel: LoggingLevel | undefined;
  #factory: TransportFactory | undefined;
  #closed!: Promise<ClientClosedEvent>;
  #resolveClosed!: (event: ClientClosedEvent) => void;
  #closedSettled = false;
  /** Set while `close()`/`reconnect()` end the connection. */
  #closingByClient = false;
  /** Why the client itself ended a failed connection (an expired HTTP session). */
  #failure: unknown;

  constructor(info: Implementation, options: McpClientOptions = {}) {
    const logger = options.logger ?? silentLogger;
    super(logger, options.cache ?? new ResultCache());
    this.info = Object.freeze({ ...info });
    this.#options = options;
    this.#logger = logger;
    this.#capabilities = options.capabilities ?? capabilitiesFor(options.handlers ?? {});
    this.#versions = options.versions ?? DEFAULT_VERSIONS;
    if (this.#versions.length === 0) throw new McpError(McpErrorCode.InvalidArgument, '`versions` must name at least one revision');
    this.#armClosed();
    // Client spans need @opentelemetry/api, loaded only when an application registered with it.
    void preloadTelemetry();
  }

  /**
   * Settles when the current (or, before `connect`, the next) connection ends, with why
   * (never rejects). After `reconnect()` it is a new promise, for the new connection.
   */
  get closed(): Promise<ClientClosedEvent> {
    return this.#closed;
  }

  /** The negotiated revision (undefined before `connect`). */
  get protocolVersion(): ProtocolRevision | undefined {
    return this.#description?.protocolVersion;
  }

  /** The negotiated era (undefined before `connect`). */
  get era(): Era | undefined {
    return this.#description?.era;
  }

  /** The server's identity (`initialize` result, or `server/discover`'s `_meta` serverInfo). */
  get serverInfo(): Implementation | undefined {
    return this.#description?.serverInfo;
  }

  /** The server's capabilities (undefined when `server/discover` could not tell). */
  get serverCapabilities(): Readonly<Record<string, unknown>> | undefined {
    return this.#description?.serverCapabilities;
  }

  /** The server's instructions for the model. */
  get instructions(): string | undefined {
    return this.#description?.instructions;
  }

  /** The capabilities this client declares. */
  get capabilities(): ClientCapabilities {
    return this.#capabilities;
  }

  /** True between a successful `connect` and `close` (or the transport closing). */
  get connected(): boolean {
    return this.#description !== undefined && this.#connection?.closed === false;
  }

  /**
   * Starts a transport and negotiates the era and version. Rejects (and closes the
   * transport) with `ERR_MCP_UNSUPPORTED_VERSION` when no common version exists. Given a
   * {@link TransportFactory} instead of a transport, the client calls it now and again on
   * every `reconnect()` without an argument.
   */
  async connect(transport: Transport | TransportFactory, options: ConnectOptions = {}): Promise<void> {
    if (this.#connection !== undefined && !this.#connection.closed) throw new McpError(McpErrorCode.AlreadyStarted, 'The client is already connected');
    if (typeof transport === 'function') {
      this.#factory = transport;
      await this.#open(await transport(), options);
    } else await this.#open(transport, options);
  }

  /**
   * Ends the current connection (if still open: `on.closed` then reports `byClient`) and
   * connects again, re-negotiating from scratch: to `transport` when given, else to a new one
   * from the factory given to `connect` (`ERR_MCP_INVALID_ARGUMENT` when there is neither).
   * Open subscriptions end; cached results of the client's own cache are dropped; calls in
   * flight fail with `ERR_MCP_CONNECTION_CLOSED` (retry them after it resolves).
   */
  async reconnect(transport?: Transport, options: ConnectOptions = {}): Promise<void> {
    if (transport === undefined && this.#factory === undefined) {
      throw new McpError(McpErrorCode.InvalidArgument, 'reconnect() needs a transport: pass one, or give connect() a transport factory');
    }
    await this.#end();
    await this.#open(transport ?? (await (this.#factory as TransportFactory)()), options);
  }

  async #open(transport: Transport, options: ConnectOptions): Promise<void> {
    if (this.#closedSettled) this.#armClosed();
    this.#description = undefined;
    const connection = new Connection(transport, {
      logger: this.#logger,
      defaultTimeoutMs: this.#options.defaultTimeoutMs ?? 60_000,
      maxTotalTimeoutMs: this.#options.maxTotalTimeoutMs ?? 0,
      onRequest: legacyRequestHandler({
        handlers: this.#options.handlers ?? {},
        capabilities: () => this.#capabilities,
        revision: () => this.#description?.protocolVersion,
        stateful: () => this.#description?.era === 'stateful',
        attribute: (extra) => this.#calls.attribute(extra),
      }),
      onNotification: (n, extra) => this.#onNotification(n, extra),
      onHandlerError: (error, request) =>
        this.#logger.warn('a client handler failed', { method: request.method, error: error instanceof Error ? error.message : String(error) }),
    });
    this.#connection = connection;
    try {
      await connection.start();
      this.#description = await negotiate({
        send: (revision, method, params, opts) => connection.request(method, this.#stamp(revision, params), opts),
        notify: (method, params) => connection.notify(method, params),
        versions: this.#versions,
        era: this.#options.era,
        probeTimeoutMs: this.#options.probeTimeoutMs ?? 5000,
        clientInfo: this.info,
        capabilities: this.#capabilities,
        logger: this.#logger,
        signal: options.signal,
      });
    } catch (error) {
      // A connection that never negotiated reports through this rejection, not `closed`.
      this.#connection = undefined;
      await connection.close().catch(() => undefined);
      throw error;
    }
    connection.onClose((reason) => this.#onClosed(connection, reason));
  }

  /** Ends every subscription and closes the connection; pending calls fail with `ERR_MCP_CONNECTION_CLOSED`. */
  async close(): Promise<void> {
    await this.#end();
  }

  /**
   * Tells a stateful server that the client's roots changed (`notifications/roots/list_changed`;
   * declare `capabilities.roots.listChanged` to promise it). The stateless era has no such
   * notification (a server asks for roots when it needs them): there it is a no-op, logged at
   * debug level.
   *
   * @see https://modelcontextprotocol.io/specification/2025-11-25/client/roots#root-list-changes
   */
  async notifyRootsListChanged(): Promise<void> {
    const { era, protocolVersion } = this.#require();
    if (era !== 'stateful') {
      this.#logger.debug('notifications/roots/list_changed does not exist on this revision; not sent', { protocolVersion });
      return;
    }
    await (this.#connection as Connection).notify('notifications/roots/list_changed');
  }

  async #end(): Promise<void> {
    this.#listens.abortAll();
    this.#statefulListens.abortAll();
    if (this.#options.cache === undefined) this.cache.clear();
    const connection = this.#connection;
    if (connection === undefined || connection.closed) return;
    this.#closingByClient = true;
    try {
      await connection.close();
    } finally {
      this.#closingByClient = false;
    }
  }

  #armClosed(): void {
    this.#closedSettled = false;
    this.#closed = new Promise((resolve) => (this.#resolveClosed = resolve));
  }

  #onClosed(connection: Connection, reason: Error | undefined): void {
    if (connection !== this.#connection || this.#closedSettled) return;
    const cause = reason ?? this.#failure;
    this.#failure = undefined;
    this.#statefulListens.abortAll();
    const event: ClientClosedEvent = cause === undefined ? { byClient: this.#closingByClient } : { cause, byClient: this.#closingByClient };
    this.#listens.abortAll();
    this.#closedSettled = true;
    this.#resolveClosed(event);
    try {
      this.#options.on?.closed?.(event);
    } catch (error) {
      this.#logger.warn('the closed hook threw', { error: String(error) });
    }
  }

  /**
   * Sets the minimum level of log messages. Stateful era: `logging/setLevel`. Stateless era:
   * stamped into the `_meta` of every later request.
   */
  async setLoggingLevel(level: LoggingLevel, options: CallOptions = {}): Promise<void> {
    this.#logLevel = level;
    if (this.#require().era === 'stateful') await this.send('logging/setLevel', { level }, options);
  }

  /**
   * Subscribes to change notifications and resolves with the granted filter. Its
   * notifications go to `options.onNotification` (and the client's own hooks and cache
   * invalidation).
   *
   * - Stateless era: opens a `subscriptions/listen` stream and resolves once the server
   *   acknowledged it.
   * - Stateful era: mapped onto that era's notifications (see `statefulListen.ts`): the
   *   `*ListChanged` flags are granted when the server declared `listChanged` (those
   *   notifications arrive unsolicited), `resourceSubscriptions` when it declared
   *   `resources.subscribe` (each URI is `resources/subscribe`d, and unsubscribed when the
   *   last subscription naming it closes); `taskIds` is never granted.
   */
  listen(filter: SubscriptionFilter, options: ListenOptions = {}): Promise<Subscription> {
    const description = this.#require();
    const connection = this.#connection as Connection;
    if (description.era === 'stateful') {
      return this.#statefulListens.open(filter, options, {
        serverCapabilities: description.serverCapabilities,
        request: async (method, uri, signal) => {
          await this.send(method, { uri }, signal === undefined ? {} : { signal });
        },
        warn: (message, fields) => this.#logger.warn(message, fields),
      });
    }
    return this.#listens.open(filter, options, {
      send: (params, signal, onId) =>
        connection.request('subscriptions/listen', this.#stamp(description.protocolVersion, params, options.capabilities), { signal, onId, timeoutMs: 0, maxTotalTimeoutMs: 0 }),
      ackTimeoutMs: this.#options.defaultTimeoutMs ?? 60_000,
    });
  }

  // ---- the seam used by McpClientCalls --------------------------------------------------

  /** @internal The negotiated state, or `ERR_MCP_NOT_CONNECTED`. */
  protected override description(): ServerDescription {
    return this.#require();
  }

  /** @internal The authorization context for private cache entries. */
  protected override cacheKey(): string | undefined {
    return this.#options.cacheKey;
  }

  /**
   * @internal Sends one request and decodes its result. MRTR-capable methods on the
   * stateless era are driven to a complete result (unless `input: 'manual'`); `rounds`
   * counts the input rounds taken.
   */
  protected override send(method: string, params: Params, options: CallOptions): Promise<SendOutcome> {
    // Not `async`, nor the methods below: on a forwarding host every layer's promise and hop is
    // paid per call; each returns the one promise of the layer under it, chained once.
    let protocolVersion: ProtocolRevision;
    try {
      ({ protocolVersion } = this.#require());
    } catch (error) {
      return Promise.reject(error);
    }
    // Without a registered OpenTelemetry global `observe` is exactly `fn()`: skip its description.
    if (!telemetryActive()) return this.#linked(method, params, options, protocolVersion, undefined);
    const target = params['name'] ?? params['uri'];
    const attributes = this.#options.telemetryAttributes;
    return observe(
      { side: 'client', method, protocolVersion, target: typeof target === 'string' ? target : undefined, ...(attributes !== undefined ? { attributes } : {}) },
      (scope) => this.#linked(method, withTraceMeta(params, scope.traceMeta), options, protocolVersion, scope),
      undefined,
      (outcome) => outcome.value,
    );
  }

  #linked(method: string, params: Params, options: CallOptions, protocolVersion: ProtocolRevision, scope: OperationScope | undefined): Promise<SendOutcome> {
    // A lazy abort belongs to this call alone (`CallOptions.signal`) and takes any number of
    // listeners: it needs no fan-out, and its signal is never made.
    const signal = options.signal;
    const link = signal === undefined || signal instanceof LazyAbort ? undefined : this.#signals.link(signal);
    let sent: Promise<SendOutcome>;
    try {
      // The linked signal goes beside `options`, not in a copy of them (one spread less per call).
      sent = this.#send(method, params, options, link === undefined ? signal : link.signal, protocolVersion, scope);
    } catch (error) {
      sent = Promise.reject(error);
    }
    return sent.then(
      (outcome) => {
        link?.release();
        return outcome;
      },
      (error: unknown) => {
        link?.release();
        const expired = mcpErrorIn(error, McpErrorCode.SessionExpired);
        if (expired !== undefined) this.#sessionLost(expired);
        throw error;
      },
    );
  }

  /** The server forgot the stateful session: the connection is over (reported with that cause). */
  #sessionLost(error: McpError): void {
    const connection = this.#connection;
    if (connection === undefined || connection.closed) return;
    this.#failure = error;
    connection.close().catch(() => undefined);
  }

  /** `signal` is the call's own (linked to `options.signal`), which stands in for it. */
  #send(method: string, params: Params, options: CallOptions, signal: AbortLike | undefined, protocolVersion: ProtocolRevision, scope: OperationScope | undefined): Promise<SendOutcome> {
    const connection = this.#connection as Connection;
    // One round; its result also serves as the call's outcome when no MRTR loop runs (`rounds: 0`).
    const once = (p: Params): Promise<RoundResult & SendOutcome> => {
      let requestId: RequestId | undefined;
      const closeCall = (): void => {
        if (requestId !== undefined) this.#calls.close(requestId);
      };
      let raw: Promise<Record<string, unknown>>;
      try {
        raw = connection.request(
          method,
          this.#stamp(protocolVersion, p, options.capabilities),
          requestOptions(options, signal, (id) => {
            // In flight under its id, so the server's questions about it can be attributed to it.
            requestId = id;
            scope?.requestId(id);
            this.#calls.open(id, { handlers: options.handlers, onLog: options.onLog });
          }),
        );
      } catch (error) {
        closeCall();
        return Promise.reject(explainMissingCapability(error));
      }
      return raw.then(
        (value) => {
          closeCall();
          if (lookupMethod(protocolVersion, method)?.result === undefined) return { value, resultType: 'complete', requestId: requestId as RequestId, rounds: 0 };
          // A task (tasks extension) is a valid answer only to a request that declared the extension.
          const decoded = decodeResult(protocolVersion, method, value, value['resultType'] === 'task' ? { tasksExtension: hasExtension(options.capabilities ?? this.#capabilities, TASKS_EXTENSION_ID) } : undefined);
          if (!decoded.ok) throw decoded.error;
          return { value: decoded.value, resultType: decoded.resultType, requestId: requestId as RequestId, rounds: 0 };
        },
        (error: unknown) => {
          closeCall();
          throw explainMissingCapability(error);
        },
      );
    };
    const mrtr = isStateless(protocolVersion) && lookupMethod(protocolVersion, method)?.mrtr === true;
    // Retry fields only exist on MRTR-capable methods of the stateless era.
    const retry = mrtr ? retryFields(options) : undefined;
    if (!mrtr || options.input === 'manual') return once(retry === undefined ? params : { ...params, ...retry });
    return runWithInput(
      method,
      params,
      { handlers: handlersFor(this.#options.handlers ?? {}, options.handlers), capabilities: options.capabilities ?? this.#capabilities, revision: protocolVersion, maxRounds: this.#options.maxInputRounds ?? 8, send: once },
      signal,
      retry,
    ).then((outcome) => ({ ...outcome, resultType: 'complete' }));
  }

  #require(): ServerDescription {
    const connection = this.#connection;
    if (this.#description === undefined || connection === undefined) throw new McpError(McpErrorCode.NotConnected, 'The client is not connected');
    if (connection.closed) throw new McpError(McpErrorCode.ConnectionClosed, 'The connection is closed');
    return this.#description;
  }

  #stamp(revision: ProtocolRevision, params: Params, capabilities: ClientCapabilities = this.#capabilities): Params {
    // One shape whatever is set (absent members undefined): no conditional spread per request.
    return encodeRequestParams(revision, params, { clientCapabilities: capabilities, clientInfo: this.info, logLevel: this.#logLevel }) ?? params;
  }

  #onNotification(notification: JsonRpcNotification, extra: MessageExtra | undefined): void {
    const subscriptionId = subscriptionIdOf(notification);
    if (subscriptionId !== undefined && notification.method !== 'notifications/progress' && notification.method !== 'notifications/message') {
      if (!this.#listens.route(subscriptionId, notification)) {
        this.#logger.debug('dropped a notification of an unknown subscription', { method: notification.method, subscriptionId });
        return;
      }
      if (notification.method !== 'notifications/subscriptions/acknowledged') this.#announce(notification);
      return;
    }
    this.#announce(notification, extra);
    if (this.#description?.era === 'stateful' && this.#statefulListens.size > 0) this.#statefulListens.deliver(notification);
    this.#options.onNotification?.(notification);
  }

  /**
   * Cache invalidation and typed hooks for one change/log/progress notification. A log
   * message attributed to a call with its own `onLog` goes there instead of `on.logMessage`.
   */
  #announce(notification: JsonRpcNotification, extra?: MessageExtra): void {
    const on = this.#options.on ?? {};
    const params = notification.params ?? {};
    const invalidated = LIST_CHANGED[notification.method];
    if (invalidated !== undefined) {
      this.cache.invalidate(...invalidated);
      if (invalidated[0] === 'tools/list') on.toolsListChanged?.();
      else if (invalidated[0] === 'prompts/list') on.promptsListChanged?.();
      else on.resourcesListChanged?.();
      return;
    }
    switch (notification.method) {
      case 'notifications/resources/updated':
        if (typeof params['uri'] === 'string') {
          this.cache.invalidateResource(params['uri']);
          on.resourceUpdated?.(params['uri']);
        }
        break;
      case 'notifications/message': {
        (this.#calls.attribute(extra).onLog ?? on.logMessage)?.(params as LoggingMessageParams);
        break;
      }
      case 'notifications/progress':
        on.progress?.(params as ProgressParams);
        break;
    }
  }
}

/** `params` with the trace context merged into its `_meta` (a `traceparent` the caller set wins). */
function withTraceMeta(params: Params, traceMeta: Readonly<Record<string, string>> | undefined): Params {
  if (traceMeta === undefined) return params;
  return { ...params, _meta: { ...traceMeta, ...(params['_meta'] as Record<string, unknown> | undefined) } };
}

/**
 * The connection's options of one request, in one shape whatever the call set (absent members
 * undefined, which `Connection.request` reads as unset): no conditional spreads per request.
 */
function requestOptions(options: CallOptions, signal: AbortLike | undefined, onId: (id: RequestId) => void): RequestOptions {
  const fixed: FixedRequestOptions = {
    signal,
    timeoutMs: options.timeoutMs,
    maxTotalTimeoutMs: options.maxTotalTimeoutMs,
    onProgress: options.onProgress,
    onId,
  };
  return fixed as RequestOptions;
}

/** The members {@link requestOptions} sets, each present (possibly undefined). */
interface FixedRequestOptions {
  readonly signal: AbortLike | undefined;
  readonly timeoutMs: number | undefined;
  readonly maxTotalTimeoutMs: number | undefined;
  readonly onProgress: RequestOptions['onProgress'];
  readonly onId: (id: RequestId) => void;
}
