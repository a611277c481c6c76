/**
 * JSON Canonicalization Scheme (RFC 8785): one byte-exact text per JSON value, so that equal
 * values hash equally whatever key order or number spelling they arrived with.
 *
 * - Object members are sorted by their names' UTF-16 code units; no whitespace.
 * - Numbers are written as ECMAScript writes them (`JSON.stringify`: `1e+21`, `0.1`, `-0` as `0`).
 * - Strings are written as `JSON.stringify` writes them (the escapes RFC 8785 section 3.2.2.2
 *   prescribes).
 * - Object members whose value is `undefined` are left out, as `JSON.stringify` leaves them out.
 * - Anything else JSON cannot hold is refused with a `TypeError` instead of being dropped or
 *   changed: `NaN` and infinities, `undefined` in an array or alone, functions, symbols,
 *   bigints, lone surrogates (RFC 8785 section 3.2.2.2 requires valid Unicode), and cycles.
 *
 * @see https://www.rfc-editor.org/rfc/rfc8785
 * @module
 */

const LONE_SURROGATE = /[\uD800-\uDBFF](?![\uDC00-\uDFFF])|(?<![\uD800-\uDBFF])[\uDC00-\uDFFF]/;

/**
 * The RFC 8785 canonical text of `value`.
 *
 * @throws TypeError for values JSON cannot represent (see the module comment).
 */
export function canonicalJson(value: unknown): string {
  return write(value, new Set());
}

function write(value: unknown, seen: Set<object>): string {
  switch (typeof value) {
    case 'string':
      if (LONE_SURROGATE.test(value)) throw new TypeError('canonical JSON: a string holds a lone surrogate (not valid Unicode)');
      return JSON.stringify(value);
    case 'number':
      if (!Number.isFinite(value)) throw new TypeError(`canonical JSON: ${String(value)} is not a JSON number`);
      return JSON.stringify(value);
    case 'boolean':
      return value ? 'true' : 'false';
    case 'object': {
      if (value === null) return 'null';
      if (seen.has(value)) throw new TypeError('canonical JSON: the value is cyclic');
      seen.add(value);
      let text: string;
      if (Array.isArray(value)) {
        text = `[${value.map((item: unknown) => write(item, seen)).join(',')}]`;
      } else {
        const record = value as Record<string, unknown>;
        const keys = Object.keys(record)
          .filter((k) => record[k] !== undefined)
          .sort();
        text = `{${keys.map((k) => `${write(k, seen)}:${write(record[k], seen)}`).join(',')}}`;
      }
      seen.delete(value);
      return text;
    }
    default:
      throw new TypeError(`canonical JSON: a ${typeof value} is not a JSON value`);
  }
}
