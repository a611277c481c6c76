/**
 * The HTTP side of `switchboard gateway`: the gateway's `McpServer` behind the Streamable HTTP
 * handler (both eras on one endpoint, Host/Origin checks, body limits, sealed state), the
 * client authentication, and `/healthz` + `/readyz` for process managers and load balancers.
 *
 * Authentication is one of:
 * - `token`: one bearer token (from the state folder), compared in constant time;
 * - `oauth`: the gateway is an OAuth 2.1 resource server (`gatewayOAuth.ts`): access tokens
 *   from the configured issuer, for the configured audience, verified on every request; the
 *   Protected Resource Metadata is served at its well-known path and refusals carry
 *   `WWW-Authenticate`; the token's principal reaches the host as `Principal.auth`;
 * - `none`: loopback only.
 *
 * The consent admin API (`/consent/`, `consentHttpApi.ts`) and the web console (`/console`,
 * `src/console/`) are routed before the MCP credential check: they need the admin token
 * instead, and refuse the MCP bearer token.
 *
 * Whatever the mode, the credential stops here: handlers never see `Authorization`, and the
 * host sends each downstream server only its own credentials (no token passthrough).
 *
 * @see https://modelcontextprotocol.io/specification/2025-11-25/basic/authorization
 * @module
 */
import { listen, type ListeningServer } from '../adapters/nodeHttp.js';
import { timingSafeEqual } from 'node:crypto';
import { gatewayResourceAuth, type GatewayOAuthOptions } from './gatewayOAuth.js';
import type { Gateway } from '../host/gateway.js';
import { ConsentHttpApi } from '../host/consent/consentHttpApi.js';
import { ConsoleHttpApi } from '../console/consoleApi.js';
import type { Host } from '../host/host.js';
import { createStreamableHttpHandler, type StreamableHttpHandler, type StreamableHttpServerOptions } from '../transport/http/server/server.js';
import type { HttpRequestLike, HttpResponseLike } from '../transport/http/server/types.js';
import type { Logger } from '../util/logger.js';

/** Where and how the gateway serves HTTP. */
export interface GatewayHttpOptions {
  readonly host: string;
  readonly port: number;
  readonly path: string;
  readonly logger: Logger;
  /** How clients authenticate. */
  readonly auth: GatewayHttpAuth;
  /** The consent admin API, served under `/consent/` with its own (admin) credential. */
  readonly consent?: ConsentHttpApi;
  /** Stateful sessions shared with the other instances (`--cache redis://`): records, bus and SSE events. */
  readonly sessions?: Pick<StreamableHttpServerOptions, 'sessionStore' | 'sessionBus' | 'eventStore'>;
  /** The web console, served under `/console` with its own (admin) credential (`src/console/`). */
  readonly console?: ConsoleHttpApi;
}

/** The gateway's client authentication. */
export type GatewayHttpAuth =
  | { readonly kind: 'none' }
  /** The bearer token every MCP request needs. */
  | { readonly kind: 'token'; readonly token: string }
  | ({ readonly kind: 'oauth' } & GatewayOAuthOptions);

/** Serves `gateway` over Streamable HTTP. */
export async function serveGatewayHttp(gateway: Gateway, host: Host, options: GatewayHttpOptions): Promise<ListeningServer> {
  const late: { inner?: StreamableHttpHandler } = {};
  const health = (request: HttpRequestLike): HttpResponseLike | undefined => {
    if (request.method !== 'GET' && request.method !== 'HEAD') return undefined;
    if (request.path === '/healthz') return json(200, { status: 'ok' });
    if (request.path !== '/readyz') return undefined;
    const servers = host.health().map((h) => ({ id: h.id, state: h.state, ...(h.lastError !== undefined ? { error: h.lastError } : {}), ...(h.problem !== undefined ? { problem: h.problem } : {}) }));
    const settled = servers.every((s) => s.state !== 'starting');
    const ready = settled && (servers.length === 0 || servers.some((s) => s.state === 'ready'));
    return json(ready ? 200 : 503, { status: ready ? 'ready' : 'not ready', servers });
  };
  const unavailable: HttpResponseLike = json(503, { status: 'starting' });
  const expected = options.auth.kind === 'token' ? Buffer.from(`Bearer ${options.auth.token}`) : undefined;
  /** The gateway's own credential: one bearer token, compared in constant time; never passed downstream. */
  const refused = (request: HttpRequestLike): HttpResponseLike | undefined => {
    if (expected === undefined || request.method === 'OPTIONS') return undefined;
    const presented = Buffer.from(request.header('authorization')?.trim() ?? '');
    if (presented.length === expected.length && timingSafeEqual(presented, expected)) return undefined;
    const error = presented.length === 0 ? '' : ', error="invalid_token"';
    return { ...json(401, { error: 'a valid bearer token is required (see the gateway-token file in the state folder)' }), headers: { 'content-type': 'application/json', 'www-authenticate': `Bearer realm="switchboard"${error}` } };
  };
  const handler: StreamableHttpHandler = {
    handle: (request) => {
      // The person's side has its own credential (the admin token); the MCP token is refused there.
      if (options.consent !== undefined && ConsentHttpApi.owns(request.path)) {
        return options.consent.handle(request).then(
          (r) => r ?? json(404, { error: 'not found' }),
          (error: unknown) => json(400, { error: error instanceof Error ? error.message : String(error) }),
        );
      }
      // The web console: the admin token exchanged for a session; the MCP token is refused there too.
      if (options.console !== undefined && ConsoleHttpApi.owns(request.path)) {
        return options.console.handle(request).then((r) => r ?? json(404, { error: 'not found' }));
      }
      const answered = health(request) ?? refused(request);
      if (answered !== undefined) return Promise.resolve(answered);
      return late.inner?.handle(request) ?? Promise.resolve(unavailable);
    },
    fetch: (request) => late.inner?.fetch(request) ?? Promise.resolve(new Response(null, { status: 503 })),
    maxBodyBytes: 4 * 1024 * 1024,
    get sessionCount() {
      return late.inner?.sessionCount ?? 0;
    },
    close: () => late.inner?.close() ?? Promise.resolve(),
  };
  const running = await listen(handler, { host: options.host, port: options.port, logger: options.logger });
  const oauth = options.auth.kind === 'oauth' ? options.auth : undefined;
  try {
    // The resource URL may name the bound port, so the verifier is built after listen.
    const auth = oauth === undefined ? undefined : await gatewayResourceAuth(oauth, new URL(options.path, running.url).href, options.logger);
    late.inner = createStreamableHttpHandler(gateway.server, { path: options.path, logger: options.logger, ...(auth !== undefined ? { auth } : {}), ...options.sessions });
  } catch (error) {
    await running.close();
    throw error;
  }
  return running;
}

function json(status: number, body: unknown): HttpResponseLike {
  return { status, headers: { 'content-type': 'application/json', 'cache-control': 'no-store' }, body: JSON.stringify(body) };
}
