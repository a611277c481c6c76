/**
 * Keyed approvals: a launch approval, and a reloaded config's approval, are HMAC-SHA256 digests
 * under a key kept in the state store (`<stateDir>/approval-key`, read by the CLI and passed
 * in). Whoever can only write the config file, or read what the gateway prints, cannot mint
 * one: an unkeyed digest of a launch is something an agent can compute itself.
 *
 * A launch approval covers the exact command, every argument, the working directory, and each
 * env variable's name AND value as written in the config (a `${env:NAME}` reference stays a
 * reference: the gateway's own environment is the person's, and a rotated secret there needs
 * no new consent, while a value written into the file, such as `NODE_OPTIONS=--require …`,
 * does). Values enter only the keyed digest; they are never stored or shown.
 *
 * @see https://www.rfc-editor.org/rfc/rfc2104
 * @module
 */
import { canonicalize } from '../util/canonicalJson.js';
import { hmacSha256Hex } from '../util/sha256.js';
import type { ServerConfig } from './configTypes.js';

/** The file under the state folder that holds the approval key (mode 0600). */
export const APPROVAL_KEY_FILE = 'approval-key';

/** A keyed approval: `hmac-sha256:` and 64 lowercase hex digits. */
export const KEYED_APPROVAL_PATTERN = /^hmac-sha256:[0-9a-f]{64}$/;

/** Env values as written in the config (unexpanded); the expanded ones when the entry as written has none. */
export function writtenEnv(server: ServerConfig): Readonly<Record<string, string>> {
  if (server.launch.kind !== 'stdio') return {};
  const raw = server.raw['env'];
  if (typeof raw !== 'object' || raw === null || Array.isArray(raw)) return server.launch.env;
  const out: Record<string, string> = {};
  for (const [name, value] of Object.entries(raw as Record<string, unknown>)) out[name] = typeof value === 'string' ? value : JSON.stringify(value);
  return out;
}

/**
 * The keyed approval of `server`'s launch under `key`, or undefined for a remote server (nothing
 * is started). `acknowledged` names the supply-chain flags the person saw when approving
 * (`launchSupplyChain.ts`): a flagged launch's approval covers them, so an approval given
 * without the warning (an older one, `--yes`, a config approval) never admits it.
 */
export function launchApproval(key: string, server: ServerConfig, acknowledged: readonly string[] = []): string | undefined {
  const launch = server.launch;
  if (launch.kind !== 'stdio') return undefined;
  const fields = { kind: 'switchboard-launch/1', command: launch.command, args: launch.args, cwd: launch.cwd ?? null, env: writtenEnv(server) };
  const canonical = canonicalize(acknowledged.length === 0 ? fields : { ...fields, acknowledged: [...acknowledged].sort() });
  return `hmac-sha256:${hmacSha256Hex(key, canonical)}`;
}

/** The keyed approval of a config file's exact text under `key` (what `switchboard config approve` and the console approve). */
export function configApproval(key: string, text: string): string {
  return `hmac-sha256:${hmacSha256Hex(key, `switchboard-config/1\u0000${text}`)}`;
}
