/**
 * Client records of the **development-only** authorization server: pre-registered clients,
 * Dynamic Client Registration ({@link https://datatracker.ietf.org/doc/html/rfc7591 | RFC 7591} with
 * OIDC `application_type` checks) and Client ID Metadata Documents
 * ({@link https://datatracker.ietf.org/doc/html/draft-ietf-oauth-client-id-metadata-document-00 | draft-ietf-oauth-client-id-metadata-document-00})
 * fetched through an injectable fetch. Not for production: no SSRF guard beyond HTTPS, no
 * consent, everything in memory.
 *
 * @module
 */

import type { JSONWebKeySet } from 'jose';
import { type FetchLike, isObject, randomToken, str, strArray } from '../http.js';

/** A client known to the dev authorization server. */
export interface DevClient {
  readonly clientId: string;
  readonly clientSecret?: string;
  readonly redirectUris: readonly string[];
  /** Default: `client_secret_basic` with a secret, `none` without. */
  readonly tokenEndpointAuthMethod?: 'none' | 'client_secret_basic' | 'client_secret_post' | 'private_key_jwt';
  /** Default `['authorization_code', 'refresh_token']` (+ `client_credentials` with a secret). */
  readonly grantTypes?: readonly string[];
  /** Public keys for `private_key_jwt`. */
  readonly jwks?: JSONWebKeySet;
  readonly applicationType?: 'native' | 'web';
  readonly clientName?: string;
}

const LOOPBACK = new Set(['localhost', '127.0.0.1', '[::1]']);

function isLoopback(url: URL): boolean {
  return LOOPBACK.has(url.hostname);
}

/** Error shape of RFC 7591 section 3.2.2. */
export interface RegistrationError {
  readonly error: string;
  readonly error_description: string;
}

/** Validates a DCR request and creates the client (RFC 7591 section 3.1). */
export function registerDevClient(body: unknown): { client: DevClient; response: Record<string, unknown> } | RegistrationError {
  if (!isObject(body)) return { error: 'invalid_client_metadata', error_description: 'body must be a JSON object' };
  const redirectUris = strArray(body, 'redirect_uris');
  if (redirectUris === undefined || redirectUris.length === 0) {
    return { error: 'invalid_redirect_uri', error_description: 'redirect_uris is required' };
  }
  const applicationType = body['application_type'] ?? 'web';
  if (applicationType !== 'web' && applicationType !== 'native') {
    return { error: 'invalid_client_metadata', error_description: 'application_type must be native or web' };
  }
  for (const uri of redirectUris) {
    let url: URL;
    try {
      url = new URL(uri);
    } catch {
      return { error: 'invalid_redirect_uri', error_description: `not a URL: ${uri}` };
    }
    if (url.hash !== '') return { error: 'invalid_redirect_uri', error_description: 'redirect URIs must not have a fragment' };
    // OIDC Registration: web clients use https and no localhost; native clients use loopback http or a private scheme.
    if (applicationType === 'web' && (url.protocol !== 'https:' || isLoopback(url))) {
      return { error: 'invalid_redirect_uri', error_description: 'web clients need https redirect URIs on a non-loopback host' };
    }
    if (applicationType === 'native' && url.protocol === 'http:' && !isLoopback(url)) {
      return { error: 'invalid_redirect_uri', error_description: 'native clients may use http only on loopback' };
    }
    if (url.protocol === 'javascript:' || url.protocol === 'data:') {
      return { error: 'invalid_redirect_uri', error_description: 'scheme not allowed' };
    }
  }
  const method = str(body, 'token_endpoint_auth_method') ?? 'client_secret_basic';
  if (method !== 'none' && method !== 'client_secret_basic' && method !== 'client_secret_post') {
    return { error: 'invalid_client_metadata', error_description: `unsupported token_endpoint_auth_method ${method}` };
  }
  const grantTypes = strArray(body, 'grant_types') ?? ['authorization_code'];
  const clientId = `dev-${randomToken(12)}`;
  const secret = method === 'none' ? undefined : randomToken(24);
  const clientName = str(body, 'client_name');
  const client: DevClient = {
    clientId,
    redirectUris,
    tokenEndpointAuthMethod: method,
    grantTypes,
    applicationType,
    ...(secret !== undefined ? { clientSecret: secret } : {}),
    ...(clientName !== undefined ? { clientName } : {}),
  };
  const response: Record<string, unknown> = {
    ...body,
    client_id: clientId,
    client_id_issued_at: Math.floor(Date.now() / 1000),
    token_endpoint_auth_method: method,
    grant_types: grantTypes,
    application_type: applicationType,
    redirect_uris: redirectUris,
  };
  if (secret !== undefined) {
    response['client_secret'] = secret;
    response['client_secret_expires_at'] = 0;
  }
  return { client, response };
}

/** True when `clientId` looks like a CIMD URL (HTTPS with a path). */
export function isClientIdMetadataUrl(clientId: string): boolean {
  try {
    const url = new URL(clientId);
    return url.protocol === 'https:' && url.pathname !== '/' && url.hash === '' && url.username === '' && url.password === '';
  } catch {
    return false;
  }
}

/**
 * Fetches and validates a Client ID Metadata Document: JSON object, `client_id` exactly the URL,
 * `client_name`, non-empty `redirect_uris`; only `none` or `private_key_jwt` authentication.
 */
export async function fetchClientMetadataDocument(fetch: FetchLike, clientId: string): Promise<DevClient | RegistrationError> {
  let doc: unknown;
  try {
    const response = await fetch(clientId, { headers: { accept: 'application/json' }, redirect: 'error' });
    if (!response.ok) return { error: 'invalid_client', error_description: `client metadata document answered ${response.status}` };
    doc = await response.json();
  } catch {
    return { error: 'invalid_client', error_description: 'client metadata document could not be fetched' };
  }
  if (!isObject(doc)) return { error: 'invalid_client', error_description: 'client metadata document is not a JSON object' };
  if (doc['client_id'] !== clientId) return { error: 'invalid_client', error_description: 'client_id in the document does not match its URL' };
  const redirectUris = strArray(doc, 'redirect_uris');
  const name = str(doc, 'client_name');
  if (redirectUris === undefined || redirectUris.length === 0 || name === undefined) {
    return { error: 'invalid_client', error_description: 'client metadata document lacks client_name or redirect_uris' };
  }
  const method = str(doc, 'token_endpoint_auth_method') ?? 'none';
  if (method !== 'none' && method !== 'private_key_jwt') {
    return { error: 'invalid_client', error_description: 'CIMD clients cannot use shared secrets' };
  }
  const jwks = doc['jwks'];
  return {
    clientId,
    redirectUris,
    tokenEndpointAuthMethod: method,
    grantTypes: strArray(doc, 'grant_types') ?? ['authorization_code'],
    clientName: name,
    ...(isObject(jwks) && Array.isArray(jwks['keys']) ? { jwks: jwks as unknown as JSONWebKeySet } : {}),
  };
}
