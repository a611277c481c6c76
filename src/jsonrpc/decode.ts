/**
 * The strict JSON-RPC 2.0 decoder. It turns one frame of bytes or text into a typed message
 * (or a batch, where allowed) or into the exact JSON-RPC error to answer with, and never
 * throws. Size and nesting depth are checked before `JSON.parse` allocates anything.
 *
 * @see https://www.jsonrpc.org/specification
 * @module
 */
import { JsonRpcError } from './errors.js';
import { isRequestId, type JsonRpcMessage, type RequestId } from './messages.js';

/** Limits applied to every decoded frame. */
export interface DecodeLimits {
  /** Largest frame in bytes (UTF-8). Default 4 MiB. */
  readonly maxBytes?: number;
  /** Deepest nesting of arrays and objects. Default 64. */
  readonly maxDepth?: number;
  /** Accept a JSON array of messages (revision 2025-03-26 only). Default false. */
  readonly allowBatch?: boolean;
  /** Largest batch. Default 1,000. */
  readonly maxBatchLength?: number;
}

/** The defaults for {@link DecodeLimits}. */
export const defaultDecodeLimits = Object.freeze({
  maxBytes: 4 * 1024 * 1024,
  maxDepth: 64,
  allowBatch: false,
  maxBatchLength: 1000,
});

/**
 * One decoded item: a valid message, or an error to answer. `id` is the request id when it
 * could be read (so the error response can echo it), `null` otherwise. `isResponse` tells a
 * malformed response (which is never answered) from a malformed request.
 */
export type DecodedItem =
  | { readonly ok: true; readonly message: JsonRpcMessage }
  | { readonly ok: false; readonly error: JsonRpcError; readonly id: RequestId | null; readonly isResponse: boolean };

/** The result of decoding one frame: a single item, or a batch of items. */
export type DecodeResult =
  | DecodedItem
  | { readonly ok: true; readonly batch: readonly DecodedItem[] };

const utf8 = new TextDecoder('utf-8', { fatal: true });

/**
 * Depth of the deepest array/object nesting in `text`, stopping as soon as `limit` is
 * exceeded. Strings are skipped, escapes included. Linear, no allocation.
 */
export function nestingDepthExceeds(text: string, limit: number): boolean {
  // The depth is at most the number of `{` and `[` in the whole text (strings included): when
  // that count is within the limit, the answer is no without walking the text character by
  // character. Counting stops past the limit, so a frame with many brackets costs at most
  // `limit + 2` searches more before the walk gives the exact answer.
  if (openersAtMost(text, limit)) return false;
  let depth = 0;
  const n = text.length;
  for (let i = 0; i < n; i++) {
    const c = text.charCodeAt(i);
    if (c === 0x22 /* " */) {
      // Skip the string: jump to the next quote (indexOf is vectorised, most JSON text is in
      // strings); it closes the string unless an odd run of backslashes escapes it.
      const open = i;
      for (;;) {
        i = text.indexOf('"', i + 1);
        if (i < 0) return false; // unterminated: the rest is string content
        let k = i - 1;
        while (k > open && text.charCodeAt(k) === 0x5c /* \ */) k--;
        if (((i - 1 - k) & 1) === 0) break;
      }
    } else if (c === 0x7b /* { */ || c === 0x5b /* [ */) {
      if (++depth > limit) return true;
    } else if (c === 0x7d /* } */ || c === 0x5d /* ] */) {
      depth--;
    }
  }
  return false;
}

/** True when `text` holds at most `limit` `{` and `[` together (found by `indexOf`, which is vectorised). */
function openersAtMost(text: string, limit: number): boolean {
  let count = 0;
  for (let i = text.indexOf('{'); i >= 0; i = text.indexOf('{', i + 1)) if (++count > limit) return false;
  for (let i = text.indexOf('['); i >= 0; i = text.indexOf('[', i + 1)) if (++count > limit) return false;
  return true;
}

function byteLength(text: string): number {
  let bytes = 0;
  for (let i = 0; i < text.length; i++) {
    const c = text.charCodeAt(i);
    // A surrogate pair is 4 bytes; a lone surrogate becomes U+FFFD, 3 bytes (like TextEncoder).
    if (c >= 0xd800 && c <= 0xdbff && i + 1 < text.length) {
      const d = text.charCodeAt(i + 1);
      if (d >= 0xdc00 && d <= 0xdfff) {
        bytes += 4;
        i++;
        continue;
      }
    }
    bytes += c < 0x80 ? 1 : c < 0x800 ? 2 : 3;
  }
  return bytes;
}

function isObject(value: unknown): value is Record<string, unknown> {
  return typeof value === 'object' && value !== null && !Array.isArray(value);
}

function readableId(value: Record<string, unknown>): RequestId | null {
  return isRequestId(value['id']) ? value['id'] : null;
}

/** Classifies one parsed JSON value as a JSON-RPC message, or the error it deserves. */
export function classify(value: unknown): DecodedItem {
  if (!isObject(value)) {
    return { ok: false, error: JsonRpcError.invalidRequest('a message must be a JSON object'), id: null, isResponse: false };
  }
  const hasMethod = 'method' in value;
  const isResponse = !hasMethod && ('result' in value || 'error' in value);
  const id = readableId(value);
  const bad = (detail: string, code: 'request' | 'params' = 'request'): DecodedItem => ({
    ok: false,
    error: code === 'params' ? JsonRpcError.invalidParams(detail) : JsonRpcError.invalidRequest(detail),
    id,
    isResponse,
  });
  if (value['jsonrpc'] !== '2.0') return bad('"jsonrpc" must be exactly "2.0"');

  if (hasMethod) {
    const method = value['method'];
    if (typeof method !== 'string' || method.length === 0) return bad('"method" must be a non-empty string');
    if ('result' in value || 'error' in value) return bad('a request must not carry "result" or "error"');
    if ('params' in value) {
      const params = value['params'];
      if (Array.isArray(params)) return bad('"params" must be an object (MCP uses named parameters)', 'params');
      if (!isObject(params)) return bad('"params" must be an object');
    }
    if ('id' in value) {
      const raw = value['id'];
      if (raw === null) return bad('"id" must not be null');
      if (!isRequestId(raw)) return bad('"id" must be a string or an integer');
    }
    return { ok: true, message: value as unknown as JsonRpcMessage };
  }

  if ('result' in value && 'error' in value) return bad('a response must not carry both "result" and "error"');
  if ('result' in value) {
    if (!isRequestId(value['id'])) return bad('a result response needs a string or integer "id"');
    if (!isObject(value['result'])) return bad('"result" must be an object');
    return { ok: true, message: value as unknown as JsonRpcMessage };
  }
  if ('error' in value) {
    const rawId = value['id'];
    if (rawId !== null && !isRequestId(rawId)) return bad('an error response needs a string, integer or null "id"');
    const err = value['error'];
    if (!isObject(err) || typeof err['code'] !== 'number' || !Number.isInteger(err['code']) || typeof err['message'] !== 'string') {
      return bad('"error" must be an object with an integer "code" and a string "message"');
    }
    return { ok: true, message: value as unknown as JsonRpcMessage };
  }
  return bad('a message needs "method" (request or notification) or "result"/"error" (response)');
}

/**
 * Decodes one frame. Bytes are checked for size and decoded as strict UTF-8; text is checked
 * for size and nesting depth, then parsed and classified.
 */
export function decodeFrame(frame: string | Uint8Array, limits: DecodeLimits = defaultDecodeLimits): DecodeResult {
  const maxBytes = limits.maxBytes ?? defaultDecodeLimits.maxBytes;
  const maxDepth = limits.maxDepth ?? defaultDecodeLimits.maxDepth;
  let text: string;
  if (typeof frame === 'string') {
    // A code unit is at least one byte; only count exactly when it could matter.
    if (frame.length > maxBytes || (frame.length * 3 > maxBytes && byteLength(frame) > maxBytes)) {
      return tooLarge(maxBytes);
    }
    text = frame;
  } else {
    if (frame.byteLength > maxBytes) return tooLarge(maxBytes);
    try {
      text = utf8.decode(frame);
    } catch {
      return { ok: false, error: JsonRpcError.parseError('the message is not valid UTF-8'), id: null, isResponse: false };
    }
  }
  if (nestingDepthExceeds(text, maxDepth)) {
    return {
      ok: false,
      error: JsonRpcError.invalidRequest(`nesting deeper than ${maxDepth} levels`, { limit: maxDepth }),
      id: null,
      isResponse: false,
    };
  }
  let value: unknown;
  try {
    value = JSON.parse(text);
  } catch (e) {
    return { ok: false, error: JsonRpcError.parseError(e instanceof Error ? e.message : 'invalid JSON'), id: null, isResponse: false };
  }
  if (Array.isArray(value)) {
    if (limits.allowBatch !== true) {
      return { ok: false, error: JsonRpcError.invalidRequest('batches are not supported by this protocol revision'), id: null, isResponse: false };
    }
    if (value.length === 0) return { ok: false, error: JsonRpcError.invalidRequest('an empty batch'), id: null, isResponse: false };
    const maxBatch = limits.maxBatchLength ?? defaultDecodeLimits.maxBatchLength;
    if (value.length > maxBatch) {
      return { ok: false, error: JsonRpcError.invalidRequest(`a batch of more than ${maxBatch} messages`, { limit: maxBatch }), id: null, isResponse: false };
    }
    return { ok: true, batch: value.map(classify) };
  }
  return classify(value);
}

function tooLarge(limit: number): DecodedItem {
  return {
    ok: false,
    error: JsonRpcError.invalidRequest(`the message is larger than ${limit} bytes`, { limit }),
    id: null,
    isResponse: false,
  };
}

/** True when a decode result is a batch. */
export function isBatchResult(result: DecodeResult): result is { readonly ok: true; readonly batch: readonly DecodedItem[] } {
  return 'batch' in result;
}
