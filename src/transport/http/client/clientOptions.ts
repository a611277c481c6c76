/**
 * Options of the Streamable HTTP client transport (`StreamableHttpClientTransport` in
 * `client.ts`): endpoint, fetch, static headers, the auth hooks, stream and decoder knobs.
 *
 * @see https://modelcontextprotocol.io/specification/2026-07-28/basic/transports/streamable-http
 * @see https://modelcontextprotocol.io/specification/2026-07-28/basic/authorization
 * @module
 */
import type { DecodeLimits } from '../../../jsonrpc/decode.js';
import type { Logger } from '../../../util/logger.js';

/**
 * A lighter stand-in for `AbortSignal` between the HTTP client transport and a `fetch` that
 * says it takes one: a `fetch` with `[FETCH_ABORT_HOOK]: true` (as `nodeFetch` has) gets the
 * hook as `init[FETCH_ABORT_HOOK]` instead of an `init.signal`, and treats it as it would the
 * signal. A `fetch` without the mark gets a real `AbortSignal`. Making an `AbortController`
 * and adding and removing its listener for every call a gateway forwards cost more than the
 * rest of the request's bookkeeping.
 */
export const FETCH_ABORT_HOOK = Symbol('switchboard.fetchAbortHook');

/** What a `fetch` marked with {@link FETCH_ABORT_HOOK} finds at `init[FETCH_ABORT_HOOK]`. */
export interface FetchAbortHook {
  /** True once aborted. */
  readonly aborted: boolean;
  /** Why it was aborted (what a signal's `reason` would be). */
  readonly reason: unknown;
  /** Sets the one callback run once on abort (replacing the previous one). */
  onAbort(callback: (reason: unknown) => void): void;
  /** Removes `callback` if it is the one set (a later request's callback stays). */
  offAbort(callback: (reason: unknown) => void): void;
}

/** `RequestInit` with an optional {@link FetchAbortHook}. */
export type FetchInit = RequestInit & { readonly [FETCH_ABORT_HOOK]?: FetchAbortHook };

/**
 * The `fetch` the transport calls (the global one by default). One marked with
 * `[FETCH_ABORT_HOOK]: true` takes a {@link FetchAbortHook} in place of `init.signal`.
 */
export type FetchLike = ((url: string, init: FetchInit) => Promise<Response>) & { readonly [FETCH_ABORT_HOOK]?: true };

/** What {@link StreamableHttpClientOptions.onUnauthorized} learns about a refused request. */
export interface UnauthorizedInfo {
  /** 401, or 403 with a `WWW-Authenticate` challenge (e.g. `insufficient_scope`). */
  readonly status: number;
  /** The `WWW-Authenticate` header, if any. */
  readonly wwwAuthenticate: string | undefined;
  /** The `DPoP-Nonce` response header, if any (RFC 9449 section 9). */
  readonly dpopNonce?: string;
  /** The URL of the refused request. */
  readonly url?: string;
  /**
   * The `Authorization` header the refused request carried, if any: which credential was refused,
   * when another request may have renewed it since. A secret: never log it.
   */
  readonly authorization?: string;
}

/** Options for a {@link StreamableHttpClientTransport}. */
export interface StreamableHttpClientOptions {
  /** The MCP endpoint. */
  readonly url: string | URL;
  /** The `fetch` to use. Default: the global one. */
  readonly fetch?: FetchLike;
  /** Extra headers on every HTTP request (names are case-insensitive; protocol headers win). */
  readonly headers?: Readonly<Record<string, string>>;
  /** Supplies a bearer token per HTTP request; `undefined` sends no `Authorization`. */
  readonly authorize?: () => Promise<string | undefined>;
  /**
   * Supplies the authorization headers of one HTTP request (e.g. `Authorization: DPoP …` plus
   * a fresh `DPoP` proof bound to `method` and `url`). Takes precedence over `authorize`.
   */
  readonly authorizationHeaders?: (method: string, url: string) => Promise<Readonly<Record<string, string>>>;
  /**
   * Called on 401 (or 403 with a challenge); resolve true to retry the request. A request is
   * retried at most 3 times (e.g. authorize, then answer a DPoP nonce challenge).
   */
  readonly onUnauthorized?: (info: UnauthorizedInfo) => Promise<boolean>;
  /** Open the standalone GET SSE stream after `notifications/initialized` (stateful eras). Default true. */
  readonly openGetStream?: boolean;
  /** Reconnections in a row without progress before a stream is given up. Default 5. */
  readonly maxReconnects?: number;
  /** Reconnection delay in ms until the server sends `retry:`. Default 1,000. */
  readonly reconnectDelayMs?: number;
  /** Decoder limits for response messages. */
  readonly limits?: DecodeLimits;
  /** Diagnostics. Default: silent. */
  readonly logger?: Logger;
}
