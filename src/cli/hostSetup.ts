/**
 * What the commands that run on a `switchboard.json` share: reading the config (with a
 * helpful message when it is missing), the OAuth wiring of its remote servers (each with
 * its own token file under `<stateDir>/oauth`, keyed by the server's identity) and the pin
 * store with its `PinTrust` (`<stateDir>/pins.db`, one for the gateway and `switchboard scan`).
 *
 * @module
 */
import { readFile } from 'node:fs/promises';
import type { Authorizer } from '../auth/client/authorization.js';
import { downstreamOAuth, unconfiguredOAuthHooks, type DownstreamOAuth } from '../adapters/hostOAuth.js';
import type { DefaultTransportOptions } from '../adapters/hostTransports.js';
import { parseConfig } from '../host/config.js';
import type { HostConfig } from '../host/configTypes.js';
import { PinTrust } from '../host/pins/pinTrust.js';
import type { PinStore } from '../host/pins/pinStore.js';
import type { DownstreamSpec } from '../host/spec.js';
import { OAuthTokenFiles } from '../store/oauthTokenFiles.js';
import type { OAuthTokenStores } from './sharedStores.js';
import { openPinStore } from '../store/sqlitePinStore.js';
import { anchoredPins } from './stateAnchors.js';
import type { Logger } from '../util/logger.js';
import { CliFailure, UsageError } from './args.js';
import { DEFAULT_REDIRECT_PORT, loopbackRedirectUri } from './oauthLoopback.js';

/** Reads and parses the config at `file` (absolute). */
export async function loadConfig(file: string): Promise<HostConfig> {
  let text: string;
  try {
    text = await readFile(file, 'utf8');
  } catch (error) {
    const code = (error as NodeJS.ErrnoException).code;
    if (code === 'ENOENT') {
      throw new UsageError(`no config at ${file}: write one (see examples/switchboard.json) or create it from your MCP clients with \`switchboard import --out ${file}\``);
    }
    throw error;
  }
  return parseConfig(text, { file, env: process.env });
}

/** What to type to sign in to `serverId` of the config at `file`. */
export function loginHint(serverId: string, file: string): string {
  const relative = file === `${process.cwd()}/switchboard.json` ? '' : ` --config ${file}`;
  return `run \`switchboard login ${serverId}${relative}\``;
}

/** The OAuth client of one server of `config` (`undefined` without an `oauth` section); `authorize` for a sign-in. */
export function serverOAuth(config: HostConfig, spec: DownstreamSpec, extra: { authorize?: Authorizer; redirectPort?: number; tokens?: OAuthTokenStores } = {}): DownstreamOAuth | undefined {
  const files = extra.tokens ?? new OAuthTokenFiles(config.stateDir);
  return downstreamOAuth(spec, {
    store: (url, oauth) => files.forServer(url, { clientId: oauth.clientId }),
    redirectUri: (oauth) => loopbackRedirectUri(extra.redirectPort ?? oauth.redirectPort ?? DEFAULT_REDIRECT_PORT),
    loginHint: (id) => loginHint(id, config.file),
    ...(extra.authorize !== undefined ? { authorize: extra.authorize } : {}),
  });
}

/**
 * The transport factory's `auth` option for an unattended host (the gateway) on `config`: a
 * server's own OAuth tokens, or for a remote server that asks for OAuth without an `oauth`
 * section, a needs-login error saying what to add. `tokens` (PostgreSQL, shared by several
 * instances) in place of the token files when given.
 */
export function hostOAuthHooks(config: HostConfig, tokens?: OAuthTokenStores): NonNullable<DefaultTransportOptions['auth']> {
  return (spec) =>
    serverOAuth(config, spec, tokens !== undefined ? { tokens } : {})?.hooks ??
    unconfiguredOAuthHooks(spec, `add "oauth": {} to switchboard.servers.${spec.id} in ${config.file}, then ${loginHint(spec.id, config.file)}`);
}

/**
 * The pin store under the config's state folder and the `PinTrust` over it, with the config's
 * trusted keys and each server's signature policy (read through `current`, so a reload
 * applies); `shared` (a PostgreSQL store of several instances) in place of the SQLite one when
 * given. A damaged store is a {@link CliFailure} ending with `consequence` (fail closed).
 */
export async function openPins(config: HostConfig, logger: Logger, current: () => HostConfig, consequence: string, shared?: PinStore): Promise<{ store: PinStore; trust: PinTrust }> {
  let store: PinStore | undefined;
  try {
    // The SQLite store is checked against its anchor: one moved away or replaced is refused, not pinned anew.
    store = shared ?? openPinStore(config.stateDir);
    if (shared === undefined) store = await anchoredPins(config, store, logger);
    const trust = await PinTrust.open({
      store,
      trustedKeys: config.trustedKeys,
      signaturePolicy: (id) => current().servers.find((s) => s.id === id)?.options.signature ?? 'warn',
      logger,
    });
    return { store, trust };
  } catch (error) {
    await store?.close?.();
    throw new CliFailure(`${error instanceof Error ? error.message : String(error)} ${consequence}`);
  }
}
