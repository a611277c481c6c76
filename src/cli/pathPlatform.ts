/**
 * How paths behave on this machine, for the check that keeps the gateway's own files off-limits
 * to its servers (`host/protectedPaths.ts`): the home folder, whether names compare without case
 * (probed on the state folder's own volume, else decided by platform: macOS and Windows), and the
 * real path of a path whose tail may not exist yet (a file about to be written through a
 * symlinked folder).
 *
 * @module
 */
import { lstatSync, readdirSync, readlinkSync, statSync, type Stats } from 'node:fs';
import { homedir } from 'node:os';
import { basename, dirname, isAbsolute, join, resolve, sep } from 'node:path';
import type { PathPlatform } from '../host/protectedPaths.js';

/** The real path of `absolute`: symlinks of its longest existing prefix resolved, the missing rest appended. */
export function realpathOfPrefix(absolute: string): string | undefined {
  return scopedRealpath()(absolute);
}

/** What one lookup of {@link scopedRealpath} found at a path: its real path and whether it is a folder (`missing`: nothing there). */
interface Found {
  readonly real: string;
  readonly kind: 'folder' | 'other' | 'missing';
}

/** Symlinks followed in one lookup before it gives up (Linux's own limit is 40). */
const MAX_LINKS = 40;

/** A folder's (or file's) real path as last looked up, and the object it was: kept across requests for {@link scopedRealpath}'s anchors. */
interface Anchored extends Found {
  readonly dev: number;
  readonly ino: number;
}

/** Anchors kept across requests (the folders servers resolve relative paths against); cleared when full. */
const anchored = new Map<string, Anchored>();
const MAX_ANCHORED = 1_000;

/** The object at `path` (links followed), or `undefined`. */
function statOf(path: string): Stats | undefined {
  try {
    return statSync(path, { throwIfNoEntry: false });
  } catch {
    return undefined;
  }
}

/** Lookups shared by the checks of one event-loop turn ({@link scopedRealpath}). */
interface Turn {
  readonly memo: Map<string, Found>;
  /** The scopes made this turn, by their anchors array (the same array given again in the turn gets the same scope). */
  readonly scopes: WeakMap<readonly string[], (absolute: string) => string | undefined>;
}
let turn: Turn | undefined;
/** Past this many names a turn's lookups start afresh (a request with thousands of paths). */
const MAX_TURN_LOOKUPS = 4_096;

/** The lookups of the current event-loop turn: made on first use, dropped when the turn ends. */
function currentTurn(): Turn {
  if (turn === undefined) setImmediate(() => (turn = undefined));
  else if (turn.memo.size < MAX_TURN_LOOKUPS) return turn;
  turn = { memo: new Map(), scopes: new WeakMap() };
  return turn;
}

/**
 * A realpath-of-prefix function whose lookups are remembered for as long as the caller keeps it:
 * one check of one request (`PathPlatform.realpathScope`). The path is resolved from the root
 * down, one `lstat` per name not met before and no exception for a missing name: a bare word
 * resolved against a folder already looked up costs one `lstat`. Unlike `realpath(3)` of the
 * longest existing prefix, a dangling symlink is followed to where it points (writing through it
 * creates the file there). Past {@link MAX_LINKS} links (a loop) the answer is `undefined`.
 *
 * The checks of one event-loop turn (the requests read in one pass of the loop, well under a
 * millisecond) share their lookups: the file system is read once per name per turn, not once per
 * request. That widens nothing an attacker can use: another process's change lands between two
 * turns or during one (where it also lands after a per-request lookup), and a server acts on a
 * checked path only after the check's turn; a request sent after an earlier call's answer (a link
 * made by that call) is always checked in a later turn.
 *
 * The same `given` array asked for again in the turn (the next request to the same server) gets
 * the same function back once its anchors are looked up: the anchors were checked this turn, and
 * a caller may key what it derives from the lookups (`findProtectedPath`'s verdicts) on it.
 *
 * `anchors` (the folders a server resolves relative paths against) are resolved once and kept
 * across turns: each turn checks with one `stat` that the anchor is still the same object
 * (device and inode, links followed), and resolves it again when it is not (a folder replaced
 * by a symlink, or moved, between two requests).
 */
export function scopedRealpath(given: readonly string[] = []): (absolute: string) => string | undefined {
  const current = currentTurn();
  // The same anchors again in this turn (the next request to the same server): they were checked, and the lookups are shared.
  const made = current.scopes.get(given);
  if (made !== undefined) return made;
  const { memo } = current;
  const anchors = given.map((anchor) => (isNormalAbsolute(anchor) ? anchor : resolve(anchor)));
  for (const anchor of anchors) {
    if (memo.has(anchor)) continue;
    const known = anchored.get(anchor);
    if (known === undefined) continue;
    const now = statOf(anchor);
    if (now !== undefined && now.dev === known.dev && now.ino === known.ino) memo.set(anchor, known);
    else anchored.delete(anchor);
  }
  const remember = (anchor: string, found: Found): void => {
    if (found.kind === 'missing' || anchored.has(anchor)) return;
    const now = statOf(anchor);
    if (now === undefined) return;
    if (anchored.size >= MAX_ANCHORED) anchored.clear();
    anchored.set(anchor, { ...found, dev: now.dev, ino: now.ino });
  };
  const find = (path: string, links: { n: number }): Found | undefined => {
    const known = memo.get(path);
    if (known !== undefined) return known;
    const parent = dirname(path);
    let found: Found | undefined;
    if (parent === path) {
      found = { real: path, kind: 'folder' };
    } else {
      const up = find(parent, links);
      if (up === undefined) return undefined;
      const here = join(up.real, basename(path));
      if (up.kind !== 'folder') found = { real: here, kind: 'missing' };
      else found = look(here, up.real, links);
      if (found === undefined) return undefined;
    }
    memo.set(path, found);
    return found;
  };
  const look = (here: string, folder: string, links: { n: number }): Found | undefined => {
    let stat;
    try {
      stat = lstatSync(here, { throwIfNoEntry: false });
    } catch {
      return { real: here, kind: 'missing' }; // EACCES, ENAMETOOLONG: read as the name it was given
    }
    if (stat === undefined) return { real: here, kind: 'missing' };
    if (!stat.isSymbolicLink()) return { real: here, kind: stat.isDirectory() ? 'folder' : 'other' };
    if (++links.n > MAX_LINKS) return undefined;
    let target: string;
    try {
      target = readlinkSync(here);
    } catch {
      return { real: here, kind: 'missing' };
    }
    return find(isAbsolute(target) ? resolve(target) : resolve(folder, target), links);
  };
  for (const anchor of anchors) {
    if (memo.has(anchor)) continue;
    const found = find(anchor, { n: 0 });
    if (found !== undefined) remember(anchor, found);
  }
  const scope = (absolute: string): string | undefined => find(isNormalAbsolute(absolute) ? absolute : resolve(absolute), { n: 0 })?.real;
  if (anchors.every((anchor) => memo.has(anchor))) current.scopes.set(given, scope);
  return scope;
}

/** `path` is absolute and already as `resolve` would give it (no `.`, `..`, `//` or trailing `/`): the common case, spared the work. */
function isNormalAbsolute(path: string): boolean {
  return isAbsolute(path) && sep === '/' && (path === '/' || (!path.endsWith('/') && !DOT_OR_EMPTY_NAME.test(path)));
}
const DOT_OR_EMPTY_NAME = /\/\.{0,2}(?:\/|$)/;

/**
 * Whether the volume holding `existing` (a path that exists, with a letter in its last name)
 * compares names without case: the same file answers to the name with its case swapped.
 * `undefined` when it cannot tell.
 */
export function probeCaseInsensitive(existing: string): boolean | undefined {
  const name = basename(existing);
  const swapped = [...name].map((c) => (c === c.toLowerCase() ? c.toUpperCase() : c.toLowerCase())).join('');
  if (swapped === name) return undefined;
  try {
    const a = statSync(existing);
    try {
      const b = statSync(join(dirname(existing), swapped));
      return a.ino === b.ino && a.dev === b.dev;
    } catch {
      return false;
    }
  } catch {
    return undefined;
  }
}

/** This machine's {@link PathPlatform}; `probe` is an existing path on the volume that matters (the state folder). */
export function nodePathPlatform(probe: string | undefined): PathPlatform {
  const byPlatform = process.platform === 'darwin' || process.platform === 'win32';
  return {
    caseInsensitive: (probe === undefined ? undefined : probeCaseInsensitive(probe)) ?? byPlatform,
    windows: process.platform === 'win32',
    home: homedir(),
    realpath: realpathOfPrefix,
    realpathScope: scopedRealpath,
    list: (folder) => {
      try {
        return readdirSync(folder);
      } catch {
        return undefined;
      }
    },
  };
}
