/**
 * A {@link TokenStore} in one JSON file, for the command line: client registrations (keyed by
 * issuer) and tokens (keyed by MCP server URL) survive between runs of `switchboard tools` /
 * `switchboard call --oauth`.
 *
 * Tokens are secrets (OAuth 2.1 section 7.1): the directory is created with mode 0700 and the
 * file is written with mode 0600 (to a temporary file renamed over the old one, so a crash
 * never leaves a half-written store). A registration holding a `CryptoKey` (never created by
 * the CLI) is kept in memory only, as it cannot be serialized.
 *
 * @module
 */
import { chmod, mkdir, readFile, rename, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import type { ClientRegistration, TokenSet, TokenStore } from '../auth/client/tokenStore.js';

/** The default directory, relative to the working directory (override with `SWITCHBOARD_OAUTH_DIR`). */
export const DEFAULT_OAUTH_DIR = join('.switchboard', 'oauth');

interface StoreFile {
  clients: Record<string, ClientRegistration>;
  tokens: Record<string, TokenSet>;
}

function isRecord(value: unknown): value is Record<string, unknown> {
  return typeof value === 'object' && value !== null && !Array.isArray(value);
}

/** A {@link TokenStore} persisted as `<dir>/store.json` (mode 0600, directory 0700). */
export class FileTokenStore implements TokenStore {
  /** The store file. */
  readonly path: string;
  readonly #dir: string;
  readonly #memoryOnly = new Map<string, ClientRegistration>();
  #queue: Promise<unknown> = Promise.resolve();

  constructor(dir: string = process.env['SWITCHBOARD_OAUTH_DIR'] ?? DEFAULT_OAUTH_DIR) {
    this.#dir = dir;
    this.path = join(dir, 'store.json');
  }

  async #read(): Promise<StoreFile> {
    let text: string;
    try {
      text = await readFile(this.path, 'utf8');
    } catch (error) {
      if ((error as NodeJS.ErrnoException).code === 'ENOENT') return { clients: {}, tokens: {} };
      throw error;
    }
    const parsed: unknown = JSON.parse(text);
    if (!isRecord(parsed)) return { clients: {}, tokens: {} };
    return {
      clients: isRecord(parsed['clients']) ? (parsed['clients'] as Record<string, ClientRegistration>) : {},
      tokens: isRecord(parsed['tokens']) ? (parsed['tokens'] as Record<string, TokenSet>) : {},
    };
  }

  async #write(data: StoreFile): Promise<void> {
    await mkdir(this.#dir, { recursive: true, mode: 0o700 });
    const temp = `${this.path}.${process.pid}.tmp`;
    await writeFile(temp, JSON.stringify(data, null, 2) + '\n', { mode: 0o600 });
    await chmod(temp, 0o600);
    await rename(temp, this.path);
  }

  /** Read-modify-write, serialized within the process. */
  #update(change: (data: StoreFile) => void): Promise<void> {
    const next = this.#queue.then(async () => {
      const data = await this.#read();
      change(data);
      await this.#write(data);
    });
    this.#queue = next.catch(() => undefined);
    return next;
  }

  async getClient(issuer: string): Promise<ClientRegistration | undefined> {
    const memory = this.#memoryOnly.get(issuer);
    if (memory !== undefined) return memory;
    const data = await this.#read();
    return Object.hasOwn(data.clients, issuer) ? data.clients[issuer] : undefined;
  }

  async saveClient(registration: ClientRegistration): Promise<void> {
    if (registration.privateKey !== undefined && !('kty' in registration.privateKey)) {
      this.#memoryOnly.set(registration.issuer, registration);
      return;
    }
    await this.#update((data) => {
      data.clients[registration.issuer] = registration;
    });
  }

  async deleteClient(issuer: string): Promise<void> {
    this.#memoryOnly.delete(issuer);
    await this.#update((data) => {
      delete data.clients[issuer];
    });
  }

  async getTokens(serverUrl: string): Promise<TokenSet | undefined> {
    const data = await this.#read();
    return Object.hasOwn(data.tokens, serverUrl) ? data.tokens[serverUrl] : undefined;
  }

  async saveTokens(serverUrl: string, tokens: TokenSet): Promise<void> {
    await this.#update((data) => {
      data.tokens[serverUrl] = tokens;
    });
  }

  async deleteTokens(serverUrl: string): Promise<void> {
    await this.#update((data) => {
      delete data.tokens[serverUrl];
    });
  }
}
