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
 *    admin token; the MCP bearer token is refused by name), or `Authorization: Bearer <admin
 *    token>` from a non-browser client; with a cookie, state changes need `x-csrf-token`.
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
import { clearedCookie, ConsoleSessions, sessionCookie, type ConsoleSession } from './consoleSession.js';
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

  constructor(options: ConsoleOptions) {
    this.#o = options;
    this.#sessions = new ConsoleSessions({ adminToken: options.adminToken, mcpToken: options.mcpToken, ...(options.now !== undefined ? { now: options.now } : {}) });
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
    if (!request.path.startsWith(API_PREFIX)) return (await serveStatic(request, this.#o.assets)) ?? failure(404, 'no such console page');
    const rest = request.path.slice(API_PREFIX.length);
    if (rest === 'session') return this.#session(request, host);
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
    if (rest === 'events') {
      if (request.method !== 'GET') return failure(405, 'GET only');
      return this.#events.open(request, session);
    }
    const parts = rest.split('/').map((p) => decodeURIComponent(p));
    for (const route of ROUTES) {
      if (route.method !== request.method) continue;
      const params = match(route.path, parts);
      if (params === undefined) continue;
      const ctx: RouteContext = { request, params, query: new URLSearchParams(request.query ?? ''), options: this.#o, questions: this.#questions, body: () => bodyJson(request), changed: (what) => this.#events.changed(what) };
      return route.run(ctx);
    }
    return failure(404, `no console API ${request.method} /console/api/${rest}`);
  }

  /** `/console/api/session`: sign in, check, sign out. */
  async #session(request: HttpRequestLike, host: string): Promise<HttpResponseLike> {
    const secure = request.header('origin')?.startsWith('https://') === true || request.header('x-forwarded-proto') === 'https';
    if (request.method === 'POST') {
      const body = await bodyJson(request);
      const result = await this.#sessions.signIn(body['token']);
      if (!result.ok) return failure(result.status, result.error, result.retryAfterSeconds !== undefined ? { 'retry-after': String(result.retryAfterSeconds) } : {});
      return json(200, { csrf: result.session.csrf, expiresAt: new Date(result.session.expiresAt).toISOString() }, { 'set-cookie': sessionCookie(result.cookie, secure) });
    }
    const session = await this.#sessions.fromCookieHeader(request.header('cookie'));
    if (request.method === 'GET') {
      if (session === undefined) return failure(401, `not signed in (sign in at http://${host}/console/ with the admin token)`);
      return json(200, { csrf: session.csrf, expiresAt: new Date(session.expiresAt).toISOString() });
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
