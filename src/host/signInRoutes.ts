/**
 * The gateway's per-user sign-in routes (see `perUserSignIn.ts`), mounted on its HTTP listener
 * behind the front door's Host/Origin policy:
 *
 * - `GET /oauth/start/<id>`: a page asking the person to confirm who they are (their own
 *   gateway token) before anything is sent to an authorization server;
 * - `POST /oauth/start/<id>` (form `token`): the token is verified like an MCP request's; the
 *   link is spent; only the principal it was made for is sent on (303 to the authorization
 *   server, with the HttpOnly cookie that binds the callback to this browser);
 * - `GET /oauth/callback`: accepted only with that cookie, once, before it expires.
 *
 * Pages are plain, `no-store`, framing refused, with no script.
 *
 * @see https://modelcontextprotocol.io/specification/2025-11-25/client/elicitation#phishing
 * @module
 */
import { defaultDecodeLimits } from '../jsonrpc/decode.js';
import { createHttpAuth, type HttpAuthOptions } from '../transport/http/server/auth.js';
import { readBody } from '../transport/http/server/exchange.js';
import type { HttpRequestLike, HttpResponseLike, MountedRoutes } from '../transport/http/server/types.js';
import { principalIn, type Principal } from '../transport/principal.js';
import { describeError } from '../util/errors.js';
import { silentLogger, type Logger } from '../util/logger.js';
import type { ConnectionStore } from './connections.js';
import { frontDoorAuth, type FrontDoorAuth } from './frontDoor.js';
import { PerUserSignIn, SIGN_IN_CALLBACK_PATH, SIGN_IN_START_PATH, signInCookieName } from './perUserSignIn.js';

/** Options of {@link signInRoutes}. */
export interface SignInRoutesOptions {
  /** The sign-in of the per-user server with this identity (its canonical URL), if any. */
  readonly signIn: (identity: string) => PerUserSignIn | undefined;
  readonly store: ConnectionStore;
  /** How the person proves who they are: the front door's own verifiers. */
  readonly auth: FrontDoorAuth;
  /** Whether the gateway is served over https (the cookie is then `Secure`). */
  readonly secure: boolean;
  readonly now?: () => number;
  readonly logger?: Logger;
}

const MAX_FORM_BYTES = 16 * 1024;

/** The sign-in routes of a gateway with per-user servers. */
export function signInRoutes(options: SignInRoutesOptions): MountedRoutes {
  const logger = options.logger ?? silentLogger;
  const now = options.now ?? Date.now;
  const identify = identifier(options.auth, logger);
  return {
    owns: (path) => path === SIGN_IN_CALLBACK_PATH || (path.startsWith(SIGN_IN_START_PATH) && path.length > SIGN_IN_START_PATH.length),
    async handle(request) {
      try {
        if (request.path === SIGN_IN_CALLBACK_PATH) return await callback(request);
        return await start(request);
      } catch (error) {
        logger.warn('per-user sign-in failed', { error: describeError(error) });
        return page(500, 'Sign-in failed', 'The gateway could not complete this sign-in. Ask your client for a new link.');
      }
    },
  };

  async function start(request: HttpRequestLike): Promise<HttpResponseLike> {
    const id = request.path.slice(SIGN_IN_START_PATH.length);
    if (request.method === 'GET' || request.method === 'HEAD') {
      return page(200, 'Confirm who you are', 'Paste your own gateway token to continue. The gateway sends you on to sign in only if this link was made for you.', id);
    }
    if (request.method !== 'POST') return { status: 405, headers: { allow: 'GET, POST', 'content-type': 'text/plain' }, body: 'GET or POST only' };
    const bytes = await readBody(request.body, MAX_FORM_BYTES);
    const token = bytes === undefined ? undefined : new URLSearchParams(new TextDecoder().decode(bytes)).get('token')?.trim();
    const opener = token === undefined || token === '' ? undefined : await identify(token);
    if (opener === undefined) return page(401, 'Not signed in', 'That is not a gateway token this gateway accepts.', id);
    // The link is spent whoever opened it: a forwarded link cannot be tried again.
    const pending = await options.store.takeSignIn(id, now());
    const signIn = pending === undefined ? undefined : options.signIn(pending.server);
    if (pending === undefined || signIn === undefined) return page(410, 'Link expired', 'This sign-in link is unknown, used or expired. Call the tool again for a new one.');
    const answer = await signIn.start(pending, opener);
    if (!answer.ok) {
      logger.warn('per-user sign-in link refused', { server: signIn.serverId, status: answer.status, reason: answer.error });
      return page(answer.status, 'Sign-in refused', answer.error);
    }
    const c = answer.cookie;
    return {
      status: 303,
      headers: {
        location: answer.location,
        'set-cookie': `${c.name}=${c.value}; Path=${c.path}; Max-Age=${c.maxAgeSec}; HttpOnly; SameSite=Lax${options.secure ? '; Secure' : ''}`,
        'cache-control': 'no-store',
        'referrer-policy': 'no-referrer',
      },
    };
  }

  async function callback(request: HttpRequestLike): Promise<HttpResponseLike> {
    if (request.method !== 'GET') return { status: 405, headers: { allow: 'GET', 'content-type': 'text/plain' }, body: 'GET only' };
    const query = request.query ?? '';
    const state = new URLSearchParams(query).get('state');
    if (state === null || state === '') return page(400, 'Sign-in refused', 'The answer carries no state.');
    const name = signInCookieName(state);
    // Checked before the state is taken: a copied callback URL neither works nor spends the sign-in.
    if (!(await PerUserSignIn.boundTo(state, cookieValue(request.header('cookie'), name)))) {
      return page(403, 'Sign-in refused', 'This sign-in was not started in this browser.');
    }
    const pending = await options.store.takeSignIn(state, now());
    const signIn = pending === undefined ? undefined : options.signIn(pending.server);
    if (pending === undefined || signIn === undefined || pending.codeVerifier === '') return page(400, 'Sign-in refused', 'This sign-in is unknown, used or expired.', undefined, name);
    const answer = await signIn.complete(pending, query);
    if (!answer.ok) return page(answer.status, 'Sign-in refused', answer.error, undefined, name);
    logger.info(`principal ${answer.principal} connected to ${answer.serverId}`, { event: 'connection.created', server: answer.serverId, principal: answer.principal });
    return page(200, 'Connected', `You are connected to ${answer.serverId}. Return to your client: the call can be made again.`, undefined, name);
  }
}

/** The principal a gateway token names, verified like an MCP request's bearer token. */
function identifier(auth: FrontDoorAuth, logger: Logger): (token: string) => Promise<Principal | undefined> {
  return tokenIdentifier(frontDoorAuth(auth), logger);
}

/**
 * The principal of a token presented as `Authorization: Bearer`, verified by `options` exactly
 * as the gateway's MCP endpoint verifies a request's (same verifiers, same principal id), or
 * undefined when refused. Without `options` every token is refused.
 */
export function tokenIdentifier(options: HttpAuthOptions | undefined, logger: Logger): (token: string) => Promise<Principal | undefined> {
  if (options === undefined) return () => Promise.resolve(undefined);
  const checker = createHttpAuth(options, defaultDecodeLimits, logger);
  return async (token) => {
    if (/[\s,]/.test(token)) return undefined;
    const synthetic: HttpRequestLike = { method: 'POST', path: '/', header: (name) => (name === 'authorization' ? `Bearer ${token}` : undefined) };
    if ((await checker.authenticate(synthetic, undefined)) !== undefined) return undefined;
    return principalIn(checker.extra(synthetic, {}));
  };
}

/** The value of cookie `name` in a `Cookie` header. */
export function cookieValue(header: string | undefined, name: string): string | undefined {
  for (const part of (header ?? '').split(';')) {
    const at = part.indexOf('=');
    if (at > 0 && part.slice(0, at).trim() === name) return part.slice(at + 1).trim();
  }
  return undefined;
}

const ESCAPES: Readonly<Record<string, string>> = { '&': '&amp;', '<': '&lt;', '>': '&gt;', '"': '&quot;', "'": '&#39;' };
const escape = (text: string): string => text.replace(/[&<>"']/g, (c) => ESCAPES[c] ?? c);

/** A plain page; with `formId`, the token form of that link; with `clearCookie`, that cookie is cleared. */
function page(status: number, title: string, text: string, formId?: string, clearCookie?: string): HttpResponseLike {
  const form =
    formId === undefined
      ? ''
      : `<form method="post" action="${escape(SIGN_IN_START_PATH + formId)}"><label>Gateway token <input name="token" type="password" autocomplete="off" required></label> <button type="submit">Continue</button></form>`;
  const body = `<!doctype html><html><head><meta charset="utf-8"><title>${escape(title)}</title></head><body><h1>${escape(title)}</h1><p>${escape(text)}</p>${form}</body></html>`;
  return {
    status,
    headers: {
      'content-type': 'text/html; charset=utf-8',
      'cache-control': 'no-store',
      'x-frame-options': 'DENY',
      'content-security-policy': "default-src 'none'; frame-ancestors 'none'",
      'referrer-policy': 'no-referrer',
      ...(clearCookie !== undefined ? { 'set-cookie': `${clearCookie}=; Path=${SIGN_IN_CALLBACK_PATH}; Max-Age=0; HttpOnly; SameSite=Lax` } : {}),
    },
    body,
  };
}
