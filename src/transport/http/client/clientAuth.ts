/**
 * The authorization plumbing shared by the HTTP client transports (Streamable HTTP and the
 * legacy HTTP+SSE one): one HTTP request carrying the caller's authorization headers (or
 * bearer token), retried after a 401/403 that the `onUnauthorized` hook resolves.
 *
 * @see https://modelcontextprotocol.io/specification/2026-07-28/basic/authorization
 * @module
 */
import type { ChannelSink } from '../../../jsonrpc/channel.js';
import { H, type HeaderMap } from './clientHeaders.js';
import { Cancellation } from './clientCancel.js';
import { FETCH_ABORT_HOOK, type FetchInit, type FetchLike, type StreamableHttpClientOptions, type UnauthorizedInfo } from './clientOptions.js';
import { discard } from './clientStream.js';

/** Auth retries of one HTTP request (authorize, step up, DPoP nonce). */
export const MAX_AUTH_RETRIES = 3;

/** The auth hooks of an HTTP client transport, as its options gave them (see {@link StreamableHttpClientOptions}). */
export interface ClientAuthHooks {
  readonly authorize?: StreamableHttpClientOptions['authorize'] | undefined;
  readonly authorizationHeaders?: StreamableHttpClientOptions['authorizationHeaders'] | undefined;
  readonly onUnauthorized?: StreamableHttpClientOptions['onUnauthorized'] | undefined;
}

/** Copies the auth hooks out of a transport's options (later changes to the options are not seen). */
export function authHooksOf(options: ClientAuthHooks): ClientAuthHooks {
  return Object.freeze({ authorize: options.authorize, authorizationHeaders: options.authorizationHeaders, onUnauthorized: options.onUnauthorized });
}

/** One HTTP request as {@link authorizedFetch} sends it. */
export interface AuthorizedRequest {
  readonly method: string;
  readonly url: string;
  /** The headers without authorization (lower-cased names). */
  readonly headers: HeaderMap;
  readonly body: string | null;
  /** A signal, or the exchange's {@link Cancellation} (handed to a `fetch` that takes a {@link FETCH_ABORT_HOOK}, else as its signal). */
  readonly signal: AbortSignal | Cancellation;
  /** False: a 401/403 is returned as is, without calling `onUnauthorized`. */
  readonly mayRetry: boolean;
  /**
   * The transport's sink: its request timers are suspended while `onUnauthorized` runs (it
   * may wait for a person to sign in); see {@link ChannelSink.suspendTimers}.
   */
  readonly sink?: ChannelSink | undefined;
}

/**
 * Sends one HTTP request with auth: headers from `authorizationHeaders` (or a bearer token
 * from `authorize`); after a 401 (or a 403 with a challenge) that `onUnauthorized` resolves
 * true for, it is retried, at most {@link MAX_AUTH_RETRIES} times. No request timer runs
 * while `onUnauthorized` does (`sink.suspendTimers`): a sign-in takes as long as the person needs. Resolves with the last
 * response, whatever its status; rejects only when `fetch` or a hook does.
 */
export function authorizedFetch(fetch: FetchLike, hooks: ClientAuthHooks, request: AuthorizedRequest): Promise<Response> {
  if (hooks.authorizationHeaders === undefined && hooks.authorize === undefined) {
    // No credentials to add (the common case): one request without an async frame of its own.
    // Only a challenge goes on to `onUnauthorized` and the retries, as in withAuth.
    const sent = fetch(request.url, fetchInit(fetch, request.method, request.headers, request.body, request.signal));
    if (hooks.onUnauthorized === undefined || !request.mayRetry) return sent;
    return sent.then((response) => (challenged(response) ? withAuth(fetch, hooks, request, response) : response));
  }
  return withAuth(fetch, hooks, request);
}

/** A 401, or a 403 with a challenge: what `onUnauthorized` is asked about. */
function challenged(response: Response): boolean {
  return response.status === 401 || (response.status === 403 && response.headers.get('www-authenticate') !== null);
}

/** The `init` of one request: the abort as a {@link FETCH_ABORT_HOOK} when `fetch` takes one, else as a signal. */
function fetchInit(fetch: FetchLike, method: string, headers: HeaderMap, body: string | null, abort: AbortSignal | Cancellation): FetchInit {
  if (!(abort instanceof Cancellation)) return { method, headers, body, signal: abort };
  return fetch[FETCH_ABORT_HOOK] === true ? { method, headers, body, [FETCH_ABORT_HOOK]: abort } : { method, headers, body, signal: abort.signal };
}

/** {@link authorizedFetch} with credentials or retries; `first` is the answer to a first attempt already sent. */
async function withAuth(fetch: FetchLike, hooks: ClientAuthHooks, request: AuthorizedRequest, first?: Response): Promise<Response> {
  const url = request.url;
  for (let attempt = 0; ; attempt++) {
    const { response, authorization } = attempt === 0 && first !== undefined ? { response: first, authorization: request.headers[H.authorization] } : await send(fetch, hooks, request);
    const status = response.status;
    const challenge = response.headers.get('www-authenticate');
    if (request.mayRetry && attempt < MAX_AUTH_RETRIES && hooks.onUnauthorized !== undefined && challenged(response)) {
      const nonce = response.headers.get('dpop-nonce');
      const info: UnauthorizedInfo = { status, wwwAuthenticate: challenge ?? undefined, url, ...(nonce !== null ? { dpopNonce: nonce } : {}), ...(authorization !== undefined ? { authorization } : {}) };
      const resume = request.sink?.suspendTimers?.();
      let retry: boolean;
      try {
        retry = await hooks.onUnauthorized(info);
      } finally {
        resume?.();
      }
      if (retry) {
        discard(response);
        continue;
      }
    }
    return response;
  }
}

/** One attempt with the current credentials (`authorizationHeaders`, else a bearer token from `authorize`), and the `Authorization` it carried. */
async function send(fetch: FetchLike, hooks: ClientAuthHooks, request: AuthorizedRequest): Promise<{ readonly response: Response; readonly authorization: string | undefined }> {
  const { method, url } = request;
  let headers = request.headers;
  if (hooks.authorizationHeaders !== undefined) {
    const extra = await hooks.authorizationHeaders(method, url);
    headers = { ...request.headers };
    for (const [name, value] of Object.entries(extra)) headers[name.toLowerCase()] = value;
  } else if (hooks.authorize !== undefined) {
    const token = await hooks.authorize();
    if (token !== undefined) headers = { ...request.headers, [H.authorization]: `Bearer ${token}` };
  }
  return { response: await fetch(url, fetchInit(fetch, method, headers, request.body, request.signal)), authorization: headers[H.authorization] };
}
