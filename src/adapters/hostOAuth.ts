/**
 * OAuth for the host's remote servers: each server with an `oauth` section gets its own
 * {@link OAuthClientProvider} (our OAuth client: discovery, registration, PKCE, refresh), its
 * own token store (bound to the server's identity, see `store/oauthTokenFiles.ts`) and the
 * transport hooks that put its token on every request to that server and to no other.
 *
 * No token passthrough: the only credentials a downstream request carries are the server's
 * own static headers or the tokens obtained here for that server. The upstream client's
 * credentials never reach this code (the gateway's HTTP layer redacts them and the host API
 * has no field for them).
 *
 * Without an `authorize` user agent (the gateway runs unattended), a server that has no usable
 * token cannot sign in: its requests fail with `ERR_MCP_LOGIN_REQUIRED` ("run `switchboard
 * login <server>`") before anything is registered or sent to its authorization server, and the
 * host marks it `needs-login` while the other servers keep working. Stored tokens are used
 * and refreshed automatically, shortly before they expire and on a `401`.
 *
 * @see https://modelcontextprotocol.io/specification/2025-11-25/basic/authorization
 * @see https://modelcontextprotocol.io/specification/2025-11-25/basic/security_best_practices#token-passthrough
 * @module
 */
import type { Authorizer } from '../auth/client/authorization.js';
import { createOAuthClientProvider, type OAuthClientProvider } from '../auth/client/oauthClientProvider.js';
import type { TokenStore } from '../auth/client/tokenStore.js';
import { AuthError, AuthErrorCode } from '../auth/errors.js';
import { allowInsecureRequests, type FetchLike } from '../auth/http.js';
import type { ServerOAuthOptions } from '../host/configTypes.js';
import { isLoopbackHttp } from '../host/canonicalServerUrl.js';
import type { DownstreamSpec } from '../host/spec.js';
import type { StreamableHttpClientOptions } from '../transport/http/client/clientOptions.js';
import { McpError, McpErrorCode } from '../util/errors.js';

/**
 * The transport options of a server's authorization: `onUnauthorized` always, and
 * `authorizationHeaders` where there are credentials to add (without it a request goes out with
 * no auth step, and only a challenge reaches `onUnauthorized`).
 */
export type AuthHooks = Required<Pick<StreamableHttpClientOptions, 'onUnauthorized'>> & Pick<StreamableHttpClientOptions, 'authorizationHeaders'>;

/** The {@link AuthHooks} of an OAuth client: credentials on every request. */
export type OAuthHooks = Required<Pick<StreamableHttpClientOptions, 'authorizationHeaders' | 'onUnauthorized'>>;

/** The transport options that route authorization through `provider`. */
export function oauthTransportHooks(provider: OAuthClientProvider): OAuthHooks {
  return {
    authorizationHeaders: (method, url) => provider.authorizationHeaders(method, url),
    onUnauthorized: (info) =>
      provider.handleChallenge({
        status: info.status,
        wwwAuthenticate: info.wwwAuthenticate ?? null,
        ...(info.url !== undefined ? { resourceUrl: info.url } : {}),
        ...(info.dpopNonce !== undefined ? { dpopNonce: info.dpopNonce } : {}),
      }),
  };
}

/** Options of {@link downstreamOAuth}. */
export interface DownstreamOAuthOptions {
  /** The token store of the server at `url` (bound to its identity). */
  readonly store: (url: string, oauth: ServerOAuthOptions) => TokenStore;
  /** The loopback redirect URI for a server's `oauth` settings (its `redirectPort`). */
  readonly redirectUri: (oauth: ServerOAuthOptions) => string;
  /** The `fetch` for discovery, registration and token requests. Default: the global one. */
  readonly fetch?: FetchLike;
  /** The user agent of a sign-in (`switchboard login`); absent = unattended (`ERR_MCP_LOGIN_REQUIRED`). */
  readonly authorize?: Authorizer;
  /** How to tell the user to sign in to `serverId` (default: "run `switchboard login <id>`"). */
  readonly loginHint?: (serverId: string) => string;
  /** The clock (tests). */
  readonly now?: () => number;
}

/** A server's OAuth client and the transport hooks that use it. */
export interface DownstreamOAuth {
  readonly provider: OAuthClientProvider;
  readonly hooks: OAuthHooks;
  readonly store: TokenStore;
}

/** The error of a server that needs a sign-in the host cannot do by itself. */
export function loginRequired(serverId: string, hint: string, cause?: unknown): McpError {
  return new McpError(McpErrorCode.LoginRequired, `Server ${serverId} needs an OAuth sign-in: ${hint}`, cause === undefined ? undefined : { cause });
}

/** The OAuth client of `spec`, or `undefined` for a server without an `oauth` section (or a stdio one). */
export function downstreamOAuth(spec: DownstreamSpec, options: DownstreamOAuthOptions): DownstreamOAuth | undefined {
  const oauth = spec.options.oauth;
  if (oauth === undefined || spec.launch.kind === 'stdio') return undefined;
  const url = spec.launch.url;
  const store = options.store(url, oauth);
  const hint = options.loginHint?.(spec.id) ?? `run \`switchboard login ${spec.id}\``;
  const unattended = options.authorize === undefined;
  const provider = createOAuthClientProvider({
    serverUrl: url,
    // A server on this machine over plain http (development) may use an http authorization server.
    [allowInsecureRequests]: isLoopbackHttp(url),
    store,
    redirectUri: options.redirectUri(oauth),
    authorize: options.authorize ?? (() => Promise.reject(loginRequired(spec.id, hint))),
    clientMetadata: { client_name: 'Switchboard' },
    ...(oauth.scopes !== undefined ? { scopes: oauth.scopes } : {}),
    ...(options.fetch !== undefined ? { fetch: options.fetch } : {}),
    ...(options.now !== undefined ? { now: options.now } : {}),
  });
  const plain = oauthTransportHooks(provider);
  const hooks: OAuthHooks = {
    authorizationHeaders: plain.authorizationHeaders,
    onUnauthorized: async (info) => {
      if (unattended && info.status === 401 && (await store.getTokens(url))?.refreshToken === undefined) {
        // Nothing to refresh with: fail before registering a client or asking anyone.
        throw loginRequired(spec.id, hint);
      }
      try {
        return await plain.onUnauthorized(info);
      } catch (error) {
        if (unattended && error instanceof AuthError && error.code === AuthErrorCode.InteractionRequired) throw loginRequired(spec.id, hint, error);
        throw error;
      }
    },
  };
  return { provider, hooks, store };
}

/**
 * Hooks for a remote server *without* an `oauth` section and without its own `Authorization`
 * header: a `401` with an OAuth `Bearer` challenge means the server wants a sign-in, so the start
 * fails with `ERR_MCP_LOGIN_REQUIRED` and `hint` (what to add to the config), instead of a bare
 * HTTP status. Nothing is ever sent: no token exists for such a server. `undefined` otherwise.
 */
export function unconfiguredOAuthHooks(spec: DownstreamSpec, hint: string): AuthHooks | undefined {
  if (spec.launch.kind === 'stdio' || spec.options.oauth !== undefined) return undefined;
  if (Object.keys(spec.launch.headers).some((name) => name.toLowerCase() === 'authorization')) return undefined;
  // No credentials to add (so each request goes out without an auth step): only a challenge is answered.
  return {
    onUnauthorized: (info) => {
      if (info.status === 401 && /^\s*bearer\b/i.test(info.wwwAuthenticate ?? '')) return Promise.reject(loginRequired(spec.id, hint));
      return Promise.resolve(false);
    },
  };
}
