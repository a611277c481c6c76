/**
 * The four labels (what each means: `labels.ts`). Defined here only; `labels.ts` re-exports them.
 *
 * @module
 */

/** One of the four labels. */
export type Label = 'private-data' | 'untrusted-content' | 'egress' | 'destructive';

/** Every label, in the order reports list them. */
export const LABELS: readonly Label[] = Object.freeze(['private-data', 'untrusted-content', 'egress', 'destructive']);

/** True when `value` is a {@link Label}. */
export function isLabel(value: unknown): value is Label {
  return typeof value === 'string' && (LABELS as readonly string[]).includes(value);
}
