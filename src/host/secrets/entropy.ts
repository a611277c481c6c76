/**
 * The entropy detector: long random-looking tokens that no provider rule names (a password
 * generator's output, an unknown service's API key). A candidate is a run of 24 to 256
 * base64/base64url characters; it is a secret when its Shannon entropy per character is high
 * for its length and it passes guards against the usual false positives:
 *
 * - hex only (digests of files, commit ids, UUIDs with their dashes) is never reported;
 * - it must mix character classes (letters and digits; one-case letters need four digits) and
 *   switch between them often, as random text does (`getUserAccountSettings2` does not);
 * - base64 that decodes to ordinary text (printable, with spaces) is not a secret;
 * - identifiers made mostly of words (`TFT5_Item_SunfireCapeRadiant`) and paths with plain
 *   lower-case words (`usr/local/lib/node_modules`) are skipped as a whole; each of such a
 *   path's segments is then judged alone (from {@link SEGMENT_MIN_LENGTH} characters: a `/`
 *   bounds it), so a token in `docs/q3/<token>` of a resource URI is still found.
 *
 * @module
 */

/** The entropy detector's rule id (`[REDACTED:high-entropy]`). */
export const ENTROPY_RULE_ID = 'high-entropy';

/** Runs of token characters; the boundaries make each run one candidate (linear in the text). */
const CANDIDATE = /(?<![A-Za-z0-9+/_-])[A-Za-z0-9+/_-]{24,256}={0,2}(?![A-Za-z0-9+/_=-])/gu;
const HEX = /^[0-9a-fA-F-]+$/u;
const BASE64 = /^[A-Za-z0-9+/_-]+={0,2}$/u;
const WORD_SEGMENT = /(?:^|\/)[a-z]{4,}(?:\/|$)/u;
/** Words inside identifiers: `Item`, `Radiant`, `settings`, `SCHEMA` (four or more letters of one case, or a capital and three lower-case). */
const WORD = /[A-Z]?[a-z]{3,}|[A-Z]{4,}/gu;

/** True when most of `token` is made of words (`TFT5_Item_SunfireCapeRadiant`, `getUserAccountSettings2024`). */
function wordy(token: string): boolean {
  let letters = 0;
  for (const w of token.match(WORD) ?? []) if (w.length >= 4) letters += w.length;
  return letters >= token.length * 0.5;
}

/** Shannon entropy of `text` in bits per character. */
export function shannonEntropy(text: string): number {
  if (text.length === 0) return 0;
  const counts = new Map<number, number>();
  for (let i = 0; i < text.length; i++) {
    const c = text.charCodeAt(i);
    counts.set(c, (counts.get(c) ?? 0) + 1);
  }
  let bits = 0;
  for (const n of counts.values()) {
    const p = n / text.length;
    bits -= p * Math.log2(p);
  }
  return bits;
}

const classOf = (c: number): number => (c >= 97 && c <= 122 ? 0 : c >= 65 && c <= 90 ? 1 : c >= 48 && c <= 57 ? 2 : 3);

/** Share of adjacent character pairs whose classes (lower, upper, digit, other) differ. */
function switchRate(text: string): number {
  let switches = 0;
  for (let i = 1; i < text.length; i++) if (classOf(text.charCodeAt(i)) !== classOf(text.charCodeAt(i - 1))) switches++;
  return switches / (text.length - 1);
}

/** True when `token` is base64 of ordinary text (printable ASCII with spaces or line breaks). */
function base64OfText(token: string): boolean {
  if (!BASE64.test(token) || token.length % 4 === 1) return false;
  let bytes: string;
  try {
    bytes = atob(token.replace(/-/gu, '+').replace(/_/gu, '/').padEnd(Math.ceil(token.length / 4) * 4, '='));
  } catch {
    return false;
  }
  let printable = 0;
  let spaces = 0;
  for (let i = 0; i < bytes.length; i++) {
    const b = bytes.charCodeAt(i);
    if ((b >= 0x20 && b <= 0x7e) || b === 9 || b === 10 || b === 13) printable++;
    if (b === 0x20 || b === 10) spaces++;
  }
  return printable >= bytes.length * 0.95 && spaces >= 1;
}

/** The minimum entropy per character for a token of `length` characters (random base62 text sits well above it). */
export function entropyThreshold(length: number): number {
  return Math.min(4.2, Math.log2(length) - 0.9);
}

/** Shortest path segment judged alone (see the module comment): random ids of 20 characters are common in URIs. */
export const SEGMENT_MIN_LENGTH = 20;

/** True when `token` (one candidate run, at least `minLength` characters) looks like a random secret. */
export function isHighEntropyToken(token: string, minLength = 24): boolean {
  const body = token.replace(/=+$/u, '');
  if (body.length < minLength || HEX.test(body)) return false;
  const lower = /[a-z]/u.test(body);
  const upper = /[A-Z]/u.test(body);
  const digits = body.replace(/[^0-9]/gu, '').length;
  if (digits === 0 || !(lower || upper) || (!(lower && upper) && digits < 4)) return false;
  if (body.includes('/') && WORD_SEGMENT.test(body)) return false;
  if (switchRate(body) < 0.3 || wordy(body)) return false;
  if (shannonEntropy(body) < entropyThreshold(body.length)) return false;
  return !base64OfText(token);
}

/** The random-looking tokens of `text`, as `[start, end)` ranges. */
export function findHighEntropy(text: string): { start: number; end: number }[] {
  const out: { start: number; end: number }[] = [];
  CANDIDATE.lastIndex = 0;
  for (let m = CANDIDATE.exec(text); m !== null; m = CANDIDATE.exec(text)) {
    if (isHighEntropyToken(m[0])) out.push({ start: m.index, end: m.index + m[0].length });
    else if (m[0].includes('/')) pathSegments(m[0], m.index, out);
  }
  return out;
}

/** The random-looking segments of a path-like run (`run` found at `offset`), appended to `out`. */
function pathSegments(run: string, offset: number, out: { start: number; end: number }[]): void {
  let at = 0;
  for (const segment of run.split('/')) {
    if (segment.length >= SEGMENT_MIN_LENGTH && isHighEntropyToken(segment, SEGMENT_MIN_LENGTH)) out.push({ start: offset + at, end: offset + at + segment.length });
    at += segment.length + 1;
  }
}
