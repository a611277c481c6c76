/**
 * `auth: "per-user"`: each principal signs in to a remote server once, and its calls carry its
 * own tokens (a {@link DownstreamCredentials} over a {@link ConnectionStore}).
 *
 * The flow, authorization code + PKCE (S256) against the server's own authorization server
 * (found through its Protected Resource Metadata), with the redirect to the gateway's callback:
 *
 * 1. A call from a principal with no connection is answered with a *sign-in link*: a gateway
 *    URL `<gateway>/oauth/start/<id>` (never the authorization server's URL), recorded as a
 *    {@link PendingSignIn} under `<id>` for that principal (one use, {@link SIGN_IN_LINK_TTL_MS}).
 *    The gateway hands it to the person through a URL-mode elicitation.
 * 2. Whoever opens the link must prove, in that browser, that they are the principal it was
 *    made for (their own gateway credential, {@link PerUserSignIn.start}). This is the spec's
 *    phishing rule for URL elicitation: the user who completes the flow must be the user the
 *    elicitation was made for, or a link an attacker forwards attaches the victim's account
 *    to the attacker. The link is then spent, whoever opened it.
 * 3. The gateway makes the authorization request with a fresh PKCE verifier and a `state` that
 *    is the SHA-256 of a random value set in that browser as an HttpOnly, `SameSite=Lax`
 *    cookie scoped to the callback path: the callback is accepted only from the browser that
 *    started it (a code and state copied elsewhere are useless), once, before it expires.
 * 4. The callback redeems the code and stores the tokens under (principal, server identity).
 *
 * Renewal: a refresh, single-flight through {@link ConnectionStore.refreshOnce}; a refusal or
 * no refresh token removes the connection (the next call asks for a sign-in again).
 *
 * The gateway's own client at the authorization server (a pre-registered `clientId`, else a
 * dynamic registration, RFC 7591) is kept in the connection store under (issuer, redirect
 * URI) through {@link ConnectionStore.registerOnce}: a restarted gateway, or another instance
 * sharing the store, refreshes with the client the refresh token was issued to.
 *
 * Tenants: a connection records the tenant of the principal that made it (`tenantOf`, from
 * `gateway.auth.oauth.tenantClaim`) and is used only for a principal of that same tenant; a
 * principal with the same id under another tenant is asked to sign in, and a link is opened
 * only by a person of the tenant it was made for.
 *
 * @see https://modelcontextprotocol.io/specification/2025-11-25/client/elicitation#phishing
 * @see https://modelcontextprotocol.io/specification/2025-11-25/basic/authorization
 * @see https://www.rfc-editor.org/rfc/rfc9700#section-4.7 (CSRF protection of the redirect)
 * @see https://www.rfc-editor.org/rfc/rfc7591 (dynamic client registration)
 * @module
 */
import { createAuthorizationRequest, parseAuthorizationResponse, validateAuthorizationResponse } from '../auth/client/authorization.js';
import { discoverAuthorizationServer, discoverProtectedResource, type AuthorizationServerMetadata } from '../auth/client/discovery.js';
import { codeChallengeS256 } from '../auth/client/pkce.js';
import { obtainClientRegistration } from '../auth/client/registration.js';
import { exchangeAuthorizationCode, refreshAccessToken, type TokenEndpointContext, type TokenResponse } from '../auth/client/tokenEndpoint.js';
import { MemoryTokenStore, type ClientRegistration, type TokenSet } from '../auth/client/tokenStore.js';
import { allowInsecureRequests, randomToken, timingSafeEqual, type FetchLike } from '../auth/http.js';
import type { Principal } from '../transport/principal.js';
import { canonicalServerUrl } from './canonicalServerUrl.js';
import type { Connection, ConnectionStore, CredentialAnswer, DownstreamCredentials, PendingSignIn } from './connections.js';

/** How long a sign-in link, then its authorization request, stays usable: 10 minutes. */
export const SIGN_IN_LINK_TTL_MS = 10 * 60_000;
/** The path prefix of sign-in links on the gateway's listener. */
export const SIGN_IN_START_PATH = '/oauth/start/';
/** The path of the gateway's OAuth redirect URI. */
export const SIGN_IN_CALLBACK_PATH = '/oauth/callback';
/** Tokens this close to expiry are refreshed before use. */
const EXPIRY_MARGIN_MS = 30_000;

/** Options of {@link PerUserSignIn}. */
export interface PerUserSignInOptions {
  /** The server's config id (display) and the URL the gateway talks to. */
  readonly serverId: string;
  readonly serverUrl: string;
  /** Where connections, pending sign-ins and the gateway's client registrations live. */
  readonly store: ConnectionStore;
  /** The gateway's public origin (and base path), e.g. `https://gw.example.com`: links and the redirect URI are made under it. */
  readonly gatewayUrl: string;
  /** A pre-registered client id (its redirect URIs must include the gateway's callback); else dynamic registration. */
  readonly clientId?: string;
  readonly scopes?: readonly string[];
  /** The caller's tenant (`gateway.auth.oauth.tenantClaim`); default none. */
  readonly tenantOf?: (principal: Principal) => string | undefined;
  readonly fetch?: FetchLike;
  readonly now?: () => number;
  /** Plain http to loopback authorization servers (development, tests). */
  readonly [allowInsecureRequests]?: boolean;
}

/** What the start of a sign-in answers: a redirect with its cookie, or a refusal. */
export type StartAnswer = { readonly ok: true; readonly location: string; readonly cookie: { readonly name: string; readonly value: string; readonly path: string; readonly maxAgeSec: number } } | { readonly ok: false; readonly status: 400 | 401 | 403 | 410; readonly error: string };

/** What a callback answers. */
export type CallbackAnswer = { readonly ok: true; readonly serverId: string; readonly principal: string; readonly cookieName: string } | { readonly ok: false; readonly status: 400 | 403 | 502; readonly error: string; readonly cookieName?: string };

/** The cookie that binds the callback of `state` to the browser that started it. */
export function signInCookieName(state: string): string {
  return `sb_signin_${state.slice(0, 16).replace(/[^A-Za-z0-9_-]/g, '')}`;
}

/** The per-user credentials of one remote server. */
export class PerUserSignIn implements DownstreamCredentials {
  readonly mode = 'per-user' as const;
  readonly #o: PerUserSignInOptions;
  readonly #identity: string;
  readonly #fetch: FetchLike;
  readonly #now: () => number;
  readonly #insecure: boolean;
  #as: Promise<{ metadata: AuthorizationServerMetadata; resource: string; scopes: readonly string[] }> | undefined;

  constructor(options: PerUserSignInOptions) {
    this.#o = options;
    this.#identity = canonicalServerUrl(options.serverUrl);
    this.#fetch = options.fetch ?? ((input, init) => fetch(input, init));
    this.#now = options.now ?? Date.now;
    this.#insecure = options[allowInsecureRequests] === true;
  }

  /** The server's identity (the key of its connections). */
  get identity(): string {
    return this.#identity;
  }

  /** The server's config id. */
  get serverId(): string {
    return this.#o.serverId;
  }

  /** The gateway's redirect URI. */
  get redirectUri(): string {
    return new URL(SIGN_IN_CALLBACK_PATH.slice(1), withSlash(this.#o.gatewayUrl)).href;
  }

  async credentialFor(principal: Principal): Promise<CredentialAnswer> {
    const key = { principal: principal.id, server: this.#identity };
    const stored = await this.#o.store.get(key);
    // Made under another tenant (the same id in another tenant may be another person): never used, a sign-in instead.
    const connection = stored !== undefined && stored.tenant === this.#tenant(principal) ? stored : undefined;
    if (connection !== undefined) {
      const expiresAt = connection.tokens.expiresAt;
      if (expiresAt === undefined || expiresAt - EXPIRY_MARGIN_MS > this.#now()) return { kind: 'token', connection };
      const renewed = await this.renew(principal, connection);
      if (renewed !== undefined) return { kind: 'token', connection: renewed };
    }
    return this.#link(principal);
  }

  async renew(principal: Principal, stale: Connection): Promise<Connection | undefined> {
    const key = { principal: principal.id, server: this.#identity };
    if (stale.tenant !== this.#tenant(principal)) return undefined;
    if (stale.tokens.refreshToken === undefined) {
      await this.#o.store.revoke(key);
      return undefined;
    }
    try {
      const renewed = await this.#o.store.refreshOnce(key, stale.tokens.accessToken, async (current) => {
        const refreshToken = current.tokens.refreshToken;
        if (refreshToken === undefined) throw new Error('no refresh token');
        const response = await this.#atTokenEndpoint((ctx) => refreshAccessToken(ctx, { refreshToken, resource: current.tokens.resource }));
        return tokenSet(response, current.tokens, this.#now(), refreshToken);
      });
      // The same token back means the server refused a fresh one: sign in again.
      if (renewed === undefined || renewed.tokens.accessToken === stale.tokens.accessToken) throw new Error('not renewed');
      return renewed;
    } catch {
      await this.#o.store.revoke(key);
      return undefined;
    }
  }

  #tenant(principal: Principal): string | undefined {
    return this.#o.tenantOf?.(principal);
  }

  /** A new sign-in link for `principal` (step 1). */
  async #link(principal: Principal): Promise<CredentialAnswer> {
    const id = randomToken(32);
    const tenant = this.#tenant(principal);
    await this.#o.store.beginSignIn({
      state: id,
      principal: principal.id,
      ...(tenant !== undefined ? { tenant } : {}),
      server: this.#identity,
      serverId: this.#o.serverId,
      // A link, not an authorization request: no verifier, so its id can never be redeemed as a state.
      codeVerifier: '',
      redirectUri: this.redirectUri,
      issuer: '',
      requestedScopes: this.#o.scopes ?? [],
      expiresAt: this.#now() + SIGN_IN_LINK_TTL_MS,
    });
    return {
      kind: 'sign-in',
      url: new URL(`${SIGN_IN_START_PATH.slice(1)}${id}`, withSlash(this.#o.gatewayUrl)).href,
      elicitationId: randomToken(16),
      message: `Sign in to ${this.#o.serverId} so that Switchboard calls it as you (the link is for you alone and works once, for ${SIGN_IN_LINK_TTL_MS / 60_000} minutes).`,
    };
  }

  /**
   * Step 2 and 3 for the link `pending` (already taken from the store), opened by a browser
   * whose person proved to be `opener`: the authorization request and the cookie binding it.
   */
  async start(pending: PendingSignIn, opener: Principal): Promise<StartAnswer> {
    if (pending.codeVerifier !== '') return { ok: false, status: 410, error: 'this sign-in link is unknown, used or expired' };
    if (pending.principal !== opener.id || pending.tenant !== this.#tenant(opener)) return { ok: false, status: 403, error: 'this sign-in link was made for another gateway user: ask your own client for a new one' };
    const as = await this.#authorizationServer();
    const client = await this.#registration(as.metadata);
    const request = await createAuthorizationRequest(as.metadata, { clientId: client.clientId, redirectUri: this.redirectUri, resource: as.resource, scopes: pending.requestedScopes.length > 0 ? pending.requestedScopes : as.scopes });
    const secret = randomToken(32);
    const state = await codeChallengeS256(secret);
    request.url.searchParams.set('state', state);
    await this.#o.store.beginSignIn({ ...pending, state, codeVerifier: request.codeVerifier, issuer: as.metadata.issuer, requestedScopes: request.scopes, expiresAt: this.#now() + SIGN_IN_LINK_TTL_MS });
    return { ok: true, location: request.url.href, cookie: { name: signInCookieName(state), value: secret, path: SIGN_IN_CALLBACK_PATH, maxAgeSec: SIGN_IN_LINK_TTL_MS / 1000 } };
  }

  /** Step 4: redeems the code of the callback `query` for `pending` (taken from the store, its cookie checked). */
  async complete(pending: PendingSignIn, query: string): Promise<CallbackAnswer> {
    const as = await this.#authorizationServer();
    let code: string;
    try {
      const response = parseAuthorizationResponse(`${this.redirectUri}?${query}`);
      code = validateAuthorizationResponse(
        {
          url: new URL(this.redirectUri),
          state: pending.state,
          codeVerifier: pending.codeVerifier,
          issuer: pending.issuer,
          issParameterSupported: as.metadata.authorization_response_iss_parameter_supported === true,
          redirectUri: pending.redirectUri,
          resource: as.resource,
          scopes: pending.requestedScopes,
        },
        response,
      );
    } catch (error) {
      return { ok: false, status: 400, error: `the sign-in was refused: ${error instanceof Error ? error.message : String(error)}` };
    }
    let response: TokenResponse;
    try {
      response = await this.#atTokenEndpoint((ctx) => exchangeAuthorizationCode(ctx, { code, codeVerifier: pending.codeVerifier, redirectUri: pending.redirectUri, resource: as.resource }));
    } catch (error) {
      return { ok: false, status: 502, error: `the authorization server did not issue tokens: ${error instanceof Error ? error.message : String(error)}` };
    }
    const now = this.#now();
    const tokens = tokenSet(response, { requestedScopes: pending.requestedScopes, issuer: as.metadata.issuer, resource: as.resource }, now);
    const existing = await this.#o.store.get({ principal: pending.principal, server: this.#identity });
    await this.#o.store.put({
      principal: pending.principal,
      server: this.#identity,
      serverId: this.#o.serverId,
      ...(pending.tenant !== undefined ? { tenant: pending.tenant } : {}),
      mode: 'per-user',
      tokens,
      createdAt: existing?.createdAt ?? now,
      updatedAt: now,
    });
    return { ok: true, serverId: this.#o.serverId, principal: pending.principal, cookieName: signInCookieName(pending.state) };
  }

  /** Whether `cookie` (the raw value) is the secret `state` was made from. */
  static async boundTo(state: string, cookie: string | undefined): Promise<boolean> {
    if (cookie === undefined || cookie === '') return false;
    return timingSafeEqual(await codeChallengeS256(cookie), state);
  }

  #authorizationServer(): Promise<{ metadata: AuthorizationServerMetadata; resource: string; scopes: readonly string[] }> {
    this.#as ??= (async () => {
      const discovery = { fetch: this.#fetch, [allowInsecureRequests]: this.#insecure };
      const prm = await discoverProtectedResource(this.#o.serverUrl, undefined, discovery);
      const issuer = prm.metadata.authorization_servers[0] as string;
      const metadata = await discoverAuthorizationServer(issuer, discovery);
      return { metadata, resource: prm.metadata.resource, scopes: this.#o.scopes ?? prm.metadata.scopes_supported ?? [] };
    })();
    // A failed discovery is tried again on the next sign-in.
    this.#as.catch(() => (this.#as = undefined));
    return this.#as;
  }

  /** The configured client, else the registration stored for (issuer, redirect URI), registered once when there is none. */
  #registration(metadata: AuthorizationServerMetadata): Promise<ClientRegistration> {
    const obtain = (): Promise<ClientRegistration> =>
      obtainClientRegistration(metadata, {
        // Nothing kept here: the connection store keeps the dynamic one, the config the pre-registered one.
        store: new MemoryTokenStore(),
        fetch: this.#fetch,
        [allowInsecureRequests]: this.#insecure,
        ...(this.#o.clientId !== undefined ? { preRegistered: { [metadata.issuer]: { clientId: this.#o.clientId } } } : {}),
        clientMetadata: { client_name: 'Switchboard', redirect_uris: [this.redirectUri], grant_types: ['authorization_code', 'refresh_token'], response_types: ['code'], token_endpoint_auth_method: 'none' },
      });
    if (this.#o.clientId !== undefined) return obtain();
    return this.#o.store.registerOnce({ issuer: metadata.issuer, redirectUri: this.redirectUri }, obtain);
  }

  /**
   * `request` at the token endpoint with the gateway's client. An `invalid_client` answer for a
   * dynamic registration (the authorization server forgot it) drops the stored one, so the next
   * sign-in registers again instead of failing for good.
   */
  async #atTokenEndpoint<T>(request: (ctx: TokenEndpointContext) => Promise<T>): Promise<T> {
    const as = await this.#authorizationServer();
    const client = await this.#registration(as.metadata);
    try {
      return await request({ metadata: as.metadata, client, fetch: this.#fetch, now: this.#now });
    } catch (error) {
      const cause = error instanceof Error ? (error.cause as { error?: unknown } | undefined) : undefined;
      if (client.source === 'dcr' && cause?.error === 'invalid_client') await this.#o.store.forgetRegistration({ issuer: as.metadata.issuer, redirectUri: this.redirectUri }, client.clientId);
      throw error;
    }
  }
}

function withSlash(url: string): string {
  return url.endsWith('/') ? url : `${url}/`;
}

/** The {@link TokenSet} of a token response (a refresh keeps the old refresh token when none is returned). */
function tokenSet(response: TokenResponse, base: Pick<TokenSet, 'requestedScopes' | 'issuer' | 'resource'>, now: number, refreshToken?: string): TokenSet {
  const refresh = response.refresh_token ?? refreshToken;
  return {
    accessToken: response.access_token,
    tokenType: response.token_type,
    ...(response.expires_in !== undefined ? { expiresAt: now + response.expires_in * 1000 } : {}),
    ...(refresh !== undefined ? { refreshToken: refresh } : {}),
    ...(response.scope !== undefined ? { grantedScope: response.scope } : {}),
    requestedScopes: base.requestedScopes,
    issuer: base.issuer,
    resource: base.resource,
  };
}
