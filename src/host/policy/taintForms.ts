/**
 * The spellings a secret may be hidden in on its way out, for value taint (`valueTaint.ts`):
 * {@link formsOf} turns one outgoing string into every text it decodes to.
 *
 * | encoding | example | read as |
 * |---|---|---|
 * | URL-encoding | `%73%6b` | `%XX` replaced byte by byte |
 * | escapes | `\u0073`, `\u{73}`, `\x73`, `&#115;`, `&#x73;` | the characters |
 * | base64 / base64url | `c2tf…`, glued to other letters | every alignment of every run of 12 or more |
 * | gzip / zlib inside base64 | `H4sI…` | inflated (at most 1 MiB) |
 * | hex | `736b5f`, `73:6b:5f`, `73-6b`, `73 6b`, `0x73,0x6b`, `\x73\x6b` | the bytes |
 * | character codes | `115,107,95` in a string; `[115,107,95]` as an array (`valueTaint.ts`) | the characters |
 *
 * Decodings nest (base64 of hex of gzip…) up to {@link FORM_LIMITS}.depth levels and at most
 * {@link FORM_LIMITS}.forms texts per string: past either limit the string is reported
 * unreadable, and value taint treats it as carrying the secret (never passed unread).
 * Decoded bytes that are not UTF-8 are read as Latin-1, so an ASCII secret inside binary is
 * still found.
 *
 * Not decoded: transforms that are not encodings (reversal, ROT13, a secret spelled out in
 * words, split over three calls). Those are the trifecta's job: a session that read private
 * data and then reaches an egress tool is asked about whatever the arguments look like.
 *
 * @module
 */
import { concatBytes } from '../../util/bytes.js';

/** How deep decodings nest and how many texts one string may decode to. */
export const FORM_LIMITS = { depth: 5, forms: 256, inflatedBytes: 1 << 20 } as const;

/** The texts a string decodes to (itself first), or `unreadable` with why. May be a promise (only when gzip or zlib was found). */
export type Forms = { readonly texts: readonly string[]; readonly unreadable?: string };

const PERCENT = /%[0-9a-f]{2}/i;
const ESCAPE = /\\u\{?[0-9a-f]|\\x[0-9a-f]{2}|&#x?[0-9a-f]+;/i;
const BASE64_RUN = /[A-Za-z0-9+/_-]{12,}={0,2}/g;
const HEX_RUN = /(?:0x|\\x)?[0-9a-f]{2}(?:(?:[\s:,._-]|0x|\\x)*[0-9a-f]{2}){5,}/gi;
const CHAR_CODES = /\b\d{2,5}(?:\s*[,;\s]\s*\d{2,5}){5,}\b/g;

const utf8 = new TextDecoder('utf-8', { fatal: true });

/** Bytes as text: UTF-8 when they are, else Latin-1 (one character per byte). */
export function bytesToText(bytes: Uint8Array): string {
  try {
    return utf8.decode(bytes);
  } catch {
    let out = '';
    for (let i = 0; i < bytes.length; i += 8192) out += String.fromCharCode(...bytes.subarray(i, i + 8192));
    return out;
  }
}

/** The bytes of a base64 or base64url run from its start (trailing partial groups and padding dropped), or `undefined`. */
export function base64Bytes(run: string): Uint8Array | undefined {
  const clean = run.replace(/=+$/, '').replace(/-/g, '+').replace(/_/g, '/');
  // A last group of 2 or 3 characters is padded; one of 1 character carries no whole byte.
  const usable = clean.length % 4 === 1 ? clean.slice(0, -1) : clean + '='.repeat((4 - (clean.length % 4)) % 4);
  if (usable.length < 8) return undefined;
  try {
    return Uint8Array.from(atob(usable), (c) => c.charCodeAt(0));
  } catch {
    return undefined;
  }
}

function isCompressed(bytes: Uint8Array): 'gzip' | 'deflate' | undefined {
  if (bytes.length < 4) return undefined;
  if (bytes[0] === 0x1f && bytes[1] === 0x8b) return 'gzip';
  // zlib: CM 8, and the header's 16 bits are a multiple of 31.
  const b0 = bytes[0] as number;
  if ((b0 & 0x0f) === 8 && ((b0 << 8) | (bytes[1] as number)) % 31 === 0) return 'deflate';
  return undefined;
}

/** Inflates gzip or zlib bytes, at most {@link FORM_LIMITS}.inflatedBytes; `undefined` when they do not inflate, `'too large'` past the limit. */
export async function inflate(bytes: Uint8Array, format: 'gzip' | 'deflate'): Promise<Uint8Array | 'too large' | undefined> {
  const chunks: Uint8Array[] = [];
  let size = 0;
  try {
    const stream = new Blob([bytes as Uint8Array<ArrayBuffer>]).stream().pipeThrough(new DecompressionStream(format));
    const reader = stream.getReader();
    for (;;) {
      const { done, value } = await reader.read();
      if (done) break;
      size += value.length;
      if (size > FORM_LIMITS.inflatedBytes) {
        await reader.cancel().catch(() => undefined);
        return 'too large';
      }
      chunks.push(value);
    }
  } catch {
    // A truncated or corrupt stream: what inflated before the damage is still read.
    if (size === 0) return undefined;
  }
  return concatBytes(chunks, size);
}

/** The one-step decodings of `text` (without itself); compressed byte strings are returned apart, to inflate. */
function decodeOnce(text: string, compressed: { bytes: Uint8Array; format: 'gzip' | 'deflate' }[]): string[] {
  const out: string[] = [];
  if (PERCENT.test(text)) out.push(text.replace(/%([0-9a-f]{2})/gi, (_, h: string) => String.fromCharCode(parseInt(h, 16))));
  if (ESCAPE.test(text)) {
    out.push(
      text
        .replace(/\\u\{([0-9a-f]{1,6})\}|\\u([0-9a-f]{4})|\\x([0-9a-f]{2})/gi, (m, a?: string, b?: string, c?: string) => safeCodePoint(parseInt(a ?? b ?? c ?? '', 16)) ?? m)
        .replace(/&#x([0-9a-f]+);|&#(\d+);/gi, (m, h?: string, d?: string) => safeCodePoint(h !== undefined ? parseInt(h, 16) : parseInt(d ?? '', 10)) ?? m),
    );
  }
  for (const run of text.match(BASE64_RUN) ?? []) {
    // A run glued to other letters: every alignment of its start.
    for (let shift = 0; shift < 4 && run.length - shift >= 12; shift++) {
      const bytes = base64Bytes(run.slice(shift));
      if (bytes === undefined) continue;
      const format = isCompressed(bytes);
      if (format !== undefined) compressed.push({ bytes, format });
      else out.push(bytesToText(bytes));
    }
  }
  for (const run of text.match(HEX_RUN) ?? []) {
    const digits = run.replace(/0x|\\x/gi, '').replace(/[^0-9a-f]/gi, '');
    const separated = digits.length !== run.length;
    for (let shift = 0; shift < (separated ? 1 : 2); shift++) {
      const usable = digits.slice(shift, shift + ((digits.length - shift) & ~1));
      const bytes = new Uint8Array(usable.length / 2);
      for (let i = 0; i < bytes.length; i++) bytes[i] = parseInt(usable.slice(i * 2, i * 2 + 2), 16);
      const format = isCompressed(bytes);
      if (format !== undefined) compressed.push({ bytes, format });
      else out.push(bytesToText(bytes));
    }
  }
  for (const run of text.match(CHAR_CODES) ?? []) {
    const codes = run.split(/[^0-9]+/).map(Number);
    const chars = codes.map(safeCodePoint);
    if (chars.every((c) => c !== undefined)) out.push(chars.join(''));
  }
  return out;
}

function safeCodePoint(code: number): string | undefined {
  return Number.isInteger(code) && code >= 0 && code <= 0x10ffff ? String.fromCodePoint(code) : undefined;
}

/** Whether a decoded text reads as text (at most one character in ten a control or undecodable byte), worth decoding further. */
function readable(text: string): boolean {
  let bad = 0;
  for (let i = 0; i < text.length; i++) {
    const c = text.charCodeAt(i);
    if ((c < 0x20 && c !== 9 && c !== 10 && c !== 13) || (c >= 0x7f && c < 0xa0) || c === 0xfffd) bad++;
  }
  return bad * 10 <= text.length;
}

/**
 * Every text `text` decodes to, nested (see the module comment), itself first. A decoding
 * that does not read as text (binary, or a misaligned base64 of an ordinary word) is kept to
 * be searched but not decoded further, and does not count towards the limits. Synchronous
 * unless compressed bytes were found (then a promise).
 */
export function formsOf(text: string): Forms | Promise<Forms> {
  // Too short for a base64, hex or character-code run, and nothing escaped: itself only.
  if (text.length < 12 && !/[%\\&]/.test(text)) return { texts: [text] };
  const texts = [text];
  const seen = new Set(texts);
  const compressed: { bytes: Uint8Array; format: 'gzip' | 'deflate'; depth: number }[] = [];
  let nested = 0;
  let unreadable: string | undefined;
  const add = (form: string, depth: number): void => {
    if (unreadable !== undefined || form.length < 4 || seen.has(form)) return;
    seen.add(form);
    texts.push(form);
    if (!readable(form)) return;
    if (depth >= FORM_LIMITS.depth || ++nested > FORM_LIMITS.forms) {
      unreadable = `encodings nested deeper than ${FORM_LIMITS.depth} levels or more than ${FORM_LIMITS.forms} decodings of one string`;
      return;
    }
    expand(form, depth + 1);
  };
  const expand = (from: string, depth: number): void => {
    const found: { bytes: Uint8Array; format: 'gzip' | 'deflate' }[] = [];
    for (const form of decodeOnce(from, found)) add(form, depth);
    for (const c of found) compressed.push({ ...c, depth });
  };
  expand(text, 1);
  if (compressed.length === 0 || unreadable !== undefined) return unreadable === undefined ? { texts } : { texts, unreadable };
  return (async (): Promise<Forms> => {
    while (compressed.length > 0 && unreadable === undefined) {
      const c = compressed.shift() as (typeof compressed)[number];
      const inflated = await inflate(c.bytes, c.format);
      if (inflated === 'too large') unreadable = `compressed content that inflates past ${FORM_LIMITS.inflatedBytes} bytes`;
      else if (inflated !== undefined) add(bytesToText(inflated), c.depth);
    }
    return unreadable === undefined ? { texts } : { texts, unreadable };
  })();
}
