/**
 * The inbound token as an RFC 8693 `subject_token`, without token passthrough.
 *
 * A {@link VerifiedPrincipal} never holds the raw access token (see `principal.ts`): handlers
 * cannot forward it downstream, which the MCP spec forbids
 * ({@link https://modelcontextprotocol.io/specification/2025-11-25/basic/security_best_practices#token-passthrough | token passthrough}).
 * A token exchange ({@link https://datatracker.ietf.org/doc/html/rfc8693 | RFC 8693}) still needs
 * it, once, as the `subject_token` sent to the authorization server. This module is that one
 * capability: a module-private `WeakMap` from the very principal object the bearer verifier
 * returned to the token it verified, filled only when the verifier was created with
 * `exchangeable: true`, read only through {@link subjectTokenOf}.
 *
 * The token is not a property of the principal: `JSON.stringify`, `structuredClone`, spreading,
 * `Object.keys` and logging a principal never reveal it; a copy of the principal (a new object)
 * has no subject token, and the entry dies with the principal (the request).
 *
 * @module
 */
import type { VerifiedPrincipal } from './principal.js';

const subjectTokens = new WeakMap<VerifiedPrincipal, string>();

/**
 * Records `token` as the subject token of `principal` (the bearer verifier calls this when
 * created with `exchangeable: true`). Returns `principal`.
 */
export function rememberSubjectToken(principal: VerifiedPrincipal, token: string): VerifiedPrincipal {
  subjectTokens.set(principal, token);
  return principal;
}

/**
 * The access token `principal` was verified from, when its verifier allows token exchange;
 * else `undefined` (a named static token, a copied principal, a verifier without `exchangeable`).
 * Send it only to the authorization server's token endpoint as `subject_token`, never to a
 * resource server.
 */
export function subjectTokenOf(principal: VerifiedPrincipal | undefined): string | undefined {
  return principal === undefined ? undefined : subjectTokens.get(principal);
}
