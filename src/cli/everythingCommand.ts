/**
 * `switchboard everything`: runs the demo server that exposes the surface the official
 * conformance suite exercises, over Streamable HTTP or stdio. Useful to test a client.
 *
 * The HTTP side (and with `--auth` the development authorization server) lives in
 * `everythingHttp.ts` and is loaded only when asked for, so `--stdio` (what an MCP host
 * spawns) starts without the HTTP, OAuth and JOSE code.
 *
 * @module
 */
import { StdioServerTransport } from '../transport/stdio/server.js';
import { createLineLogger, type Logger } from '../util/logger.js';
import { parseArgs, portOption, UsageError } from './args.js';
import { createEverythingServer } from './everything/server.js';

/** Help text of the command. */
export const everythingHelp = `Usage: switchboard everything [--http] [--port N] [--host H] [--path /mcp] [--auth [--auth-port N]] [--legacy-sse] | --stdio

Runs the demo MCP server (tools, resources, prompts, completions, MRTR, listen).

  --http          serve Streamable HTTP (default)
  --port N        port to listen on (default 3000; 0 picks a free one)
  --host H        interface to bind (default 127.0.0.1)
  --path P        endpoint path (default /mcp)
  --auth          require OAuth bearer tokens from a DEVELOPMENT-ONLY authorization
                  server started in-process (auto-approves everyone; never deploy it)
  --auth-port N   port of that authorization server (default: a free one)
  --legacy-sse    also serve the deprecated 2024-11-05 HTTP+SSE transport for old
                  clients: GET /sse, POST /messages
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
    'legacy-sse': 'boolean',
  });
  if (options['http'] === true && options['stdio'] === true) throw new UsageError('choose one of --http and --stdio');
  if (options['auth'] === true && options['stdio'] === true) throw new UsageError('--auth protects the HTTP server; it cannot be combined with --stdio');
  if (options['legacy-sse'] === true && options['stdio'] === true) throw new UsageError('--legacy-sse is an HTTP transport; it cannot be combined with --stdio');
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

  const where = {
    logger,
    path: typeof options['path'] === 'string' ? options['path'] : '/mcp',
    host: typeof options['host'] === 'string' ? options['host'] : '127.0.0.1',
    port: portOption(options['port'], 3000),
    auth: options['auth'] === true ? { port: portOption(options['auth-port'], 0) } : undefined,
    legacySse: options['legacy-sse'] === true,
  };
  const { serveEverythingHttp } = await import('./everythingHttp.js');
  await serveEverythingHttp(server, where);
}
