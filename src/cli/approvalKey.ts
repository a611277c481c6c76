/**
 * The approval key of the state folder (`<stateDir>/approval-key`, 32 random bytes, mode
 * 0600): launch approvals and config approvals are HMACs under it (`host/launchKeys.ts`).
 *
 * @module
 */
import { randomBytes } from 'node:crypto';
import { mkdir } from 'node:fs/promises';
import { APPROVAL_KEY_FILE } from '../host/launchKeys.js';
import { readStateSecret, stateSecret } from './stateSecret.js';

/**
 * The key of `stateDir`, created (with the folder, 0700) when absent. With `create: false` an
 * absent key gives a fresh key for this run only: nothing it signs matches a stored approval,
 * and no state folder is created just to read.
 */
export async function approvalKey(stateDir: string, options: { create?: boolean } = {}): Promise<string> {
  if (options.create === false) return (await readStateSecret(stateDir, APPROVAL_KEY_FILE)) ?? randomBytes(32).toString('base64url');
  await mkdir(stateDir, { recursive: true, mode: 0o700 });
  return (await stateSecret(stateDir, APPROVAL_KEY_FILE)).value;
}
