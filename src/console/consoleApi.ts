/**
 * The web console's HTTP handler, served under `/console` on the gateway's HTTP port (and on
 * the loopback admin listener of a gateway on stdio). Same shape as the consent admin API:
 * {@link ConsoleHttpApi.owns} and {@link ConsoleHttpApi.handle}, mounted behind the front door
 * (`host/frontDoor.ts`) but not behind the MCP credential check: it has its own credential.
 *
 * In this order, for every request under `/console`:
 * 1. the front door's Host/Origin policy (one allow-list for every route: DNS rebinding), and
 *    a `Host` must be present (the same-origin rule below compares with it);
 * 2. a state-changing request (anything but GET/HEAD) must carry an `Origin` equal to the
 *    gateway's own (`http(s)://<Host>`) and no `Sec-Fetch-Site: cross-site`, before any
 *    routing (`host/sameOrigin.ts`): a cross-origin POST to any console path is 403;
 * 3. page files (`/console/`, `/console/assets/*`) are served without a session;
 * 4. the API (`/console/api/*`) needs a session cookie from `POST /console/api/session` (the
 *    admin token, or a person's named token; the MCP bearer token is refused by name) or from
 *    the OAuth callback (`/console/oauth/callback`, `consoleOAuth.ts`), or `Authorization:
 *    Bearer <admin token>` from a non-browser client; with a cookie, state changes need
 *    `x-csrf-token`;
 * 5. the session's role: an `admin` session opens every route but the person's own (`me/*`,
 *    it has no principal); a `person` session opens only `me/*` (`consoleMe.ts`) and is
 *    refused (403) every other route before it runs, the event stream included.
 *
 * Every response carries the strict CSP, `frame-ancestors 'none'` and `X-Frame-Options: DENY`
 * (`consoleResponses.ts`). The URL layout and JSON shapes are in docs/console.md.
 *
 * @module
 */
import { readBody } from '../transport/http/server/exchange.js';
import type { HttpRequestLike, HttpResponseLike } from '../transport/http/server/types.js';
import { crossOriginChange } from '../host/sameOrigin.js';
import { describeError } from '../util/errors.js';
import { ConsoleEvents } from './consoleEvents.js';
import { InspectorQuestions } from './inspectorQuestions.js';
import { ConsoleRequestError, failure, json, secured } from './consoleResponses.js';
import { ME_ROUTES } from './consoleMe.js';
import { CONSOLE_OAUTH_CALLBACK, CONSOLE_OAUTH_COOKIE, type ConsoleOAuth } from './consoleOAuth.js';
import { clearedCookie, ConsoleSessions, cookieValue, sessionCookie, type ConsoleSession, type SignIn } from './consoleSession.js';
import { serveStatic } from './consoleStatic.js';
import type { ConsoleOptions, RouteContext } from './consoleTypes.js';
import { ROUTES } from './consoleRoutes.js';

/** The path prefix of the console. */
export const CONSOLE_PREFIX = '/console';
const API_PREFIX = '/console/api/';
const MAX_BODY = 1024 * 1024;

/** The console as a request handler. */
export class ConsoleHttpApi {
  readonly #o: ConsoleOptions;
  readonly #sessions: ConsoleSessions;
  readonly #events: ConsoleEvents;
  readonly #questions: InspectorQuestions;
  #oauth: ConsoleOAuth | undefined;

  constructor(options: ConsoleOptions) {
    this.#o = options;
    this.#oauth = options.oauth;
    this.#sessions = new ConsoleSessions({ adminToken: options.adminToken, mcpToken: options.mcpToken, namedTokens: options.namedTokens, ...(options.now !== undefined ? { now: options.now } : {}) });
    this.#questions = new InspectorQuestions({ ...(options.questionTimeoutMs !== undefined ? { timeoutMs: options.questionTimeoutMs } : {}), ...(options.now !== undefined ? { now: options.now } : {}) });
    this.#events = new ConsoleEvents(options, this.#sessions, this.#questions);
  }

  /** True for a path the console serves (`/console` and everything below it). */
  static owns(path: string): boolean {
    return path === CONSOLE_PREFIX || path.startsWith(`${CONSOLE_PREFIX}/`);
  }

  /** The same test on an instance (for listeners that take any admin handler). */
  owns(path: string): boolean {
    return ConsoleHttpApi.owns(path);
  }

  /**
   * Sets the person sign-in at the inbound authorization server (built once the gateway's
   * listener is bound: its resource may name the port); undefined turns it off.
   */
  signInWith(oauth: ConsoleOAuth | undefined): void {
    this.#oauth = oauth;
  }

  /** Open event streams (tests, the bench). */
  get streams(): number {
    return this.#events.size;
  }

  /** Ends every open event stream, stops pushing, and cancels the questions still waiting for an Inspector page. */
  close(): void {
    this.#events.close();
    this.#questions.close();
  }

  /** Answers a request under `/console`; undefined for any other path. Never rejects. */
  async handle(request: HttpRequestLike): Promise<HttpResponseLike | undefined> {
    if (!ConsoleHttpApi.owns(request.path)) return undefined;
    try {
      return secured(await this.#handle(request));
    } catch (error) {
      if (error instanceof ConsoleRequestError) return secured(failure(error.status, error.message));
      return secured(failure(500, `the console could not answer: ${describeError(error)}`));
    }
  }

  async #handle(request: HttpRequestLike): Promise<HttpResponseLike> {
    const host = request.header('host');
    if (host === undefined) return failure(400, 'the console needs a Host header');
    const changing = request.method !== 'GET' && request.method !== 'HEAD';
    // Before routing: a cross-origin state change is refused whatever the path (only a script with the admin bearer token may omit Origin).
    const bearer = bearerOf(request);
    const refused = crossOriginChange(request, bearer === undefined);
    if (refused !== undefined) return failure(403, refused);
    if (request.path === CONSOLE_PREFIX) return { status: 308, headers: { location: '/console/' } };
    if (request.path === CONSOLE_OAUTH_CALLBACK) return this.#oauthCallback(request);
    if (!request.path.startsWith(API_PREFIX)) return (await serveStatic(request, this.#o.assets)) ?? failure(404, 'no such console page');
    const rest = request.path.slice(API_PREFIX.length);
    if (rest === 'session') return this.#session(request, host);
    if (rest === 'session/ways') return this.#ways(request);
    if (rest === 'session/oauth') return this.#oauthStart(request);
    // Authentication: the session cookie (a browser) or the admin token as a bearer (a script).
    let session: ConsoleSession | undefined;
    if (bearer !== undefined) {
      const problem = this.#sessions.check(bearer);
      if (problem === 'mcp') return failure(403, "the MCP bearer token is the agent's credential and never opens the console; use the admin token");
      if (problem === 'wrong') return failure(401, 'wrong admin token', { 'www-authenticate': 'Bearer realm="switchboard-console", error="invalid_token"' });
    } else {
      session = await this.#sessions.fromCookieHeader(request.header('cookie'));
      if (session === undefined) return failure(401, 'sign in with the admin token (POST /console/api/session)');
      if (changing && !this.#sessions.csrfMatches(session, request.header('x-csrf-token'))) return failure(403, 'missing or wrong x-csrf-token header (GET /console/api/session returns the token)');
    }
    const parts = rest.split('/').map((p) => decodeURIComponent(p));
    const person = session?.role === 'person' ? session.principal : undefined;
    if (parts[0] === 'me') {
      if (person === undefined) return failure(403, "the admin has no connections of their own: the person's routes (me/*) need a person's sign-in (a named token, or the sign-in with the authorization server); the admin sees everyone's under connections");
      for (const route of ME_ROUTES) {
        if (route.method !== request.method) continue;
        const params = match(route.path, parts.slice(1));
        if (params === undefined) continue;
        return route.run(this.#context(request, params), person);
      }
      return failure(404, `no console API ${request.method} /console/api/${rest}`);
    }
    // Everything else is the admin's: a person is refused before any route runs.
    if (session?.role === 'person') return failure(403, "a person's session opens only My connections (me/*); this route needs the admin token");
    if (rest === 'events') {
      if (request.method !== 'GET') return failure(405, 'GET only');
      return this.#events.open(request, session);
    }
    for (const route of ROUTES) {
      if (route.method !== request.method) continue;
      const params = match(route.path, parts);
      if (params === undefined) continue;
      return route.run(this.#context(request, params));
    }
    return failure(404, `no console API ${request.method} /console/api/${rest}`);
  }

  #context(request: HttpRequestLike, params: Record<string, string>): RouteContext {
    return { request, params, query: new URLSearchParams(request.query ?? ''), options: this.#o, questions: this.#questions, body: () => bodyJson(request), changed: (what) => this.#events.changed(what) };
  }

  /** `GET /console/api/session/ways`: the ways of signing in this gateway offers (no session needed). */
  #ways(request: HttpRequestLike): HttpResponseLike {
    if (request.method !== 'GET') return failure(405, 'GET only', { allow: 'GET' });
    return json(200, { admin: true, namedTokens: this.#sessions.namedTokens, oauth: this.#oauth === undefined ? null : { issuer: this.#oauth.issuer } });
  }

  /** `POST /console/api/session/oauth`: starts "Sign in with <issuer>" (the page then goes to `location`). */
  async #oauthStart(request: HttpRequestLike): Promise<HttpResponseLike> {
    if (request.method !== 'POST') return failure(405, 'POST only', { allow: 'POST' });
    const oauth = this.#oauth;
    if (oauth === undefined) return failure(404, 'this gateway has no inbound authorization server to sign in with (gateway.auth.oauth)');
    const limited = this.#sessions.limited();
    if (limited !== undefined) return signInRefused(limited);
    const origin = request.header('origin');
    // The same-origin check already ran: a POST here carries the gateway's own Origin.
    if (origin === undefined) return failure(403, 'the sign-in starts from the console page (an Origin header is required)');
    const started = await oauth.start(origin);
    if (!started.ok) return failure(started.status, started.error);
    const c = started.cookie;
    const secure = origin.startsWith('https://');
    return json(200, { location: started.location }, { 'set-cookie': `${c.name}=${c.value}; HttpOnly; SameSite=Lax; Path=${c.path}; Max-Age=${c.maxAgeSec}${secure ? '; Secure' : ''}` });
  }

  /** `GET /console/oauth/callback`: the authorization server's answer; a person session, or a page saying why not. */
  async #oauthCallback(request: HttpRequestLike): Promise<HttpResponseLike> {
    if (request.method !== 'GET') return failure(405, 'GET only', { allow: 'GET' });
    const secure = request.header('x-forwarded-proto') === 'https';
    const clear = `${CONSOLE_OAUTH_COOKIE}=; HttpOnly; SameSite=Lax; Path=${CONSOLE_OAUTH_CALLBACK}; Max-Age=0${secure ? '; Secure' : ''}`;
    const oauth = this.#oauth;
    if (oauth === undefined) return callbackPage(404, 'This gateway has no sign-in with an authorization server.', clear);
    const limited = this.#sessions.limited();
    if (limited !== undefined) return callbackPage(429, limited.error, clear, { 'retry-after': String(limited.retryAfterSeconds ?? 60) });
    const answer = await oauth.complete(request.query ?? '', cookieValue(request.header('cookie'), CONSOLE_OAUTH_COOKIE));
    if (!answer.ok) {
      this.#sessions.failed({ ok: false, status: 401, error: answer.error });
      return callbackPage(answer.status, `Sign-in refused: ${answer.error}`, clear);
    }
    const result = await this.#sessions.signInPerson(answer.principal);
    if (!result.ok) return callbackPage(result.status, result.error, clear);
    return { status: 303, headers: { location: '/console/#/me', 'cache-control': 'no-store', 'set-cookie': sessionCookie(result.cookie, secure || answer.secure) } };
  }

  /** `/console/api/session`: sign in, check, sign out. */
  async #session(request: HttpRequestLike, host: string): Promise<HttpResponseLike> {
    const secure = request.header('origin')?.startsWith('https://') === true || request.header('x-forwarded-proto') === 'https';
    if (request.method === 'POST') {
      const body = await bodyJson(request);
      const result = await this.#sessions.signIn(body['token']);
      if (!result.ok) return signInRefused(result);
      return json(200, sessionJson(result.session), { 'set-cookie': sessionCookie(result.cookie, secure) });
    }
    const session = await this.#sessions.fromCookieHeader(request.header('cookie'));
    if (request.method === 'GET') {
      if (session === undefined) return failure(401, `not signed in (sign in at http://${host}/console/)`);
      return json(200, sessionJson(session));
    }
    if (request.method === 'DELETE') {
      if (session === undefined) return failure(401, 'not signed in');
      if (!this.#sessions.csrfMatches(session, request.header('x-csrf-token'))) return failure(403, 'missing or wrong x-csrf-token header');
      this.#sessions.signOut(session);
      return { status: 204, headers: { 'cache-control': 'no-store', 'set-cookie': clearedCookie(secure) } };
    }
    return failure(405, 'GET, POST or DELETE', { allow: 'GET, POST, DELETE' });
  }
}

/** What the page learns of its session: the CSRF token, expiry, role and (a person's) principal. */
function sessionJson(session: ConsoleSession): Record<string, unknown> {
  return { csrf: session.csrf, expiresAt: new Date(session.expiresAt).toISOString(), role: session.role, ...(session.principal !== undefined ? { principal: session.principal } : {}) };
}

/** A refused sign-in as an answer (`Retry-After` when limited). */
function signInRefused(refusal: Extract<SignIn, { ok: false }>): HttpResponseLike {
  return failure(refusal.status, refusal.error, refusal.retryAfterSeconds !== undefined ? { 'retry-after': String(refusal.retryAfterSeconds) } : {});
}

const ESCAPES: Readonly<Record<string, string>> = { '&': '&amp;', '<': '&lt;', '>': '&gt;', '"': '&quot;', "'": '&#39;' };

/** The plain page of a refused OAuth callback (no script; a link back to the sign-in). */
function callbackPage(status: number, text: string, setCookie: string, headers: Readonly<Record<string, string>> = {}): HttpResponseLike {
  const escaped = text.replace(/[&<>"']/g, (c) => ESCAPES[c] ?? c);
  const body = `<!doctype html><html lang="en"><head><meta charset="utf-8"><title>Sign-in refused · Switchboard console</title></head><body><main><h1>Sign-in refused</h1><p>${escaped}</p><p><a href="/console/">Back to the console sign-in</a></p></main></body></html>`;
  return { status, headers: { 'content-type': 'text/html; charset=utf-8', 'cache-control': 'no-store', 'set-cookie': setCookie, ...headers }, body };
}

/** The bearer token of `Authorization`, if any. */
function bearerOf(request: HttpRequestLike): string | undefined {
  const header = request.header('authorization')?.trim();
  if (header === undefined || header === '') return undefined;
  return /^Bearer\s+(\S+)$/i.exec(header)?.[1] ?? '';
}

/** Matches `a/:b/c` against path parts; the named parts, or undefined. */
function match(pattern: string, parts: readonly string[]): Record<string, string> | undefined {
  const want = pattern.split('/');
  if (want.length !== parts.length) return undefined;
  const params: Record<string, string> = {};
  for (let i = 0; i < want.length; i++) {
    const w = want[i] as string;
    const p = parts[i] as string;
    if (w.startsWith(':')) {
      if (p === '') return undefined;
      params[w.slice(1)] = p;
    } else if (w !== p) return undefined;
  }
  return params;
}

async function bodyJson(request: HttpRequestLike): Promise<Record<string, unknown>> {
  const bytes = request.body === undefined ? new Uint8Array() : await readBody(request.body, MAX_BODY);
  if (bytes === undefined) throw new ConsoleRequestError(413, `the body is larger than ${MAX_BODY} bytes`);
  if (bytes.byteLength === 0) return {};
  let value: unknown;
  try {
    value = JSON.parse(new TextDecoder().decode(bytes));
  } catch {
    throw new ConsoleRequestError(400, 'the body is not JSON');
  }
  if (typeof value !== 'object' || value === null || Array.isArray(value)) throw new ConsoleRequestError(400, 'the body must be a JSON object');
  return value as Record<string, unknown>;
}
