/**
 * OAuth credentials of the host's remote servers, one file per server *identity* under the
 * state folder: `<stateDir>/oauth/<sha256(identity), 32 hex>.json`, mode 0600 in a 0700
 * folder, written atomically ({@link JsonFile}).
 *
 * Each file holds what one server needs and nothing of any other: its client registrations
 * (keyed by the authorization server's issuer) and its tokens. The identity is the endpoint's
 * origin and path ({@link canonicalServerUrl}), not the display name: a renamed `mcpServers` entry
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
import type { TokenStore } from '../auth/client/tokenStore.js';
import { canonicalServerUrl } from '../host/canonicalServerUrl.js';
import { JsonFile, type JsonFileOptions } from './jsonFile.js';
import { boundTokenStore, checkServerTokens, type ServerTokenOptions } from './serverTokens.js';

export type { ServerTokenOptions } from './serverTokens.js';

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
    return join(this.dir, `${createHash('sha256').update(canonicalServerUrl(url)).digest('hex').slice(0, 32)}.json`);
  }

  /** A `TokenStore` bound to the identity of `url`. */
  forServer(url: string, options: ServerTokenOptions = {}): TokenStore {
    const file = this.#file(url);
    return boundTokenStore(url, { where: file.path, read: () => file.read(), update: (edit) => file.update(edit) }, options);
  }

  /** True when tokens are stored for the server at `url`. */
  async hasTokens(url: string): Promise<boolean> {
    const file = this.#file(url);
    return checkServerTokens(await file.read(), file.path, canonicalServerUrl(url)).tokens !== undefined;
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
