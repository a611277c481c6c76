// @ts-check
/**
 * Makes hidden Unicode visible: zero-width characters, bidirectional controls, tag characters,
 * variation selectors and other format or control characters become visible markers such as
 * `⟦U+200B⟧`, so a definition that smuggles instructions in invisible text shows them.
 *
 * @module
 */

/** Characters a reader cannot see (Cc except tab/newline, Cf, tags, variation selectors, odd spaces). */
// eslint-disable-next-line no-control-regex, no-misleading-character-class -- finding these characters is the point
const HIDDEN = /[\u0000-\u0008\u000B\u000C\u000E-\u001F\u007F-\u009F\u00A0\u00AD\u034F\u061C\u115F\u1160\u17B4\u17B5\u180B-\u180F\u2000-\u200F\u2028-\u202F\u205F-\u206F\u3000\u3164\uFE00-\uFE0F\uFEFF\uFFA0\uFFF0-\uFFFB]|\uDB40[\uDC00-\uDDEF]/g;

/**
 * One piece of text split for display: plain runs and hidden characters.
 * @typedef {{ text: string, hidden: boolean }} Piece
 */

/** The `U+XXXX` name of the first code point of `char`. */
export function codePointLabel(/** @type {string} */ char) {
  const cp = char.codePointAt(0) ?? 0;
  return `U+${cp.toString(16).toUpperCase().padStart(4, '0')}`;
}

/**
 * Splits `text` into visible runs and hidden characters (each hidden character its own piece).
 * @param {string} text
 * @returns {Piece[]}
 */
export function splitHidden(text) {
  /** @type {Piece[]} */
  const out = [];
  let last = 0;
  for (const m of text.matchAll(HIDDEN)) {
    const at = m.index ?? 0;
    if (at > last) out.push({ text: text.slice(last, at), hidden: false });
    out.push({ text: m[0], hidden: true });
    last = at + m[0].length;
  }
  if (last < text.length) out.push({ text: text.slice(last), hidden: false });
  return out;
}

/** Whether `text` holds any hidden character. */
export function hasHidden(/** @type {string} */ text) {
  HIDDEN.lastIndex = 0;
  const found = HIDDEN.test(text);
  HIDDEN.lastIndex = 0;
  return found;
}

/** `text` with every hidden character replaced by its `⟦U+XXXX⟧` marker (for plain-text uses). */
export function revealHidden(/** @type {string} */ text) {
  return text.replace(HIDDEN, (c) => `⟦${codePointLabel(c)}⟧`);
}
