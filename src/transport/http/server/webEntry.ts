/**
 * The web-standard entry of the Streamable HTTP handler: WHATWG `Request` in, `Response` out
 * (SSE bodies as a `ReadableStream`), for Hono-, Deno-, Bun- or worker-style runtimes.
 *
 * @see https://modelcontextprotocol.io/specification/2026-07-28/basic/transports/streamable-http
 * @module
 */
import { isSseStream, type HeaderGetter, type HttpRequestLike, type HttpResponseLike } from './types.js';
import { concatBytes } from '../../../util/bytes.js';

/** The path of an absolute or origin-form URL, without query or fragment. */
export function pathOf(url: string): string {
  let start = 0;
  const scheme = url.indexOf('://');
  if (scheme >= 0) {
    start = url.indexOf('/', scheme + 3);
    if (start < 0) return '/';
  }
  let end = url.length;
  const q = url.indexOf('?', start);
  if (q >= 0) end = q;
  const h = url.indexOf('#', start);
  if (h >= 0 && h < end) end = h;
  return url.slice(start, end) || '/';
}

function hostOf(url: string): string | undefined {
  const scheme = url.indexOf('://');
  if (scheme < 0) return undefined;
  let end = url.length;
  for (const sep of ['/', '?', '#']) {
    const i = url.indexOf(sep, scheme + 3);
    if (i >= 0 && i < end) end = i;
  }
  const authority = url.slice(scheme + 3, end);
  const at = authority.lastIndexOf('@');
  return at >= 0 ? authority.slice(at + 1) : authority;
}

function webBodyReader(stream: ReadableStream<Uint8Array>): (max: number) => Promise<Uint8Array | undefined> {
  return async (max) => {
    const reader = stream.getReader();
    const chunks: Uint8Array[] = [];
    let total = 0;
    for (;;) {
      const { done, value } = await reader.read();
      if (done) break;
      total += value.byteLength;
      if (total > max) {
        void reader.cancel().catch(() => undefined);
        return undefined;
      }
      chunks.push(value);
    }
    return concatBytes(chunks, total);
  };
}

/** Wraps a WHATWG `Request` as an {@link HttpRequestLike}; `Host` falls back to the URL's authority. */
export function fromWebRequest(request: Request): HttpRequestLike {
  const headers = request.headers;
  const url = request.url;
  const header: HeaderGetter = (name) => {
    const value = headers.get(name);
    if (value !== null) return value;
    return name === 'host' ? hostOf(url) : undefined;
  };
  const q = url.indexOf('?');
  // `Request.url` is serialized without the fragment.
  const query = q < 0 ? undefined : url.slice(q + 1);
  const base = { method: request.method, path: pathOf(url), query, header, signal: request.signal };
  return request.body === null ? base : { ...base, body: webBodyReader(request.body) };
}

const textEncoder = new TextEncoder();

/** Turns an {@link HttpResponseLike} into a WHATWG `Response` (SSE as a `ReadableStream`). */
export function toWebResponse(response: HttpResponseLike): Response {
  const body = response.body;
  if (body === undefined) return new Response(null, { status: response.status, headers: response.headers });
  if (!isSseStream(body)) {
    // TS 5.9 types BodyInit with ArrayBuffer-backed views only; ours are never shared-memory.
    return new Response(body as string | Uint8Array<ArrayBuffer>, { status: response.status, headers: response.headers });
  }
  let closed = false;
  const stream = new ReadableStream<Uint8Array>(
    {
      start(controller) {
        body.start({
          write: (chunk) => {
            if (!closed) controller.enqueue(textEncoder.encode(chunk));
          },
          end: () => {
            if (closed) return;
            closed = true;
            controller.close();
          },
          // With a byte-sized queue and a high-water mark of 0, -desiredSize is the bytes the
          // reader has not taken yet.
          buffered: () => (closed ? 0 : -(controller.desiredSize ?? 0)),
          abort: (reason) => {
            if (closed) return;
            closed = true;
            controller.error(reason);
          },
        });
      },
      cancel(reason) {
        closed = true;
        body.cancel(reason);
      },
    },
    { highWaterMark: 0, size: (chunk) => chunk.byteLength },
  );
  return new Response(stream, { status: response.status, headers: response.headers });
}
