/**
 * The surface an HTTP client transport calls: an OAuth client for one MCP server.
 *
 * The transport asks {@link OAuthClientProvider.authorizationHeaders} (or `getAccessToken`) before
 * every request, and on a `401` or `403` hands the challenge to
 * {@link OAuthClientProvider.handleChallenge}; `true` means "a new token is ready, retry once".
 * Everything else happens here, following the 2026-07-28 flow
 * ({@link https://modelcontextprotocol.io/specification/2026-07-28/basic/authorization | MCP authorization}):
 *
 * 1. parse `WWW-Authenticate`; discover PRM (challenge URL, then well-known) and check its
 *    `resource` designates this server; discover the AS (byte-exact issuer, PKCE S256);
 * 2. on a `401` with a refresh token from the same AS: refresh; if the refresh token is
 *    rejected, authorize afresh (the client registration is kept);
 * 3. otherwise register (stored → pre-registered → CIMD → DCR, keyed by issuer) and run the
 *    grant: authorization code + PKCE + `state` + `resource` + RFC 9207 `iss` check, or client
 *    credentials, or the JWT bearer grant;
 * 4. scopes: challenge scope ∪ (previously requested scopes, else the `scopes` option) → PRM
 *    `scopes_supported` → omitted;
 *    `offline_access` only when the AS lists it;
 * 5. one authorization at a time: a challenge that arrives while one is under way waits for
 *    it and retries with its token;
 * 6. at most `maxAuthorizationAttempts` (default 3) challenge-driven authorizations within
 *    `attemptWindowMs` (default 60 s): repeated `insufficient_scope` cannot loop forever.
 *
 * An AS change in the PRM (migration) drops tokens from the former AS and registers anew;
 * identities of one AS are never presented to another.
 *
 * @module
 */

import { AuthError, AuthErrorCode } from '../errors.js';
import { type FetchLike, type InsecureOption, allowInsecureRequests, defaultFetch } from '../http.js';
import { parseScope, unionScopes } from '../scopes.js';
import { findChallenge, parseWwwAuthenticate } from '../wwwAuthenticate.js';
import { type Authorizer, createAuthorizationRequest, validateAuthorizationResponse } from './authorization.js';
import { type AuthorizationServerMetadata, type ResourceMetadata, discoverAuthorizationServer, discoverProtectedResource } from './discovery.js';
import { type DpopKey, type DpopProofer, createDpopProofer } from './dpop.js';
import { type ClientMetadata, type PreRegisteredClient, obtainClientRegistration } from './registration.js';
import { type TokenEndpointContext, type TokenResponse, clientCredentialsGrant, exchangeAuthorizationCode, jwtBearerGrant, refreshAccessToken } from './tokenEndpoint.js';
import { MemoryTokenStore, type TokenSet, type TokenStore } from './tokenStore.js';

/** Which grant obtains tokens. */
export type ClientGrant =
  | 'authorization_code'
  | 'client_credentials'
  /** RFC 7523 JWT bearer grant; `assertion` yields a fresh JWT (e.g. a workload identity token). */
  | { readonly type: 'jwt_bearer'; readonly assertion: () => Promise<string> };

/** Options of {@link createOAuthClientProvider}. */
export interface OAuthClientProviderOptions extends InsecureOption {
  /** The MCP server URL the transport talks to. */
  serverUrl: string;
  fetch?: FetchLike;
  /** Registrations and tokens (default: a fresh {@link MemoryTokenStore}). */
  store?: TokenStore;
  /** Default `authorization_code`. */
  grant?: ClientGrant;
  /** Redirect URI (authorization code); loopback or HTTPS. */
  redirectUri?: string;
  /** The user-agent seam (authorization code). */
  authorize?: Authorizer;
  /** This client's Client ID Metadata Document URL (used where the AS supports CIMD). */
  clientMetadataUrl?: string;
  /** Metadata for Dynamic Client Registration (`redirect_uris` defaults to `[redirectUri]`). */
  clientMetadata?: ClientMetadata;
  /** Pre-registered credentials keyed by exact issuer. */
  preRegistered?: Readonly<Record<string, PreRegisteredClient>>;
  /** Scopes to ask for when neither a challenge nor earlier tokens name any (default: the PRM's `scopes_supported`). */
  scopes?: readonly string[];
  /** Add `offline_access` when the AS lists it in `scopes_supported` (default true, authorization code only). */
  requestOfflineAccess?: boolean;
  /** Max challenge-driven authorizations per window (default 3). */
  maxAuthorizationAttempts?: number;
  /** The attempt window in ms (default 60 000). */
  attemptWindowMs?: number;
  /** Refresh this many seconds before expiry (default 60). */
  refreshSkewSec?: number;
  /** Pick one of the PRM's authorization servers (default: the first). */
  selectAuthorizationServer?: (issuers: readonly string[]) => string;
  /** DPoP key: token requests carry proofs and DPoP-bound tokens are used with proofs. */
  dpop?: DpopKey;
  /** Clock in ms (default `Date.now`). */
  now?: () => number;
}

/** A challenge seen by the transport. */
export interface ChallengeInput {
  /** HTTP status (401 or 403; anything else is declined). */
  readonly status: number;
  /** The `WWW-Authenticate` header value(s), joined. */
  readonly wwwAuthenticate: string | null;
  /** The URL of the request that was challenged (default: `serverUrl`). */
  readonly resourceUrl?: string;
  /** The `DPoP-Nonce` response header, when any. */
  readonly dpopNonce?: string | null;
  readonly signal?: AbortSignal;
}

/** What the HTTP client transport uses. */
export interface OAuthClientProvider {
  /** The current access token, refreshed when about to expire; `undefined` when none. */
  getAccessToken(): Promise<string | undefined>;
  /**
   * Headers to add to a request: `Authorization: Bearer …`, or for DPoP-bound tokens
   * `Authorization: DPoP …` plus a `DPoP` proof for this method and URL. Empty when no token.
   */
  authorizationHeaders(method: string, url: string): Promise<Record<string, string>>;
  /**
   * Handles a 401/403 challenge. Resolves `true` when the request should be retried with new
   * credentials, `false` when it should fail as is (not an OAuth challenge, retry limit).
   * Rejects with an {@link AuthError} when authorization is impossible or unsafe (resource
   * mismatch, issuer mismatch, PKCE unsupported, `iss`/`state` mismatch...).
   */
  handleChallenge(challenge: ChallengeInput): Promise<boolean>;
  /** Forgets tokens for this server (the registration is kept). */
  clearTokens(): Promise<void>;
}

interface Discovered {
  prm: ResourceMetadata;
  as: AuthorizationServerMetadata;
}

/** Creates the OAuth client for one MCP server. */
export function createOAuthClientProvider(options: OAuthClientProviderOptions): OAuthClientProvider {
  const fetchFn = options.fetch ?? defaultFetch();
  const store = options.store ?? new MemoryTokenStore();
  const grant = options.grant ?? 'authorization_code';
  const now = options.now ?? Date.now;
  const serverUrl = options.serverUrl;
  const insecure: InsecureOption = { [allowInsecureRequests]: options[allowInsecureRequests] === true };
  const maxAttempts = options.maxAuthorizationAttempts ?? 3;
  const windowMs = options.attemptWindowMs ?? 60_000;
  const skewMs = (options.refreshSkewSec ?? 60) * 1000;
  const dpop: DpopProofer | undefined = options.dpop === undefined ? undefined : createDpopProofer(options.dpop, now);
  if (grant === 'authorization_code' && options.redirectUri === undefined) {
    throw new AuthError(AuthErrorCode.Configuration, 'the authorization code grant needs redirectUri');
  }

  let discovered: Discovered | undefined;
  let attempts: { count: number; last: number } = { count: 0, last: 0 };
  /** The access token last obtained by refreshing in answer to a 401 (refresh at most once per token). */
  let refreshedOnChallenge: string | undefined;
  /** The authorization under way: concurrent challenges wait for it instead of starting another (one user agent, one redirect listener). */
  let acquiring: Promise<void> | undefined;

  const context = async (as: AuthorizationServerMetadata, signal?: AbortSignal): Promise<TokenEndpointContext> => {
    const client = await obtainClientRegistration(as, {
      store,
      fetch: fetchFn,
      ...insecure,
      ...(options.preRegistered !== undefined ? { preRegistered: options.preRegistered } : {}),
      ...(options.clientMetadataUrl !== undefined && grant === 'authorization_code' ? { clientMetadataUrl: options.clientMetadataUrl } : {}),
      ...(grant === 'authorization_code'
        ? { clientMetadata: { client_name: 'Switchboard', ...options.clientMetadata, redirect_uris: options.clientMetadata?.redirect_uris ?? [options.redirectUri as string] } }
        : {}),
      ...(signal !== undefined ? { signal } : {}),
    });
    return { metadata: as, client, fetch: fetchFn, now, ...(dpop !== undefined ? { dpop } : {}), ...(signal !== undefined ? { signal } : {}) };
  };

  const save = async (response: TokenResponse, base: { issuer: string; resource: string; requestedScopes: readonly string[]; previousRefresh?: string }): Promise<TokenSet> => {
    const refreshToken = response.refresh_token ?? base.previousRefresh;
    const tokens: TokenSet = {
      accessToken: response.access_token,
      tokenType: response.token_type.toLowerCase() === 'dpop' ? 'DPoP' : 'Bearer',
      requestedScopes: [...base.requestedScopes],
      issuer: base.issuer,
      resource: base.resource,
      ...(response.expires_in !== undefined ? { expiresAt: now() + response.expires_in * 1000 } : {}),
      ...(refreshToken !== undefined ? { refreshToken } : {}),
      ...(response.scope !== undefined ? { grantedScope: response.scope } : {}),
    };
    await store.saveTokens(serverUrl, tokens);
    return tokens;
  };

  const metadataFor = async (issuer: string): Promise<AuthorizationServerMetadata> => {
    if (discovered !== undefined && discovered.as.issuer === issuer) return discovered.as;
    return discoverAuthorizationServer(issuer, { fetch: fetchFn, ...insecure, requirePkce: grant === 'authorization_code' });
  };

  const refresh = async (tokens: TokenSet, signal?: AbortSignal): Promise<TokenSet | undefined> => {
    if (tokens.refreshToken === undefined) return undefined;
    const as = await metadataFor(tokens.issuer);
    const ctx = await context(as, signal);
    try {
      const response = await refreshAccessToken(ctx, { refreshToken: tokens.refreshToken, resource: tokens.resource });
      return await save(response, { issuer: tokens.issuer, resource: tokens.resource, requestedScopes: tokens.requestedScopes, previousRefresh: tokens.refreshToken });
    } catch (error) {
      if (error instanceof AuthError && error.code === AuthErrorCode.InvalidGrant) {
        // The refresh token is dead: drop the tokens, keep the registration.
        await store.deleteTokens(serverUrl);
        return undefined;
      }
      throw error;
    }
  };

  /**
   * One refresh per refresh token at a time: concurrent requests (a call and a listen stream)
   * share it. Two refreshes with one rotated token would look like token theft to the AS, which
   * then revokes the whole family (OAuth 2.1 section 4.3.1).
   */
  let refreshing: { readonly refreshToken: string; readonly result: Promise<TokenSet | undefined> } | undefined;
  const refreshOnce = (tokens: TokenSet, signal?: AbortSignal): Promise<TokenSet | undefined> => {
    const refreshToken = tokens.refreshToken;
    if (refreshToken === undefined) return Promise.resolve(undefined);
    if (refreshing?.refreshToken === refreshToken) return refreshing.result;
    const result = refresh(tokens, signal).finally(() => {
      if (refreshing?.result === result) refreshing = undefined;
    });
    refreshing = { refreshToken, result };
    return result;
  };

  const current = async (): Promise<TokenSet | undefined> => {
    let tokens = await store.getTokens(serverUrl);
    if (tokens === undefined) return undefined;
    if (tokens.expiresAt !== undefined && tokens.expiresAt - skewMs <= now()) {
      tokens = tokens.refreshToken !== undefined ? await refreshOnce(tokens) : undefined;
      if (tokens === undefined) await store.deleteTokens(serverUrl);
    }
    return tokens;
  };

  const selectScopes = (challenged: string[], previous: readonly string[], prm: ResourceMetadata, as: AuthorizationServerMetadata): string[] => {
    let scopes: string[];
    const base = previous.length > 0 ? previous : (options.scopes ?? []);
    if (challenged.length > 0) scopes = unionScopes(base, challenged);
    else if (base.length > 0) scopes = [...base];
    else scopes = [...(prm.scopes_supported ?? [])];
    if (
      grant === 'authorization_code' &&
      (options.requestOfflineAccess ?? true) &&
      scopes.length > 0 &&
      as.scopes_supported?.includes('offline_access') === true
    ) {
      scopes = unionScopes(scopes, ['offline_access']);
    } else if (as.scopes_supported?.includes('offline_access') !== true) {
      scopes = scopes.filter((s) => s !== 'offline_access');
    }
    return scopes;
  };

  const acquire = async (d: Discovered, scopes: string[], signal?: AbortSignal): Promise<void> => {
    const ctx = await context(d.as, signal);
    const base = { issuer: d.as.issuer, resource: d.prm.resource, requestedScopes: scopes };
    if (grant === 'client_credentials') {
      await save(await clientCredentialsGrant(ctx, { resource: d.prm.resource, scopes }), base);
      return;
    }
    if (typeof grant === 'object') {
      await save(await jwtBearerGrant(ctx, { assertion: await grant.assertion(), resource: d.prm.resource, scopes }), base);
      return;
    }
    if (options.authorize === undefined) {
      throw new AuthError(AuthErrorCode.InteractionRequired, 'authorization needed but no authorizer is configured');
    }
    const redirectUri = options.redirectUri as string;
    const pending = await createAuthorizationRequest(d.as, { clientId: ctx.client.clientId, redirectUri, resource: d.prm.resource, scopes });
    const response = await options.authorize(pending.url, { redirectUri, ...(signal !== undefined ? { signal } : {}) });
    const code = validateAuthorizationResponse(pending, response);
    const tokenResponse = await exchangeAuthorizationCode(ctx, { code, codeVerifier: pending.codeVerifier, redirectUri, resource: pending.resource });
    await save(tokenResponse, base);
  };

  return {
    async getAccessToken() {
      return (await current())?.accessToken;
    },

    async authorizationHeaders(method, url) {
      const tokens = await current();
      if (tokens === undefined) return {};
      if (tokens.tokenType === 'DPoP' && dpop !== undefined) {
        return { authorization: `DPoP ${tokens.accessToken}`, dpop: await dpop.proof(method, url, tokens.accessToken) };
      }
      return { authorization: `Bearer ${tokens.accessToken}` };
    },

    async clearTokens() {
      await store.deleteTokens(serverUrl);
    },

    async handleChallenge(input) {
      if (input.status !== 401 && input.status !== 403) return false;
      const challenges = parseWwwAuthenticate(input.wwwAuthenticate);
      const challenge = findChallenge(challenges, 'Bearer') ?? findChallenge(challenges, 'DPoP');
      const params = challenge?.params ?? {};
      if (dpop !== undefined && params['error'] === 'use_dpop_nonce') {
        return dpop.setNonce(input.resourceUrl ?? serverUrl, input.dpopNonce);
      }
      if (input.status === 403 && params['error'] !== 'insufficient_scope') return false;

      const { metadata: prm } = await discoverProtectedResource(serverUrl, params['resource_metadata'], {
        fetch: fetchFn,
        ...insecure,
        ...(input.signal !== undefined ? { signal: input.signal } : {}),
      });
      const issuer = (options.selectAuthorizationServer ?? ((list: readonly string[]) => list[0] as string))(prm.authorization_servers);
      if (!prm.authorization_servers.includes(issuer)) {
        throw new AuthError(AuthErrorCode.Configuration, 'selectAuthorizationServer returned an issuer the resource does not list');
      }
      const as = await discoverAuthorizationServer(issuer, {
        fetch: fetchFn,
        ...insecure,
        requirePkce: grant === 'authorization_code',
        ...(input.signal !== undefined ? { signal: input.signal } : {}),
      });
      discovered = { prm, as };

      let tokens = await store.getTokens(serverUrl);
      if (tokens !== undefined && (tokens.issuer !== as.issuer || tokens.resource !== prm.resource)) {
        // Authorization server migration: tokens from the former AS are never sent again.
        await store.deleteTokens(serverUrl);
        tokens = undefined;
      }
      const challenged = parseScope(params['scope']);
      const previous = tokens?.requestedScopes ?? [];

      if (input.status === 401 && tokens?.refreshToken !== undefined && refreshedOnChallenge !== tokens.accessToken) {
        const covered = challenged.every((s) => previous.includes(s));
        if (covered) {
          const renewed = await refreshOnce(tokens, input.signal);
          if (renewed !== undefined) {
            refreshedOnChallenge = renewed.accessToken;
            return true;
          }
        }
      }

      if (acquiring !== undefined) {
        try {
          await acquiring;
          return true;
        } catch {
          return false;
        }
      }
      const t = now();
      if (t - attempts.last > windowMs) attempts = { count: 0, last: t };
      if (attempts.count >= maxAttempts) return false;
      attempts = { count: attempts.count + 1, last: t };

      acquiring = acquire(discovered, selectScopes(challenged, previous, prm, as), input.signal);
      try {
        await acquiring;
      } finally {
        acquiring = undefined;
      }
      return true;
    },
  };
}
