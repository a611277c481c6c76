/**
 * DPoP: sender-constrained tokens ({@link https://datatracker.ietf.org/doc/html/rfc9449 | RFC 9449}).
 *
 * A {@link DpopProofer} signs one proof JWT per HTTP request (`typ: dpop+jwt`, the public `jwk`
 * in the header; `jti`, `htm`, `htu` without query and fragment, `iat`, and with an access
 * token `ath` = base64url(SHA-256(token))), and remembers the latest server nonce per origin
 * (`DPoP-Nonce` response header, RFC 9449 section 8 / 9) so callers can retry once on
 * `use_dpop_nonce`.
 *
 * @module
 */

import * as jose from 'jose';
import { randomToken, sha256b64u } from '../http.js';

/** A DPoP key pair. */
export interface DpopKey {
  readonly privateKey: CryptoKey;
  readonly publicJwk: jose.JWK;
  readonly alg: string;
}

/** Generates a non-extractable DPoP key pair (default ES256). */
export async function generateDpopKey(alg = 'ES256'): Promise<DpopKey> {
  const { privateKey, publicKey } = await jose.generateKeyPair(alg, { extractable: false });
  const jwk = await jose.exportJWK(publicKey);
  return { privateKey, publicJwk: jwk, alg };
}

/** Signs DPoP proofs and tracks nonces. */
export interface DpopProofer {
  /** The JWK SHA-256 thumbprint of the public key (`cnf.jkt`). */
  thumbprint(): Promise<string>;
  /** A proof for one request; `accessToken` adds `ath`. Uses the remembered nonce of the origin. */
  proof(method: string, url: string, accessToken?: string): Promise<string>;
  /** Remembers a `DPoP-Nonce` value for the origin of `url`. Returns true when it changed. */
  setNonce(url: string, nonce: string | null | undefined): boolean;
  /** Remembers `DPoP-Nonce` from a response, when present. Returns true when it changed. */
  observe(url: string, response: Response): boolean;
}

/** Creates a {@link DpopProofer} for `key`. */
export function createDpopProofer(key: DpopKey, now: () => number = Date.now): DpopProofer {
  const nonces = new Map<string, string>();
  const { d: _d, ...publicJwk } = key.publicJwk as jose.JWK & { d?: string };
  return {
    thumbprint: () => jose.calculateJwkThumbprint(publicJwk, 'sha256'),
    async proof(method, url, accessToken) {
      const u = new URL(url);
      const htu = `${u.origin}${u.pathname}`;
      const payload: jose.JWTPayload = { jti: randomToken(16), htm: method.toUpperCase(), htu, iat: Math.floor(now() / 1000) };
      const nonce = nonces.get(u.origin);
      if (nonce !== undefined) payload['nonce'] = nonce;
      if (accessToken !== undefined) payload['ath'] = await sha256b64u(accessToken);
      return new jose.SignJWT(payload).setProtectedHeader({ alg: key.alg, typ: 'dpop+jwt', jwk: publicJwk }).sign(key.privateKey);
    },
    observe(url, response) {
      return this.setNonce(url, response.headers.get('dpop-nonce'));
    },
    setNonce(url, nonce) {
      if (nonce === null || nonce === undefined || nonce === '') return false;
      const origin = new URL(url).origin;
      const changed = nonces.get(origin) !== nonce;
      nonces.set(origin, nonce);
      return changed;
    },
  };
}
