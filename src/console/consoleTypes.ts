/**
 * What the console needs of the gateway, injected by the CLI (`src/cli/gatewayConsole.ts`):
 * the host, the admin token, the page files, and whichever of consent, pins, scanner, audit
 * and policy the gateway runs. Absent parts answer 404 with a sentence saying they are off.
 *
 * @module
 */
import type { AuditLog, AuditReader } from '../host/audit.js';
import type { HostConfig } from '../host/configTypes.js';
import type { LaunchFinding } from '../host/launchSupplyChain.js';
import type { PendingConfig } from '../host/configReload.js';
import type { ConnectionStore } from '../host/connections.js';
import type { ConsentGrantStore } from '../host/consent/consentGrants.js';
import type { ConsentQueue } from '../host/consent/consentQueue.js';
import type { Host } from '../host/host.js';
import type { PolicyConfig } from '../host/policy/policyConfig.js';
import type { ServerLabelConfig } from '../host/policy/labels.js';
import type { PinTrust } from '../host/pins/pinTrust.js';
import type { PinStore } from '../host/pins/pinStore.js';
import type { ItemReport } from '../host/scanner/types.js';
import type { NamedToken } from '../auth/resource/staticTokens.js';
import type { FetchLike } from '../auth/http.js';
import type { ConsoleMetrics } from './consoleMetrics.js';
import type { ConsoleOAuth } from './consoleOAuth.js';
import type { AssetReader } from './consoleStatic.js';
import type { InspectorQuestions } from './inspectorQuestions.js';
import type { HttpRequestLike, HttpResponseLike } from '../transport/http/server/types.js';

/** A stdio server whose launch waits for a person's consent. */
export interface PendingLaunch {
  readonly server: string;
  readonly command: string;
  readonly args: readonly string[];
  /** The `cwd` the config sets, or `null`. */
  readonly cwd: string | null;
  /** The folder the process will start in: `cwd`, else the gateway's own working folder (which the child inherits). */
  readonly startsIn: string;
  /** The environment variable NAMES (never values). */
  readonly env: readonly string[];
  readonly digest: string;
  readonly reason: string;
  /** The launch's supply-chain findings (`host/launchSupplyChain.ts`); approving one with a flag needs `acknowledgeFindings`. */
  readonly findings: readonly LaunchFinding[];
}

/** Launch consent as the console sees it. */
export interface LaunchReview {
  /** The launches not approved yet. */
  pending(): readonly PendingLaunch[];
  /** Approves `server`'s launch with `digest` (it must still be the pending one) and starts it; resolves with whether it runs. */
  approve(server: string, digest: string): Promise<boolean>;
}

/** A reloaded config waiting for a person (`host/configReload.ts`), as the console sees it. */
export interface ConfigReview {
  /** The config held back, if any. */
  readonly pending: PendingConfig | undefined;
  /** Approves the waiting config named by `digest` and applies it; rejects when another one waits (or none). */
  approve(digest: string, by: string): Promise<void>;
}

/** The gateway's per-user connection store as the console sees it (`consoleConnections.ts`). */
export interface ConsoleConnections {
  readonly store: ConnectionStore;
  /**
   * Whether the store is in use (a per-user server is configured, or its key exists); when false
   * the page lists nothing and the store (and its key) is not created by a look. Default: always.
   */
  readonly inUse?: () => boolean;
  /** The fetch revocations at authorization servers use (RFC 7009; tests). Default: the global one. */
  readonly fetch?: FetchLike;
}

/** Options of the console handler. */
export interface ConsoleOptions {
  readonly host: Host;
  /** The live config (reloads apply). */
  readonly config: () => HostConfig;
  /** The admin token (at least 32 characters). */
  readonly adminToken: string;
  /** The MCP bearer token, when there is one: refused by name. */
  readonly mcpToken?: string | undefined;
  /**
   * The gateway's named tokens (`gateway.auth.tokens`): each opens a `person` session for its
   * name (only the person's own routes, `me/*`). Never the unnamed `gateway-token`.
   */
  readonly namedTokens?: readonly NamedToken[] | undefined;
  /** "Sign in with <issuer>" at the inbound authorization server (also settable later: `ConsoleHttpApi.signInWith`). */
  readonly oauth?: ConsoleOAuth | undefined;
  /** Reads the built page files. */
  readonly assets: AssetReader;
  readonly metrics: ConsoleMetrics;
  /** What the overview says about the gateway itself. */
  readonly gateway: { readonly transport: 'http' | 'stdio'; readonly version: string; readonly startedAt: number; url(): string | undefined };
  readonly consent?: { readonly queue: ConsentQueue; readonly grants: ConsentGrantStore; readonly queued: boolean };
  readonly pins?: { readonly store: PinStore; readonly trust: PinTrust };
  readonly scanner?: { verdictOf(definition: object): ItemReport | undefined };
  readonly audit?: { readonly log: AuditLog; readonly reader: AuditReader };
  readonly launches?: LaunchReview;
  /** The reload gate: a reloaded config that weakens security waits here. */
  readonly reload?: ConfigReview;
  /** The policy the gateway runs now (read at each request: a config reload may have changed it), and whether it decides anything. */
  readonly policy?: {
    readonly config: PolicyConfig;
    readonly labels: Readonly<Record<string, ServerLabelConfig>>;
    readonly installed: boolean;
    /** The redactor of the `redact` outcome (without it a dry run shows that outcome as a denial, as the gateway would). */
    readonly redact?: (result: unknown) => unknown;
  };
  /** The per-user downstream connections (`servers.<id>.auth`: `per-user`, `token-exchange`): listed without tokens, revoked by the admin. */
  readonly connections?: ConsoleConnections;
  /** How long a server's question during an Inspector call waits for its answer before it is declined. Default 5 min. */
  readonly questionTimeoutMs?: number;
  /** Keep-alive comment interval of event streams. Default 15 s. */
  readonly keepAliveMs?: number;
  /** The clock (tests). Default `Date.now`. */
  readonly now?: () => number;
}

/** What a route gets. */
export interface RouteContext {
  readonly request: HttpRequestLike;
  /** The `:named` parts of the path, decoded. */
  readonly params: Readonly<Record<string, string>>;
  readonly query: URLSearchParams;
  readonly options: ConsoleOptions;
  /** The questions servers asked during Inspector calls, waiting for the page. */
  readonly questions: InspectorQuestions;
  /** The JSON object body (`{}` when empty); a bad one is a 400. */
  body(): Promise<Record<string, unknown>>;
  /** Tells open pages to refetch `what`. */
  changed(what: string): void;
}

/** One route. */
export interface Route {
  readonly method: 'GET' | 'POST' | 'DELETE';
  /** Slash-separated; `:name` matches one non-empty part. */
  readonly path: string;
  run(ctx: RouteContext): Promise<HttpResponseLike>;
}
