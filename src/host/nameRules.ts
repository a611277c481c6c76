/**
 * The rules for names the host exposes (tools and prompts) and the deterministic mapping of
 * names that break them.
 *
 * An exposed name is 1–64 characters of `[A-Za-z0-9_.\-/]`: the SEP-986 format. 64 (not the
 * 128 of the 2025-11-25 text) because the large model APIs cap function names at 64; `/` is
 * kept because SEP-986 allows it (`toolFormats.ts` maps it away for APIs that do not).
 *
 * A name that does not fit — too long once prefixed, or holding other characters — is mapped,
 * never rejected: invalid characters become `_`, the text is cut to leave room, and
 * `_` + 8 hex digits of SHA-256 over `serverId`, NUL, the original name is appended. The same
 * (server, name) always gives the same result; the hash keeps two originals that clean up to
 * the same text apart. (Rejecting would hide a server's tool over a cosmetic problem.)
 *
 * @see https://modelcontextprotocol.io/community/seps/986-specify-format-for-tool-names
 * @module
 */
import { sha256Hex } from '../util/sha256.js';

/** Longest exposed name. */
export const EXPOSED_NAME_MAX_LENGTH = 64;

/** What an exposed name may look like. */
export const EXPOSED_NAME_PATTERN = /^[A-Za-z0-9_.\-/]{1,64}$/;

/** True when `name` can be exposed as is. */
export function isExposableName(name: string): boolean {
  return EXPOSED_NAME_PATTERN.test(name);
}

/**
 * `prefix + name` if that is a valid exposed name and `hashDigits` is 0; otherwise the mapped
 * form `<prefix + cleaned name, cut>_<hash>` with `hashDigits` (8 by default when needed) hex
 * digits of SHA-256 over `serverId` NUL `name`. Deterministic.
 */
export function exposedName(serverId: string, prefix: string, name: string, hashDigits = 0): string {
  const plain = prefix + name;
  if (hashDigits === 0 && isExposableName(plain)) return plain;
  const digits = hashDigits === 0 ? 8 : hashDigits;
  const hash = sha256Hex(`${serverId}\0${name}`).slice(0, digits);
  const cleaned = plain.replace(/[^A-Za-z0-9_.\-/]/g, '_');
  return `${cleaned.slice(0, EXPOSED_NAME_MAX_LENGTH - digits - 1)}_${hash}`;
}
