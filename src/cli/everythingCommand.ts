/**
 * `switchboard everything`: runs the demo server that exposes the surface the official
 * conformance suite exercises, over Streamable HTTP or stdio. Useful to test a client.
 *
 * @module
 */
import { listen } from '../adapters/nodeHttp.js';
import { createStreamableHttpHandler } from '../transport/http/server.js';
import { StdioServerTransport } from '../transport/stdio/server.js';
import { createLineLogger, type Logger } from '../util/logger.js';
import { parseArgs, portOption, UsageError } from './args.js';
import { createEverythingServer } from './everything/server.js';

/** Help text of the command. */
export const everythingHelp = `Usage: switchboard everything [--http] [--port N] [--host H] [--path /mcp] | --stdio

Runs the demo MCP server (tools, resources, prompts, completions, MRTR, listen).

  --http          serve Streamable HTTP (default)
  --port N        port to listen on (default 3000; 0 picks a free one)
  --host H        interface to bind (default 127.0.0.1)
  --path P        endpoint path (default /mcp)
  --stdio         serve over stdin/stdout instead
  --log-level L   debug | info | warn | error (default info; logs go to stderr)
`;

/** Runs the command; resolves once serving (HTTP) or when the stdio peer goes away. */
export async function everythingCommand(argv: readonly string[]): Promise<void> {
  const { options } = parseArgs(argv, { http: 'boolean', stdio: 'boolean', port: 'string', host: 'string', path: 'string', 'log-level': 'string' });
  if (options['http'] === true && options['stdio'] === true) throw new UsageError('choose one of --http and --stdio');
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
  const handler = createStreamableHttpHandler(server, { logger, path });
  const running = await listen(handler, {
    port: portOption(options['port'], 3000),
    host: typeof options['host'] === 'string' ? options['host'] : '127.0.0.1',
    logger,
  });
  logger.info('switchboard everything is listening', { url: new URL(path, running.url).href });
  const stop = (): void => {
    void server.close().then(() => running.close()).then(() => process.exit(0));
  };
  process.once('SIGINT', stop);
  process.once('SIGTERM', stop);
}
