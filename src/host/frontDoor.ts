/**
 * The gateway's one front door: every HTTP request, whatever its path, passes the Streamable
 * HTTP transport's `Host`/`Origin` policy first (one rule, one allow-list: a DNS-rebinding page
 * learns nothing from any route), and a request with two `Host` headers is 400 (RFC 9112
 * section 3.2). Behind it:
 *
 * | Path | Credential | Answer |
 * |---|---|---|
 * | the MCP endpoint (`path`) | the front door's verifiers: named static tokens, OAuth, or both | the gateway's `McpServer` |
 * | `/healthz` | none | `{ "status": "ok" }` |
 * | `/readyz` | optional: the same verifiers | 200/503 with `{ status }`; the per-server states only to an authenticated caller |
 * | a mount (`/consent/`, `/console`) | its own (the admin token; the MCP token is refused there) | the mount's |
 * | anything else | none | 404 |
 *
 * Both entries of the returned handler, `handle` (the Node adapter's) and `fetch` (the web
 * one), run this same pipeline.
 *
 * A static token is known by the SHA-256 digest of its value and compared in constant time
 * (`auth/resource/staticTokens.ts`); it reaches handlers the way an OAuth token does, through the
 * transport's `auth` seam: `ctx.principal` is `{ id: <token name>, auth: <subject = name, scopes
 * = the token's> }`, so interceptors, the policy and the audit log see who called. Handlers
 * never see the credential itself (no token passthrough).
 *
 * @see https://modelcontextprotocol.io/specification/2025-11-25/basic/transports#security-warning
 * @see https://modelcontextprotocol.io/specification/2025-11-25/basic/authorization
 * @see https://www.rfc-editor.org/rfc/rfc9112#section-3.2
 * @module
 */
import { createStaticTokenVerifier, type NamedToken } from '../auth/resource/staticTokens.js';
import { defaultDecodeLimits } from '../jsonrpc/decode.js';
import type { McpServer } from '../server/mcpServer.js';
import { createHttpAuth, type HttpAuthOptions } from '../transport/http/server/auth.js';
import { createStreamableHttpHandler, fromWebRequest, toWebResponse, type StreamableHttpHandler, type StreamableHttpServerOptions } from '../transport/http/server/server.js';
import type { HttpRequestLike, HttpResponseLike, MountedRoutes } from '../transport/http/server/types.js';
import { compileHostAllowList, compileOriginAllowList, hostRefusal, localhostNames, originRefusal } from '../transport/http/server/validate.js';
import type { Logger } from '../util/logger.js';

export type { NamedToken } from '../auth/resource/staticTokens.js';
export type { MountedRoutes } from '../transport/http/server/types.js';

/** The realm of the gateway's bearer-token challenge. */
export const FRONT_DOOR_REALM = 'switchboard';

/** How MCP clients authenticate at the front door. Neither member: no authentication (loopback only). */
export interface FrontDoorAuth {
  /** Static named bearer tokens, known by their digests. */
  readonly tokens?: readonly NamedToken[];
  /** The OAuth resource-server verifier and its Protected Resource Metadata (`gatewayResourceAuth`). */
  readonly oauth?: HttpAuthOptions;
  /** Said in 401 bodies: where a client finds its token (e.g. the state folder's `gateway-token`). */
  readonly hint?: string;
}

/** One downstream server's health, as `/readyz` reports it to an authenticated caller. */
export interface FrontDoorHealth {
  readonly id: string;
  readonly state: string;
  readonly lastError?: string;
  readonly problem?: string;
}

/** Options of {@link createFrontDoor}. */
export interface FrontDoorOptions {
  /** The MCP endpoint's path (e.g. `/mcp`). */
  readonly path: string;
  readonly logger: Logger;
  /** Stateful sessions shared with the other instances (`--cache redis://`): records, bus and SSE events. */
  readonly sessions?: Pick<StreamableHttpServerOptions, 'sessionStore' | 'sessionBus' | 'eventStore' | 'maxSessions' | 'maxSessionsPerPrincipal'>;
  /** The `Host` allow-list of every route. Default: the loopback names. */
  readonly allowedHosts?: readonly string[];
  /** The `Origin` allow-list of every route. Default: the loopback names. */
  readonly allowedOrigins?: readonly string[];
  readonly auth: FrontDoorAuth;
  /** The downstream servers' health, for `/readyz`. Default: none (ready). */
  readonly health?: () => readonly FrontDoorHealth[];
  /** Routes with their own credential, behind the same Host/Origin policy: the consent API, the console. */
  readonly mounts?: readonly MountedRoutes[];
}

/** The transport's `auth` option for `auth`, or undefined for none. */
export function frontDoorAuth(auth: FrontDoorAuth): HttpAuthOptions | undefined {
  const tokens = auth.tokens !== undefined && auth.tokens.length > 0 ? createStaticTokenVerifier(auth.tokens) : undefined;
  if (tokens === undefined && auth.oauth === undefined) return undefined;
  return {
    ...auth.oauth,
    ...(tokens !== undefined ? { tokens } : {}),
    realm: FRONT_DOOR_REALM,
    ...(auth.hint !== undefined ? { refusalHint: auth.hint } : {}),
  };
}

function json(status: number, body: unknown): HttpResponseLike {
  return { status, headers: { 'content-type': 'application/json', 'cache-control': 'no-store' }, body: JSON.stringify(body) };
}

/** `/healthz` and `/readyz`; `authenticated` says whether a request may see the per-server details. */
function healthRoutes(health: () => readonly FrontDoorHealth[], authenticated: (request: HttpRequestLike) => Promise<boolean>): MountedRoutes {
  return {
    owns: (path) => path === '/healthz' || path === '/readyz',
    async handle(request) {
      if (request.method !== 'GET' && request.method !== 'HEAD') return { status: 405, headers: { allow: 'GET, HEAD', 'content-type': 'application/json' }, body: '{"error":"GET only"}' };
      if (request.path === '/healthz') return json(200, { status: 'ok' });
      const servers = health();
      // Tried = its first start settled: a restart later (starting again, with its last error) is not "not ready".
      const settled = servers.every((s) => s.state !== 'starting' || s.lastError !== undefined);
      const ready = settled && (servers.length === 0 || servers.some((s) => s.state === 'ready'));
      const status = ready ? 'ready' : 'not ready';
      // Server ids and their last errors describe the deployment: only for a caller with a credential.
      if (!(await authenticated(request))) return json(ready ? 200 : 503, { status });
      const details = servers.map((h) => ({ id: h.id, state: h.state, ...(h.lastError !== undefined ? { error: h.lastError } : {}), ...(h.problem !== undefined ? { problem: h.problem } : {}) }));
      return json(ready ? 200 : 503, { status, servers: details });
    },
  };
}

/**
 * Builds the gateway's HTTP handler: `server` at `options.path` behind the transport's
 * Host/Origin policy and the front door's verifiers, with health, readiness and the mounts
 * behind the same policy. Throws a `TypeError` on an invalid token set (see `createStaticTokenVerifier`).
 */
export function createFrontDoor(server: McpServer, options: FrontDoorOptions): StreamableHttpHandler {
  const auth = frontDoorAuth(options.auth);
  const checker = auth === undefined ? undefined : createHttpAuth(auth, defaultDecodeLimits, options.logger);
  const authenticated = async (request: HttpRequestLike): Promise<boolean> => checker === undefined || (await checker.authenticate(request, undefined)) === undefined;
  const health = healthRoutes(options.health ?? (() => []), authenticated);
  return createStreamableHttpHandler(server, {
    path: options.path,
    logger: options.logger,
    ...(auth !== undefined ? { auth } : {}),
    ...(options.allowedHosts !== undefined ? { allowedHosts: options.allowedHosts } : {}),
    ...(options.allowedOrigins !== undefined ? { allowedOrigins: options.allowedOrigins } : {}),
    mounts: [health, ...(options.mounts ?? [])],
    ...options.sessions,
  });
}

/**
 * The `Host` allow-list of a gateway bound to `bindHost`: the loopback names, plus the bound
 * address itself unless it is a wildcard (`0.0.0.0`, `::`: behind a proxy, list the public
 * name instead).
 */
export function allowedHostsFor(bindHost: string): readonly string[] {
  return bindHost === '0.0.0.0' || bindHost === '::' || localhostNames.includes(bindHost) ? localhostNames : [...localhostNames, bindHost.includes(':') && !bindHost.startsWith('[') ? `[${bindHost}]` : bindHost];
}

/** Options of {@link createAdminDoor}. */
export interface AdminDoorOptions {
  /** The routes served (the consent API, the console); every other path is 404. */
  readonly mounts: readonly MountedRoutes[];
  /** The `Host` allow-list. Default: the loopback names. */
  readonly allowedHosts?: readonly string[];
  /** The `Origin` allow-list. Default: the loopback names. */
  readonly allowedOrigins?: readonly string[];
}

/**
 * The front door of a listener that serves only mounts (the admin listener of a gateway on
 * stdio): the same Host/Origin policy functions as the transport's (`hostRefusal`,
 * `originRefusal`: duplicate `Host` 400, foreign `Host` or `Origin` 403), then the mounts.
 */
export function createAdminDoor(options: AdminDoorOptions): StreamableHttpHandler {
  const hosts = compileHostAllowList(options.allowedHosts ?? localhostNames);
  const origins = compileOriginAllowList(options.allowedOrigins ?? localhostNames);
  const handle = async (request: HttpRequestLike): Promise<HttpResponseLike> => {
    const refused = hostRefusal(request.header('host'), hosts) ?? originRefusal(request.header('origin'), origins);
    if (refused !== undefined) return json(refused.status, { error: refused.detail });
    const mount = options.mounts.find((m) => m.owns(request.path));
    try {
      return (await mount?.handle(request)) ?? json(404, { error: 'not found' });
    } catch {
      return json(500, { error: 'internal error' });
    }
  };
  return {
    handle,
    fetch: async (request) => toWebResponse(await handle(fromWebRequest(request))),
    maxBodyBytes: 4 * 1024 * 1024,
    sessionCount: 0,
    close: () => Promise.resolve(),
  };
}
