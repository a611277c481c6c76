/**
 * PKCE with `S256` only ({@link https://datatracker.ietf.org/doc/html/rfc7636 | RFC 7636};
 * OAuth 2.1 section 4.1.1). `plain` is never produced.
 *
 * @module
 */

import { randomToken, sha256b64u } from '../http.js';

/** A PKCE pair. */
export interface Pkce {
  /** 43-character high-entropy verifier (32 random bytes, base64url). */
  readonly codeVerifier: string;
  /** `BASE64URL(SHA256(verifier))`. */
  readonly codeChallenge: string;
  readonly codeChallengeMethod: 'S256';
}

/** The S256 challenge of a verifier. */
export function codeChallengeS256(codeVerifier: string): Promise<string> {
  return sha256b64u(codeVerifier);
}

/** Generates a fresh PKCE pair. */
export async function createPkce(): Promise<Pkce> {
  const codeVerifier = randomToken(32);
  return { codeVerifier, codeChallenge: await codeChallengeS256(codeVerifier), codeChallengeMethod: 'S256' };
}
