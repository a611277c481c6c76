/**
 * Header values mirrored from the JSON-RPC body (`Mcp-Name`, `Mcp-Param-{Name}`): the
 * header-safe check and the Base64 sentinel form `=?base64?{Base64(UTF-8)}?=`.
 *
 * This is the server-side half the HTTP transport needs. It is runtime-neutral (`atob`,
 * `btoa`, `TextEncoder`/`TextDecoder`); the protocol layer may own a shared copy later.
 *
 * @see https://modelcontextprotocol.io/specification/2026-07-28/basic/transports/streamable-http#value-encoding
 * @module
 */

/** The exact, lowercase sentinel prefix. */
export const SENTINEL_PREFIX = '=?base64?';
/** The exact sentinel suffix. */
export const SENTINEL_SUFFIX = '?=';

const BASE64 = /^(?:[A-Za-z0-9+/]{4})*(?:[A-Za-z0-9+/]{2}==|[A-Za-z0-9+/]{3}=)?$/;
const strictUtf8 = new TextDecoder('utf-8', { fatal: true, ignoreBOM: true });
const utf8Encoder = new TextEncoder();

/**
 * True when every character is allowed in an HTTP field value (RFC 9110 section 5.5:
 * visible ASCII 0x21-0x7E, space, horizontal tab). Empty is allowed.
 */
export function hasOnlyFieldValueChars(value: string): boolean {
  for (let i = 0; i < value.length; i++) {
    const c = value.charCodeAt(i);
    if ((c < 0x20 && c !== 0x09) || c > 0x7e) return false;
  }
  return true;
}

/**
 * True when `value` can be sent as a plain header value: field-value characters only, no
 * leading or trailing whitespace, and not itself shaped like the sentinel.
 */
export function isPlainHeaderValue(value: string): boolean {
  if (!hasOnlyFieldValueChars(value)) return false;
  if (value.length > 0) {
    const first = value.charCodeAt(0);
    const last = value.charCodeAt(value.length - 1);
    if (first === 0x20 || first === 0x09 || last === 0x20 || last === 0x09) return false;
  }
  return !isSentinel(value);
}

/** True when `value` is in the sentinel form (prefix and suffix, exact case). */
export function isSentinel(value: string): boolean {
  return value.length >= SENTINEL_PREFIX.length + SENTINEL_SUFFIX.length && value.startsWith(SENTINEL_PREFIX) && value.endsWith(SENTINEL_SUFFIX);
}

/** Encodes a string for a header: as-is when plain, otherwise in the sentinel form. */
export function encodeHeaderValue(value: string): string {
  if (isPlainHeaderValue(value)) return value;
  const bytes = utf8Encoder.encode(value);
  let binary = '';
  for (let i = 0; i < bytes.length; i++) binary += String.fromCharCode(bytes[i] as number);
  return SENTINEL_PREFIX + btoa(binary) + SENTINEL_SUFFIX;
}

/** The result of {@link decodeHeaderValue}: the decoded text, or why it is malformed. */
export type DecodedHeaderValue = { readonly ok: true; readonly value: string } | { readonly ok: false; readonly reason: string };

/**
 * Decodes a received header value. The value must already be trimmed of optional
 * whitespace (HTTP parsers do that). A plain value must hold field-value characters only; a
 * sentinel value must hold canonical Base64 of valid UTF-8.
 */
export function decodeHeaderValue(raw: string): DecodedHeaderValue {
  if (!hasOnlyFieldValueChars(raw)) return { ok: false, reason: 'contains characters not allowed in a header value' };
  if (!isSentinel(raw)) return { ok: true, value: raw };
  const b64 = raw.slice(SENTINEL_PREFIX.length, raw.length - SENTINEL_SUFFIX.length);
  if (!BASE64.test(b64)) return { ok: false, reason: 'has a malformed Base64 sentinel value' };
  const binary = atob(b64);
  const bytes = new Uint8Array(binary.length);
  for (let i = 0; i < binary.length; i++) bytes[i] = binary.charCodeAt(i);
  try {
    return { ok: true, value: strictUtf8.decode(bytes) };
  } catch {
    return { ok: false, reason: 'has a Base64 sentinel value that is not valid UTF-8' };
  }
}

/** Trims HTTP optional whitespace (space, tab) from both ends, without allocating when none. */
export function trimOws(value: string): string {
  const n = value.length;
  if (n === 0) return value;
  const a = value.charCodeAt(0);
  const b = value.charCodeAt(n - 1);
  if (a !== 0x20 && a !== 0x09 && b !== 0x20 && b !== 0x09) return value;
  let start = 0;
  let end = n;
  while (start < end && (value.charCodeAt(start) === 0x20 || value.charCodeAt(start) === 0x09)) start++;
  while (end > start && (value.charCodeAt(end - 1) === 0x20 || value.charCodeAt(end - 1) === 0x09)) end--;
  return value.slice(start, end);
}
