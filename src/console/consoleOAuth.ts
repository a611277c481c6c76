/**
 * "Sign in with <issuer>": a person's console sign-in at the gateway's inbound authorization
 * server (`gateway.auth.oauth`), ending in a `person` session (`consoleSession.ts`) for the
 * principal the gateway's MCP endpoint would see for that person.
 *
 * The console is an OAuth client of that authorization server (the auth layer's client parts):
 * authorization code with PKCE S256, `resource` = the gateway's own resource (RFC 8707), and a
 * redirect URI under the console (`/console/oauth/callback` on the origin the page was opened
 * on). The client is `gateway.auth.oauth.console.clientId` (and its secret), else one registered
 * dynamically (RFC 7591) when the server offers it.
 *
 * - The `state` is the SHA-256 of a random value set in the browser that started the sign-in
 *   as an HttpOnly, `SameSite=Lax` cookie scoped to the callback path: the callback is accepted
 *   only from that browser (a copied or forged callback is refused before anything is spent),
 *   once, within {@link CONSOLE_SIGN_IN_TTL_MS}.
 * - The access token is verified by the gateway's own inbound verifier (issuer, signature,
 *   audience, expiry): a token minted for another audience is refused. Only the principal is
 *   kept; the token (and any refresh token) is dropped at once.
 *
 * @see https://www.rfc-editor.org/rfc/rfc9700#section-4.7 (CSRF protection of the redirect)
 * @see https://datatracker.ietf.org/doc/html/rfc8707
 * @module
 */
import { createAuthorizationRequest, parseAuthorizationResponse, validateAuthorizationResponse } from '../auth/client/authorization.js';
import { discoverAuthorizationServer, type AuthorizationServerMetadata } from '../auth/client/discovery.js';
import { codeChallengeS256 } from '../auth/client/pkce.js';
import { obtainClientRegistration } from '../auth/client/registration.js';
import { exchangeAuthorizationCode, selectTokenEndpointAuthMethod } from '../auth/client/tokenEndpoint.js';
import { MemoryTokenStore, type ClientRegistration } from '../auth/client/tokenStore.js';
import { allowInsecureRequests, randomToken, timingSafeEqual, type FetchLike } from '../auth/http.js';
import type { Principal } from '../transport/principal.js';
import { describeError } from '../util/errors.js';
import type { ConsolePrincipal } from './consoleSession.js';

/** The console's OAuth redirect path. */
export const CONSOLE_OAUTH_CALLBACK = '/console/oauth/callback';
/** The cookie that binds a callback to the browser that started the sign-in. */
export const CONSOLE_OAUTH_COOKIE = 'sb_console_signin';
/** How long a started sign-in may take: 10 minutes. */
export const CONSOLE_SIGN_IN_TTL_MS = 10 * 60_000;
/** Sign-ins in progress kept at most (the oldest is dropped). */
const MAX_PENDING = 256;

/** Options of {@link ConsoleOAuth}. */
export interface ConsoleOAuthOptions {
  /** The inbound authorization server's issuer (`gateway.auth.oauth.issuer`). */
  readonly issuer: string;
  /** The gateway's resource (its Protected Resource Metadata `resource`): requested as `resource`. */
  readonly resource: string;
  /** Verifies an access token as the gateway's MCP endpoint does: its principal, or undefined. */
  readonly identify: (token: string) => Promise<Principal | undefined>;
  /** The claim naming the principal's tenant (`gateway.auth.oauth.tenantClaim`). */
  readonly tenantClaim?: string | undefined;
  /** A pre-registered client (`gateway.auth.oauth.console`); else dynamic registration. */
  readonly client?: { readonly clientId: string; readonly clientSecret?: string | undefined } | undefined;
  /** Scopes to request (default: none named). */
  readonly scopes?: readonly string[] | undefined;
  readonly fetch?: FetchLike;
  readonly now?: () => number;
  /** Plain http to a loopback authorization server (development, tests). */
  readonly [allowInsecureRequests]?: boolean;
}

/** A started sign-in: where the browser goes, and the cookie that binds its callback. */
export type ConsoleOAuthStart =
  | { readonly ok: true; readonly location: string; readonly cookie: { readonly name: string; readonly value: string; readonly path: string; readonly maxAgeSec: number } }
  | { readonly ok: false; readonly status: 502; readonly error: string };

/** A callback's outcome: the principal, or the refusal (never a token). */
export type ConsoleOAuthCallback = { readonly ok: true; readonly principal: ConsolePrincipal; /** Whether the console was opened over https (the session cookie is then `Secure`). */ readonly secure: boolean } | { readonly ok: false; readonly status: 400 | 403 | 502; readonly error: string };

interface Pending {
  readonly codeVerifier: string;
  readonly redirectUri: string;
  readonly scopes: readonly string[];
  readonly expiresAt: number;
}

/** The console's sign-in at the inbound authorization server. */
export class ConsoleOAuth {
  readonly #o: ConsoleOAuthOptions;
  readonly #fetch: FetchLike;
  readonly #now: () => number;
  readonly #insecure: boolean;
  readonly #pending = new Map<string, Pending>();
  readonly #clients = new Map<string, Promise<ClientRegistration>>();
  #metadata: Promise<AuthorizationServerMetadata> | undefined;

  constructor(options: ConsoleOAuthOptions) {
    this.#o = options;
    this.#fetch = options.fetch ?? ((input, init) => fetch(input, init));
    this.#now = options.now ?? Date.now;
    this.#insecure = options[allowInsecureRequests] === true;
  }

  /** The issuer people sign in with (shown on the sign-in page). */
  get issuer(): string {
    return this.#o.issuer;
  }

  /** Starts a sign-in for a page on `origin` (`http(s)://host[:port]`, already checked by the console). */
  async start(origin: string): Promise<ConsoleOAuthStart> {
    const redirectUri = new URL(CONSOLE_OAUTH_CALLBACK, origin).href;
    try {
      const metadata = await this.#authorizationServer();
      const client = await this.#registration(metadata, redirectUri);
      const request = await createAuthorizationRequest(metadata, { clientId: client.clientId, redirectUri, resource: this.#o.resource, scopes: this.#o.scopes ?? [] });
      const secret = randomToken(32);
      const state = await codeChallengeS256(secret);
      request.url.searchParams.set('state', state);
      this.#remember(state, { codeVerifier: request.codeVerifier, redirectUri, scopes: request.scopes, expiresAt: this.#now() + CONSOLE_SIGN_IN_TTL_MS });
      return { ok: true, location: request.url.href, cookie: { name: CONSOLE_OAUTH_COOKIE, value: secret, path: CONSOLE_OAUTH_CALLBACK, maxAgeSec: CONSOLE_SIGN_IN_TTL_MS / 1000 } };
    } catch (error) {
      return { ok: false, status: 502, error: `the sign-in with ${this.#o.issuer} could not start: ${describeError(error)}` };
    }
  }

  /**
   * The callback (`query` of `/console/oauth/callback`) in a browser whose binding cookie is
   * `cookie`: checked before the sign-in is taken (a copied callback neither works nor spends
   * it), then the code is redeemed and the access token verified; only the principal is kept.
   */
  async complete(query: string, cookie: string | undefined): Promise<ConsoleOAuthCallback> {
    const state = new URLSearchParams(query).get('state');
    if (state === null || state === '') return { ok: false, status: 400, error: 'the answer carries no state' };
    if (cookie === undefined || cookie === '' || cookie.length > 200 || !timingSafeEqual(await codeChallengeS256(cookie), state)) {
      return { ok: false, status: 403, error: 'this sign-in was not started in this browser' };
    }
    const pending = this.#pending.get(state);
    this.#pending.delete(state);
    if (pending === undefined || pending.expiresAt <= this.#now()) return { ok: false, status: 400, error: 'this sign-in is unknown, used or expired: start again' };
    let code: string;
    let metadata: AuthorizationServerMetadata;
    try {
      metadata = await this.#authorizationServer();
      const response = parseAuthorizationResponse(`${pending.redirectUri}?${query}`);
      code = validateAuthorizationResponse(
        { url: new URL(pending.redirectUri), state, codeVerifier: pending.codeVerifier, issuer: metadata.issuer, issParameterSupported: metadata.authorization_response_iss_parameter_supported === true, redirectUri: pending.redirectUri, resource: this.#o.resource, scopes: pending.scopes },
        response,
      );
    } catch (error) {
      return { ok: false, status: 400, error: `the sign-in was refused: ${describeError(error)}` };
    }
    let accessToken: string;
    try {
      const client = await this.#registration(metadata, pending.redirectUri);
      const tokens = await exchangeAuthorizationCode({ metadata, client, fetch: this.#fetch, now: this.#now }, { code, codeVerifier: pending.codeVerifier, redirectUri: pending.redirectUri, resource: this.#o.resource });
      accessToken = tokens.access_token;
    } catch (error) {
      return { ok: false, status: 502, error: `${this.#o.issuer} did not issue a token: ${describeError(error)}` };
    }
    // The gateway's own verifier decides who this is (audience, issuer, signature, expiry); the token is not kept.
    const principal = await this.#o.identify(accessToken);
    if (principal === undefined) return { ok: false, status: 403, error: `the token from ${this.#o.issuer} is not one this gateway accepts (wrong audience, issuer or expired)` };
    const claim = this.#o.tenantClaim === undefined ? undefined : principal.auth?.claims[this.#o.tenantClaim];
    const tenant = typeof claim === 'string' && claim !== '' ? claim : undefined;
    return { ok: true, principal: { id: principal.id, ...(tenant !== undefined ? { tenant } : {}), issuer: principal.auth?.issuer ?? this.#o.issuer }, secure: pending.redirectUri.startsWith('https:') };
  }

  #remember(state: string, pending: Pending): void {
    const now = this.#now();
    for (const [key, p] of this.#pending) if (p.expiresAt <= now) this.#pending.delete(key);
    if (this.#pending.size >= MAX_PENDING) {
      const oldest = this.#pending.keys().next().value;
      if (oldest !== undefined) this.#pending.delete(oldest);
    }
    this.#pending.set(state, pending);
  }

  #authorizationServer(): Promise<AuthorizationServerMetadata> {
    this.#metadata ??= discoverAuthorizationServer(this.#o.issuer, { fetch: this.#fetch, [allowInsecureRequests]: this.#insecure });
    // A failed discovery is tried again on the next sign-in.
    this.#metadata.catch(() => (this.#metadata = undefined));
    return this.#metadata;
  }

  /** The client for `redirectUri`: the configured one, else one registered for that redirect URI. */
  #registration(metadata: AuthorizationServerMetadata, redirectUri: string): Promise<ClientRegistration> {
    const configured = this.#o.client;
    if (configured !== undefined) {
      const secret = configured.clientSecret;
      return Promise.resolve({ issuer: metadata.issuer, clientId: configured.clientId, tokenEndpointAuthMethod: selectTokenEndpointAuthMethod(metadata, secret !== undefined), source: 'pre-registered', ...(secret !== undefined ? { clientSecret: secret } : {}) });
    }
    let client = this.#clients.get(redirectUri);
    if (client === undefined) {
      if (metadata.registration_endpoint === undefined) return Promise.reject(new Error(`${metadata.issuer} offers no dynamic client registration: set gateway.auth.oauth.console.clientId`));
      client = obtainClientRegistration(metadata, {
        store: new MemoryTokenStore(),
        fetch: this.#fetch,
        [allowInsecureRequests]: this.#insecure,
        clientMetadata: { client_name: 'Switchboard console', redirect_uris: [redirectUri], grant_types: ['authorization_code'], response_types: ['code'], token_endpoint_auth_method: 'none' },
      });
      this.#clients.set(redirectUri, client);
      client.catch(() => this.#clients.delete(redirectUri));
    }
    return client;
  }
}
