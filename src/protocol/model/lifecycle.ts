/**
 * Session setup: the legacy `initialize` handshake and the 2026-07-28 `server/discover`.
 *
 * @see https://modelcontextprotocol.io/specification/2025-11-25/basic/lifecycle
 * @see https://modelcontextprotocol.io/specification/2026-07-28/server/discover
 * @module
 */

import { array, extend, optional, string, type Infer } from '../../util/schema.js';
import { CacheableResult, Implementation, RequestParams, Result } from './common.js';
import { ClientCapabilities, ServerCapabilities } from './capabilities.js';

/** `initialize` params (legacy). */
export const InitializeParams = extend(RequestParams, {
  protocolVersion: string(),
  capabilities: ClientCapabilities,
  clientInfo: Implementation,
});
/** @see {@link InitializeParams} */
export type InitializeParams = Infer<typeof InitializeParams>;

/** `initialize` result (legacy). */
export const InitializeResult = extend(Result, {
  protocolVersion: string(),
  capabilities: ServerCapabilities,
  serverInfo: Implementation,
  instructions: optional(string()),
});
/** @see {@link InitializeResult} */
export type InitializeResult = Infer<typeof InitializeResult>;

/** `server/discover` params: only `_meta`. */
export const DiscoverParams = RequestParams;

/** `server/discover` result (cacheable). */
export const DiscoverResult = extend(CacheableResult, {
  supportedVersions: array(string()),
  capabilities: ServerCapabilities,
  instructions: optional(string()),
});
/** @see {@link DiscoverResult} */
export type DiscoverResult = Infer<typeof DiscoverResult>;
