/**
 * The HTTP side of the demo server (`switchboard everything`): Streamable HTTP on `node:http`, and with `--auth`
 * an OAuth 2.1 protected resource. Then a **development-only** authorization server
 * (`auth/dev`, auto-approving, in memory) runs in-process on its own port, and every MCP
 * request needs a bearer token it issued for this server (audience = the server's resource
 * URL). Loaded by `switchboard everything` (`cli/commands/everything.ts`) only for `--http`.
 *
 * @module
 */
import { listen, type ListeningServer } from '../adapters/nodeHttp.js';
import { createDevAuthorizationServer, type DevAuthorizationServer } from '../auth/dev/devAuthorizationServer.js';
import { allowInsecureRequests } from '../auth/http.js';
import { createBearerVerifier } from '../auth/resource/bearerVerifier.js';
import { protectedResourceMetadata } from '../auth/resource/protectedResourceMetadata.js';
import type { McpServer } from '../server/mcpServer.js';
import { authFetchHandler } from '../transport/http/server/authFetchHandler.js';
import { createStreamableHttpHandler, type StreamableHttpHandler, type StreamableHttpServerOptions } from '../transport/http/server/server.js';
import type { McpDispatcher } from '../transport/types.js';
import type { Logger } from '../util/logger.js';

/** Where and how `switchboard everything --http` serves. */
export interface EverythingHttpOptions {
  readonly logger: Logger;
  readonly path: string;
  readonly host: string;
  readonly port: number;
  /** Set for `--auth`: the port of the development authorization server (0 = a free one). */
  readonly auth: { readonly port: number } | undefined;
  /** `--legacy-sse`: also serve the 2024-11-05 HTTP+SSE transport at `/sse` + `/messages`. */
  readonly legacySse: boolean;
  /** `--allowed-host` values, accepted besides the loopback names (none: loopback only). */
  readonly allowedHosts?: readonly string[];
  /** `--allowed-origin` values, accepted besides the loopback origins. */
  readonly allowedOrigins?: readonly string[];
  /** Where notices for the person go (the development authorization server's warning, its URLs). */
  readonly notice: (text: string) => void;
}

/** A running demo server: its endpoint and how to stop it (and the authorization server). */
export interface RunningEverything {
  readonly url: string;
  close(): Promise<void>;
}

/** The loopback names the HTTP handler accepts by default (kept when more are allowed). */
const LOOPBACK_NAMES = ['localhost', '127.0.0.1', '[::1]'];

/** Serves `server` over Streamable HTTP until closed. */
export async function serveEverythingHttp(server: McpServer, options: EverythingHttpOptions): Promise<RunningEverything> {
  const { logger, path, host, port } = options;
  const handlerOptions: StreamableHttpServerOptions = {
    logger,
    path,
    ...(options.legacySse ? { legacySse: { path: '/sse', messagesPath: '/messages' } } : {}),
    ...(options.allowedHosts !== undefined && options.allowedHosts.length > 0 ? { allowedHosts: [...LOOPBACK_NAMES, ...options.allowedHosts] } : {}),
    ...(options.allowedOrigins !== undefined && options.allowedOrigins.length > 0 ? { allowedOrigins: [...LOOPBACK_NAMES, ...options.allowedOrigins] } : {}),
  };
  let authServer: ListeningServer | undefined;
  let running: ListeningServer;
  if (options.auth !== undefined) {
    const started = await serveWithDevAuth(server, handlerOptions, { host, port, authPort: options.auth.port, logger, notice: options.notice });
    running = started.mcp;
    authServer = started.as;
    options.notice(`MCP server (protected):        ${new URL(path, running.url).href}\n`);
    options.notice(`Authorization server (DEV):    ${started.issuer}\n`);
  } else {
    running = await listen(createStreamableHttpHandler(server, handlerOptions), { port, host, logger });
  }
  const url = new URL(path, running.url).href;
  logger.info('switchboard everything is listening', { url });
  return {
    url,
    close: async () => {
      await server.close();
      await running.close();
      await authServer?.close();
    },
  };
}

const DEV_AS_WARNING = `
!!!!!!!!!!!!!!!!!!!!!!!!!!!!!!!!!!!!!!!!!!!!!!!!!!!!!!!!!!!!!!!!!!!!!!!!!!!!!!!!!!!!!!!!!!!!!!!
!! WARNING: --auth starts a DEVELOPMENT-ONLY OAuth authorization server. It approves every   !!
!! authorization request without a user, keeps everything in memory, speaks plain http and   !!
!! has no rate limiting. Use it to try clients locally; NEVER expose or deploy it.           !!
!!!!!!!!!!!!!!!!!!!!!!!!!!!!!!!!!!!!!!!!!!!!!!!!!!!!!!!!!!!!!!!!!!!!!!!!!!!!!!!!!!!!!!!!!!!!!!!
`;

/**
 * Starts the dev authorization server on its own port and the MCP server protected by it
 * (audience = the MCP server's resource URL, known once the port is bound).
 */
async function serveWithDevAuth(
  dispatcher: McpDispatcher,
  handlerOptions: StreamableHttpServerOptions,
  where: { host: string; port: number; authPort: number; logger: Logger; notice: (text: string) => void },
): Promise<{ mcp: ListeningServer; as: ListeningServer; issuer: string }> {
  where.notice(DEV_AS_WARNING);
  const insecure = { [allowInsecureRequests]: true } as const;
  // Both URLs name their bound ports, so the servers behind them are created after listen.
  const late: { devAs?: DevAuthorizationServer; inner?: StreamableHttpHandler; issuer: string } = { issuer: '' };
  const as = await listen(
    authFetchHandler((request) => late.devAs?.handler(request) ?? Promise.resolve(new Response(null, { status: 503 })), { origin: () => late.issuer }),
    { port: where.authPort, host: where.host, logger: where.logger },
  );
  const issuer = as.url.replace(/\/$/, '');
  late.issuer = issuer;
  const ready = await createDevAuthorizationServer({ issuer, ...insecure });
  late.devAs = ready;

  const unavailable = { status: 503, headers: { 'content-type': 'application/json' }, body: '{"error":"starting"}' };
  const handler: StreamableHttpHandler = {
    handle: (request) => late.inner?.handle(request) ?? Promise.resolve(unavailable),
    fetch: (request) => late.inner?.fetch(request) ?? Promise.resolve(new Response(null, { status: 503 })),
    maxBodyBytes: handlerOptions.maxBodyBytes ?? 4 * 1024 * 1024,
    get sessionCount() {
      return late.inner?.sessionCount ?? 0;
    },
    close: () => late.inner?.close() ?? Promise.resolve(),
  };
  const mcp = await listen(handler, { port: where.port, host: where.host, logger: where.logger });
  const resource = new URL(handlerOptions.path ?? '/mcp', mcp.url).href;
  const resourceMetadata = protectedResourceMetadata({ resource, authorizationServers: [ready.issuer], scopesSupported: ['mcp:read'], resourceName: 'switchboard everything', ...insecure });
  const verifier = createBearerVerifier({ resource, issuers: [ready.issuer], jwks: { keys: ready.jwks().keys }, ...insecure });
  late.inner = createStreamableHttpHandler(dispatcher, { ...handlerOptions, auth: { verifier, resourceMetadata, scopes: { always: ['mcp:read'] } } });
  return { mcp, as, issuer };
}
