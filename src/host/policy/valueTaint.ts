/**
 * Value taint: a secret-looking value that came out of one server's result and shows up in
 * the arguments of a request to another server is caught, with no labels needed.
 *
 * - On a result, every string in it goes through the injected `detectSecrets`; each value
 *   found is kept only as a keyed fingerprint (its length and SHA-256 over a random key and the
 *   value), never the value itself. The key is per process, or one shared by every gateway
 *   instance of a deployment (so a secret read through one instance is recognised in a
 *   request through another).
 * - On a request, every string in its params is looked at as it is and decoded (URL-encoding,
 *   base64 and base64url runs, hex runs); each form goes through `detectSecrets` and is split
 *   into tokens, and every candidate's fingerprint is looked up. A secret pasted verbatim, or
 *   base64-, hex- or URL-encoded, is found; a random-looking value that never came out of a
 *   server has no fingerprint and is not flagged.
 *
 * @module
 */
import { sha256Hex } from '../../util/sha256.js';

/** Finds secret values in a text (the sanitize branch's `findSecrets`, mapped to values). */
export type DetectSecrets = (text: string) => readonly string[];

/**
 * Keyed fingerprints of secret values: `<length>:<hash>`. The length lets a lookup skip, without
 * hashing, every candidate whose length no known fingerprint has; it is part of the fingerprint
 * (not remembered here) so fingerprints made by another instance with the same key work too.
 */
export class SecretFingerprints {
  readonly #key: string;

  /** `key`: the fingerprint key (hex), shared by the instances that must recognise each other's fingerprints; default a fresh random one. */
  constructor(key?: string) {
    if (key !== undefined) this.#key = key;
    else {
      const bytes = new Uint8Array(32);
      crypto.getRandomValues(bytes);
      this.#key = Array.from(bytes, (b) => b.toString(16).padStart(2, '0')).join('');
    }
  }

  /** The fingerprint of `value`. */
  of(value: string): string {
    return `${value.length}:${this.#hash(value)}`;
  }

  /** The entry of `known` for `candidate`, hashing it only when a fingerprint of its length is in `lengths` (see {@link lengthsOf}). */
  lookup<T>(candidate: string, known: ReadonlyMap<string, T>, lengths: ReadonlySet<number> = lengthsOf(known)): T | undefined {
    return lengths.has(candidate.length) ? known.get(`${candidate.length}:${this.#hash(candidate)}`) : undefined;
  }

  #hash(value: string): string {
    return sha256Hex(`${this.#key}\u0000${value}`).slice(0, 32);
  }
}

/** The value lengths of the fingerprints in `known`. */
export function lengthsOf(known: ReadonlyMap<string, unknown>): Set<number> {
  const lengths = new Set<number>();
  for (const fingerprint of known.keys()) lengths.add(parseInt(fingerprint, 10));
  return lengths;
}

/** Most strings {@link stringsIn} and {@link eachString} visit, and the deepest level they look at. */
const MAX_STRINGS = 10_000;
const MAX_DEPTH = 32;

/** Every string inside a JSON-like value (at most 10,000 strings, 32 levels deep). */
export function stringsIn(value: unknown): string[] {
  const out: string[] = [];
  eachString(value, (text) => void out.push(text));
  return out;
}

/**
 * Calls `fn` with each string inside a JSON-like value, in the order and within the bounds of
 * {@link stringsIn}, without collecting them first. Returns how many it visited.
 */
export function eachString(value: unknown, fn: (text: string) => void, seen = 0, depth = 0): number {
  if (seen >= MAX_STRINGS || depth > MAX_DEPTH) return seen;
  if (typeof value === 'string') {
    fn(value);
    return seen + 1;
  }
  if (Array.isArray(value)) for (const item of value) seen = eachString(item, fn, seen, depth + 1);
  else if (typeof value === 'object' && value !== null) for (const key in value) seen = eachString((value as Record<string, unknown>)[key], fn, seen, depth + 1);
  return seen;
}

/** The secret values `detect` finds in the strings of a result (undefined when none: most results). */
export function secretsIn(result: unknown, detect: DetectSecrets): Set<string> | undefined {
  let found: Set<string> | undefined;
  eachString(result, (text) => {
    for (const value of detect(text)) if (value.length >= 8) (found ??= new Set()).add(value);
  });
  return found;
}

const BASE64_RUN = /[A-Za-z0-9+/_-]{12,}={0,2}/g;
const HEX_RUN = /(?:[0-9a-fA-F]{2}){6,}/g;
const TOKEN_SPLIT = /[\s"'`<>()[\]{},;|\\]+/;
const SUB_SPLIT = /[=:&?/#@]+/;

/** The texts a string may hide a secret in: itself and its URL, base64 and hex decodings (one level). */
export function decodedForms(text: string): string[] {
  const forms = [text];
  if (text.includes('%')) {
    try {
      forms.push(decodeURIComponent(text.replace(/\+/g, ' ')));
    } catch {
      // not URL-encoded
    }
  }
  for (const run of text.match(BASE64_RUN) ?? []) {
    const decoded = decodeBase64(run);
    if (decoded !== undefined) forms.push(decoded);
  }
  for (const run of text.match(HEX_RUN) ?? []) {
    const decoded = decodeHex(run);
    if (decoded !== undefined) forms.push(decoded);
  }
  return forms;
}

/** The candidate values of a text: what `detect` finds in it, and its tokens. */
export function candidatesOf(text: string, detect: DetectSecrets): Set<string> {
  const out = new Set<string>();
  for (const form of decodedForms(text)) {
    for (const value of detect(form)) out.add(value);
    for (const token of form.split(TOKEN_SPLIT)) {
      if (token.length < 8) continue;
      out.add(token);
      for (const part of token.split(SUB_SPLIT)) if (part.length >= 8 && part !== token) out.add(part);
    }
  }
  return out;
}

/** The first secret fingerprint of `known` found in the strings of `params`. */
export function findTaintedValue<T>(params: unknown, known: ReadonlyMap<string, T>, fingerprints: SecretFingerprints, detect: DetectSecrets): T | undefined {
  if (known.size === 0) return undefined;
  const lengths = lengthsOf(known);
  for (const text of stringsIn(params)) {
    if (text.length < 8) continue;
    for (const candidate of candidatesOf(text, detect)) {
      const origin = fingerprints.lookup(candidate, known, lengths);
      if (origin !== undefined) return origin;
    }
  }
  return undefined;
}

const decoder = new TextDecoder('utf-8', { fatal: true });

function decodeBase64(run: string): string | undefined {
  const clean = run.replace(/-/g, '+').replace(/_/g, '/').replace(/=+$/, '');
  if (clean.length % 4 === 1) return undefined;
  try {
    return printable(Uint8Array.from(atob(clean + '='.repeat((4 - (clean.length % 4)) % 4)), (c) => c.charCodeAt(0)));
  } catch {
    return undefined;
  }
}

function decodeHex(run: string): string | undefined {
  const bytes = new Uint8Array(run.length / 2);
  for (let i = 0; i < bytes.length; i++) bytes[i] = parseInt(run.slice(i * 2, i * 2 + 2), 16);
  return printable(bytes);
}

/** The bytes as text when they are valid UTF-8 without control characters (other than whitespace). */
function printable(bytes: Uint8Array): string | undefined {
  try {
    const text = decoder.decode(bytes);
    // eslint-disable-next-line no-control-regex
    return /[\u0000-\u0008\u000e-\u001f\u007f]/.test(text) ? undefined : text;
  } catch {
    return undefined;
  }
}
