/**
 * What `switchboard tools` and `switchboard call` share: the common options, the `<server>`
 * argument (an `http(s)://` URL, a stdio command line split shell-like, or the argv after
 * `--`), and connecting an {@link McpClient} to it, with OAuth (`--oauth`: loopback redirect
 * listener, tokens in a 0600 file store) for HTTP servers.
 *
 * A stdio command is spawned directly, never through a shell; the child gets only the
 * harmless part of the environment (`defaultEnvironment`).
 *
 * @module
 */
import { nodeFetch } from '../adapters/nodeFetch.js';
import { SWITCHBOARD_VERSION } from '../util/version.js';
import { createOAuthClientProvider } from '../auth/client/oauthClientProvider.js';
import { allowInsecureRequests } from '../auth/http.js';
import { McpClient } from '../client/mcpClient.js';
import type { ClientEvents, ClientHandlers, Era } from '../client/types.js';
import { StreamableHttpClientTransport } from '../transport/http/client/client.js';
import { LegacySseClientTransport } from '../transport/http/legacy/legacySseClient.js';
import { StdioClientTransport } from '../transport/stdio/client.js';
import { defaultEnvironment } from '../transport/stdio/env.js';
import type { Transport } from '../transport/types.js';
import { createLineLogger, type Logger } from '../util/logger.js';
import { listOption, portOption, UsageError, type ParsedArgs } from './args.js';
import type { OptionDeclarations, ParsedCommand, PositionalDeclaration } from './command.js';
import { schemelessUrl } from './clientErrors.js';
import { isLoopbackHttp } from '../host/canonicalServerUrl.js';
import { oauthTransportHooks } from './oauthTransport.js';
import { FileTokenStore } from './oauthFileStore.js';
import { DEFAULT_REDIRECT_PORT, loopbackAuthorizer, loopbackRedirectUri } from './oauthLoopback.js';

/** The options every client command takes. */
export const CLIENT_OPTIONS: OptionDeclarations = {
  header: { type: 'string', multiple: true, value: 'K:V', description: 'add an HTTP header (HTTP servers only)' },
  timeout: { type: 'string', value: 'MS', description: 'per-request timeout in ms', default: '60000' },
  era: { type: 'string', value: 'E', description: 'stateless | stateful: skip the server/discover probe' },
  oauth: {
    type: 'boolean',
    description:
      'authorize with OAuth when the server asks (HTTP only): prints the authorization URL and waits for the redirect on 127.0.0.1; tokens are kept in .switchboard/oauth/store.json (mode 0600); plain-http authorization servers are accepted only for a loopback http server',
  },
  'redirect-port': { type: 'string', value: 'N', description: 'the loopback redirect port for --oauth', default: String(DEFAULT_REDIRECT_PORT) },
  'legacy-sse': { type: 'boolean', description: 'the URL is an HTTP+SSE endpoint of the deprecated 2024-11-05 transport (often .../sse); implies --era stateful' },
  'log-level': { type: 'string', value: 'L', description: 'debug | info | warn | error (logs go to stderr)', default: 'warn' },
  quiet: { type: 'boolean', description: "do not show the server's progress and log messages (stderr)" },
  'sampling-command': {
    type: 'string',
    value: 'C',
    description: "answer the server's sampling requests with command C: it gets the request params as JSON on stdin and prints a CreateMessageResult JSON (without it, sampling is refused)",
  },
};

/** The `<server>` argument of every client command. */
export const SERVER_POSITIONAL: PositionalDeclaration = {
  name: '<server>',
  description:
    'an http:// or https:// URL, or a stdio command line in one argument ("npx -y some-server --flag", split like a shell would, without running one); or put -- and the server\'s argv last',
};

/** The notes every client command's help ends with. */
export const CLIENT_NOTES = `A server's elicitation (a question for the user) is answered at the prompt when run in a
terminal, and declined otherwise.`;

/** Where to find the server. */
export type ServerTarget = { readonly kind: 'http'; readonly url: string } | { readonly kind: 'stdio'; readonly command: string; readonly args: readonly string[] };

/** The parsed arguments of a client command. */
export interface ClientArgs {
  readonly target: ServerTarget;
  /** Positionals after `<server>` (or before `--`). */
  readonly rest: readonly string[];
  readonly options: ParsedArgs['options'];
  readonly headers: Readonly<Record<string, string>>;
}

/**
 * Splits a command line like a POSIX shell does for words: whitespace separates, single quotes
 * are literal, double quotes allow `\\"`, `\\\\`, `\\$` and `` \\` `` escapes, a backslash outside
 * quotes escapes the next character. No expansion of any kind. Throws on an open quote.
 */
export function splitCommandLine(line: string): string[] {
  const words: string[] = [];
  let word = '';
  let inWord = false;
  for (let i = 0; i < line.length; i++) {
    const c = line[i] as string;
    if (c === "'") {
      const end = line.indexOf("'", i + 1);
      if (end < 0) throw new UsageError('unterminated single quote in the server command');
      word += line.slice(i + 1, end);
      inWord = true;
      i = end;
    } else if (c === '"') {
      inWord = true;
      for (i++; ; i++) {
        if (i >= line.length) throw new UsageError('unterminated double quote in the server command');
        const d = line[i] as string;
        if (d === '"') break;
        if (d === '\\' && i + 1 < line.length && '"\\$`'.includes(line[i + 1] as string)) word += line[++i];
        else word += d;
      }
    } else if (c === '\\') {
      if (i + 1 < line.length) word += line[++i];
      inWord = true;
    } else if (c === ' ' || c === '\t' || c === '\n') {
      if (inWord) words.push(word);
      word = '';
      inWord = false;
    } else {
      word += c;
      inWord = true;
    }
  }
  if (inWord) words.push(word);
  return words;
}

/** The client arguments of a parsed command line (the common options are {@link CLIENT_OPTIONS}). */
export function parseClientArgs(parsed: ParsedCommand): ClientArgs {
  const { options, positionals } = parsed;
  const headers: Record<string, string> = {};
  for (const value of listOption(options['header'])) {
    const colon = value.indexOf(':');
    const name = colon > 0 ? value.slice(0, colon).trim() : '';
    if (!/^[!#$%&'*+.^_`|~0-9A-Za-z-]+$/.test(name)) throw new UsageError(`invalid --header ${JSON.stringify(value)} (expected Name:Value)`);
    headers[name] = value.slice(colon + 1).trim();
  }
  let target: ServerTarget;
  let rest: string[];
  if (parsed.afterDash !== undefined) {
    const [command, ...args] = parsed.afterDash;
    if (command === undefined) throw new UsageError('-- must be followed by the server command');
    target = { kind: 'stdio', command, args };
    rest = [...positionals];
  } else {
    const [server, ...others] = positionals;
    if (server === undefined || server.trim() === '') throw new UsageError('missing <server>');
    rest = others;
    const guessed = schemelessUrl(server);
    if (guessed !== undefined) throw new UsageError(`${JSON.stringify(server)} has no scheme: write ${guessed}`);
    if (/^https?:\/\//i.test(server)) {
      try {
        target = { kind: 'http', url: new URL(server).href };
      } catch {
        throw new UsageError(`invalid server URL ${JSON.stringify(server)}`);
      }
    } else {
      const [command, ...args] = splitCommandLine(server);
      if (command === undefined) throw new UsageError('missing <server>');
      target = { kind: 'stdio', command, args };
    }
  }
  if (target.kind === 'stdio' && options['oauth'] === true) throw new UsageError('--oauth needs an http(s):// server');
  if (target.kind === 'stdio' && Object.keys(headers).length > 0) throw new UsageError('--header needs an http(s):// server');
  if (target.kind === 'stdio' && options['legacy-sse'] === true) throw new UsageError('--legacy-sse needs an http(s):// server');
  if (options['legacy-sse'] === true && options['era'] === 'stateless') throw new UsageError('--legacy-sse servers are stateful: drop --era stateless');
  const era = options['era'];
  if (era !== undefined && era !== 'stateless' && era !== 'stateful') throw new UsageError(`invalid --era ${String(era)}`);
  const timeout = options['timeout'];
  if (timeout !== undefined && (typeof timeout !== 'string' || !/^\d+$/.test(timeout))) throw new UsageError(`invalid --timeout ${String(timeout)}`);
  return { target, rest, options, headers };
}

/** For commands that take nothing after `<server>`: throws on a leftover positional. */
export function noMorePositionals(args: ClientArgs): void {
  if (args.rest.length > 0) throw new UsageError(`unexpected argument ${JSON.stringify(args.rest[0])}`);
}

/** The logger of a client command (stderr, `--log-level`, default warn). */
export function commandLogger(options: ParsedArgs['options']): Logger {
  const level = options['log-level'] ?? 'warn';
  if (level !== 'debug' && level !== 'info' && level !== 'warn' && level !== 'error') throw new UsageError(`invalid --log-level ${String(level)}`);
  return createLineLogger((line) => process.stderr.write(line), level);
}

/** Builds the transport for `args`. */
export function clientTransport(args: ClientArgs, logger: Logger): Transport {
  const { target, options } = args;
  if (target.kind === 'stdio') {
    return new StdioClientTransport({ command: target.command, args: target.args, env: defaultEnvironment(process.env), stderr: 'inherit', logger });
  }
  const fetch = nodeFetch();
  const http = (hooks: ReturnType<typeof oauthTransportHooks> | Record<string, never>): Transport =>
    options['legacy-sse'] === true
      ? new LegacySseClientTransport({ url: target.url, headers: args.headers, logger, fetch, ...hooks })
      : new StreamableHttpClientTransport({ url: target.url, headers: args.headers, logger, fetch, ...hooks });
  if (options['oauth'] !== true) return http({});
  const port = portOption(options['redirect-port'], DEFAULT_REDIRECT_PORT);
  const provider = createOAuthClientProvider({
    serverUrl: target.url,
    // A server on this machine over plain http (development) may use an http authorization server.
    [allowInsecureRequests]: isLoopbackHttp(target.url),
    store: new FileTokenStore(),
    redirectUri: loopbackRedirectUri(port),
    authorize: loopbackAuthorizer({ port }),
    clientMetadata: { client_name: 'Switchboard CLI' },
  });
  return http(oauthTransportHooks(provider));
}

/** Connects a client to the server `args` name. The caller closes it. */
export async function connectClient(args: ClientArgs, logger: Logger, answer: { handlers?: ClientHandlers; on?: ClientEvents } = {}): Promise<McpClient> {
  const timeout = args.options['timeout'];
  const client = new McpClient(
    { name: 'switchboard-cli', version: SWITCHBOARD_VERSION },
    {
      logger,
      ...answer,
      ...(typeof timeout === 'string' ? { defaultTimeoutMs: Number(timeout) } : {}),
      ...(args.options['legacy-sse'] === true ? { era: 'stateful' as const } : typeof args.options['era'] === 'string' ? { era: args.options['era'] as Era } : {}),
    },
  );
  await client.connect(clientTransport(args, logger));
  return client;
}
