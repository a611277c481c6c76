/**
 * Glob patterns against folder paths, segment by segment, for the protected-path check
 * (`protectedPaths.ts`): could a pattern such as `/proj/.switch*` or one ending in
 * `admin-tok?n` match a given path, something inside it, or one of its ancestors? `**` matches any number
 * of segments; within a segment `*`, `?`, `[...]` and `{a,b}` match as in shell globs, and a
 * dot file is matched by `*` (stricter than most glob libraries: a tool's own glob may be
 * looser than we think, never wider).
 *
 * @module
 */

/** What a glob can reach relative to a path (any that apply). */
export interface GlobReach {
  /** The path itself. */
  readonly same: boolean;
  /** Something inside the path. */
  readonly inside: boolean;
  /** Something inside the path, with the path's own name matched by a pattern segment other than `**` (the glob aims at it). */
  readonly aimed: boolean;
  /** An ancestor of the path. */
  readonly ancestor: boolean;
}

/** True when `text` holds a glob metacharacter (`*`, `?`, `[`, `{`). */
export function hasGlob(text: string): boolean {
  return /[*?[{]/.test(text);
}

/** Compiles one segment of a glob (no `/`) to an anchored regular expression; `undefined` when it is not one we can read (then it matches anything). */
function segmentPattern(segment: string): RegExp | undefined {
  let out = '';
  let braces = 0;
  for (let i = 0; i < segment.length; i++) {
    const c = segment[i] as string;
    if (c === '*') out += '.*';
    else if (c === '?') out += '.';
    else if (c === '[') {
      const end = segment.indexOf(']', i + 2);
      if (end < 0) {
        out += '\\[';
        continue;
      }
      const body = segment.slice(i + 1, end).replace(/^!/, '^').replace(/\\/g, '\\\\');
      out += `[${body}]`;
      i = end;
    } else if (c === '{') {
      braces++;
      out += '(?:';
    } else if (c === '}' && braces > 0) {
      braces--;
      out += ')';
    } else if (c === ',' && braces > 0) out += '|';
    else out += c.replace(/[.+^$()|\\\]}]/g, '\\$&');
  }
  if (braces > 0) return undefined;
  try {
    return new RegExp(`^${out}$`, 's');
  } catch {
    return undefined;
  }
}

/**
 * What the glob `pattern` (its segments, absolute and normalised like `path`) can reach
 * relative to `path` (its segments). Memoised over (pattern index, path index), so a pattern of
 * many `**` stays linear in practice.
 */
export function globReach(pattern: readonly string[], path: readonly string[]): GlobReach {
  const compiled = pattern.map((segment) => (segment === '**' ? '**' : hasGlob(segment) ? (segmentPattern(segment) ?? /^.*$/s) : segment));
  const memo = new Map<number, number>();
  const SAME = 1;
  const INSIDE = 2;
  const ANCESTOR = 4;
  const AIMED = 8;
  const walk = (g: number, p: number): number => {
    const key = g * (path.length + 1) + p;
    const known = memo.get(key);
    if (known !== undefined) return known;
    let found = 0;
    const part = compiled[g];
    if (p === path.length) {
      // The path is used up: the rest of the pattern lies inside it (or is all `**`: the path itself too).
      if (g === compiled.length) found = SAME;
      else found = INSIDE | (compiled.slice(g).every((s) => s === '**') ? SAME : 0);
    } else if (part === undefined) {
      found = ANCESTOR;
    } else if (part === '**') {
      found = walk(g + 1, p) | walk(g, p + 1);
    } else {
      const name = path[p] as string;
      if (typeof part === 'string' ? part === name : part.test(name)) {
        found = walk(g + 1, p + 1);
        // The path's last name matched by this segment, and the pattern goes on below it.
        if (p === path.length - 1 && (found & INSIDE) !== 0) found |= AIMED;
      }
    }
    memo.set(key, found);
    return found;
  };
  const found = walk(0, 0);
  return { same: (found & SAME) !== 0, inside: (found & INSIDE) !== 0, aimed: (found & AIMED) !== 0, ancestor: (found & ANCESTOR) !== 0 };
}
