/**
 * Whether a value can no longer change: what is computed from it once (a canonical text, a
 * redaction check) can be remembered by its identity.
 *
 * @module
 */

/** Whether `value` and everything it holds (own enumerable members, all the way down) is frozen. */
export function deepFrozen(value: unknown): boolean {
  if (value === null || typeof value !== 'object') return true;
  if (!Object.isFrozen(value)) return false;
  for (const key in value) if (!deepFrozen((value as Record<string, unknown>)[key])) return false;
  return true;
}
