/**
 * What the commands that run on a `switchboard.json` share: reading the config (with a
 * helpful message when it is missing), the OAuth wiring of its remote servers (each with
 * its own token file under `<stateDir>/oauth`, keyed by the server's identity) and the pin
 * store with its `PinTrust` (`<stateDir>/pins.db`, one for the gateway and `switchboard scan`).
 *
 * @module
 */
import { mkdir, readFile } from 'node:fs/promises';
import type { Authorizer } from '../auth/client/authorization.js';
import { downstreamOAuth, unconfiguredOAuthHooks, type DownstreamOAuth } from '../adapters/hostOAuth.js';
import type { DefaultTransportOptions } from '../adapters/hostTransports.js';
import { join } from 'node:path';
import { parseConfig, type ParseConfigOptions } from '../host/config.js';
import { userFolder, userStateDir } from './userFolder.js';
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
import { stateSecret } from './stateSecret.js';

/** The state file of the key env values are digested under in server identities (`host/pins/serverIdentity.ts`). */
export const IDENTITY_KEY_FILE = 'identity-key';

/** How the CLI parses a config at `file`: `${env:…}` from this process, the per-user state folder as the default `stateDir`. */
export function configParseOptions(file: string): ParseConfigOptions {
  return { file, env: process.env, defaultStateDir: userStateDir(file) };
}

/** Reads and parses the config at `file` (absolute). */
export async function loadConfig(file: string): Promise<HostConfig> {
  let text: string;
  try {
    text = await readFile(file, 'utf8');
  } catch (error) {
    const code = (error as NodeJS.ErrnoException).code;
    if (code === 'ENOENT') {
      throw new UsageError(`no config at ${file} (nor ${join(userFolder(), 'switchboard.json')}, nor a running gateway's): write one (see examples/switchboard.json) or create it from your MCP clients with \`switchboard import --out ${file}\``);
    }
    throw error;
  }
  return parseConfig(text, configParseOptions(file));
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
 * The key env values are digested under in server identities: `<stateDir>/identity-key`
 * (generated on first use, mode 0600). With `--store` the instances share one from PostgreSQL
 * instead (`SharedStores.identityKey`).
 */
export async function localIdentityKey(stateDir: string): Promise<Uint8Array> {
  await mkdir(stateDir, { recursive: true, mode: 0o700 });
  return new TextEncoder().encode((await stateSecret(stateDir, IDENTITY_KEY_FILE)).value);
}

/**
 * The pin store under the config's state folder and the `PinTrust` over it, with the config's
 * trusted keys, each server's signature policy (read through `current`, so a reload
 * applies) and the identity key; `shared.store` (a PostgreSQL store of several instances) and
 * `shared.identityKey` in place of the SQLite one and {@link localIdentityKey} when given. A damaged store
 * is a {@link CliFailure} ending with `consequence` (fail closed).
 */
export async function openPins(
  config: HostConfig,
  logger: Logger,
  current: () => HostConfig,
  consequence: string,
  shared: { readonly store?: PinStore | undefined; readonly identityKey?: Uint8Array | undefined } = {},
): Promise<{ store: PinStore; trust: PinTrust }> {
  let store: PinStore | undefined;
  try {
    // The SQLite store is checked against its anchor: one moved away or replaced is refused, not pinned anew.
    store = shared.store ?? openPinStore(config.stateDir);
    if (shared.store === undefined) store = await anchoredPins(config, store, logger);
    const trust = await PinTrust.open({
      store,
      identityKey: shared.identityKey ?? (await localIdentityKey(config.stateDir)),
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
