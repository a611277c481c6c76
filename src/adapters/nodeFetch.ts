/**
 * A `fetch` for the Streamable HTTP client transport on Node's own `http`/`https` modules,
 * with keep-alive connection pools. Pass it as `fetch` to `StreamableHttpClientTransport`
 * (and to anything else that takes a `FetchLike`):
 *
 * ```ts
 * import { nodeFetch } from 'switchboard/adapters/node';
 * const transport = new StreamableHttpClientTransport({ url, fetch: nodeFetch() });
 * ```
 *
 * Why: Node 20's global `fetch` (undici) spends ~290 µs of CPU per MCP call at 32 in flight on
 * the benchmark machine; this one ~80 µs, for the same WHATWG `Response` the transport reads.
 * A POST (every MCP call) goes over the lean HTTP/1.1 pool of `http1Pool.ts` (TLS for
 * `https:`, with the `https` options below) instead of `http.request` (59% fewer instructions
 * per request); GET (SSE streams) and DELETE use `node:https`/`node:http`.
 *
 * What it does and does not do (it is made for MCP endpoints, not for browsing):
 * - Methods, headers (a record or `Headers`), string / bytes / `URLSearchParams` bodies, and
 *   `AbortSignal` (aborting before or during the response rejects, or errors the body, with
 *   the signal's reason, like `fetch`).
 * - Responses are WHATWG `Response`s: status, every header, a streamed body (SSE arrives
 *   event by event); `gzip`, `deflate` and `br` bodies are decoded. A sized answer up to 1 MiB
 *   is read whole first and comes as a response with the same members (`status`, `ok`,
 *   `headers`, `body`, `bodyUsed`, `text()`, `json()`, `arrayBuffer()`, `bytes()`, `blob()`,
 *   `clone()`, ...) that is not `instanceof Response`: the real one, with its web stream, is
 *   made only when one of its body members is used, and our HTTP client takes the bytes
 *   without it (building a `Response` per answer was a tenth of a forwarded call's CPU).
 * - Redirects are not followed: a 3xx is returned as is (MCP endpoints answer directly, and
 *   following a redirect with credentials attached is how tokens leak).
 * - Network failures reject with `TypeError('fetch failed', { cause })`, as `fetch` does.
 * - TLS verification is Node's default; pass `https` agent options to change CAs.
 *
 * @module
 */
import { Agent as HttpAgent, request as httpRequest, type IncomingMessage } from 'node:http';
import { Agent as HttpsAgent, request as httpsRequest, type AgentOptions as HttpsAgentOptions } from 'node:https';
import { PassThrough, Readable } from 'node:stream';
import { urlToHttpOptions } from 'node:url';
import { createBrotliDecompress, createGunzip, createInflate } from 'node:zlib';
import { FETCH_ABORT_HOOK, type FetchAbortHook, type FetchInit, type FetchLike } from '../transport/http/client/clientOptions.js';
import { TAKE_BUFFERED_BODY } from '../transport/http/client/clientStream.js';
import { Http1Pool, type Http1Exchange, type Http1Handler } from './http1Pool.js';

/** The parts of a URL `http.request` takes (`urlToHttpOptions`), and its `Host` header. */
type Target = Readonly<ReturnType<typeof urlToHttpOptions>> & { readonly authority: string };

/** URLs whose request options are kept (more start over: a client uses a handful). */
const MAX_TARGETS = 256;

/** Options for {@link nodeFetch}. */
export interface NodeFetchOptions {
  /** Most sockets per origin. Default 64. */
  readonly maxSockets?: number;
  /**
   * Idle keep-alive sockets kept per origin. Default: `maxSockets`. (Fewer than the requests
   * in flight at a burst's end closes the extra sockets, and the next burst connects anew: at
   * 32 calls in flight a pool of 16 spent a tenth of the CPU in connect and close.)
   */
  readonly maxFreeSockets?: number;
  /** Extra options of the `https` agent (e.g. `ca`). Certificate checks stay on unless you turn them off here. */
  readonly https?: HttpsAgentOptions;
}

/**
 * A non-SSE answer that declares a `Content-Length` up to this is read whole before the
 * `Response` is made, its body handed over as bytes: a web stream bridged from a Node stream
 * (`Readable.toWeb`) costs more CPU than the rest of a small JSON-RPC answer's trip. Larger or
 * unsized answers, and SSE, stay streamed (so the transport's size limits still apply).
 */
const BUFFER_MAX = 1024 * 1024;

/** Statuses whose responses never have a body (the `Response` constructor refuses one). */
const NULL_BODY = new Set([101, 103, 204, 205, 304]);

function headerRecord(headers: RequestInit['headers']): Record<string, string> {
  const out: Record<string, string> = {};
  if (headers === undefined) return out;
  if (Object.getPrototypeOf(headers) === Object.prototype) {
    // A plain record (what our HTTP client passes): no entry arrays.
    const record = headers as Record<string, string>;
    for (const name in record) out[name.toLowerCase()] = record[name] as string;
    return out;
  }
  if (headers instanceof Headers) {
    headers.forEach((value, name) => (out[name] = value));
    return out;
  }
  if (Array.isArray(headers)) {
    for (const [name, value] of headers) if (name !== undefined && value !== undefined) out[name.toLowerCase()] = value;
    return out;
  }
  for (const [name, value] of Object.entries(headers)) out[name.toLowerCase()] = value;
  return out;
}

/**
 * `headers` itself when it is a plain record whose names are all lower case (what our HTTP
 * client passes): the pool only reads it, so no copy per request. Otherwise undefined.
 */
function lowerCaseRecord(headers: RequestInit['headers']): Readonly<Record<string, string>> | undefined {
  if (headers === undefined || Object.getPrototypeOf(headers) !== Object.prototype) return undefined;
  const record = headers as Record<string, string>;
  for (const name in record) {
    for (let i = 0; i < name.length; i++) {
      const c = name.charCodeAt(i);
      if (c >= 0x41 && c <= 0x5a) return undefined;
    }
  }
  return record;
}

function bodyBytes(body: RequestInit['body']): string | Uint8Array | undefined {
  if (body === undefined || body === null) return undefined;
  if (typeof body === 'string' || body instanceof Uint8Array) return body;
  if (body instanceof ArrayBuffer) return new Uint8Array(body);
  if (body instanceof URLSearchParams) return body.toString();
  throw new TypeError('nodeFetch: the body must be a string, bytes or URLSearchParams');
}

function responseHeaders(raw: readonly string[]): Headers {
  const headers = new Headers();
  for (let i = 0; i + 1 < raw.length; i += 2) headers.append(raw[i] as string, raw[i + 1] as string);
  return headers;
}

/**
 * The headers of an answer from the pool: what `Headers` answers (`get`, `has`, iteration,
 * lower-case names, repeated fields joined with ", ") without building a WHATWG `Headers` per
 * answer; read-only, as a `Response`'s headers are. A real `Response` made from a buffered
 * answer takes them as its `HeadersInit` (pairs).
 */
class AnswerHeaders {
  /** Name/value pairs, names lower-cased (as the pool reports them): a handful, so `get` scans them. */
  readonly #raw: readonly string[];
  #map: Map<string, string> | undefined;

  constructor(raw: readonly string[]) {
    this.#raw = raw;
  }

  get(name: string): string | null {
    const key = name.toLowerCase();
    const raw = this.#raw;
    let out: string | null = null;
    for (let i = 0; i + 1 < raw.length; i += 2) if (raw[i] === key) out = out === null ? (raw[i + 1] as string) : `${out}, ${raw[i + 1] as string}`;
    return out;
  }
  has(name: string): boolean {
    const key = name.toLowerCase();
    for (let i = 0; i < this.#raw.length; i += 2) if (this.#raw[i] === key) return true;
    return false;
  }
  getSetCookie(): string[] {
    const cookies: string[] = [];
    for (let i = 0; i + 1 < this.#raw.length; i += 2) if (this.#raw[i] === 'set-cookie') cookies.push(this.#raw[i + 1] as string);
    return cookies;
  }
  /** Repeated fields joined, as `get` answers them (made when iterated). */
  #joined(): Map<string, string> {
    if (this.#map === undefined) {
      this.#map = new Map();
      for (let i = 0; i + 1 < this.#raw.length; i += 2) {
        const name = this.#raw[i] as string;
        const known = this.#map.get(name);
        this.#map.set(name, known === undefined ? (this.#raw[i + 1] as string) : `${known}, ${this.#raw[i + 1] as string}`);
      }
    }
    return this.#map;
  }
  forEach(callback: (value: string, name: string, parent: AnswerHeaders) => void): void {
    for (const [name, value] of this.entries()) callback(value, name, this);
  }
  *entries(): IterableIterator<[string, string]> {
    const map = this.#joined();
    for (const name of [...map.keys()].sort()) {
      if (name === 'set-cookie') for (const cookie of this.getSetCookie()) yield [name, cookie];
      else yield [name, map.get(name) as string];
    }
  }
  *keys(): IterableIterator<string> {
    for (const [name] of this.entries()) yield name;
  }
  *values(): IterableIterator<string> {
    for (const [, value] of this.entries()) yield value;
  }
  [Symbol.iterator](): IterableIterator<[string, string]> {
    return this.entries();
  }
  append(): never {
    throw new TypeError('immutable');
  }
  set(): never {
    throw new TypeError('immutable');
  }
  delete(): never {
    throw new TypeError('immutable');
  }
}

function decoded(res: Readable, contentEncoding: string | null | undefined): Readable {
  const encoding = contentEncoding?.trim().toLowerCase();
  if (encoding === 'gzip' || encoding === 'x-gzip') return res.pipe(createGunzip());
  if (encoding === 'deflate') return res.pipe(createInflate());
  if (encoding === 'br') return res.pipe(createBrotliDecompress());
  return res;
}

/**
 * A response whose body is already in memory: `Response`'s members, the real `Response` (and
 * its web stream) made only when a body member is used; {@link TAKE_BUFFERED_BODY} hands the
 * bytes to our HTTP client without it.
 */
class BufferedResponse {
  readonly status: number;
  readonly statusText: string;
  readonly headers: Headers;
  readonly ok: boolean;
  readonly redirected = false;
  readonly type = 'basic';
  readonly url: string;
  #bytes: Uint8Array<ArrayBuffer> | undefined;
  #real: Response | undefined;

  constructor(bytes: Uint8Array<ArrayBuffer>, init: { status: number; statusText: string; headers: Headers }, url: string) {
    this.#bytes = bytes;
    this.status = init.status;
    this.statusText = init.statusText;
    this.headers = init.headers;
    this.ok = init.status >= 200 && init.status <= 299;
    this.url = url;
  }

  #response(): Response {
    if (this.#real === undefined) {
      const bytes = this.#bytes;
      this.#bytes = undefined;
      this.#real = new Response(bytes ?? null, { status: this.status, statusText: this.statusText, headers: this.headers });
    }
    return this.#real;
  }

  get body(): ReadableStream<Uint8Array> | null {
    return this.#response().body;
  }
  get bodyUsed(): boolean {
    return this.#real === undefined ? this.#bytes === undefined : this.#real.bodyUsed;
  }
  text(): Promise<string> {
    return this.#response().text();
  }
  json(): Promise<unknown> {
    return this.#response().json();
  }
  arrayBuffer(): Promise<ArrayBuffer> {
    return this.#response().arrayBuffer();
  }
  bytes(): Promise<Uint8Array> {
    return this.#response().arrayBuffer().then((b) => new Uint8Array(b));
  }
  blob(): Promise<Blob> {
    return this.#response().blob();
  }
  formData(): Promise<FormData> {
    return this.#response().formData();
  }
  clone(): Response {
    return this.#response().clone();
  }
  [TAKE_BUFFERED_BODY](): Uint8Array | undefined {
    if (this.#real !== undefined) return undefined;
    const bytes = this.#bytes;
    this.#bytes = undefined;
    return bytes;
  }
}

/** An `AbortSignal` as a {@link FetchAbortHook} (for callers of `fetch` that pass a signal). */
function signalHook(signal: AbortSignal): FetchAbortHook {
  let listener: (() => void) | undefined;
  let current: ((reason: unknown) => void) | undefined;
  return {
    get aborted() {
      return signal.aborted;
    },
    get reason() {
      return signal.reason as unknown;
    },
    onAbort(callback) {
      if (listener !== undefined) signal.removeEventListener('abort', listener);
      current = callback;
      listener = () => callback(signal.reason);
      signal.addEventListener('abort', listener, { once: true });
    },
    offAbort(callback) {
      if (current !== callback || listener === undefined) return;
      signal.removeEventListener('abort', listener);
      listener = undefined;
      current = undefined;
    },
  };
}

/**
 * A POST to an `http:` or `https:` origin on the lean HTTP/1.1 pool (see `http1Pool.ts`): the same
 * `Response`s, abort and failure behaviour as the `node:http` path, without `ClientRequest`
 * and `IncomingMessage`. One object per exchange (the pool's handler and the abort callback),
 * in place of a closure per event.
 */
class PoolFetch implements Http1Handler {
  readonly #input: string;
  readonly #abort: FetchAbortHook | undefined;
  readonly #resolve: (response: Response) => void;
  readonly #reject: (reason: unknown) => void;
  #settled = false;
  #ended = false;
  exchange: Http1Exchange | undefined;
  #stream: PassThrough | undefined;
  #chunks: Buffer[] | undefined;
  #init: { status: number; statusText: string; headers: Headers } | undefined;
  readonly onAbort = (reason: unknown): void => {
    this.exchange?.abort();
    if (!this.#settled) {
      this.#settled = true;
      this.#reject(reason);
    }
    // Errors the body stream of a response already handed out, as fetch does.
    this.#stream?.destroy(reason instanceof Error ? reason : new Error(String(reason)));
  };

  constructor(input: string, abort: FetchAbortHook | undefined, resolve: (response: Response) => void, reject: (reason: unknown) => void) {
    this.#input = input;
    this.#abort = abort;
    this.#resolve = resolve;
    this.#reject = reject;
  }

  #done(): void {
    this.#ended = true;
    this.#abort?.offAbort(this.onAbort);
  }

  head(status: number, statusText: string, raw: readonly string[]): void {
    // The cast: AnswerHeaders has the read members of Headers (see its notes).
    const init = { status, statusText, headers: new AnswerHeaders(raw) as unknown as Headers };
    this.#init = init;
    if (NULL_BODY.has(status)) {
      this.#settled = true;
      this.#resolve(new Response(null, init));
      return;
    }
    const length = Number(init.headers.get('content-length') ?? NaN);
    const encoding = init.headers.get('content-encoding');
    if (length <= BUFFER_MAX && encoding === null && !String(init.headers.get('content-type')).includes('event-stream')) {
      // Settled only once the body is in: an abort or a failure meanwhile rejects the fetch.
      this.#chunks = [];
      return;
    }
    const passThrough = new PassThrough();
    this.#stream = passThrough;
    passThrough.on('drain', () => this.exchange?.resume());
    // The reader cancelled the body: nobody reads the rest, so the connection closes.
    passThrough.once('close', () => {
      if (!this.#ended) this.exchange?.abort();
      this.#done();
    });
    this.#settled = true;
    // The cast: Node's web ReadableStream type and the DOM lib's differ only nominally.
    this.#resolve(new Response(Readable.toWeb(decoded(passThrough, encoding)) as unknown as ReadableStream<Uint8Array>, init));
  }

  data(chunk: Buffer): boolean {
    if (this.#chunks !== undefined) this.#chunks.push(chunk);
    else if (this.#stream !== undefined && !this.#stream.destroyed) return this.#stream.write(chunk);
    return true;
  }

  end(): void {
    this.#done();
    if (this.#stream !== undefined) this.#stream.end();
    else if (this.#chunks !== undefined && this.#init !== undefined && !this.#settled) {
      this.#settled = true;
      const chunks = this.#chunks;
      const bytes = chunks.length === 1 ? (chunks[0] as Buffer) : Buffer.concat(chunks);
      // Response-compatible (see BufferedResponse); the cast is the nominal difference.
      this.#resolve(new BufferedResponse(new Uint8Array(bytes.buffer as ArrayBuffer, bytes.byteOffset, bytes.byteLength), this.#init, this.#input) as unknown as Response);
    }
  }

  fail(error: Error): void {
    this.#done();
    if (!this.#settled) {
      this.#settled = true;
      this.#reject(new TypeError('fetch failed', { cause: error }));
    } else this.#stream?.destroy(error);
  }
}

function viaPool(
  pool: Http1Pool,
  target: Target,
  secure: boolean,
  input: string,
  headers: Readonly<Record<string, string>>,
  body: string | Uint8Array | undefined,
  abort: FetchAbortHook | undefined,
  resolve: (response: Response) => void,
  reject: (reason: unknown) => void,
): void {
  const handler = new PoolFetch(input, abort, resolve, reject);
  try {
    handler.exchange = pool.request({ secure, host: target.hostname ?? 'localhost', port: Number(target.port ?? (secure ? 443 : 80)), authority: target.authority, method: 'POST', path: target.path ?? '/', headers, body }, handler);
  } catch (error) {
    reject(error);
    return;
  }
  abort?.onAbort(handler.onAbort);
}

/**
 * Makes a {@link FetchLike} on `node:http`/`node:https` with its own keep-alive agents. Make
 * one per application (or per upstream) and reuse it: the pools live in it.
 */
export function nodeFetch(options: NodeFetchOptions = {}): FetchLike {
  const maxSockets = options.maxSockets ?? 64;
  const agentOptions = { keepAlive: true, maxSockets, maxFreeSockets: options.maxFreeSockets ?? maxSockets, scheduling: 'lifo' as const };
  const httpAgent = new HttpAgent(agentOptions);
  const httpsAgent = new HttpsAgent({ ...agentOptions, ...options.https });
  const pool = new Http1Pool({ maxSockets, maxFreeSockets: agentOptions.maxFreeSockets, ...(options.https !== undefined ? { tls: options.https } : {}) });

  /** The request options of each URL, parsed once (a client posts to the same URL on every call). */
  const targets = new Map<string, Target>();
  const targetOf = (input: string): Target => {
    let target = targets.get(input);
    if (target === undefined) {
      const url = new URL(input);
      target = Object.freeze({ ...urlToHttpOptions(url), authority: url.host });
      if (targets.size >= MAX_TARGETS) targets.clear();
      targets.set(input, target);
    }
    return target;
  };
  const fetchLike = (input: string, init: FetchInit): Promise<Response> =>
    new Promise<Response>((resolve, reject) => {
      // Our HTTP client passes a FETCH_ABORT_HOOK (no AbortSignal per call); others a signal.
      const signal = init.signal ?? undefined;
      const abort = init[FETCH_ABORT_HOOK] ?? (signal === undefined ? undefined : signalHook(signal));
      if (abort?.aborted === true) {
        reject(abort.reason);
        return;
      }
      let target: Target;
      let body: string | Uint8Array | undefined;
      try {
        target = targetOf(input);
        body = bodyBytes(init.body);
      } catch (error) {
        reject(error instanceof TypeError ? error : new TypeError(String(error)));
        return;
      }
      const secure = target.protocol === 'https:';
      if (!secure && target.protocol !== 'http:') {
        reject(new TypeError(`nodeFetch: unsupported protocol ${String(target.protocol)}`));
        return;
      }
      if (init.method === 'POST' && (target.auth ?? '') === '') {
        viaPool(pool, target, secure, input, lowerCaseRecord(init.headers) ?? headerRecord(init.headers), body, abort, resolve, reject);
        return;
      }
      const headers = headerRecord(init.headers);
      if (body !== undefined && headers['content-length'] === undefined) {
        headers['content-length'] = String(typeof body === 'string' ? Buffer.byteLength(body) : body.byteLength);
      }
      const send = secure ? httpsRequest : httpRequest;
      let settled = false;
      let response: IncomingMessage | undefined;
      const onAbort = (reason: unknown): void => {
        if (!settled) {
          settled = true;
          reject(reason);
        }
        // Errors the body stream of a response already handed out, as fetch does.
        req.destroy(reason instanceof Error ? reason : new Error(String(reason)));
        response?.destroy(reason instanceof Error ? reason : new Error(String(reason)));
      };
      const req = send({ ...target, method: init.method ?? 'GET', headers, agent: secure ? httpsAgent : httpAgent }, (res) => {
        response = res;
        settled = true;
        const status = res.statusCode ?? 0;
        const responseInit = { status, statusText: res.statusMessage ?? '', headers: responseHeaders(res.rawHeaders) };
        if (NULL_BODY.has(status) || init.method === 'HEAD') {
          res.resume();
          abort?.offAbort(onAbort);
          resolve(new Response(null, responseInit));
          return;
        }
        res.once('close', () => abort?.offAbort(onAbort));
        const length = Number(res.headers['content-length'] ?? NaN);
        if (length <= BUFFER_MAX && res.headers['content-encoding'] === undefined && !String(res.headers['content-type']).includes('event-stream')) {
          // Settled only once the body is in: an abort or a failure meanwhile rejects the fetch.
          settled = false;
          const chunks: Buffer[] = [];
          res.on('data', (chunk: Buffer) => chunks.push(chunk));
          res.once('end', () => {
            if (settled) return;
            settled = true;
            const bytes = chunks.length === 1 ? (chunks[0] as Buffer) : Buffer.concat(chunks);
            // Response-compatible (see BufferedResponse); the cast is the nominal difference.
            resolve(new BufferedResponse(new Uint8Array(bytes.buffer as ArrayBuffer, bytes.byteOffset, bytes.byteLength), responseInit, input) as unknown as Response);
          });
          const fail = (error: Error): void => {
            if (settled) return;
            settled = true;
            reject(new TypeError('fetch failed', { cause: error }));
          };
          res.once('error', fail);
          // Closed before the end (the server went away mid-body).
          res.once('close', () => fail(new Error('the response ended before its body was complete')));
          return;
        }
        // The cast: Node's web ReadableStream type and the DOM lib's differ only nominally.
        resolve(new Response(Readable.toWeb(decoded(res, res.headers['content-encoding'])) as unknown as ReadableStream<Uint8Array>, responseInit));
      });
      req.once('error', (error) => {
        if (settled) return;
        settled = true;
        abort?.offAbort(onAbort);
        reject(new TypeError('fetch failed', { cause: error }));
      });
      abort?.onAbort(onAbort);
      req.end(body);
    });
  // It takes our HTTP client's FETCH_ABORT_HOOK in place of a signal.
  return Object.assign(fetchLike, { [FETCH_ABORT_HOOK]: true as const });
}
