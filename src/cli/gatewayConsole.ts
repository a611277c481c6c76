/**
 * The web console in `switchboard gateway` (`src/console/`): builds its handler from the
 * gateway's parts, reads the built page files from `dist/console/`, keeps the launches that
 * wait for consent, and writes the console's URL to `<stateDir>/console-url` (read by
 * `switchboard console`).
 *
 * - The admin credential is `<stateDir>/admin-token` (mode 0600, the consent API's), created
 *   here when absent; the MCP bearer token (`gateway-token`) is passed only to be refused.
 * - Over HTTP the console is on the gateway's port under `/console`; over `--stdio` it shares
 *   the loopback admin listener with the consent API (`gatewayConsent.ts`).
 *
 * @module
 */
import { existsSync } from 'node:fs';
import { readFile, writeFile } from 'node:fs/promises';
import { resolve as resolvePath } from 'node:path';
import { fileURLToPath } from 'node:url';
import { allowInsecureRequests, type FetchLike } from '../auth/http.js';
import { ConsoleHttpApi } from '../console/consoleApi.js';
import { ConsoleOAuth } from '../console/consoleOAuth.js';
import type { AssetReader } from '../console/consoleStatic.js';
import type { ConsoleOptions, LaunchReview, PendingLaunch } from '../console/consoleTypes.js';
import { launchSpecOf, type LaunchApprovalStore, type LaunchNotApprovedError } from '../host/launchConsent.js';
import { isLoopbackHttp } from '../host/canonicalServerUrl.js';
import type { GatewayAuth, ServerConfig } from '../host/configTypes.js';
import { frontDoorAuth } from '../host/frontDoor.js';
import { tokenIdentifier } from '../host/signInRoutes.js';
import type { HttpAuthOptions } from '../transport/http/server/auth.js';
import type { Logger } from '../util/logger.js';
import { ADMIN_TOKEN_FILE } from './gatewayConsent.js';
import { readStateSecret, stateSecret } from './stateSecret.js';

/** The file with the console's URL. */
export const CONSOLE_URL_FILE = 'console-url';

/**
 * The folder with the built page files: `dist/console/ui/` next to the running CLI bundle
 * (`dist/cli/` or `dist/_chunks/`), or the build's when the CLI runs from source (tests).
 */
export function consoleAssetsDir(): string | undefined {
  const candidates = [new URL('../console/ui/', import.meta.url), new URL('../../dist/console/ui/', import.meta.url)];
  for (const url of candidates) {
    const dir = fileURLToPath(url);
    if (existsSync(resolvePath(dir, 'vendor', 'preact.mjs'))) return dir;
  }
  return undefined;
}

/** Reads files below `dir` (the console checked the path: no traversal). */
export function folderAssets(dir: string | undefined): AssetReader {
  return async (relative) => {
    if (dir === undefined) return undefined;
    const file = resolvePath(dir, relative);
    if (!file.startsWith(dir)) return undefined;
    try {
      return new Uint8Array(await readFile(file));
    } catch {
      return undefined;
    }
  };
}

/** Builds the console handler with the admin token of the state folder. */
export async function gatewayConsole(stateDir: string, options: Omit<ConsoleOptions, 'adminToken' | 'mcpToken' | 'assets'>): Promise<{ api: ConsoleHttpApi; adminTokenFile: string }> {
  const admin = await stateSecret(stateDir, ADMIN_TOKEN_FILE);
  const mcpToken = await readStateSecret(stateDir, 'gateway-token');
  const api = new ConsoleHttpApi({ ...options, adminToken: admin.value, ...(mcpToken !== undefined ? { mcpToken } : {}), assets: folderAssets(consoleAssetsDir()) });
  return { api, adminTokenFile: admin.file };
}

/**
 * The console's "Sign in with <issuer>" (`gateway.auth.oauth.console`), once the front door's
 * OAuth verifier is built (`door`): the access token is verified by that same verifier, so the
 * person's principal is the one their MCP requests carry. Undefined when not configured.
 * `fetch` reaches the authorization server (default: the global one).
 */
export function consoleOAuthSignIn(auth: GatewayAuth, door: HttpAuthOptions | undefined, logger: Logger, fetch?: FetchLike): ConsoleOAuth | undefined {
  if (auth.kind !== 'oauth' || auth.console === undefined || door?.resourceMetadata === undefined) return undefined;
  const client = auth.console.clientId === undefined ? undefined : { clientId: auth.console.clientId, ...(auth.console.clientSecret !== undefined ? { clientSecret: auth.console.clientSecret } : {}) };
  return new ConsoleOAuth({
    issuer: auth.issuer,
    resource: door.resourceMetadata.document.resource,
    // Only the OAuth verifier: a named token is no answer of the authorization server.
    identify: tokenIdentifier(frontDoorAuth({ oauth: door }), logger),
    tenantClaim: auth.tenantClaim,
    client,
    scopes: auth.console.scopes,
    ...(fetch !== undefined ? { fetch } : {}),
    [allowInsecureRequests]: isLoopbackHttp(auth.issuer),
  });
}

/** Writes `<stateDir>/console-url` (the base URL of the gateway or of its admin listener) and tells it through `announce`. */
export async function publishConsole(stateDir: string, baseUrl: string, adminTokenFile: string, announce: (line: string) => void): Promise<string> {
  const url = new URL('/console/', baseUrl).href;
  await writeFile(resolvePath(stateDir, CONSOLE_URL_FILE), `${url}\n`, { mode: 0o600 });
  announce(`Console: ${url} (sign in with the admin token in ${adminTokenFile})`);
  return url;
}

/** Stdio launches that wait for a person: noted when the gateway skips them, approved from the console. */
export class PendingLaunches implements LaunchReview {
  readonly #pending = new Map<string, PendingLaunch>();
  readonly #store: LaunchApprovalStore;
  /** Applies the current config again (the approved server then starts). */
  #apply: () => Promise<void> = () => Promise.resolve();
  #running: (server: string) => boolean = () => false;
  readonly #inheritedCwd: string;

  /** `inheritedCwd`: the gateway's working folder, where a server without `cwd` starts. */
  constructor(store: LaunchApprovalStore, inheritedCwd: string) {
    this.#store = store;
    this.#inheritedCwd = inheritedCwd;
  }

  /** Sets how an approval is applied and how to tell whether the server runs. */
  attach(apply: () => Promise<void>, running: (server: string) => boolean): void {
    this.#apply = apply;
    this.#running = running;
  }

  /** Notes a server skipped because its launch is not approved. */
  note(server: ServerConfig, error: LaunchNotApprovedError): void {
    const spec = launchSpecOf(server);
    if (spec === undefined) return;
    this.#pending.set(server.id, { server: server.id, command: spec.command, args: spec.args, cwd: spec.cwd, startsIn: spec.cwd ?? this.#inheritedCwd, env: spec.env, digest: error.digest, reason: error.message.split('\n')[0] ?? error.message, findings: error.findings });
  }

  /** Forgets a server (approved, or no longer configured). */
  clear(serverId: string): void {
    this.#pending.delete(serverId);
  }

  pending(): readonly PendingLaunch[] {
    return [...this.#pending.values()];
  }

  async approve(server: string, digest: string): Promise<boolean> {
    const pending = this.#pending.get(server);
    if (pending?.digest !== digest) throw new Error(`no launch of ${server} with digest ${digest} is pending`);
    await this.#store.set(server, digest);
    this.#pending.delete(server);
    await this.#apply();
    return this.#running(server);
  }
}
