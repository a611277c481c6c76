/**
 * The MCP protocol revisions Switchboard speaks, and the era facts that follow from them.
 *
 * Revisions up to 2025-11-25 are stateful (an `initialize` handshake opens a session);
 * 2026-07-28 is stateless (every request carries its version and capabilities in `_meta`).
 *
 * @see https://modelcontextprotocol.io/specification/2026-07-28/basic/versioning
 * @see https://modelcontextprotocol.io/specification/2025-11-25/basic/lifecycle
 * @module
 */

/** Every supported revision, oldest first. */
export const supportedRevisions = ['2025-03-26', '2025-06-18', '2025-11-25', '2026-07-28'] as const;

/** A protocol revision Switchboard implements. */
export type ProtocolRevision = (typeof supportedRevisions)[number];

/** The newest supported revision. */
export const latestRevision: ProtocolRevision = '2026-07-28';

/** The newest revision of the stateful (handshake) line. */
export const latestStatefulRevision: ProtocolRevision = '2025-11-25';

/** The first stateless revision; this one and every later one are stateless. */
export const firstStatelessRevision: ProtocolRevision = '2026-07-28';

const supportedSet: ReadonlySet<string> = new Set(supportedRevisions);

/** True when `value` names a revision Switchboard implements. */
export function isSupportedRevision(value: unknown): value is ProtocolRevision {
  return typeof value === 'string' && supportedSet.has(value);
}

/**
 * True for stateless revisions (2026-07-28 and later): no handshake, no session, per-request
 * `_meta`, `resultType` on every result, MRTR instead of server-to-client requests.
 *
 * @see https://modelcontextprotocol.io/specification/2026-07-28/basic
 */
export function isStateless(revision: ProtocolRevision): boolean {
  // ISO dates compare correctly as strings.
  return revision >= firstStatelessRevision;
}

/**
 * True when JSON-RPC batches are part of the revision (2025-03-26 only: implementations MUST
 * accept them; removed in 2025-06-18).
 *
 * @see https://modelcontextprotocol.io/specification/2025-03-26/basic#batching
 */
export function allowsBatch(revision: ProtocolRevision): boolean {
  return revision === '2025-03-26';
}

/**
 * Compares two revisions by date: negative when `a` is older than `b`, 0 when equal.
 */
export function compareRevisions(a: ProtocolRevision, b: ProtocolRevision): number {
  return a < b ? -1 : a > b ? 1 : 0;
}
