/**
 * `switchboard.gateway.auth.tokens`: the gateway's named bearer tokens. Each entry names its
 * holder and gives either the token (`"token": "${env:ALICE_TOKEN}"`, expanded like other
 * config strings, hashed here: the clear value is not kept in the parsed config) or its
 * SHA-256 digest (`"sha256"`: 64 hex digits, for a config that must not hold the secret),
 * plus optional scopes. The name becomes the caller's principal id (audit, policy).
 *
 * @module
 */
import { tokenDigest, type NamedToken } from '../auth/resource/staticTokens.js';
import { expandEnv } from './configEnv.js';
import type { ConfigReader } from './configRead.js';
import { childPath } from './configTypes.js';

const NAME = /^[A-Za-z0-9._-]{1,64}$/;
const HEX64 = /^[0-9a-fA-F]{64}$/;
/** Shorter tokens are guessable; the generated one has 43 characters. */
const MIN_TOKEN_LENGTH = 16;

/** Reads the `tokens` array at `path` (names unique, one of `token`/`sha256` each, digests unique). */
export function readGatewayTokens(read: ConfigReader, value: unknown, path: string, env: Readonly<Record<string, string | undefined>>): readonly NamedToken[] {
  if (!Array.isArray(value) || value.length === 0) read.fail(path, 'expected a non-empty array of { "name", "token" | "sha256", "scopes"? }');
  const names = new Set<string>();
  const digests = new Set<string>();
  return value.map((item: unknown, i) => {
    const at = childPath(path, i);
    const entry = read.record(item, at);
    read.strictKeys(entry, ['name', 'token', 'sha256', 'scopes'], at);
    const name = read.string(entry['name'], childPath(at, 'name'));
    if (!NAME.test(name)) read.fail(childPath(at, 'name'), `expected 1 to 64 of A-Z a-z 0-9 . _ -, got ${JSON.stringify(name)}`);
    if (names.has(name)) read.fail(childPath(at, 'name'), `the name "${name}" is used by another token`);
    names.add(name);
    if ((entry['token'] === undefined) === (entry['sha256'] === undefined)) read.fail(at, 'expected exactly one of "token" and "sha256"');
    let sha256: string;
    if (entry['token'] !== undefined) {
      const tokenPath = childPath(at, 'token');
      const token = expandEnv(read.string(entry['token'], tokenPath), { file: read.file, path: tokenPath, env });
      if (token.length < MIN_TOKEN_LENGTH || !/^[A-Za-z0-9\-._~+/]+=*$/.test(token)) {
        read.fail(tokenPath, `expected at least ${MIN_TOKEN_LENGTH} characters of A-Z a-z 0-9 - . _ ~ + / (a bearer token, RFC 6750)`);
      }
      sha256 = tokenDigest(token);
    } else {
      sha256 = read.string(entry['sha256'], childPath(at, 'sha256'));
      if (!HEX64.test(sha256)) read.fail(childPath(at, 'sha256'), 'expected the 64 hex digits of the token\'s SHA-256 digest');
      sha256 = sha256.toLowerCase();
    }
    if (digests.has(sha256)) read.fail(at, `"${name}" has the same token as another entry`);
    digests.add(sha256);
    const scopes = entry['scopes'] === undefined ? [] : read.strings(entry['scopes'], childPath(at, 'scopes'));
    for (const [j, scope] of scopes.entries()) if (!/^[\x21\x23-\x5b\x5d-\x7e]+$/.test(scope)) read.fail(childPath(childPath(at, 'scopes'), j), `${JSON.stringify(scope)} is not a scope token (RFC 6749 section 3.3)`);
    return Object.freeze({ name, sha256, scopes: Object.freeze(scopes) });
  });
}
