/**
 * Encoded payloads: base64 (standard and URL-safe), hex, percent- and `\x`-escaped runs are
 * decoded, and decoded text is scanned again by every text rule (nested encodings up to
 * {@link MAX_DECODE_DEPTH}). Instructions or shell commands found only after decoding were
 * hidden on purpose, so they block; encoded data that decodes to harmless text (settings
 * JSON, a sentence) or to binary (hashes, ids) is not a finding.
 *
 * @module
 */
import { emit, textStrings, type AnalyzedItem, type Hit } from '../analysis.js';

/** How many encodings deep a payload is followed. */
export const MAX_DECODE_DEPTH = 3;

const BASE64 = /(?<![A-Za-z0-9+/_-])[A-Za-z0-9+/_-]{16,}={0,2}(?![A-Za-z0-9+/=_-])/gu;
const HEX = /(?<![0-9A-Za-z])(?:[0-9A-Fa-f]{2}){8,}(?![0-9A-Za-z])/gu;
const PERCENT = /(?:%[0-9A-Fa-f]{2}){6,}/gu;
const BACKSLASH_X = /(?:\\x[0-9A-Fa-f]{2}){6,}/gu;
const BACKSLASH_U = /(?:\\u[0-9A-Fa-f]{4}){4,}/gu;

/** Bytes as UTF-8 text if they are mostly printable, else undefined. */
function printable(bytes: Uint8Array): string | undefined {
  if (bytes.length < 8) return undefined;
  let text: string;
  try {
    text = new TextDecoder('utf-8', { fatal: true }).decode(bytes);
  } catch {
    return undefined;
  }
  const chars = [...text];
  const good = chars.filter((c) => /[\p{L}\p{N}\p{P}\p{S}\p{Zs}\t\n\r]/u.test(c)).length;
  const letters = chars.filter((c) => /\p{L}/u.test(c)).length;
  return good / chars.length >= 0.95 && letters / chars.length >= 0.2 ? text : undefined;
}

function fromBase64(token: string): Uint8Array | undefined {
  const std = token.replace(/-/gu, '+').replace(/_/gu, '/').replace(/=+$/u, '');
  if (std.length % 4 === 1) return undefined;
  // Plain words and paths are valid base64 too: insist on a mix of character classes.
  if (!/[0-9]/u.test(std) && !(/[a-z]/u.test(std) && /[A-Z]/u.test(std))) return undefined;
  try {
    const binary = atob(std + '='.repeat((4 - (std.length % 4)) % 4));
    return Uint8Array.from(binary, (c) => c.charCodeAt(0));
  } catch {
    return undefined;
  }
}

function fromHex(token: string): Uint8Array {
  const out = new Uint8Array(token.length / 2);
  for (let i = 0; i < out.length; i++) out[i] = parseInt(token.slice(i * 2, i * 2 + 2), 16);
  return out;
}

/** The text a whole base64 value (a resource blob) decodes to, or undefined when it is not text. */
export function textOfBase64(value: string): string | undefined {
  const std = value.replace(/\s+/gu, '').replace(/-/gu, '+').replace(/_/gu, '/').replace(/=+$/u, '');
  if (std.length % 4 === 1 || !/^[A-Za-z0-9+/]*$/u.test(std)) return undefined;
  try {
    const binary = atob(std + '='.repeat((4 - (std.length % 4)) % 4));
    return printable(Uint8Array.from(binary, (c) => c.charCodeAt(0)));
  } catch {
    return undefined;
  }
}

/** Every decodable run of `text`, with its encoding and decoded text. */
export function decodeRuns(text: string): { readonly encoding: string; readonly token: string; readonly decoded: string }[] {
  const out: { encoding: string; token: string; decoded: string }[] = [];
  const take = (encoding: string, token: string, bytes: Uint8Array | undefined): void => {
    const decoded = bytes === undefined ? undefined : printable(bytes);
    if (decoded !== undefined) out.push({ encoding, token, decoded });
  };
  for (const m of text.matchAll(HEX)) take('hex', m[0], fromHex(m[0]));
  for (const m of text.matchAll(BASE64)) if (!/^[0-9A-Fa-f]+$/u.test(m[0])) take('base64', m[0], fromBase64(m[0]));
  for (const m of text.matchAll(PERCENT)) {
    try {
      take('percent', m[0], new TextEncoder().encode(decodeURIComponent(m[0])));
    } catch {
      /* not valid UTF-8: not text */
    }
  }
  for (const m of text.matchAll(BACKSLASH_X)) take('\\x', m[0], fromHex(m[0].replace(/\\x/gu, '')));
  for (const m of text.matchAll(BACKSLASH_U)) take('\\u', m[0], new TextEncoder().encode(m[0].replace(/\\u([0-9A-Fa-f]{4})/gu, (_, h: string) => String.fromCharCode(parseInt(h, 16)))));
  return out;
}

/**
 * Decodes the runs of every text string and scans the decoded text with `rescan` (the text
 * rules). A decoded finding of high or critical severity blocks.
 */
export function checkEncoded(target: AnalyzedItem, rescan: (text: string, depth: number) => readonly Hit[], depth = 0): void {
  if (depth >= MAX_DECODE_DEPTH) return;
  for (const s of textStrings(target)) {
    for (const run of decodeRuns(s.text)) {
      const inner = rescan(run.decoded, depth + 1);
      if (inner.length === 0) continue;
      const worst = inner.some((h) => h.severity === 'critical' || h.severity === 'high');
      emit(target, {
        rule: 'encoded-payload/decoded-instructions',
        family: 'encoded-payload',
        severity: worst ? 'critical' : 'high',
        confidence: 'high',
        blocking: worst,
        message: `${run.encoding} text decodes to content the scanner flags (${[...new Set(inner.map((h) => h.rule))].join(', ')})`,
        evidence: `decoded: ${run.decoded}`,
        path: s.path,
      });
    }
  }
}
