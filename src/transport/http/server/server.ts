/**
 * The Streamable HTTP server transport, revision 2026-07-28 (stateless): one POST endpoint,
 * one JSON-RPC request or notification per POST, answered with `application/json` or with a
 * request-scoped `text/event-stream`. On the same endpoint, when the dispatcher implements
 * `createSession`, the stateful revisions 2025-03-26 … 2025-11-25 (header-less `initialize`,
 * `Mcp-Session-Id`, the GET stream, resumability, DELETE) are served by `stateful.ts`.
 *
 * The core works on {@link HttpRequestLike}/{@link HttpResponseLike} (no WHATWG objects on the
 * hot path); {@link StreamableHttpHandler.fetch} is the web-standard entry built on it, and
 * `adapters/nodeHttp.ts` is the Node one. This module is runtime-neutral.
 *
 * Request pipeline, first failure wins. Which path serves a request (legacy HTTP+SSE,
 * stateful, stateless) is decided once, from its method, path and headers and, for a POST,
 * its decoded body (`routing.ts`); the `Host`/`Origin`/auth checks and the `route` hook run
 * at their places around that decision:
 *
 * | Check | Failure |
 * |---|---|
 * | one `Host` (RFC 9112 section 3.2), on the allow-list (DNS rebinding) | 400 / 403 |
 * | `auth` set: GET/HEAD/OPTIONS on a Protected Resource Metadata well-known path | the document (public, CORS) |
 * | `Origin`, when present, on the allow-list | 403 |
 * | `mounts`: a mount owning the path answers (health, admin API, console; their own credentials, no CORS) | its response, or 404 |
 * | OPTIONS with an allowed `Origin` (CORS preflight) | 204 + `Access-Control-Allow-*` (`cors.ts`) |
 * | GET on a `/.well-known/` path the dispatcher serves (`wellKnown`: the signed manifest) | the document (public) |
 * | `auth` set: non-POST requests (OPTIONS aside) carry a valid bearer token | 401/403/400 + `WWW-Authenticate` |
 * | `legacySse` set: its `path`/`messagesPath` → the 2024-11-05 HTTP+SSE transport (`legacySse.ts`, with `auth`) | see there |
 * | `route` hook (extra endpoints …) may answer | its response |
 * | GET/DELETE with `Mcp-Session-Id` → the stateful path | see `stateful.ts` |
 * | method is POST | 405, `Allow: POST` |
 * | `Content-Type: application/json` | 415 |
 * | `Accept` lists `application/json` and `text/event-stream` | 406 |
 * | body within `maxBodyBytes` (`Content-Length`, then while reading) | 413 |
 * | `auth` set: a valid bearer token with the scopes the decoded messages need (see `auth.ts`) | 401/403/400 + `WWW-Authenticate` |
 * | `route` hook, then the stateful path (`initialize` without a session, `Mcp-Session-Id`) | their response |
 * | body is one JSON-RPC request or notification | 400 + -32700/-32600 |
 * | `MCP-Protocol-Version`, `Mcp-Method`, `Mcp-Name`, `Mcp-Param-*` agree with the body | 400 + -32020 |
 * | notification dispatched | 202, empty |
 * | request dispatched | JSON (status from {@link httpStatusForError}) or SSE |
 *
 * @see https://modelcontextprotocol.io/specification/2026-07-28/basic/transports/streamable-http
 * @module
 */
import type { MessageExtra } from '../../../jsonrpc/channel.js';
import { decodeFrame, defaultDecodeLimits, isBatchResult, type DecodeLimits, type DecodeResult } from '../../../jsonrpc/decode.js';
import { ErrorCode, JsonRpcError } from '../../../jsonrpc/errors.js';
import { McpError, McpErrorCode } from '../../../util/errors.js';
import type { JsonRpcNotification, JsonRpcRequest, JsonRpcResponse, RequestId } from '../../../jsonrpc/messages.js';
import { silentLogger, type Logger } from '../../../util/logger.js';
import type { McpDispatcher } from '../../types.js';
import { createHttpAuth, type HttpAuthOptions } from './auth.js';
import { preflightResponse, withCorsHeaders } from './cors.js';
import { Exchange, isThenable, readBody } from './exchange.js';
import { trimOws } from '../headerValue.js';
import { LegacySseEndpoint, type LegacySseOptions } from '../legacy/legacySse.js';
import { routePost, routeRequest, type RoutingConfig } from './routing.js';
import { StatefulHttp, type StatefulOptions } from './stateful.js';
import { DEFAULT_MAX_SSE_BUFFERED_BYTES, PushSseStream } from './sseStream.js';
import type { HttpExtra, HttpRequestLike, HttpResponseLike, MountedRoutes } from './types.js';
import {
  acceptsJsonAndSse,
  checkParamHeaders,
  checkStandardHeaders,
  compileHostAllowList,
  compileOriginAllowList,
  hostRefusal,
  isAllowedOrigin,
  isJsonContentType,
  localhostNames,
  originRefusal,
} from './validate.js';
import { fromWebRequest, toWebResponse } from './webEntry.js';

export { fromWebRequest, pathOf, toWebResponse } from './webEntry.js';

/**
 * Unsafe switch: set `[allowAnyHost]: true` in the options to skip the `Host` check (for a
 * server behind a proxy that already pins the host). A symbol, so JSON config cannot set it.
 */
export const allowAnyHost: unique symbol = Symbol('switchboard.http.allowAnyHost');
/** Unsafe switch: set `[allowAnyOrigin]: true` to accept every `Origin` (DNS-rebinding defence off). */
export const allowAnyOrigin: unique symbol = Symbol('switchboard.http.allowAnyOrigin');

const tokenExpired = (): McpError =>
  new McpError(McpErrorCode.ConnectionClosed, 'the access token this stream was opened with expired; reconnect with a fresh one (Last-Event-ID resumes)');

/** What the {@link HttpRoute} hook sees of a request. */
export interface RouteInput {
  /** The raw body (POST only). */
  readonly bytes: Uint8Array | undefined;
  /** The body decoded with the handler's limits (POST only). */
  readonly decoded: DecodeResult | undefined;
}

/**
 * The seam for everything that is not the stateless 2026-07-28 path: the stateful
 * revisions (header-less `initialize`, `Mcp-Session-Id`, the GET stream, DELETE),
 * authentication challenges, extra endpoints. It runs after the `Host`/`Origin` checks:
 * once with `input` undefined for a non-POST request (before the 405), and once per POST
 * after the body was read and decoded (before any 2026 header rule). Return a response to
 * take the request, or undefined to let the stateless path continue.
 */
export type HttpRoute = (
  request: HttpRequestLike,
  input: RouteInput | undefined,
) => HttpResponseLike | undefined | Promise<HttpResponseLike | undefined>;

/**
 * Options for {@link createStreamableHttpHandler}. The {@link StatefulOptions} members
 * (`maxSessions`, `sessionIdleTimeoutMs`, `maxBufferedEventsPerSession`, `eventStore`,
 * `retryMs`, `peerRequestTimeoutMs`) tune the stateful revisions.
 */
export interface StreamableHttpServerOptions extends StatefulOptions {
  /**
   * Serve the stateful revisions (2025-03-26 … 2025-11-25: sessions, GET stream, DELETE)
   * when the dispatcher implements `createSession`. Default true; false answers
   * `initialize` like any other request of the stateless path.
   */
  readonly statefulSessions?: boolean;
  /**
   * Allowed `Host` values: bare names match any port (`localhost`), `name:port` matches
   * exactly. Default: `localhost`, `127.0.0.1`, `[::1]`. A request without `Host` passes.
   */
  readonly allowedHosts?: readonly string[];
  /**
   * Allowed `Origin` values: full origins (`https://app.example.com`) match exactly; bare
   * names allow that host over http(s) with any port. Default: the localhost names. A request
   * without `Origin` passes; a present, unlisted one (including `null`) gets 403.
   */
  readonly allowedOrigins?: readonly string[];
  /** See {@link allowAnyHost}. */
  readonly [allowAnyHost]?: boolean;
  /** See {@link allowAnyOrigin}. */
  readonly [allowAnyOrigin]?: boolean;
  /** Largest request body in bytes; larger gets 413. Default 4 MiB. */
  readonly maxBodyBytes?: number;
  /** JSON-RPC decoder limits (`maxBytes` is capped at `maxBodyBytes`; batches stay off). */
  readonly decodeLimits?: DecodeLimits;
  /** Diagnostics. Default: silent. */
  readonly logger?: Logger;
  /**
   * Adds facts to `DispatchEnv.extra`. The handler always sets `extra.http` ({@link HttpExtra});
   * a hook key named `http` is overwritten. Without `auth`, a hook that authenticates by other
   * means sets `DispatchEnv.principal` by returning `{ [PRINCIPAL]: { id } }`.
   */
  readonly extra?: (request: HttpRequestLike) => MessageExtra | undefined | Promise<MessageExtra | undefined>;
  /** Interval of SSE comment keep-alives on open streams, in ms; 0 disables. Default 15,000. */
  readonly sseKeepAliveMs?: number;
  /**
   * How many bytes an SSE reader may fall behind (written, not yet taken by the network)
   * before its stream is cut, so a stalled client cannot grow the server's memory without
   * bound; 0 disables. Needs an adapter that reports its buffer (`toNodeHandler` and the web
   * `fetch` entry do). Default 8 MiB.
   */
  readonly maxSseBufferedBytes?: number;
  /**
   * When set, a request whose `MCP-Protocol-Version` header (already matched against
   * `_meta`) is not listed is answered here with -32022 (400) instead of being dispatched.
   * When unset the dispatcher decides.
   */
  readonly supportedVersions?: readonly string[];
  /** See {@link HttpRoute}. */
  readonly route?: HttpRoute;
  /**
   * Extra endpoints ({@link MountedRoutes}), tried in order after the `Host`/`Origin` checks
   * and before the MCP routing and `auth`: the same DNS-rebinding policy guards them, and they
   * bring their own credentials. Their responses get no CORS headers from this handler.
   */
  readonly mounts?: readonly MountedRoutes[];
  /**
   * OAuth 2.1 protection (see `auth.ts`): serves the Protected Resource Metadata at its
   * well-known paths and authenticates every MCP request (POST, GET stream, DELETE) before
   * dispatch. The verified principal reaches the dispatcher as `DispatchEnv.principal`
   * (`{ id, auth }`: sessions, `requestState` and tasks are bound to `id`; `auth` is the frozen
   * `VerifiedPrincipal`); this option owns it, and `extra.http.getHeader` no longer reveals credentials.
   */
  readonly auth?: HttpAuthOptions;
  /**
   * The MCP endpoint's path (e.g. `/mcp`); any other path gets 404. Default: every path is
   * the endpoint (mount the handler where you want it).
   */
  readonly path?: string;
  /**
   * Also serve the deprecated HTTP+SSE transport of revision 2024-11-05 for older clients
   * (see `legacySse.ts`): `GET path` opens a session's stream, whose `endpoint` event names
   * `messagesPath?sessionId=…` for the client's POSTs. The `Host`/`Origin` checks, `auth`,
   * `maxBodyBytes`, `maxSessions`, `sseKeepAliveMs` and `maxSseBufferedBytes` apply. Needs a
   * dispatcher with sessions (`createSession`). Default: off.
   */
  readonly legacySse?: LegacySseOptions;
}

/** The handler returned by {@link createStreamableHttpHandler}. */
export interface StreamableHttpHandler {
  /** Handles one request on the internal shapes. Never rejects. */
  handle(request: HttpRequestLike): Promise<HttpResponseLike>;
  /** The web-standard entry (Hono `app.fetch`, tRPC `fetchRequestHandler` style). Never rejects. */
  fetch(request: Request): Promise<Response>;
  /** The body limit, for adapters that enforce it while reading. */
  readonly maxBodyBytes: number;
  /** Open stateful sessions, legacy HTTP+SSE ones included (0 when both are off). */
  readonly sessionCount: number;
  /** Ends every stateful and legacy HTTP+SSE session (`closeSession`, streams closed) and stops the idle sweep. */
  close(): Promise<void>;
}

const JSON_HEADERS: Readonly<Record<string, string>> = Object.freeze({ 'content-type': 'application/json' });
const NO_HEADERS: Readonly<Record<string, string>> = Object.freeze({});
const ALLOW_POST: Readonly<Record<string, string>> = Object.freeze({ 'content-type': 'application/json', allow: 'POST' });
const ALLOW_GET: Readonly<Record<string, string>> = Object.freeze({ 'content-type': 'application/json', allow: 'GET' });
const ACCEPTED: HttpResponseLike = Object.freeze({ status: 202, headers: NO_HEADERS });

/** Serializes an error response; the id is omitted when it could not be read (2026-07-28 `JSONRPCErrorResponse.id?`). */
function errorBody(error: JsonRpcError, id: RequestId | undefined): string {
  return JSON.stringify(id === undefined ? { jsonrpc: '2.0', error: error.toJSON() } : { jsonrpc: '2.0', id, error: error.toJSON() });
}

function errorResponse(status: number, error: JsonRpcError, id?: RequestId, headers: Readonly<Record<string, string>> = JSON_HEADERS): HttpResponseLike {
  return { status, headers, body: errorBody(error, id) };
}


/**
 * Creates the Streamable HTTP server handler for revision 2026-07-28.
 *
 * HTTP statuses for JSON-RPC errors follow {@link httpStatusForError}: -32601 → 404;
 * -32020/-32021/-32022 and -32602-for-missing-`_meta` → 400; every other error → 200 with
 * the error body (the spec leaves them unpinned; see the checklist's trap on ordinary
 * errors). Once an SSE stream is open the status is already 200 and errors travel as events.
 *
 * @example
 * ```ts
 * const handler = createStreamableHttpHandler(server.dispatcher, { logger });
 * export default { fetch: handler.fetch }; // any fetch-style runtime
 * // or on Node: await listen(handler, { port: 3000 });
 * ```
 * @see https://modelcontextprotocol.io/specification/2026-07-28/basic/transports/streamable-http
 */
export function createStreamableHttpHandler(dispatcher: McpDispatcher, options: StreamableHttpServerOptions = {}): StreamableHttpHandler {
  const logger = options.logger ?? silentLogger;
  const maxBodyBytes = options.maxBodyBytes ?? 4 * 1024 * 1024;
  const limits: DecodeLimits = {
    ...defaultDecodeLimits,
    ...options.decodeLimits,
    maxBytes: Math.min(options.decodeLimits?.maxBytes ?? maxBodyBytes, maxBodyBytes),
    allowBatch: false,
  };
  const hosts = options[allowAnyHost] === true ? undefined : compileHostAllowList(options.allowedHosts ?? localhostNames);
  const origins = options[allowAnyOrigin] === true ? undefined : compileOriginAllowList(options.allowedOrigins ?? localhostNames);
  const keepAliveMs = options.sseKeepAliveMs ?? 15_000;
  const maxSseBufferedBytes = options.maxSseBufferedBytes ?? DEFAULT_MAX_SSE_BUFFERED_BYTES;
  const supported = options.supportedVersions === undefined ? undefined : new Set(options.supportedVersions);
  const extraHook = options.extra;
  const route = options.route;
  const mounts = options.mounts !== undefined && options.mounts.length > 0 ? options.mounts : undefined;
  const mountOf = (path: string): MountedRoutes | undefined => mounts?.find((m) => m.owns(path));
  const endpoint = options.path;
  const auth = options.auth === undefined ? undefined : createHttpAuth(options.auth, limits, logger);

  /** `DispatchEnv.extra` of a request; synchronous unless `auth` is set or the `extra` hook is async. */
  function extraOf(req: HttpRequestLike): MessageExtra | Promise<MessageExtra> {
    if (auth !== undefined) return authExtra(req);
    const http: HttpExtra = { getHeader: req.header, method: req.method, path: req.path };
    if (extraHook === undefined) return { http };
    const added = extraHook(req);
    if (isThenable<MessageExtra | undefined>(added)) return Promise.resolve(added).then((more) => (more === undefined ? { http } : { ...more, http }));
    return added === undefined ? { http } : { ...added, http };
  }
  async function authExtra(req: HttpRequestLike): Promise<MessageExtra> {
    const authenticated = auth as NonNullable<typeof auth>;
    const http: HttpExtra = { getHeader: authenticated.redact(req.header), method: req.method, path: req.path };
    const added = extraHook === undefined ? undefined : await extraHook(req);
    return authenticated.extra(req, added === undefined ? { http } : { ...added, http });
  }
  async function makeExtra(req: HttpRequestLike): Promise<MessageExtra> {
    return extraOf(req);
  }
  const legacyOptions = options.legacySse;
  if (legacyOptions !== undefined && dispatcher.createSession === undefined) {
    throw new TypeError('legacySse needs a dispatcher with sessions (createSession)');
  }
  // The legacy transport shares the stateful path's sessions (cap, idle sweep, close).
  const sessions =
    (options.statefulSessions !== false || legacyOptions !== undefined) && dispatcher.createSession !== undefined
      ? new StatefulHttp(dispatcher, options, { logger, keepAliveMs, maxSseBufferedBytes, limits, extra: extraOf })
      : undefined;
  const stateful = options.statefulSessions !== false ? sessions : undefined;
  const legacy =
    legacyOptions === undefined || sessions === undefined
      ? undefined
      : new LegacySseEndpoint(legacyOptions, {
          sessions,
          dispatcher,
          logger,
          maxBodyBytes,
          limits,
          extra: makeExtra,
          authenticate: auth === undefined ? undefined : (req, body) => auth.authenticate(req, body),
        });
  const routing: RoutingConfig = { endpoint, legacy, stateful };

  function reject(status: number, detail: string, headers?: Readonly<Record<string, string>>): HttpResponseLike {
    logger.debug('http request rejected', { status, detail });
    return errorResponse(status, JsonRpcError.invalidRequest(detail), undefined, headers);
  }

  /**
   * The stateless 2026-07-28 path: one decoded POST body, its header rules, then dispatch. Not
   * `async`: without auth or an async extra hook a request's answer is the exchange's promise,
   * returned as is (a forwarding gateway pays every promise and hop per call).
   */
  function stateless(req: HttpRequestLike, decoded: DecodeResult): HttpResponseLike | Promise<HttpResponseLike> {
    const get = req.header;
    if (isBatchResult(decoded)) return reject(400, 'the body must be a single JSON-RPC message, not a batch');
    if (!decoded.ok) {
      return errorResponse(400, decoded.error, decoded.id === null || decoded.isResponse ? undefined : decoded.id);
    }
    const message = decoded.message;
    if (!('method' in message)) return reject(400, 'the body must be a JSON-RPC request or notification, not a response');
    const isRequest = 'id' in message;
    const id = isRequest ? (message as JsonRpcRequest).id : undefined;

    const headerError = checkStandardHeaders(message, get, isRequest);
    if (headerError !== undefined) return errorResponse(400, headerError, id);

    if (supported !== undefined) {
      const version = get('mcp-protocol-version');
      if (version !== undefined && !supported.has(trimOws(version))) {
        const error = new JsonRpcError(ErrorCode.UnsupportedProtocolVersion, 'Unsupported protocol version', {
          supported: [...supported],
          requested: trimOws(version),
        });
        return errorResponse(400, error, id);
      }
    }

    const http: HttpExtra = { getHeader: get, method: req.method, path: req.path };
    if (auth !== undefined) return authExtra(req).then((extra) => statelessWith(req, message, id, extra));
    if (extraHook === undefined) return statelessWith(req, message, id, { http });
    const added = extraHook(req);
    if (isThenable<MessageExtra | undefined>(added)) return Promise.resolve(added).then((a) => statelessWith(req, message, id, a === undefined ? { http } : { ...a, http }));
    return statelessWith(req, message, id, added === undefined ? { http } : { ...added, http });
  }

  /** {@link stateless} once the request's extra is known: the tool's header rules, then dispatch. */
  function statelessWith(req: HttpRequestLike, message: JsonRpcRequest | JsonRpcNotification, id: RequestId | undefined, extra: MessageExtra): HttpResponseLike | Promise<HttpResponseLike> {
    const isRequest = 'id' in message;
    const exchange = new Exchange(req, extra, keepAliveMs, maxSseBufferedBytes);

    if (message.method === 'tools/call' && dispatcher.toolHeaders !== undefined) {
      const name = message.params?.['name'];
      if (typeof name === 'string') {
        const params = dispatcher.toolHeaders(name, exchange);
        if (params !== undefined && params.length > 0) {
          const paramError = checkParamHeaders(message.params?.['arguments'], params, req.header);
          if (paramError !== undefined) {
            exchange.dispose();
            return errorResponse(400, paramError, id);
          }
        }
      }
    }
    if (!isRequest) return notified(message, exchange);
    return exchange.run(dispatcher, message, logger);
  }

  /** A stateless notification: dispatched, then 202 (400 for an error answer). */
  async function notified(message: JsonRpcNotification, exchange: Exchange): Promise<HttpResponseLike> {
    let answer: JsonRpcResponse | undefined;
    try {
      answer = await dispatcher.dispatch(message, exchange);
    } catch (e) {
      logger.error('dispatcher rejected a notification', { method: message.method, error: String(e) });
      return errorResponse(500, JsonRpcError.internal());
    } finally {
      exchange.dispose();
    }
    if (answer !== undefined && 'error' in answer) {
      const error = JsonRpcError.fromObject(answer.error);
      return errorResponse(400, error);
    }
    return ACCEPTED;
  }

  async function handleInner(req: HttpRequestLike): Promise<HttpResponseLike> {
    const get = req.header;
    // DNS-rebinding defence first: nothing else is revealed to a foreign page.
    const badHost = hostRefusal(get('host'), hosts);
    if (badHost !== undefined) return reject(badHost.status, badHost.detail);
    if (auth !== undefined) {
      // The metadata is public and CORS-enabled: served before the Origin check.
      const metadata = auth.wellKnown(req);
      if (metadata !== undefined) return metadata;
    }
    const badOrigin = originRefusal(get('origin'), origins);
    if (badOrigin !== undefined) return reject(badOrigin.status, badOrigin.detail);
    if (mounts !== undefined) {
      const mount = mountOf(req.path);
      if (mount !== undefined) return (await mount.handle(req)) ?? reject(404, `nothing at ${req.path}`);
    }
    if (req.method === 'GET' && req.path.startsWith('/.well-known/') && dispatcher.wellKnown !== undefined) {
      const document = await dispatcher.wellKnown(req.path);
      if (document !== undefined) return { status: 200, headers: { 'content-type': document.contentType, 'cache-control': 'no-cache' }, body: document.body };
    }
    const target = routeRequest(req, routing);
    switch (target.to) {
      case 'post':
        break;
      // The deprecated HTTP+SSE transport's two paths (auth and body limits applied there).
      case 'legacy-stream':
        return target.legacy.open(req);
      case 'legacy-message':
        return target.legacy.post(req);
      case 'legacy-not-allowed':
        return reject(405, `this endpoint accepts ${target.allow}`, target.allow === 'GET' ? ALLOW_GET : ALLOW_POST);
      case 'not-found':
        return reject(404, `no MCP endpoint at ${req.path}`);
      case 'preflight':
        // Its Origin passed the allow-list above (a disallowed one got 403, no CORS headers).
        return preflightResponse(req, trimOws(get('origin') ?? ''));
      default: {
        // CORS preflights never carry credentials (Fetch standard); everything else must.
        if (auth !== undefined && req.method !== 'OPTIONS') {
          const refused = await auth.authenticate(req, undefined);
          if (refused !== undefined) return refused;
        }
        if (route !== undefined) {
          const routed = await route(req, undefined);
          if (routed !== undefined) return routed;
        }
        if (target.to === 'session-stream') return target.stateful.openStream(req, target.sessionId);
        if (target.to === 'session-delete') return target.stateful.deleteSession(req, target.sessionId);
        return reject(405, `method ${req.method} is not allowed; the MCP endpoint accepts POST`, ALLOW_POST);
      }
    }
    if (!isJsonContentType(get('content-type'))) return reject(415, 'the Content-Type must be application/json');
    if (!acceptsJsonAndSse(get('accept'))) return reject(406, 'the Accept header must list application/json and text/event-stream');
    const declared = get('content-length');
    if (declared !== undefined && Number(declared) > maxBodyBytes) {
      return reject(413, `the body is larger than ${maxBodyBytes} bytes`);
    }
    let bytes: Uint8Array | undefined;
    try {
      bytes = await readBody(req.body, maxBodyBytes);
    } catch (e) {
      logger.debug('reading the request body failed', { error: String(e) });
      return reject(400, 'the request body could not be read');
    }
    if (bytes === undefined) return reject(413, `the body is larger than ${maxBodyBytes} bytes`);
    const decoded = decodeFrame(bytes, limits);
    if (auth !== undefined) {
      const refused = await auth.authenticate(req, { bytes, decoded });
      if (refused !== undefined) return refused;
    }
    if (route !== undefined) {
      const routed = await route(req, { bytes, decoded });
      if (routed !== undefined) return routed;
    }
    const era = routePost(req, decoded, stateful);
    if (era.to === 'initialize') return era.stateful.initialize(req, era.message);
    if (era.to === 'session') return era.stateful.sessionPost(req, era.sessionId, bytes, decoded);
    // `return await`: a promise returned from an `async` function costs two more hops.
    return await stateless(req, decoded);
  }

  async function handle(req: HttpRequestLike): Promise<HttpResponseLike> {
    try {
      let response = await handleInner(req);
      // CORS on actual responses, only for an allowed Origin (a refused one stays bare).
      const origin = req.header('origin');
      if (
        origin !== undefined &&
        response.headers['access-control-allow-origin'] === undefined &&
        (origins === undefined || isAllowedOrigin(trimOws(origin), origins)) &&
        mountOf(req.path) === undefined
      ) {
        response = withCorsHeaders(response, trimOws(origin));
      }
      // A stream outlives the request that opened it: it must not outlive the token either.
      if (auth !== undefined && response.body instanceof PushSseStream) {
        const expiresAt = auth.expiresAt(req);
        if (expiresAt !== undefined) response.body.cutAt(expiresAt, tokenExpired);
      }
      return response;
    } catch (e) {
      logger.error('http handler failed', { error: String(e) });
      return errorResponse(500, JsonRpcError.internal());
    }
  }

  return {
    handle,
    maxBodyBytes,
    get sessionCount() {
      return sessions?.sessionCount ?? 0;
    },
    close() {
      sessions?.close();
      return Promise.resolve();
    },
    async fetch(request: Request): Promise<Response> {
      const response = await handle(fromWebRequest(request));
      return toWebResponse(response);
    },
  };
}
