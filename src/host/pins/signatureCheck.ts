/**
 * Verifies a server's signed manifest (see `protocol/manifest.ts`, `docs/signing.md`) against
 * what the host trusts: publisher keys from the config (optionally bound to server ids) and
 * the key pinned for the server the first time it signed. A manifest signed by another key
 * is accepted only through a chain of rotation statements, each signed by the key before.
 *
 * @module
 */
import type { JWK } from 'jose';
import { readManifest, readRotation, type ManifestEnvelope, type ManifestPayload } from '../../protocol/manifest.js';
import { describeError } from '../../util/errors.js';

/** What a server's signature must be: not checked, checked (unsigned or invalid is logged), or required (else nothing is served). */
export type SignaturePolicy = 'off' | 'warn' | 'require';

/** A publisher key from the config. */
export interface TrustedKey {
  /** A label for messages. */
  readonly name?: string;
  /** The public JWK (Ed25519 or P-256). */
  readonly jwk: JWK;
  /** Config ids of the servers this key may sign for; undefined = any. */
  readonly servers?: readonly string[];
}

/** A {@link TrustedKey} with its RFC 7638 thumbprint. */
export interface ResolvedTrustedKey extends TrustedKey {
  readonly thumbprint: string;
}

/** The outcome of checking one server's manifest. */
export type SignatureOutcome =
  | { readonly status: 'unsigned' }
  | { readonly status: 'invalid'; readonly reason: string }
  | {
      readonly status: 'valid';
      readonly thumbprint: string;
      readonly trust: 'pinned-key' | 'trusted-publisher';
      readonly payload: ManifestPayload;
      /** Set when the key was reached through rotation statements from the pinned one. */
      readonly rotatedFrom?: string;
    };

/** What {@link checkSignature} needs to know. */
export interface SignatureInput {
  readonly envelope: ManifestEnvelope | undefined;
  /** The configured id. */
  readonly serverId: string;
  /** What the server says it is (`serverInfo.name`). */
  readonly serverName: string | undefined;
  /** The key pinned for this server, if any. */
  readonly pinnedThumbprint: string | undefined;
  readonly trustedKeys: readonly ResolvedTrustedKey[];
}

/** Checks the manifest of one server. Never throws: a bad manifest is `invalid` with the reason. */
export async function checkSignature(input: SignatureInput): Promise<SignatureOutcome> {
  if (input.envelope === undefined) return { status: 'unsigned' };
  let manifest;
  try {
    manifest = await readManifest(input.envelope.jws);
  } catch (error) {
    return { status: 'invalid', reason: describeError(error) };
  }
  const { payload, thumbprint } = manifest;
  // A manifest names the server it was made for: another server replaying it is refused.
  if (payload.sub !== input.serverName) {
    return { status: 'invalid', reason: `the manifest was signed for server ${JSON.stringify(payload.sub)}, but this server says it is ${JSON.stringify(input.serverName)} (a replayed signature)` };
  }
  const publisher = input.trustedKeys.find((k) => k.thumbprint === thumbprint);
  if (publisher !== undefined) {
    if (publisher.servers !== undefined && !publisher.servers.includes(input.serverId)) {
      return { status: 'invalid', reason: `the publisher key ${publisher.name ?? thumbprint} may sign only for ${publisher.servers.join(', ')}, not for ${input.serverId} (a replayed signature)` };
    }
    return { status: 'valid', thumbprint, trust: 'trusted-publisher', payload };
  }
  const pinned = input.pinnedThumbprint;
  if (pinned === undefined || pinned === thumbprint) return { status: 'valid', thumbprint, trust: 'pinned-key', payload };
  // Another key: only a chain of rotation statements from the pinned key makes it this server's.
  let current = pinned;
  for (const statement of input.envelope.rotations ?? []) {
    try {
      const rotation = await readRotation(statement);
      if (rotation.from === current) current = rotation.to;
    } catch (error) {
      return { status: 'invalid', reason: `a key rotation statement is invalid: ${describeError(error)}` };
    }
  }
  if (current === thumbprint) return { status: 'valid', thumbprint, trust: 'pinned-key', payload, rotatedFrom: pinned };
  return { status: 'invalid', reason: `the manifest is signed by key ${thumbprint}, but this server's pinned key is ${pinned} and no rotation statement signed by it names the new key` };
}
