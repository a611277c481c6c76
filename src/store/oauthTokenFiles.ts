/**
 * OAuth credentials of the host's remote servers, one file per server *identity* under the
 * state folder: `<stateDir>/oauth/<sha256(identity), 32 hex>.json`, mode 0600 in a 0700
 * folder, written atomically ({@link JsonFile}).
 *
 * Each file holds what one server needs and nothing of any other: its client registrations
 * (keyed by the authorization server's issuer) and its tokens. The identity is the endpoint's
 * origin and path ({@link serverIdentity}), not the display name: a renamed `mcpServers` entry
 * keeps its tokens and a different URL never gets them. {@link OAuthTokenFiles.forServer}
 * returns a `TokenStore` bound to one identity: asked for any other server's tokens it answers
 * none (fail closed), so a provider can never read or overwrite another server's file.
 *
 * A configured `clientId` (pre-registered, public client) is offered for every issuer until a
 * registration is stored.
 *
 * @see https://modelcontextprotocol.io/specification/2025-11-25/basic/security_best_practices#token-passthrough
 * @module
 */
import { createHash } from 'node:crypto';
import { join } from 'node:path';
import type { ClientRegistration, TokenSet, TokenStore } from '../auth/client/tokenStore.js';
import { serverIdentity } from '../host/serverIdentity.js';
import { McpError, McpErrorCode } from '../util/errors.js';
import { JsonFile, type JsonFileOptions } from './jsonFile.js';

/** The stored shape of one server's file. */
interface ServerFile {
  readonly version: 1;
  readonly identity: string;
  readonly clients: Readonly<Record<string, ClientRegistration>>;
  readonly tokens?: TokenSet;
}

/** Options of {@link OAuthTokenFiles.forServer}. */
export interface ServerTokenOptions {
  /** A pre-registered public client id (config `oauth.clientId`). */
  readonly clientId?: string | undefined;
}

/** The token files under one state folder. */
export class OAuthTokenFiles {
  /** The folder holding the files (`<stateDir>/oauth`). */
  readonly dir: string;
  readonly #options: JsonFileOptions;
  readonly #files = new Map<string, JsonFile>();

  constructor(stateDir: string, options: JsonFileOptions = {}) {
    this.dir = join(stateDir, 'oauth');
    this.#options = options;
  }

  /** The file of the server at `url` (by identity). */
  pathFor(url: string): string {
    return join(this.dir, `${createHash('sha256').update(serverIdentity(url)).digest('hex').slice(0, 32)}.json`);
  }

  /** A `TokenStore` bound to the identity of `url`. */
  forServer(url: string, options: ServerTokenOptions = {}): TokenStore {
    const identity = serverIdentity(url);
    const file = this.#file(url);
    const mine = (serverUrl: string): boolean => URL.canParse(serverUrl) && serverIdentity(serverUrl) === identity;
    const read = async (): Promise<ServerFile> => checkFile(await file.read(), file.path, identity);
    const change = (edit: (current: ServerFile) => ServerFile): Promise<void> => file.update((current) => edit(checkFile(current, file.path, identity)));
    return {
      async getClient(issuer) {
        const stored = (await read()).clients;
        if (Object.hasOwn(stored, issuer)) return stored[issuer];
        return options.clientId === undefined ? undefined : { issuer, clientId: options.clientId, tokenEndpointAuthMethod: 'none', source: 'pre-registered' };
      },
      async saveClient(registration) {
        if (registration.privateKey !== undefined && !('kty' in registration.privateKey)) {
          throw new McpError(McpErrorCode.InvalidArgument, `a client registration holding a CryptoKey cannot be stored in ${file.path}`);
        }
        await change((current) => ({ ...current, clients: { ...current.clients, [registration.issuer]: registration } }));
      },
      async deleteClient(issuer) {
        await change((current) => {
          const { [issuer]: _gone, ...clients } = current.clients;
          return { ...current, clients };
        });
      },
      async getTokens(serverUrl) {
        return mine(serverUrl) ? (await read()).tokens : undefined;
      },
      async saveTokens(serverUrl, tokens) {
        if (!mine(serverUrl)) throw new McpError(McpErrorCode.InvalidArgument, `tokens for ${serverUrl} do not belong in the file of ${identity}`);
        await change((current) => ({ ...current, tokens }));
      },
      async deleteTokens(serverUrl) {
        if (!mine(serverUrl)) return;
        await change(({ tokens: _gone, ...rest }) => rest);
      },
    };
  }

  /** True when tokens are stored for the server at `url`. */
  async hasTokens(url: string): Promise<boolean> {
    const file = this.#file(url);
    return checkFile(await file.read(), file.path, serverIdentity(url)).tokens !== undefined;
  }

  /** Deletes everything stored for the server at `url` (logout). Resolves `false` when nothing was. */
  remove(url: string): Promise<boolean> {
    return this.#file(url).remove();
  }

  #file(url: string): JsonFile {
    const path = this.pathFor(url);
    let file = this.#files.get(path);
    if (file === undefined) {
      file = new JsonFile(path, this.#options);
      this.#files.set(path, file);
    }
    return file;
  }
}

function checkFile(value: unknown, path: string, identity: string): ServerFile {
  if (value === undefined) return { version: 1, identity, clients: {} };
  const fail = (detail: string): never => {
    throw new McpError(McpErrorCode.StoreCorrupt, `${path} is not an OAuth token file: ${detail} (delete it and run \`switchboard login\` again)`, { cause: value });
  };
  if (typeof value !== 'object' || value === null || Array.isArray(value)) return fail('expected an object');
  const record = value as Record<string, unknown>;
  if (record['version'] !== 1) fail('expected "version": 1');
  // The name is a hash: a file copied or renamed onto another identity's name is refused.
  if (record['identity'] !== identity) fail(`it belongs to ${JSON.stringify(record['identity'])}, not ${identity}`);
  const clients = record['clients'];
  if (typeof clients !== 'object' || clients === null || Array.isArray(clients)) fail('"clients" is not an object');
  const tokens = record['tokens'];
  if (tokens !== undefined && (typeof tokens !== 'object' || tokens === null || typeof (tokens as Record<string, unknown>)['accessToken'] !== 'string')) fail('"tokens" has no accessToken');
  return value as ServerFile;
}
