/**
 * Authorization errors.
 *
 * Every failure in `auth/` is an {@link AuthError}: a local error (never serialized onto the
 * JSON-RPC wire) with a string `code` (`ERR_AUTH_*`), the HTTP `status` it maps to and, for
 * resource-server failures, the `WWW-Authenticate` value to send
 * ({@link https://datatracker.ietf.org/doc/html/rfc6750#section-3 | RFC 6750 section 3},
 * {@link https://modelcontextprotocol.io/specification/2026-07-28/basic/authorization#error-handling | MCP authorization: error handling}).
 * `cause` carries the offending value (a `Response`, a parsed error body, a jose error).
 *
 * @module
 */

/** Every authorization error code. */
export const AuthErrorCode = {
  /** The request carried no access token (401, challenge without `error`). */
  MissingToken: 'ERR_AUTH_MISSING_TOKEN',
  /** The access token is invalid, expired, not yet valid, for another audience or issuer (401). */
  InvalidToken: 'ERR_AUTH_INVALID_TOKEN',
  /**
   * The DPoP proof is missing, malformed, replayed, for another request, or not signed by the key
   * the access token is bound to (401, `invalid_dpop_proof`; RFC 9449 sections 4.3 and 7.1).
   */
  InvalidDpopProof: 'ERR_AUTH_INVALID_DPOP_PROOF',
  /** The DPoP proof lacks the server nonce, or carries a stale one (401, `use_dpop_nonce` plus `DPoP-Nonce`; RFC 9449 section 9). */
  UseDpopNonce: 'ERR_AUTH_USE_DPOP_NONCE',
  /** The access token lacks a scope the operation needs (403, `insufficient_scope`). */
  InsufficientScope: 'ERR_AUTH_INSUFFICIENT_SCOPE',
  /** The authorization request itself is malformed (400, `invalid_request`). */
  InvalidRequest: 'ERR_AUTH_INVALID_REQUEST',
  /** The token could not be checked (JWKS or introspection endpoint unreachable) (503). */
  VerifierUnavailable: 'ERR_AUTH_VERIFIER_UNAVAILABLE',
  /** A library option is invalid (programming error). */
  Configuration: 'ERR_AUTH_CONFIGURATION',
  /** A URL is not `https:` and the insecure switch is not set. */
  InsecureUrl: 'ERR_AUTH_INSECURE_URL',
  /** A metadata document could not be found at any of the well-known locations. */
  MetadataNotFound: 'ERR_AUTH_METADATA_NOT_FOUND',
  /** A metadata document or endpoint response is not what the spec requires. */
  InvalidMetadata: 'ERR_AUTH_INVALID_METADATA',
  /** The Protected Resource Metadata `resource` is not the server we talk to (resource mismatch attack). */
  ResourceMismatch: 'ERR_AUTH_RESOURCE_MISMATCH',
  /** An issuer did not match byte for byte (metadata `issuer`, RFC 9207 `iss`): mix-up attack. */
  IssuerMismatch: 'ERR_AUTH_ISSUER_MISMATCH',
  /** The authorization server does not advertise PKCE `S256`. */
  PkceUnsupported: 'ERR_AUTH_PKCE_UNSUPPORTED',
  /** No registration mechanism is available for this authorization server. */
  RegistrationUnavailable: 'ERR_AUTH_REGISTRATION_UNAVAILABLE',
  /** Dynamic Client Registration was refused. */
  RegistrationFailed: 'ERR_AUTH_REGISTRATION_FAILED',
  /** The authorization response `state` does not match the request (CSRF). */
  StateMismatch: 'ERR_AUTH_STATE_MISMATCH',
  /** The authorization server answered the authorization request with an error. */
  AuthorizationFailed: 'ERR_AUTH_AUTHORIZATION_FAILED',
  /** The token endpoint refused a grant (`invalid_grant`: code or refresh token rejected). */
  InvalidGrant: 'ERR_AUTH_INVALID_GRANT',
  /**
   * The token endpoint refused the requested `resource` or `audience` (`invalid_target`:
   * {@link https://datatracker.ietf.org/doc/html/rfc8707#section-2 | RFC 8707 section 2},
   * {@link https://datatracker.ietf.org/doc/html/rfc8693#section-2.2.2 | RFC 8693 section 2.2.2}).
   */
  InvalidTarget: 'ERR_AUTH_INVALID_TARGET',
  /** The token endpoint failed for another reason. */
  TokenRequestFailed: 'ERR_AUTH_TOKEN_REQUEST_FAILED',
  /** Too many challenge-driven authorization attempts (step-up retry limit). */
  RetryLimit: 'ERR_AUTH_RETRY_LIMIT',
  /** The operation needs an application seam (authorizer, registration data) that is missing. */
  InteractionRequired: 'ERR_AUTH_INTERACTION_REQUIRED',
} as const;

/** An authorization error code. */
export type AuthErrorCode = (typeof AuthErrorCode)[keyof typeof AuthErrorCode];

const defaultStatus: Record<AuthErrorCode, number> = {
  ERR_AUTH_MISSING_TOKEN: 401,
  ERR_AUTH_INVALID_TOKEN: 401,
  ERR_AUTH_INVALID_DPOP_PROOF: 401,
  ERR_AUTH_USE_DPOP_NONCE: 401,
  ERR_AUTH_INSUFFICIENT_SCOPE: 403,
  ERR_AUTH_INVALID_REQUEST: 400,
  ERR_AUTH_VERIFIER_UNAVAILABLE: 503,
  ERR_AUTH_CONFIGURATION: 500,
  ERR_AUTH_INSECURE_URL: 401,
  ERR_AUTH_METADATA_NOT_FOUND: 401,
  ERR_AUTH_INVALID_METADATA: 401,
  ERR_AUTH_RESOURCE_MISMATCH: 401,
  ERR_AUTH_ISSUER_MISMATCH: 401,
  ERR_AUTH_PKCE_UNSUPPORTED: 401,
  ERR_AUTH_REGISTRATION_UNAVAILABLE: 401,
  ERR_AUTH_REGISTRATION_FAILED: 401,
  ERR_AUTH_STATE_MISMATCH: 401,
  ERR_AUTH_AUTHORIZATION_FAILED: 401,
  ERR_AUTH_INVALID_GRANT: 401,
  ERR_AUTH_INVALID_TARGET: 401,
  ERR_AUTH_TOKEN_REQUEST_FAILED: 401,
  ERR_AUTH_RETRY_LIMIT: 403,
  ERR_AUTH_INTERACTION_REQUIRED: 401,
};

/** Options of {@link AuthError}. */
export interface AuthErrorOptions {
  /** HTTP status; defaults per code (401 / 403 / 400 / 503). */
  status?: number;
  /** The `WWW-Authenticate` value a resource server sends with this error. */
  wwwAuthenticate?: string;
  /** The `DPoP-Nonce` value a resource server sends with a `use_dpop_nonce` challenge (RFC 9449 section 9). */
  dpopNonce?: string;
  /** The offending value. */
  cause?: unknown;
}

/**
 * The OAuth error name of an {@link AuthError} (the `error` of its response body): the DPoP
 * ones by code, the others by status.
 */
export function oauthErrorName(error: Pick<AuthError, 'code' | 'status'>): string {
  if (error.code === AuthErrorCode.InvalidDpopProof) return 'invalid_dpop_proof';
  if (error.code === AuthErrorCode.UseDpopNonce) return 'use_dpop_nonce';
  const status = error.status;
  return status === 403 ? 'insufficient_scope' : status === 400 ? 'invalid_request' : status === 401 ? 'invalid_token' : 'server_error';
}

/**
 * An authorization failure. At a resource server, answer with `status` and (when set) the
 * `WWW-Authenticate` header; on a client, `status` is the status of the MCP request that stays
 * unauthorized (or of the offending response).
 */
export class AuthError extends Error {
  override readonly name = 'AuthError';
  /** The machine-readable code. */
  readonly code: AuthErrorCode;
  /** The HTTP status this failure maps to. */
  readonly status: number;
  /** The `WWW-Authenticate` header value to send, for resource-server failures. */
  readonly wwwAuthenticate?: string;
  /** The `DPoP-Nonce` header value to send, for `use_dpop_nonce` failures. */
  readonly dpopNonce?: string;

  constructor(code: AuthErrorCode, message: string, options: AuthErrorOptions = {}) {
    super(message, options.cause === undefined ? undefined : { cause: options.cause });
    this.code = code;
    this.status = options.status ?? defaultStatus[code];
    if (options.wwwAuthenticate !== undefined) this.wwwAuthenticate = options.wwwAuthenticate;
    if (options.dpopNonce !== undefined) this.dpopNonce = options.dpopNonce;
  }

  /**
   * The HTTP response a resource server sends for this error: the status, `WWW-Authenticate`
   * and `DPoP-Nonce` (when set) and a small JSON body without any detail that would help an attacker.
   */
  toResponse(): Response {
    const headers = new Headers({ 'content-type': 'application/json', 'cache-control': 'no-store' });
    if (this.wwwAuthenticate !== undefined) headers.set('www-authenticate', this.wwwAuthenticate);
    if (this.dpopNonce !== undefined) headers.set('dpop-nonce', this.dpopNonce);
    return new Response(JSON.stringify({ error: oauthErrorName(this) }), { status: this.status, headers });
  }
}

/** True when `error` is an {@link AuthError}, optionally with the given code. */
export function isAuthError(error: unknown, code?: AuthErrorCode): error is AuthError {
  return error instanceof AuthError && (code === undefined || error.code === code);
}
