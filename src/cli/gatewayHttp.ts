/**
 * The HTTP side of `switchboard gateway`: binds the port and serves the host layer's front
 * door (`host/frontDoor.ts`: the gateway's `McpServer`, `/healthz`, `/readyz`, the consent API
 * and the console, all behind one Host/Origin policy and the front door's verifiers).
 *
 * Authentication is named static tokens (the state folder's `gateway-token` as `default` when
 * the config names none), OAuth 2.1 (`gatewayOAuth.ts`: its verifier is built once the port is
 * bound, because the resource URL may name it), both, or none (loopback only).
 *
 * @see https://modelcontextprotocol.io/specification/2025-11-25/basic/authorization
 * @module
 */
import { listen, type ListeningServer } from '../adapters/nodeHttp.js';
import type { FrontDoorAuth, FrontDoorOptions, MountedRoutes, NamedToken } from '../host/frontDoor.js';
import { DEFAULT_GATEWAY_LIMITS } from '../host/configLimits.js';
import type { GatewayLimits } from '../host/configTypes.js';
import type { OpenedGateway } from '../host/openGateway.js';
import type { StreamableHttpHandler } from '../transport/http/server/server.js';
import type { Logger } from '../util/logger.js';
import { gatewayResourceAuth, type GatewayOAuthOptions } from './gatewayOAuth.js';
import { listenFailure } from './listenErrors.js';

/** Where and how the gateway serves HTTP. */
export interface GatewayHttpOptions {
  readonly host: string;
  readonly port: number;
  readonly path: string;
  readonly logger: Logger;
  /** How clients authenticate: named tokens, OAuth, both; neither is no authentication. */
  readonly auth: GatewayHttpAuth;
  /** The `Host` allow-list of every route (default: the loopback names). */
  readonly allowedHosts?: readonly string[];
  /** Routes with their own (admin) credential: the consent API, the console. */
  readonly mounts?: readonly MountedRoutes[];
  /** `gateway.publicUrl`: the OAuth resource (when the audience is not a URL) is its endpoint, not the listener's. */
  readonly publicUrl?: string;
  /** Routes that verify a person with the front door's own client authentication (the per-user sign-in), given it once built, and the bound URL. */
  readonly personRoutes?: (auth: FrontDoorAuth, url: string) => MountedRoutes;
  /** Stateful sessions shared with the other instances (`--cache redis://`): records, bus and SSE events. */
  readonly sessions?: FrontDoorOptions['sessions'];
  /** Sessions in all and per caller, connections and request timeouts (`gateway.limits`). Default `DEFAULT_GATEWAY_LIMITS`. */
  readonly limits?: GatewayLimits;
}

/** The gateway's client authentication. */
export interface GatewayHttpAuth {
  readonly tokens?: readonly NamedToken[];
  readonly oauth?: GatewayOAuthOptions;
  /** Said in 401 bodies: where the token is. */
  readonly hint?: string;
}

/** Serves `gateway` over Streamable HTTP. */
export async function serveGatewayHttp(gateway: Pick<OpenedGateway, 'frontDoor'>, options: GatewayHttpOptions): Promise<ListeningServer> {
  // The OAuth resource URL may name the bound port: the front door is built once it is bound.
  const late: { door?: StreamableHttpHandler } = {};
  const starting = { status: 503, headers: { 'content-type': 'application/json' }, body: '{"status":"starting"}' };
  const handler: StreamableHttpHandler = {
    handle: (request) => late.door?.handle(request) ?? Promise.resolve(starting),
    fetch: (request) => late.door?.fetch(request) ?? Promise.resolve(new Response(starting.body, starting)),
    maxBodyBytes: 4 * 1024 * 1024,
    get sessionCount() {
      return late.door?.sessionCount ?? 0;
    },
    close: () => late.door?.close() ?? Promise.resolve(),
  };
  const limits = options.limits ?? DEFAULT_GATEWAY_LIMITS;
  let running: ListeningServer;
  try {
    running = await listen(handler, { host: options.host, port: options.port, logger: options.logger, limits });
  } catch (error) {
    throw listenFailure(error, options.host, options.port);
  }
  try {
    const { oauth, ...auth } = options.auth;
    const verifier = oauth === undefined ? undefined : await gatewayResourceAuth(oauth, new URL(options.path, options.publicUrl ?? running.url).href, options.logger);
    const doorAuth = { ...auth, ...(verifier !== undefined ? { oauth: verifier } : {}) };
    const person = options.personRoutes?.(doorAuth, running.url);
    late.door = gateway.frontDoor({
      path: options.path,
      logger: options.logger,
      auth: doorAuth,
      ...(options.allowedHosts !== undefined ? { allowedHosts: options.allowedHosts } : {}),
      ...(options.mounts !== undefined || person !== undefined ? { mounts: [...(options.mounts ?? []), ...(person !== undefined ? [person] : [])] } : {}),
      sessions: { ...options.sessions, maxSessions: limits.maxSessions, maxSessionsPerPrincipal: limits.sessionsPerPrincipal },
    });
  } catch (error) {
    await running.close();
    throw error;
  }
  return running;
}
