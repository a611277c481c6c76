/**
 * The Streamable HTTP transport (revision 2026-07-28, stateless): the runtime-neutral
 * server handler, its request/response shapes, header-value encoding and SSE framing. The
 * Node `http` adapter lives in `adapters/nodeHttp.ts`.
 *
 * @see https://modelcontextprotocol.io/specification/2026-07-28/basic/transports/streamable-http
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
} from './server.js';
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
} from './types.js';
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
export { encodeHeaderValue, decodeHeaderValue, isPlainHeaderValue, type DecodedHeaderValue } from './headerValue.js';
export { httpStatusForError, headerMismatch, mcpNameSource } from './validate.js';
