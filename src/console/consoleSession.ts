/**
 * Console sign-in: a credential is exchanged for a session cookie (`sb_console`, HttpOnly,
 * SameSite=Strict, Path=/console, Secure over https) and a CSRF token the page sends back in
 * `x-csrf-token` on every state-changing request. A session has a role:
 *
 * - `admin`: from the admin token (a per-install secret in the state folder, never the MCP
 *   bearer token); every admin route.
 * - `person`: from one of the gateway's named tokens (`gateway.auth.tokens`: the name is the
 *   principal) or from a sign-in at the inbound authorization server (`consoleOAuth.ts`); it
 *   carries that principal and opens only the person's own routes (`me/*`). The single
 *   unnamed MCP bearer token (`gateway-token`) never opens the console.
 *
 * - Tokens are compared in constant time; sessions are kept by the SHA-256 of their cookie,
 *   so neither a lookup nor a memory dump reveals a live cookie.
 * - Failed sign-ins are limited: after {@link MAX_FAILURES} within a minute every attempt is
 *   refused (429, `Retry-After`) until the window passes, whatever the token.
 * - Sessions live in memory (a restart signs everyone out) for at most 12 hours; at most
 *   {@link MAX_SESSIONS} at once (the oldest is dropped).
 *
 * @module
 */
import { timingSafeEqual } from '../auth/http.js';
import { createStaticTokenVerifier, type NamedToken, type StaticTokenVerifier } from '../auth/resource/staticTokens.js';

/** The cookie's name. */
export const SESSION_COOKIE = 'sb_console';
/** Failed sign-ins allowed per window. */
export const MAX_FAILURES = 5;
/** Live sessions kept at most. */
export const MAX_SESSIONS = 64;
const FAILURE_WINDOW_MS = 60_000;
const LIFETIME_MS = 12 * 60 * 60 * 1000;

/** Who a person's session belongs to: the principal the gateway's MCP requests of that person carry. */
export interface ConsolePrincipal {
  /** The principal id (`Principal.id`: a named token's name, an access token's `sub`). */
  readonly id: string;
  /** The tenant, when the token's configured claim names one (`gateway.auth.oauth.tenantClaim`). */
  readonly tenant?: string;
  /** Who vouched for it: the authorization server's issuer, or `switchboard:static-token`. */
  readonly issuer: string;
}

/** What a session may do: every admin route, or only the person's own (`me/*`). */
export type ConsoleRole = 'admin' | 'person';

/** One signed-in browser. */
export interface ConsoleSession {
  /** The SHA-256 (hex) of the cookie value. */
  readonly key: string;
  readonly csrf: string;
  readonly createdAt: number;
  readonly expiresAt: number;
  readonly role: ConsoleRole;
  /** The principal of a `person` session (never set on an `admin` one). */
  readonly principal?: ConsolePrincipal;
}

/** A refused sign-in. */
export interface SignInRefusal {
  readonly ok: false;
  readonly status: 401 | 403 | 429;
  readonly error: string;
  readonly retryAfterSeconds?: number;
}

/** The result of a sign-in attempt. */
export type SignIn = { readonly ok: true; readonly cookie: string; readonly session: ConsoleSession } | SignInRefusal;

/** Options of {@link ConsoleSessions}. */
export interface ConsoleSessionsOptions {
  /** The admin token (at least 32 characters). */
  readonly adminToken: string;
  /** The MCP bearer token, refused by name when presented. */
  readonly mcpToken?: string | undefined;
  /** The gateway's named tokens (`gateway.auth.tokens`): each opens a person session for its name. */
  readonly namedTokens?: readonly NamedToken[] | undefined;
  /** The clock (tests). Default `Date.now`. */
  readonly now?: () => number;
}

/** The console's sessions and sign-in. */
export class ConsoleSessions {
  readonly #o: ConsoleSessionsOptions;
  readonly #now: () => number;
  readonly #sessions = new Map<string, ConsoleSession>();
  readonly #listeners = new Set<(key: string) => void>();
  readonly #named: StaticTokenVerifier | undefined;
  #failures: number[] = [];

  constructor(options: ConsoleSessionsOptions) {
    if (options.adminToken.length < 32) throw new TypeError('the console admin token needs at least 32 characters');
    if (options.mcpToken !== undefined && options.mcpToken === options.adminToken) throw new TypeError('the admin token must differ from the MCP bearer token');
    this.#o = options;
    this.#now = options.now ?? Date.now;
    this.#named = options.namedTokens !== undefined && options.namedTokens.length > 0 ? createStaticTokenVerifier(options.namedTokens) : undefined;
  }

  /** Whether named tokens open person sessions. */
  get namedTokens(): boolean {
    return this.#named !== undefined;
  }

  /** Why a presented token is not the admin token: `mcp` (the agent's credential), `wrong`, or undefined when it is. */
  check(token: string): 'mcp' | 'wrong' | undefined {
    if (timingSafeEqual(token, this.#o.adminToken)) return undefined;
    if (this.#o.mcpToken !== undefined && timingSafeEqual(token, this.#o.mcpToken)) return 'mcp';
    return 'wrong';
  }

  /**
   * The refusal while failed sign-ins are over the limit, else undefined. Every way of signing
   * in (a token, a callback from the authorization server) asks this first and shares the count.
   */
  limited(): SignInRefusal | undefined {
    const now = this.#now();
    this.#failures = this.#failures.filter((at) => now - at < FAILURE_WINDOW_MS);
    if (this.#failures.length < MAX_FAILURES) return undefined;
    const retryAfterSeconds = Math.max(1, Math.ceil((FAILURE_WINDOW_MS - (now - (this.#failures[0] as number))) / 1000));
    return { ok: false, status: 429, error: `too many failed sign-ins (${MAX_FAILURES} within a minute); try again in ${retryAfterSeconds} s`, retryAfterSeconds };
  }

  /** Counts a failed sign-in (towards {@link limited}) and returns `refusal`. */
  failed<R extends SignInRefusal>(refusal: R): R {
    this.#failures.push(this.#now());
    return refusal;
  }

  /**
   * Exchanges a token for a new session: the admin token for an `admin` session, a named token
   * (`gateway.auth.tokens`) for a `person` session of its name. The MCP bearer token is refused
   * by name.
   */
  async signIn(token: unknown): Promise<SignIn> {
    const limited = this.limited();
    if (limited !== undefined) return limited;
    const what = this.#named !== undefined ? 'the admin token or your own named gateway token' : 'the admin token (the admin-token file in the state folder)';
    if (typeof token !== 'string' || token === '') return this.failed({ ok: false, status: 401, error: `the body must be {"token": "<token>"}: ${what}` });
    const problem = this.check(token);
    if (problem === 'mcp') return this.failed({ ok: false, status: 403, error: "that is the MCP bearer token, the agent's credential: it never opens the console; use the admin token (the admin-token file in the state folder)" });
    if (problem === undefined) return this.#start('admin', undefined);
    const named = token.length <= 4096 ? this.#named?.verify(token) : undefined;
    if (named?.subject !== undefined && named.subject !== '') return this.#start('person', { id: named.subject, issuer: named.issuer });
    return this.failed({ ok: false, status: 401, error: `wrong token: ${what}` });
  }

  /** A new `person` session for `principal` (verified by the caller: an access token of the inbound authorization server). */
  signInPerson(principal: ConsolePrincipal): Promise<SignIn> {
    return this.#start('person', principal);
  }

  async #start(role: ConsoleRole, principal: ConsolePrincipal | undefined): Promise<SignIn> {
    const now = this.#now();
    const cookie = randomToken();
    const session: ConsoleSession = { key: await sha256Hex(cookie), csrf: randomToken(), createdAt: now, expiresAt: now + LIFETIME_MS, role, ...(principal !== undefined ? { principal: Object.freeze({ ...principal }) } : {}) };
    if (this.#sessions.size >= MAX_SESSIONS) {
      const oldest = this.#sessions.keys().next().value;
      if (oldest !== undefined) this.#end(oldest);
    }
    this.#sessions.set(session.key, session);
    return { ok: true, cookie, session };
  }

  /** The live session of a request's `Cookie` header, or undefined. */
  async fromCookieHeader(header: string | undefined): Promise<ConsoleSession | undefined> {
    const value = cookieValue(header, SESSION_COOKIE);
    if (value === undefined || value.length > 200) return undefined;
    const key = await sha256Hex(value);
    const session = this.#sessions.get(key);
    if (session === undefined) return undefined;
    if (session.expiresAt <= this.#now()) {
      this.#end(key);
      return undefined;
    }
    return session;
  }

  /** True when `presented` is the session's CSRF token (constant time). */
  csrfMatches(session: ConsoleSession, presented: string | undefined): boolean {
    return presented !== undefined && timingSafeEqual(presented, session.csrf);
  }

  /** Signs a session out (its event streams are told). */
  signOut(session: ConsoleSession): void {
    this.#end(session.key);
  }

  /** Calls `listener(key)` when a session ends; returns the unsubscribe function. */
  onEnd(listener: (key: string) => void): () => void {
    this.#listeners.add(listener);
    return () => this.#listeners.delete(listener);
  }

  #end(key: string): void {
    if (!this.#sessions.delete(key)) return;
    for (const listener of [...this.#listeners]) listener(key);
  }
}

/** The `Set-Cookie` value that starts a session. */
export function sessionCookie(value: string, secure: boolean): string {
  return `${SESSION_COOKIE}=${value}; HttpOnly; SameSite=Strict; Path=/console; Max-Age=${LIFETIME_MS / 1000}${secure ? '; Secure' : ''}`;
}

/** The `Set-Cookie` value that ends it. */
export function clearedCookie(secure: boolean): string {
  return `${SESSION_COOKIE}=; HttpOnly; SameSite=Strict; Path=/console; Max-Age=0${secure ? '; Secure' : ''}`;
}

/** One cookie's value from a `Cookie` header. */
export function cookieValue(header: string | undefined, name: string): string | undefined {
  if (header === undefined) return undefined;
  for (const part of header.split(';')) {
    const eq = part.indexOf('=');
    if (eq < 0) continue;
    if (part.slice(0, eq).trim() === name) return part.slice(eq + 1).trim();
  }
  return undefined;
}

/** 32 random bytes, base64url. */
function randomToken(): string {
  const bytes = crypto.getRandomValues(new Uint8Array(32));
  let text = '';
  for (const b of bytes) text += String.fromCharCode(b);
  return btoa(text).replace(/\+/g, '-').replace(/\//g, '_').replace(/=+$/, '');
}

async function sha256Hex(text: string): Promise<string> {
  const digest = new Uint8Array(await crypto.subtle.digest('SHA-256', new TextEncoder().encode(text)));
  return Array.from(digest, (b) => b.toString(16).padStart(2, '0')).join('');
}
