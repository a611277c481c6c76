/**
 * The heads of the HTTP/1.1 pool's exchanges (`http1Pool.ts`): writing a request head with validated header
 * names (tokens) and values (no CR, LF, NUL or other control character: header injection is
 * refused before anything is written, with the `TypeError` `http.request` throws for the same),
 * and reading the parts of an answer's head the pool parses in place (status line,
 * `Keep-Alive` timeout).
 *
 * @see https://www.rfc-editor.org/rfc/rfc9112#section-3
 * @module
 */

/** One request, as the pool sends it. */
export interface Http1Request {
  /** `https:`: the connection is TLS (certificates checked as `tls.connect` does, with the pool's `tls` options). */
  readonly secure?: boolean;
  readonly host: string;
  readonly port: number;
  /** The `Host` header (host and non-default port). */
  readonly authority: string;
  readonly method: string;
  /** Path and query. */
  readonly path: string;
  /** Lower-case names. */
  readonly headers: Readonly<Record<string, string>>;
  readonly body: string | Uint8Array | undefined;
}

/** A header name: an RFC 9110 token. */
export const TOKEN = /^[!#$%&'*+\-.^_`|~0-9A-Za-z]+$/;
/** What a header value may not hold (Node's own check: control characters but tab, and DEL). */
const INVALID_VALUE = /[^\t\x20-\x7e\x80-\xff]/;
const KEEP_ALIVE_TIMEOUT = /timeout=(\d+)/i;

/** A protocol failure of the server's answer. */
export function protocolError(message: string): Error {
  return new Error(`Invalid HTTP answer: ${message}`);
}

/**
 * The status code of the status line `text.slice(0, eol)` (`HTTP/1.0` or `HTTP/1.1`, a space,
 * three digits, then the end or a space and a reason without CR or LF), or -1 when it is
 * malformed. Read in place: no match array nor substrings per answer.
 */
export function statusCode(text: string, eol: number): number {
  if (eol < 12 || !text.startsWith('HTTP/1.') || text.charCodeAt(8) !== 0x20) return -1;
  const minor = text.charCodeAt(7);
  if (minor !== 0x30 && minor !== 0x31) return -1;
  let code = 0;
  for (let i = 9; i < 12; i++) {
    const digit = text.charCodeAt(i) - 0x30;
    if (digit < 0 || digit > 9) return -1;
    code = code * 10 + digit;
  }
  if (eol === 12) return code;
  if (text.charCodeAt(12) !== 0x20) return -1;
  for (let i = 13; i < eol; i++) {
    const c = text.charCodeAt(i);
    if (c === 0x0d || c === 0x0a) return -1;
  }
  return code;
}

/** The last `Keep-Alive` value read and its timeout: a server sends the same one on every answer. */
let keepAliveSeen = '';
let keepAliveSeenMs: number | undefined;

/** The `timeout=` of a `Keep-Alive` value, in ms (undefined without one). */
export function keepAliveTimeoutMs(value: string): number | undefined {
  if (value !== keepAliveSeen) {
    const match = KEEP_ALIVE_TIMEOUT.exec(value);
    keepAliveSeen = value;
    keepAliveSeenMs = match === null ? undefined : Number(match[1]) * 1000;
  }
  return keepAliveSeenMs;
}

/** What `String.prototype.trim` removes, within Latin-1 (how heads are decoded): tab, LF, VT, FF, CR, space, NBSP. */
export function isTrimmed(c: number): boolean {
  return (c >= 0x09 && c <= 0x0d) || c === 0x20 || c === 0xa0;
}

/**
 * Checked `name: value` lines of the headers an MCP client repeats on every POST (a few
 * values each), by name then value: a hit costs no check and no string. Bounded (cleared when
 * full); other headers (credentials, `Mcp-Param-*` values) are checked and built each time.
 */
const headerLines = new Map<string, Map<string, string>>();
const REPEATED_HEADERS = new Set(['accept', 'content-type', 'mcp-protocol-version', 'mcp-method', 'mcp-name', 'mcp-session-id']);
const MAX_HEADER_LINES = 512;
let headerLineCount = 0;

/** `name: value` and CRLF; throws the `TypeError` `http.request` throws for an invalid header. */
function headerLine(name: string, value: string): string {
  const known = headerLines.get(name)?.get(value);
  if (known !== undefined) return known;
  if (!TOKEN.test(name)) throw new TypeError(`Header name must be a valid HTTP token ["${name}"]`);
  if (INVALID_VALUE.test(value)) throw new TypeError(`Invalid character in header content ["${name}"]`);
  const line = `${name}: ${value}\r\n`;
  if (REPEATED_HEADERS.has(name)) {
    if (headerLineCount >= MAX_HEADER_LINES) {
      headerLines.clear();
      headerLineCount = 0;
    }
    let values = headerLines.get(name);
    if (values === undefined) headerLines.set(name, (values = new Map()));
    values.set(value, line);
    headerLineCount++;
  }
  return line;
}

/** The request head; throws the `TypeError` `http.request` throws for an invalid header. */
export function requestHead(request: Http1Request, length: number | undefined): string {
  let head = `${request.method} ${request.path} HTTP/1.1\r\n`;
  if (request.headers['host'] === undefined) head += `host: ${request.authority}\r\n`;
  for (const name in request.headers) head += headerLine(name, request.headers[name] as string);
  if (length !== undefined && request.headers['content-length'] === undefined) head += `content-length: ${length}\r\n`;
  return head + '\r\n';
}
