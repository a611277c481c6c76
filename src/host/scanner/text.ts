/**
 * Text helpers of the scanner: the hidden-character classes, the one normaliser every check
 * matches on ({@link unfold} and {@link normalize}: escapes and entities decoded, invisible
 * characters dropped, Unicode tag characters decoded, NFKC, confusables folded to Latin,
 * spaced-out letters joined; the same for definitions, results, errors and a server's
 * requests), confusable skeletons of names, sentence splitting and safe evidence (every
 * invisible character spelled `\u{…}`).
 *
 * @see https://www.unicode.org/reports/tr39/ (confusables, mixed-script detection)
 * @see https://www.unicode.org/reports/tr9/ (bidirectional controls)
 * @module
 */

/** Unicode tag characters (U+E0000 to U+E007F): invisible, and U+E0020..E007E mirror ASCII. */
export const TAG_CHARS = /[\u{E0000}-\u{E007F}]/gu;
/** Zero-width and other invisible format characters (ZWSP, ZWNJ, ZWJ, word joiner, invisible operators, BOM, Mongolian vowel separator, soft hyphen, Hangul fillers). */
export const ZERO_WIDTH = /[\u200B-\u200D\u2060-\u2064\uFEFF\u180E\u00AD\u115F\u1160\u3164\uFFA0]|\u034F/gu;
/** Explicit bidirectional embeddings, overrides and isolates (Trojan Source). */
export const BIDI_CONTROLS = /[\u202A-\u202E\u2066-\u2069]/gu;
/** Implicit bidirectional marks (legitimate inside right-to-left text). */
export const BIDI_MARKS = /[\u200E\u200F\u061C]/gu;
/** Private-use code points (all three areas). */
export const PRIVATE_USE = /[\uE000-\uF8FF\u{F0000}-\u{FFFFD}\u{100000}-\u{10FFFD}]/gu;
/** Variation selectors; U+FE0F after an emoji is normal, runs and the supplement block carry data. */
export const VARIATION_SELECTORS = /[\uFE00-\uFE0F\u{E0100}-\u{E01EF}]/gu;
/** ANSI/VT escape sequences (CSI, OSC) and a bare ESC. */
// eslint-disable-next-line no-control-regex -- matching control characters is the point
export const ANSI_ESCAPE = /\u001B(?:\[[0-?]*[ -/]*[@-~]|\][^\u0007\u001B]*(?:\u0007|\u001B\\)?|[@-Z\\-_])?|\u009B/gu;
/** C0 and C1 control characters other than tab, line feed and carriage return. */
// eslint-disable-next-line no-control-regex -- matching control characters is the point
export const CONTROL_CHARS = /[\u0000-\u0008\u000B\u000C\u000E-\u001A\u001C-\u001F\u007F-\u009A\u009C-\u009F]/gu;

const ALL_INVISIBLE = new RegExp(
  [TAG_CHARS, ZERO_WIDTH, BIDI_CONTROLS, BIDI_MARKS, PRIVATE_USE, VARIATION_SELECTORS, ANSI_ESCAPE, CONTROL_CHARS].map((r) => r.source).join('|'),
  'gu',
);

const EMOJI_NEIGHBOUR = /[\p{Extended_Pictographic}\p{Emoji_Modifier}\p{Emoji_Component}]/u;
const JOINING_SCRIPT = /[\p{Script=Arabic}\p{Script=Devanagari}\p{Script=Bengali}\p{Script=Gurmukhi}\p{Script=Gujarati}\p{Script=Oriya}\p{Script=Tamil}\p{Script=Telugu}\p{Script=Kannada}\p{Script=Malayalam}\p{Script=Sinhala}\p{Script=Syriac}\p{Script=Thai}\p{Script=Khmer}\p{Script=Myanmar}]/u;

/**
 * True when the zero-width character `c` (between `prev` and `next`) hides something: false
 * for ZWJ/ZWNJ inside an emoji sequence or a joining script, a soft hyphen inside a word, and
 * a BOM at the start of the text, where they are normal.
 */
export function isStrayZeroWidth(c: string, prev: string, next: string, atStart: boolean): boolean {
  if (c === '\uFEFF' && atStart) return false;
  if ((c === '\u200D' || c === '\u200C') && (EMOJI_NEIGHBOUR.test(prev) || EMOJI_NEIGHBOUR.test(next) || JOINING_SCRIPT.test(prev) || JOINING_SCRIPT.test(next))) return false;
  return !(c === '\u00AD' && /\p{L}/u.test(prev) && /\p{L}/u.test(next));
}

/** Cyrillic, Greek and other look-alikes of Latin letters (a subset of UTS #39 confusables that covers the usual attacks), Latin small capitals and regional indicator letters, which NFKC leaves alone. */
const HOMOGLYPHS: Readonly<Record<string, string>> = {
  а: 'a', в: 'b', е: 'e', ё: 'e', к: 'k', м: 'm', н: 'h', о: 'o', р: 'p', с: 'c', т: 't', у: 'y', х: 'x', і: 'i', ї: 'i', ј: 'j', ѕ: 's', ԁ: 'd', ԛ: 'q', ԝ: 'w', һ: 'h', ӏ: 'l', ɡ: 'g', ɑ: 'a', ı: 'i', ȷ: 'j', ℓ: 'l',
  А: 'a', В: 'b', Е: 'e', К: 'k', М: 'm', Н: 'h', О: 'o', Р: 'p', С: 'c', Т: 't', У: 'y', Х: 'x', І: 'i', Ј: 'j', Ѕ: 's', Ԁ: 'd',
  α: 'a', β: 'b', ε: 'e', ι: 'i', κ: 'k', ν: 'v', ο: 'o', ρ: 'p', τ: 't', υ: 'u', χ: 'x', γ: 'y', ϲ: 'c', ϳ: 'j',
  Α: 'a', Β: 'b', Ε: 'e', Ζ: 'z', Η: 'h', Ι: 'i', Κ: 'k', Μ: 'm', Ν: 'n', Ο: 'o', Ρ: 'p', Τ: 't', Υ: 'y', Χ: 'x',
  ᴀ: 'a', ʙ: 'b', ᴄ: 'c', ᴅ: 'd', ᴇ: 'e', ꜰ: 'f', ɢ: 'g', ʜ: 'h', ɪ: 'i', ᴊ: 'j', ᴋ: 'k', ʟ: 'l', ᴍ: 'm', ɴ: 'n', ᴏ: 'o', ᴘ: 'p', ǫ: 'q', ʀ: 'r', ꜱ: 's', ᴛ: 't', ᴜ: 'u', ᴠ: 'v', ᴡ: 'w', ʏ: 'y', ᴢ: 'z',
  ...Object.fromEntries(Array.from({ length: 26 }, (_, i) => [String.fromCodePoint(0x1f1e6 + i), String.fromCharCode(97 + i)])),
};
const HOMOGLYPH_RE = new RegExp(`[${Object.keys(HOMOGLYPHS).join('')}]`, 'gu');
const HOMOGLYPH_ONE = new RegExp(HOMOGLYPH_RE.source, 'u');
/** A word made only of look-alikes (and marks): read as the Latin word it imitates. */
const ALL_HOMOGLYPHS = new RegExp(`^(?:[${Object.keys(HOMOGLYPHS).join('')}]|\\p{M})+$`, 'u');
const LATIN = /\p{Script=Latin}/u;
const ASCII = /^[\x20-\x7E\t\n\r]*$/u;
/** Printable ASCII that may still hide text: an HTML entity, a `\u`/`\x` escape, or letters spaced out one by one. */
const ASCII_SUSPECT = /&#?[A-Za-z0-9]{1,8};|\\[ux][{0-9A-Fa-f]|[A-Za-z][ \t.\-_*|/+~]{1,4}[A-Za-z][ \t.\-_*|/+~]{1,4}[A-Za-z][ \t.\-_*|/+~]{1,4}[A-Za-z](?![A-Za-z0-9])/u;
const ESCAPES = /&#(\d{1,7});|&#[xX]([0-9A-Fa-f]{1,6});|&(lt|gt|amp|quot|apos|nbsp);|\\u\{([0-9A-Fa-f]{1,6})\}|\\u([0-9A-Fa-f]{4})|\\x([0-9A-Fa-f]{2})/gu;
const NAMED: Readonly<Record<string, string>> = { lt: '<', gt: '>', amp: '&', quot: '"', apos: "'", nbsp: ' ' };
/** Single letters spaced out (at least four): "i g n o r e", "s-e-n-d". */
const SPACED = /(?<![\p{L}\p{N}])\p{L}(?:[ \t.\-_*·•|/+~]{1,4}\p{L}(?![\p{L}\p{N}])){3,}/gu;

/** The ASCII text hidden in Unicode tag characters (`U+E0041` → `A`), or '' when there is none. */
export function decodeTags(text: string): string {
  let out = '';
  for (const ch of text) {
    const cp = ch.codePointAt(0) as number;
    if (cp >= 0xe0020 && cp <= 0xe007e) out += String.fromCodePoint(cp - 0xe0000);
  }
  return out;
}

/** Folds look-alike letters to Latin inside words that also hold Latin letters (`pаypal` → `paypal`) or are made of look-alikes only; other words are left alone. */
export function foldHomoglyphs(text: string): string {
  return text.replace(/[\p{L}\p{M}\u{1F1E6}-\u{1F1FF}]+/gu, (word) => (HOMOGLYPH_ONE.test(word) && (LATIN.test(word) || ALL_HOMOGLYPHS.test(word)) ? word.replace(HOMOGLYPH_RE, (c) => HOMOGLYPHS[c] ?? c) : word));
}

/** HTML character references and `\u`/`\x` escapes decoded in place (an invalid code point stays as written). */
export function decodeEscapes(text: string): string {
  return text.replace(ESCAPES, (m, dec?: string, hex?: string, named?: string, braced?: string, u?: string, x?: string) => {
    if (named !== undefined) return NAMED[named] ?? m;
    const cp = parseInt(dec ?? hex ?? braced ?? u ?? x ?? '', dec !== undefined ? 10 : 16);
    return cp > 0 && cp <= 0x10ffff && !(cp >= 0xd800 && cp <= 0xdfff && u === undefined) ? String.fromCodePoint(cp) : m;
  });
}

/** One spaced-out run joined: letters kept, the run's usual separator dropped, any other separator read as a word break ("i g n o r e  a l l" → "ignore all"). */
function joinSpaced(run: string): string {
  const letters = run.match(/\p{L}/gu) ?? [];
  const gaps = run.split(/\p{L}/u).slice(1, -1);
  const tally = new Map<string, number>();
  for (const g of gaps) tally.set(g, (tally.get(g) ?? 0) + 1);
  let usual = '';
  for (const [g, n] of tally) if (n > (tally.get(usual) ?? 0)) usual = g;
  return letters.map((l, i) => (i === 0 ? l : gaps[i - 1] === usual ? l : ` ${l}`)).join('');
}

/** The spaced-out runs of a text, each joined with no word breaks (for keyword tests); [] when there are none. */
export function spacedRuns(text: string): string[] {
  if (ASCII.test(text) && !ASCII_SUSPECT.test(text)) return [];
  return [...foldHomoglyphs(decodeEscapes(text).replace(ALL_INVISIBLE, '').normalize('NFKC')).matchAll(SPACED)].map((m) => (m[0].match(/\p{L}/gu) ?? []).join(''));
}

/**
 * The text a person or model effectively reads, case and lines kept: HTML entities and
 * `\u`/`\x` escapes decoded, tag characters decoded in place, every other invisible character
 * removed, NFKC (full-width, Mathematical Alphanumeric and other compatibility letters to
 * plain), look-alike letters folded to Latin, letters spaced out one by one joined. Plain
 * ASCII with nothing suspicious (the common case) is returned as it is, at the cost of one
 * regular-expression test.
 */
export function unfold(text: string): string {
  const ascii = ASCII.test(text);
  if (ascii && !ASCII_SUSPECT.test(text)) return text;
  let out = decodeEscapes(text);
  if (!ascii || out !== text) {
    out = out.replace(/[\u{E0020}-\u{E007E}]+/gu, (run) => ` ${decodeTags(run)} `).replace(ALL_INVISIBLE, '');
    out = foldHomoglyphs(out.normalize('NFKC'));
  }
  return out.replace(SPACED, joinSpaced);
}

/** {@link unfold}ed text in lower case with whitespace collapsed to one space: the view the rules match on. */
export function normalize(text: string): string {
  return unfold(text).toLowerCase().replace(/\s+/g, ' ').trim();
}

/** A name's confusable skeleton: NFKC, invisible characters removed, homoglyphs folded, lower case, separators dropped, `0`→`o`, `1`→`l`. */
export function skeleton(name: string): string {
  const folded = name.replace(ALL_INVISIBLE, '').normalize('NFKC').replace(HOMOGLYPH_RE, (c) => HOMOGLYPHS[c] ?? c).toLowerCase();
  return folded.replace(/[\s_\-.:/]+/g, '').replace(/0/g, 'o').replace(/[1|]/g, 'l');
}

/** True when a name mixes Latin letters with Cyrillic, Greek or other letters that imitate them. */
export function isMixedScript(name: string): boolean {
  return LATIN.test(name) && /[\p{Script=Cyrillic}\p{Script=Greek}\p{Script=Armenian}\p{Script=Cherokee}]/u.test(name);
}

/** `text` made safe to print: invisible and control characters spelled `\u{…}`, cut to `max` characters. */
export function safeEvidence(text: string, max = 200): string {
  const spelled = text.replace(ALL_INVISIBLE, (c) => [...c].map((x) => `\\u{${(x.codePointAt(0) as number).toString(16).toUpperCase()}}`).join('')).replace(/\s+/g, ' ').trim();
  return spelled.length > max ? `${spelled.slice(0, max - 1)}…` : spelled;
}

/** Splits normalised text into sentences (at `.`, `!`, `?` followed by a space, `;`, and line breaks in the raw text). */
export function sentences(text: string): string[] {
  return text
    .split(/(?<=[.!?])\s+(?=[^a-z0-9]*[a-z0-9])|\s*;\s+|\s*\n+\s*/u)
    .map((s) => s.trim())
    .filter((s) => s !== '');
}

/** Sentences of a raw string: paragraphs, list items and fences split, hard-wrapped lines joined, each sentence normalised. */
export function normalizedSentences(raw: string): string[] {
  return raw.split(/\n\s*\n|\n(?=\s*(?:[-*•#>|]|\d+[.)]|`{3}))/u).flatMap((block) => sentences(normalize(block)));
}

/** Words of a normalised text (letters and digits), for similarity. */
export function words(text: string): string[] {
  return text.match(/[\p{L}\p{N}]+/gu) ?? [];
}
