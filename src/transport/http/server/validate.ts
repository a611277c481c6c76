/**
 * The checks the Streamable HTTP server runs before dispatching: DNS-rebinding defence
 * (`Host`, `Origin`), media types (`Content-Type`, `Accept`), and the header/body agreement
 * of `MCP-Protocol-Version`, `Mcp-Method`, `Mcp-Name` and `Mcp-Param-{Name}`. Also the map
 * from JSON-RPC error codes to HTTP statuses.
 *
 * @see https://modelcontextprotocol.io/specification/2026-07-28/basic/transports/streamable-http#server-validation
 * @see https://modelcontextprotocol.io/specification/2026-07-28/basic/transports/streamable-http#security-%26-endpoint
 * @module
 */
import { mcpNameSource } from '../mcpName.js';
import { ErrorCode, JsonRpcError } from '../../../jsonrpc/errors.js';
import type { JsonRpcNotification, JsonRpcRequest } from '../../../jsonrpc/messages.js';
import { META_CLIENT_CAPABILITIES, META_PROTOCOL_VERSION } from '../../../protocol/meta.js';
import type { ToolHeaderParam } from '../../types.js';
import { decodeHeaderValue, hasOnlyFieldValueChars, trimOws } from '../headerValue.js';
import type { HeaderGetter } from './types.js';

// ---------------------------------------------------------------------------------------
// Host and Origin (DNS rebinding)

/** The host names allowed by default: loopback only, any port. */
export const localhostNames: readonly string[] = ['localhost', '127.0.0.1', '[::1]'];

/** A compiled allow-list of hosts: bare names match any port, `name:port` entries match exactly. */
export interface HostAllowList {
  readonly names: ReadonlySet<string>;
  readonly exact: ReadonlySet<string>;
}

/** Compiles host entries (`localhost`, `example.com:8443`, `[::1]`), case-insensitively. */
export function compileHostAllowList(entries: readonly string[]): HostAllowList {
  const names = new Set<string>();
  const exact = new Set<string>();
  for (const raw of entries) {
    const entry = raw.trim().toLowerCase();
    const split = splitHost(entry);
    if (split === undefined) continue;
    if (split.port === undefined) names.add(split.name);
    else exact.add(entry);
  }
  return { names, exact };
}

/** Splits `host[:port]` (with `[v6]` literals); undefined when malformed. */
export function splitHost(host: string): { name: string; port: string | undefined } | undefined {
  if (host.length === 0) return undefined;
  if (host.charCodeAt(0) === 0x5b /* [ */) {
    const close = host.indexOf(']');
    if (close < 0) return undefined;
    const name = host.slice(0, close + 1);
    const rest = host.slice(close + 1);
    if (rest === '') return { name, port: undefined };
    if (rest.charCodeAt(0) !== 0x3a || !/^[0-9]{1,5}$/.test(rest.slice(1))) return undefined;
    return { name, port: rest.slice(1) };
  }
  const colon = host.indexOf(':');
  if (colon < 0) return { name: host, port: undefined };
  const port = host.slice(colon + 1);
  if (!/^[0-9]{1,5}$/.test(port)) return undefined;
  return { name: host.slice(0, colon), port };
}

/** True when a `Host` header value (`name[:port]`) is on the allow-list. */
export function isAllowedHost(host: string, list: HostAllowList): boolean {
  const lower = host.toLowerCase();
  if (list.exact.has(lower)) return true;
  const split = splitHost(lower);
  return split !== undefined && list.names.has(split.name);
}

/** A compiled allow-list of origins. */
export interface OriginAllowList {
  /** Exact serialized origins (`https://app.example.com`), lowercase. */
  readonly exact: ReadonlySet<string>;
  /** Host names allowed with `http:`/`https:` and any port (the localhost default). */
  readonly hosts: ReadonlySet<string>;
}

/** Compiles origins; entries without a scheme (`localhost`) allow that host name with http(s) and any port. */
export function compileOriginAllowList(entries: readonly string[]): OriginAllowList {
  const exact = new Set<string>();
  const hosts = new Set<string>();
  for (const raw of entries) {
    const entry = raw.trim().toLowerCase();
    if (entry.includes('://')) exact.add(entry.endsWith('/') ? entry.slice(0, -1) : entry);
    else hosts.add(entry);
  }
  return { exact, hosts };
}

/** True when an `Origin` header value is allowed. `null` and malformed origins never are. */
export function isAllowedOrigin(origin: string, list: OriginAllowList): boolean {
  const lower = origin.toLowerCase();
  if (list.exact.has(lower)) return true;
  if (list.hosts.size === 0) return false;
  let rest: string;
  if (lower.startsWith('http://')) rest = lower.slice(7);
  else if (lower.startsWith('https://')) rest = lower.slice(8);
  else return false;
  const split = splitHost(rest);
  return split !== undefined && list.hosts.has(split.name);
}

/** Why a request is refused by the Host/Origin policy: its status and a one-line reason. */
export interface PolicyRefusal {
  readonly status: 400 | 403;
  readonly detail: string;
}

/**
 * The `Host` half of the one Host/Origin policy (DNS rebinding), shared by every route a
 * server answers: a request with more than one `Host` (adapters join repeated fields with
 * `, `; a host name never contains a comma) is 400, as RFC 9112 section 3.2 requires even
 * when any host is allowed; an unlisted host is 403. `list` undefined allows any host. A
 * request without `Host` passes (HTTP/1.0).
 *
 * @see https://www.rfc-editor.org/rfc/rfc9112#section-3.2
 */
export function hostRefusal(host: string | undefined, list: HostAllowList | undefined): PolicyRefusal | undefined {
  if (host === undefined) return undefined;
  if (host.includes(',')) return { status: 400, detail: 'the request has more than one Host header' };
  if (list !== undefined && !isAllowedHost(trimOws(host), list)) return { status: 403, detail: 'the Host header is not allowed' };
  return undefined;
}

/** The `Origin` half of the policy: a present `Origin` must be on `list` (undefined allows any). */
export function originRefusal(origin: string | undefined, list: OriginAllowList | undefined): PolicyRefusal | undefined {
  if (origin === undefined || list === undefined || isAllowedOrigin(trimOws(origin), list)) return undefined;
  return { status: 403, detail: 'the Origin header is not allowed' };
}

// ---------------------------------------------------------------------------------------
// Media types

/** True for `application/json`, parameters allowed, case-insensitive. */
export function isJsonContentType(value: string | undefined): boolean {
  if (value === undefined) return false;
  const semi = value.indexOf(';');
  const type = trimOws(semi < 0 ? value : value.slice(0, semi));
  return type.length === 16 && type.toLowerCase() === 'application/json';
}

/** True when an `Accept` header lets a `text/event-stream` answer through (`text/event-stream`, `text/*` or any type). */
export function acceptsSse(value: string | undefined): boolean {
  return value !== undefined && /(^|,)\s*(text\/event-stream|text\/\*|\*\/\*)\s*(;|,|$)/i.test(value);
}

/**
 * True when `Accept` lists both `application/json` and `text/event-stream` (wildcards
 * `*\/*`, `application/*` and `text/*` count). A missing header is not enough: clients MUST
 * list both.
 */
export function acceptsJsonAndSse(value: string | undefined): boolean {
  if (value === undefined) return false;
  // Fast path for the exact header every conforming client sends.
  if (value === 'application/json, text/event-stream' || value === 'text/event-stream, application/json') return true;
  let json = false;
  let sse = false;
  for (const part of value.split(',')) {
    const semi = part.indexOf(';');
    const type = trimOws(semi < 0 ? part : part.slice(0, semi)).toLowerCase();
    if (type === '*/*') return true;
    if (type === 'application/json' || type === 'application/*') json = true;
    else if (type === 'text/event-stream' || type === 'text/*') sse = true;
  }
  return json && sse;
}

// ---------------------------------------------------------------------------------------
// Header/body agreement

/** Builds the -32020 `HeaderMismatch` error with a one-sentence message naming the header. */
export function headerMismatch(detail: string, data?: unknown): JsonRpcError {
  return new JsonRpcError(ErrorCode.HeaderMismatch, `Header mismatch: ${detail}`, data);
}

function isRecord(value: unknown): value is Record<string, unknown> {
  return typeof value === 'object' && value !== null && !Array.isArray(value);
}

function readHeader(get: HeaderGetter, name: string): string | undefined {
  const raw = get(name);
  return raw === undefined ? undefined : trimOws(raw);
}

/**
 * Checks the standard headers against the body. Requests need `MCP-Protocol-Version` and
 * `Mcp-Method`, and `Mcp-Name` when the body carries its source value; notifications are only
 * checked for the headers they do carry (the revision defines no header rules for them).
 * Returns the -32020 error to answer with, or undefined.
 *
 * A missing `_meta` version is left to the dispatcher (-32602); an unsupported version that
 * matches the header is left to the dispatcher too (-32022).
 */
export function checkStandardHeaders(message: JsonRpcRequest | JsonRpcNotification, get: HeaderGetter, isRequest: boolean): JsonRpcError | undefined {
  const params = message.params;
  // MCP-Protocol-Version
  const version = readHeader(get, 'mcp-protocol-version');
  if (version === undefined) {
    if (isRequest) return headerMismatch('the MCP-Protocol-Version header is required');
  } else {
    if (!hasOnlyFieldValueChars(version)) return headerMismatch('the MCP-Protocol-Version header contains invalid characters');
    const meta = params?.['_meta'];
    if (isRecord(meta) && META_PROTOCOL_VERSION in meta) {
      const bodyVersion = meta[META_PROTOCOL_VERSION];
      if (bodyVersion !== version) {
        return headerMismatch(`the MCP-Protocol-Version header '${version}' does not match _meta["${META_PROTOCOL_VERSION}"]`, {
          header: 'MCP-Protocol-Version',
        });
      }
    }
  }
  // Mcp-Method
  const method = readHeader(get, 'mcp-method');
  if (method === undefined) {
    if (isRequest) return headerMismatch('the Mcp-Method header is required');
  } else if (method !== message.method) {
    if (!hasOnlyFieldValueChars(method)) return headerMismatch('the Mcp-Method header contains invalid characters');
    return headerMismatch(`the Mcp-Method header '${method}' does not match the body method '${message.method}'`, { header: 'Mcp-Method' });
  }
  // Mcp-Name
  const source = mcpNameSource(message.method);
  const nameHeader = readHeader(get, 'mcp-name');
  if (source === undefined) {
    // Not defined for this method; still refuse garbage.
    if (nameHeader !== undefined && !hasOnlyFieldValueChars(nameHeader)) return headerMismatch('the Mcp-Name header contains invalid characters');
    return undefined;
  }
  const bodyValue = params?.[source];
  if (nameHeader === undefined) {
    if (isRequest && bodyValue !== undefined && bodyValue !== null) return headerMismatch(`the Mcp-Name header is required for ${message.method}`);
    return undefined;
  }
  const decoded = decodeHeaderValue(nameHeader);
  if (!decoded.ok) return headerMismatch(`the Mcp-Name header ${decoded.reason}`, { header: 'Mcp-Name' });
  if (decoded.value !== bodyValue) {
    return headerMismatch(`the Mcp-Name header does not match params.${source}`, { header: 'Mcp-Name' });
  }
  return undefined;
}

/** Reads the value at `path` inside `args`; undefined when any step is missing. */
function valueAt(args: unknown, path: readonly string[]): unknown {
  let node = args;
  for (const key of path) {
    if (!isRecord(node) || !Object.hasOwn(node, key)) return undefined;
    node = node[key];
  }
  return node;
}

const DECIMAL = /^[+-]?(?:[0-9]+(?:\.[0-9]*)?|\.[0-9]+)(?:[eE][+-]?[0-9]+)?$/;

/**
 * Checks each `x-mcp-header` parameter of a `tools/call`: a non-null argument value needs
 * its `Mcp-Param-{Name}` header, and a header that is present must decode to the body value
 * (integers compared numerically, so `42.0` matches `42`; booleans as `true`/`false`).
 */
export function checkParamHeaders(args: unknown, params: readonly ToolHeaderParam[], get: HeaderGetter): JsonRpcError | undefined {
  for (const param of params) {
    const headerName = `Mcp-Param-${param.name}`;
    const raw = readHeader(get, `mcp-param-${param.name.toLowerCase()}`);
    const value = valueAt(args, param.path);
    const absent = value === undefined || value === null;
    if (raw === undefined) {
      if (absent) continue;
      return headerMismatch(`the ${headerName} header is required when the argument is present`, { header: headerName });
    }
    const decoded = decodeHeaderValue(raw);
    if (!decoded.ok) return headerMismatch(`the ${headerName} header ${decoded.reason}`, { header: headerName });
    if (absent) return headerMismatch(`the ${headerName} header is present but the argument is not`, { header: headerName });
    let matches: boolean;
    switch (param.type) {
      case 'integer':
        matches = typeof value === 'number' && DECIMAL.test(decoded.value) && Number(decoded.value) === value;
        break;
      case 'boolean':
        matches = typeof value === 'boolean' && decoded.value === (value ? 'true' : 'false');
        break;
      default:
        matches = typeof value === 'string' && decoded.value === value;
        break;
    }
    if (!matches) return headerMismatch(`the ${headerName} header does not match the argument value`, { header: headerName });
  }
  return undefined;
}

// ---------------------------------------------------------------------------------------
// Status map (the mapping itself is `httpStatusForError` in protocol/errors.ts)

/**
 * True when a request lacks a required `_meta` field (the object itself, the protocol
 * version or the client capabilities), so a -32602 answer to it maps to HTTP 400
 * (`httpStatusForError`'s `missingMeta`).
 */
export function lacksRequiredMeta(message: JsonRpcRequest): boolean {
  const meta = message.params?.['_meta'];
  return !isRecord(meta) || !(META_PROTOCOL_VERSION in meta) || !(META_CLIENT_CAPABILITIES in meta);
}
