/**
 * `switchboard everything`: runs the demo server that exposes the surface the official
 * conformance suite exercises, over Streamable HTTP or stdio. Useful to test a client.
 *
 * The server itself lives in `src/demo/`; its HTTP side (and with `--auth` the development
 * authorization server) in `demo/everythingHttp.ts`, loaded only when asked for, so `--stdio` (what an MCP host
 * spawns) starts without the HTTP, OAuth and JOSE code.
 *
 * @module
 */
import { StdioServerTransport } from '../../transport/stdio/server.js';
import { createLineLogger, type Logger } from '../../util/logger.js';
import { listOption, portOption, UsageError } from '../args.js';
import { listenFailure } from '../listenErrors.js';
import { createEverythingServer } from '../../demo/everything/server.js';
import { defineCommand, noPositionals, type ParsedCommand } from '../command.js';

/** `switchboard everything`. */
export const command = defineCommand({
  name: 'everything',
  summary: 'run the demo MCP server (Streamable HTTP or stdio)',
  usage: ['[--http] [--port N] [--host H] [--path /mcp] [--allowed-host H]... [--allowed-origin O]... [--auth [--auth-port N]] [--legacy-sse] | --stdio'],
  description: 'Runs the demo MCP server (tools, resources, prompts, completions, MRTR, listen).',
  options: {
    http: { type: 'boolean', description: 'serve Streamable HTTP (the default)' },
    port: { type: 'string', value: 'N', description: 'port to listen on (0 picks a free one)', default: '$PORT when set, else 3000' },
    host: { type: 'string', value: 'H', description: 'interface to bind', default: '127.0.0.1' },
    'allowed-host': {
      type: 'string',
      multiple: true,
      value: 'H',
      description: 'also accept requests whose Host header is H: needed when the server is reached by a name other than localhost (DNS-rebinding defence; a bare name matches any port, name:port exactly)',
    },
    'allowed-origin': { type: 'string', multiple: true, value: 'O', description: 'also accept browser requests from origin O, e.g. https://app.example.com' },
    path: { type: 'string', value: 'P', description: 'endpoint path', default: '/mcp' },
    auth: {
      type: 'boolean',
      description: 'require OAuth bearer tokens from a DEVELOPMENT-ONLY authorization server started in-process (auto-approves everyone; never deploy it)',
    },
    'auth-port': { type: 'string', value: 'N', description: 'port of that authorization server', default: 'a free one' },
    'legacy-sse': { type: 'boolean', description: 'also serve the deprecated 2024-11-05 HTTP+SSE transport for old clients: GET /sse, POST /messages' },
    stdio: { type: 'boolean', description: 'serve over stdin/stdout instead' },
    'log-level': { type: 'string', value: 'L', description: 'debug | info | warn | error (logs go to stderr)', default: 'info' },
  },
  run: runEverything,
});

/** Runs the command; resolves once serving (HTTP) or when the stdio peer goes away. */
async function runEverything(parsed: ParsedCommand): Promise<void> {
  noPositionals(parsed);
  const { options } = parsed;
  if (options['http'] === true && options['stdio'] === true) throw new UsageError('choose one of --http and --stdio');
  if (options['auth'] === true && options['stdio'] === true) throw new UsageError('--auth protects the HTTP server; it cannot be combined with --stdio');
  if (options['legacy-sse'] === true && options['stdio'] === true) throw new UsageError('--legacy-sse is an HTTP transport; it cannot be combined with --stdio');
  if ((options['allowed-host'] !== undefined || options['allowed-origin'] !== undefined) && options['stdio'] === true) {
    throw new UsageError('--allowed-host and --allowed-origin protect the HTTP server; they cannot be combined with --stdio');
  }
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
    port: portOption(options['port'] ?? nonEmpty(process.env['PORT']), 3000),
    allowedHosts: listOption(options['allowed-host']),
    allowedOrigins: listOption(options['allowed-origin']),
    auth: options['auth'] === true ? { port: portOption(options['auth-port'], 0) } : undefined,
    legacySse: options['legacy-sse'] === true,
    notice: (text: string) => void process.stderr.write(text),
  };
  if (!['127.0.0.1', 'localhost', '::1', '[::1]'].includes(where.host) && where.allowedHosts.length === 0) {
    process.stderr.write(`note: only requests with Host localhost/127.0.0.1 are accepted; add --allowed-host <name> for the name clients use to reach ${where.host}\n`);
  }
  const { serveEverythingHttp } = await import('../../demo/everythingHttp.js');
  let running: Awaited<ReturnType<typeof serveEverythingHttp>>;
  try {
    running = await serveEverythingHttp(server, where);
  } catch (error) {
    throw listenFailure(error, where.host, where.port);
  }
  const stop = (): void => void running.close().then(() => process.exit(0));
  process.once('SIGINT', stop);
  process.once('SIGTERM', stop);
}

/** `value` unless it is empty or absent. */
function nonEmpty(value: string | undefined): string | undefined {
  return value === undefined || value.trim() === '' ? undefined : value.trim();
}
