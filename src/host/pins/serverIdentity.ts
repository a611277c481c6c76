/**
 * The stable identity of a server, the one `serverIdentity`: what pins and consent grants are
 * keyed by (what the server is, not what it is called). Not to be confused with the URL form
 * OAuth tokens are stored under (`canonicalServerUrl`) nor with the chain's view of the server a
 * request is routed to (`RoutedServer`: its configured id and `serverInfo`). A stdio
 * server is its transport plus its canonical launch (command, arguments, working directory,
 * env variable names: the launch-consent digest); a remote one is its transport plus the
 * URL's origin and path (query and fragment dropped: they often carry keys). The configured
 * id is only an alias, so renaming a server keeps its pins and swapping its command does not.
 * A signing key's thumbprint, once pinned, is part of the identity too (`#<thumbprint>`).
 *
 * @module
 */
import { launchDigest } from '../launchConsent.js';
import { canonicalServerUrl } from '../canonicalServerUrl.js';
import type { DownstreamSpec } from '../spec.js';

/** `stdio:sha256:<hex>`, `http:<origin><path>` or `sse:<origin><path>`. */
export function serverIdentity(spec: DownstreamSpec): string {
  const launch = spec.launch;
  if (launch.kind === 'stdio') {
    return `stdio:${launchDigest({ command: launch.command, args: launch.args, cwd: launch.cwd ?? null, env: Object.keys(launch.env) })}`;
  }
  let where = launch.url;
  try {
    where = canonicalServerUrl(launch.url);
  } catch {
    // keep the text: the transport will fail on it anyway
  }
  return `${launch.kind}:${where}`;
}

/** The identity as shown, with the pinned key when there is one. */
export function displayIdentity(identity: string, keyThumbprint: string | undefined): string {
  return keyThumbprint === undefined ? identity : `${identity}#${keyThumbprint}`;
}
