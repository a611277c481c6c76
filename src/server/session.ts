/**
 * Per-session protocol state for the stateful revisions (2025-03-26, 2025-06-18,
 * 2025-11-25): the negotiated version, the client's capabilities and identity, the log
 * level set with `logging/setLevel`, and resource subscriptions. One session per stdio
 * connection, or per `Mcp-Session-Id` on Streamable HTTP. The 2026-07-28 stateless path never
 * touches it.
 *
 * @see https://modelcontextprotocol.io/specification/2025-11-25/basic/lifecycle
 * @module
 */
import type { Params } from '../jsonrpc/messages.js';
import type { ClientCapabilities } from '../protocol/model/capabilities.js';
import { loggingLevels, type Implementation, type LoggingLevel } from '../protocol/model/common.js';
import { isSupportedRevision, type ProtocolRevision } from '../protocol/revisions.js';
import type { SessionPeer } from '../transport/types.js';

/** The state of one stateful session. Created by the transport through the server. */
export class ServerSession {
  /** The negotiated revision; undefined until `initialize` succeeds. */
  revision: ProtocolRevision | undefined;
  /** The client's declared capabilities. */
  clientCapabilities: ClientCapabilities = {};
  /** The client's self-description. */
  clientInfo: Implementation | undefined;
  /** True once `notifications/initialized` arrived. */
  initialized = false;
  /** Minimum level of log notifications (`logging/setLevel`); undefined = all. */
  logLevel: LoggingLevel | undefined;
  /** URIs the client subscribed to with `resources/subscribe`. */
  readonly subscriptions = new Set<string>();
  /** The session's way to the client. */
  readonly peer: SessionPeer;
  readonly #cleanups: (() => void)[] = [];
  #closed = false;

  constructor(peer: SessionPeer) {
    this.peer = peer;
  }

  /** True after {@link close}. */
  get closed(): boolean {
    return this.#closed;
  }

  /** Registers something to undo when the session ends (listeners). */
  onClose(cleanup: () => void): void {
    if (this.#closed) cleanup();
    else this.#cleanups.push(cleanup);
  }

  /** Sends an unsolicited notification, unless the session is closed. Never throws. */
  send(method: string, params?: Params): void {
    if (this.#closed) return;
    try {
      this.peer.notify(params === undefined ? { jsonrpc: '2.0', method } : { jsonrpc: '2.0', method, params });
    } catch {
      // a broken peer is the transport's business; the session just stops talking
    }
  }

  /** Ends the session and drops its listeners. Idempotent. */
  close(): void {
    if (this.#closed) return;
    this.#closed = true;
    for (const cleanup of this.#cleanups.splice(0)) cleanup();
  }
}

/**
 * The state of a session as JSON, for transports that share sessions between instances
 * (`McpDispatcher.exportSession`).
 */
export function exportServerSession(session: ServerSession): Record<string, unknown> {
  const state: Record<string, unknown> = { clientCapabilities: session.clientCapabilities, initialized: session.initialized };
  if (session.revision !== undefined) state['revision'] = session.revision;
  if (session.clientInfo !== undefined) state['clientInfo'] = session.clientInfo;
  if (session.logLevel !== undefined) state['logLevel'] = session.logLevel;
  if (session.subscriptions.size > 0) state['subscriptions'] = [...session.subscriptions];
  return state;
}

/**
 * Applies {@link exportServerSession}'s output (from another instance) to a session; members
 * of the wrong type are ignored, so a damaged record cannot put a session in an odd state.
 */
export function importServerSession(session: ServerSession, state: Record<string, unknown>): void {
  const { revision, clientCapabilities, clientInfo, initialized, logLevel, subscriptions } = state;
  if (typeof revision === 'string' && isSupportedRevision(revision)) session.revision = revision;
  if (isPlainObject(clientCapabilities)) session.clientCapabilities = clientCapabilities as ClientCapabilities;
  if (isPlainObject(clientInfo)) session.clientInfo = clientInfo as unknown as Implementation;
  if (typeof initialized === 'boolean') session.initialized = session.initialized || initialized;
  session.logLevel = typeof logLevel === 'string' && (loggingLevels as readonly string[]).includes(logLevel) ? (logLevel as LoggingLevel) : undefined;
  if (Array.isArray(subscriptions) || subscriptions === undefined) {
    session.subscriptions.clear();
    for (const uri of subscriptions ?? []) if (typeof uri === 'string') session.subscriptions.add(uri);
  }
}

function isPlainObject(value: unknown): value is Record<string, unknown> {
  return typeof value === 'object' && value !== null && !Array.isArray(value);
}
