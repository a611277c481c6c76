/**
 * Reading a kept consent approval back from a store (SQLite, PostgreSQL): a record that lacks
 * what a grant must bind is dropped rather than trusted half-read (fail closed: the call is
 * asked about again).
 *
 * @module
 */
import type { ConsentGrant } from '../host/consent/consentGrants.js';

/** `value` as a grant, or undefined when it lacks what a grant must bind. */
export function grantFromRecord(value: unknown): ConsentGrant | undefined {
  if (typeof value !== 'object' || value === null) return undefined;
  const g = value as Record<string, unknown>;
  const scope = g['scope'] as Record<string, unknown> | undefined;
  const strings = ['id', 'createdAt', 'approver', 'serverIdentity', 'tool', 'definitionDigest'];
  if (!strings.every((k) => typeof g[k] === 'string') || typeof scope !== 'object' || scope === null) return undefined;
  if (scope['match'] === 'call' && typeof g['argumentsDigest'] !== 'string') return undefined;
  if (scope['match'] === 'pattern' && (typeof g['fixedArguments'] !== 'object' || typeof scope['patterns'] !== 'object')) return undefined;
  if (!['call', 'tool', 'pattern'].includes(String(scope['match']))) return undefined;
  return g as unknown as ConsentGrant;
}
