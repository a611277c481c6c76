/**
 * The types of the {@link Host} API: what it exposes (tools, prompts, resources, templates,
 * withheld items), its options, the scope of one request, and the route a caller gives it
 * for the downstream request; plus {@link sharedCapabilities}, the features a request to a
 * server may declare.
 *
 * @module
 */
import type { DownstreamAuthority } from './principalClients.js';
import type { NotificationLimits } from './notificationLimits.js';
import type { Principal } from '../transport/principal.js';
import type { McpClient } from '../client/mcpClient.js';
import type { ClientHandlers } from '../client/types.js';
import type { Progress } from '../jsonrpc/connection.js';
import type { ClientCapabilities } from '../protocol/model/capabilities.js';
import type { Implementation } from '../protocol/model/common.js';
import type { ElicitParams, ElicitResult } from '../protocol/model/elicitation.js';
import type { LoggingMessageParams } from '../protocol/model/utilities.js';
import type { AbortLike } from '../util/lazyAbort.js';
import type { Logger } from '../util/logger.js';
import type { NamespacingMode } from './configTypes.js';
import type { BackoffOptions, TransportFactory } from './downstream.js';
import type { CatalogVetter, QuarantinedItem } from './catalogVetting.js';
import type { Interceptor } from './interceptors.js';
import type { NameAssignmentStore } from './namespacing.js';
import type { DownstreamSpec } from './spec.js';

export type { ExposedTool, ExposedPrompt, ExposedResource, ExposedTemplate } from './exposed.js';

/** What changed in the aggregated registry. */
export type HostChange = 'tools' | 'prompts' | 'resources' | 'templates' | 'servers' | 'withheld';

/** Options of {@link Host.open}. */
export interface HostOptions {
  readonly servers: readonly DownstreamSpec[];
  /** How names are namespaced. Default `on-collision`. */
  readonly namespacing?: NamespacingMode;
  /** Between server id and name. Default `__`. */
  readonly separator?: string;
  /** Persists on-collision name assignments (so restarts and new servers never rename a tool). */
  readonly nameStore?: NameAssignmentStore;
  /** The host's identity towards each server. Default `{ name: 'switchboard', version: SWITCHBOARD_VERSION }`. */
  readonly clientInfo?: Implementation;
  /** Builds each server's transport (see `defaultTransportFactory` in `switchboard/adapters/node-host`). */
  readonly transport: TransportFactory;
  readonly interceptors?: readonly Interceptor[];
  readonly logger?: Logger;
  readonly backoff?: BackoffOptions;
  /**
   * The start window: the catalogs of the servers ready within it are exposed together (names
   * follow config order, not start-up speed), and lists and unknown names wait for it. It ends
   * once every server settled (ready or failed), or after this many ms; a server ready later
   * joins then (a `list_changed`). Default 10,000.
   */
  readonly startWindowMs?: number;
  /**
   * Answers what a server asks when no call-specific handler does (default: nothing is
   * declared). Elicitation and sampling requests pass the chain as a `server/request` first
   * (the sanitiser, the policy's server-request rule, the audit log), and the handler gets
   * them as vetted; they carry no caller's scope (principal, session).
   */
  readonly handlers?: ClientHandlers;
  /**
   * The capabilities each server's client declares (default: derived from `handlers`). A
   * gateway declares what it can bridge ({@link GATEWAY_CLIENT_CAPABILITIES}); the upstream
   * client's own capabilities are checked per question.
   */
  readonly capabilities?: ClientCapabilities;
  /**
   * Vets every list of every server before it is exposed (the pins, `PinTrust`): only what it
   * serves is exposed; what it withholds is hidden and refused with its reason.
   */
  readonly trust?: CatalogVetter;
  /** How much of a server's progress, logs and `list_changed` is relayed or acted on. Default `DEFAULT_NOTIFICATION_LIMITS`. */
  readonly notificationLimits?: NotificationLimits;
  /**
   * Whose credentials each downstream request carries (`servers.<id>.auth`, see
   * `principalClients.ts`). Without it every request goes over its server's one client, and a
   * call to a `per-user` or `token-exchange` server is refused.
   */
  readonly authority?: Pick<DownstreamAuthority, 'wrap'>;
}

/** An item the trust layer withholds, as the host would expose it. */
export interface WithheldItem extends QuarantinedItem {
  readonly serverId: string;
  /** The name it has (or would have) upstream. */
  readonly exposedName: string;
}

/** Who is asking, for one request through the host. */
export interface RequestScope {
  /** The upstream caller: its id and, behind an OAuth gateway, the verified token's claims (never the token). */
  readonly principal?: Principal | undefined;
  readonly session?: string | undefined;
  /** A client-carried conversation id (2026-07-28), see {@link InterceptContext.conversation}. */
  readonly conversation?: string | undefined;
  /** Cancels the request; a {@link LazyAbort} is passed down without making its `AbortSignal`. */
  readonly signal?: AbortLike;
  /** Asks the upstream user (interceptors use it for consent). */
  readonly elicit?: (params: ElicitParams) => Promise<ElicitResult>;
  /**
   * What the upstream client can answer. A request to a 2026-07-28 server then declares only
   * the features both this and the host's own client declare, so the server asks nothing
   * the upstream cannot answer (a stateful server's capabilities were fixed at `initialize`).
   */
  readonly clientCapabilities?: ClientCapabilities;
}

/** Options of one call, get or read through the host. */
export interface HostCallOptions extends RequestScope {
  /**
   * Aborts `signal`, which then belongs to this call alone: the server's timeout aborts it
   * rather than a signal of its own (see `RunOptions.abort`).
   */
  readonly abort?: (reason: unknown) => void;
  readonly onProgress?: (progress: Progress) => void;
  /** Log messages the server sends during this call (not those of other calls: see `CallOptions.onLog`). */
  readonly onLog?: (params: LoggingMessageParams) => void;
}

/** The options a {@link DownstreamRoute} gets. */
export interface RouteOptions {
  /**
   * Aborted when the caller cancels or the server's `timeoutMs` passes (the host times the
   * call). Give it to the client's request as it is (`CallOptions.signal`); where an
   * `AbortSignal` is needed, `signalOf` makes one.
   */
  readonly signal: AbortLike;
  /**
   * The timeout to give the client's request: 0 (none), since the host enforces the server's
   * `timeoutMs` itself through `signal` and answers `ERR_MCP_REQUEST_TIMEOUT`; the client's own
   * timer would only duplicate it.
   */
  readonly timeoutMs: number;
  readonly onProgress?: (progress: Progress) => void;
  readonly onLog?: (params: LoggingMessageParams) => void;
  /** The capabilities to declare for this request (see {@link RequestScope.clientCapabilities}). */
  readonly capabilities?: ClientCapabilities;
}

/** Performs one downstream request on a ready client, with the params after the chain. */
export type DownstreamRoute<R> = (client: McpClient, params: Record<string, unknown>, options: RouteOptions) => Promise<R>;

/**
 * The features both the host's client and the upstream client declare, with the upstream's
 * own settings for each (the host forwards a feature's requests verbatim, so its sub-features
 * are the upstream's to declare).
 */
export function sharedCapabilities(own: ClientCapabilities, upstream: ClientCapabilities): ClientCapabilities {
  const out: Record<string, unknown> = {};
  for (const key of Object.keys(own)) {
    const theirs = (upstream as Record<string, unknown>)[key];
    if (theirs === undefined) continue;
    // Extensions are per identifier: only those both declare (the host must understand what it forwards).
    out[key] = key === 'extensions' ? sharedExtensions(own.extensions, theirs) : theirs;
  }
  return out as ClientCapabilities;
}

function sharedExtensions(own: Readonly<Record<string, unknown>> | undefined, theirs: unknown): Record<string, unknown> {
  const out: Record<string, unknown> = {};
  if (typeof theirs !== 'object' || theirs === null) return out;
  for (const id of Object.keys(own ?? {})) {
    const settings = (theirs as Record<string, unknown>)[id];
    if (settings !== undefined) out[id] = settings;
  }
  return out;
}
