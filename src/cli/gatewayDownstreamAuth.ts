/**
 * The CLI's wiring of `servers.<id>.auth` (see `host/principalClients.ts` and
 * `docs/downstream-auth.md`): the {@link DownstreamAuthority} the gateway routes each call
 * through, each per-user server's {@link PerUserSignIn} (its links and redirect under the
 * gateway's own URL, known once the port is bound), each token-exchange server's
 * {@link TokenExchangeCredentials}, and the sign-in routes mounted on the gateway's listener.
 *
 * Connections live in `store` (in memory unless a persistent store is given).
 *
 * @module
 */
import { principalTransportFactory } from '../adapters/hostTransports.js';
import { MemoryTokenStore, type TokenStore } from '../auth/client/tokenStore.js';
import { allowInsecureRequests } from '../auth/http.js';
import { canonicalServerUrl, isLoopbackHttp } from '../host/canonicalServerUrl.js';
import { MemoryConnectionStore, type ConnectionStore, type DownstreamCredentials } from '../host/connections.js';
import type { FrontDoorAuth, MountedRoutes } from '../host/frontDoor.js';
import { GATEWAY_CLIENT_CAPABILITIES } from '../host/gateway.js';
import { PerUserSignIn } from '../host/perUserSignIn.js';
import { DownstreamAuthority } from '../host/principalClients.js';
import { signInRoutes } from '../host/signInRoutes.js';
import type { DownstreamSpec } from '../host/spec.js';
import { TokenExchangeCredentials } from '../host/tokenExchangeCredentials.js';
import { SWITCHBOARD_VERSION } from '../util/version.js';
import type { Logger } from '../util/logger.js';

/** The gateway's downstream authority and its sign-in routes. */
export interface GatewayDownstreamAuth {
  readonly authority: DownstreamAuthority;
  readonly store: ConnectionStore;
  /** Where sign-in links and the redirect URI are made: call once the listener's URL is known. */
  setGatewayUrl(url: string): void;
  /** The sign-in routes, verifying the person with the front door's own `auth`. */
  routes(auth: FrontDoorAuth, secure: boolean): MountedRoutes;
}

/** Builds {@link GatewayDownstreamAuth}; `registrations` keeps the gateway's client registrations (default: in memory). */
export function gatewayDownstreamAuth(logger: Logger, options: { readonly store?: ConnectionStore; readonly registrations?: TokenStore } = {}): GatewayDownstreamAuth {
  const store = options.store ?? new MemoryConnectionStore();
  const registrations = options.registrations ?? new MemoryTokenStore();
  const signIns = new Map<string, PerUserSignIn>();
  let gatewayUrl: string | undefined;
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
        registrations,
        gatewayUrl,
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
      return new TokenExchangeCredentials({ server: canonicalServerUrl(url), serverId: spec.id, store, options: { ...exchange, [allowInsecureRequests]: local } });
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
    setGatewayUrl: (url) => (gatewayUrl = url.replace(/\/$/, '')),
    routes: (auth, secure) => signInRoutes({ signIn: (identity) => signIns.get(identity), store, auth, secure, logger }),
  };
}
