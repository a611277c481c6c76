/**
 * The OAuth credentials one remote server's identity holds (client registrations by issuer,
 * its tokens), and the `TokenStore` bound to that identity which every token store (files,
 * PostgreSQL) hands out: asked for any other server's tokens it answers none (fail closed), so
 * a provider can never read or overwrite another server's record.
 *
 * @see https://modelcontextprotocol.io/specification/2025-11-25/basic/security_best_practices#token-passthrough
 * @module
 */
import type { ClientRegistration, TokenSet, TokenStore } from '../auth/client/tokenStore.js';
import { canonicalServerUrl } from '../host/canonicalServerUrl.js';
import { McpError, McpErrorCode } from '../util/errors.js';

/** The stored shape of one server's credentials. */
export interface ServerTokenRecord {
  readonly version: 1;
  readonly identity: string;
  readonly clients: Readonly<Record<string, ClientRegistration>>;
  readonly tokens?: TokenSet;
}

/** Options of a store's `forServer`. */
export interface ServerTokenOptions {
  /** A pre-registered public client id (config `oauth.clientId`). */
  readonly clientId?: string | undefined;
}

/** Reads and atomically edits one identity's record (missing = `undefined`). */
export interface ServerTokenAccess {
  /** Where the record lives, for error messages. */
  readonly where: string;
  read(): Promise<unknown>;
  update(edit: (current: unknown) => ServerTokenRecord): Promise<void>;
}

/** Checks a stored record of `identity` (missing = an empty one). */
export function checkServerTokens(value: unknown, where: string, identity: string): ServerTokenRecord {
  if (value === undefined || value === null) return { version: 1, identity, clients: {} };
  const fail = (detail: string): never => {
    throw new McpError(McpErrorCode.StoreCorrupt, `${where} is not an OAuth token record: ${detail} (delete it and run \`switchboard login\` again)`, { cause: value });
  };
  if (typeof value !== 'object' || Array.isArray(value)) return fail('expected an object');
  const record = value as Record<string, unknown>;
  if (record['version'] !== 1) fail('expected "version": 1');
  // A record copied onto another identity's place is refused.
  if (record['identity'] !== identity) fail(`it belongs to ${JSON.stringify(record['identity'])}, not ${identity}`);
  const clients = record['clients'];
  if (typeof clients !== 'object' || clients === null || Array.isArray(clients)) fail('"clients" is not an object');
  const tokens = record['tokens'];
  if (tokens !== undefined && (typeof tokens !== 'object' || tokens === null || typeof (tokens as Record<string, unknown>)['accessToken'] !== 'string')) fail('"tokens" has no accessToken');
  return value as ServerTokenRecord;
}

/** The `TokenStore` of the server at `url`, over `access` (see the module comment). */
export function boundTokenStore(url: string, access: ServerTokenAccess, options: ServerTokenOptions = {}): TokenStore {
  const identity = canonicalServerUrl(url);
  const mine = (serverUrl: string): boolean => URL.canParse(serverUrl) && canonicalServerUrl(serverUrl) === identity;
  const read = async (): Promise<ServerTokenRecord> => checkServerTokens(await access.read(), access.where, identity);
  const change = (edit: (current: ServerTokenRecord) => ServerTokenRecord): Promise<void> => access.update((current) => edit(checkServerTokens(current, access.where, identity)));
  return {
    async getClient(issuer) {
      const stored = (await read()).clients;
      if (Object.hasOwn(stored, issuer)) return stored[issuer];
      return options.clientId === undefined ? undefined : { issuer, clientId: options.clientId, tokenEndpointAuthMethod: 'none', source: 'pre-registered' };
    },
    async saveClient(registration) {
      if (registration.privateKey !== undefined && !('kty' in registration.privateKey)) {
        throw new McpError(McpErrorCode.InvalidArgument, `a client registration holding a CryptoKey cannot be stored in ${access.where}`);
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
      if (!mine(serverUrl)) throw new McpError(McpErrorCode.InvalidArgument, `tokens for ${serverUrl} do not belong in the record of ${identity}`);
      await change((current) => ({ ...current, tokens }));
    },
    async deleteTokens(serverUrl) {
      if (!mine(serverUrl)) return;
      await change(({ tokens: _gone, ...rest }) => rest);
    },
  };
}
