/**
 * `switchboard everything`: runs the demo server that exposes the surface the official
 * conformance suite exercises, over Streamable HTTP or stdio. Useful to test a client.
 *
 * With `--auth` the HTTP server is an OAuth 2.1 protected resource: a **development-only**
 * authorization server (`auth/dev`, auto-approving, in memory) runs in-process on its own port,
 * and every MCP request needs a bearer token it issued for this server (audience = the
 * server's resource URL).
 *
 * @module
 */
import { listen, type ListeningServer } from '../adapters/nodeHttp.js';
import { createDevAuthorizationServer, type DevAuthorizationServer } from '../auth/dev/devAuthorizationServer.js';
import { allowInsecureRequests } from '../auth/http.js';
import { createBearerVerifier } from '../auth/resource/bearerVerifier.js';
import { protectedResourceMetadata } from '../auth/resource/protectedResourceMetadata.js';
import { authFetchHandler } from '../transport/http/authFetchHandler.js';
import { createStreamableHttpHandler, type StreamableHttpHandler, type StreamableHttpServerOptions } from '../transport/http/server.js';
import type { McpDispatcher } from '../transport/types.js';
import { StdioServerTransport } from '../transport/stdio/server.js';
import { createLineLogger, type Logger } from '../util/logger.js';
import { parseArgs, portOption, UsageError } from './args.js';
import { createEverythingServer } from './everything/server.js';

/** Help text of the command. */
export const everythingHelp = `Usage: switchboard everything [--http] [--port N] [--host H] [--path /mcp] [--auth [--auth-port N]] | --stdio

Runs the demo MCP server (tools, resources, prompts, completions, MRTR, listen).

  --http          serve Streamable HTTP (default)
  --port N        port to listen on (default 3000; 0 picks a free one)
  --host H        interface to bind (default 127.0.0.1)
  --path P        endpoint path (default /mcp)
  --auth          require OAuth bearer tokens from a DEVELOPMENT-ONLY authorization
                  server started in-process (auto-approves everyone; never deploy it)
  --auth-port N   port of that authorization server (default: a free one)
  --stdio         serve over stdin/stdout instead
  --log-level L   debug | info | warn | error (default info; logs go to stderr)
`;

/** Runs the command; resolves once serving (HTTP) or when the stdio peer goes away. */
export async function everythingCommand(argv: readonly string[]): Promise<void> {
  const { options } = parseArgs(argv, {
    http: 'boolean',
    stdio: 'boolean',
    port: 'string',
    host: 'string',
    path: 'string',
    'log-level': 'string',
    auth: 'boolean',
    'auth-port': 'string',
  });
  if (options['http'] === true && options['stdio'] === true) throw new UsageError('choose one of --http and --stdio');
  if (options['auth'] === true && options['stdio'] === true) throw new UsageError('--auth protects the HTTP server; it cannot be combined with --stdio');
  const level = options['log-level'] ?? 'info';
  if (level !== 'debug' && level !== 'info' && level !== 'warn' && level !== 'error') throw new UsageError(`invalid --log-level ${String(level)}`);
  const logger: Logger = createLineLogger((line) => process.stderr.write(line), level);
  const server = createEverythingServer({ logger });

  if (options['stdio'] === true) {
    const transport = new StdioServerTransport({ input: process.stdin, output: process.stdout, logger });
    const connection = await server.connect(transport);
    await new Promise<void>((resolve) => connection.onClose(() => resolve()));
    return;
  }

  const path = typeof options['path'] === 'string' ? options['path'] : '/mcp';
  const host = typeof options['host'] === 'string' ? options['host'] : '127.0.0.1';
  const port = portOption(options['port'], 3000);
  let authServer: ListeningServer | undefined;
  let running: ListeningServer;
  if (options['auth'] === true) {
    const started = await serveWithDevAuth(server, { logger, path }, { host, port, authPort: portOption(options['auth-port'], 0), logger });
    running = started.mcp;
    authServer = started.as;
    process.stderr.write(`MCP server (protected):        ${new URL(path, running.url).href}\n`);
    process.stderr.write(`Authorization server (DEV):    ${started.issuer}\n`);
  } else {
    running = await listen(createStreamableHttpHandler(server, { logger, path }), { port, host, logger });
  }
  logger.info('switchboard everything is listening', { url: new URL(path, running.url).href });
  const stop = (): void => {
    void server
      .close()
      .then(() => running.close())
      .then(() => authServer?.close())
      .then(() => process.exit(0));
  };
  process.once('SIGINT', stop);
  process.once('SIGTERM', stop);
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
  where: { host: string; port: number; authPort: number; logger: Logger },
): Promise<{ mcp: ListeningServer; as: ListeningServer; issuer: string }> {
  process.stderr.write(DEV_AS_WARNING);
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
