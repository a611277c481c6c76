/**
 * The HTTP side of `switchboard gateway`: the gateway's `McpServer` behind the Streamable HTTP
 * handler (both eras on one endpoint, Host/Origin checks, body limits, sealed state), the
 * bearer token check, and `/healthz` + `/readyz` for process managers and load balancers.
 *
 * @module
 */
import { listen, type ListeningServer } from '../adapters/nodeHttp.js';
import { timingSafeEqual } from 'node:crypto';
import type { Gateway } from '../host/gateway.js';
import type { Host } from '../host/host.js';
import { createStreamableHttpHandler, type StreamableHttpHandler } from '../transport/http/server/server.js';
import type { HttpRequestLike, HttpResponseLike } from '../transport/http/server/types.js';
import type { Logger } from '../util/logger.js';

/** Where and how the gateway serves HTTP. */
export interface GatewayHttpOptions {
  readonly host: string;
  readonly port: number;
  readonly path: string;
  readonly logger: Logger;
  /** The bearer token every MCP request needs; undefined = none (loopback only). */
  readonly token: string | undefined;
}

/** Serves `gateway` over Streamable HTTP. */
export async function serveGatewayHttp(gateway: Gateway, host: Host, options: GatewayHttpOptions): Promise<ListeningServer> {
  const late: { inner?: StreamableHttpHandler } = {};
  const health = (request: HttpRequestLike): HttpResponseLike | undefined => {
    if (request.method !== 'GET' && request.method !== 'HEAD') return undefined;
    if (request.path === '/healthz') return json(200, { status: 'ok' });
    if (request.path !== '/readyz') return undefined;
    const servers = host.health().map((h) => ({ id: h.id, state: h.state, ...(h.lastError !== undefined ? { error: h.lastError } : {}), ...(h.problem !== undefined ? { problem: h.problem } : {}) }));
    const settled = servers.every((s) => s.state !== 'starting');
    const ready = settled && (servers.length === 0 || servers.some((s) => s.state === 'ready'));
    return json(ready ? 200 : 503, { status: ready ? 'ready' : 'not ready', servers });
  };
  const unavailable: HttpResponseLike = json(503, { status: 'starting' });
  const expected = options.token === undefined ? undefined : Buffer.from(`Bearer ${options.token}`);
  /** The gateway's own credential: one bearer token, compared in constant time; never passed downstream. */
  const refused = (request: HttpRequestLike): HttpResponseLike | undefined => {
    if (expected === undefined || request.method === 'OPTIONS') return undefined;
    const presented = Buffer.from(request.header('authorization')?.trim() ?? '');
    if (presented.length === expected.length && timingSafeEqual(presented, expected)) return undefined;
    const error = presented.length === 0 ? '' : ', error="invalid_token"';
    return { ...json(401, { error: 'a valid bearer token is required (see the gateway-token file in the state folder)' }), headers: { 'content-type': 'application/json', 'www-authenticate': `Bearer realm="switchboard"${error}` } };
  };
  const handler: StreamableHttpHandler = {
    handle: (request) => {
      const answered = health(request) ?? refused(request);
      if (answered !== undefined) return Promise.resolve(answered);
      return late.inner?.handle(request) ?? Promise.resolve(unavailable);
    },
    fetch: (request) => late.inner?.fetch(request) ?? Promise.resolve(new Response(null, { status: 503 })),
    maxBodyBytes: 4 * 1024 * 1024,
    get sessionCount() {
      return late.inner?.sessionCount ?? 0;
    },
    close: () => late.inner?.close() ?? Promise.resolve(),
  };
  const running = await listen(handler, { host: options.host, port: options.port, logger: options.logger });
  late.inner = createStreamableHttpHandler(gateway.server, { path: options.path, logger: options.logger });
  return running;
}

function json(status: number, body: unknown): HttpResponseLike {
  return { status, headers: { 'content-type': 'application/json', 'cache-control': 'no-store' }, body: JSON.stringify(body) };
}
