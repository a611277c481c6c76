/**
 * Per-server tool allow and deny lists: glob patterns with `*` (any run of characters) and
 * `?` (one character), matched against the server's own tool name; deny wins over allow, and
 * no allow list means every tool not denied.
 *
 * @module
 */
import type { ToolFilter } from './configTypes.js';

const compiled = new Map<string, RegExp>();

/** True when `pattern` (a `*`/`?` glob) matches all of `name`. */
export function globMatches(pattern: string, name: string): boolean {
  let re = compiled.get(pattern);
  if (re === undefined) {
    const body = pattern.replace(/[.+^${}()|[\]\\]/g, '\\$&').replace(/\*/g, '.*').replace(/\?/g, '.');
    re = new RegExp(`^${body}$`, 's');
    if (compiled.size > 1024) compiled.clear();
    compiled.set(pattern, re);
  }
  return re.test(name);
}

/** Whether a server's tool passes its filter. */
export function toolAllowed(name: string, filter: ToolFilter | undefined): boolean {
  if (filter === undefined) return true;
  if (filter.deny.some((p) => globMatches(p, name))) return false;
  return filter.allow === undefined || filter.allow.some((p) => globMatches(p, name));
}
