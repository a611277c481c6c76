/**
 * Hidden Unicode: characters a person reviewing a description does not see but a model
 * reads. Unicode tag characters (decoded and shown: "ASCII smuggling"), explicit bidi
 * overrides and isolates (Trojan Source), zero-width characters, private-use code points,
 * runs of variation selectors, ANSI escape sequences and other control characters, and
 * names that mix Latin with look-alike letters of other scripts.
 *
 * @see https://www.unicode.org/reports/tr36/ (Unicode security considerations)
 * @module
 */
import { emit, type AnalyzedItem } from '../analysis.js';
import { ANSI_ESCAPE, BIDI_CONTROLS, CONTROL_CHARS, decodeTags, isMixedScript, isStrayZeroWidth, PRIVATE_USE, TAG_CHARS, VARIATION_SELECTORS, ZERO_WIDTH } from '../text.js';

const RTL = /[\p{Script=Arabic}\p{Script=Hebrew}\p{Script=Syriac}\p{Script=Thaana}]/u;

/** Zero-width characters that are not part of an emoji sequence or a joining script (where ZWJ/ZWNJ are normal), nor a leading BOM. */
function strayZeroWidth(text: string): string[] {
  if (!ZERO_WIDTH_ONE.test(text)) return [];
  const chars = [...text];
  return chars.filter((c, i) => ZERO_WIDTH_ONE.test(c) && isStrayZeroWidth(c, chars[i - 1] ?? '', chars[i + 1] ?? '', i === 0));
}

const ZERO_WIDTH_ONE = new RegExp(ZERO_WIDTH.source, 'u');
/** Anything outside printable ASCII and common whitespace: only such strings need the Unicode rules. */
const UNUSUAL = /[^\x20-\x7E\t\n\r]/u;
const count = (re: RegExp, text: string): number => (text.match(re) ?? []).length;

/** Runs the hidden-Unicode rules on every string, names and property names included. */
export function checkHiddenUnicode(target: AnalyzedItem): void {
  for (const s of target.strings) {
    const text = s.text;
    if (!UNUSUAL.test(text)) continue;
    if (count(TAG_CHARS, text) > 0) {
      const hidden = decodeTags(text);
      emit(target, {
        rule: 'hidden-unicode/tag-block',
        family: 'hidden-unicode',
        severity: 'critical',
        confidence: 'high',
        blocking: true,
        message: `Invisible Unicode tag characters${hidden === '' ? '' : ` spelling ${JSON.stringify(hidden.slice(0, 80))}`}: text a reviewer cannot see but a model reads`,
        evidence: hidden === '' ? text : `decoded: ${hidden}`,
        path: s.path,
      });
    }
    const bidi = count(BIDI_CONTROLS, text);
    if (bidi > 0) {
      // Overrides (LRO/RLO) reorder what is shown; embeddings and isolates in text with no right-to-left script have no honest use either.
      const override = /[\u202D\u202E]/u.test(text);
      emit(target, {
        rule: 'hidden-unicode/bidi-control',
        family: 'hidden-unicode',
        severity: override || !RTL.test(text) ? 'high' : 'medium',
        confidence: override ? 'high' : 'medium',
        blocking: override,
        message: `${bidi} explicit bidirectional control character${bidi === 1 ? '' : 's'}: the text shown differs from the text read`,
        evidence: text,
        path: s.path,
      });
    }
    const zw = strayZeroWidth(text);
    if (zw.length > 0) {
      emit(target, {
        rule: 'hidden-unicode/zero-width',
        family: 'hidden-unicode',
        severity: 'medium',
        confidence: zw.length >= 3 ? 'high' : 'medium',
        blocking: false,
        message: `${zw.length} zero-width character${zw.length === 1 ? '' : 's'} outside emoji or joining-script text`,
        evidence: text,
        path: s.path,
      });
    }
    const pua = count(PRIVATE_USE, text);
    if (pua > 0) {
      emit(target, { rule: 'hidden-unicode/private-use', family: 'hidden-unicode', severity: 'medium', confidence: 'medium', blocking: false, message: `${pua} private-use code point${pua === 1 ? '' : 's'} (no agreed meaning; may carry hidden data)`, evidence: text, path: s.path });
    }
    const vs = [...text.matchAll(new RegExp(VARIATION_SELECTORS.source, 'gu'))].filter((m) => m[0] !== '\uFE0F' && m[0] !== '\uFE0E').length;
    if (vs >= 2) {
      emit(target, { rule: 'hidden-unicode/variation-selectors', family: 'hidden-unicode', severity: 'high', confidence: vs >= 8 ? 'high' : 'medium', blocking: vs >= 8, message: `${vs} variation selectors outside emoji presentation: a known way to hide bytes in text`, evidence: text, path: s.path });
    }
    if (count(ANSI_ESCAPE, text) > 0) {
      emit(target, { rule: 'hidden-unicode/ansi-escape', family: 'hidden-unicode', severity: 'high', confidence: 'high', blocking: true, message: 'ANSI escape sequence: can hide or rewrite text in a terminal', evidence: text, path: s.path });
    } else if (count(CONTROL_CHARS, text) > 0) {
      emit(target, { rule: 'hidden-unicode/control-character', family: 'hidden-unicode', severity: 'medium', confidence: 'medium', blocking: false, message: 'control character in model-visible text', evidence: text, path: s.path });
    }
    if ((s.role === 'name' || s.role === 'property') && isMixedScript(text)) {
      emit(target, { rule: 'hidden-unicode/mixed-script-name', family: 'hidden-unicode', severity: 'high', confidence: 'high', blocking: false, message: 'name mixes Latin with look-alike letters of another script (a confusable of an ASCII name)', evidence: text, path: s.path });
    }
  }
}
