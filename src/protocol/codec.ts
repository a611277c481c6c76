/**
 * The per-revision codec: decodes incoming params and results against the revision's
 * registry, and encodes neutral results for the wire (stamping `resultType` and caching
 * defaults on 2026-07-28, stripping 2026-only members on stateful revisions).
 *
 * This is the server hot path: validation never copies, and encoding allocates at most one
 * shallow copy, only when it has to change something.
 *
 * @see https://modelcontextprotocol.io/specification/2026-07-28/basic#result-types
 * @module
 */

import { JsonRpcError } from '../jsonrpc/errors.js';
import { McpError, McpErrorCode } from '../util/errors.js';
import { spreadCopy } from '../util/object.js';
import { formatIssues, validate, type Issue } from '../util/schema.js';
import { invalidParamsFromIssues, missingRequiredClientCapability } from './errors.js';
import { META_CLIENT_CAPABILITIES, META_CLIENT_INFO, META_LOG_LEVEL, META_PROTOCOL_VERSION } from './meta.js';
import type { MethodSpec } from './methodSpec.js';
import { lookupMethod, type ParamsOf } from './methods.js';
import { hasCapability, hasExtension, type ClientCapabilities, type ServerCapabilities } from './model/capabilities.js';
import type { Implementation, LoggingLevel, ResultType } from './model/common.js';
import { InputRequiredResult } from './model/mrtr.js';
import { ExtCreateTaskResult } from './model/tasks.js';
import { isStateless, type ProtocolRevision } from './revisions.js';

/** A decoded value with the spec it was decoded against, or a wire error. */
export type Decoded<T> =
  | { readonly ok: true; readonly value: T; readonly spec: MethodSpec }
  | { readonly ok: false; readonly error: JsonRpcError };

/** Options for {@link decodeRequestParams}. */
export interface DecodeParamsOptions {
  /** Who sent the message; a method not sendable by that side is -32601. Unset: not checked. */
  readonly from?: 'client' | 'server';
  /**
   * The receiving server's capabilities; a client request gated on an undeclared capability is
   * -32601. Unset: not checked.
   */
  readonly serverCapabilities?: ServerCapabilities;
  /**
   * Extensions the receiver implements (2026-07-28). Methods of other extensions are -32601.
   * Default: none, so extension methods are not found unless enabled.
   */
  readonly extensions?: ReadonlySet<string> | undefined;
}

const EMPTY_PARAMS: Readonly<Record<string, unknown>> = Object.freeze({});
const PARAMS_PATH = ['params'] as const;

function sendableBy(spec: MethodSpec, from: 'client' | 'server'): boolean {
  if (spec.direction === 'both') return true;
  return from === 'client' ? spec.direction === 'clientToServer' : spec.direction === 'serverToClient';
}

/**
 * Decodes the `params` of an incoming request or notification for `revision`.
 *
 * - -32601 when the revision has no such method (absence), the sender may not send it, the
 *   server did not declare its capability gate, or its extension is not enabled;
 * - -32602 naming the offending path (`params._meta["io.modelcontextprotocol/protocolVersion"]: is required`);
 * - -32021 when a 2026-07-28 extension request comes from a client that did not declare the
 *   extension in that request's capabilities.
 *
 * An absent `params` is checked (and returned) as a frozen empty object.
 */
export function decodeRequestParams(
  revision: ProtocolRevision,
  method: string,
  params: unknown,
  options: DecodeParamsOptions = {},
): Decoded<Record<string, unknown>> {
  const spec = lookupMethod(revision, method);
  if (
    spec === undefined ||
    (options.from !== undefined && !sendableBy(spec, options.from)) ||
    (spec.extension !== undefined && options.extensions?.has(spec.extension) !== true) ||
    (options.serverCapabilities !== undefined &&
      spec.serverCapability !== undefined &&
      options.from !== 'server' &&
      !hasCapability(options.serverCapabilities, spec.serverCapability))
  ) {
    return { ok: false, error: JsonRpcError.methodNotFound(method) };
  }
  const value = params === undefined ? EMPTY_PARAMS : params;
  const checked = validate(spec.params, value, { path: PARAMS_PATH });
  if (!checked.ok) return { ok: false, error: invalidParamsFromIssues(checked.issues, params) };
  const decoded = value as Record<string, unknown>;
  if (spec.extension !== undefined && spec.kind === 'request' && isStateless(revision)) {
    const meta = decoded['_meta'] as Record<string, unknown>;
    if (!hasExtension(meta[META_CLIENT_CAPABILITIES] as ClientCapabilities, spec.extension)) {
      return { ok: false, error: missingRequiredClientCapability({ extensions: { [spec.extension]: {} } }) };
    }
  }
  return { ok: true, value: decoded, spec };
}

/** {@link decodeRequestParams} typed by a method descriptor from `methods.ts`. */
export function decodeParamsFor<D extends { readonly method: string }>(
  revision: ProtocolRevision,
  descriptor: D,
  params: unknown,
  options?: DecodeParamsOptions,
): Decoded<ParamsOf<D>> {
  return decodeRequestParams(revision, descriptor.method, params, options) as Decoded<ParamsOf<D>>;
}

/** Options for {@link decodeResult}. */
export interface DecodeResultOptions {
  /**
   * The request advertised the tasks extension (`io.modelcontextprotocol/tasks`), so
   * `resultType: "task"` is acceptable for task-augmentable methods. Default false.
   */
  readonly tasksExtension?: boolean;
  /**
   * Reject 2026-07-28 results that omit `resultType` or the caching hints. Default false:
   * absent `resultType` ⇒ `complete`, absent/invalid `ttlMs` ⇒ 0 (see {@link effectiveTtlMs}).
   */
  readonly strict?: boolean;
}

/** A decoded result with its effective `resultType`, or a local error. */
export type DecodedResult =
  | { readonly ok: true; readonly value: Record<string, unknown>; readonly resultType: ResultType; readonly spec: MethodSpec }
  | { readonly ok: false; readonly error: McpError };

function invalidResult(message: string, cause: unknown): { ok: false; error: McpError } {
  return { ok: false, error: new McpError(McpErrorCode.InvalidResponse, message, { cause }) };
}

const RESULT_PATH = ['result'] as const;

function tolerable(issue: Issue, spec: MethodSpec, typeAbsent: boolean): boolean {
  if (issue.path.length !== 2) return false;
  const key = issue.path[1];
  if (key === 'resultType') return typeAbsent && issue.message === 'is required';
  return spec.cacheable === true && (key === 'ttlMs' || key === 'cacheScope');
}

/**
 * Decodes a result received for a request of `method` (client side).
 *
 * On 2026-07-28: an unrecognized `resultType` makes the response invalid; an absent one means
 * `complete`; `input_required` is accepted only for MRTR methods and `task` only for
 * task-augmentable methods when {@link DecodeResultOptions.tasksExtension} is set.
 * Failures are local {@link McpError}s (`ERR_MCP_INVALID_RESPONSE`) naming the path.
 */
export function decodeResult(
  revision: ProtocolRevision,
  method: string,
  result: unknown,
  options: DecodeResultOptions = {},
): DecodedResult {
  const spec = lookupMethod(revision, method);
  if (spec?.result === undefined) return invalidResult(`Invalid response: ${method} is not a request of revision ${revision}`, result);
  if (typeof result !== 'object' || result === null || Array.isArray(result)) {
    return invalidResult('Invalid response: result must be an object', result);
  }
  const value = result as Record<string, unknown>;
  let resultType: ResultType = 'complete';
  let schema = spec.result;
  if (isStateless(revision)) {
    const declared = value['resultType'];
    if (declared === 'input_required') {
      if (spec.mrtr !== true) return invalidResult(`Invalid response: resultType "input_required" is not allowed for ${method}`, result);
      resultType = declared;
      schema = InputRequiredResult;
    } else if (declared === 'task') {
      if (spec.taskAugmentable !== true || options.tasksExtension !== true) {
        return invalidResult(`Invalid response: resultType "task" is not allowed for ${method} here`, result);
      }
      resultType = declared;
      schema = ExtCreateTaskResult;
    } else if (declared !== undefined && declared !== 'complete') {
      return invalidResult(`Invalid response: unrecognized resultType ${JSON.stringify(declared)}`, result);
    }
    const checked = validate(schema, value, { path: RESULT_PATH });
    if (!checked.ok) {
      const typeAbsent = declared === undefined;
      const lenient = options.strict !== true && resultType === 'complete' && checked.issues.every((i) => tolerable(i, spec, typeAbsent));
      if (!lenient) return invalidResult(`Invalid response: ${formatIssues(checked.issues.slice(0, 1))}`, result);
    }
    return { ok: true, value, resultType, spec };
  }
  const checked = validate(schema, value, { path: RESULT_PATH });
  if (!checked.ok) return invalidResult(`Invalid response: ${formatIssues(checked.issues.slice(0, 1))}`, result);
  return { ok: true, value, resultType, spec };
}

/** A cacheable result's freshness lifetime as a client should use it: absent or negative ⇒ 0. */
export function effectiveTtlMs(result: { readonly ttlMs?: unknown }): number {
  const ttl = result.ttlMs;
  return typeof ttl === 'number' && Number.isFinite(ttl) && ttl > 0 ? Math.floor(ttl) : 0;
}

/**
 * Prepares a neutral result for the wire (server side).
 *
 * - 2026-07-28: stamps `resultType: "complete"` when absent, and gives complete results of
 *   cacheable methods the safe defaults `ttlMs: 0` / `cacheScope: "private"` when missing.
 * - Stateful revisions: strips `resultType`, `ttlMs` and `cacheScope`. A result whose
 *   `resultType` is not `complete` cannot be expressed there and throws
 *   `ERR_MCP_INVALID_ARGUMENT`.
 *
 * Returns `result` itself when nothing changes, else one shallow copy. Does not validate.
 */
export function encodeResult(revision: ProtocolRevision, method: string, result: object): Record<string, unknown> {
  const r = result as Record<string, unknown>;
  const type = r['resultType'];
  if (isStateless(revision)) {
    const cacheDefaults =
      (type === undefined || type === 'complete') &&
      (r['ttlMs'] === undefined || r['cacheScope'] === undefined) &&
      lookupMethod(revision, method)?.cacheable === true;
    if (type !== undefined && !cacheDefaults) return r;
    const out: Record<string, unknown> = spreadCopy(r); // not `{ ...r }`: members are added below (util/object.ts)
    if (type === undefined) out['resultType'] = 'complete';
    if (cacheDefaults) {
      out['ttlMs'] ??= 0;
      out['cacheScope'] ??= 'private';
    }
    return out;
  }
  if (type !== undefined && type !== 'complete') {
    throw new McpError(McpErrorCode.InvalidArgument, `resultType ${JSON.stringify(type)} cannot be sent on revision ${revision}`, {
      cause: result,
    });
  }
  if (type === undefined && r['ttlMs'] === undefined && r['cacheScope'] === undefined) return r;
  const { resultType: _t, ttlMs: _ttl, cacheScope: _scope, ...rest } = r;
  return rest;
}

/** The per-request identity a 2026-07-28 client stamps into `_meta`. */
export interface RequestMetaStamp {
  readonly clientCapabilities: ClientCapabilities;
  readonly clientInfo?: Implementation | undefined;
  readonly logLevel?: LoggingLevel | undefined;
}

/**
 * Prepares outgoing request params (client side). On 2026-07-28, returns a shallow copy whose
 * `_meta` carries the protocol version, client capabilities and optional identity/log level
 * (existing `_meta` members, e.g. `progressToken`, are kept). Stateful revisions return
 * `params` unchanged.
 */
export function encodeRequestParams(
  revision: ProtocolRevision,
  params: Readonly<Record<string, unknown>> | undefined,
  stamp: RequestMetaStamp,
): Record<string, unknown> | undefined {
  if (!isStateless(revision)) return params as Record<string, unknown> | undefined;
  // spreadCopy, not `{ ...x }`: members are added to both copies (util/object.ts).
  const meta = spreadCopy(params?.['_meta'] as Record<string, unknown> | undefined);
  meta[META_PROTOCOL_VERSION] = revision;
  meta[META_CLIENT_CAPABILITIES] = stamp.clientCapabilities;
  if (stamp.clientInfo !== undefined) meta[META_CLIENT_INFO] = stamp.clientInfo;
  if (stamp.logLevel !== undefined) meta[META_LOG_LEVEL] = stamp.logLevel;
  const out = spreadCopy(params);
  out['_meta'] = meta;
  return out;
}
