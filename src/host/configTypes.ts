/**
 * The typed form of a `switchboard.json` host configuration, and {@link ConfigError}.
 *
 * The file's `mcpServers` section is exactly what Claude Desktop and Cursor write; the
 * `switchboard` section carries Switchboard's own settings. {@link parseConfig} turns the text
 * into a {@link HostConfig}: servers in file order, `${env:NAME}` references expanded into a
 * separate resolved launch (the raw entry is kept for display, so secrets are never printed),
 * defaults filled in and paths resolved against the config file's folder.
 *
 * @module
 */
import type { NamedToken } from '../auth/resource/staticTokens.js';
import { McpError, McpErrorCode } from '../util/errors.js';
import type { AuditDurability } from './audit.js';
import type { GuardOptions } from './guards.js';
import type { NotificationLimits } from './notificationLimits.js';
import type { ConsentConfig } from './consent/consentSettings.js';
import type { SanitizeOptions } from './sanitize/sanitize.js';
import type { ServerLabelConfig } from './policy/labels.js';
import type { PolicyConfig } from './policy/policyConfig.js';
import type { SignaturePolicy, TrustedKey } from './pins/signatureCheck.js';
import type { EgressEntry } from './argumentUrls.js';

/** How tool and prompt names of several servers are combined (see `namespacing.ts`). */
export type NamespacingMode = 'always' | 'on-collision' | 'never';

/** What the gateway lists: every tool, or only `search_tools` + `call_tool`. */
export type Exposure = 'all' | 'search';

/** Which protocol era the host speaks to a server: negotiate, or force one. */
export type ServerEra = 'auto' | 'stateless' | 'stateful';

/** How to start a local server: a child process speaking MCP over stdio. */
export interface StdioLaunch {
  readonly kind: 'stdio';
  /** The executable, `${env:…}` expanded. */
  readonly command: string;
  /** Its arguments, expanded. */
  readonly args: readonly string[];
  /** Extra environment variables for the child, values expanded. */
  readonly env: Readonly<Record<string, string>>;
  /** Working directory (absolute, resolved against the config file's folder), or `undefined` to inherit. */
  readonly cwd: string | undefined;
}

/**
 * How to reach a remote server: `http` is Streamable HTTP (config `type` `"http"` or
 * `"streamable-http"`), `sse` the legacy 2024-11-05 HTTP+SSE transport.
 */
export interface RemoteLaunch {
  readonly kind: 'http' | 'sse';
  /** The endpoint URL, expanded. */
  readonly url: string;
  /** Extra request headers, values expanded. */
  readonly headers: Readonly<Record<string, string>>;
}

/** A resolved launch: local (stdio) or remote. */
export type ServerLaunch = StdioLaunch | RemoteLaunch;

/** Tool filter of one server: glob patterns with `*` and `?` only. */
export interface ToolFilter {
  /** Only tools matching one of these are exposed; `undefined` = all. */
  readonly allow: readonly string[] | undefined;
  /** Tools matching one of these are never exposed (wins over `allow`). */
  readonly deny: readonly string[];
}

/** Our OAuth client settings for a remote server. */
export interface ServerOAuthOptions {
  /** A pre-registered client id; without one the host uses dynamic client registration. */
  readonly clientId: string | undefined;
  /** Scopes to request; `undefined` = what the server advertises. */
  readonly scopes: readonly string[] | undefined;
  /** Port of the loopback redirect listener; `undefined` = any free port. */
  readonly redirectPort: number | undefined;
}

/**
 * Whose authority a call to a remote server carries (`switchboard.servers.<id>.auth`, see
 * `configDownstreamAuth.ts`); absent = `shared`.
 */
export type ServerAuth = { readonly mode: 'shared' } | { readonly mode: 'per-user' } | TokenExchangeAuth;

/** `auth: { "mode": "token-exchange", … }`: RFC 8693 at one authorization server. */
export interface TokenExchangeAuth {
  readonly mode: 'token-exchange';
  /** The authorization server's issuer (its token endpoint from its metadata); else {@link tokenEndpoint}. */
  readonly issuer?: string;
  readonly tokenEndpoint?: string;
  readonly clientId: string;
  /** Expanded from its `${env:NAME}` reference. Secret: never display. */
  readonly clientSecret?: string;
  /** The scopes of every request but the calls of a tool in {@link toolScopes}. */
  readonly scopes?: readonly string[];
  /** A tool's own name (not the gateway's namespaced one) to the scopes its calls are exchanged for. */
  readonly toolScopes?: Readonly<Record<string, readonly string[]>>;
}

/**
 * What the poisoning scanner does with a server's definitions: `block` hides items with a
 * blocking finding from the model and refuses their calls (the default), `warn` only records
 * the findings, `off` does not scan.
 */
export type ScanMode = 'block' | 'warn' | 'off';

/** Per-server options from `switchboard.servers.<id>`, defaults filled in. */
export interface ServerOptions {
  readonly tools: ToolFilter;
  /** Per-request timeout to this server in ms. Default 60000. */
  readonly timeoutMs: number;
  /** How long a start may take (transport opened, `initialize` answered) before it counts as failed; absent = 30000. */
  readonly startTimeoutMs?: number;
  /** Most requests in flight to this server. Default 16. */
  readonly maxConcurrency: number;
  /** Default `auto`. */
  readonly era: ServerEra;
  /** Remote servers only. */
  readonly oauth: ServerOAuthOptions | undefined;
  /** Remote servers only; absent = `shared` (see {@link ServerAuth}). */
  readonly auth?: ServerAuth;
  /** The tenant whose principals alone see and call the server; absent = every principal. */
  readonly tenant?: string;
  /** What its signed manifest must be (see `docs/signing.md`). `parseConfig` fills in `warn`. */
  readonly signature?: SignaturePolicy;
  /** Set only when configured; absent means `block` (see `scanner/scanner.ts`). */
  readonly scan?: ScanMode;
  /** Set only when configured; absent means on (`argumentChecks.ts`: schema, metadata URLs, roots). */
  readonly checkArguments?: boolean;
  /** Set only when configured: the hosts, domains and address blocks its URL arguments may reach (`argumentUrls.ts`); absent = any but metadata addresses. */
  readonly egressAllow?: readonly EgressEntry[];
  /** Set only when configured: globs over its own tool names that run commands (`commandRunner.ts`); absent = inferred. */
  readonly commandTools?: readonly string[];
  /**
   * The roots the host answers `roots/list` with when the server asks outside a call (in a
   * call, the upstream client that made it answers): from `switchboard.servers.<id>.roots`,
   * else `switchboard.roots`, else none (an empty list). Changing them on a config reload sends
   * the server `notifications/roots/list_changed` instead of restarting it. Absent = none.
   */
  readonly roots?: readonly ConfiguredRoot[];
  /** `labels` and `toolLabels` (see `policy/labels.ts`); absent = none configured. */
  readonly labels?: ServerLabelConfig;
}

/** A root the host offers a server: a `file://` URI and an optional display name. */
export interface ConfiguredRoot {
  readonly uri: string;
  readonly name?: string;
}

/** One configured server. */
export interface ServerConfig {
  /** The key in `mcpServers`, matching `^[A-Za-z0-9_-]{1,32}$`. */
  readonly id: string;
  /** The entry exactly as written (unexpanded): safe to display. */
  readonly raw: Readonly<Record<string, unknown>>;
  /** The launch with `${env:…}` expanded: never display its values. */
  readonly launch: ServerLaunch;
  /** Configured but not started. */
  readonly disabled: boolean;
  readonly options: ServerOptions;
}

/**
 * How clients authenticate to the gateway. `token`: named bearer tokens (`tokens`, known by
 * digest; without it, the state folder's generated `gateway-token`, named `default`);
 * `oauth`: an authorization server's access tokens, and the named `tokens` too when given.
 */
export type GatewayAuth =
  | { readonly kind: 'token'; readonly tokens?: readonly NamedToken[] }
  | { readonly kind: 'none' }
  | {
      readonly kind: 'oauth';
      readonly issuer: string;
      readonly audience: string;
      readonly jwksUri: string | undefined;
      readonly dpop: GatewayDpopConfig | undefined;
      /** The claim of a verified token that names the caller's tenant (`principal.tenant`, see `tenantScope.ts`). */
      readonly tenantClaim?: string;
      /** The console's "Sign in with <issuer>" client (`gateway.auth.oauth.console`); absent: that sign-in is off. */
      readonly console?: ConsoleOAuthClient;
      readonly tokens?: readonly NamedToken[];
    };

/**
 * `gateway.auth.oauth.console`: the web console's OAuth client at the inbound authorization
 * server, for a person's sign-in to "My connections". Without `clientId` the console registers
 * itself dynamically (RFC 7591).
 */
export interface ConsoleOAuthClient {
  readonly clientId?: string;
  /** Expanded from its `${env:NAME}` reference. */
  readonly clientSecret?: string;
  readonly scopes?: readonly string[];
}

/**
 * `gateway.auth.oauth.dpop`: DPoP-bound access tokens (RFC 9449) accepted too; `true` is `{}`.
 * @see https://datatracker.ietf.org/doc/html/rfc9449
 */
export interface GatewayDpopConfig {
  /** Refuse `Bearer` tokens: only DPoP-bound tokens with a proof (default false). */
  readonly required: boolean;
  /** Demand server nonces in proofs (RFC 9449 section 9; default false). */
  readonly nonce: boolean;
}

/** `switchboard.gateway.limits`, defaults applied (`configLimits.ts`). */
export interface GatewayLimits extends NotificationLimits {
  /** Stateful sessions at once, all callers together (default 10,000). */
  readonly maxSessions: number;
  /** Stateful sessions one principal holds at once (anonymous callers: per remote address); default 100. */
  readonly sessionsPerPrincipal: number;
  /** Open HTTP connections; past it a new connection is closed unread (default 1,024). */
  readonly maxConnections: number;
  /** Time (ms) to receive a request's headers; then 408 and close (default 10,000). */
  readonly headersTimeoutMs: number;
  /** Time (ms) to receive a whole request, headers and body; then 408 and close (default 30,000). Responses (SSE streams) are not bounded by it. */
  readonly requestTimeoutMs: number;
}

/** Where and how the gateway listens. */
export interface GatewayConfig {
  /** Default `127.0.0.1`. */
  readonly host: string;
  /** Default 8765 (0 = any free port). */
  readonly port: number;
  /** Default `/mcp`. */
  readonly path: string;
  /**
   * The origin clients reach the gateway at behind a reverse proxy (`https://gw.example.com`):
   * sign-in links, the OAuth redirect URI and the default OAuth resource are made under it
   * instead of the listening address. Absent: the listening address.
   */
  readonly publicUrl?: string;
  /** Default `{ kind: 'token' }` (a bearer token generated under `stateDir`). */
  readonly auth: GatewayAuth;
  /** `gateway.limits`: sessions per caller, connections, request timeouts, notification rates (`configLimits.ts`); the parser always sets it. */
  readonly limits?: GatewayLimits;
}

/** `switchboard.redact`: where secrets are masked before text leaves the process. */
export interface RedactConfig {
  /** Every log line of the gateway (default true). */
  readonly logs: boolean;
  /** The audit log's error messages, reasons, details and names (default true). */
  readonly audit: boolean;
  /** Also mask long random-looking tokens no provider rule names (default true). */
  readonly entropy: boolean;
}

/** `switchboard.audit.retention`, parsed (at least one of `keepDays` and `keepGB`). */
export interface AuditRetentionConfig {
  /** Records older than this many days are archived. */
  readonly keepDays?: number;
  /** The oldest records are archived while the live log takes more than this many gigabytes (10^9 bytes). */
  readonly keepGB?: number;
  /** The archive folder (resolved; default `<stateDir>/audit-archive`). */
  readonly archiveDir: string;
  /** Most records per sealed segment (default 100000). */
  readonly segmentRecords?: number;
  /** How often the gateway looks, in minutes (default 60). */
  readonly intervalMinutes?: number;
}

/** A parsed, validated host configuration. */
export interface HostConfig {
  /** The config file it came from (as given to `parseConfig`). */
  readonly file: string;
  /** Servers in file order. */
  readonly servers: readonly ServerConfig[];
  /** Default `on-collision`. */
  readonly namespacing: NamespacingMode;
  /** Between server id and name. Default `__`. */
  readonly separator: string;
  /** Default `all`. */
  readonly exposure: Exposure;
  /** The state folder, resolved against the config file's folder. Default `<folder>/.switchboard`. */
  readonly stateDir: string;
  /** `switchboard.store`: a `postgres://` URL; pins and the audit log then live in PostgreSQL, shared by every instance. */
  readonly store?: string;
  /** `switchboard.cache`: a `redis://` URL; rate limits and concurrency caps then live in Redis, shared by every instance. */
  readonly cache?: string;
  readonly gateway: GatewayConfig;
  /** `switchboard.guards`: rate limits, caps and the circuit breaker; undefined = none. */
  readonly guards: GuardOptions | undefined;
  /** `switchboard.consent`: who is asked when a call needs a person's consent (defaults when absent). */
  readonly consent: ConsentConfig;
  /** `switchboard.sanitize`: output sanitising of results (default mode `strip`). */
  readonly sanitize: Required<SanitizeOptions>;
  /** `switchboard.redact`: secret redaction of logs and the audit log (default on). */
  readonly redact: RedactConfig;
  /** `switchboard.policy`: rules (compiled at load), dry run, the built-ins, taint windows. */
  readonly policy: PolicyConfig;
  /** Pin every server's definitions and quarantine changes (default true). */
  readonly pins: boolean;
  /**
   * Record every request in the hash-chained audit log, each answer waiting for its record to
   * be durable (default true). `false` is an operator's choice to keep no trail at all.
   */
  readonly audit: boolean;
  /** `switchboard.audit.durability`: when an answer may go out relative to its record's sync (default `sync`; see `AuditDurability`). */
  readonly auditDurability: AuditDurability;
  /**
   * `switchboard.audit.syncIntervalMs` (`batch` only): the least time between two commits of
   * answered records and between two syncs of the log, which bounds what a power loss can take
   * (undefined: the store's default, 10 ms).
   */
  readonly auditSyncIntervalMs?: number;
  /** `switchboard.audit.retention`: what stays live and where the rest is archived (undefined: nothing is archived on its own). */
  readonly auditRetention?: AuditRetentionConfig;
  /** Serve the web console under `/console` (`switchboard.console`, a boolean or `{ "enabled": bool }`; default true). */
  readonly console: boolean;
  /** Publisher keys whose signed manifests are trusted (and whose signed updates need no review). */
  readonly trustedKeys: readonly TrustedKey[];
  /** Server id → launch digest (`sha256:<hex>`) as written in the file: IGNORED (a config file cannot approve its own launches; `launchKeys.ts`). */
  readonly approvedLaunches: Readonly<Record<string, string>>;
  /** Non-fatal findings (unknown keys in `mcpServers` entries, stale approvals, …), each naming its JSON path. */
  readonly warnings: readonly string[];
}

/**
 * An invalid configuration file. `path` is the JSON path of the offending value
 * (`$.mcpServers.fs.args[2]`, `$` for the whole file); the message names the file, the path
 * and what was expected. For JSON syntax errors `line` and `column` (1-based) are set.
 */
export class ConfigError extends McpError {
  /** JSON path of the offending value. */
  readonly path: string;
  /** The config file. */
  readonly file: string;
  /** 1-based line of a JSON syntax error. */
  readonly line: number | undefined;
  /** 1-based column of a JSON syntax error. */
  readonly column: number | undefined;

  constructor(file: string, path: string, detail: string, options: { cause?: unknown; line?: number; column?: number } = {}) {
    const where = options.line === undefined ? `${file}: ${path}` : `${file}:${options.line}:${options.column ?? 1}`;
    super(McpErrorCode.InvalidConfig, `${where}: ${detail}`, options.cause === undefined ? undefined : { cause: options.cause });
    this.path = path;
    this.file = file;
    this.line = options.line;
    this.column = options.column;
  }
}

/** Appends an object key or array index to a JSON path (`$.a`, `$.a[0]`, `$.a["b c"]`). */
export function childPath(path: string, key: string | number): string {
  if (typeof key === 'number') return `${path}[${key}]`;
  return /^[A-Za-z_$][\w$-]*$/.test(key) ? `${path}.${key}` : `${path}[${JSON.stringify(key)}]`;
}
