/**
 * Which path of the Streamable HTTP handler serves a request, decided once and up front:
 * {@link routeRequest} reads the method, path and headers; a Streamable POST is completed by
 * {@link routePost} from its decoded body (the checks and the body read before that are the
 * same for both eras). The paths then always answer what they are given, none declines:
 *
 * | Request | Route |
 * |---|---|
 * | `legacySse.path` (GET / other) | `legacy-stream` / `legacy-not-allowed` (405, `Allow: GET`) |
 * | `legacySse.messagesPath` (POST / other) | `legacy-message` / `legacy-not-allowed` (405, `Allow: POST`) |
 * | not the `path` option | `not-found` (404) |
 * | POST | `post`, then {@link routePost} |
 * | GET / DELETE with `Mcp-Session-Id` (stateful sessions on) | `session-stream` / `session-delete` |
 * | OPTIONS with `Origin` (a CORS preflight) | `preflight` (204, `cors.ts`) |
 * | anything else | `not-allowed` (405, `Allow: POST`) |
 *
 * | POST body | Post route |
 * |---|---|
 * | one message whose `_meta` carries the 2026 protocol version, or stateful sessions off | `stateless` |
 * | `initialize` request without `Mcp-Session-Id` | `initialize` |
 * | anything else with `Mcp-Session-Id` | `session` |
 * | anything else | `stateless` |
 *
 * @see https://modelcontextprotocol.io/specification/2026-07-28/basic/transports/streamable-http
 * @see https://modelcontextprotocol.io/specification/2025-11-25/basic/transports#streamable-http
 * @module
 */
import { isBatchResult, type DecodeResult } from '../../../jsonrpc/decode.js';
import type { JsonRpcMessage, JsonRpcRequest } from '../../../jsonrpc/messages.js';
import { META_PROTOCOL_VERSION } from '../../../protocol/meta.js';
import type { LegacySseEndpoint } from '../legacy/legacySse.js';
import { trimOws } from '../headerValue.js';
import type { StatefulHttp } from './stateful.js';
import type { HttpRequestLike } from './types.js';

/** What the routing decision depends on besides the request. */
export interface RoutingConfig {
  /** The MCP endpoint's path; undefined: every path (the `path` option). */
  readonly endpoint: string | undefined;
  /** The 2024-11-05 HTTP+SSE endpoint, when the `legacySse` option is set. */
  readonly legacy: LegacySseEndpoint | undefined;
  /** The stateful path, when stateful sessions are served. */
  readonly stateful: StatefulHttp | undefined;
}

/** Where a request goes, from its method, path and headers. */
export type RequestRoute =
  | { readonly to: 'legacy-stream'; readonly legacy: LegacySseEndpoint }
  | { readonly to: 'legacy-message'; readonly legacy: LegacySseEndpoint }
  | { readonly to: 'legacy-not-allowed'; readonly allow: 'GET' | 'POST' }
  | { readonly to: 'not-found' }
  | { readonly to: 'post' }
  | { readonly to: 'session-stream'; readonly stateful: StatefulHttp; readonly sessionId: string }
  | { readonly to: 'session-delete'; readonly stateful: StatefulHttp; readonly sessionId: string }
  | { readonly to: 'preflight' }
  | { readonly to: 'not-allowed' };

/** Where a Streamable POST goes, once its body is decoded. */
export type PostRoute =
  | { readonly to: 'stateless' }
  | { readonly to: 'initialize'; readonly stateful: StatefulHttp; readonly message: JsonRpcRequest }
  | { readonly to: 'session'; readonly stateful: StatefulHttp; readonly sessionId: string };

const NOT_FOUND: RequestRoute = Object.freeze({ to: 'not-found' });
const POST: RequestRoute = Object.freeze({ to: 'post' });
const NOT_ALLOWED: RequestRoute = Object.freeze({ to: 'not-allowed' });
const PREFLIGHT: RequestRoute = Object.freeze({ to: 'preflight' });
const STATELESS: PostRoute = Object.freeze({ to: 'stateless' });

/** The route of a request from its method, path and headers (the body is not read). */
export function routeRequest(req: HttpRequestLike, config: RoutingConfig): RequestRoute {
  const { method, path } = req;
  const legacy = config.legacy;
  if (legacy !== undefined) {
    if (path === legacy.path) return method === 'GET' ? { to: 'legacy-stream', legacy } : { to: 'legacy-not-allowed', allow: 'GET' };
    if (path === legacy.messagesPath) return method === 'POST' ? { to: 'legacy-message', legacy } : { to: 'legacy-not-allowed', allow: 'POST' };
  }
  if (config.endpoint !== undefined && path !== config.endpoint) return NOT_FOUND;
  if (method === 'POST') return POST;
  if (method === 'OPTIONS' && req.header('origin') !== undefined) return PREFLIGHT;
  const stateful = config.stateful;
  if (stateful !== undefined && (method === 'GET' || method === 'DELETE')) {
    const id = req.header('mcp-session-id');
    if (id !== undefined) return { to: method === 'GET' ? 'session-stream' : 'session-delete', stateful, sessionId: trimOws(id) };
  }
  return NOT_ALLOWED;
}

function carries2026Meta(message: JsonRpcMessage): boolean {
  if (!('method' in message)) return false;
  const meta = message.params?.['_meta'];
  return typeof meta === 'object' && meta !== null && META_PROTOCOL_VERSION in meta;
}

/**
 * The route of a Streamable POST from its headers and decoded body. Synchronous and
 * allocation-free for the stateless path (its hot path). A body carrying the 2026 `_meta`
 * version is stateless, session header or not (2026-07-28 ignores `Mcp-Session-Id`).
 */
export function routePost(req: HttpRequestLike, decoded: DecodeResult, stateful: StatefulHttp | undefined): PostRoute {
  if (stateful === undefined) return STATELESS;
  const single = !isBatchResult(decoded) && decoded.ok ? decoded.message : undefined;
  if (single !== undefined && carries2026Meta(single)) return STATELESS;
  const id = req.header('mcp-session-id');
  if (id !== undefined) return { to: 'session', stateful, sessionId: trimOws(id) };
  if (single !== undefined && 'method' in single && single.method === 'initialize' && 'id' in single) {
    return { to: 'initialize', stateful, message: single as JsonRpcRequest };
  }
  return STATELESS;
}
