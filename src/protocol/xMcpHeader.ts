/**
 * `x-mcp-header` (2026-07-28 Streamable HTTP): tool parameters mirrored into `Mcp-Param-{Name}`
 * headers, and the value encoding shared with `Mcp-Name`.
 *
 * A property schema in a tool's `inputSchema` may carry `"x-mcp-header": "Name"`. The name must
 * be a non-empty RFC 9110 token, unique case-insensitively within the schema; the property
 * must be `string`, `integer` or `boolean` and reachable from the root through `properties`
 * only (no `items`, combinators, conditionals or `$ref`). HTTP clients must drop tools that
 * break these rules.
 *
 * @see https://modelcontextprotocol.io/specification/2026-07-28/basic/transports/streamable-http
 * @module
 */

/** The schema annotation key. */
export const X_MCP_HEADER = 'x-mcp-header';
/** The header-name prefix for mirrored parameters. */
export const MCP_PARAM_HEADER_PREFIX = 'Mcp-Param-';

/** A JSON type a mirrored parameter may have. */
export type McpHeaderType = 'string' | 'integer' | 'boolean';

/** One mirrored parameter: header `Mcp-Param-{name}`, body value at `arguments.{path}`. */
export interface McpParamHeader {
  readonly name: string;
  readonly path: readonly string[];
  readonly type: McpHeaderType;
}

/** The outcome of {@link extractMcpHeaders}. */
export interface McpHeaderScan {
  readonly headers: McpParamHeader[];
  readonly problems: string[];
}

const TOKEN = /^[!#$%&'*+.^_`|~0-9A-Za-z-]+$/;
const ALLOWED_TYPES: ReadonlySet<string> = new Set(['string', 'integer', 'boolean']);

/** Keywords whose subschemas are not reachable through a pure `properties` chain. */
const SUBSCHEMA_KEYWORDS = [
  'items',
  'prefixItems',
  'additionalItems',
  'contains',
  'additionalProperties',
  'patternProperties',
  'unevaluatedProperties',
  'unevaluatedItems',
  'propertyNames',
  'dependentSchemas',
  'oneOf',
  'anyOf',
  'allOf',
  'not',
  'if',
  'then',
  'else',
  '$defs',
  'definitions',
] as const;

function isObject(v: unknown): v is Record<string, unknown> {
  return typeof v === 'object' && v !== null && !Array.isArray(v);
}

function pathLabel(path: readonly string[]): string {
  return path.length === 0 ? '(root)' : path.join('.');
}

/**
 * Finds every `x-mcp-header` annotation in a tool's `inputSchema` and checks the rules. A tool
 * with any problem must be dropped by HTTP clients (and should be logged with the reason).
 */
export function extractMcpHeaders(inputSchema: unknown): McpHeaderScan {
  const headers: McpParamHeader[] = [];
  const problems: string[] = [];
  const seen = new Map<string, string>();

  const visitUnreachable = (node: unknown, where: string, depth: number): void => {
    if (depth > 64) return;
    if (Array.isArray(node)) {
      node.forEach((n, i) => visitUnreachable(n, `${where}[${i}]`, depth + 1));
      return;
    }
    if (!isObject(node)) return;
    if (X_MCP_HEADER in node) problems.push(`${where}: x-mcp-header is not reachable through a pure "properties" chain`);
    for (const [key, child] of Object.entries(node)) {
      if (key === 'enum' || key === 'const' || key === 'default' || key === 'examples') continue;
      visitUnreachable(child, `${where}.${key}`, depth + 1);
    }
  };

  const visit = (node: unknown, path: string[], depth: number): void => {
    if (!isObject(node) || depth > 64) return;
    if (path.length > 0 && X_MCP_HEADER in node) {
      if ('$ref' in node) problems.push(`${pathLabel(path)}: x-mcp-header must not be on a $ref schema`);
      else checkAnnotated(node, path);
    }
    const props = node['properties'];
    if (isObject(props)) for (const [key, child] of Object.entries(props)) visit(child, [...path, key], depth + 1);
    for (const keyword of SUBSCHEMA_KEYWORDS) {
      if (keyword in node) visitUnreachable(node[keyword], `${pathLabel(path)}.${keyword}`, depth + 1);
    }
  };

  const checkAnnotated = (node: Record<string, unknown>, path: string[]): void => {
    const raw = node[X_MCP_HEADER];
    const where = pathLabel(path);
    if (typeof raw !== 'string' || raw.length === 0) {
      problems.push(`${where}: x-mcp-header must be a non-empty string`);
      return;
    }
    if (!TOKEN.test(raw)) {
      problems.push(`${where}: x-mcp-header ${JSON.stringify(raw)} is not a valid HTTP token`);
      return;
    }
    const type = node['type'];
    if (typeof type !== 'string' || !ALLOWED_TYPES.has(type)) {
      problems.push(`${where}: x-mcp-header is only allowed on string, integer or boolean properties (got ${JSON.stringify(type ?? null)})`);
      return;
    }
    const folded = raw.toLowerCase();
    const previous = seen.get(folded);
    if (previous !== undefined) {
      problems.push(`${where}: x-mcp-header ${JSON.stringify(raw)} duplicates the one at ${previous} (names are case-insensitive)`);
      return;
    }
    seen.set(folded, where);
    headers.push({ name: raw, path, type: type as McpHeaderType });
  };

  if (!isObject(inputSchema)) return { headers, problems: ['inputSchema must be an object'] };
  if (X_MCP_HEADER in inputSchema) problems.push('(root): x-mcp-header is not allowed on the root schema');
  visit(inputSchema, [], 0);
  return { headers, problems };
}

const SENTINEL_PREFIX = '=?base64?';
const SENTINEL_SUFFIX = '?=';
const BASE64 = /^[A-Za-z0-9+/]*={0,2}$/;

/**
 * True when `value` can travel as a header value unencoded: only visible ASCII, space and
 * HTAB, and no leading or trailing whitespace.
 */
export function isHeaderSafe(value: string): boolean {
  for (let i = 0; i < value.length; i++) {
    const c = value.charCodeAt(i);
    if (c !== 0x09 && (c < 0x20 || c > 0x7e)) return false;
  }
  if (value.length === 0) return true;
  const first = value.charCodeAt(0);
  const last = value.charCodeAt(value.length - 1);
  return first !== 0x20 && first !== 0x09 && last !== 0x20 && last !== 0x09;
}

function looksEncoded(value: string): boolean {
  return value.length >= SENTINEL_PREFIX.length + SENTINEL_SUFFIX.length && value.startsWith(SENTINEL_PREFIX) && value.endsWith(SENTINEL_SUFFIX);
}

function toBase64(text: string): string {
  const bytes = new TextEncoder().encode(text);
  let binary = '';
  for (let i = 0; i < bytes.length; i++) binary += String.fromCharCode(bytes[i] ?? 0);
  return btoa(binary);
}

function fromBase64(b64: string): string | undefined {
  if (b64.length % 4 !== 0 || !BASE64.test(b64)) return undefined;
  try {
    const binary = atob(b64);
    const bytes = new Uint8Array(binary.length);
    for (let i = 0; i < binary.length; i++) bytes[i] = binary.charCodeAt(i);
    return new TextDecoder('utf-8', { fatal: true }).decode(bytes);
  } catch {
    return undefined;
  }
}

/**
 * Encodes a parameter (or `Mcp-Name`) value for a header; `undefined` means "omit the
 * header" (null or absent value). Strings that are not header-safe, or that look like the
 * sentinel, become `=?base64?{base64(UTF-8)}?=`; integers become decimal (must be safe
 * integers, within ±(2^53−1)); booleans become `true`/`false`.
 */
export function encodeHeaderValue(value: string | number | boolean | null | undefined): string | undefined {
  if (value === null || value === undefined) return undefined;
  if (typeof value === 'boolean') return value ? 'true' : 'false';
  if (typeof value === 'number') {
    if (!Number.isSafeInteger(value)) throw new RangeError(`header value must be an integer within ±(2^53-1), got ${value}`);
    return String(value);
  }
  if (isHeaderSafe(value) && !looksEncoded(value)) return value;
  return `${SENTINEL_PREFIX}${toBase64(value)}${SENTINEL_SUFFIX}`;
}

/**
 * Decodes a received header value: sentinel-wrapped values are Base64-decoded (markers are
 * case-sensitive); anything else is returned as-is. `undefined` when the value is malformed
 * (bad Base64, invalid UTF-8, or characters not allowed in a header), which servers answer
 * with -32020.
 */
export function decodeHeaderValue(raw: string): string | undefined {
  if (looksEncoded(raw)) return fromBase64(raw.slice(SENTINEL_PREFIX.length, raw.length - SENTINEL_SUFFIX.length));
  for (let i = 0; i < raw.length; i++) {
    const c = raw.charCodeAt(i);
    if (c !== 0x09 && (c < 0x20 || c > 0x7e)) return undefined;
  }
  return raw;
}

/**
 * True when a received header value matches the body value: decodes first, compares integers
 * numerically (`42` matches `42.0`), booleans as `true`/`false`, strings exactly. A null or
 * absent body value never matches a present header.
 */
export function headerValueMatches(raw: string, bodyValue: unknown, type: McpHeaderType | 'name'): boolean {
  const decoded = decodeHeaderValue(raw);
  if (decoded === undefined || bodyValue === null || bodyValue === undefined) return false;
  switch (type) {
    case 'integer': {
      if (typeof bodyValue !== 'number' || decoded.trim() === '') return false;
      const n = Number(decoded);
      return Number.isFinite(n) && n === bodyValue;
    }
    case 'boolean':
      return typeof bodyValue === 'boolean' && decoded === (bodyValue ? 'true' : 'false');
    default:
      return typeof bodyValue === 'string' && decoded === bodyValue;
  }
}

/** Reads the body value a header mirrors: `args` walked along `path`; undefined when absent. */
export function valueAtPath(args: unknown, path: readonly string[]): unknown {
  let node = args;
  for (const key of path) {
    if (!isObject(node)) return undefined;
    node = node[key];
  }
  return node;
}
