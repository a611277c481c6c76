/**
 * Counts in prose: `counted(1, 'server')` is "1 server", `counted(2, 'server')` "2 servers".
 *
 * @module
 */

/** `n` and the noun, singular for exactly 1 (`plural` when the noun does not just take an `s`). */
export function counted(n: number, singular: string, plural = `${singular}s`): string {
  return `${n} ${n === 1 ? singular : plural}`;
}
