/**
 * Static bearer tokens with names: a resource server's credential for callers that have no
 * authorization server (a team's agents, CI). Each token is known only by its SHA-256 digest;
 * a presented token is hashed and its digest compared with every known one in constant time
 * (fixed-length digests, no early exit), so neither the comparison nor the list order tells
 * an attacker how close a guess came. A match gives a {@link VerifiedPrincipal} whose
 * `subject` is the token's name and whose `scopes` are the token's, as an OAuth access token's
 * would: handlers, interceptors and policies see both kinds through the same seam.
 *
 * @see https://datatracker.ietf.org/doc/html/rfc6750
 * @module
 */
import { sha256, sha256Hex } from '../../util/sha256.js';
import type { VerifiedPrincipal } from './principal.js';

/** One named token, known by its digest. */
export interface NamedToken {
  /** Who holds it: the principal's `subject` (and its id at the gateway). */
  readonly name: string;
  /** The token's SHA-256 digest, 64 lowercase hex digits (of its UTF-8 bytes). */
  readonly sha256: string;
  /** The scopes the token grants. */
  readonly scopes: readonly string[];
}

/** The `issuer` of a static token's principal (no authorization server issued it). */
export const STATIC_TOKEN_ISSUER = 'switchboard:static-token';

/** Checks presented bearer tokens against a fixed set of {@link NamedToken}s. */
export interface StaticTokenVerifier {
  /** The principal of `token` when it is one of the set, else undefined. Constant time in the token. */
  verify(token: string): VerifiedPrincipal | undefined;
  /** The names of the tokens (for messages; never the tokens). */
  readonly names: readonly string[];
}

const HEX64 = /^[0-9a-f]{64}$/;

/** The hex SHA-256 digest a {@link NamedToken} stores for `token`. */
export function tokenDigest(token: string): string {
  return sha256Hex(token);
}

function fromHex(hex: string): Uint8Array {
  const out = new Uint8Array(hex.length / 2);
  for (let i = 0; i < out.length; i++) out[i] = Number.parseInt(hex.slice(i * 2, i * 2 + 2), 16);
  return out;
}

/**
 * Builds the verifier. Throws a `TypeError` on an empty set, a repeated name or digest, or a
 * digest that is not 64 lowercase hex digits.
 */
export function createStaticTokenVerifier(tokens: readonly NamedToken[]): StaticTokenVerifier {
  if (tokens.length === 0) throw new TypeError('static tokens: the set is empty');
  const names = new Set<string>();
  const digests = new Set<string>();
  const entries = tokens.map((t) => {
    if (t.name === '' || names.has(t.name)) throw new TypeError(`static tokens: the name ${JSON.stringify(t.name)} is empty or repeated`);
    if (!HEX64.test(t.sha256)) throw new TypeError(`static tokens: the digest of ${JSON.stringify(t.name)} is not 64 lowercase hex digits`);
    if (digests.has(t.sha256)) throw new TypeError(`static tokens: ${JSON.stringify(t.name)} has the same token as another`);
    names.add(t.name);
    digests.add(t.sha256);
    const principal: VerifiedPrincipal = Object.freeze({
      subject: t.name,
      clientId: undefined,
      scopes: Object.freeze([...new Set(t.scopes)]),
      issuer: STATIC_TOKEN_ISSUER,
      audience: Object.freeze([]),
      expiresAt: undefined,
      claims: Object.freeze({}),
      jkt: undefined,
    });
    return { digest: fromHex(t.sha256), principal };
  });
  // The tokens already verified, by their text: a client presents the same token on every
  // request, and hashing it each time costs more than the rest of the check. Only tokens that
  // verified are kept (at most one entry per configured token), so an unknown token always takes
  // the full, constant-time path; a hit says no more than the answer does (the token is valid).
  const verified = new Map<string, VerifiedPrincipal>();
  return {
    names: Object.freeze([...names]),
    verify(token) {
      const known = verified.get(token);
      if (known !== undefined) return known;
      const presented = sha256(token);
      let found: VerifiedPrincipal | undefined;
      // Every digest is compared in full, whatever matched: the time does not depend on which.
      for (const entry of entries) {
        let diff = 0;
        for (let i = 0; i < 32; i++) diff |= (entry.digest[i] as number) ^ (presented[i] as number);
        if (diff === 0) found = entry.principal;
      }
      if (found !== undefined && verified.size < entries.length) verified.set(token, found);
      return found;
    },
  };
}
