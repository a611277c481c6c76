/**
 * The package version, read from `package.json` at run time (two folders up from this module
 * in `src/cli/`, and from the bundle's `dist/cli/` or `dist/_chunks/`).
 *
 * @module
 */
import { readFileSync } from 'node:fs';

let cached: string | undefined;

/** The version in `package.json`. */
export function packageVersion(): string {
  cached ??= (JSON.parse(readFileSync(new URL('../../package.json', import.meta.url), 'utf8')) as { version: string }).version;
  return cached;
}
