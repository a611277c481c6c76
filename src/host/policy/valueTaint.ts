/**
 * Value taint: a secret-looking value that came out of one server and shows up in what goes
 * to another server is caught, with no labels needed.
 *
 * **Sources** ({@link secretsIn}). Every string of a result at any depth, object keys
 * included (`structuredContent` keys, `_meta`), goes through the injected `detectSecrets`;
 * so do the decoded bytes of every `blob` (an embedded resource's base64, gzip'd too) and a
 * server's error (message and data: the policy passes it in). Each value found is kept only
 * as a keyed fingerprint, never the value itself: `<length>:<roll>:<hash>`, where `hash` is
 * SHA-256 over a random key and the value and `roll` a keyed 32-bit rolling hash (the
 * prefilter that lets a sink be searched at every position). The key is per process, or one
 * shared by every gateway instance of a deployment.
 *
 * **Sinks** ({@link findTaintedValue}). Every string of a request's params at any depth, keys
 * included, every array of numbers read as character codes, and the items of an array joined,
 * is decoded into every spelling of `taintForms.ts` (URL, `\u` escapes, nested and gzip'd
 * base64, hex with separators, character codes), and each text is searched at EVERY position
 * for a window of a known secret's length whose rolling hash is known; a hit is confirmed by
 * the keyed SHA-256. So a secret glued inside a word is found, not only whole tokens. A
 * string that cannot be read in full (nesting, size) counts as carrying the secret.
 *
 * **Split over calls** ({@link SplitTracker}). The instance that saw a secret arrive also keeps
 * keyed rolling hashes of its prefixes and suffixes (secrets up to 256 characters). A token of
 * an outgoing string that is such a piece is remembered for the session; a prefix and a
 * suffix that together cover the secret, in one call or two, are a hit, and so is one piece
 * of three quarters of it (12 characters or more). Pieces glued inside other text, or a secret
 * cut in three, are the trifecta's job.
 *
 * @module
 */
import { sha256Hex } from '../../util/sha256.js';
import { base64Bytes, bytesToText, formsOf, inflate, type Forms } from './taintForms.js';

/** Finds secret values in a text (the sanitize branch's `findSecrets`, mapped to values). */
export type DetectSecrets = (text: string) => readonly string[];

/** The pieces of a secret kept for split detection (prefix or suffix, of what length, of how long a secret). */
interface Piece {
  readonly fingerprint: string;
  readonly kind: 'prefix' | 'suffix';
  readonly length: number;
  readonly whole: number;
}

const MAX_PIECE_SECRET = 256;
const MIN_PIECE = 4;
const MAX_REMEMBERED = 4096;

/**
 * Keyed fingerprints of secret values: `<length>:<roll>:<hash>` (see the module comment).
 * The pieces of the secrets fingerprinted here are kept in this process for split detection.
 */
export class SecretFingerprints {
  readonly #key: string;
  readonly #base: number;
  readonly #pieceBase: number;
  readonly #pieces = new Map<string, Piece[]>();
  readonly #owners = new Map<string, string[]>();

  /** `key`: the fingerprint key (hex), shared by the instances that must recognise each other's fingerprints; default a fresh random one. */
  constructor(key?: string) {
    if (key !== undefined) this.#key = key;
    else {
      const bytes = new Uint8Array(32);
      crypto.getRandomValues(bytes);
      this.#key = Array.from(bytes, (b) => b.toString(16).padStart(2, '0')).join('');
    }
    this.#base = parseInt(sha256Hex(`${this.#key}\u0000roll`).slice(0, 8), 16) | 1;
    this.#pieceBase = parseInt(sha256Hex(`${this.#key}\u0000piece`).slice(0, 8), 16) | 1;
  }

  /** The fingerprint of `value`, its pieces remembered for split detection. */
  of(value: string): string {
    const fingerprint = `${value.length}:${this.roll(value, 0, value.length)}:${this.#hash(value)}`;
    if (value.length <= MAX_PIECE_SECRET && !this.#owners.has(fingerprint)) this.#remember(fingerprint, value);
    return fingerprint;
  }

  /** The rolling hash of `text[start, start + length)`. */
  roll(text: string, start: number, length: number): number {
    let h = 0;
    for (let i = start; i < start + length; i++) h = (Math.imul(h, this.#base) + text.charCodeAt(i)) >>> 0;
    return h;
  }

  /** `base^(length - 1)`, to slide a window of `length`. */
  power(length: number): number {
    let p = 1;
    for (let i = 1; i < length; i++) p = Math.imul(p, this.#base) >>> 0;
    return p;
  }

  /** Slides the rolling hash one character: drop `out` (weighted `power`), add `next`. */
  slide(h: number, out: number, next: number, power: number): number {
    return (Math.imul((h - Math.imul(out, power)) >>> 0, this.#base) + next) >>> 0;
  }

  /** The full fingerprint of `text[start, start + length)` whose rolling hash is `roll`. */
  confirm(text: string, start: number, length: number, roll: number): string {
    return `${length}:${roll}:${this.#hash(text.slice(start, start + length))}`;
  }

  /** The pieces a token is (see the module comment). */
  piecesOf(token: string): readonly Piece[] | undefined {
    return this.#pieces.get(this.#pieceKey(token));
  }

  #remember(fingerprint: string, value: string): void {
    if (this.#owners.size >= MAX_REMEMBERED) {
      const [oldest, keys] = this.#owners.entries().next().value as [string, string[]];
      this.#owners.delete(oldest);
      for (const k of keys) this.#pieces.set(k, (this.#pieces.get(k) ?? []).filter((p) => p.fingerprint !== oldest));
    }
    const keys: string[] = [];
    for (let n = MIN_PIECE; n < value.length; n++) {
      for (const [kind, piece] of [['prefix', value.slice(0, n)], ['suffix', value.slice(value.length - n)]] as const) {
        const k = this.#pieceKey(piece);
        keys.push(k);
        const list = this.#pieces.get(k) ?? [];
        list.push({ fingerprint, kind, length: n, whole: value.length });
        this.#pieces.set(k, list);
      }
    }
    this.#owners.set(fingerprint, keys);
  }

  #pieceKey(piece: string): string {
    let h = 0;
    for (let i = 0; i < piece.length; i++) h = (Math.imul(h, this.#pieceBase) + piece.charCodeAt(i)) >>> 0;
    return `${piece.length}:${this.roll(piece, 0, piece.length)}:${h}`;
  }

  #hash(value: string): string {
    return sha256Hex(`${this.#key}\u0000${value}`).slice(0, 32);
  }
}

/** Most strings a walk visits (a result's, or a request's). */
const MAX_STRINGS = 100_000;

/**
 * Calls `fn` with each string inside a JSON-like value, object keys included, at any depth
 * (no recursion: a deep value cannot overflow the stack), with the property it is under.
 * Returns false when it stopped at {@link MAX_STRINGS}.
 */
export function eachString(value: unknown, fn: (text: string, key: string | undefined) => void): boolean {
  // Two parallel stacks (no tuple per item): the value, and the property it is under.
  const items: unknown[] = [value];
  const under: (string | undefined)[] = [undefined];
  let seen = 0;
  while (items.length > 0) {
    const item = items.pop();
    const key = under.pop();
    if (typeof item === 'string') {
      if (++seen > MAX_STRINGS) return false;
      fn(item, key);
    } else if (Array.isArray(item)) {
      for (let i = item.length - 1; i >= 0; i--) {
        items.push(item[i]);
        under.push(key);
      }
    } else if (typeof item === 'object' && item !== null) {
      const names = Object.keys(item);
      for (let i = names.length - 1; i >= 0; i--) {
        const k = names[i] as string;
        items.push((item as Record<string, unknown>)[k], k);
        under.push(k, undefined);
      }
    }
  }
  return true;
}

/** Every string inside a JSON-like value, keys included, in document order (at most 100,000). */
export function stringsIn(value: unknown): string[] {
  const out: string[] = [];
  eachString(value, (text) => void out.push(text));
  return out;
}

/**
 * The secret values `detect` finds in a result (or a server's error): its strings at any depth
 * and keys, and the decoded bytes of its `blob`s (gzip'd or not). Undefined when none (most
 * results); a promise only when a blob is compressed.
 */
export function secretsIn(result: unknown, detect: DetectSecrets): Set<string> | undefined | Promise<Set<string> | undefined> {
  let found: Set<string> | undefined;
  const look = (text: string): void => {
    if (text.length < 8) return;
    for (const value of detect(text)) if (value.length >= 8) (found ??= new Set()).add(value);
  };
  let compressed: Promise<void>[] | undefined;
  eachString(result, (text, key) => {
    look(text);
    if (key !== 'blob') return;
    const bytes = base64Bytes(text);
    if (bytes === undefined) return;
    const format = bytes[0] === 0x1f && bytes[1] === 0x8b ? 'gzip' : undefined;
    if (format === undefined) look(bytesToText(bytes));
    else (compressed ??= []).push(inflate(bytes, format).then((b) => void (b instanceof Uint8Array && look(bytesToText(b)))));
  });
  if (compressed === undefined) return found;
  return Promise.all(compressed).then(() => found);
}

/** What {@link findTaintedValue} found: a known secret's origin (`how` it was sent), or a request it could not read in full. */
export type TaintMatch<T> = { readonly origin: T; readonly how: string } | { readonly unreadable: string };

/** The known secrets as a prefilter: per length, the rolling hashes. */
function prefilterOf(known: ReadonlyMap<string, unknown>): Map<number, Set<number>> {
  const byLength = new Map<number, Set<number>>();
  for (const fingerprint of known.keys()) {
    const parts = fingerprint.split(':');
    if (parts.length !== 3) continue;
    const length = Number(parts[0]);
    let rolls = byLength.get(length);
    if (rolls === undefined) byLength.set(length, (rolls = new Set()));
    rolls.add(Number(parts[1]));
  }
  return byLength;
}

/** The first window of `text` that is a known secret. */
function searchText<T>(text: string, prefilter: ReadonlyMap<number, ReadonlySet<number>>, known: ReadonlyMap<string, T>, fp: SecretFingerprints): T | undefined {
  for (const [length, rolls] of prefilter) {
    if (text.length < length) continue;
    const power = fp.power(length);
    let h = fp.roll(text, 0, length);
    for (let start = 0; ; start++) {
      if (rolls.has(h)) {
        const origin = known.get(fp.confirm(text, start, length, h));
        if (origin !== undefined) return origin;
      }
      if (start + length >= text.length) break;
      h = fp.slide(h, text.charCodeAt(start), text.charCodeAt(start + length), power);
    }
  }
  return undefined;
}

const TOKEN_SPLIT = /[\s"'`<>()[\]{},;|\\=:&?/#@]+/;

/** Per session: the pieces of known secrets its requests carried (see the module comment). */
export class SplitTracker {
  readonly #sessions = new Map<string, Map<string, { prefix: number; suffix: number }>>();

  /** Records the pieces in `texts` for `session`; the fingerprint of a secret its pieces now cover, if any. */
  record(session: string, texts: readonly string[], known: ReadonlyMap<string, unknown>, fp: SecretFingerprints): string | undefined {
    let seen = this.#sessions.get(session);
    for (const text of texts) {
      for (const token of text.split(TOKEN_SPLIT)) {
        if (token.length < MIN_PIECE) continue;
        for (const piece of fp.piecesOf(token) ?? []) {
          if (!known.has(piece.fingerprint)) continue;
          if (seen === undefined) {
            if (this.#sessions.size >= 10_000) this.#sessions.clear();
            this.#sessions.set(session, (seen = new Map()));
          }
          const covered = seen.get(piece.fingerprint) ?? { prefix: 0, suffix: 0 };
          covered[piece.kind] = Math.max(covered[piece.kind], piece.length);
          seen.set(piece.fingerprint, covered);
          const most = Math.max(covered.prefix, covered.suffix);
          if ((covered.prefix > 0 && covered.suffix > 0 && covered.prefix + covered.suffix >= piece.whole) || (most >= 12 && most * 4 >= piece.whole * 3)) return piece.fingerprint;
        }
      }
    }
    return undefined;
  }
}

/** Options of {@link findTaintedValue}. */
export interface FindOptions {
  /** Pieces of secrets across this session's calls (absent: no split detection). */
  readonly split?: { readonly tracker: SplitTracker; readonly session: string };
}

/**
 * The first known secret in `params` (see the module comment), or a reason it could not be
 * read in full. Synchronous unless something compressed had to be inflated.
 */
export function findTaintedValue<T>(params: unknown, known: ReadonlyMap<string, T>, fingerprints: SecretFingerprints, options: FindOptions = {}): TaintMatch<T> | undefined | Promise<TaintMatch<T> | undefined> {
  if (known.size === 0) return undefined;
  const prefilter = prefilterOf(known);
  const shortest = Math.min(MIN_PIECE, ...prefilter.keys());
  const texts: string[] = [];
  const complete = eachValue(params, (text) => {
    if (text.length >= shortest) texts.push(text);
  });
  if (!complete) return { unreadable: `more than ${MAX_STRINGS} strings` };
  const all: string[] = [];
  const pending: Promise<Forms>[] = [];
  for (const text of texts) {
    const forms = formsOf(text);
    if (forms instanceof Promise) pending.push(forms);
    else if (forms.unreadable !== undefined) return { unreadable: forms.unreadable };
    else all.push(...forms.texts);
  }
  const finish = (): TaintMatch<T> | undefined => {
    for (const text of all) {
      const origin = searchText(text, prefilter, known, fingerprints);
      if (origin !== undefined) return { origin, how: 'verbatim, encoded or inside other text' };
    }
    const split = options.split?.tracker.record(options.split.session, all, known, fingerprints);
    const origin = split === undefined ? undefined : known.get(split);
    return origin === undefined ? undefined : { origin, how: 'in pieces, over this call and an earlier one' };
  };
  if (pending.length === 0) return finish();
  return Promise.all(pending).then((done) => {
    for (const forms of done) {
      if (forms.unreadable !== undefined) return { unreadable: forms.unreadable };
      all.push(...forms.texts);
    }
    return finish();
  });
}

/**
 * {@link eachString} plus what a string can be rebuilt from: an array of numbers read as
 * character codes, and the string items of an array joined.
 */
function eachValue(value: unknown, fn: (text: string) => void): boolean {
  const stack: unknown[] = [value];
  let seen = 0;
  while (stack.length > 0) {
    const item = stack.pop();
    if (typeof item === 'string') {
      if (++seen > MAX_STRINGS) return false;
      fn(item);
    } else if (Array.isArray(item)) {
      let codes = item.length >= 4;
      let strings = 0;
      for (const v of item) {
        if (typeof v === 'string') strings++;
        if (typeof v !== 'number' || !Number.isInteger(v) || v < 0 || v > 0x10ffff) codes = false;
      }
      if (codes) fn(fromCodes(item as number[]));
      if (strings >= 2) fn(item.filter((v): v is string => typeof v === 'string').join(''));
      for (let i = item.length - 1; i >= 0; i--) stack.push(item[i]);
    } else if (typeof item === 'object' && item !== null) {
      for (const [k, v] of Object.entries(item)) stack.push(v, k);
    }
  }
  return true;
}

function fromCodes(codes: readonly number[]): string {
  let out = '';
  for (let i = 0; i < codes.length; i += 8192) out += String.fromCodePoint(...codes.slice(i, i + 8192));
  return out;
}
