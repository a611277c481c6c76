/**
 * Discovery for an MCP client: Protected Resource Metadata, then authorization server metadata
 * ({@link https://modelcontextprotocol.io/specification/2026-07-28/basic/authorization/authorization-server-discovery | MCP authorization server discovery},
 * {@link https://datatracker.ietf.org/doc/html/rfc9728 | RFC 9728},
 * {@link https://datatracker.ietf.org/doc/html/rfc8414 | RFC 8414},
 * {@link https://openid.net/specs/openid-connect-discovery-1_0.html | OpenID Connect Discovery}).
 *
 * - PRM: the `resource_metadata` URL of the `WWW-Authenticate` challenge, else
 *   `/.well-known/oauth-protected-resource/<path>`, then the root well-known URL. The document's
 *   `resource` must designate the server we talk to, else discovery aborts
 *   (`ERR_AUTH_RESOURCE_MISMATCH`): a malicious server cannot make us request tokens for another
 *   resource.
 * - AS metadata: RFC 8414 and OIDC locations in the spec's order with path insertion; the
 *   document's `issuer` must equal the issuer used to build the URL **byte for byte**
 *   (`ERR_AUTH_ISSUER_MISMATCH`), and `code_challenge_methods_supported` must contain `S256`
 *   (`ERR_AUTH_PKCE_UNSUPPORTED`).
 *
 * @module
 */

import { AuthError, AuthErrorCode } from '../errors.js';
import { type FetchLike, type InsecureOption, isObject, readJsonObject, requireUrl, str, strArray } from '../http.js';

/** A validated Protected Resource Metadata document (RFC 9728 section 2). */
export interface ResourceMetadata {
  readonly resource: string;
  readonly authorization_servers: readonly string[];
  readonly scopes_supported?: readonly string[];
  readonly bearer_methods_supported?: readonly string[];
  readonly dpop_signing_alg_values_supported?: readonly string[];
  readonly dpop_bound_access_tokens_required?: boolean;
  readonly [member: string]: unknown;
}

/** A validated authorization server metadata document (RFC 8414 section 2 / OIDC Discovery). */
export interface AuthorizationServerMetadata {
  readonly issuer: string;
  readonly authorization_endpoint?: string;
  readonly token_endpoint: string;
  readonly registration_endpoint?: string;
  readonly jwks_uri?: string;
  readonly scopes_supported?: readonly string[];
  readonly grant_types_supported?: readonly string[];
  readonly code_challenge_methods_supported?: readonly string[];
  readonly token_endpoint_auth_methods_supported?: readonly string[];
  readonly token_endpoint_auth_signing_alg_values_supported?: readonly string[];
  readonly authorization_response_iss_parameter_supported?: boolean;
  readonly client_id_metadata_document_supported?: boolean;
  readonly dpop_signing_alg_values_supported?: readonly string[];
  readonly introspection_endpoint?: string;
  readonly revocation_endpoint?: string;
  readonly [member: string]: unknown;
}

/** Options of the discovery functions. */
export interface DiscoveryOptions extends InsecureOption {
  /** Fetch used for every request. */
  fetch: FetchLike;
  /** Abort signal. */
  signal?: AbortSignal;
}

/** The PRM locations to try for `serverUrl`, in order (without the challenge's URL). */
export function protectedResourceMetadataCandidates(serverUrl: string): string[] {
  const url = new URL(serverUrl);
  const path = url.pathname.replace(/\/+$/, '');
  const root = `${url.origin}/.well-known/oauth-protected-resource`;
  return path === '' ? [root] : [`${root}${path}`, root];
}

/** The AS metadata locations for `issuer`, in the spec's order. */
export function authorizationServerMetadataCandidates(issuer: string): string[] {
  const url = new URL(issuer);
  const path = url.pathname.replace(/\/+$/, '');
  if (path === '') return [`${url.origin}/.well-known/oauth-authorization-server`, `${url.origin}/.well-known/openid-configuration`];
  return [
    `${url.origin}/.well-known/oauth-authorization-server${path}`,
    `${url.origin}/.well-known/openid-configuration${path}`,
    `${url.origin}${path}/.well-known/openid-configuration`,
  ];
}

/**
 * True when the PRM `resource` designates `serverUrl`: same origin (scheme and host compared
 * case-insensitively, default port elided) and the resource path equals the server path or is a
 * segment prefix of it. Queries and fragments never match.
 */
export function resourceMatchesServer(resource: string, serverUrl: string): boolean {
  let r: URL;
  let s: URL;
  try {
    r = new URL(resource);
    s = new URL(serverUrl);
  } catch {
    return false;
  }
  if (r.origin !== s.origin || r.search !== '' || r.hash !== '' || resource.includes('#')) return false;
  const rp = r.pathname.replace(/\/+$/, '');
  const sp = s.pathname.replace(/\/+$/, '');
  return rp === '' || sp === rp || sp.startsWith(`${rp}/`);
}

async function tryFetch(url: string, options: DiscoveryOptions, extraHeaders: Record<string, string> = {}): Promise<Response | undefined> {
  try {
    const init: RequestInit = { headers: { accept: 'application/json', ...extraHeaders }, redirect: 'error' };
    if (options.signal !== undefined) init.signal = options.signal;
    const response = await options.fetch(url, init);
    if (response.ok) return response;
    await response.body?.cancel();
    return undefined;
  } catch (error) {
    if (options.signal?.aborted === true) throw error;
    return undefined;
  }
}

/**
 * Fetches and validates the Protected Resource Metadata of `serverUrl`.
 *
 * @param resourceMetadataUrl the challenge's `resource_metadata`, when there was one.
 */
export async function discoverProtectedResource(
  serverUrl: string,
  resourceMetadataUrl: string | undefined,
  options: DiscoveryOptions,
): Promise<{ metadata: ResourceMetadata; url: string }> {
  requireUrl(serverUrl, 'MCP server URL', options);
  const candidates = resourceMetadataUrl !== undefined ? [requireUrl(resourceMetadataUrl, 'resource_metadata', options).href] : protectedResourceMetadataCandidates(serverUrl);
  for (const url of candidates) {
    const response = await tryFetch(url, options, { 'mcp-protocol-version': '2026-07-28' });
    if (response === undefined) continue;
    const doc = await readJsonObject(response, 'protected resource metadata');
    const resource = str(doc, 'resource');
    const servers = strArray(doc, 'authorization_servers');
    if (resource === undefined || servers === undefined || servers.length === 0) {
      throw new AuthError(AuthErrorCode.InvalidMetadata, 'protected resource metadata lacks resource or authorization_servers', { cause: doc });
    }
    if (!resourceMatchesServer(resource, serverUrl)) {
      throw new AuthError(AuthErrorCode.ResourceMismatch, `protected resource metadata is for ${resource}, not ${serverUrl}`, { cause: doc });
    }
    for (const as of servers) requireUrl(as, 'authorization server issuer', options);
    const scopes = doc['scopes_supported'];
    if (scopes !== undefined && strArray(doc, 'scopes_supported') === undefined) {
      throw new AuthError(AuthErrorCode.InvalidMetadata, 'scopes_supported is not a string array', { cause: doc });
    }
    return { metadata: doc as ResourceMetadata, url };
  }
  throw new AuthError(AuthErrorCode.MetadataNotFound, `no protected resource metadata for ${serverUrl}`, { cause: candidates });
}

/** Options of {@link discoverAuthorizationServer}. */
export interface AuthorizationServerDiscoveryOptions extends DiscoveryOptions {
  /** Require PKCE S256 support (default true; client-credentials-only clients may pass false). */
  requirePkce?: boolean;
}

/**
 * Fetches and validates the metadata of the authorization server `issuer` (a PRM
 * `authorization_servers` entry). Aborts on an issuer mismatch rather than trying further
 * locations: a document naming another issuer is a mix-up attempt.
 */
export async function discoverAuthorizationServer(issuer: string, options: AuthorizationServerDiscoveryOptions): Promise<AuthorizationServerMetadata> {
  requireUrl(issuer, 'issuer', options);
  const candidates = authorizationServerMetadataCandidates(issuer);
  for (const url of candidates) {
    const response = await tryFetch(url, options);
    if (response === undefined) continue;
    const doc = await readJsonObject(response, 'authorization server metadata');
    if (doc['issuer'] !== issuer) {
      throw new AuthError(AuthErrorCode.IssuerMismatch, `metadata at ${url} names issuer ${String(doc['issuer'])}, expected ${issuer}`, { cause: doc });
    }
    validateAuthorizationServerMetadata(doc, options);
    return doc as AuthorizationServerMetadata;
  }
  throw new AuthError(AuthErrorCode.MetadataNotFound, `no authorization server metadata for ${issuer}`, { cause: candidates });
}

function validateAuthorizationServerMetadata(doc: Record<string, unknown>, options: AuthorizationServerDiscoveryOptions): void {
  requireUrl(doc['token_endpoint'], 'token_endpoint', options);
  for (const key of ['authorization_endpoint', 'registration_endpoint', 'jwks_uri', 'introspection_endpoint', 'revocation_endpoint']) {
    if (doc[key] !== undefined) requireUrl(doc[key], key, options);
  }
  for (const key of ['scopes_supported', 'grant_types_supported', 'code_challenge_methods_supported', 'token_endpoint_auth_methods_supported']) {
    if (doc[key] !== undefined && strArray(doc, key) === undefined) {
      throw new AuthError(AuthErrorCode.InvalidMetadata, `${key} is not a string array`, { cause: doc });
    }
  }
  if (options.requirePkce ?? true) {
    if (doc['authorization_endpoint'] === undefined) {
      throw new AuthError(AuthErrorCode.InvalidMetadata, 'authorization_endpoint is missing', { cause: doc });
    }
    if (strArray(doc, 'code_challenge_methods_supported')?.includes('S256') !== true) {
      throw new AuthError(AuthErrorCode.PkceUnsupported, 'the authorization server does not advertise PKCE S256 (code_challenge_methods_supported)', { cause: doc });
    }
  }
}

/** True for a JSON object with string `issuer`: a type guard for stored metadata. */
export function isAuthorizationServerMetadata(value: unknown): value is AuthorizationServerMetadata {
  return isObject(value) && typeof value['issuer'] === 'string' && typeof value['token_endpoint'] === 'string';
}
