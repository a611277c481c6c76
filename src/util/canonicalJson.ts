/**
 * RFC 8785 JSON Canonicalization Scheme (JCS): one byte sequence per JSON value, so that a
 * digest or a signature over a value does not depend on key order, whitespace or number
 * spelling.
 *
 * - Object members are sorted by their names as arrays of UTF-16 code units (RFC 8785
 *   section 3.2.3), which is what `Array.prototype.sort` does on strings.
 * - Numbers use the ECMAScript `Number.prototype.toString` form (section 3.2.2.3), which is
 *   what `JSON.stringify` emits; NaN and the infinities are not JSON and are refused.
 * - Strings use the `JSON.stringify` escapes (section 3.2.2.2); a lone surrogate is not
 *   I-JSON (RFC 7493) and is refused.
 * - `undefined` members are omitted (as `JSON.stringify` omits them); `undefined`, functions,
 *   symbols and bigints elsewhere are refused, as are cycles.
 *
 * @see https://www.rfc-editor.org/rfc/rfc8785
 * @module
 */
import { McpError, McpErrorCode } from './errors.js';

const LONE_SURROGATE = /[\uD800-\uDBFF](?![\uDC00-\uDFFF])|(?<![\uD800-\uDBFF])[\uDC00-\uDFFF]/;

/**
 * The RFC 8785 canonical form of `value`. Throws `ERR_MCP_INVALID_ARGUMENT` (naming the JSON
 * path) for a value that is not I-JSON: a non-finite number, a lone surrogate, a cycle, or a
 * non-JSON type.
 * For example `{ "b": 1, "a": [1e21] }` becomes `{"a":[1e+21],"b":1}`.
 */
export function canonicalize(value: unknown): string {
  const text = fast(value, []);
  if (text !== undefined) return text;
  // Not I-JSON: walk again, tracking the path, for the error that names it.
  const parts: string[] = [];
  write(value, '$', parts, new Set());
  return parts.join('');
}

/** Whether `text` holds no lone surrogate (`String.prototype.isWellFormed`, ES2024, where present). */
const wellFormed: (text: string) => boolean =
  typeof (String.prototype as { isWellFormed?: unknown }).isWellFormed === 'function'
    ? (text) => (text as string & { isWellFormed(): boolean }).isWellFormed()
    : (text) => !LONE_SURROGATE.test(text);

/** The RFC 8785 text of a string (its `JSON.stringify` form), or undefined when it holds a lone surrogate (not I-JSON). */
export function canonicalString(text: string): string | undefined {
  return wellFormed(text) ? JSON.stringify(text) : undefined;
}

/**
 * The canonical text on the hot path (audit records, argument digests): one string built by
 * concatenation, no path strings, the open containers on a stack. Undefined when `value` is
 * not I-JSON ({@link write} then finds the path for the error).
 */
function fast(value: unknown, open: object[]): string | undefined {
  switch (typeof value) {
    case 'string':
      return wellFormed(value) ? JSON.stringify(value) : undefined;
    case 'number':
      return Number.isFinite(value) ? JSON.stringify(value) : undefined;
    case 'boolean':
      return value ? 'true' : 'false';
    case 'object':
      break;
    default:
      return undefined;
  }
  if (value === null) return 'null';
  if (open.includes(value)) return undefined;
  open.push(value);
  let out: string;
  if (Array.isArray(value)) {
    out = '[';
    for (let i = 0; i < value.length; i++) {
      const item = fast(value[i], open);
      if (item === undefined) return undefined;
      out += i > 0 ? `,${item}` : item;
    }
    out += ']';
  } else {
    const record = value as Record<string, unknown>;
    const keys = Object.keys(record);
    // Sorting allocates even for one name (most argument objects and decisions have few).
    if (keys.length > 1) keys.sort();
    out = '{';
    let first = true;
    for (const key of keys) {
      const member = record[key];
      if (member === undefined) continue;
      const text = fast(member, open);
      if (text === undefined || !wellFormed(key)) return undefined;
      out += `${first ? '' : ','}${JSON.stringify(key)}:${text}`;
      first = false;
    }
    out += '}';
  }
  open.pop();
  return out;
}

function fail(path: string, detail: string): never {
  throw new McpError(McpErrorCode.InvalidArgument, `Cannot canonicalize ${path}: ${detail}`);
}

function writeString(text: string, path: string, parts: string[]): void {
  if (LONE_SURROGATE.test(text)) fail(path, 'a string holds a lone surrogate (not I-JSON, RFC 7493)');
  parts.push(JSON.stringify(text));
}

function write(value: unknown, path: string, parts: string[], open: Set<object>): void {
  switch (typeof value) {
    case 'string':
      return writeString(value, path, parts);
    case 'number':
      if (!Number.isFinite(value)) fail(path, `${String(value)} is not a JSON number`);
      parts.push(JSON.stringify(value));
      return;
    case 'boolean':
      parts.push(value ? 'true' : 'false');
      return;
    case 'object':
      break;
    default:
      fail(path, `a ${typeof value} is not JSON`);
  }
  if (value === null) {
    parts.push('null');
    return;
  }
  if (open.has(value)) fail(path, 'the value contains a cycle');
  open.add(value);
  if (Array.isArray(value)) {
    parts.push('[');
    value.forEach((item: unknown, i) => {
      if (i > 0) parts.push(',');
      write(item, `${path}[${i}]`, parts, open);
    });
    parts.push(']');
  } else {
    const record = value as Record<string, unknown>;
    const keys = Object.keys(record)
      .filter((k) => record[k] !== undefined)
      .sort();
    parts.push('{');
    keys.forEach((key, i) => {
      if (i > 0) parts.push(',');
      writeString(key, `${path} (a member name)`, parts);
      parts.push(':');
      write(record[key], `${path}.${key}`, parts, open);
    });
    parts.push('}');
  }
  open.delete(value);
}
