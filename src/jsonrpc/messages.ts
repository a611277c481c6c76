/**
 * JSON-RPC 2.0 message types as MCP uses them.
 *
 * Request ids are strings or integers and are kept exactly as received: `1` and `"1"` are
 * different ids (MCP base protocol; https://modelcontextprotocol.io/specification/2026-07-28/basic).
 *
 * @module
 */

/** A request id: a string or an integer, never `null`. */
export type RequestId = string | number;

/** Parameters of a request or notification. MCP uses objects only. */
export type Params = Record<string, unknown>;

/** A request: expects exactly one response with the same id. */
export interface JsonRpcRequest {
  jsonrpc: '2.0';
  id: RequestId;
  method: string;
  params?: Params;
}

/** A notification: no id, never answered. */
export interface JsonRpcNotification {
  jsonrpc: '2.0';
  method: string;
  params?: Params;
}

/** A successful response. */
export interface JsonRpcSuccessResponse {
  jsonrpc: '2.0';
  id: RequestId;
  result: Record<string, unknown>;
}

/** An error response. `id` is `null` only when the request's id could not be read. */
export interface JsonRpcErrorResponse {
  jsonrpc: '2.0';
  id: RequestId | null;
  error: { code: number; message: string; data?: unknown };
}

/** Either kind of response. */
export type JsonRpcResponse = JsonRpcSuccessResponse | JsonRpcErrorResponse;

/** Any single JSON-RPC message. */
export type JsonRpcMessage = JsonRpcRequest | JsonRpcNotification | JsonRpcResponse;

/** A batch (JSON array of messages); only revision 2025-03-26 allows batches. */
export type JsonRpcBatch = JsonRpcMessage[];

/** True for a request (has `method` and `id`). */
export function isRequest(message: JsonRpcMessage): message is JsonRpcRequest {
  return 'method' in message && 'id' in message;
}

/** True for a notification (has `method`, no `id`). */
export function isNotification(message: JsonRpcMessage): message is JsonRpcNotification {
  return 'method' in message && !('id' in message);
}

/** True for a response of either kind. */
export function isResponse(message: JsonRpcMessage): message is JsonRpcResponse {
  return !('method' in message);
}

/** True for an error response. */
export function isErrorResponse(message: JsonRpcMessage): message is JsonRpcErrorResponse {
  return 'error' in message && !('method' in message);
}

/** True when `value` is a valid request id: a string or a safe integer. */
export function isRequestId(value: unknown): value is RequestId {
  return typeof value === 'string' || (typeof value === 'number' && Number.isSafeInteger(value));
}
