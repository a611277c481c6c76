/**
 * The vocabulary of a downstream server (`downstream.ts`): its state and health, its catalog,
 * how its transport is made, its restart policy, and the options of the server and of one
 * request through it.
 *
 * @see https://modelcontextprotocol.io/specification/2025-11-25/architecture
 * @module
 */
import type { ClientHandlers, McpClientOptions } from '../client/types.js';
import type { Implementation } from '../protocol/model/common.js';
import type { Prompt } from '../protocol/model/prompts.js';
import type { Resource, ResourceTemplate } from '../protocol/model/resource.js';
import type { Tool } from '../protocol/model/tool.js';
import type { LoggingMessageParams } from '../protocol/model/utilities.js';
import type { Transport } from '../transport/types.js';
import type { AbortLike } from '../util/lazyAbort.js';
import type { Logger } from '../util/logger.js';
import type { CatalogVetter } from './catalogVetting.js';
import type { DownstreamSpec } from './spec.js';

/**
 * Where a server is in its life. `needs-login`: a remote server whose OAuth sign-in the host
 * cannot do by itself (`switchboard login <server>`); it is retried slowly (every `maxMs`) so a
 * sign-in done meanwhile is picked up, and it never counts as crash-looping.
 */
export type ServerState = 'starting' | 'ready' | 'backoff' | 'needs-login' | 'stopped';

/** A snapshot of one server's health. */
export interface ServerHealth {
  readonly id: string;
  readonly state: ServerState;
  /** Consecutive failed starts (reset once the server has been ready for `stableMs`). */
  readonly failures: number;
  /** Times the server was (re)started after its first start. */
  readonly restarts: number;
  /** The last failure: why it did not start or why it stopped. */
  readonly lastError?: string;
  /** When the next start is due (epoch ms), in `backoff` and `needs-login`. */
  readonly nextStartAt?: number;
  /** True once `failures` reached `crashLoopAfter`: the server is crash-looping. */
  readonly crashLooping: boolean;
}

/** What a server offers, as it sent it (definitions kept as received). */
export interface Catalog {
  readonly tools: readonly Tool[];
  readonly prompts: readonly Prompt[];
  readonly resources: readonly Resource[];
  readonly templates: readonly ResourceTemplate[];
}

/** The empty catalog of a server that is not ready. */
export const EMPTY_CATALOG: Catalog = Object.freeze({ tools: [], prompts: [], resources: [], templates: [] });

/** Creates the transport of one start of a server. */
export type TransportFactory = (spec: DownstreamSpec, io: { readonly stderr: (chunk: string) => void }) => Transport | Promise<Transport>;

/** Restart policy of a downstream server. */
export interface BackoffOptions {
  /** Delay before the first restart. Default 250 ms. */
  readonly initialMs?: number;
  /** Longest delay. Default 30,000 ms. */
  readonly maxMs?: number;
  /** Ready this long, and the failure count starts over. Default 30,000 ms. */
  readonly stableMs?: number;
  /** Consecutive failures after which the server is reported as crash-looping. Default 5. */
  readonly crashLoopAfter?: number;
}

/** Options of a `Downstream`. */
export interface DownstreamOptions {
  readonly clientInfo: Implementation;
  readonly transport: TransportFactory;
  readonly logger?: Logger;
  readonly backoff?: BackoffOptions;
  /** Answers what the server asks outside any per-call handler. Default: nothing (capabilities not declared). */
  readonly handlers?: ClientHandlers;
  /** Declared client capabilities (default: derived from `handlers`). */
  readonly capabilities?: McpClientOptions['capabilities'];
  /** Health changes. */
  readonly onHealth?: (health: ServerHealth) => void;
  /** The catalog changed (after a start, or a list_changed). */
  readonly onCatalog?: (catalog: Catalog) => void;
  /** One re-list per this window (ms) however many `list_changed` arrive (see `Relister`). Default 500; 0 re-lists on each. */
  readonly listChangedWindowMs?: number;
  /** A log message the server sent outside a call. */
  readonly onLog?: (params: LoggingMessageParams) => void;
  /** `notifications/resources/updated` for `uri`. */
  readonly onResourceUpdated?: (uri: string) => void;
  /** The clock (tests). Default `Date.now`. */
  readonly now?: () => number;
  /** Decides what of each list is served (the pins); without one, everything as received. */
  readonly vetter?: CatalogVetter;
}

/** Options of one request through `Downstream.run`. */
export interface RunOptions {
  readonly signal?: AbortLike;
  /**
   * Aborts `signal`, which belongs to this request alone. With it, the timeout aborts
   * `signal` and the request runs on it directly, with no controller of its own: one abort
   * signal per forwarded call across the layers.
   */
  readonly abort?: (reason: unknown) => void;
}
