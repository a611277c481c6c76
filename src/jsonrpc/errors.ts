/**
 * Wire errors: the JSON-RPC 2.0 error object and the codes MCP gives meaning to.
 *
 * @see https://www.jsonrpc.org/specification#error_object
 * @see https://modelcontextprotocol.io/specification/2026-07-28/basic
 * @module
 */

/** The JSON-RPC 2.0 and MCP error codes, by name. */
export const ErrorCode = {
  /** Invalid JSON was received. */
  ParseError: -32700,
  /** The JSON sent is not a valid JSON-RPC request object. */
  InvalidRequest: -32600,
  /** The method does not exist or is not available (also: capability not advertised). */
  MethodNotFound: -32601,
  /** Invalid method parameters (also MCP: missing `_meta`, unknown tool, resource not found). */
  InvalidParams: -32602,
  /** Internal JSON-RPC error. */
  InternalError: -32603,
  /** MCP 2026-07-28: an HTTP header disagrees with the body, or is missing or malformed. */
  HeaderMismatch: -32020,
  /** MCP 2026-07-28: the request needs a client capability it did not declare. */
  MissingRequiredClientCapability: -32021,
  /** MCP 2026-07-28: the requested protocol version is unknown or not served. */
  UnsupportedProtocolVersion: -32022,
  /** MCP 2025-11-25 and earlier only: resource not found (retired in 2026-07-28). */
  LegacyResourceNotFound: -32002,
  /** MCP 2025-11-25 only: URL elicitation required (retired in 2026-07-28). */
  LegacyUrlElicitationRequired: -32042,
  /**
   * 2025-11-25 stateful HTTP and the 2024-11-05 HTTP+SSE transport: the request names a session
   * this server does not know (never issued, expired, terminated, or a server restart). Sent
   * with HTTP 404, on which the client starts a new session. The spec fixes the 404, not a code;
   * -32001 with "Session not found" is the official SDKs' body, and clients look for it, so the
   * value stays. It shares -32001 with {@link ErrorCode.RequestTimeout}; the HTTP 404 tells them
   * apart.
   *
   * @see https://modelcontextprotocol.io/specification/2025-11-25/basic/transports#session-management
   * @see https://modelcontextprotocol.io/specification/2026-07-28/basic#error-codes (-32000 to -32019: legacy, implementation-defined)
   */
  SessionNotFound: -32001,
  /**
   * 2025-11-25 stateful HTTP: the client did not answer a server-to-client request (elicitation,
   * sampling, roots) in time. A local error: the server's handler gets it (and the client is
   * sent `notifications/cancelled`); it reaches the wire only when a handler lets it through.
   * -32001 is the official SDK's `ErrorCode.RequestTimeout` (v1), so an SDK user reads it as one.
   *
   * @see https://modelcontextprotocol.io/specification/2026-07-28/basic#error-codes (local errors have no spec code)
   */
  RequestTimeout: -32001,
  /**
   * 2025-11-25 stateful HTTP: the session closed or ended while a server-to-client request was
   * waiting for the client's answer. A local error, like {@link ErrorCode.RequestTimeout}; -32000
   * is the official SDK's `ErrorCode.ConnectionClosed` (v1).
   *
   * @see https://modelcontextprotocol.io/specification/2026-07-28/basic#error-codes
   */
  ConnectionClosed: -32000,
  /**
   * 2025-11-25 stateful HTTP: the server cannot take the request now (the session limit is
   * reached, or the shared session store cannot be reached). Sent with HTTP 503 and
   * `Retry-After`; `data` or the message says which, and when to retry.
   *
   * @see https://modelcontextprotocol.io/specification/2026-07-28/basic#error-codes (-32000 to -32019: legacy, implementation-defined)
   */
  ServiceUnavailable: -32000,
  /**
   * Switchboard's gateway: an interceptor of the host's chain (trust, policy, consent, guard)
   * refused the request. `data.interceptor` names it and the message gives its reason. Neither
   * a timeout nor a missing session, so it has its own code; the spec asks codes for purposes it
   * does not define to be allocated outside the JSON-RPC reserved range (-32768 to -32000).
   *
   * @see https://modelcontextprotocol.io/specification/2026-07-28/basic#error-codes
   */
  Denied: -31000,
} as const;

/** A known error code. Peers may send others; `JsonRpcError.code` is any integer. */
export type ErrorCode = (typeof ErrorCode)[keyof typeof ErrorCode];

/** The error member of a JSON-RPC error response, as it appears on the wire. */
export interface JsonRpcErrorObject {
  code: number;
  message: string;
  data?: unknown;
}

/**
 * An error that travels on the wire as a JSON-RPC error object. Handlers throw it to answer
 * a request with a specific code; a client receives one when the peer answers with an error.
 * `cause` (never serialized) holds the offending value.
 */
export class JsonRpcError extends Error {
  override readonly name = 'JsonRpcError';
  /** The integer error code. */
  readonly code: number;
  /** Optional structured detail, serialized as `error.data`. */
  readonly data: unknown;

  constructor(code: number, message: string, data?: unknown, options?: { cause?: unknown }) {
    super(message, options);
    this.code = code;
    this.data = data;
  }

  /** The wire form: `{ code, message, data? }`. */
  toJSON(): JsonRpcErrorObject {
    return this.data === undefined ? { code: this.code, message: this.message } : { code: this.code, message: this.message, data: this.data };
  }

  /** Rebuilds an error received from a peer. */
  static fromObject(error: JsonRpcErrorObject, cause?: unknown): JsonRpcError {
    return new JsonRpcError(error.code, error.message, error.data, { cause });
  }

  /** -32700: the bytes were not valid JSON. */
  static parseError(detail: string, data?: unknown): JsonRpcError {
    return new JsonRpcError(ErrorCode.ParseError, `Parse error: ${detail}`, data);
  }

  /** -32600: valid JSON, but not a valid JSON-RPC message. */
  static invalidRequest(detail: string, data?: unknown): JsonRpcError {
    return new JsonRpcError(ErrorCode.InvalidRequest, `Invalid request: ${detail}`, data);
  }

  /** -32601: the method is unknown or not available. */
  static methodNotFound(method: string): JsonRpcError {
    return new JsonRpcError(ErrorCode.MethodNotFound, `Method not found: ${method}`, { method });
  }

  /** -32602: the parameters are invalid. */
  static invalidParams(detail: string, data?: unknown): JsonRpcError {
    return new JsonRpcError(ErrorCode.InvalidParams, `Invalid params: ${detail}`, data);
  }

  /** -32603: a generic internal error; details belong in local logs, never here. */
  static internal(message = 'Internal error'): JsonRpcError {
    return new JsonRpcError(ErrorCode.InternalError, message);
  }
}

/** True when `error` is a {@link JsonRpcError}, optionally with the given code. */
export function isJsonRpcError(error: unknown, code?: number): error is JsonRpcError {
  return error instanceof JsonRpcError && (code === undefined || error.code === code);
}
