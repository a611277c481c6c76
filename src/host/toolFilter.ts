/**
 * The per-server tool filter of `switchboard.servers.<id>.tools`: `allow` and `deny` lists of
 * glob patterns where `*` matches any run of characters (also none) and `?` exactly one; every
 * other character matches itself. A tool is exposed when it matches some `allow` pattern (or
 * there is no `allow` list) and no `deny` pattern: deny wins. Matching is on the server's
 * original tool name, case-sensitive, over the whole name.
 *
 * @module
 */

/** A compiled glob: true when `name` matches `pattern` as a whole. */
export function compileGlob(pattern: string): (name: string) => boolean {
  let source = '^';
  for (const ch of pattern) {
    if (ch === '*') source += '.*';
    else if (ch === '?') source += '.';
    else source += ch.replace(/[\\^$.|+(){}[\]]/g, '\\$&');
  }
  const regex = new RegExp(`${source}$`, 'su');
  return (name) => regex.test(name);
}

/** A compiled tool filter (`ToolFilter` of the config): true when the tool `name` may be exposed. */
export function compileToolFilter(filter: { readonly allow: readonly string[] | undefined; readonly deny: readonly string[] }): (name: string) => boolean {
  const allow = filter.allow?.map(compileGlob);
  const deny = filter.deny.map(compileGlob);
  return (name) => (allow === undefined || allow.some((match) => match(name))) && !deny.some((match) => match(name));
}
