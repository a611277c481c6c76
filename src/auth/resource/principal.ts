/**
 * The verified principal a resource server hands to its handlers, and the claim helpers that
 * build it from a JWT payload or an RFC 7662 introspection response.
 *
 * **No token passthrough.** A principal never contains the raw access token: handlers cannot
 * forward the client's token to an upstream API, which the MCP spec forbids
 * ({@link https://modelcontextprotocol.io/specification/2026-07-28/basic/authorization/security-considerations | security considerations},
 * "access token privilege escalation / passthrough"). Upstream calls must use tokens the server
 * obtains for itself.
 *
 * @module
 */

/** The identity and grants proven by a verified access token. Frozen; holds no token. */
export interface VerifiedPrincipal {
  /** `sub`: the resource owner (or the client itself for client-credentials tokens). */
  readonly subject: string | undefined;
  /** `client_id` (RFC 9068) or `azp`. */
  readonly clientId: string | undefined;
  /** Granted scopes (from `scope`, or `scp` when an array). */
  readonly scopes: readonly string[];
  /** `iss`: the issuer that was checked against the allow-list. */
  readonly issuer: string;
  /** `aud`, as a list. */
  readonly audience: readonly string[];
  /** `exp`, seconds since the epoch, when present. */
  readonly expiresAt: number | undefined;
  /** All claims (a frozen copy of the JWT payload or introspection response, never the token). */
  readonly claims: Readonly<Record<string, unknown>>;
  /**
   * The RFC 7638 thumbprint of the key this request proved it holds with a DPoP proof
   * ({@link https://datatracker.ietf.org/doc/html/rfc9449 | RFC 9449}); it equals the token's
   * `cnf.jkt`. Undefined for a bearer token (a token with a `cnf` claim is never accepted as one).
   */
  readonly jkt: string | undefined;
}

/** Builds a frozen principal from verified claims. */
export function principalFromClaims(claims: Readonly<Record<string, unknown>>, issuer: string): VerifiedPrincipal {
  const scope = claims['scope'];
  const scp = claims['scp'];
  const scopes =
    typeof scope === 'string'
      ? scope.split(' ').filter((s) => s !== '')
      : Array.isArray(scp)
        ? scp.filter((s): s is string => typeof s === 'string')
        : typeof scp === 'string'
          ? scp.split(' ').filter((s) => s !== '')
          : [];
  const aud = claims['aud'];
  const audience = typeof aud === 'string' ? [aud] : Array.isArray(aud) ? aud.filter((a): a is string => typeof a === 'string') : [];
  const exp = claims['exp'];
  const sub = claims['sub'];
  const clientId = typeof claims['client_id'] === 'string' ? claims['client_id'] : typeof claims['azp'] === 'string' ? claims['azp'] : undefined;
  return Object.freeze({
    subject: typeof sub === 'string' ? sub : undefined,
    clientId,
    scopes: Object.freeze([...new Set(scopes)]),
    issuer,
    audience: Object.freeze(audience),
    expiresAt: typeof exp === 'number' ? exp : undefined,
    claims: Object.freeze(structuredClone({ ...claims })),
    jkt: undefined,
  });
}
