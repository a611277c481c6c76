/**
 * Constructors for the JSON-RPC errors MCP defines, with the `data` shapes of the spec, and
 * the HTTP status each one maps to on Streamable HTTP (2026-07-28).
 *
 * @see https://modelcontextprotocol.io/specification/2026-07-28/basic#error-codes
 * @see https://modelcontextprotocol.io/specification/2026-07-28/basic/transports/streamable-http
 * @module
 */

import { ErrorCode, JsonRpcError, type JsonRpcErrorObject } from '../jsonrpc/errors.js';
import { formatPath, type Issue } from '../util/schema.js';
import type { ClientCapabilities } from './model/capabilities.js';
import { isStateless, type ProtocolRevision } from './revisions.js';

/**
 * -32020 `HeaderMismatch`: an HTTP header disagrees with the body, or a required header is
 * missing or malformed (HTTP 400).
 */
export function headerMismatch(detail: string, cause?: unknown): JsonRpcError {
  return new JsonRpcError(ErrorCode.HeaderMismatch, `Header mismatch: ${detail}`, undefined, { cause });
}

/**
 * -32021 `MissingRequiredClientCapability`: processing needs a client capability the request
 * did not declare (HTTP 400). `data.requiredCapabilities` names it.
 */
export function missingRequiredClientCapability(requiredCapabilities: ClientCapabilities): JsonRpcError {
  return new JsonRpcError(ErrorCode.MissingRequiredClientCapability, 'Missing required client capability', { requiredCapabilities });
}

/**
 * A received -32021 error made readable: its message names the capabilities that
 * `data.requiredCapabilities` lists (`The server needs the client capability elicitation
 * (declare it with a handler)`; "declare them" for several). Any other error is returned unchanged.
 */
export function explainMissingCapability(error: unknown): unknown {
  if (!(error instanceof JsonRpcError) || error.code !== ErrorCode.MissingRequiredClientCapability) return error;
  const required = (error.data as { requiredCapabilities?: unknown } | undefined)?.requiredCapabilities;
  if (typeof required !== 'object' || required === null) return error;
  const names = Object.entries(required).flatMap(([name, sub]) => {
    const inner = typeof sub === 'object' && sub !== null ? Object.keys(sub) : [];
    return inner.length > 0 ? inner.map((key) => `${name}.${key}`) : [name];
  });
  if (names.length === 0) return error;
  const what = names.length === 1 ? `the client capability ${names[0]}` : `the client capabilities ${names.join(', ')}`;
  return new JsonRpcError(error.code, `The server needs ${what} (declare ${names.length === 1 ? 'it' : 'them'} with a handler)`, error.data, { cause: error });
}

/** Options for {@link unsupportedProtocolVersion}. */
export interface UnsupportedProtocolVersionOptions {
  /**
   * Answer in the legacy form (-32602, used for `initialize` by stateful revisions) instead of
   * -32022. Default false.
   */
  readonly legacy?: boolean;
}

/**
 * -32022 `UnsupportedProtocolVersion` with `data: { supported, requested }` (HTTP 400). With
 * `legacy: true`, the same data under -32602, as stateful revisions answer `initialize`.
 */
export function unsupportedProtocolVersion(
  supported: readonly string[],
  requested: string,
  options: UnsupportedProtocolVersionOptions = {},
): JsonRpcError {
  const code = options.legacy === true ? ErrorCode.InvalidParams : ErrorCode.UnsupportedProtocolVersion;
  return new JsonRpcError(code, 'Unsupported protocol version', { supported: [...supported], requested });
}

/**
 * Resource not found: -32602 with `data.uri` on 2026-07-28; the retired -32002 (also with
 * `data.uri`) on stateful revisions.
 */
export function resourceNotFound(uri: string, revision: ProtocolRevision): JsonRpcError {
  const code = isStateless(revision) ? ErrorCode.InvalidParams : ErrorCode.LegacyResourceNotFound;
  return new JsonRpcError(code, 'Resource not found', { uri });
}

/** True when `error` means "resource not found" in any revision (-32002, or -32602 with `data.uri`). */
export function isResourceNotFound(error: JsonRpcErrorObject): boolean {
  if (error.code === ErrorCode.LegacyResourceNotFound) return true;
  return (
    error.code === ErrorCode.InvalidParams &&
    typeof error.data === 'object' &&
    error.data !== null &&
    typeof (error.data as { uri?: unknown }).uri === 'string'
  );
}

/** One issue as carried in `error.data.issues`. */
export interface WireIssue {
  readonly path: string;
  readonly message: string;
}

/**
 * -32602 from validation issues. The message names the first offending field path (e.g.
 * `Invalid params: params.arguments.name: expected string`); `data.issues` lists them all.
 * Pass issue paths rooted at `params` (validate with `{ path: ['params'] }`).
 */
export function invalidParamsFromIssues(issues: readonly Issue[], cause?: unknown): JsonRpcError {
  const wire: WireIssue[] = issues.map((i) => ({ path: formatPath(i.path), message: i.message }));
  const first = wire[0];
  const detail = first === undefined ? 'invalid value' : first.path === '' ? first.message : `${first.path}: ${first.message}`;
  return new JsonRpcError(ErrorCode.InvalidParams, `Invalid params: ${detail}`, { issues: wire }, { cause });
}

function touchesRequestMeta(data: unknown): boolean {
  if (typeof data !== 'object' || data === null) return false;
  const issues = (data as { issues?: unknown }).issues;
  if (!Array.isArray(issues)) return false;
  return issues.some((i: unknown) => {
    const path = (i as { path?: unknown } | null)?.path;
    return typeof path === 'string' && (path === 'params' || path.startsWith('params._meta'));
  });
}

/**
 * The HTTP status for a JSON-RPC error answer on Streamable HTTP (the one mapping the HTTP
 * server uses):
 *
 * - -32601 → 404 (MUST).
 * - -32020, -32021, -32022 → 400 (MUST); -32700 and -32600 (the body was not one valid request) → 400.
 * - -32602 → 400 when it is about the request `_meta` (missing or malformed required fields, or
 *   absent params), else 200. `missingMeta`, when given, decides (the HTTP server passes what it
 *   saw in the request); otherwise the error's `data.issues` do, so a bare code gives 200.
 * - Everything else (unknown tool, invalid cursor, internal errors …) → 200 with the error
 *   body. The spec pins no status for these; 200 matches the stateful revisions and keeps the
 *   era detection of dual-era clients (which reads 400/404 bodies) unambiguous.
 *
 * @see https://modelcontextprotocol.io/specification/2026-07-28/basic/transports/streamable-http#protocol-version-header
 */
export function httpStatusForError(error: number | JsonRpcErrorObject, missingMeta?: boolean): number {
  const code = typeof error === 'number' ? error : error.code;
  switch (code) {
    case ErrorCode.MethodNotFound:
      return 404;
    case ErrorCode.HeaderMismatch:
    case ErrorCode.MissingRequiredClientCapability:
    case ErrorCode.UnsupportedProtocolVersion:
    case ErrorCode.ParseError:
    case ErrorCode.InvalidRequest:
      return 400;
    case ErrorCode.InvalidParams:
      return (missingMeta ?? (typeof error !== 'number' && touchesRequestMeta(error.data))) ? 400 : 200;
    default:
      return 200;
  }
}
