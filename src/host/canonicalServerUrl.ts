/**
 * The canonical URL of a remote server: what its OAuth tokens are stored under, and the remote
 * part of its pin identity (`pins/serverIdentity.ts`).
 *
 * A token is bound to the server it was issued for (its audience is the server's resource
 * URL), so it is keyed by the endpoint's origin and path, never by the display name in
 * `mcpServers`: renaming an entry keeps its tokens, and a different URL behind the same name
 * never receives them. The query and fragment are not part of it (they often carry keys).
 *
 * @see https://modelcontextprotocol.io/specification/2025-11-25/basic/authorization#canonical-server-uri
 * @module
 */

/**
 * The canonical URL of the server at `url`: scheme, host and port (as the WHATWG URL parser
 * normalizes them: lowercase, default port dropped) plus the path.
 * Throws a `TypeError` for a string that is not an absolute URL.
 */
export function canonicalServerUrl(url: string): string {
  const parsed = new URL(url);
  return `${parsed.origin}${parsed.pathname}`;
}

/** True for an `http:` URL on a loopback host (development: plain http is tolerated only there). */
export function isLoopbackHttp(url: string): boolean {
  if (!URL.canParse(url)) return false;
  const { protocol, hostname } = new URL(url);
  return protocol === 'http:' && (hostname === 'localhost' || hostname === '[::1]' || /^127\.\d+\.\d+\.\d+$/.test(hostname));
}
