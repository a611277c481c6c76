/**
 * Column layout for the listings of the client commands (`tools`, `resources`, `prompts`):
 * the first column padded to the widest entry, and an entry too long for the column on a line
 * of its own with the rest below it, so long names never push the other columns out of line.
 *
 * @module
 */

/** The widest first column before long entries wrap. */
export const MAX_FIRST_COLUMN = 48;
/** The longest description shown (the rest is cut with `…`). */
export const MAX_DESCRIPTION = 100;

/** Cuts `text` to `max` characters with `…`. */
export function truncate(text: string, max: number = MAX_DESCRIPTION): string {
  return text.length > max ? `${text.slice(0, max - 1)}…` : text;
}

/**
 * The width of a first column holding `entries`: the widest entry that fits in
 * {@link MAX_FIRST_COLUMN}; longer ones wrap instead of widening the column.
 */
export function columnWidth(entries: readonly string[]): number {
  return Math.max(0, ...entries.map((e) => e.length).filter((n) => n <= MAX_FIRST_COLUMN));
}

/** Lays out `[first, rest]` rows in two aligned columns (`rest` may be empty). */
export function alignedRows(rows: readonly (readonly [string, string])[], width: number = columnWidth(rows.map(([first]) => first))): string[] {
  const lines: string[] = [];
  for (const [first, rest] of rows) {
    const text = truncate(rest);
    if (text === '') lines.push(first);
    else if (first.length > width) lines.push(first, `${' '.repeat(width)}  ${text}`);
    else lines.push(`${first.padEnd(width)}  ${text}`);
  }
  return lines;
}
