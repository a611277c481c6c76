/**
 * Request headers the Streamable HTTP client derives from the messages it carries: the
 * 2026-07-28 standard headers (`MCP-Protocol-Version`, `Mcp-Method`, `Mcp-Name`) and the
 * `Mcp-Param-{Name}` headers mirrored from `x-mcp-header` tool parameters, which it learns by
 * watching `tools/list` results go by.
 *
 * @see https://modelcontextprotocol.io/specification/2026-07-28/basic/transports/streamable-http
 * @module
 */
import { mcpNameSource } from '../mcpName.js';
import type { JsonRpcMessage, Params } from '../../../jsonrpc/messages.js';
import { META_PROTOCOL_VERSION } from '../../../protocol/meta.js';
import { encodeHeaderValue, extractMcpHeaders, MCP_PARAM_HEADER_PREFIX, valueAtPath, type McpParamHeader } from '../../../protocol/xMcpHeader.js';
import type { Logger } from '../../../util/logger.js';

/** Header names, lower-cased once (fetch treats names case-insensitively). */
export const H = Object.freeze({
  accept: 'accept',
  contentType: 'content-type',
  authorization: 'authorization',
  protocolVersion: 'mcp-protocol-version',
  sessionId: 'mcp-session-id',
  method: 'mcp-method',
  name: 'mcp-name',
  lastEventId: 'last-event-id',
});

/** A plain header map, as `fetch` takes it. */
export type HeaderMap = Record<string, string>;

function isObject(value: unknown): value is Record<string, unknown> {
  return typeof value === 'object' && value !== null && !Array.isArray(value);
}

/**
 * The revision a message names in `params._meta["io.modelcontextprotocol/protocolVersion"]`
 * (2026-07-28 and later), or undefined for messages of the stateful eras.
 */
export function metaProtocolVersion(message: JsonRpcMessage): string | undefined {
  if (!('method' in message)) return undefined;
  const meta = message.params?.['_meta'];
  if (!isObject(meta)) return undefined;
  const version = meta[META_PROTOCOL_VERSION];
  return typeof version === 'string' ? version : undefined;
}


/**
 * True for a session id a client may echo: visible ASCII 0x21–0x7E, non-empty.
 *
 * @see https://modelcontextprotocol.io/specification/2025-11-25/basic/transports#session-management
 */
export function isValidSessionId(value: string): boolean {
  if (value.length === 0) return false;
  for (let i = 0; i < value.length; i++) {
    const c = value.charCodeAt(i);
    if (c < 0x21 || c > 0x7e) return false;
  }
  return true;
}

/**
 * Encodes a string for `Mcp-Name` / `Mcp-Param-*`. Like {@link encodeHeaderValue}, but an
 * HTAB anywhere also takes the Base64 form: the value stays exact through proxies that fold
 * whitespace, and the conformance suite expects it.
 */
export function encodeHeaderString(value: string): string {
  if (value.indexOf('\t') < 0) return encodeHeaderValue(value) as string;
  const bytes = new TextEncoder().encode(value);
  let binary = '';
  for (let i = 0; i < bytes.length; i++) binary += String.fromCharCode(bytes[i] ?? 0);
  return `=?base64?${btoa(binary)}?=`;
}

/** Encodes one mirrored value by its schema type; undefined means "no header". */
function encodeParam(value: unknown, type: McpParamHeader['type']): string | undefined {
  switch (type) {
    case 'string':
      return typeof value === 'string' ? encodeHeaderString(value) : undefined;
    case 'integer':
      return typeof value === 'number' && Number.isSafeInteger(value) ? String(value) : undefined;
    case 'boolean':
      return typeof value === 'boolean' ? (value ? 'true' : 'false') : undefined;
    default:
      return undefined;
  }
}

/** One mirrored parameter, with its (lower-cased) header name computed once. */
export interface MirroredParam {
  /** `mcp-param-{name}`, lower-cased. */
  readonly header: string;
  /** Where the value sits in `arguments`. */
  readonly path: readonly string[];
  /** Its schema type. */
  readonly type: McpParamHeader['type'];
}

const PARAM_PREFIX = MCP_PARAM_HEADER_PREFIX.toLowerCase();

/**
 * The `x-mcp-header` parameters of each tool, learned from `tools/list` results. Tools whose
 * annotations break the rules are not cached (and are logged): the client layer must drop
 * them from what it surfaces, so they are never called.
 */
export class ToolHeaderCache {
  readonly #tools = new Map<string, readonly MirroredParam[]>();
  readonly #logger: Logger;

  constructor(logger: Logger) {
    this.#logger = logger;
  }

  /** How many tools have header parameters. */
  get size(): number {
    return this.#tools.size;
  }

  /** The header parameters of `tool`, or undefined when it has none (or is unknown). */
  get(tool: string): readonly MirroredParam[] | undefined {
    return this.#tools.get(tool);
  }

  /**
   * Records one `tools/list` result page. `firstPage` (a list without `cursor`) replaces the
   * whole cache; later pages add to it.
   */
  observe(result: Record<string, unknown>, firstPage: boolean): void {
    if (firstPage) this.#tools.clear();
    const tools = result['tools'];
    if (!Array.isArray(tools)) return;
    for (const tool of tools) {
      if (!isObject(tool) || typeof tool['name'] !== 'string') continue;
      const name = tool['name'];
      const scan = extractMcpHeaders(tool['inputSchema']);
      if (scan.problems.length > 0) {
        this.#tools.delete(name);
        this.#logger.warn('tool has invalid x-mcp-header annotations; it must not be called', { tool: name, problems: scan.problems });
      } else if (scan.headers.length === 0) {
        this.#tools.delete(name);
      } else {
        this.#tools.set(
          name,
          scan.headers.map((h) => ({ header: PARAM_PREFIX + h.name.toLowerCase(), path: h.path, type: h.type })),
        );
      }
    }
  }

  /**
   * Adds `Mcp-Param-{Name}` to `headers` for every header parameter of the called tool whose
   * value in `params.arguments` is present and not null.
   */
  addParamHeaders(params: Params, headers: HeaderMap): void {
    const name = params['name'];
    if (typeof name !== 'string') return;
    const specs = this.#tools.get(name);
    if (specs === undefined) return;
    const args = params['arguments'];
    for (const spec of specs) {
      const value = encodeParam(valueAtPath(args, spec.path), spec.type);
      if (value !== undefined) headers[spec.header] = value;
    }
  }
}

/**
 * Adds the 2026-07-28 standard headers for `message` to `headers`: `MCP-Protocol-Version`,
 * `Mcp-Method`, `Mcp-Name` (when the method has one) and, for `tools/call`, `Mcp-Param-*`.
 */
export function addModernHeaders(message: JsonRpcMessage, version: string, headers: HeaderMap, tools: ToolHeaderCache): void {
  headers[H.protocolVersion] = version;
  if (!('method' in message)) return;
  const method = message.method;
  headers[H.method] = method;
  const params = message.params;
  if (params === undefined) return;
  const source = mcpNameSource(method);
  if (source !== undefined) {
    const raw = params[source];
    if (typeof raw === 'string') headers[H.name] = encodeHeaderString(raw);
  }
  if (method === 'tools/call' && tools.size > 0) tools.addParamHeaders(params, headers);
}
