/**
 * The default {@link TransportFactory}: a child process for `stdio` servers (spawned directly,
 * never through a shell, with only harmless variables of the host's environment plus the
 * server's own `env`), Streamable HTTP for `http` servers and the deprecated HTTP+SSE
 * transport for `sse` servers, each with the server's own static headers. The upstream
 * client's credentials never reach this code: there is no path for them.
 *
 * @see https://modelcontextprotocol.io/specification/2025-11-25/basic/transports
 * @see https://modelcontextprotocol.io/specification/2025-11-25/basic/security_best_practices#token-passthrough
 * @module
 */
import type { PrincipalTransportFactory } from '../host/principalClients.js';
import { StreamableHttpClientTransport } from '../transport/http/client/client.js';
import type { FetchLike } from '../transport/http/client/clientOptions.js';
import { nodeFetch } from './nodeFetch.js';
import { LegacySseClientTransport } from '../transport/http/legacy/legacySseClient.js';
import { StdioClientTransport } from '../transport/stdio/client.js';
import { defaultEnvironment } from '../transport/stdio/env.js';
import type { Logger } from '../util/logger.js';
import type { TransportFactory } from '../host/downstream.js';
import type { DownstreamSpec } from '../host/spec.js';
import type { AuthHooks } from './hostOAuth.js';

/** Options of {@link defaultTransportFactory}. */
export interface DefaultTransportOptions {
  /** The host process's environment (the CLI passes `process.env`); only harmless variables are inherited. */
  readonly environment: Readonly<Record<string, string | undefined>>;
  /** Where transports log. */
  readonly logger?: Logger;
  /**
   * The `fetch` for HTTP servers. Default: one {@link nodeFetch} (keep-alive pools on
   * `node:http`) shared by this factory's servers; a third of the CPU per call of Node 20's
   * global `fetch`, which is on the hot path of every call a gateway forwards.
   */
  readonly fetch?: FetchLike;
  /**
   * The OAuth hooks of one remote server: its own tokens, never the upstream client's (see
   * `downstreamOAuth` in `hostOAuth.ts`); `undefined` for a server without OAuth.
   */
  readonly auth?: (spec: DownstreamSpec) => AuthHooks | undefined;
}

/** Builds the transport of each start of a server from its {@link Launch}. */
export function defaultTransportFactory(options: DefaultTransportOptions): TransportFactory {
  let shared: FetchLike | undefined;
  return (spec, io) => {
    const launch = spec.launch;
    const logger = options.logger;
    if (launch.kind === 'stdio') {
      return new StdioClientTransport({
        command: launch.command,
        args: launch.args,
        env: defaultEnvironment(options.environment, launch.env),
        ...(launch.cwd !== undefined ? { cwd: launch.cwd } : {}),
        stderr: io.stderr,
        ...(logger !== undefined ? { logger } : {}),
      });
    }
    const hooks = options.auth?.(spec);
    const common = {
      url: launch.url,
      headers: launch.headers,
      fetch: options.fetch ?? (shared ??= nodeFetch()),
      ...(logger !== undefined ? { logger } : {}),
      ...hooks,
    };
    return launch.kind === 'http' ? new StreamableHttpClientTransport(common) : new LegacySseClientTransport(common);
  };
}

/**
 * The transports of per-principal clients (`host/principalClients.ts`): the same factory,
 * with the principal's own auth hooks in place of the server's.
 */
export function principalTransportFactory(options: Omit<DefaultTransportOptions, 'auth'>): PrincipalTransportFactory {
  return (spec, hooks) => defaultTransportFactory({ ...options, auth: () => hooks })(spec, { stderr: () => undefined });
}
