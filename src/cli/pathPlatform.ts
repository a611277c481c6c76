/**
 * How paths behave on this machine, for the check that keeps the gateway's own files off-limits
 * to its servers (`host/protectedPaths.ts`): the home folder, whether names compare without case
 * (probed on the state folder's own volume, else decided by platform: macOS and Windows), and the
 * real path of a path whose tail may not exist yet (a file about to be written through a
 * symlinked folder).
 *
 * @module
 */
import { readdirSync, realpathSync, statSync } from 'node:fs';
import { homedir } from 'node:os';
import { basename, dirname, join } from 'node:path';
import type { PathPlatform } from '../host/protectedPaths.js';

/** The real path of `absolute`: symlinks of its longest existing prefix resolved, the missing rest appended. */
export function realpathOfPrefix(absolute: string): string | undefined {
  let head = absolute;
  const tail: string[] = [];
  for (let i = 0; i < 4096; i++) {
    try {
      const real = realpathSync.native(head);
      return tail.length === 0 ? real : join(real, ...tail.reverse());
    } catch {
      const parent = dirname(head);
      if (parent === head) return undefined;
      tail.push(basename(head));
      head = parent;
    }
  }
  return undefined;
}

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
    list: (folder) => {
      try {
        return readdirSync(folder);
      } catch {
        return undefined;
      }
    },
  };
}
