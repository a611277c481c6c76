/**
 * One downstream server of the host: its own `McpClient` on its own transport, a lifecycle
 * (start, health, restart with exponential backoff, stop), a concurrency limit and a timeout
 * per request, and a catalog of what it offers (tools, prompts, resources, templates) kept
 * fresh by its list_changed notifications.
 *
 * Isolation: each server has its own client, transport, limiter and backoff; a server that
 * crashes in a loop only delays its own restarts, and nothing it sends reaches another
 * server. Errors name the server and the cause.
 *
 * @see https://modelcontextprotocol.io/specification/2025-11-25/architecture
 * @module
 */
import { McpClient } from '../client/mcpClient.js';
import { ErrorCode } from '../jsonrpc/errors.js';
import type { Transport } from '../transport/types.js';
import { McpError, McpErrorCode, describeError, isMcpError } from '../util/errors.js';
import { silentLogger, type Logger } from '../util/logger.js';
import { abortReasonOf, listenAbort, type AbortLike } from '../util/lazyAbort.js';
import { SERVER_ID_ATTRIBUTE } from './callMetrics.js';
import { manifestEnvelopeOf, type ManifestEnvelope } from '../protocol/manifest.js';
import type { QuarantinedItem } from './catalogVetting.js';
import { Limiter } from './limiter.js';
import { ResourceSubscriptions } from './resourceSubscriptions.js';
import type { DownstreamSpec } from './spec.js';
import { DEFAULT_NOTIFICATION_LIMITS, Relister } from './notificationLimits.js';
import { EMPTY_CATALOG, type Catalog, type DownstreamOptions, type RunOptions, type ServerHealth, type ServerState } from './downstreamTypes.js';

export { EMPTY_CATALOG, type BackoffOptions, type Catalog, type DownstreamOptions, type RunOptions, type ServerHealth, type ServerState, type TransportFactory } from './downstreamTypes.js';

/**
 * The `timeoutMs` a request through {@link Downstream.run} gives the client: none. The
 * server's timeout is enforced here, by one timer that aborts the call's signal (the client then
 * sends `notifications/cancelled`), so the client's own per-request timer for the same deadline
 * would be a second timer on every call.
 */
const HOST_ENFORCED = 0;

/**
 * How long a server has to start (its transport opened, `initialize` answered) when its
 * `startTimeoutMs` is not set: 30 s. A cold `npx` start (a package download, then Node) takes
 * seconds to tens of seconds; half the request default (`timeoutMs`, 60 s) frees a hung
 * server's slot twice as fast, and it is retried with backoff like any failed start.
 */
export const DEFAULT_START_TIMEOUT_MS = 30_000;

/** The lifecycle, catalog, limit and timeout of one downstream server. */
export class Downstream {
  /** The server's configuration. */
  #spec: DownstreamSpec;
  readonly #options: DownstreamOptions;
  readonly #logger: Logger;
  readonly #limiter: Limiter;
  readonly #now: () => number;
  readonly #initialMs: number;
  readonly #maxMs: number;
  readonly #stableMs: number;
  readonly #crashLoopAfter: number;
  #state: ServerState = 'stopped';
  #client: McpClient | undefined;
  #catalog: Catalog = EMPTY_CATALOG;
  /** The lists as received, kept to vet them again after a person's decision. */
  #received: { catalog: Catalog; envelope: ManifestEnvelope | undefined } | undefined;
  #quarantined: readonly QuarantinedItem[] = [];
  /** Bumped per refresh: only the latest refresh's lists are applied. */
  #refreshes = 0;
  #failures = 0;
  #restarts = 0;
  #starts = 0;
  #readySince = 0;
  #lastError: string | undefined;
  #nextStartAt: number | undefined;
  #timer: ReturnType<typeof setTimeout> | undefined;
  /** The client of the start in progress (not ready yet): {@link stop} closes it too. */
  #startingClient: McpClient | undefined;
  #stopping = false;
  #firstSettled: Promise<void>;
  #settleFirst: () => void = () => undefined;
  readonly #readyWaiters = new Set<() => void>();
  readonly #subscriptions: ResourceSubscriptions;
  #generation = 0;

  constructor(spec: DownstreamSpec, options: DownstreamOptions) {
    this.#spec = spec;
    this.#options = options;
    this.#logger = options.logger ?? silentLogger;
    this.#limiter = new Limiter({ max: spec.options.maxConcurrency, name: spec.id });
    this.#now = options.now ?? Date.now;
    this.#initialMs = options.backoff?.initialMs ?? 250;
    this.#maxMs = options.backoff?.maxMs ?? 30_000;
    this.#stableMs = options.backoff?.stableMs ?? 30_000;
    this.#crashLoopAfter = options.backoff?.crashLoopAfter ?? 5;
    this.#firstSettled = new Promise((resolve) => (this.#settleFirst = resolve));
    this.#subscriptions = new ResourceSubscriptions(spec.id, this.#logger);
  }

  /** How the server is reached and its options (only its roots change in place: {@link setRoots}). */
  get spec(): DownstreamSpec {
    return this.#spec;
  }

  /**
   * Replaces the roots offered to the server and tells a connected stateful server with
   * `notifications/roots/list_changed`, so it asks again; no restart.
   * See https://modelcontextprotocol.io/specification/2025-11-25/client/roots#root-list-changes
   */
  async setRoots(roots: NonNullable<DownstreamSpec['options']['roots']>): Promise<void> {
    this.#spec = { ...this.#spec, options: { ...this.#spec.options, roots } };
    const client = this.client;
    if (client === undefined) return;
    await client.notifyRootsListChanged().catch((error: unknown) => this.#logger.warn(`could not tell server ${this.#spec.id} its roots changed`, { server: this.#spec.id, error: describeError(error) }));
  }

  /** The server id. */
  get id(): string {
    return this.spec.id;
  }

  /** The current health. */
  get health(): ServerHealth {
    return {
      id: this.spec.id,
      state: this.#state,
      failures: this.#failures,
      restarts: this.#restarts,
      crashLooping: this.#failures >= this.#crashLoopAfter,
      ...(this.#lastError !== undefined ? { lastError: this.#lastError } : {}),
      ...((this.#state === 'backoff' || this.#state === 'needs-login') && this.#nextStartAt !== undefined ? { nextStartAt: this.#nextStartAt } : {}),
    };
  }

  /** What the server offers now (empty unless ready). */
  get catalog(): Catalog {
    return this.#state === 'ready' ? this.#catalog : EMPTY_CATALOG;
  }

  /** What the vetter withheld from the catalog (empty unless ready). */
  get quarantined(): readonly QuarantinedItem[] {
    return this.#state === 'ready' ? this.#quarantined : [];
  }

  /** Vets the last received lists again (after a pin was approved or rejected) and reports the catalog. */
  async revet(): Promise<void> {
    const client = this.#client;
    const received = this.#received;
    const generation = this.#generation;
    if (client === undefined || received === undefined || this.#state !== 'ready') return;
    const vetted = await this.#vet(client, received.catalog, received.envelope);
    if (generation !== this.#generation || this.#received !== received) return;
    this.#apply(vetted);
  }

  /** The connected client, when ready. */
  get client(): McpClient | undefined {
    return this.#state === 'ready' ? this.#client : undefined;
  }

  /**
   * Starts the server and resolves after the first attempt settled (ready or failed: a
   * failure schedules a restart and never rejects here).
   */
  start(): Promise<void> {
    if (this.#state !== 'stopped' || this.#stopping) return this.#firstSettled;
    void this.#attempt();
    return this.#firstSettled;
  }

  /** Resolves once the server is ready (now or after a restart), or rejects when `signal` aborts. */
  whenReady(signal?: AbortSignal): Promise<void> {
    if (this.#state === 'ready') return Promise.resolve();
    return new Promise((resolve, reject) => {
      const done = (): void => {
        signal?.removeEventListener('abort', onAbort);
        this.#readyWaiters.delete(done);
        resolve();
      };
      const onAbort = (): void => {
        this.#readyWaiters.delete(done);
        reject(new McpError(McpErrorCode.RequestCancelled, `Stopped waiting for server ${this.spec.id}`, { cause: signal?.reason }));
      };
      if (signal?.aborted) return onAbort();
      signal?.addEventListener('abort', onAbort, { once: true });
      this.#readyWaiters.add(done);
    });
  }

  /**
   * Runs one request against the ready client under the server's concurrency limit and
   * timeout. Fails fast with `ERR_MCP_SERVER_UNAVAILABLE` (naming the server, its state and
   * last error) when the server is not ready; a request the server's death interrupts fails
   * with the same code and the cause.
   */
  run<T>(task: (client: McpClient, options: { signal: AbortLike; timeoutMs: number }) => Promise<T>, options: RunOptions = {}): Promise<T> {
    // A free slot is taken at once: no promise and no hop before the request goes out.
    const release = this.#limiter.tryAcquire(options.signal);
    if (release !== undefined) return this.#runWith(release, task, options);
    return this.#limiter.acquire(options.signal).then((r) => this.#runWith(r, task, options));
  }

  /** {@link run} once it holds a slot; `release` is called exactly once, when the request settled. */
  #runWith<T>(release: () => void, task: (client: McpClient, options: { signal: AbortLike; timeoutMs: number }) => Promise<T>, options: RunOptions): Promise<T> {
    const client = this.client;
    if (client === undefined) {
      release();
      return Promise.reject(this.#unavailable());
    }
    if (options.signal !== undefined && options.abort !== undefined) return this.#runOwned(client, task, options.signal, options.abort, release);
    return this.#runLinked(client, task, options.signal).finally(release);
  }

  /** {@link run} on a signal of its own, linked to the caller's, which the timeout aborts. */
  async #runLinked<T>(client: McpClient, task: (client: McpClient, options: { signal: AbortLike; timeoutMs: number }) => Promise<T>, outer: AbortLike | undefined): Promise<T> {
    // One controller for both the caller's signal and the timeout, linked by hand: on every
    // forwarded call, `AbortSignal.any` costs more than the rest of this method.
    const controller = new AbortController();
    let timedOut = false;
    const timer = setTimeout(() => {
      timedOut = true;
      controller.abort(this.#timeout());
    }, this.spec.options.timeoutMs);
    const onAbort = (): void => controller.abort(outer === undefined ? undefined : abortReasonOf(outer));
    let unlisten: (() => void) | undefined;
    if (outer?.aborted === true) onAbort();
    else if (outer !== undefined) unlisten = listenAbort(outer, onAbort);
    try {
      return await task(client, { signal: controller.signal, timeoutMs: HOST_ENFORCED });
    } catch (error) {
      if (timedOut && !(outer?.aborted ?? false)) throw controller.signal.reason;
      throw this.#interrupted(error);
    } finally {
      clearTimeout(timer);
      unlisten?.();
    }
  }

  /**
   * {@link run} on a signal the caller owns: the timeout aborts it through `abort`. Chained
   * once (not `async`): the gateway forwards every call this way.
   */
  #runOwned<T>(
    client: McpClient,
    task: (client: McpClient, options: { signal: AbortLike; timeoutMs: number }) => Promise<T>,
    signal: AbortLike,
    abort: (reason: unknown) => void,
    release: () => void,
  ): Promise<T> {
    const timeoutMs = this.spec.options.timeoutMs;
    let timeout: McpError | undefined;
    const timer = setTimeout(() => {
      if (signal.aborted) return;
      timeout = this.#timeout();
      abort(timeout);
    }, timeoutMs);
    let running: Promise<T>;
    try {
      running = task(client, { signal, timeoutMs: HOST_ENFORCED });
    } catch (error) {
      running = Promise.reject(error);
    }
    return running.then(
      (value) => {
        clearTimeout(timer);
        release();
        return value;
      },
      (error: unknown) => {
        clearTimeout(timer);
        release();
        if (timeout !== undefined) throw timeout;
        throw this.#interrupted(error);
      },
    );
  }

  #timeout(): McpError {
    return new McpError(McpErrorCode.RequestTimeout, `Server ${this.spec.id} did not answer within ${this.spec.options.timeoutMs} ms (its timeoutMs); the request was cancelled`);
  }

  /** A request the server's death interrupted fails with `ERR_MCP_SERVER_UNAVAILABLE` and the cause. */
  #interrupted(error: unknown): unknown {
    if (isMcpError(error) && error.code === McpErrorCode.ConnectionClosed) {
      return new McpError(McpErrorCode.ServerUnavailable, `Server ${this.spec.id} stopped during the request: ${error.message}`, { cause: error });
    }
    return error;
  }

  /**
   * Subscribes to `notifications/resources/updated` of `uri` (the server's own URI), counted:
   * pair every call with one {@link unsubscribeResource}. Held across restarts. Fails with
   * `ERR_MCP_UNSUPPORTED` when the ready server does not support subscriptions.
   */
  subscribeResource(uri: string): Promise<void> {
    return this.#subscriptions.acquire(uri);
  }

  /** The resource URIs subscribed to on this server, with how many subscribers each has. */
  get subscriptions(): ReadonlyMap<string, number> {
    return this.#subscriptions.held;
  }

  /** Drops one subscriber of `uri`; the last one ends the server's subscription. */
  unsubscribeResource(uri: string): void {
    this.#subscriptions.release(uri);
  }

  /** Stops the server for good: cancels a pending restart and closes the client (and its child process). */
  async stop(): Promise<void> {
    this.#stopping = true;
    if (this.#timer !== undefined) clearTimeout(this.#timer);
    this.#timer = undefined;
    this.#generation++;
    const client = this.#client;
    this.#client = undefined;
    this.#subscriptions.detach();
    this.#setState('stopped');
    this.#limiter.rejectQueued(this.#unavailable());
    this.#settleFirst();
    const starting = this.#startingClient;
    this.#startingClient = undefined;
    await Promise.all([client?.close().catch(() => undefined), starting?.close().catch(() => undefined)]);
    this.#logger.info(`server ${this.spec.id} stopped`, { event: 'server.stopped', server: this.spec.id });
  }

  async #attempt(): Promise<void> {
    const generation = ++this.#generation;
    this.#timer = undefined;
    if (this.#starts++ > 0) this.#restarts++;
    this.#logger.debug(`server ${this.spec.id} starting`, { event: 'server.starting', server: this.spec.id, restarts: this.#restarts });
    this.#setState('starting');
    let client: McpClient | undefined;
    /** Set once ready: a close before that is the start's own failure, reported by the catch below. */
    let live = false;
    const startTimeoutMs = this.spec.options.startTimeoutMs ?? DEFAULT_START_TIMEOUT_MS;
    const deadline = new AbortController();
    const timer = setTimeout(() => deadline.abort(new McpError(McpErrorCode.RequestTimeout, `it did not answer initialize within ${startTimeoutMs} ms (its startTimeoutMs)`)), startTimeoutMs);
    try {
      const transport = await this.#options.transport(this.spec, { stderr: (chunk) => this.#stderr(chunk) });
      if (generation !== this.#generation) {
        await transport.close();
        return;
      }
      client = this.#newClient(generation);
      this.#startingClient = client;
      await client.connect(
        watchClose(transport, (reason) => {
          if (live) this.#closed(generation, reason);
        }),
        { signal: deadline.signal },
      );
      clearTimeout(timer);
      // Ask for every log message: the gateway filters by each upstream client's own level.
      if (client.serverCapabilities?.['logging'] !== undefined) await client.setLoggingLevel('debug').catch(() => undefined);
      const received = await this.#fetchCatalog(client);
      const vetted = await this.#vet(client, received.catalog, received.envelope);
      if (generation !== this.#generation) {
        await client.close().catch(() => undefined);
        return;
      }
      this.#client = client;
      this.#received = received;
      this.#catalog = vetted.catalog;
      this.#quarantined = vetted.quarantined;
      this.#readySince = this.#now();
      this.#lastError = undefined;
      live = true;
      this.#logger.info(`server ${this.spec.id} ready`, {
        event: 'server.ready',
        server: this.spec.id,
        protocolVersion: client.protocolVersion,
        restarts: this.#restarts,
        tools: vetted.catalog.tools.length,
      });
      this.#setState('ready');
      this.#options.onCatalog?.(this.#catalog);
      for (const waiter of [...this.#readyWaiters]) waiter();
      void this.#listen(client, generation);
      this.#subscriptions.attach(client);
    } catch (error) {
      await client?.close().catch(() => undefined);
      if (generation !== this.#generation) return;
      this.#client = undefined;
      const login = findLoginRequired(error);
      if (login !== undefined) this.#needsLogin(login.message);
      else this.#failed('server.start_failed', `did not start: ${describeError(deadline.signal.aborted ? deadline.signal.reason : error)}`);
    } finally {
      clearTimeout(timer);
      if (this.#startingClient === client) this.#startingClient = undefined;
      this.#settleFirst();
    }
  }

  #newClient(generation: number): McpClient {
    // A storm of list_changed makes one re-list per window, the last change always followed by one.
    const relister = new Relister(() => this.#refresh(generation), this.#options.listChangedWindowMs ?? DEFAULT_NOTIFICATION_LIMITS.listChangedWindowMs);
    const refresh = (): void => {
      if (generation === this.#generation) relister.changed();
      else relister.stop();
    };
    return new McpClient(this.#options.clientInfo, {
      logger: this.#logger,
      telemetryAttributes: { [SERVER_ID_ATTRIBUTE]: this.spec.id },
      defaultTimeoutMs: this.spec.options.timeoutMs,
      ...(this.spec.options.era !== 'auto' ? { era: this.spec.options.era } : {}),
      ...(this.#options.handlers !== undefined ? { handlers: this.#options.handlers } : {}),
      ...(this.#options.capabilities !== undefined ? { capabilities: this.#options.capabilities } : {}),
      on: {
        toolsListChanged: refresh,
        promptsListChanged: refresh,
        resourcesListChanged: refresh,
        resourceUpdated: (uri) => this.#options.onResourceUpdated?.(uri),
        logMessage: (params) => this.#options.onLog?.(params),
      },
    });
  }

  /** On the stateless era, list_changed arrive only on a `subscriptions/listen` stream. */
  async #listen(client: McpClient, generation: number): Promise<void> {
    if (client.era !== 'stateless') return;
    const caps = client.serverCapabilities ?? {};
    const listChanged = (member: string): boolean => {
      const cap = caps[member];
      return typeof cap === 'object' && cap !== null && (cap as Record<string, unknown>)['listChanged'] === true;
    };
    const filter = {
      ...(listChanged('tools') ? { toolsListChanged: true } : {}),
      ...(listChanged('prompts') ? { promptsListChanged: true } : {}),
      ...(listChanged('resources') ? { resourcesListChanged: true } : {}),
    };
    if (Object.keys(filter).length === 0 || generation !== this.#generation) return;
    try {
      await client.listen(filter);
    } catch (error) {
      this.#logger.warn(`server ${this.spec.id}: could not listen for list changes`, { server: this.spec.id, error: describeError(error) });
    }
  }

  async #refresh(generation: number): Promise<void> {
    const client = this.#client;
    if (client === undefined || generation !== this.#generation || this.#state !== 'ready') return;
    const refresh = ++this.#refreshes;
    try {
      const received = await this.#fetchCatalog(client);
      const vetted = await this.#vet(client, received.catalog, received.envelope);
      // A later refresh (or a restart) supersedes this one.
      if (generation !== this.#generation || refresh !== this.#refreshes) return;
      this.#received = received;
      this.#apply(vetted);
    } catch (error) {
      this.#logger.warn(`server ${this.spec.id}: could not refresh its lists`, { server: this.spec.id, error: describeError(error) });
    }
  }

  #apply(vetted: { readonly catalog: Catalog; readonly quarantined: readonly QuarantinedItem[] }): void {
    this.#catalog = vetted.catalog;
    this.#quarantined = vetted.quarantined;
    this.#options.onCatalog?.(vetted.catalog);
  }

  /** The vetted lists (as received when there is no vetter). */
  async #vet(client: McpClient, catalog: Catalog, envelope: ManifestEnvelope | undefined): Promise<{ catalog: Catalog; quarantined: readonly QuarantinedItem[] }> {
    const vetter = this.#options.vetter;
    if (vetter === undefined) return { catalog, quarantined: [] };
    const result = await vetter.vet({ serverId: this.spec.id, spec: this.spec, serverInfo: client.serverInfo, instructions: client.instructions, catalog, envelope });
    const c = result.catalog;
    return {
      catalog: Object.freeze({ tools: Object.freeze([...c.tools]), prompts: Object.freeze([...c.prompts]), resources: Object.freeze([...c.resources]), templates: Object.freeze([...c.templates]) }),
      quarantined: Object.freeze([...result.quarantined]),
    };
  }

  /** Every list, fresh (pinning must see what the server says now), and the signed manifest of the first list result carrying one. */
  async #fetchCatalog(client: McpClient): Promise<{ catalog: Catalog; envelope: ManifestEnvelope | undefined }> {
    const caps = client.serverCapabilities;
    const has = (member: string): boolean => caps === undefined || member in caps;
    const opts = { fresh: false, timeoutMs: this.spec.options.timeoutMs };
    let envelope: ManifestEnvelope | undefined;
    const all = async <T>(page: (cursor: string | undefined) => Promise<{ items: readonly T[]; nextCursor: string | undefined; result: Readonly<Record<string, unknown>> }>): Promise<T[]> => {
      const items: T[] = [];
      const seen = new Set<string>();
      let cursor: string | undefined;
      for (;;) {
        const p = await page(cursor);
        envelope ??= manifestEnvelopeOf(p.result);
        items.push(...p.items);
        if (p.nextCursor === undefined || seen.has(p.nextCursor) || seen.size >= MAX_PAGES) return items;
        seen.add(p.nextCursor);
        cursor = p.nextCursor;
      }
    };
    const [tools, prompts, resources, templates] = await Promise.all([
      has('tools') ? all((c) => client.listToolsPage(c, opts)) : [],
      has('prompts') ? optional(all((c) => client.listPromptsPage(c, opts))) : [],
      has('resources') ? optional(client.listResources(opts)) : [],
      has('resources') ? optional(all((c) => client.listResourceTemplatesPage(c, opts))) : [],
    ]);
    const catalog = Object.freeze({ tools: Object.freeze(tools), prompts: Object.freeze(prompts), resources: Object.freeze(resources), templates: Object.freeze(templates) });
    return { catalog, envelope };
  }

  #closed(generation: number, reason: Error | undefined): void {
    if (generation !== this.#generation || this.#stopping) return;
    this.#generation++;
    this.#client = undefined;
    this.#subscriptions.detach();
    const wasReady = this.#state === 'ready';
    if (wasReady && this.#now() - this.#readySince >= this.#stableMs) this.#failures = 0;
    this.#failed('server.crashed', reason === undefined ? 'stopped' : `stopped: ${reason.message}`);
    if (wasReady) this.#options.onCatalog?.(EMPTY_CATALOG);
  }

  #failed(event: 'server.start_failed' | 'server.crashed', message: string): void {
    this.#failures++;
    this.#lastError = message;
    const delay = Math.min(this.#maxMs, this.#initialMs * 2 ** Math.min(this.#failures - 1, 30));
    this.#nextStartAt = this.#now() + delay;
    const crashLooping = this.#failures >= this.#crashLoopAfter;
    const fields = { event, server: this.spec.id, failures: this.#failures, nextStartInMs: delay, crashLooping };
    if (crashLooping) this.#logger.error(`server ${this.spec.id} ${message}; crash-looping, next start in ${delay} ms`, fields);
    else this.#logger.warn(`server ${this.spec.id} ${message}; next start in ${delay} ms`, fields);
    this.#setState('backoff');
    this.#limiter.rejectQueued(this.#unavailable());
    this.#timer = setTimeout(() => void this.#attempt(), delay);
  }

  /** No usable OAuth token: not a crash, so no failure counted; retried slowly until a sign-in. */
  #needsLogin(message: string): void {
    this.#lastError = message;
    this.#nextStartAt = this.#now() + this.#maxMs;
    this.#logger.warn(message, { server: this.spec.id });
    this.#setState('needs-login');
    this.#limiter.rejectQueued(this.#unavailable());
    this.#timer = setTimeout(() => void this.#attempt(), this.#maxMs);
  }

  #setState(state: ServerState): void {
    this.#state = state;
    this.#options.onHealth?.(this.health);
  }

  #unavailable(): McpError {
    const why = this.#lastError !== undefined ? ` (${this.#lastError})` : '';
    return new McpError(McpErrorCode.ServerUnavailable, `Server ${this.spec.id} is not available: it is ${this.#state}${why}`);
  }

  #stderr(chunk: string): void {
    for (const line of chunk.split('\n')) if (line.trim() !== '') this.#logger.info(line.trimEnd(), { event: 'server.stderr', server: this.spec.id });
  }
}

const MAX_PAGES = 1000;

/** A list the server may not implement after all: -32601 or a missing capability reads as empty. */
async function optional<T>(list: Promise<T[]>): Promise<T[]> {
  try {
    return await list;
  } catch (error) {
    if (typeof error === 'object' && error !== null && (error as { code?: unknown }).code === ErrorCode.MethodNotFound) return [];
    throw error;
  }
}

/** The `ERR_MCP_LOGIN_REQUIRED` error in `error`'s cause chain, if any. */
function findLoginRequired(error: unknown): McpError | undefined {
  for (let at: unknown = error, depth = 0; at !== undefined && at !== null && depth < 8; depth++) {
    if (isMcpError(at, McpErrorCode.LoginRequired)) return at;
    at = (at as { cause?: unknown }).cause;
  }
  return undefined;
}

/** A transport whose close is reported (with its reason) before the client sees it. */
function watchClose(inner: Transport, onClosed: (reason: Error | undefined) => void): Transport {
  return {
    start: (sink) =>
      inner.start({
        receive: (frame, extra) => sink.receive(frame, extra),
        closed: (reason) => {
          onClosed(reason);
          sink.closed(reason);
        },
      }),
    send: (message, options) => inner.send(message, options),
    close: () => inner.close(),
  };
}

