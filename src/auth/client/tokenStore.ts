/**
 * Storage of client registrations and tokens.
 *
 * Registrations are keyed by the authorization server `issuer`: credentials obtained from one
 * authorization server are never presented to another, and an AS change in the Protected
 * Resource Metadata triggers a new registration
 * ({@link https://modelcontextprotocol.io/specification/2026-07-28/basic/authorization/client-registration | MCP client registration}).
 * Tokens are keyed by the MCP server URL and remember their resource and issuer, so a token minted
 * by a former authorization server is dropped instead of being sent.
 *
 * Tokens are secrets (OAuth 2.1 section 7.1): a persistent implementation (e.g. a file with
 * mode 0600, which needs `node:fs` and therefore lives outside `auth/`) must store them
 * securely. {@link MemoryTokenStore} keeps everything in process memory.
 *
 * @module
 */

import type { JWK } from 'jose';

/** Client authentication methods at the token endpoint (RFC 8414 / RFC 7591 names). */
export type TokenEndpointAuthMethod = 'client_secret_basic' | 'client_secret_post' | 'none' | 'private_key_jwt';

/** A client identity at one authorization server. */
export interface ClientRegistration {
  /** The authorization server this identity belongs to (its exact `issuer`). */
  readonly issuer: string;
  readonly clientId: string;
  readonly clientSecret?: string;
  /** `client_secret_expires_at` (seconds; 0 = never), from DCR. */
  readonly clientSecretExpiresAt?: number;
  readonly tokenEndpointAuthMethod: TokenEndpointAuthMethod;
  /** For `private_key_jwt`: the signing key (CryptoKey or private JWK) and its algorithm. */
  readonly privateKey?: CryptoKey | JWK;
  readonly signingAlg?: string;
  /** How the identity was obtained. */
  readonly source: 'pre-registered' | 'cimd' | 'dcr';
}

/** Tokens for one MCP server. */
export interface TokenSet {
  readonly accessToken: string;
  /** `Bearer` or `DPoP`. */
  readonly tokenType: string;
  /** Expiry in ms since the epoch, when the AS said (`expires_in`). */
  readonly expiresAt?: number;
  readonly refreshToken?: string;
  /** The scopes the AS granted (`scope` of the token response), when given. */
  readonly grantedScope?: string;
  /** The scopes the client asked for (basis of the step-up union). */
  readonly requestedScopes: readonly string[];
  /** The issuer that minted the tokens. */
  readonly issuer: string;
  /** The resource (PRM `resource`) they are for. */
  readonly resource: string;
}

/** Persistence seam for registrations and tokens. */
export interface TokenStore {
  getClient(issuer: string): Promise<ClientRegistration | undefined>;
  saveClient(registration: ClientRegistration): Promise<void>;
  deleteClient(issuer: string): Promise<void>;
  /** Tokens for the MCP server at `serverUrl` (the URL the client talks to). */
  getTokens(serverUrl: string): Promise<TokenSet | undefined>;
  saveTokens(serverUrl: string, tokens: TokenSet): Promise<void>;
  deleteTokens(serverUrl: string): Promise<void>;
}

/** An in-memory {@link TokenStore}. */
export class MemoryTokenStore implements TokenStore {
  readonly #clients = new Map<string, ClientRegistration>();
  readonly #tokens = new Map<string, TokenSet>();

  async getClient(issuer: string): Promise<ClientRegistration | undefined> {
    return this.#clients.get(issuer);
  }
  async saveClient(registration: ClientRegistration): Promise<void> {
    this.#clients.set(registration.issuer, registration);
  }
  async deleteClient(issuer: string): Promise<void> {
    this.#clients.delete(issuer);
  }
  async getTokens(serverUrl: string): Promise<TokenSet | undefined> {
    return this.#tokens.get(serverUrl);
  }
  async saveTokens(serverUrl: string, tokens: TokenSet): Promise<void> {
    this.#tokens.set(serverUrl, tokens);
  }
  async deleteTokens(serverUrl: string): Promise<void> {
    this.#tokens.delete(serverUrl);
  }
}
