/**
 * Era negotiation. A dual-era client probes with `server/discover` carrying its preferred
 * modern version:
 *
 * - a `DiscoverResult` ⇒ stateless era, at the best version both sides support;
 * - a recognized modern error (-32022 with `data.supported` ⇒ retry with a supported modern
 *   version; -32020, -32021) ⇒ stay stateless, never fall back;
 * - anything else (-32601, other JSON-RPC errors, HTTP 400/404/405 without a modern body,
 *   an invalid answer, or no answer within the probe timeout) ⇒ stateful era: `initialize`
 *   offering the newest stateful version, then `notifications/initialized`.
 *
 * -32601 counts as modern only together with HTTP 404, which a client above the transport
 * cannot see, so it is treated as legacy here.
 *
 * @see https://modelcontextprotocol.io/specification/2026-07-28/basic/transports/stdio
 * @see https://modelcontextprotocol.io/specification/2025-11-25/basic/lifecycle
 * @module
 */
import { ErrorCode, JsonRpcError } from '../jsonrpc/errors.js';
import type { Params } from '../jsonrpc/messages.js';
import { decodeResult } from '../protocol/codec.js';
import { META_SERVER_INFO } from '../protocol/meta.js';
import type { ClientCapabilities } from '../protocol/model/capabilities.js';
import type { Implementation } from '../protocol/model/common.js';
import { firstStatelessRevision, isStateless, isSupportedRevision, type ProtocolRevision } from '../protocol/revisions.js';
import { McpError, McpErrorCode } from '../util/errors.js';
import type { Logger } from '../util/logger.js';
import type { Era, ServerDescription } from './types.js';

/** What negotiation needs from the client. */
export interface NegotiationDeps {
  /** Sends a request stamped for `revision` (2026 `_meta` on stateless revisions). */
  send(revision: ProtocolRevision, method: string, params: Params, options: { signal?: AbortSignal; timeoutMs?: number }): Promise<Record<string, unknown>>;
  /** Sends a notification. */
  notify(method: string, params?: Params): Promise<void>;
  /** Revisions the client speaks, preferred first. */
  readonly versions: readonly ProtocolRevision[];
  /** A forced era, or undefined to probe. */
  readonly era: Era | undefined;
  readonly probeTimeoutMs: number;
  readonly clientInfo: Implementation;
  readonly capabilities: ClientCapabilities;
  readonly logger: Logger;
  readonly signal: AbortSignal | undefined;
}

/** The codes that prove the peer speaks the stateless era. */
const MODERN_CODES: ReadonlySet<number> = new Set([ErrorCode.HeaderMismatch, ErrorCode.MissingRequiredClientCapability, ErrorCode.UnsupportedProtocolVersion]);

/** The first `McpError` with `code` in a failure's cause chain (a failed send wraps the transport's), if any. */
export function mcpErrorIn(error: unknown, code: string): McpError | undefined {
  let node: unknown = error;
  for (let depth = 0; depth < 4 && node instanceof Error; depth++) {
    if (node instanceof McpError && node.code === code) return node;
    node = node.cause;
  }
  return undefined;
}

/** The HTTP status behind a failed send (`ERR_MCP_HTTP_STATUS` anywhere in the cause chain). */
export function httpStatusOf(error: unknown): number | undefined {
  const status = (mcpErrorIn(error, McpErrorCode.HttpStatus)?.cause as { status?: unknown } | undefined)?.status;
  return typeof status === 'number' ? status : undefined;
}

/** The first of `preferred` that `offered` lists and that is stateless. */
function bestModern(preferred: readonly ProtocolRevision[], offered: unknown): ProtocolRevision | undefined {
  if (!Array.isArray(offered)) return undefined;
  return preferred.find((v) => isStateless(v) && offered.includes(v));
}

function describeDiscover(revision: ProtocolRevision, result: Record<string, unknown>): ServerDescription {
  const meta = result['_meta'] as Record<string, unknown> | undefined;
  const info = meta?.[META_SERVER_INFO];
  const instructions = result['instructions'];
  return {
    era: 'stateless',
    protocolVersion: revision,
    serverInfo: typeof info === 'object' && info !== null ? (info as Implementation) : undefined,
    serverCapabilities: result['capabilities'] as Record<string, unknown>,
    instructions: typeof instructions === 'string' ? instructions : undefined,
    supportedVersions: (result['supportedVersions'] as string[]).slice(),
  };
}

type ProbeOutcome = { readonly kind: 'modern'; readonly description: ServerDescription } | { readonly kind: 'legacy'; readonly why: string };

/** Sends `server/discover` at `revision` and classifies the answer. At most one -32022 retry. */
async function probe(deps: NegotiationDeps, revision: ProtocolRevision, retried: boolean, forced: boolean): Promise<ProbeOutcome> {
  let raw: Record<string, unknown>;
  try {
    raw = await deps.send(revision, 'server/discover', {}, { timeoutMs: deps.probeTimeoutMs, ...(deps.signal ? { signal: deps.signal } : {}) });
  } catch (error) {
    if (error instanceof JsonRpcError) {
      if (error.code === ErrorCode.UnsupportedProtocolVersion) {
        const supported = (error.data as { supported?: unknown } | undefined)?.supported;
        const next = bestModern(deps.versions, supported);
        if (next !== undefined && !retried) return probe(deps, next, true, forced);
        // A list without any stateless version (e.g. a dual-era server configured stateful-only)
        // leaves the handshake as the only way in.
        const offered: unknown[] = Array.isArray(supported) ? supported : [];
        if (!forced && next === undefined && !offered.some((v) => typeof v === 'string' && v >= firstStatelessRevision)) {
          return { kind: 'legacy', why: 'the server lists no stateless version' };
        }
        throw new McpError(McpErrorCode.UnsupportedVersion, `The server supports none of our protocol versions (it offers ${JSON.stringify(supported ?? [])})`, { cause: error });
      }
      if (MODERN_CODES.has(error.code) || forced) {
        deps.logger.warn('server/discover failed; staying on the stateless era', { code: error.code, message: error.message });
        return { kind: 'modern', description: { era: 'stateless', protocolVersion: revision, serverInfo: undefined, serverCapabilities: undefined, instructions: undefined } };
      }
      return { kind: 'legacy', why: `server/discover answered ${error.code}` };
    }
    if (error instanceof McpError) {
      if (error.code === McpErrorCode.RequestCancelled || error.code === McpErrorCode.ConnectionClosed) throw error;
      if (forced) throw error;
      if (error.code === McpErrorCode.RequestTimeout) return { kind: 'legacy', why: 'server/discover timed out' };
      if (error.code === McpErrorCode.InvalidResponse) return { kind: 'legacy', why: 'server/discover got an invalid answer' };
      const status = httpStatusOf(error);
      if (status === 400 || status === 404 || status === 405) return { kind: 'legacy', why: `server/discover got HTTP ${status}` };
    }
    throw error;
  }
  const decoded = decodeResult(revision, 'server/discover', raw);
  if (!decoded.ok) {
    if (forced) throw decoded.error;
    return { kind: 'legacy', why: `server/discover got an invalid answer (${decoded.error.message})` };
  }
  const description = describeDiscover(revision, decoded.value);
  const best = bestModern(deps.versions, description.supportedVersions);
  if (best === undefined) {
    const legacyOk = deps.versions.some((v) => !isStateless(v) && description.supportedVersions?.includes(v) === true);
    if (legacyOk && !forced) return { kind: 'legacy', why: 'the server lists only stateful versions we support' };
    throw new McpError(McpErrorCode.UnsupportedVersion, 'The server supports none of our stateless protocol versions', { cause: raw });
  }
  return { kind: 'modern', description: { ...description, protocolVersion: best } };
}

/** The `initialize` handshake (stateful era). */
async function initialize(deps: NegotiationDeps): Promise<ServerDescription> {
  const offered = deps.versions.find((v) => !isStateless(v));
  if (offered === undefined) throw new McpError(McpErrorCode.UnsupportedVersion, 'The server is not a stateless one, and no stateful version is enabled');
  const raw = await deps.send(
    offered,
    'initialize',
    { protocolVersion: offered, capabilities: deps.capabilities, clientInfo: deps.clientInfo },
    deps.signal ? { signal: deps.signal } : {},
  );
  const answered = raw['protocolVersion'];
  if (!isSupportedRevision(answered) || isStateless(answered) || !deps.versions.includes(answered)) {
    throw new McpError(McpErrorCode.UnsupportedVersion, `The server answered initialize with protocol version ${JSON.stringify(answered)}, which this client does not speak`, {
      cause: raw,
    });
  }
  const decoded = decodeResult(answered, 'initialize', raw);
  if (!decoded.ok) throw decoded.error;
  await deps.notify('notifications/initialized');
  const instructions = raw['instructions'];
  return {
    era: 'stateful',
    protocolVersion: answered,
    serverInfo: raw['serverInfo'] as Implementation,
    serverCapabilities: raw['capabilities'] as Record<string, unknown>,
    instructions: typeof instructions === 'string' ? instructions : undefined,
  };
}

/** Negotiates the era and version with the server. */
export async function negotiate(deps: NegotiationDeps): Promise<ServerDescription> {
  const modern = deps.versions.find((v) => isStateless(v));
  if (deps.era === 'stateful' || modern === undefined) {
    if (deps.era === 'stateless') throw new McpError(McpErrorCode.InvalidArgument, 'era "stateless" needs a stateless version in `versions`');
    return initialize(deps);
  }
  const outcome = await probe(deps, modern, false, deps.era === 'stateless');
  if (outcome.kind === 'modern') return outcome.description;
  deps.logger.info('falling back to the stateful era', { reason: outcome.why });
  return initialize(deps);
}
