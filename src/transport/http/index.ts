/**
 * The Streamable HTTP transport: revision 2026-07-28 (stateless) and, on the same endpoint,
 * the stateful revisions 2025-03-26 … 2025-11-25 (sessions, GET stream, resumability). The
 * runtime-neutral server handler, its request/response shapes, the resumability event store,
 * header-value encoding and SSE framing; the Streamable HTTP client, and a client for servers
 * that still only speak the deprecated HTTP+SSE transport of 2024-11-05. The Node `http`
 * adapter lives in `adapters/nodeHttp.ts`.
 *
 * @see https://modelcontextprotocol.io/specification/2026-07-28/basic/transports/streamable-http
 * @see https://modelcontextprotocol.io/specification/2025-11-25/basic/transports#streamable-http
 * @module
 */
export {
  createStreamableHttpHandler,
  fromWebRequest,
  toWebResponse,
  pathOf,
  allowAnyHost,
  allowAnyOrigin,
  type StreamableHttpHandler,
  type StreamableHttpServerOptions,
  type HttpRoute,
  type RouteInput,
} from './server/server.js';
export {
  isSseStream,
  type HttpRequestLike,
  type HttpResponseLike,
  type HttpRequestBody,
  type BodyReader,
  type HeaderGetter,
  type HttpExtra,
  type SseSink,
  type SseStream,
} from './server/types.js';
export {
  encodeSseEvent,
  encodeSseJson,
  encodeSseComment,
  SseParser,
  SseBufferOverflowError,
  type SseEvent,
  type SseEventInit,
  type SseParserOptions,
} from './sse.js';
export { type StatefulOptions } from './server/stateful.js';
export { type LegacySseOptions } from './legacy/legacySse.js';
export { authErrorResponse, type HttpAuthOptions } from './server/auth.js';
export { authFetchHandler, type AuthFetchHandlerOptions } from './server/authFetchHandler.js';
export {
  InMemoryEventStore,
  formatEventId,
  parseEventId,
  STANDALONE_STREAM_ID,
  type EventStore,
  type StoredEvent,
  type InMemoryEventStoreOptions,
} from './server/eventStore.js';
export {
  InMemorySessionStore,
  MemorySessionBus,
  type SessionStore,
  type SessionRecord,
  type SessionBus,
  type SessionBusEnvelope,
  type SessionBusMessage,
} from './server/sessionStore.js';
export { storeUnavailableError, type SharedSessionOptions } from './server/sharedSessions.js';
export { encodeHeaderValue, decodeHeaderValue, isPlainHeaderValue, type DecodedHeaderValue } from './headerValue.js';
export { headerMismatch } from './server/validate.js';
export { httpStatusForError } from '../../protocol/errors.js';
export { mcpNameSource } from './mcpName.js';
export { StreamableHttpClientTransport } from './client/client.js';
export { type StreamableHttpClientOptions, type UnauthorizedInfo, type FetchLike } from './client/clientOptions.js';
export { LegacySseClientTransport, type LegacySseClientOptions } from './legacy/legacySseClient.js';
