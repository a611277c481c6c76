// @ts-check
/**
 * A side-by-side line diff of two texts (a pinned tool definition and the one the server now
 * sends), hidden characters made visible on both sides. The alignment is a longest common
 * subsequence over lines; removed lines are on the left only, added ones on the right only,
 * and a removed line followed by an added one share a row as a change.
 *
 * @module
 */
import { html } from '../lib/html.js';
import { hasHidden } from '../lib/unicode.js';
import { Reveal } from './text.js';

/**
 * @typedef {{ kind: 'same' | 'removed' | 'added' | 'changed', left?: { n: number, text: string }, right?: { n: number, text: string } }} DiffRow
 */

/**
 * Aligns the lines of `before` and `after` into side-by-side rows.
 * @param {string} before
 * @param {string} after
 * @returns {DiffRow[]}
 */
export function diffLines(before, after) {
  const a = before.split('\n');
  const b = after.split('\n');
  // LCS lengths from the end (definitions are small: a few hundred lines at most).
  /** @type {Uint32Array[]} */
  const lcs = Array.from({ length: a.length + 1 }, () => new Uint32Array(b.length + 1));
  for (let i = a.length - 1; i >= 0; i--) {
    const row = /** @type {Uint32Array} */ (lcs[i]);
    const next = /** @type {Uint32Array} */ (lcs[i + 1]);
    for (let j = b.length - 1; j >= 0; j--) row[j] = a[i] === b[j] ? (next[j + 1] ?? 0) + 1 : Math.max(next[j] ?? 0, row[j + 1] ?? 0);
  }
  /** @type {DiffRow[]} */
  const rows = [];
  /** @type {{ n: number, text: string }[]} */
  let removed = [];
  /** @type {{ n: number, text: string }[]} */
  let added = [];
  const flush = () => {
    const pairs = Math.max(removed.length, added.length);
    for (let k = 0; k < pairs; k++) {
      const left = removed[k];
      const right = added[k];
      rows.push({ kind: left !== undefined && right !== undefined ? 'changed' : left !== undefined ? 'removed' : 'added', ...(left !== undefined ? { left } : {}), ...(right !== undefined ? { right } : {}) });
    }
    removed = [];
    added = [];
  };
  let i = 0;
  let j = 0;
  while (i < a.length || j < b.length) {
    const ai = a[i];
    const bj = b[j];
    if (i < a.length && j < b.length && ai === bj) {
      flush();
      rows.push({ kind: 'same', left: { n: i + 1, text: ai ?? '' }, right: { n: j + 1, text: bj ?? '' } });
      i++;
      j++;
    } else if (j < b.length && (i >= a.length || (lcs[i]?.[j + 1] ?? 0) >= (lcs[i + 1]?.[j] ?? 0))) {
      added.push({ n: j + 1, text: bj ?? '' });
      j++;
    } else {
      removed.push({ n: i + 1, text: ai ?? '' });
      i++;
    }
  }
  flush();
  return rows;
}

/**
 * @param {{ before: string, after: string, caption: string, beforeLabel?: string, afterLabel?: string }} props
 */
export function Diff({ before, after, caption, beforeLabel = 'Approved before', afterLabel = 'Sent now' }) {
  const rows = diffLines(before, after);
  const hidden = hasHidden(before) || hasHidden(after);
  const side = (/** @type {{ n: number, text: string } | undefined} */ line, /** @type {string} */ cls) =>
    line === undefined
      ? html`<td class="diff-n"></td><td class=${`diff-text diff-empty`}></td>`
      : html`<td class="diff-n">${line.n}</td><td class=${`diff-text ${cls}`}><${Reveal} text=${line.text} /></td>`;
  return html`<div class="diff-wrap">
    ${hidden ? html`<p class="notice notice-error" role="note">This definition holds hidden characters, shown as ⟦U+…⟧ markers.</p>` : null}
    <table class="diff" data-testid="diff">
      <caption>${caption}</caption>
      <thead>
        <tr><th scope="col" class="diff-n">#</th><th scope="col">${beforeLabel}</th><th scope="col" class="diff-n">#</th><th scope="col">${afterLabel}</th></tr>
      </thead>
      <tbody>
        ${rows.map(
          (r) => html`<tr class=${`diff-row diff-${r.kind}`}>
            ${side(r.left, r.kind === 'same' ? '' : 'diff-del')}${side(r.right, r.kind === 'same' ? '' : 'diff-ins')}
          </tr>`,
        )}
      </tbody>
    </table>
  </div>`;
}
