/**
 * DPoP proof checks of a resource server (RFC 9449 section 4.3) with real keys and a frozen
 * clock. Negative cases are named after the attack they stop.
 *
 * @module
 */
import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import * as jose from 'jose';
import { createDpopProofer, generateDpopKey } from '../../../../src/auth/client/dpop.js';
import { type AuthError, isAuthError } from '../../../../src/auth/errors.js';
import {
  InMemoryDpopReplayCache,
  MAX_JTI_LENGTH,
  createDpopNonceSource,
  dpopAlgorithms,
  normalizeHtu,
  verifyDpopProof,
  type DpopProofOptions,
} from '../../../../src/auth/resource/dpopProof.js';
import { parseWwwAuthenticate } from '../../../../src/auth/wwwAuthenticate.js';

const NOW = Date.UTC(2026, 6, 28, 12, 0, 0);
const NOW_SEC = NOW / 1000;
const URL_ = 'https://mcp.example.test/mcp';
const TOKEN = 'at-123';
const b64u = (value: unknown): string => Buffer.from(JSON.stringify(value)).toString('base64url');
const athOf = async (token: string): Promise<string> => Buffer.from(await crypto.subtle.digest('SHA-256', new TextEncoder().encode(token))).toString('base64url');

const key = await jose.generateKeyPair('ES256', { extractable: true });
const publicJwk = await jose.exportJWK(key.publicKey);
const privateJwk = await jose.exportJWK(key.privateKey);
const jkt = await jose.calculateJwkThumbprint(publicJwk, 'sha256');
const attacker = await jose.generateKeyPair('ES256', { extractable: true });
const attackerJwk = await jose.exportJWK(attacker.publicKey);

let counter = 0;

interface ProofInput {
  readonly claims?: Record<string, unknown>;
  readonly header?: Record<string, unknown>;
  readonly privateKey?: jose.CryptoKey | Uint8Array;
  readonly token?: string | null;
}

/** A proof for POST https://mcp.example.test/mcp with `TOKEN`, overridable piece by piece. */
async function proof(input: ProofInput = {}): Promise<string> {
  const claims: Record<string, unknown> = { jti: `jti-${++counter}`, htm: 'POST', htu: URL_, iat: NOW_SEC };
  if (input.token !== null) claims['ath'] = await athOf(input.token ?? TOKEN);
  for (const [k, v] of Object.entries(input.claims ?? {})) {
    if (v === undefined) delete claims[k];
    else claims[k] = v;
  }
  const header = { alg: 'ES256', typ: 'dpop+jwt', jwk: publicJwk, ...input.header } as jose.JWTHeaderParameters;
  return new jose.SignJWT(claims as jose.JWTPayload).setProtectedHeader(header).sign(input.privateKey ?? key.privateKey);
}

/** Options for a POST to `URL_` with `TOKEN` bound to `jkt`; an `undefined` override removes that option. */
function options(overrides: { [K in keyof DpopProofOptions]?: DpopProofOptions[K] | undefined } = {}): DpopProofOptions {
  const all: Record<string, unknown> = { method: 'POST', url: URL_, accessToken: TOKEN, jkt, now: () => NOW, replayCache: new InMemoryDpopReplayCache({ now: () => NOW }), ...overrides };
  for (const [k, v] of Object.entries(all)) if (v === undefined) delete all[k];
  return all as unknown as DpopProofOptions;
}

async function refused(promise: Promise<unknown>, code = 'ERR_AUTH_INVALID_DPOP_PROOF'): Promise<{ error: AuthError; params: Readonly<Record<string, string>> }> {
  try {
    await promise;
  } catch (error) {
    assert.ok(isAuthError(error), `expected AuthError, got ${String(error)}`);
    assert.equal(error.code, code, error.message);
    const [challenge] = parseWwwAuthenticate(error.wwwAuthenticate);
    if (error.status === 401) assert.equal(challenge?.scheme, 'dpop');
    return { error, params: challenge?.params ?? {} };
  }
  assert.fail('expected a refusal');
}

describe('verifyDpopProof: accepted proofs', () => {
  it('accepts a valid proof and returns the key thumbprint, jti and iat', async () => {
    const result = await verifyDpopProof(await proof({ claims: { jti: 'j-1' } }), options());
    assert.deepEqual(result, { jkt, jti: 'j-1', iat: NOW_SEC });
    assert.ok(Object.isFrozen(result));
  });

  it('compares htu after normalisation: scheme and host case, default port, percent-encoding; query and fragment ignored', async () => {
    const htu = 'HTTPS://MCP.Example.TEST:443/%6dcp';
    await verifyDpopProof(await proof({ claims: { htu } }), options({ url: `${URL_}?session=1` }));
    assert.equal(normalizeHtu('https://h.test:443/a/./b/../%7e%2f?q#f'), 'https://h.test/a/~%2F');
    assert.equal(normalizeHtu('http://h.test:80/'), 'http://h.test/');
    assert.equal(normalizeHtu('https://user@h.test/'), undefined);
    assert.equal(normalizeHtu('urn:x'), undefined);
  });

  it('interoperates with the client proof generator (createDpopProofer), nonce included', async () => {
    const clientKey = await generateDpopKey();
    const proofer = createDpopProofer(clientKey, () => NOW);
    proofer.setNonce(URL_, 'n-1');
    const value = await proofer.proof('POST', `${URL_}?x=1#frag`, TOKEN);
    const result = await verifyDpopProof(value, options({ jkt: await proofer.thumbprint(), nonce: 'n-1' }));
    assert.equal(result.jkt, await proofer.thumbprint());
  });

  it('accepts RS256, PS256 and EdDSA proofs and iat within the clock tolerance', async () => {
    for (const alg of ['RS256', 'PS256', 'EdDSA'] as const) {
      const pair = await jose.generateKeyPair(alg, { extractable: true });
      const jwk = await jose.exportJWK(pair.publicKey);
      const value = await proof({ header: { alg, jwk }, privateKey: pair.privateKey, claims: { iat: NOW_SEC + 25 } });
      await verifyDpopProof(value, options({ jkt: await jose.calculateJwkThumbprint(jwk) }));
    }
  });

  it('the same jti under two different keys is no replay (the cache is per key)', async () => {
    const replayCache = new InMemoryDpopReplayCache({ now: () => NOW });
    await verifyDpopProof(await proof({ claims: { jti: 'shared' } }), options({ replayCache }));
    const other = await proof({ claims: { jti: 'shared' }, header: { jwk: attackerJwk }, privateKey: attacker.privateKey });
    await verifyDpopProof(other, options({ replayCache, jkt: await jose.calculateJwkThumbprint(attackerJwk) }));
  });

  it('rotating nonces: the current and the previous nonce are accepted, an older one is not', async () => {
    let t = NOW;
    const nonces = createDpopNonceSource({ rotateSec: 60, now: () => t });
    const first = nonces.current();
    await verifyDpopProof(await proof({ claims: { nonce: first } }), options({ nonce: nonces }));
    t += 61_000;
    assert.notEqual(nonces.current(), first);
    await verifyDpopProof(await proof({ claims: { nonce: first } }), options({ nonce: nonces }));
    t += 61_000;
    await refused(verifyDpopProof(await proof({ claims: { nonce: first } }), options({ nonce: nonces })), 'ERR_AUTH_USE_DPOP_NONCE');
  });

  it('the replay cache is bounded: expired entries are swept, and a full cache fails closed (503) instead of forgetting live ones', () => {
    let t = NOW;
    const cache = new InMemoryDpopReplayCache({ maxEntries: 2, now: () => t });
    assert.equal(cache.remember('a', NOW + 1000), true);
    assert.equal(cache.remember('a', NOW + 1000), false);
    assert.equal(cache.remember('b', NOW + 5000), true);
    assert.throws(() => cache.remember('c', NOW + 5000), (e: unknown) => isAuthError(e, 'ERR_AUTH_VERIFIER_UNAVAILABLE') && e.status === 503);
    t += 2000;
    assert.equal(cache.remember('c', NOW + 5000), true, 'a is expired and swept');
    assert.equal(cache.size, 2);
    assert.equal(cache.remember('b', NOW + 5000), false, 'a live entry survives the sweep');
  });
});

describe('verifyDpopProof: attacks', () => {
  it('proof replay: the same proof twice is refused the second time', async () => {
    const value = await proof();
    const opts = options();
    await verifyDpopProof(value, opts);
    const { params } = await refused(verifyDpopProof(value, opts));
    assert.equal(params['error'], 'invalid_dpop_proof');
    assert.match(params['error_description'] ?? '', /replay/);
  });

  it('proof replay with a fresh signature: a reused jti under the same key is refused', async () => {
    const opts = options();
    await verifyDpopProof(await proof({ claims: { jti: 'again' } }), opts);
    await refused(verifyDpopProof(await proof({ claims: { jti: 'again', iat: NOW_SEC - 1 } }), opts));
  });

  it('proof replay at another resource: a proof for another URL (htu) is refused', async () => {
    for (const htu of ['https://other.example.test/mcp', 'https://mcp.example.test/mcp/admin', 'http://mcp.example.test/mcp', 'https://mcp.example.test:8443/mcp']) {
      const { params } = await refused(verifyDpopProof(await proof({ claims: { htu } }), options()));
      assert.equal(params['error_description'], 'htu does not match the request URL');
    }
    await refused(verifyDpopProof(await proof({ claims: { htu: undefined } }), options()));
  });

  it('proof replay with another method: a proof for GET is refused on POST (htm is case-sensitive)', async () => {
    for (const htm of ['GET', 'post', undefined]) await refused(verifyDpopProof(await proof({ claims: { htm } }), options()));
  });

  it('stale proof: iat older than the acceptance window is refused', async () => {
    const { params } = await refused(verifyDpopProof(await proof({ claims: { iat: NOW_SEC - 300 - 31 } }), options()));
    assert.equal(params['error_description'], 'the proof is too old');
    await refused(verifyDpopProof(await proof({ claims: { iat: NOW_SEC - 61 } }), options({ maxAgeSec: 30 })));
  });

  it('pre-generated proof: iat in the future beyond the clock tolerance is refused', async () => {
    const { params } = await refused(verifyDpopProof(await proof({ claims: { iat: NOW_SEC + 31 } }), options()));
    assert.equal(params['error_description'], 'iat is in the future');
    await refused(verifyDpopProof(await proof({ claims: { iat: 'now' } }), options()));
  });

  it('proof without ath, or with the ath of another token, is refused (token substitution)', async () => {
    await refused(verifyDpopProof(await proof({ token: null }), options()));
    const { params } = await refused(verifyDpopProof(await proof({ token: 'another-token' }), options()));
    assert.equal(params['error_description'], 'ath does not match the access token');
  });

  it('stolen token with an attacker key: a proof signed by a key other than cnf.jkt is refused', async () => {
    const value = await proof({ header: { jwk: attackerJwk }, privateKey: attacker.privateKey });
    const { params } = await refused(verifyDpopProof(value, options()));
    assert.equal(params['error_description'], 'the proof is not signed with the key the access token is bound to');
  });

  it('key substitution: a header jwk that did not make the signature is refused', async () => {
    await refused(verifyDpopProof(await proof({ header: { jwk: attackerJwk } }), options()));
  });

  it('alg none: an unsigned proof is refused', async () => {
    const value = `${b64u({ alg: 'none', typ: 'dpop+jwt', jwk: publicJwk })}.${b64u({ jti: 'x', htm: 'POST', htu: URL_, iat: NOW_SEC, ath: await athOf(TOKEN) })}.`;
    await refused(verifyDpopProof(value, options()));
    await refused(verifyDpopProof(`${value}AAAA`, options()));
  });

  it('HS256 proof: a symmetric proof (the "public" key is the secret) is refused', async () => {
    const secret = new Uint8Array(32).fill(7);
    const value = await proof({ header: { alg: 'HS256', jwk: { kty: 'oct', k: Buffer.from(secret).toString('base64url') } }, privateKey: secret });
    const { params } = await refused(verifyDpopProof(value, options({ jkt: undefined })));
    assert.equal(params['error_description'], 'algorithm not allowed');
  });

  it('private key in the jwk header is refused (the client leaked its key)', async () => {
    const { params } = await refused(verifyDpopProof(await proof({ header: { jwk: privateJwk } }), options()));
    assert.equal(params['error_description'], 'the jwk header must be a public key');
    const rsa = await jose.generateKeyPair('RS256', { extractable: true });
    const rsaPrivate = await jose.exportJWK(rsa.privateKey);
    for (const member of ['p', 'q', 'dp', 'dq', 'qi']) {
      const jwk = { ...(await jose.exportJWK(rsa.publicKey)), [member]: rsaPrivate[member as keyof jose.JWK] };
      await refused(verifyDpopProof(await proof({ header: { alg: 'RS256', jwk }, privateKey: rsa.privateKey }), options({ jkt: undefined })));
    }
  });

  it('token confusion: a JWT whose typ is not dpop+jwt is refused (an access token or ID token is no proof)', async () => {
    for (const typ of ['JWT', 'at+jwt', undefined]) {
      const { params } = await refused(verifyDpopProof(await proof({ header: { typ } }), options()));
      assert.equal(params['error_description'], 'typ is not dpop+jwt');
    }
  });

  it('two DPoP headers (joined with a comma) are refused', async () => {
    const { params } = await refused(verifyDpopProof(`${await proof()}, ${await proof()}`, options()));
    assert.equal(params['error_description'], 'more than one DPoP proof');
  });

  it('malformed proofs are refused: garbage, two parts, non-JSON payload, oversized, missing', async () => {
    const header = b64u({ alg: 'ES256', typ: 'dpop+jwt', jwk: publicJwk });
    for (const value of ['garbage', 'a.b', `${header}.${Buffer.from('not json').toString('base64url')}.c2ln`, `${header}.${'A'.repeat(9000)}.c2ln`, '', null, undefined]) {
      await refused(verifyDpopProof(value, options()));
    }
    const signedNonJson = await new jose.CompactSign(new TextEncoder().encode('[1,2]')).setProtectedHeader({ alg: 'ES256', typ: 'dpop+jwt', jwk: publicJwk }).sign(key.privateKey);
    await refused(verifyDpopProof(signedNonJson, options()));
  });

  it('missing or oversized jti (unbounded replay-cache entries) is refused', async () => {
    await refused(verifyDpopProof(await proof({ claims: { jti: undefined } }), options()));
    await refused(verifyDpopProof(await proof({ claims: { jti: 'x'.repeat(MAX_JTI_LENGTH + 1) } }), options()));
    await refused(verifyDpopProof(await proof({ claims: { jti: 42 } }), options()));
  });

  it('missing jwk header, or a crit header, is refused', async () => {
    await refused(verifyDpopProof(await proof({ header: { jwk: undefined } }), options()));
    await refused(verifyDpopProof(await proof({ header: { crit: ['b64'], b64: true } }), options()));
  });

  it('algorithm downgrade: an algorithm outside the allow-list is refused', async () => {
    const pair = await jose.generateKeyPair('ES384', { extractable: true });
    const jwk = await jose.exportJWK(pair.publicKey);
    const value = await proof({ header: { alg: 'ES384', jwk }, privateKey: pair.privateKey });
    await refused(verifyDpopProof(value, options({ jkt: undefined, algorithms: ['ES256'] })));
  });

  it('missing nonce when one is required: use_dpop_nonce with the nonce to use', async () => {
    const { error, params } = await refused(verifyDpopProof(await proof(), options({ nonce: 'server-nonce' })), 'ERR_AUTH_USE_DPOP_NONCE');
    assert.equal(error.status, 401);
    assert.equal(error.dpopNonce, 'server-nonce');
    assert.equal(params['error'], 'use_dpop_nonce');
    assert.equal(error.toResponse().headers.get('dpop-nonce'), 'server-nonce');
    assert.deepEqual(await error.toResponse().json(), { error: 'use_dpop_nonce' });
  });

  it('stale or forged nonce: use_dpop_nonce again', async () => {
    const { error } = await refused(verifyDpopProof(await proof({ claims: { nonce: 'old' } }), options({ nonce: 'server-nonce' })), 'ERR_AUTH_USE_DPOP_NONCE');
    assert.equal(error.dpopNonce, 'server-nonce');
  });

  it('replay cache outage: the proof is refused with 503 (fail closed)', async () => {
    const replayCache = { remember: () => Promise.reject(new Error('redis down')) };
    await refused(verifyDpopProof(await proof(), options({ replayCache })), 'ERR_AUTH_VERIFIER_UNAVAILABLE');
  });

  it('shared nonce source outage: the proof is refused with 503 (fail closed), whether checking or handing out a nonce', async () => {
    const down = { current: () => Promise.reject(new Error('redis down')), accepts: () => Promise.reject(new Error('redis down')) };
    await refused(verifyDpopProof(await proof({ claims: { nonce: 'n' } }), options({ nonce: down })), 'ERR_AUTH_VERIFIER_UNAVAILABLE');
    const handOutDown = { current: () => Promise.reject(new Error('redis down')), accepts: async () => false };
    await refused(verifyDpopProof(await proof(), options({ nonce: handOutDown })), 'ERR_AUTH_VERIFIER_UNAVAILABLE');
  });

  it('an asynchronous (shared) nonce source: its nonce is accepted, another is refused with the fresh one', async () => {
    const shared = { current: async () => 'shared-nonce', accepts: async (nonce: string) => nonce === 'shared-nonce' };
    await verifyDpopProof(await proof({ claims: { nonce: 'shared-nonce' } }), options({ nonce: shared }));
    const { error } = await refused(verifyDpopProof(await proof({ claims: { nonce: 'other' } }), options({ nonce: shared })), 'ERR_AUTH_USE_DPOP_NONCE');
    assert.equal(error.dpopNonce, 'shared-nonce');
  });

  it('a refused proof never enters the replay cache (cache poisoning)', async () => {
    const replayCache = new InMemoryDpopReplayCache({ now: () => NOW });
    await refused(verifyDpopProof(await proof({ claims: { jti: 'p' }, header: { jwk: attackerJwk }, privateKey: attacker.privateKey }), options({ replayCache })));
    assert.equal(replayCache.size, 0);
    await verifyDpopProof(await proof({ claims: { jti: 'p' } }), options({ replayCache }));
  });

  it('unsafe configuration: none, HS256 or an empty allow-list is refused', () => {
    for (const algorithms of [['none'], ['HS256'], [], ['ES256', 'HS512']]) {
      assert.throws(() => dpopAlgorithms(algorithms), (e: unknown) => isAuthError(e, 'ERR_AUTH_CONFIGURATION'));
    }
  });
});
