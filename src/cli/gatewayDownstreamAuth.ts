/**
 * The CLI's wiring of `servers.<id>.auth` (see `host/principalClients.ts` and
 * `docs/downstream-auth.md`): the {@link DownstreamAuthority} the gateway routes each call
 * through, each per-user server's {@link PerUserSignIn} (its links and redirect under the
 * gateway's own URL, known once the port is bound), each token-exchange server's
 * {@link TokenExchangeCredentials}, and the sign-in routes mounted on the gateway's listener.
 *
 * Connections and the gateway's client registrations at authorization servers live in `store`
 * (in memory unless a persistent store is given). With `tenantOf` (`gateway.auth.oauth.tenantClaim`)
 * a connection is used only for a principal of the tenant it was made under.
 *
 * @module
 */
import { principalTransportFactory } from '../adapters/hostTransports.js';
import { allowInsecureRequests } from '../auth/http.js';
import { canonicalServerUrl, isLoopbackHttp } from '../host/canonicalServerUrl.js';
import { MemoryConnectionStore, type ConnectionStore, type DownstreamCredentials } from '../host/connections.js';
import type { FrontDoorAuth, MountedRoutes } from '../host/frontDoor.js';
import { GATEWAY_CLIENT_CAPABILITIES } from '../host/gateway.js';
import { PerUserSignIn } from '../host/perUserSignIn.js';
import { DownstreamAuthority } from '../host/principalClients.js';
import { signInRoutes } from '../host/signInRoutes.js';
import type { DownstreamSpec } from '../host/spec.js';
import type { Principal } from '../transport/principal.js';
import { TokenExchangeCredentials } from '../host/tokenExchangeCredentials.js';
import { SWITCHBOARD_VERSION } from '../util/version.js';
import type { Logger } from '../util/logger.js';

/** The gateway's downstream authority and its sign-in routes. */
export interface GatewayDownstreamAuth {
  readonly authority: DownstreamAuthority;
  readonly store: ConnectionStore;
  /** The listener's URL, once known: sign-in links and the redirect URI are made under it unless a public URL was given. */
  setGatewayUrl(url: string): void;
  /** The sign-in routes, verifying the person with the front door's own `auth`. */
  routes(auth: FrontDoorAuth, secure: boolean): MountedRoutes;
}

/** Options of {@link gatewayDownstreamAuth}. */
export interface GatewayDownstreamAuthOptions {
  /** Connections, pending sign-ins and client registrations (default: in memory). */
  readonly store?: ConnectionStore;
  /** `gateway.publicUrl`: links and the redirect URI are made under it instead of the listener's URL. */
  readonly publicUrl?: string;
  /** The caller's tenant (`gateway.auth.oauth.tenantClaim`). */
  readonly tenantOf?: (principal: Principal) => string | undefined;
}

/** Builds {@link GatewayDownstreamAuth}. */
export function gatewayDownstreamAuth(logger: Logger, options: GatewayDownstreamAuthOptions = {}): GatewayDownstreamAuth {
  const store = options.store ?? new MemoryConnectionStore();
  const signIns = new Map<string, PerUserSignIn>();
  let gatewayUrl: string | undefined = options.publicUrl?.replace(/\/$/, '');
  const tenantOf = options.tenantOf !== undefined ? { tenantOf: options.tenantOf } : {};
  const credentials = (spec: DownstreamSpec): DownstreamCredentials | undefined => {
    if (spec.launch.kind === 'stdio') return undefined;
    const url = spec.launch.url;
    const insecure = { [allowInsecureRequests]: isLoopbackHttp(url) };
    const auth = spec.options.auth;
    if (auth?.mode === 'per-user') {
      if (gatewayUrl === undefined) return undefined;
      const oauth = spec.options.oauth;
      const signIn = new PerUserSignIn({
        serverId: spec.id,
        serverUrl: url,
        store,
        gatewayUrl,
        ...tenantOf,
        ...(oauth?.clientId !== undefined ? { clientId: oauth.clientId } : {}),
        ...(oauth?.scopes !== undefined ? { scopes: oauth.scopes } : {}),
        ...insecure,
      });
      signIns.set(signIn.identity, signIn);
      return signIn;
    }
    if (auth?.mode === 'token-exchange') {
      const { mode: _mode, ...exchange } = auth;
      const local = (exchange.issuer !== undefined && isLoopbackHttp(exchange.issuer)) || (exchange.tokenEndpoint !== undefined && isLoopbackHttp(exchange.tokenEndpoint));
      return new TokenExchangeCredentials({ server: canonicalServerUrl(url), serverId: spec.id, store, ...tenantOf, options: { ...exchange, [allowInsecureRequests]: local } });
    }
    return undefined;
  };
  const authority = new DownstreamAuthority({
    credentials,
    store,
    transport: principalTransportFactory({ environment: {}, logger }),
    clientInfo: { name: 'switchboard-gateway', version: SWITCHBOARD_VERSION },
    capabilities: GATEWAY_CLIENT_CAPABILITIES,
  });
  return {
    authority,
    store,
    setGatewayUrl: (url) => {
      if (options.publicUrl === undefined) gatewayUrl = url.replace(/\/$/, '');
    },
    routes: (auth, secure) => signInRoutes({ signIn: (identity) => signIns.get(identity), store, auth, secure, logger }),
  };
}
