/**
 * Whose credentials a downstream request carries: for a server with `auth: "per-user"` or
 * `"token-exchange"`, each principal's requests go over a client of its own, connected with
 * that principal's credential and no other; for a `shared` server, over the server's one
 * client (its own sign-in, if any).
 *
 * Design: one downstream client per (server, principal), pooled per server (at most
 * {@link DEFAULT_MAX_CLIENTS}, least recently used evicted first, idle ones closed after
 * {@link DEFAULT_IDLE_MS}). A stateful (2025-11-25) session is bound to the credential it was
 * opened with, so two principals never share one; on the stateless era a client per principal
 * costs one `server/discover`. The server's *catalog* stays the one its main client read,
 * pinned and scanned: a principal's client is used only to call what that catalog exposes
 * (tools, prompts, resources, completions), never to list. Each call reads the principal's
 * connection from the store first, so a revocation or another instance's refresh applies at once.
 * A tool whose calls need a credential of their own (token exchange's `toolScopes`) gets a client
 * of its own too, keyed (server, principal, {@link DownstreamCredentials.credentialId}): each
 * client carries exactly one credential, so a call never goes out with another tool's scopes and
 * a stateful session stays bound to the token it was opened with; any request but a call of such
 * a tool uses the principal's default client.
 *
 * Never passthrough: the hooks built here put only the connection's access token on the
 * wire; the inbound token is not reachable from this code.
 *
 * @see https://modelcontextprotocol.io/specification/2025-11-25/basic/security_best_practices#token-passthrough
 * @module
 */
import { McpClient } from '../client/mcpClient.js';
import type { ClientCapabilities } from '../protocol/model/capabilities.js';
import type { Implementation } from '../protocol/model/common.js';
import type { StreamableHttpClientOptions } from '../transport/http/client/clientOptions.js';
import type { Principal } from '../transport/principal.js';
import type { Transport } from '../transport/types.js';
import { ErrorCode, JsonRpcError } from '../jsonrpc/errors.js';
import { McpError, McpErrorCode } from '../util/errors.js';
import type { AbortLike } from '../util/lazyAbort.js';
import type { Connection, ConnectionStore, DownstreamCredentials } from './connections.js';
import { canonicalServerUrl } from './canonicalServerUrl.js';
import { noteCredential } from './credentialUse.js';
import type { Downstream } from './downstream.js';
import { DeniedError, type InterceptContext } from './interceptors.js';
import type { DownstreamSpec } from './spec.js';

/** Most principal clients per server. */
export const DEFAULT_MAX_CLIENTS = 256;
/** A principal client unused this long is closed. */
export const DEFAULT_IDLE_MS = 5 * 60_000;

/** The 2025-11-25 error code of a request that needs a URL-mode elicitation first. */
export const URL_ELICITATION_REQUIRED = -32042;

/** The auth hooks a principal's transport carries (its credential and nothing else). */
export type PrincipalAuthHooks = Required<Pick<StreamableHttpClientOptions, 'authorizationHeaders' | 'onUnauthorized'>>;

/** Builds the transport of a principal's client to `spec` with `hooks` (the embedder's transport factory). */
export type PrincipalTransportFactory = (spec: DownstreamSpec, hooks: PrincipalAuthHooks) => Transport | Promise<Transport>;

/**
 * The call needs the person to sign in first: on the wire the 2025-11-25
 * `URLElicitationRequiredError` (-32042) carrying the URL-mode elicitation.
 *
 * @see https://modelcontextprotocol.io/specification/2025-11-25/client/elicitation#url-elicitation-required-error
 */
export class UrlElicitationRequiredError extends JsonRpcError {
  constructor(serverId: string, elicitation: { readonly url: string; readonly elicitationId: string; readonly message: string }) {
    super(URL_ELICITATION_REQUIRED, `Server ${serverId} needs you to sign in first: open the link, then call again`, { elicitations: [{ mode: 'url', url: elicitation.url, elicitationId: elicitation.elicitationId, message: elicitation.message }] });
  }
}

/** Options of {@link DownstreamAuthority}. */
export interface DownstreamAuthorityOptions {
  /** The credentials of a non-shared server (built once per server id, on first use). */
  readonly credentials: (spec: DownstreamSpec) => DownstreamCredentials | undefined;
  readonly transport: PrincipalTransportFactory;
  readonly clientInfo: Implementation;
  readonly capabilities?: ClientCapabilities;
  /** Where connections live: read by {@link DownstreamAuthority.connected} (policy's `connected`). */
  readonly store?: ConnectionStore;
  readonly maxClients?: number;
  readonly idleMs?: number;
  readonly now?: () => number;
}

interface Entry {
  readonly principal: string;
  /** Its slot in the pool: the principal and {@link DownstreamCredentials.credentialId}. */
  readonly slot: string;
  connection: Connection;
  client: Promise<McpClient> | undefined;
  lastUsed: number;
  /** Set when the server refused the credential and no renewal came: the next call signs in again. */
  refused: boolean;
}

/** A task the host runs on a server's client (`Downstream.run`). */
type Task<R> = (client: McpClient, options: { signal: AbortLike; timeoutMs: number }) => Promise<R>;

/** Routes each downstream request to the client carrying its principal's credential. */
export class DownstreamAuthority {
  readonly #o: DownstreamAuthorityOptions;
  readonly #now: () => number;
  readonly #pools = new Map<string, { readonly spec: DownstreamSpec; readonly credentials: DownstreamCredentials; readonly entries: Map<string, Entry> }>();

  constructor(options: DownstreamAuthorityOptions) {
    this.#o = options;
    this.#now = options.now ?? Date.now;
  }

  /**
   * `task` as run for `principal` on `server`: unchanged for a shared server (the audit names
   * the shared credential for a remote one), else on the principal's own client.
   */
  wrap<R>(server: Downstream, principal: Principal | undefined, ctx: InterceptContext, task: Task<R>): Task<R> {
    const spec = server.spec;
    const mode = spec.options.auth?.mode ?? 'shared';
    if (mode === 'shared') {
      if (spec.launch.kind === 'stdio') return task;
      // Noted when the request goes out (not for a request the chain refused).
      return (client, options) => {
        noteCredential(ctx, { mode: 'shared' });
        return task(client, options);
      };
    }
    return async (_shared, options) => {
      if (principal === undefined) {
        throw new DeniedError('downstream-auth', `server ${spec.id} acts as each caller (auth: ${mode}), and this call has no caller: connect to the gateway with your own token`);
      }
      // The server's own tool name as the request goes out (the chain has run): its calls may need their own credential.
      const tool = ctx.method === 'tools/call' && typeof ctx.params['name'] === 'string' ? ctx.params['name'] : undefined;
      const { client, slot } = await this.#clientFor(spec, principal, tool, ctx);
      try {
        return await task(client, options);
      } catch (error) {
        // The server refused the credential and it could not be renewed: ask for a sign-in at once.
        if (this.#pools.get(spec.id)?.entries.get(slot)?.refused === true) await this.#clientFor(spec, principal, tool, ctx);
        throw error;
      }
    };
  }

  /** Closes every principal client of `serverId` (its config changed or it stopped); all when undefined. */
  async close(serverId?: string): Promise<void> {
    const pools = serverId === undefined ? [...this.#pools.keys()] : [serverId];
    const closing: Promise<unknown>[] = [];
    for (const id of pools) {
      const pool = this.#pools.get(id);
      this.#pools.delete(id);
      for (const entry of pool?.entries.values() ?? []) closing.push(closeEntry(entry));
    }
    await Promise.all(closing);
  }

  /**
   * Whether `principal` (of `tenant`) has its own connection to `spec`'s server (a sign-in or an
   * exchange stored under that tenant); true for a shared server, false for an anonymous caller of another.
   */
  async connected(principal: string | undefined, spec: DownstreamSpec, tenant?: string): Promise<boolean> {
    if ((spec.options.auth?.mode ?? 'shared') === 'shared') return true;
    if (principal === undefined || spec.launch.kind === 'stdio' || this.#o.store === undefined) return false;
    const server = canonicalServerUrl(spec.launch.url);
    const connection = await this.#o.store.get({ principal, server });
    if (connection !== undefined) return connection.tenant === tenant;
    // Only tools' own scope sets (token exchange's `toolScopes`) may be connected.
    if (spec.options.auth?.mode !== 'token-exchange' || spec.options.auth.toolScopes === undefined) return false;
    return (await this.#o.store.list({ principal, server, ...(tenant !== undefined ? { tenant } : {}) })).some((c) => c.tenant === tenant);
  }

  /** How many principal clients `serverId` has open. */
  clientCount(serverId: string): number {
    return this.#pools.get(serverId)?.entries.size ?? 0;
  }

  #pool(spec: DownstreamSpec): { readonly spec: DownstreamSpec; readonly credentials: DownstreamCredentials; readonly entries: Map<string, Entry> } {
    const known = this.#pools.get(spec.id);
    if (known !== undefined && known.spec.launch === spec.launch && known.spec.options.auth === spec.options.auth) return known;
    if (known !== undefined) void this.close(spec.id);
    const credentials = this.#o.credentials(spec);
    if (credentials === undefined) throw new McpError(McpErrorCode.ServerUnavailable, `Server ${spec.id} is not available: auth ${spec.options.auth?.mode ?? 'shared'} is not set up in this gateway`);
    const pool = { spec, credentials, entries: new Map<string, Entry>() };
    this.#pools.set(spec.id, pool);
    return pool;
  }

  async #clientFor(spec: DownstreamSpec, principal: Principal, tool: string | undefined, ctx: InterceptContext): Promise<{ client: McpClient; slot: string }> {
    const pool = this.#pool(spec);
    const id = pool.credentials.credentialId?.(tool) ?? '';
    const slot = id === '' ? principal.id : JSON.stringify([principal.id, id]);
    const answer = await pool.credentials.credentialFor(principal, tool);
    let entry = pool.entries.get(slot);
    if (answer.kind === 'sign-in') {
      if (entry !== undefined) {
        pool.entries.delete(slot);
        void closeEntry(entry);
      }
      throw new UrlElicitationRequiredError(spec.id, answer);
    }
    if (answer.connection.principal !== principal.id) throw new Error(`server ${spec.id}: a credential of another principal was offered`);
    const now = this.#now();
    this.#sweep(pool.entries, now);
    if (entry === undefined || entry.refused) {
      if (entry !== undefined) void closeEntry(entry);
      entry = { principal: principal.id, slot, connection: answer.connection, client: undefined, lastUsed: now, refused: false };
      this.#evictFor(pool.entries);
      pool.entries.set(slot, entry);
    }
    entry.connection = answer.connection;
    entry.lastUsed = now;
    // Most recently used last (the map's order is the eviction order).
    pool.entries.delete(slot);
    pool.entries.set(slot, entry);
    noteCredential(ctx, { principal: answer.connection.principal, mode: pool.credentials.mode });
    entry.client ??= this.#connect(spec, pool.credentials, principal, entry);
    try {
      return { client: await entry.client, slot };
    } catch (error) {
      if (pool.entries.get(slot) === entry) pool.entries.delete(slot);
      // The server refused the credential as the client connected, and it could not be renewed: a sign-in, not a failure.
      if (entry.refused) {
        const again = await pool.credentials.credentialFor(principal, tool);
        if (again.kind === 'sign-in') throw new UrlElicitationRequiredError(spec.id, again);
      }
      throw error;
    }
  }

  async #connect(spec: DownstreamSpec, credentials: DownstreamCredentials, principal: Principal, entry: Entry): Promise<McpClient> {
    const authorization = (c: Connection): string => `${c.tokens.tokenType === 'DPoP' ? 'DPoP' : 'Bearer'} ${c.tokens.accessToken}`;
    const hooks: PrincipalAuthHooks = {
      // Read per request: a renewal (here or on another instance) replaces the token in place.
      authorizationHeaders: () => Promise.resolve({ authorization: authorization(entry.connection) }),
      onUnauthorized: async (info) => {
        if (info.status !== 401 || entry.refused) return false;
        // Refused a token this client has renewed since (for a request refused before): sent again with the new
        // one. Renewing the new one would refresh (exchange) a second time for one refusal.
        if (info.authorization !== undefined && info.authorization !== authorization(entry.connection)) return true;
        const renewed = await credentials.renew(principal, entry.connection);
        if (renewed === undefined || renewed.principal !== entry.principal) {
          entry.refused = true;
          return false;
        }
        entry.connection = renewed;
        return true;
      },
    };
    // The server's static credential headers (its catalog connection's) never go on a principal's requests.
    const launch = spec.launch.kind === 'stdio' ? spec.launch : { ...spec.launch, headers: withoutCredentials(spec.launch.headers) };
    const transport = await this.#o.transport({ ...spec, launch }, hooks);
    const client = new McpClient(this.#o.clientInfo, {
      defaultTimeoutMs: spec.options.timeoutMs,
      ...(spec.options.era !== 'auto' ? { era: spec.options.era } : {}),
      ...(this.#o.capabilities !== undefined ? { capabilities: this.#o.capabilities } : {}),
    });
    await client.connect(transport);
    return client;
  }

  #sweep(entries: Map<string, Entry>, now: number): void {
    const idleMs = this.#o.idleMs ?? DEFAULT_IDLE_MS;
    for (const [key, entry] of entries) {
      if (now - entry.lastUsed < idleMs) break; // ordered by last use
      entries.delete(key);
      void closeEntry(entry);
    }
  }

  #evictFor(entries: Map<string, Entry>): void {
    const max = this.#o.maxClients ?? DEFAULT_MAX_CLIENTS;
    while (entries.size >= max) {
      const [key, oldest] = entries.entries().next().value as [string, Entry];
      entries.delete(key);
      void closeEntry(oldest);
    }
  }
}

const CREDENTIAL_HEADERS: ReadonlySet<string> = new Set(['authorization', 'proxy-authorization', 'dpop', 'cookie']);

function withoutCredentials(headers: Readonly<Record<string, string>>): Record<string, string> {
  return Object.fromEntries(Object.entries(headers).filter(([name]) => !CREDENTIAL_HEADERS.has(name.toLowerCase())));
}

async function closeEntry(entry: Entry): Promise<void> {
  const client = await entry.client?.catch(() => undefined);
  await client?.close().catch(() => undefined);
}

/**
 * `task` for a host without a {@link DownstreamAuthority}: a server that must act as each
 * caller is refused (never sent over its shared client); any other runs as is.
 */
export function refuseOtherModes<R>(server: Downstream, task: Task<R>): Task<R> {
  const mode = server.spec.options.auth?.mode ?? 'shared';
  if (mode === 'shared') return task;
  return () => Promise.reject(new McpError(McpErrorCode.ServerUnavailable, `Server ${server.spec.id} is not available: auth ${mode} is not set up in this host`));
}

/**
 * The 2026-07-28 form of a sign-in the call needs: an `input_required` result carrying the
 * URL-mode elicitation (that era has no -32042), which the client answers by showing the URL
 * and sending the call again; `undefined` for any other error, a stateful upstream (which
 * gets {@link UrlElicitationRequiredError} itself), or a client that does not declare
 * `elicitation.url` (see {@link signInUnsupported}).
 *
 * @see https://modelcontextprotocol.io/specification/2026-07-28/basic/patterns/mrtr
 */
export function signInInputRequired(error: unknown, stateless: boolean, caps?: ClientCapabilities): Record<string, unknown> | undefined {
  if (!stateless || !(error instanceof UrlElicitationRequiredError) || caps?.elicitation?.url === undefined) return undefined;
  const [elicitation] = (error.data as { elicitations: readonly { mode: 'url'; url: string; message: string }[] }).elicitations;
  if (elicitation === undefined) return undefined;
  return { resultType: 'input_required', inputRequests: { 'switchboard.sign-in': { method: 'elicitation/create', params: { mode: 'url', message: elicitation.message, url: elicitation.url } } } };
}

/**
 * The error a 2026-07-28 caller that does not declare `elicitation.url` gets instead of a
 * sign-in it cannot show (a server must not ask for a mode the client did not declare):
 * missing required client capability (-32021) naming it; any other error unchanged.
 *
 * @see https://modelcontextprotocol.io/specification/2026-07-28/client/elicitation#capabilities
 */
export function signInUnsupported(error: unknown, stateless: boolean, caps?: ClientCapabilities): unknown {
  if (!stateless || !(error instanceof UrlElicitationRequiredError) || caps?.elicitation?.url !== undefined) return error;
  return new JsonRpcError(ErrorCode.MissingRequiredClientCapability, `${error.message.replace(/: open the link, then call again$/, '')}; this client does not declare the elicitation.url capability that shows the sign-in link`, { requiredCapabilities: { elicitation: { url: {} } } });
}
