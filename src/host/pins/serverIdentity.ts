/**
 * The stable identity of a server, the one `serverIdentity`: what pins and consent grants are
 * keyed by (what the server is, not what it is called). Not to be confused with the URL form
 * OAuth tokens are stored under (`canonicalServerUrl`) nor with the chain's view of the server a
 * request is routed to (`RoutedServer`: its configured id and `serverInfo`).
 *
 * - A stdio server is its transport plus its canonical launch (command, arguments, working
 *   directory, env variable names: the launch-consent digest) and, when it sets env variables
 *   and a key is given, a keyed digest of their values: `stdio:sha256:<hex>+env:hmac-sha256:<hex>`
 *   (HMAC-SHA-256 under the deployment's identity key, kept in the state folder or, with
 *   `--store`, in PostgreSQL; the values are never stored, and without the key a digest cannot
 *   be used to guess a short one). So one package run twice with different settings or tokens
 *   is two servers with two pin records, neither quarantining the other's tools.
 * - A remote one is its transport plus the URL's origin and path (query and fragment dropped:
 *   they often carry keys).
 *
 * The configured id is never part of it: renaming a server keeps its pins, and swapping its
 * command does not. A signing key's thumbprint, once pinned, is part of the identity too
 * (`#<thumbprint>`). An entry with no env variables keeps the identity it had before env values
 * counted; for one with values the pins carry its record over once (see `PinTrust`).
 *
 * @module
 */
import { launchDigest } from '../launchConsent.js';
import { canonicalServerUrl } from '../canonicalServerUrl.js';
import { canonicalize } from '../../util/canonicalJson.js';
import { hmacSha256Hex } from '../../util/sha256.js';
import type { DownstreamSpec } from '../spec.js';

/** Between a stdio launch's identity and the keyed digest of its env values. */
export const ENV_DIGEST_MARK = '+env:';

/**
 * `stdio:sha256:<hex>` (`+env:hmac-sha256:<hex>` with env values and `envKey`),
 * `http:<origin><path>` or `sse:<origin><path>`.
 */
export function serverIdentity(spec: DownstreamSpec, envKey?: Uint8Array): string {
  const launch = spec.launch;
  if (launch.kind === 'stdio') {
    const base = `stdio:${launchDigest({ command: launch.command, args: launch.args, cwd: launch.cwd ?? null, env: Object.keys(launch.env) })}`;
    return envKey === undefined || Object.keys(launch.env).length === 0 ? base : `${base}${ENV_DIGEST_MARK}${envDigest(launch.env, envKey)}`;
  }
  let where = launch.url;
  try {
    where = canonicalServerUrl(launch.url);
  } catch {
    // keep the text: the transport will fail on it anyway
  }
  return `${launch.kind}:${where}`;
}

/** `hmac-sha256:<hex>` over the RFC 8785 JSON of the `[name, value]` pairs, sorted by name. */
export function envDigest(env: Readonly<Record<string, string>>, key: Uint8Array): string {
  const pairs = Object.keys(env)
    .sort()
    .map((name) => [name, env[name] ?? '']);
  return `hmac-sha256:${hmacSha256Hex(key, canonicalize(pairs))}`;
}

/** The launch part of an identity (without its env digest): what two launches differing only in env values share. */
export function launchOfIdentity(identity: string): string {
  const at = identity.indexOf(ENV_DIGEST_MARK);
  return at < 0 ? identity : identity.slice(0, at);
}

/** The identity as shown, with the pinned key when there is one. */
export function displayIdentity(identity: string, keyThumbprint: string | undefined): string {
  return keyThumbprint === undefined ? identity : `${identity}#${keyThumbprint}`;
}
