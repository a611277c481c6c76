/**
 * Obtaining a client identity at an authorization server
 * ({@link https://modelcontextprotocol.io/specification/2026-07-28/basic/authorization/client-registration | MCP client registration}).
 *
 * Priority: an identity already stored for this issuer → pre-registered credentials for this
 * issuer → Client ID Metadata Document (when the AS sets `client_id_metadata_document_supported`)
 * → Dynamic Client Registration ({@link https://datatracker.ietf.org/doc/html/rfc7591 | RFC 7591},
 * deprecated fallback, always with `application_type`) → `ERR_AUTH_REGISTRATION_UNAVAILABLE`.
 *
 * Identities are keyed by the exact `issuer` and never presented to another authorization server.
 *
 * @module
 */

import type { JWK } from 'jose';
import { AuthError, AuthErrorCode } from '../errors.js';
import { type FetchLike, type InsecureOption, readJsonObject, requireUrl, str } from '../http.js';
import type { AuthorizationServerMetadata } from './discovery.js';
import { selectTokenEndpointAuthMethod } from './tokenEndpoint.js';
import type { ClientRegistration, TokenEndpointAuthMethod, TokenStore } from './tokenStore.js';

/** Client metadata sent with DCR (RFC 7591 section 2; OIDC `application_type`). */
export interface ClientMetadata {
  readonly client_name: string;
  readonly redirect_uris?: readonly string[];
  /** `native` (desktop, CLI, localhost redirects) or `web`; derived from the redirect URIs when omitted. */
  readonly application_type?: 'native' | 'web';
  readonly grant_types?: readonly string[];
  readonly response_types?: readonly string[];
  readonly token_endpoint_auth_method?: TokenEndpointAuthMethod;
  readonly scope?: string;
  readonly client_uri?: string;
  readonly logo_uri?: string;
  readonly software_id?: string;
  readonly software_version?: string;
  readonly [member: string]: unknown;
}

/** Credentials issued out of band for one authorization server. */
export interface PreRegisteredClient {
  readonly clientId: string;
  readonly clientSecret?: string;
  readonly tokenEndpointAuthMethod?: TokenEndpointAuthMethod;
  /** For `private_key_jwt`. */
  readonly privateKey?: CryptoKey | JWK;
  readonly signingAlg?: string;
}

/** Options of {@link obtainClientRegistration}. */
export interface RegistrationOptions extends InsecureOption {
  readonly store: TokenStore;
  readonly fetch: FetchLike;
  /** Pre-registered credentials, keyed by exact issuer. */
  readonly preRegistered?: Readonly<Record<string, PreRegisteredClient>>;
  /** This client's CIMD URL (HTTPS with a path); used as `client_id` where supported. */
  readonly clientMetadataUrl?: string;
  /** Metadata for DCR. DCR is skipped when absent. */
  readonly clientMetadata?: ClientMetadata;
  readonly signal?: AbortSignal;
}

const LOOPBACK = new Set(['localhost', '127.0.0.1', '[::1]']);

/** `native` when every redirect URI is loopback or a private-use scheme, else `web`. */
export function inferApplicationType(redirectUris: readonly string[]): 'native' | 'web' {
  const native = redirectUris.every((u) => {
    try {
      const url = new URL(u);
      return LOOPBACK.has(url.hostname) || (url.protocol !== 'https:' && url.protocol !== 'http:');
    } catch {
      return false;
    }
  });
  return redirectUris.length > 0 && native ? 'native' : 'web';
}

/** Returns (and stores) the client identity to use with `metadata.issuer`. */
export async function obtainClientRegistration(metadata: AuthorizationServerMetadata, options: RegistrationOptions): Promise<ClientRegistration> {
  const issuer = metadata.issuer;
  const stored = await options.store.getClient(issuer);
  if (stored !== undefined && stored.issuer === issuer) {
    const expired = stored.clientSecretExpiresAt !== undefined && stored.clientSecretExpiresAt !== 0 && stored.clientSecretExpiresAt * 1000 <= Date.now();
    if (!expired) return stored;
  }
  const pre = options.preRegistered !== undefined && Object.hasOwn(options.preRegistered, issuer) ? options.preRegistered[issuer] : undefined;
  if (pre !== undefined) {
    const registration: ClientRegistration = {
      issuer,
      clientId: pre.clientId,
      tokenEndpointAuthMethod: pre.tokenEndpointAuthMethod ?? (pre.privateKey !== undefined ? 'private_key_jwt' : selectTokenEndpointAuthMethod(metadata, pre.clientSecret !== undefined)),
      source: 'pre-registered',
      ...(pre.clientSecret !== undefined ? { clientSecret: pre.clientSecret } : {}),
      ...(pre.privateKey !== undefined ? { privateKey: pre.privateKey } : {}),
      ...(pre.signingAlg !== undefined ? { signingAlg: pre.signingAlg } : {}),
    };
    await options.store.saveClient(registration);
    return registration;
  }
  if (metadata.client_id_metadata_document_supported === true && options.clientMetadataUrl !== undefined) {
    const url = requireUrl(options.clientMetadataUrl, 'client metadata document URL', {});
    if (url.pathname === '/' || url.pathname === '') {
      throw new AuthError(AuthErrorCode.Configuration, 'a client metadata document URL needs a path component');
    }
    const registration: ClientRegistration = { issuer, clientId: options.clientMetadataUrl, tokenEndpointAuthMethod: 'none', source: 'cimd' };
    await options.store.saveClient(registration);
    return registration;
  }
  if (metadata.registration_endpoint !== undefined && options.clientMetadata !== undefined) {
    const registration = await registerDynamically(metadata, options.clientMetadata, options);
    await options.store.saveClient(registration);
    return registration;
  }
  throw new AuthError(
    AuthErrorCode.RegistrationUnavailable,
    options.preRegistered !== undefined && Object.keys(options.preRegistered).length > 0
      ? `pre-registered credentials exist, but not for ${issuer}; it supports neither CIMD nor DCR`
      : `no way to register with ${issuer} (no pre-registration, CIMD or DCR)`,
    { cause: metadata },
  );
}

async function registerDynamically(metadata: AuthorizationServerMetadata, clientMetadata: ClientMetadata, options: RegistrationOptions): Promise<ClientRegistration> {
  const endpoint = requireUrl(metadata.registration_endpoint, 'registration_endpoint', options);
  const redirectUris = clientMetadata.redirect_uris ?? [];
  const body: Record<string, unknown> = {
    grant_types: ['authorization_code', 'refresh_token'],
    response_types: ['code'],
    token_endpoint_auth_method: 'none',
    ...clientMetadata,
    application_type: clientMetadata.application_type ?? inferApplicationType(redirectUris),
    redirect_uris: [...redirectUris],
  };
  const init: RequestInit = {
    method: 'POST',
    headers: { 'content-type': 'application/json', accept: 'application/json' },
    body: JSON.stringify(body),
    redirect: 'error',
  };
  if (options.signal !== undefined) init.signal = options.signal;
  const response = await options.fetch(endpoint.href, init);
  if (!response.ok) {
    let detail: unknown = response;
    try {
      detail = await response.json();
    } catch {
      /* keep the response */
    }
    throw new AuthError(AuthErrorCode.RegistrationFailed, `dynamic client registration failed (${response.status})`, { cause: detail });
  }
  const doc = await readJsonObject(response, 'registration response');
  const clientId = str(doc, 'client_id');
  if (clientId === undefined || clientId === '') throw new AuthError(AuthErrorCode.RegistrationFailed, 'registration response lacks client_id', { cause: doc });
  const secret = str(doc, 'client_secret');
  const declared = str(doc, 'token_endpoint_auth_method') as TokenEndpointAuthMethod | undefined;
  const method: TokenEndpointAuthMethod =
    declared === 'client_secret_basic' || declared === 'client_secret_post' || declared === 'none'
      ? secret === undefined && declared !== 'none'
        ? 'none'
        : declared
      : selectTokenEndpointAuthMethod(metadata, secret !== undefined);
  const expiresAt = doc['client_secret_expires_at'];
  return {
    issuer: metadata.issuer,
    clientId,
    tokenEndpointAuthMethod: method,
    source: 'dcr',
    ...(secret !== undefined ? { clientSecret: secret } : {}),
    ...(typeof expiresAt === 'number' ? { clientSecretExpiresAt: expiresAt } : {}),
  };
}
