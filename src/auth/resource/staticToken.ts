/**
 * A bearer verifier for one shared secret: a single-user resource (the local gateway) that
 * accepts exactly one long random token instead of OAuth access tokens. The token is compared
 * in constant time; a missing or wrong token gets a 401 with a `Bearer` challenge. Every
 * accepted request is the same principal.
 *
 * Use OAuth (`createBearerVerifier`) wherever more than one person or client needs their own
 * identity.
 *
 * @see https://modelcontextprotocol.io/specification/2025-11-25/basic/authorization
 * @module
 */
import { AuthError, AuthErrorCode } from '../errors.js';
import { formatChallenge } from '../wwwAuthenticate.js';
import type { BearerVerifier } from './bearerVerifier.js';
import { principalFromClaims, type VerifiedPrincipal } from './principal.js';
import { protectedResourceMetadataUrl } from './protectedResourceMetadata.js';

/** Options of {@link createStaticTokenVerifier}. */
export interface StaticTokenVerifierOptions {
  /** The canonical URI of this resource. */
  readonly resource: string;
  /** The shared secret (at least 32 characters). */
  readonly token: string;
  /** The principal every accepted request is (`sub`). Default `local`. */
  readonly subject?: string;
}

/** Creates the verifier; a token shorter than 32 characters is a `TypeError`. */
export function createStaticTokenVerifier(options: StaticTokenVerifierOptions): BearerVerifier {
  if (options.token.length < 32) throw new TypeError('a static bearer token must be at least 32 characters long');
  const expected = new TextEncoder().encode(options.token);
  const resourceMetadataUrl = protectedResourceMetadataUrl(options.resource);
  const subject = options.subject ?? 'local';
  const challenge = (params: { error?: string; description?: string } = {}): string =>
    formatChallenge('Bearer', { error: params.error, error_description: params.description, resource_metadata: resourceMetadataUrl });
  const principal: VerifiedPrincipal = principalFromClaims({ sub: subject, aud: options.resource }, 'static-token');
  const verify = (token: string): Promise<VerifiedPrincipal> => {
    if (!equalConstantTime(new TextEncoder().encode(token), expected)) {
      return Promise.reject(new AuthError(AuthErrorCode.InvalidToken, 'invalid access token', { wwwAuthenticate: challenge({ error: 'invalid_token', description: 'the token is not this server’s' }) }));
    }
    return Promise.resolve(principal);
  };
  return {
    resourceMetadataUrl,
    verify: (token) => verify(token),
    authenticate: (request) => {
      const header = request.headers.get('authorization');
      const match = header === null ? null : /^Bearer +(\S+)$/i.exec(header.trim());
      if (match === null) return Promise.reject(new AuthError(AuthErrorCode.MissingToken, 'a bearer token is required', { wwwAuthenticate: challenge() }));
      return verify(match[1] as string);
    },
    challenge: (params) => challenge(params === undefined ? {} : { ...(params.error !== undefined ? { error: params.error } : {}) }),
  };
}

/** Compares without an early exit (the length is not secret: the token has a fixed length). */
function equalConstantTime(a: Uint8Array, b: Uint8Array): boolean {
  let diff = a.length ^ b.length;
  for (let i = 0; i < b.length; i++) diff |= (a[i % Math.max(a.length, 1)] ?? 0) ^ (b[i] as number);
  return diff === 0;
}
