/**
 * What `switchboard login <server>` and `switchboard logout <server>` do: the OAuth sign-in of
 * one remote server of a `switchboard.json`, for the gateway to use unattended afterwards.
 *
 * `login` runs our OAuth client against the server: discovery (Protected Resource Metadata,
 * then the authorization server's metadata), client registration (the configured `clientId`,
 * else dynamic registration), and the authorization code grant with PKCE S256, `state`,
 * `resource` and a loopback redirect (RFC 8252: the CLI's listener on 127.0.0.1, the URL
 * printed for the user to open). The tokens go to the server's own file under
 * `<stateDir>/oauth`, mode 0600, keyed by the server's identity (URL origin + path), so a
 * renamed entry keeps them and another URL never sees them. `logout` deletes that file.
 *
 * @see https://modelcontextprotocol.io/specification/2025-11-25/basic/authorization
 * @module
 */
import { resolve as resolvePath } from 'node:path';
import { SWITCHBOARD_VERSION } from '../util/version.js';
import { defaultTransportFactory } from '../adapters/hostTransports.js';
import type { Authorizer } from '../auth/client/authorization.js';
import { McpClient } from '../client/mcpClient.js';
import type { HostConfig, ServerConfig } from '../host/configTypes.js';
import { canonicalServerUrl } from '../host/canonicalServerUrl.js';
import { OAuthTokenFiles } from '../store/oauthTokenFiles.js';
import type { OAuthTokenStores } from './sharedStores.js';
import { silentLogger } from '../util/logger.js';
import { CliFailure, UsageError } from './args.js';
import type { ParsedCommand } from './command.js';
import { serverOAuth } from './hostSetup.js';
import { loopbackAuthorizer, type LoopbackOptions } from './oauthLoopback.js';

/** What a sign-in did. */
export interface LoginResult {
  readonly serverId: string;
  /** The server identity the tokens are stored under. */
  readonly identity: string;
  /** The token file. */
  readonly file: string;
  /** False when the server never asked for authorization (nothing stored). */
  readonly signedIn: boolean;
  /** How many tools the server listed once connected. */
  readonly tools: number;
}

/** Options of {@link login}. */
export interface LoginOptions {
  readonly config: HostConfig;
  readonly serverId: string;
  /** The loopback port (default: the server's `oauth.redirectPort`, else the CLI default). */
  readonly redirectPort?: number;
  /** Shows the authorization URL (default: a line on stderr); tests play the browser here. */
  readonly prompt?: LoopbackOptions['prompt'];
  /** The user agent (default: the loopback listener). */
  readonly authorize?: Authorizer;
  /** Where the tokens go instead of the files (PostgreSQL, with `switchboard.store`), and how to name it. */
  readonly tokens?: { readonly stores: OAuthTokenStores; readonly where: string };
}

/** The remote server `id` of `config` that has OAuth settings, or a failure saying what is missing. */
function oauthServer(config: HostConfig, id: string): ServerConfig & { readonly launch: { readonly kind: 'http' | 'sse'; readonly url: string } } {
  const server = config.servers.find((s) => s.id === id);
  if (server === undefined) {
    const known = config.servers.map((s) => s.id).join(', ');
    throw new CliFailure(`no server "${id}" in ${config.file}${known === '' ? '' : ` (servers: ${known})`}`);
  }
  if (server.launch.kind === 'stdio') throw new CliFailure(`"${id}" is a stdio server; OAuth sign-in applies to remote (url) servers`);
  if (server.options.oauth === undefined) {
    throw new CliFailure(`"${id}" has no OAuth settings: add "switchboard": { "servers": { "${id}": { "oauth": {} } } } to ${config.file}`);
  }
  return server as ServerConfig & { readonly launch: { readonly kind: 'http' | 'sse'; readonly url: string } };
}

/**
 * Signs in to one server: drops its old tokens (the registration is kept), connects through
 * our OAuth client with a user agent, and lists its tools to prove the new token works.
 */
export async function login(options: LoginOptions): Promise<LoginResult> {
  const { config } = options;
  const server = oauthServer(config, options.serverId);
  const oauthOptions = server.options.oauth;
  const port = options.redirectPort ?? oauthOptions?.redirectPort;
  const authorize = options.authorize ?? loopbackAuthorizer({ ...(port !== undefined ? { port } : {}), ...(options.prompt !== undefined ? { prompt: options.prompt } : {}) });
  const oauth = serverOAuth(config, server, { authorize, ...(port !== undefined ? { redirectPort: port } : {}), ...(options.tokens !== undefined ? { tokens: options.tokens.stores } : {}) });
  if (oauth === undefined) throw new CliFailure(`"${server.id}" has no OAuth settings`);
  const url = server.launch.url;
  await oauth.provider.clearTokens();
  const transport = await defaultTransportFactory({ environment: {}, auth: () => oauth.hooks })(server, { stderr: () => undefined });
  const client = new McpClient({ name: 'switchboard-login', version: SWITCHBOARD_VERSION }, { logger: silentLogger, ...(server.options.era !== 'auto' ? { era: server.options.era } : {}) });
  let tools: number;
  try {
    await client.connect(transport);
    tools = client.serverCapabilities?.['tools'] === undefined ? 0 : (await client.listTools()).length;
  } finally {
    await client.close().catch(() => undefined);
  }
  const files = new OAuthTokenFiles(config.stateDir);
  return { serverId: server.id, identity: canonicalServerUrl(url), file: options.tokens?.where ?? files.pathFor(url), signedIn: (await oauth.store.getTokens(url)) !== undefined, tools };
}

/** Deletes the stored tokens of one server. Resolves with the file and whether there was one. */
export async function logout(config: HostConfig, serverId: string): Promise<{ readonly file: string; readonly removed: boolean }> {
  const server = config.servers.find((s) => s.id === serverId);
  if (server === undefined) throw new CliFailure(`no server "${serverId}" in ${config.file}`);
  if (server.launch.kind === 'stdio') throw new CliFailure(`"${serverId}" is a stdio server; it has no OAuth tokens`);
  const files = new OAuthTokenFiles(config.stateDir);
  return { file: files.pathFor(server.launch.url), removed: await files.remove(server.launch.url) };
}

/** The `<server>` and config file of `login`/`logout`. */
export function loginTarget({ options, positionals }: ParsedCommand): { id: string; file: string } {
  if (positionals.length === 0) throw new UsageError('name the server (its key in mcpServers)');
  if (positionals.length > 1) throw new UsageError(`unexpected argument ${JSON.stringify(positionals[1])}`);
  return { id: positionals[0] as string, file: resolvePath(typeof options['config'] === 'string' ? options['config'] : 'switchboard.json') };
}
