/**
 * The `token-exchange` downstream auth mode: each caller's own authority, obtained by an
 * RFC 8693 token exchange ({@link https://datatracker.ietf.org/doc/html/rfc8693 | RFC 8693}) at
 * the configured authorization server, the caller's inbound access token as `subject_token`,
 * the downstream server's canonical URL as `resource`
 * ({@link https://datatracker.ietf.org/doc/html/rfc8707 | RFC 8707}: the issued token is good at
 * that server alone) and the narrowest configured scopes: a call of a tool listed in `toolScopes`
 * asks for exactly that tool's scopes, any other request for the server's `scopes`.
 *
 * - The inbound token is read only through the auth layer's capability (`subjectTokenOf`,
 *   filled by a front door verifier created with `exchangeable: true`); it goes to the AS's token
 *   endpoint and nowhere else (no token passthrough:
 *   {@link https://modelcontextprotocol.io/specification/2025-11-25/basic/security_best_practices#token-passthrough}).
 * - The issued token is cached as the principal's {@link Connection} (mode `token-exchange`) in
 *   the {@link ConnectionStore} until it is about to expire, one per scope set: the default set
 *   under the server's identity, a tool's own set under {@link scopedServerKey} (so a read tool's
 *   call never carries a write tool's token, and every store and instance keeps them apart with
 *   no schema change); a renewal (expiry, or a 401 from
 *   the server through {@link DownstreamCredentials.renew}) re-exchanges through
 *   {@link ConnectionStore.refreshOnce}, so concurrent calls on every instance sharing the store
 *   exchange once; so does a principal's first exchange ({@link ConnectionStore.connectOnce}).
 * - A principal whose inbound token cannot be exchanged (a named static token, a front door that
 *   keeps no subject tokens) gets {@link CredentialUnavailableError}, never a sign-in prompt.
 *
 * @module
 */
import { discoverAuthorizationServer, type AuthorizationServerMetadata } from '../auth/client/discovery.js';
import { selectTokenEndpointAuthMethod, type TokenEndpointContext } from '../auth/client/tokenEndpoint.js';
import { exchangeToken } from '../auth/client/tokenExchange.js';
import type { ClientRegistration, TokenEndpointAuthMethod, TokenSet } from '../auth/client/tokenStore.js';
import { allowInsecureRequests, defaultFetch, requireUrl, type FetchLike, type InsecureOption } from '../auth/http.js';
import { subjectTokenOf } from '../auth/resource/subjectToken.js';
import type { Principal } from '../transport/principal.js';
import { McpError, McpErrorCode } from '../util/errors.js';
import { scopedServerKey, type Connection, type ConnectionKey, type ConnectionStore, type CredentialAnswer, type DownstreamCredentials } from './connections.js';

/**
 * Where and how to exchange (what `servers.<id>.auth: { "mode": "token-exchange", … }` holds).
 * Give `issuer` (its token endpoint is discovered, RFC 8414) or `tokenEndpoint`, or both.
 */
export interface TokenExchangeOptions extends InsecureOption {
  /** The authorization server's issuer identifier. */
  readonly issuer?: string;
  /** The token endpoint (skips discovery). */
  readonly tokenEndpoint?: string;
  /** The gateway's client id at that AS. */
  readonly clientId: string;
  /** Its secret (a confidential client); without one the client authenticates as `none`. */
  readonly clientSecret?: string;
  /** Default: `client_secret_basic` (or `_post` when the AS supports only that) with a secret, `none` without. */
  readonly tokenEndpointAuthMethod?: TokenEndpointAuthMethod;
  /** The scopes to ask for (every request but the calls of a tool in {@link toolScopes}). Default: none (the AS decides). */
  readonly scopes?: readonly string[];
  /** A tool's own name to the scopes its calls ask for instead of {@link scopes}: the narrowest that tool needs. */
  readonly toolScopes?: Readonly<Record<string, readonly string[]>>;
  /** The `resource` to ask for. Default: the server's canonical URL. */
  readonly resource?: string;
  /** An `audience` to ask for as well (an AS that names services logically). */
  readonly audience?: string;
}

/** What a {@link TokenExchangeCredentials} serves and where it keeps connections. */
export interface TokenExchangeCredentialsInit {
  /** The server's identity: its canonical URL (`ConnectionKey.server`, the default `resource`). */
  readonly server: string;
  /** The server's config id (display only). */
  readonly serverId: string;
  readonly options: TokenExchangeOptions;
  readonly store: ConnectionStore;
  readonly fetch?: FetchLike;
  /** Clock (ms since the epoch). */
  readonly now?: () => number;
  /** The caller's tenant (`gateway.auth.oauth.tenantClaim`): a connection is used only under the tenant it was made under. */
  readonly tenantOf?: (principal: Principal) => string | undefined;
  /** Re-exchange this long before the issued token expires (default 30 s). */
  readonly renewBeforeMs?: number;
}

/** The caller has no credential this server can use, and no sign-in would give one. */
export class CredentialUnavailableError extends McpError {
  /** The server's config id. */
  readonly serverId: string;
  constructor(serverId: string, message: string, options?: { cause?: unknown }) {
    super(McpErrorCode.CredentialUnavailable, message, options);
    this.serverId = serverId;
  }
}

/** The scopes one exchange asks for and the {@link ConnectionKey.server} its token is kept under. */
interface ScopeSet {
  readonly key: string;
  readonly scopes: readonly string[] | undefined;
}

/** The credentials of one `token-exchange` server. */
export class TokenExchangeCredentials implements DownstreamCredentials {
  readonly mode = 'token-exchange' as const;
  readonly #init: TokenExchangeCredentialsInit;
  readonly #now: () => number;
  readonly #fetch: FetchLike;
  readonly #renewBefore: number;
  readonly #default: ScopeSet;
  /** A listed tool's scope set (a `Map`: a tool named `constructor` is not `Object.prototype`'s). */
  readonly #byTool = new Map<string, ScopeSet>();
  /** Every scope set by its key (a renewal finds the set of the connection it renews). */
  readonly #byKey = new Map<string, ScopeSet>();
  #context: Promise<TokenEndpointContext> | undefined;

  constructor(init: TokenExchangeCredentialsInit) {
    if (init.options.issuer === undefined && init.options.tokenEndpoint === undefined) {
      throw new McpError(McpErrorCode.InvalidArgument, `server ${init.serverId}: token exchange needs an issuer or a token endpoint`);
    }
    this.#init = init;
    this.#now = init.now ?? Date.now;
    this.#fetch = init.fetch ?? defaultFetch();
    this.#renewBefore = init.renewBeforeMs ?? 30_000;
    this.#default = { key: init.server, scopes: init.options.scopes };
    this.#byKey.set(init.server, this.#default);
    const same = (a: readonly string[], b: readonly string[] | undefined): boolean => b !== undefined && scopedServerKey('', a) === scopedServerKey('', b);
    for (const [tool, scopes] of Object.entries(init.options.toolScopes ?? {})) {
      // A tool needing exactly the default scopes shares the default token (and its key).
      const set = same(scopes, this.#default.scopes) ? this.#default : { key: scopedServerKey(init.server, scopes), scopes: [...new Set(scopes)] };
      const known = this.#byKey.get(set.key) ?? set;
      this.#byKey.set(known.key, known);
      this.#byTool.set(tool, known);
    }
  }

  /** `''` for the default scopes; for a call of a tool with its own scopes, the key its token is kept under. */
  credentialId(tool: string | undefined): string {
    const set = this.#setFor(tool);
    return set === this.#default ? '' : set.key;
  }

  /** The token of `principal` for the scopes `tool` needs (`undefined`: not a call; the default scopes). */
  async credentialFor(principal: Principal, tool?: string): Promise<CredentialAnswer> {
    const set = this.#setFor(tool);
    const key = this.#key(principal, set);
    const stored = await this.#init.store.get(key);
    // Made under another tenant, or by another mode: never used, never renewed; a fresh exchange replaces it.
    const cached = stored !== undefined && stored.tenant === this.#init.tenantOf?.(principal) && stored.mode === 'token-exchange' ? stored : undefined;
    if (cached !== undefined && !this.#expiring(cached.tokens)) return { kind: 'token', connection: cached };
    const connection = cached !== undefined ? await this.#reExchange(principal, set, key, cached) : await this.#firstExchange(principal, set, key, stored);
    return { kind: 'token', connection };
  }

  /** Re-exchanges `stale` for the scopes it was issued for; `undefined` for a connection that is not one of this server's scope sets. */
  async renew(principal: Principal, stale: Connection): Promise<Connection | undefined> {
    const set = this.#byKey.get(stale.server);
    if (set === undefined || stale.tenant !== this.#init.tenantOf?.(principal)) return undefined;
    return this.#reExchange(principal, set, this.#key(principal, set), stale);
  }

  #setFor(tool: string | undefined): ScopeSet {
    return (tool === undefined ? undefined : this.#byTool.get(tool)) ?? this.#default;
  }

  #key(principal: Principal, set: ScopeSet): ConnectionKey {
    return { principal: principal.id, server: set.key };
  }

  #expiring(tokens: TokenSet): boolean {
    return tokens.expiresAt !== undefined && tokens.expiresAt - this.#renewBefore <= this.#now();
  }

  /** The caller's inbound token, or the typed refusal. */
  #subjectToken(principal: Principal): string {
    const token = subjectTokenOf(principal.auth);
    if (token === undefined) {
      throw new CredentialUnavailableError(
        this.#init.serverId,
        `server ${this.#init.serverId} acts as each caller through token exchange, and the credential of ${principal.id} cannot be exchanged (sign in to the gateway with OAuth)`,
      );
    }
    return token;
  }

  /**
   * The principal's first exchange, once across every instance sharing the store
   * ({@link ConnectionStore.connectOnce}); a stored connection of another mode (the server's
   * `auth` changed) is removed first.
   */
  async #firstExchange(principal: Principal, set: ScopeSet, key: ConnectionKey, other?: Connection): Promise<Connection> {
    const subject = this.#subjectToken(principal);
    const tenant = this.#init.tenantOf?.(principal);
    // By filter: at the default key this removes the principal's other scope sets at the server too (made
    // under the same other mode or tenant, or else merely exchanged again); at a tool's key only that one.
    if (other !== undefined) await this.#init.store.revoke(key);
    const connection = await this.#init.store.connectOnce(key, async () => {
      const tokens = await this.#exchange(subject, set);
      const now = this.#now();
      return { principal: key.principal, server: key.server, serverId: this.#init.serverId, ...(tenant !== undefined ? { tenant } : {}), mode: 'token-exchange', tokens, createdAt: now, updatedAt: now };
    });
    // Another instance connected the same principal id under another tenant meanwhile: not this caller's.
    if (connection.tenant !== tenant || connection.mode !== 'token-exchange') throw new CredentialUnavailableError(this.#init.serverId, `the connection to ${this.#init.serverId} stored meanwhile was made for another tenant of ${key.principal}; try again`);
    return connection;
  }

  /** Re-exchanges `stale` once across every instance sharing the store. */
  async #reExchange(principal: Principal, set: ScopeSet, key: ConnectionKey, stale: Connection): Promise<Connection> {
    const subject = this.#subjectToken(principal);
    const renewed = await this.#init.store.refreshOnce(key, stale.tokens.accessToken, () => this.#exchange(subject, set));
    // Revoked meanwhile (or never stored), or replaced under another tenant: a fresh connection.
    return renewed !== undefined && renewed.tenant === this.#init.tenantOf?.(principal) ? renewed : this.#firstExchange(principal, set, key);
  }

  async #exchange(subjectToken: string, set: ScopeSet): Promise<TokenSet> {
    const { options, server } = this.#init;
    return exchangeToken(await this.#endpoint(), {
      subjectToken,
      resource: options.resource ?? server,
      ...(options.audience !== undefined ? { audience: options.audience } : {}),
      ...(set.scopes !== undefined ? { scopes: set.scopes } : {}),
    });
  }

  /** The token endpoint context, discovered once (a failed discovery is retried on the next call). */
  #endpoint(): Promise<TokenEndpointContext> {
    if (this.#context === undefined) {
      const pending = this.#discover();
      this.#context = pending;
      void pending.catch(() => {
        if (this.#context === pending) this.#context = undefined;
      });
    }
    return this.#context;
  }

  async #discover(): Promise<TokenEndpointContext> {
    const { options } = this.#init;
    const insecure = { [allowInsecureRequests]: options[allowInsecureRequests] === true };
    const metadata: AuthorizationServerMetadata =
      options.tokenEndpoint !== undefined
        ? { issuer: options.issuer ?? new URL(options.tokenEndpoint).origin, token_endpoint: requireUrl(options.tokenEndpoint, 'tokenEndpoint', insecure).href }
        : await discoverAuthorizationServer(options.issuer as string, { fetch: this.#fetch, requirePkce: false, ...insecure });
    const hasSecret = options.clientSecret !== undefined;
    const client: ClientRegistration = {
      issuer: metadata.issuer,
      clientId: options.clientId,
      ...(hasSecret ? { clientSecret: options.clientSecret } : {}),
      tokenEndpointAuthMethod: options.tokenEndpointAuthMethod ?? selectTokenEndpointAuthMethod(metadata, hasSecret),
      source: 'pre-registered',
    };
    return { metadata, client, fetch: this.#fetch, now: this.#now };
  }
}
