/**
 * OAuth 2.0 Protected Resource Metadata for an MCP server
 * ({@link https://datatracker.ietf.org/doc/html/rfc9728 | RFC 9728};
 * {@link https://modelcontextprotocol.io/specification/2026-07-28/basic/authorization/authorization-server-discovery | MCP authorization server discovery}).
 *
 * An MCP server **MUST** publish this document. {@link protectedResourceMetadata} builds it and
 * the well-known paths it is served at: the path-based
 * `/.well-known/oauth-protected-resource/<resource path>` (RFC 9728 section 3.1) and, for
 * clients that only try the root, `/.well-known/oauth-protected-resource`.
 *
 * @module
 */

import { AuthError, AuthErrorCode } from '../errors.js';
import { type InsecureOption, allowInsecureRequests, requireUrl } from '../http.js';
import { dpopAlgorithms } from './dpopProof.js';

/** Well-known suffix of RFC 9728. */
export const PRM_WELL_KNOWN = '/.well-known/oauth-protected-resource';

/** Options of {@link protectedResourceMetadata}. */
export interface ProtectedResourceMetadataOptions extends InsecureOption {
  /** The canonical URI of this MCP server (RFC 8707), e.g. `https://mcp.example.com/mcp`. Published verbatim. */
  resource: string;
  /** Issuer identifiers of the authorization servers (at least one). */
  authorizationServers: readonly string[];
  /** The minimal baseline scopes (never `offline_access`; see the MCP spec "Refresh Tokens"). */
  scopesSupported?: readonly string[];
  /** Human-readable name. */
  resourceName?: string;
  /** URL of developer documentation. */
  resourceDocumentation?: string;
  /** URL of the JWKS for signed resource responses (rare). */
  jwksUri?: string;
  /**
   * DPoP proof algorithms accepted (`dpop_signing_alg_values_supported`, RFC 9728 section 2):
   * the verifier's `dpop.algorithms`. Asymmetric algorithms only.
   */
  dpopSigningAlgValuesSupported?: readonly string[];
  /**
   * When true, only DPoP-bound tokens are accepted (`dpop_bound_access_tokens_required`, RFC 9728
   * section 2): the verifier's `dpop.required`.
   */
  dpopBoundAccessTokensRequired?: boolean;
  /** Extra members (extensions). Cannot override the members above. */
  extra?: Readonly<Record<string, unknown>>;
}

/** The RFC 9728 document (JSON). */
export interface ProtectedResourceMetadataDocument {
  readonly resource: string;
  readonly authorization_servers: readonly string[];
  readonly bearer_methods_supported: readonly ['header'];
  readonly scopes_supported?: readonly string[];
  readonly resource_name?: string;
  readonly resource_documentation?: string;
  readonly jwks_uri?: string;
  readonly dpop_signing_alg_values_supported?: readonly string[];
  readonly dpop_bound_access_tokens_required?: boolean;
  readonly [extension: string]: unknown;
}

/** The result of {@link protectedResourceMetadata}. */
export interface ProtectedResourceMetadata {
  /** The JSON document. */
  readonly document: ProtectedResourceMetadataDocument;
  /** Absolute URL of the primary (path-based) location: the `resource_metadata` challenge value. */
  readonly metadataUrl: string;
  /** Paths (on the resource's origin) the document is served at, most specific first. */
  readonly wellKnownPaths: readonly string[];
  /**
   * Serves the document: returns a `200 application/json` for a GET/HEAD on one of
   * {@link wellKnownPaths} (with permissive CORS, the document is public), `undefined` otherwise.
   */
  handle(request: Request): Response | undefined;
}

/** The well-known URL for a resource identifier (RFC 9728 section 3.1: insert before the path). */
export function protectedResourceMetadataUrl(resource: string): string {
  const url = new URL(resource);
  const path = url.pathname === '/' ? '' : url.pathname;
  return `${url.origin}${PRM_WELL_KNOWN}${path}`;
}

/**
 * Builds the Protected Resource Metadata of an MCP server. `bearer_methods_supported` is always
 * `["header"]`: tokens **MUST NOT** travel in the query string.
 */
export function protectedResourceMetadata(options: ProtectedResourceMetadataOptions): ProtectedResourceMetadata {
  const insecure = { [allowInsecureRequests]: options[allowInsecureRequests] === true };
  const url = requireUrl(options.resource, 'resource', insecure);
  if (url.search !== '') throw new AuthError(AuthErrorCode.Configuration, 'resource must not have a query');
  if (options.authorizationServers.length === 0) {
    throw new AuthError(AuthErrorCode.Configuration, 'at least one authorization server is required (RFC 9728 section 2)');
  }
  for (const as of options.authorizationServers) requireUrl(as, 'authorization server issuer', insecure);
  if (options.scopesSupported?.includes('offline_access') === true) {
    throw new AuthError(AuthErrorCode.Configuration, 'scopes_supported SHOULD NOT contain offline_access (refresh tokens are not a resource requirement)');
  }
  const doc: Record<string, unknown> = { ...(options.extra ?? {}) };
  doc['resource'] = options.resource;
  doc['authorization_servers'] = [...options.authorizationServers];
  doc['bearer_methods_supported'] = ['header'];
  if (options.scopesSupported !== undefined) doc['scopes_supported'] = [...options.scopesSupported];
  if (options.resourceName !== undefined) doc['resource_name'] = options.resourceName;
  if (options.resourceDocumentation !== undefined) doc['resource_documentation'] = options.resourceDocumentation;
  if (options.jwksUri !== undefined) doc['jwks_uri'] = options.jwksUri;
  if (options.dpopSigningAlgValuesSupported !== undefined) doc['dpop_signing_alg_values_supported'] = [...dpopAlgorithms(options.dpopSigningAlgValuesSupported)];
  if (options.dpopBoundAccessTokensRequired !== undefined) doc['dpop_bound_access_tokens_required'] = options.dpopBoundAccessTokensRequired;
  const document = Object.freeze(doc) as ProtectedResourceMetadataDocument;

  const path = url.pathname === '/' ? '' : url.pathname;
  const wellKnownPaths = path === '' ? [PRM_WELL_KNOWN] : [`${PRM_WELL_KNOWN}${path}`, PRM_WELL_KNOWN];
  const body = JSON.stringify(document);
  return {
    document,
    metadataUrl: protectedResourceMetadataUrl(options.resource),
    wellKnownPaths,
    handle(request) {
      const reqUrl = new URL(request.url);
      if (!wellKnownPaths.includes(reqUrl.pathname)) return undefined;
      const cors = { 'access-control-allow-origin': '*', 'access-control-allow-methods': 'GET, OPTIONS' };
      if (request.method === 'OPTIONS') return new Response(null, { status: 204, headers: cors });
      if (request.method !== 'GET' && request.method !== 'HEAD') {
        return new Response(null, { status: 405, headers: { allow: 'GET, HEAD, OPTIONS' } });
      }
      return new Response(request.method === 'HEAD' ? null : body, {
        status: 200,
        headers: { 'content-type': 'application/json', 'cache-control': 'max-age=300', ...cors },
      });
    },
  };
}
