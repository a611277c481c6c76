/**
 * Hosting a web-standard OAuth endpoint, such as the development authorization server of
 * `auth/dev`, with the same runtime adapters as the MCP handler: {@link authFetchHandler} wraps a
 * `(Request) => Promise<Response>` as a {@link StreamableHttpHandler}, so `listen()` from
 * `adapters/nodeHttp.ts` serves it on its own port. No MCP processing happens here.
 *
 * @module
 */
import { readBody } from './exchange.js';
import type { StreamableHttpHandler } from './server.js';
import type { HttpRequestLike, HttpResponseLike } from './types.js';
import { fromWebRequest, toWebResponse } from './webEntry.js';

/** Options of {@link authFetchHandler}. */
export interface AuthFetchHandlerOptions {
  /**
   * The origin the endpoint is reached at (`http://127.0.0.1:4000`), or a function returning it
   * (for servers bound to port 0). Request URLs are built on it, never on the `Host` header.
   */
  readonly origin: string | (() => string);
  /** Largest request body in bytes; larger gets 413. Default 64 KiB (OAuth forms are small). */
  readonly maxBodyBytes?: number;
}

/** The request headers an OAuth endpoint reads; nothing else is forwarded. */
const FORWARDED_HEADERS = ['accept', 'authorization', 'content-type', 'dpop', 'origin'] as const;

const PLAIN_ERROR: Readonly<Record<string, string>> = Object.freeze({ 'content-type': 'application/json', 'cache-control': 'no-store' });

/**
 * Wraps a web handler (e.g. `createDevAuthorizationServer(...).handler`) as a
 * {@link StreamableHttpHandler} for the runtime adapters. Only the headers OAuth endpoints use
 * (`Accept`, `Authorization`, `Content-Type`, `DPoP`, `Origin`) are passed on.
 *
 * @example
 * ```ts
 * const as = await createDevAuthorizationServer({ issuer: 'http://127.0.0.1:4000', [allowInsecureRequests]: true });
 * await listen(authFetchHandler((r) => as.handler(r), { origin: as.issuer }), { port: 4000 });
 * ```
 */
export function authFetchHandler(handler: (request: Request) => Promise<Response>, options: AuthFetchHandlerOptions): StreamableHttpHandler {
  const maxBodyBytes = options.maxBodyBytes ?? 64 * 1024;
  const origin = typeof options.origin === 'string' ? () => options.origin as string : options.origin;

  async function handle(req: HttpRequestLike): Promise<HttpResponseLike> {
    try {
      const headers = new Headers();
      for (const name of FORWARDED_HEADERS) {
        const value = req.header(name);
        if (value !== undefined) headers.set(name, value);
      }
      const init: RequestInit = { method: req.method, headers };
      if (req.method !== 'GET' && req.method !== 'HEAD') {
        const bytes = await readBody(req.body, maxBodyBytes);
        if (bytes === undefined) return { status: 413, headers: PLAIN_ERROR, body: '{"error":"invalid_request"}' };
        init.body = bytes as Uint8Array<ArrayBuffer>;
      }
      const url = `${origin().replace(/\/+$/, '')}${req.path}${req.query === undefined ? '' : `?${req.query}`}`;
      const response = await handler(new Request(url, init));
      const out: Record<string, string> = {};
      response.headers.forEach((value, name) => {
        out[name] = value;
      });
      const body = new Uint8Array(await response.arrayBuffer());
      return body.byteLength === 0 ? { status: response.status, headers: out } : { status: response.status, headers: out, body };
    } catch {
      return { status: 500, headers: PLAIN_ERROR, body: '{"error":"server_error"}' };
    }
  }

  return {
    handle,
    maxBodyBytes,
    sessionCount: 0,
    close: () => Promise.resolve(),
    async fetch(request) {
      return toWebResponse(await handle(fromWebRequest(request)));
    },
  };
}
