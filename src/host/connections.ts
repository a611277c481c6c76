/**
 * Per-user downstream authority: the seam between the gateway and where each principal's own
 * credentials for a remote server live.
 *
 * A server configured with `auth: "per-user"` or `auth: "token-exchange"` never sees the
 * gateway's own sign-in: every call carries a token obtained for the caller (a
 * {@link Connection}), keyed by the caller's principal id and the server's *identity* (its
 * canonical URL, so a renamed entry keeps its connections and a re-pointed one loses them).
 * The inbound token is never forwarded (token passthrough is forbidden:
 * {@link https://modelcontextprotocol.io/specification/2025-11-25/basic/security_best_practices#token-passthrough}).
 *
 * Implementations: {@link MemoryConnectionStore} here (tests, single process); SQLite and
 * PostgreSQL in `store/` (encrypted at rest with a key the downstream servers cannot read).
 *
 * @module
 */
import type { ClientRegistration, TokenSet } from '../auth/client/tokenStore.js';
import type { Principal } from '../transport/principal.js';

/** How a remote server is authorised downstream (`switchboard.servers.<id>.auth`). */
export type DownstreamAuthMode = 'shared' | 'per-user' | 'token-exchange';

/** Whose sign-in, at which server. */
export interface ConnectionKey {
  /** The principal id of the caller (`Principal.id`). */
  readonly principal: string;
  /**
   * The server's identity: its canonical URL (`canonicalServerUrl`); for a token exchanged for
   * one tool's own scopes (`toolScopes`), that URL with the scope set as its fragment
   * ({@link scopedServerKey}): one connection per scope set, all of them that server's.
   */
  readonly server: string;
}

/**
 * The {@link ConnectionKey.server} of a token exchanged for `scopes` at `server` (a canonical
 * URL): `<server>#scopes=<the scopes, sorted, space-separated, percent-encoded>`. A canonical URL
 * has no fragment, so the key never collides with another server's; {@link serverOfKey} gives
 * `server` back.
 */
export function scopedServerKey(server: string, scopes: readonly string[]): string {
  return `${server}#scopes=${encodeURIComponent([...new Set(scopes)].sort().join(' '))}`;
}

/** The server identity (canonical URL) of a {@link ConnectionKey.server}: without its scope set, if any. */
export function serverOfKey(key: string): string {
  const hash = key.indexOf('#');
  return hash < 0 ? key : key.slice(0, hash);
}

/** Whether the stored key `key` is a connection to `server` (the server itself, or one of its scope sets). */
export function keyOnServer(key: string, server: string): boolean {
  return key === server || (key.startsWith(server) && key.charAt(server.length) === '#');
}

/** One principal's credentials at one downstream server. Holds secrets: never log or list it. */
export interface Connection extends ConnectionKey {
  /** The config id the server had when the connection was made (display only). */
  readonly serverId: string;
  /** The principal's tenant when the inbound token named one. */
  readonly tenant?: string;
  /** How the credentials were obtained. */
  readonly mode: Exclude<DownstreamAuthMode, 'shared'>;
  readonly tokens: TokenSet;
  /** When the principal first connected (ms since the epoch). */
  readonly createdAt: number;
  /** When the tokens last changed (sign-in, refresh, exchange). */
  readonly updatedAt: number;
}

/**
 * What may be shown about a {@link Connection}: everything but the tokens. Its `server` is the
 * server's identity ({@link serverOfKey}): the connections of one server's scope sets are listed,
 * filtered and revoked as that server's, told apart by their `scopes`.
 */
export interface ConnectionSummary extends ConnectionKey {
  readonly serverId: string;
  readonly tenant?: string;
  readonly mode: Connection['mode'];
  /** Granted scopes (else the requested ones). */
  readonly scopes: readonly string[];
  readonly issuer: string;
  /** Access token expiry, when known. */
  readonly expiresAt?: number;
  /** Whether a refresh token is held. */
  readonly refreshable: boolean;
  readonly createdAt: number;
  readonly updatedAt: number;
}

/** A connection {@link ConnectionStore.take} removed: its summary, and its tokens when they could be opened. */
export interface TakenConnection {
  readonly summary: ConnectionSummary;
  /** The removed connection (holds secrets: never log or list it). */
  readonly connection?: Connection;
  /** Why {@link connection} is missing (its tokens did not open). */
  readonly unreadable?: string;
}

/** A sign-in in progress: the `state` of an authorization request and what it is bound to. */
export interface PendingSignIn {
  /** The OAuth `state` (random, one use). */
  readonly state: string;
  /** The principal that asked; the callback must come back under the same principal. */
  readonly principal: string;
  /** The server identity and config id the sign-in is for. */
  readonly server: string;
  readonly serverId: string;
  readonly tenant?: string;
  /** The PKCE verifier (secret). */
  readonly codeVerifier: string;
  readonly redirectUri: string;
  /** The authorization server's issuer the request went to. */
  readonly issuer: string;
  readonly requestedScopes: readonly string[];
  /** Expiry (ms since the epoch); a late callback is refused. */
  readonly expiresAt: number;
}

/** Filter of {@link ConnectionStore.list} and {@link ConnectionStore.revoke}. */
export interface ConnectionFilter {
  readonly principal?: string;
  /** A server identity: matches its connections of every scope set ({@link keyOnServer}). */
  readonly server?: string;
  /** Only connections made under this tenant (`list` only; `revoke` ignores it). */
  readonly tenant?: string;
}

/**
 * Which of the gateway's client registrations (RFC 7591): the authorization server's exact
 * issuer and the redirect URI the client was registered with. Every per-user server behind one
 * authorization server shares it; a changed public URL (another redirect URI) needs another.
 */
export interface RegistrationKey {
  readonly issuer: string;
  readonly redirectUri: string;
}

/** Whether `registration` may still be used at `nowMs` (its `client_secret_expires_at`, seconds, 0 = never). */
export function registrationUsable(registration: ClientRegistration, nowMs: number): boolean {
  const expiresAt = registration.clientSecretExpiresAt;
  return expiresAt === undefined || expiresAt === 0 || expiresAt * 1000 > nowMs;
}

/**
 * Where per-principal connections live. Every method is safe to call from several gateway
 * instances sharing the store.
 */
export interface ConnectionStore {
  /** The connection of `key`, or `undefined`. */
  get(key: ConnectionKey): Promise<Connection | undefined>;
  /** Stores (replaces) a connection. */
  put(connection: Connection): Promise<void>;
  /** Summaries (never tokens) matching `filter`, oldest first. */
  list(filter?: ConnectionFilter): Promise<readonly ConnectionSummary[]>;
  /** Removes the matching connections (at least one of the filter's keys is required); how many. */
  revoke(filter: ConnectionFilter): Promise<number>;
  /**
   * Removes the matching connections like {@link revoke} and hands back what was removed (each
   * row taken once, even by instances revoking at once): what an RFC 7009 revocation at the
   * authorization server needs. A row whose tokens do not open (another key, tampered) is still
   * removed, with the reason instead of its connection.
   */
  take(filter: ConnectionFilter): Promise<readonly TakenConnection[]>;
  /**
   * Refreshes the connection of `key` at most once for the access token `stale` across every
   * instance sharing the store: the first caller runs `refresh` and stores its result, the others
   * wait and get that result (or, when the stored token already differs from `stale`, the stored
   * connection at once). `undefined` when there is no connection (revoked meanwhile).
   */
  refreshOnce(key: ConnectionKey, stale: string, refresh: (current: Connection) => Promise<TokenSet>): Promise<Connection | undefined>;
  /**
   * The connection of `key`, or when there is none the one `connect` makes, made at most once
   * across every instance sharing the store: the first caller runs `connect` and stores its
   * result, the others wait and get the stored connection. A failed `connect` stores nothing and
   * reaches the callers waiting on it in this instance; a caller waiting elsewhere then runs its
   * own. `connect` must make a connection of `key`.
   */
  connectOnce(key: ConnectionKey, connect: () => Promise<Connection>): Promise<Connection>;
  /** Records a sign-in in progress. */
  beginSignIn(pending: PendingSignIn): Promise<void>;
  /** Takes (and deletes) the sign-in of `state`; `undefined` when unknown, used or expired. */
  takeSignIn(state: string, now: number): Promise<PendingSignIn | undefined>;
  /**
   * The gateway's client registration for `key`, shared by every instance: the stored one while
   * it is usable ({@link registrationUsable}), else `register` runs and its result is stored.
   * Instances registering at once converge on one: where the store can lock (PostgreSQL) only
   * one registers; elsewhere the first stored wins and the others' results are discarded
   * before any use. The client secret is sealed like tokens.
   */
  registerOnce(key: RegistrationKey, register: () => Promise<ClientRegistration>): Promise<ClientRegistration>;
  /**
   * Forgets the registration of `key` if it is still the client `clientId` (the authorization
   * server no longer knows it: `invalid_client`); the next sign-in registers again. A newer
   * registration stored meanwhile by another instance is kept.
   */
  forgetRegistration(key: RegistrationKey, clientId: string): Promise<void>;
  /** The gateway's stored client registrations at `issuer` (one per redirect URI), oldest first; unreadable ones are left out. */
  registrations(issuer: string): Promise<readonly ClientRegistration[]>;
  close(): Promise<void>;
}

/** The credential a principal's request to a server carries, or the sign-in it needs first. */
export type CredentialAnswer =
  | { readonly kind: 'token'; readonly connection: Connection }
  | {
      readonly kind: 'sign-in';
      /** The authorization URL the person opens (bound to the principal through its `state`). */
      readonly url: string;
      /** The URL-mode elicitation's id (2025-11-25 `elicitationId`). */
      readonly elicitationId: string;
      /** What the person is asked, e.g. "Sign in to github to let Switchboard call it as you". */
      readonly message: string;
    };

/**
 * Where the credentials of one server's `auth` mode come from: a per-user sign-in or an
 * RFC 8693 token exchange. One instance per server; it never sees the inbound token except
 * through the token-exchange capability of the auth layer.
 */
export interface DownstreamCredentials {
  readonly mode: Exclude<DownstreamAuthMode, 'shared'>;
  /**
   * Which credential a request for `tool` (the server's own tool name of a `tools/call`;
   * `undefined` for any other request) carries: `''` the server's default, else an id of the
   * tool's own credential (token exchange's `toolScopes`: its scope set). Requests of one id
   * share a principal's client. Absent: always `''`.
   */
  credentialId?(tool: string | undefined): string;
  /**
   * The credential for `principal`'s request (obtaining one when the mode can: an exchange), or
   * the sign-in to ask for; `tool` as for {@link credentialId}.
   */
  credentialFor(principal: Principal, tool?: string): Promise<CredentialAnswer>;
  /** The server refused `stale`'s token (401): a fresh connection (single-flight refresh or re-exchange), or `undefined` (sign in again). */
  renew(principal: Principal, stale: Connection): Promise<Connection | undefined>;
}

/** The summary of a connection. */
export function summarizeConnection(c: Connection): ConnectionSummary {
  const granted = c.tokens.grantedScope?.split(' ').filter((s) => s !== '');
  return {
    principal: c.principal,
    server: serverOfKey(c.server),
    serverId: c.serverId,
    ...(c.tenant !== undefined ? { tenant: c.tenant } : {}),
    mode: c.mode,
    scopes: granted !== undefined && granted.length > 0 ? granted : [...c.tokens.requestedScopes],
    issuer: c.tokens.issuer,
    ...(c.tokens.expiresAt !== undefined ? { expiresAt: c.tokens.expiresAt } : {}),
    refreshable: c.tokens.refreshToken !== undefined,
    createdAt: c.createdAt,
    updatedAt: c.updatedAt,
  };
}

function matches(c: ConnectionKey, filter: ConnectionFilter): boolean {
  return (filter.principal === undefined || c.principal === filter.principal) && (filter.server === undefined || keyOnServer(c.server, filter.server));
}

function inTenant(c: { readonly tenant?: string }, filter: ConnectionFilter): boolean {
  return filter.tenant === undefined || c.tenant === filter.tenant;
}

/** `made`, when it is a connection of `key` (what {@link ConnectionStore.connectOnce} stores); else a `TypeError`. */
export function checkedConnection(key: ConnectionKey, made: Connection): Connection {
  if (made.principal !== key.principal || made.server !== key.server) throw new TypeError('connectOnce: the connection made is not of the key asked for');
  return made;
}

function keyOf(key: ConnectionKey): string {
  return JSON.stringify([key.principal, key.server]);
}

/**
 * The in-process half of single flight: one running task per key (a connection's refresh, a
 * registration), shared by every caller until it settles.
 */
export class Flights<T> {
  readonly #running = new Map<string, Promise<T>>();

  /** The task of `key` already running, else `start()` (remembered until it settles). */
  run(key: readonly string[], start: () => Promise<T>): Promise<T> {
    const k = JSON.stringify(key);
    const running = this.#running.get(k);
    if (running !== undefined) return running;
    const run = start().finally(() => this.#running.delete(k));
    this.#running.set(k, run);
    return run;
  }
}

/** A {@link ConnectionStore} in process memory (one instance; tests and embedded use). */
export class MemoryConnectionStore implements ConnectionStore {
  readonly #connections = new Map<string, Connection>();
  readonly #pending = new Map<string, PendingSignIn>();
  readonly #refreshing = new Map<string, Promise<Connection | undefined>>();
  readonly #registrations = new Map<string, ClientRegistration>();
  readonly #registering = new Flights<ClientRegistration>();
  readonly #connecting = new Map<string, Promise<Connection>>();

  get(key: ConnectionKey): Promise<Connection | undefined> {
    return Promise.resolve(this.#connections.get(keyOf(key)));
  }

  put(connection: Connection): Promise<void> {
    this.#connections.set(keyOf(connection), connection);
    return Promise.resolve();
  }

  list(filter: ConnectionFilter = {}): Promise<readonly ConnectionSummary[]> {
    const out = [...this.#connections.values()].filter((c) => matches(c, filter) && inTenant(c, filter)).sort((a, b) => a.createdAt - b.createdAt);
    return Promise.resolve(out.map(summarizeConnection));
  }

  revoke(filter: ConnectionFilter): Promise<number> {
    return this.take(filter).then((taken) => taken.length);
  }

  take(filter: ConnectionFilter): Promise<readonly TakenConnection[]> {
    if (filter.principal === undefined && filter.server === undefined) return Promise.reject(new TypeError('revoke needs a principal or a server'));
    const taken: TakenConnection[] = [];
    for (const [k, c] of this.#connections) {
      if (matches(c, filter)) {
        this.#connections.delete(k);
        taken.push({ summary: summarizeConnection(c), connection: c });
      }
    }
    return Promise.resolve(taken);
  }

  refreshOnce(key: ConnectionKey, stale: string, refresh: (current: Connection) => Promise<TokenSet>): Promise<Connection | undefined> {
    const k = keyOf(key);
    const running = this.#refreshing.get(k);
    if (running !== undefined) return running;
    const current = this.#connections.get(k);
    if (current === undefined || current.tokens.accessToken !== stale) return Promise.resolve(current);
    const run = (async () => {
      try {
        const tokens = await refresh(current);
        if (this.#connections.get(k) !== current) return this.#connections.get(k); // revoked or replaced meanwhile
        const next: Connection = { ...current, tokens, updatedAt: Date.now() };
        this.#connections.set(k, next);
        return next;
      } finally {
        this.#refreshing.delete(k);
      }
    })();
    this.#refreshing.set(k, run);
    return run;
  }

  connectOnce(key: ConnectionKey, connect: () => Promise<Connection>): Promise<Connection> {
    const k = keyOf(key);
    const current = this.#connections.get(k);
    if (current !== undefined) return Promise.resolve(current);
    const running = this.#connecting.get(k);
    if (running !== undefined) return running;
    const run = (async () => {
      try {
        const made = checkedConnection(key, await connect());
        const stored = this.#connections.get(k); // a sign-in meanwhile
        if (stored !== undefined) return stored;
        this.#connections.set(k, made);
        return made;
      } finally {
        this.#connecting.delete(k);
      }
    })();
    this.#connecting.set(k, run);
    return run;
  }

  beginSignIn(pending: PendingSignIn): Promise<void> {
    this.#pending.set(pending.state, pending);
    return Promise.resolve();
  }

  takeSignIn(state: string, now: number): Promise<PendingSignIn | undefined> {
    const pending = this.#pending.get(state);
    this.#pending.delete(state);
    return Promise.resolve(pending !== undefined && pending.expiresAt > now ? pending : undefined);
  }

  registerOnce(key: RegistrationKey, register: () => Promise<ClientRegistration>): Promise<ClientRegistration> {
    const k = JSON.stringify([key.issuer, key.redirectUri]);
    const stored = this.#registrations.get(k);
    if (stored !== undefined && registrationUsable(stored, Date.now())) return Promise.resolve(stored);
    return this.#registering.run([key.issuer, key.redirectUri], async () => {
      const registration = await register();
      this.#registrations.set(k, registration);
      return registration;
    });
  }

  forgetRegistration(key: RegistrationKey, clientId: string): Promise<void> {
    const k = JSON.stringify([key.issuer, key.redirectUri]);
    if (this.#registrations.get(k)?.clientId === clientId) this.#registrations.delete(k);
    return Promise.resolve();
  }

  registrations(issuer: string): Promise<readonly ClientRegistration[]> {
    return Promise.resolve([...this.#registrations.values()].filter((r) => r.issuer === issuer));
  }

  close(): Promise<void> {
    return Promise.resolve();
  }
}
