/**
 * Choosing the environment of a spawned stdio server. A server is third-party code: handing
 * it the host's whole environment hands it every token and key the host holds. This module
 * never reads the global `process`; callers pass the parent environment in.
 *
 * @see https://modelcontextprotocol.io/specification/2026-07-28/basic/transports/stdio
 * @module
 */

/** The variables {@link defaultEnvironment} keeps: what a program needs to run, nothing secret. */
export const DEFAULT_INHERITED_ENV_VARS: readonly string[] = Object.freeze([
  // POSIX
  'HOME',
  'LOGNAME',
  'PATH',
  'SHELL',
  'TERM',
  'USER',
  'LANG',
  'TMPDIR',
  // Windows
  'APPDATA',
  'HOMEDRIVE',
  'HOMEPATH',
  'LOCALAPPDATA',
  'PROCESSOR_ARCHITECTURE',
  'PROGRAMFILES',
  'SYSTEMDRIVE',
  'SYSTEMROOT',
  'TEMP',
  'USERNAME',
  'USERPROFILE',
]);

/**
 * Picks the harmless subset of `parent` (usually `process.env`, passed in by the caller) for
 * a child server, then applies `overrides`. Values that look like exported shell functions
 * (`() { ...`) are skipped.
 *
 * @example
 * ```ts
 * new StdioClientTransport({ command: 'my-server', env: defaultEnvironment(process.env, { API_KEY: key }) });
 * ```
 */
export function defaultEnvironment(
  parent: Readonly<Record<string, string | undefined>>,
  overrides: Readonly<Record<string, string>> = {},
  names: readonly string[] = DEFAULT_INHERITED_ENV_VARS,
): Record<string, string> {
  const env: Record<string, string> = {};
  for (const name of names) {
    const value = parent[name];
    if (value === undefined || value.startsWith('()')) continue;
    env[name] = value;
  }
  return Object.assign(env, overrides);
}
