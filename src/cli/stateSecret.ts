/**
 * Secrets kept under the state folder (the MCP bearer token `gateway-token`, the consent
 * admin token `admin-token`): read when present, otherwise generated (32 random bytes,
 * base64url) and written with mode 0600.
 *
 * @module
 */
import { randomBytes } from 'node:crypto';
import { chmod, readFile, writeFile } from 'node:fs/promises';
import { resolve as resolvePath } from 'node:path';

/** A secret file's value; `created` when it was generated now. */
export interface StateSecret {
  readonly value: string;
  readonly file: string;
  readonly created: boolean;
}

/** Reads `<stateDir>/<name>`, or generates it (mode 0600) when absent or shorter than 32 characters. */
export async function stateSecret(stateDir: string, name: string): Promise<StateSecret> {
  const file = resolvePath(stateDir, name);
  const existing = await readStateSecret(stateDir, name);
  if (existing !== undefined) return { value: existing, file, created: false };
  const value = randomBytes(32).toString('base64url');
  await writeFile(file, `${value}\n`, { mode: 0o600 });
  await chmod(file, 0o600);
  return { value, file, created: true };
}

/** The value of `<stateDir>/<name>`, or undefined when it is absent (or too short to be one of ours). */
export async function readStateSecret(stateDir: string, name: string): Promise<string | undefined> {
  try {
    const value = (await readFile(resolvePath(stateDir, name), 'utf8')).trim();
    return value.length >= 32 ? value : undefined;
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code !== 'ENOENT') throw error;
    return undefined;
  }
}
