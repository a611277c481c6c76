/**
 * A signed checkpoint of the audit log for an external witness (`switchboard audit checkpoint`):
 * the head (record number, hash, time) and the log's name, signed with Ed25519 by a key kept in
 * the anchor folder (`audit-signing.key`, mode 0600, made on first use), the public key (JWK)
 * included. A witness keeps the copies it receives; `audit verify --checkpoint FILE` later checks
 * that the log still holds the signed record with the signed hash, so a truncation, an emptying
 * or a re-chaining of the log is found even by someone who also rewrote the local anchor.
 *
 * The signature is over the canonical text (RFC 8785) of every member but `signature`; it
 * proves who made the checkpoint only to a witness that compares the key's thumbprint
 * ({@link witnessThumbprint}, RFC 7638) with the one it was given first.
 *
 * @module
 */
import { createHash, createPrivateKey, createPublicKey, generateKeyPairSync, sign, verify, type JsonWebKey, type KeyObject } from 'node:crypto';
import { readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { canonicalize } from '../../util/canonicalJson.js';
import type { AuditCheckpoint } from './auditAnchor.js';
import type { AnchorFolder } from './anchorFile.js';

/** The `type` of a signed checkpoint. */
export const CHECKPOINT_TYPE = 'switchboard-audit-checkpoint';

/** A signed checkpoint, as exported. */
export interface SignedCheckpoint extends AuditCheckpoint {
  readonly type: typeof CHECKPOINT_TYPE;
  /** The log it is of (its file, or its PostgreSQL database). */
  readonly log: string;
  /** The Ed25519 public key (JWK: kty OKP, crv Ed25519, x). */
  readonly key: { readonly kty: 'OKP'; readonly crv: 'Ed25519'; readonly x: string };
  /** Ed25519 signature (base64url) of the canonical text of the other members. */
  readonly signature: string;
}

/** The anchor folder's signing key, made (mode 0600) on first use. */
export function witnessKey(folder: AnchorFolder): KeyObject {
  const file = join(folder.dir, 'audit-signing.key');
  try {
    return createPrivateKey(readFileSync(file, 'utf8'));
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code !== 'ENOENT') throw error;
  }
  const { privateKey } = generateKeyPairSync('ed25519');
  try {
    writeFileSync(file, privateKey.export({ type: 'pkcs8', format: 'pem' }), { mode: 0o600, flag: 'wx' });
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code !== 'EEXIST') throw error;
    return createPrivateKey(readFileSync(file, 'utf8'));
  }
  return privateKey;
}

/** RFC 7638 thumbprint (SHA-256, base64url) of an Ed25519 public JWK. */
export function witnessThumbprint(key: SignedCheckpoint['key']): string {
  return createHash('sha256').update(canonicalize({ crv: key.crv, kty: key.kty, x: key.x })).digest('base64url');
}

/** Signs `head` of log `log` with `key`. */
export function signCheckpoint(head: AuditCheckpoint, log: string, key: KeyObject): SignedCheckpoint {
  const jwk = createPublicKey(key).export({ format: 'jwk' }) as JsonWebKey;
  const unsigned = { type: CHECKPOINT_TYPE as typeof CHECKPOINT_TYPE, log, seq: head.seq, hash: head.hash, time: head.time, key: { kty: 'OKP' as const, crv: 'Ed25519' as const, x: String(jwk.x) } };
  return { ...unsigned, signature: sign(null, Buffer.from(canonicalize(unsigned)), key).toString('base64url') };
}

/**
 * Reads a signed checkpoint's text and checks its shape and signature.
 *
 * @returns the checkpoint, or a sentence saying why it is not one.
 */
export function readSignedCheckpoint(text: string): SignedCheckpoint | string {
  let value: unknown;
  try {
    value = JSON.parse(text);
  } catch {
    return 'it is not JSON';
  }
  const c = value as Partial<SignedCheckpoint> | null;
  if (typeof c !== 'object' || c === null || c.type !== CHECKPOINT_TYPE) return `it is not a ${CHECKPOINT_TYPE}`;
  if (typeof c.log !== 'string' || !Number.isSafeInteger(c.seq) || (c.seq as number) < 0 || typeof c.hash !== 'string' || typeof c.time !== 'string' || typeof c.signature !== 'string') return 'a member is missing or malformed';
  const key = c.key;
  if (typeof key !== 'object' || key === null || key.kty !== 'OKP' || key.crv !== 'Ed25519' || typeof key.x !== 'string') return 'its key is not an Ed25519 public JWK';
  const { signature, ...unsigned } = c as SignedCheckpoint;
  let ok: boolean;
  try {
    ok = verify(null, Buffer.from(canonicalize(unsigned)), createPublicKey({ key: { kty: 'OKP', crv: 'Ed25519', x: key.x }, format: 'jwk' }), Buffer.from(signature, 'base64url'));
  } catch {
    ok = false;
  }
  return ok ? (c as SignedCheckpoint) : 'its signature does not verify (it was altered)';
}
