/**
 * Scope strings: parsing, formatting, union and hierarchy expansion
 * ({@link https://datatracker.ietf.org/doc/html/rfc6749#section-3.3 | RFC 6749 section 3.3}).
 *
 * Hierarchies: the spec says servers **MUST** honour scope hierarchies "where a broader scope
 * implies narrower ones" ({@link https://modelcontextprotocol.io/specification/2026-07-28/basic/authorization#step-up-authorization-flow | step-up}).
 * An {@link ScopeImplies} map lists, for each broad scope, the narrower scopes it implies;
 * expansion is transitive and cycle-safe.
 *
 * @module
 */

/** Broad scope → the narrower scopes it implies (transitively). */
export type ScopeImplies = Readonly<Record<string, readonly string[]>>;

const SCOPE_TOKEN = /^[\x21\x23-\x5B\x5D-\x7E]+$/;

/** Splits a space-delimited scope string into unique scope tokens (order kept). */
export function parseScope(scope: string | undefined | null): string[] {
  if (scope === undefined || scope === null) return [];
  return unionScopes(scope.split(' ').filter((s) => s !== ''));
}

/** True when `scope` is a valid scope token (RFC 6749 `scope-token`). */
export function isScopeToken(scope: string): boolean {
  return SCOPE_TOKEN.test(scope);
}

/** Joins scope tokens with single spaces (unique, order kept). */
export function formatScope(scopes: Iterable<string>): string {
  return unionScopes(scopes).join(' ');
}

/** Union of scope lists, first occurrence order kept. */
export function unionScopes(...lists: Iterable<string>[]): string[] {
  const out = new Set<string>();
  for (const list of lists) for (const s of list) out.add(s);
  return [...out];
}

/** All scopes granted by `granted` once hierarchies are applied. */
export function expandScopes(granted: Iterable<string>, implies: ScopeImplies = {}): Set<string> {
  const out = new Set<string>();
  const stack = [...granted];
  while (stack.length > 0) {
    const s = stack.pop() as string;
    if (out.has(s)) continue;
    out.add(s);
    if (Object.hasOwn(implies, s)) for (const n of implies[s] ?? []) stack.push(n);
  }
  return out;
}

/** The required scopes that `granted` (expanded through `implies`) does not cover. */
export function missingScopes(granted: Iterable<string>, required: Iterable<string>, implies: ScopeImplies = {}): string[] {
  const have = expandScopes(granted, implies);
  return unionScopes(required).filter((s) => !have.has(s));
}
