/**
 * CORS for browser clients of the Streamable HTTP endpoint: the preflight (`OPTIONS`) answer
 * and the headers added to actual responses, for origins the `allowedOrigins` list admits
 * (a disallowed origin is refused with 403 before this runs, so it never gets these headers).
 *
 * @see https://fetch.spec.whatwg.org/#http-cors-protocol
 * @see https://modelcontextprotocol.io/specification/2025-11-25/basic/transports#security-warning
 * @module
 */

import type { HttpRequestLike, HttpResponseLike } from './types.js';

/** The request headers a browser client may send (the Mcp-Param-* ones are added per request). */
export const CORS_ALLOW_HEADERS: readonly string[] = Object.freeze([
  'content-type',
  'accept',
  'authorization',
  'mcp-protocol-version',
  'mcp-session-id',
  'last-event-id',
  'mcp-method',
  'mcp-name',
]);
/** The response headers a browser client may read. */
export const CORS_EXPOSE_HEADERS = 'mcp-session-id, mcp-protocol-version, www-authenticate';
/** The methods of the endpoint. */
export const CORS_ALLOW_METHODS = 'GET, POST, DELETE, OPTIONS';
/** How long (seconds) a browser may cache a preflight answer. */
export const CORS_MAX_AGE = '600';

/**
 * The 204 answer to a preflight from the allowed `origin`. The `Mcp-Param-*` headers named by
 * `Access-Control-Request-Headers` are allowed too (their names depend on the tool).
 */
export function preflightResponse(req: HttpRequestLike, origin: string): HttpResponseLike {
  const requested = (req.header('access-control-request-headers') ?? '')
    .split(',')
    .map((name) => name.trim().toLowerCase())
    .filter((name) => /^mcp-param-[a-z0-9-]+$/.test(name));
  return {
    status: 204,
    headers: {
      'access-control-allow-origin': origin,
      'access-control-allow-methods': CORS_ALLOW_METHODS,
      'access-control-allow-headers': [...CORS_ALLOW_HEADERS, ...new Set(requested)].join(', '),
      'access-control-max-age': CORS_MAX_AGE,
      vary: 'Origin, Access-Control-Request-Headers',
    },
  };
}

/** `response` with the CORS headers for the allowed `origin` added. */
export function withCorsHeaders(response: HttpResponseLike, origin: string): HttpResponseLike {
  const vary = response.headers['vary'];
  return {
    ...response,
    headers: {
      ...response.headers,
      'access-control-allow-origin': origin,
      'access-control-expose-headers': CORS_EXPOSE_HEADERS,
      vary: vary === undefined ? 'Origin' : `${vary}, Origin`,
    },
  };
}
