// @ts-check
/**
 * A data table with a caption (its accessible name), column headers with `scope`, and an
 * empty-state row. Cells are rendered by the column's `cell` function or as text.
 *
 * @module
 */
import { html } from '../lib/html.js';
import { Reveal } from './text.js';

/**
 * @template T
 * @typedef {{ label: string, cell: (row: T) => unknown, className?: string }} Column
 */

/**
 * @template T
 * @param {{ caption: string, columns: Column<T>[], rows: T[], empty?: string, rowKey?: (row: T, index: number) => string | number, rowClass?: (row: T) => string | undefined, testId?: string }} props
 */
export function Table({ caption, columns, rows, empty = 'Nothing here yet.', rowKey, rowClass, testId }) {
  return html`<div class="table-wrap">
    <table data-testid=${testId}>
      <caption>${caption}</caption>
      <thead>
        <tr>${columns.map((c) => html`<th scope="col" class=${c.className}>${c.label}</th>`)}</tr>
      </thead>
      <tbody>
        ${rows.length === 0
          ? html`<tr><td colspan=${columns.length} class="empty">${empty}</td></tr>`
          : rows.map(
              (row, i) => html`<tr key=${rowKey === undefined ? i : rowKey(row, i)} class=${rowClass?.(row)}>
                ${columns.map((c) => html`<td class=${c.className}>${cell(c.cell(row))}</td>`)}
              </tr>`,
            )}
      </tbody>
    </table>
  </div>`;
}

/** Strings and numbers as revealed text; anything else (virtual nodes) as is. */
function cell(/** @type {unknown} */ value) {
  return typeof value === 'string' || typeof value === 'number' ? html`<${Reveal} text=${String(value)} />` : value;
}
