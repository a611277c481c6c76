/**
 * Local errors: raised inside Switchboard, never serialized onto the wire.
 *
 * Wire errors are {@link https://www.jsonrpc.org/specification#error_object | JSON-RPC error
 * objects} and live in `jsonrpc/errors.ts` as `JsonRpcError`. An `McpError` has a string
 * `code` (`ERR_MCP_*`) so callers can branch on it without parsing messages.
 *
 * @module
 */

/** Every local error code Switchboard raises. */
export const McpErrorCode = {
  /** A request got no answer within its timeout. */
  RequestTimeout: 'ERR_MCP_REQUEST_TIMEOUT',
  /** A request was cancelled locally (AbortSignal) before an answer arrived. */
  RequestCancelled: 'ERR_MCP_REQUEST_CANCELLED',
  /** The connection closed (peer exited, stream ended) while the request was pending. */
  ConnectionClosed: 'ERR_MCP_CONNECTION_CLOSED',
  /** The operation needs a started connection or transport. */
  NotConnected: 'ERR_MCP_NOT_CONNECTED',
  /** `start` was called twice on a transport or connection. */
  AlreadyStarted: 'ERR_MCP_ALREADY_STARTED',
  /** A message could not be sent (transport write failed). */
  SendFailed: 'ERR_MCP_SEND_FAILED',
  /** A message exceeded a configured size or depth limit. */
  LimitExceeded: 'ERR_MCP_LIMIT_EXCEEDED',
  /** The peer answered with something that is not a valid response for the request. */
  InvalidResponse: 'ERR_MCP_INVALID_RESPONSE',
  /** A value given to a Switchboard API was invalid. */
  InvalidArgument: 'ERR_MCP_INVALID_ARGUMENT',
  /** A child process could not be spawned. */
  SpawnFailed: 'ERR_MCP_SPAWN_FAILED',
  /**
   * An HTTP exchange failed without a usable JSON-RPC answer (non-2xx status, wrong content
   * type, unreadable body). `cause` is `{ status, body? }`.
   */
  HttpStatus: 'ERR_MCP_HTTP_STATUS',
  /** The server no longer knows the session (HTTP 404 with `Mcp-Session-Id`): initialize again. */
  SessionExpired: 'ERR_MCP_SESSION_EXPIRED',
  /** The peer does not speak a protocol revision we support. */
  UnsupportedVersion: 'ERR_MCP_UNSUPPORTED_VERSION',
  /** A server asked the client for something it does not support (no handler / capability). */
  Unsupported: 'ERR_MCP_UNSUPPORTED',
  /** A host's downstream server is not running (starting, restarting after a crash, stopped). */
  ServerUnavailable: 'ERR_MCP_SERVER_UNAVAILABLE',
  /** A remote server needs an OAuth sign-in the host cannot do by itself (`switchboard login <server>`). */
  LoginRequired: 'ERR_MCP_LOGIN_REQUIRED',
  /** A host interceptor (trust, policy, consent, guard) refused the request. */
  Denied: 'ERR_MCP_DENIED',
  /** A host configuration file (switchboard.json) is invalid; the error's `path` names where. */
  InvalidConfig: 'ERR_MCP_INVALID_CONFIG',
  /** Two servers expose the same name and the namespacing mode does not allow renaming. */
  NameCollision: 'ERR_MCP_NAME_COLLISION',
  /** A stdio server's launch (command, arguments, cwd, env names) has not been approved. */
  LaunchNotApproved: 'ERR_MCP_LAUNCH_NOT_APPROVED',
  /** A persisted store file is not what the store wrote (unreadable JSON, wrong shape). */
  StoreCorrupt: 'ERR_MCP_STORE_CORRUPT',
  /** A store could not persist a change (disk full, permissions); the previous file is intact. */
  StoreWriteFailed: 'ERR_MCP_STORE_WRITE_FAILED',
  /**
   * A shared store (PostgreSQL, Redis) cannot be reached right now; what needed it is refused
   * (fail closed) and works again once the store is back.
   */
  StoreUnavailable: 'ERR_MCP_STORE_UNAVAILABLE',
  /**
   * A server's per-principal credential cannot be had for this caller without a sign-in: e.g. a
   * `token-exchange` server called by a principal whose inbound token cannot be exchanged (a
   * named static token, or a front door that keeps no subject tokens).
   */
  CredentialUnavailable: 'ERR_MCP_CREDENTIAL_UNAVAILABLE',
} as const;

/** A local error code. */
export type McpErrorCode = (typeof McpErrorCode)[keyof typeof McpErrorCode];

/**
 * An error raised locally by Switchboard. It is never sent to a peer; `cause` carries the
 * offending value (a response, an exit status, an underlying error).
 */
export class McpError extends Error {
  override readonly name = 'McpError';
  /** The machine-readable code. */
  readonly code: McpErrorCode;

  constructor(code: McpErrorCode, message: string, options?: { cause?: unknown }) {
    super(message, options);
    this.code = code;
  }
}

/** True when `error` is an {@link McpError}, optionally with the given code. */
export function isMcpError(error: unknown, code?: McpErrorCode): error is McpError {
  return error instanceof McpError && (code === undefined || error.code === code);
}

/**
 * True when `error` says the request was cancelled or its client went away (an
 * `ERR_MCP_REQUEST_CANCELLED` or `ERR_MCP_CONNECTION_CLOSED`, or an `AbortError`): an ordinary
 * end of a request, not a handler failure.
 */
export function isCancellation(error: unknown): boolean {
  if (error instanceof McpError) return error.code === McpErrorCode.RequestCancelled || error.code === McpErrorCode.ConnectionClosed;
  return error instanceof Error && error.name === 'AbortError';
}

/**
 * One line for `error` and its causes (`a: b: c`), each piece said once: a cause whose message
 * is already in the text built so far (`The connection closed: The server process exited with
 * code 3` wrapping `The server process exited with code 3`) is skipped.
 */
export function describeError(error: unknown): string {
  let text = '';
  let node: unknown = error;
  for (let depth = 0; depth < 8 && node instanceof Error; depth++) {
    const message = node.message.trim();
    if (message !== '' && !text.includes(message)) text = text === '' ? message : `${text}: ${message}`;
    node = node.cause;
  }
  return text !== '' ? text : error instanceof Error ? error.name : String(error);
}
