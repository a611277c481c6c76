/**
 * Plain-string path operations for config files (the host layer is runtime-neutral, so no
 * `node:path`). Both POSIX (`/a/b`) and Windows (`C:\a\b`, `\\server\share`) absolute paths
 * are recognised; a relative path is joined with the separator its base uses.
 *
 * @module
 */

/** True for `/x`, `C:\x`, `C:/x` and `\\server\share`. */
export function isAbsolutePath(path: string): boolean {
  return path.startsWith('/') || path.startsWith('\\\\') || /^[A-Za-z]:[\\/]/.test(path);
}

/** The folder part of a file path (`''` when it has none). */
export function folderOf(file: string): string {
  const cut = Math.max(file.lastIndexOf('/'), file.lastIndexOf('\\'));
  if (cut < 0) return '';
  // Keep the root itself: "/x" → "/", "C:\x" → "C:\".
  return cut === 0 || (cut === 2 && /^[A-Za-z]:/.test(file)) ? file.slice(0, cut + 1) : file.slice(0, cut);
}

/**
 * `path` resolved against `base` (a folder): an absolute `path` is returned normalised, a
 * relative one is appended to `base`. `.` and `..` segments are folded (never above the root).
 */
export function resolvePath(base: string, path: string): string {
  const joined = isAbsolutePath(path) || base === '' ? path : `${base}${base.includes('\\') && !base.includes('/') ? '\\' : '/'}${path}`;
  return normalise(joined);
}

function normalise(path: string): string {
  const windows = /^[A-Za-z]:[\\/]/.test(path) || path.startsWith('\\\\') || (path.includes('\\') && !path.includes('/'));
  const sep = windows ? '\\' : '/';
  let root = '';
  let rest = path;
  const drive = /^[A-Za-z]:[\\/]/.exec(path);
  if (drive !== null) {
    root = `${path.slice(0, 2)}${sep}`;
    rest = path.slice(3);
  } else if (path.startsWith('\\\\')) {
    root = '\\\\';
    rest = path.slice(2);
  } else if (path.startsWith('/')) {
    root = '/';
    rest = path.slice(1);
  }
  const out: string[] = [];
  for (const segment of rest.split(/[\\/]/)) {
    if (segment === '' || segment === '.') continue;
    if (segment === '..') {
      if (out.length > 0 && out[out.length - 1] !== '..') out.pop();
      else if (root === '') out.push('..');
      continue;
    }
    out.push(segment);
  }
  const body = out.join(sep);
  return root + body || (root === '' ? '.' : root);
}

/**
 * A `file://` URI for an absolute path (POSIX or Windows), each segment percent-encoded:
 * `/a b/c` → `file:///a%20b/c`, `C:\\x` → `file:///C:/x`, `\\\\srv\\share` → `file://srv/share`.
 */
export function pathToFileUri(path: string): string {
  const slashed = path.replace(/\\/g, '/');
  const encode = (p: string): string => p.split('/').map((segment) => encodeURIComponent(segment)).join('/');
  if (slashed.startsWith('//')) return `file:${encode(slashed)}`;
  if (/^[A-Za-z]:\//.test(slashed)) return `file:///${slashed.slice(0, 2)}${encode(slashed.slice(2))}`;
  return `file://${encode(slashed)}`;
}
