/**
 * A lean HTTP/1.1 client on keep-alive `node:net` (and `node:tls`) sockets, for {@link nodeFetch}'s
 * POSTs to `http:` and `https:` origins (the MCP client's hot path: one POST per call). It writes a request as one
 * string (head and body in one write), the requests of one event-loop turn together at its end, and parses the
 * answer's head and framing itself.
 * `http.request` costs about 200 µs of CPU per call at 32 in flight on the benchmark machine
 * (`ClientRequest`, the agent's bookkeeping, `IncomingMessage` and its stream, the events of
 * each); this about 30 µs, for the same bytes on the wire.
 *
 * What it implements (RFC 9112, client side):
 * - Request heads with validated header names (tokens) and values (no CR, LF, NUL or other
 *   control character: header injection is refused before anything is written, with the
 *   `TypeError` `http.request` throws for the same).
 * - Response heads (status line, fields; obsolete line folding refused), 1xx interim answers
 *   skipped, and every body framing: none (204, 304), `Content-Length` (several different
 *   values refused), `Transfer-Encoding: chunked` (with trailers), or until the connection closes.
 * - Keep-alive pools per origin: at most `maxSockets` connections, requests beyond that wait
 *   in order; idle sockets are kept (up to `maxFreeSockets`, last used first) and do not keep
 *   the process alive, and are not reused later than a second before the server's
 *   `Keep-Alive: timeout` hint runs out (checked when one is taken, so no timer is armed per
 *   answer; one past its time is closed then, and the server closes the ones nobody takes). A
 *   connection is reused only after a complete answer that did not say `Connection: close`;
 *   anything else (an abort, a failure, an answer read to the close, stray bytes) closes it.
 *
 * @see https://www.rfc-editor.org/rfc/rfc9112
 * @module
 */
import { connect, isIP, type Socket } from 'node:net';
import { connect as connectTls, type ConnectionOptions as TlsOptions } from 'node:tls';
import { isTrimmed, keepAliveTimeoutMs, protocolError, requestHead, statusCode, TOKEN, type Http1Request } from './http1Head.js';

export { requestHead, type Http1Request } from './http1Head.js';

/** What the pool reports of one exchange, in order: `head`, then `data`* and `end`, or `fail` at any point. */
export interface Http1Handler {
  /** The final answer's head: status, reason, and the fields as name/value pairs (names lower-cased). */
  head(status: number, statusText: string, rawHeaders: readonly string[]): void;
  /** A piece of the (de-framed) body; return false to pause reading until `resume()`. */
  data(chunk: Buffer): boolean;
  end(): void;
  /** The exchange failed (network, protocol): not called after `end`, nor after `abort`. */
  fail(error: Error): void;
}

/** Controls one exchange in flight. */
export interface Http1Exchange {
  /** Stops the exchange: its connection is closed and the handler hears nothing more. */
  abort(): void;
  /** Resumes reading after `data` returned false. */
  resume(): void;
}

/** Options of an {@link Http1Pool}. */
export interface Http1PoolOptions {
  readonly maxSockets: number;
  readonly maxFreeSockets: number;
  /** Options of the TLS connections to `https:` origins (e.g. `ca`); the certificate checks stay on unless these turn them off. */
  readonly tls?: TlsOptions;
}

const MAX_HEAD = 64 * 1024;
const CRLF2 = Buffer.from('\r\n\r\n');
const NON_ASCII = /[^\t\r\n -~]/;
const CHUNK_SIZE = /^([0-9a-fA-F]{1,12})[ \t]*(?:;.*)?$/;
const DIGITS = /^\d+$/;
const CHUNKED_LAST = /(?:^|,)\s*chunked\s*$/i;
const CLOSE_TOKEN = /(?:^|,)\s*close\s*(?:,|$)/i;
const EMPTY = Buffer.alloc(0);
/**
 * What every connection reads into (`net.connect`'s `onread`: no `Readable` push, event and
 * tick per read). Reads run one at a time on the main thread and each is consumed (what is
 * kept is copied) before the next, so one buffer serves all the connections.
 */
const READ_BUFFER = Buffer.allocUnsafe(64 * 1024);

/**
 * The connections whose request waits to be written: the requests started in one turn of
 * the event loop are written together once its poll phase is over (`setImmediate`), as the
 * stdio client writes its lines. Written as each was started, the first request of a turn
 * woke the server, which on a small machine then ran before the rest were sent: one wake-up
 * (and context switch) per request instead of one per turn, and a quarter of the gateway's
 * profile in the socket write in front of HTTP.
 */
let pendingWrites: Connection[] = [];

function writePending(): void {
  const connections = pendingWrites;
  pendingWrites = [];
  for (const connection of connections) connection.flush();
}

type Framing = { kind: 'none' } | { kind: 'length'; left: number } | { kind: 'chunked' } | { kind: 'close' };

/** One keep-alive connection and the exchange on it. */
class Connection {
  readonly socket: Socket;
  readonly #origin: Origin;
  #handler: Http1Handler | undefined;
  #buffer: Buffer | undefined;
  #framing: Framing | undefined;
  /** Chunked: bytes left of the current chunk (-1: a size line is next; -2: trailers). */
  #chunkLeft = -1;
  #reusable = true;
  #paused = false;
  /** The request {@link start} queued for the end of the turn (see {@link pendingWrites}). */
  #queuedHead: string | undefined;
  #queuedBody: string | Uint8Array | undefined;
  /** How long this connection may stay idle (the server's keep-alive hint less a second); undefined: no limit. */
  idleMs: number | undefined;
  /** While idle: the time (`Date.now()`) after which it is not reused. */
  idleUntil = Infinity;

  constructor(socket: Socket, origin: Origin, streamed: boolean) {
    this.socket = socket;
    this.#origin = origin;
    socket.setNoDelay(true);
    // A TLS socket reads through its stream (`onread` is for plain TCP); copies are made alike.
    if (streamed) socket.on('data', (chunk: Buffer) => this.#onData(chunk));
    socket.on('error', (error) => this.#close(error));
    socket.on('close', () => this.#close(new Error('the connection closed before the answer was complete')));
  }

  /**
   * Starts an exchange on this (idle, connected or connecting) connection: the head and the
   * body in one write (one string when both are text and the head is ASCII), made once the
   * turn's poll phase is over (see {@link pendingWrites}).
   */
  start(head: string, body: string | Uint8Array | undefined, handler: Http1Handler): void {
    this.#handler = handler;
    this.#buffer = undefined;
    this.#framing = undefined;
    this.#chunkLeft = -1;
    this.socket.ref();
    this.#queuedHead = head;
    this.#queuedBody = body;
    if (pendingWrites.push(this) === 1) setImmediate(writePending);
  }

  /** Writes the request {@link start} queued, unless its exchange ended meanwhile. */
  flush(): void {
    const head = this.#queuedHead;
    const body = this.#queuedBody;
    this.#queuedHead = undefined;
    this.#queuedBody = undefined;
    if (head === undefined || this.#handler === undefined || this.socket.destroyed) return;
    try {
      if (body === undefined) this.socket.write(head, 'latin1');
      else if (typeof body === 'string' && !NON_ASCII.test(head)) this.socket.write(head + body, 'utf8');
      else {
        this.socket.cork();
        this.socket.write(head, 'latin1');
        this.socket.write(body);
        this.socket.uncork();
      }
    } catch (error) {
      // Not expected of a live socket; it fails this exchange alone, not the turn's others.
      this.socket.destroy();
      this.#close(error as Error);
    }
  }

  /** Ends `handler`'s exchange if it is the one on this connection (closing the connection). */
  abort(handler: Http1Handler): void {
    if (this.#handler !== handler) return;
    this.#abort();
  }

  #abort(): void {
    this.#handler = undefined;
    this.#reusable = false;
    this.socket.destroy();
  }

  /** Resumes reading for `handler`'s exchange. */
  resume(handler: Http1Handler): void {
    if (!this.#paused || this.#handler !== handler) return;
    this.#paused = false;
    this.socket.resume();
  }

  #close(error: Error): void {
    const handler = this.#handler;
    this.#handler = undefined;
    this.#reusable = false;
    this.#origin.remove(this);
    if (handler === undefined) return;
    if (this.#framing?.kind === 'close') handler.end();
    else handler.fail(error);
  }

  /** `onread`: `n` bytes arrived in the shared {@link READ_BUFFER}. */
  onRead(n: number): void {
    this.#onData(READ_BUFFER.subarray(0, n));
  }

  /** `chunk` is a view of the shared read buffer: what outlives this call is copied. */
  #onData(chunk: Buffer): void {
    if (this.#handler === undefined) {
      // Bytes nobody asked for: the connection's state is unknown, so it is not reused.
      this.socket.destroy();
      return;
    }
    let data = this.#buffer === undefined ? chunk : Buffer.concat([this.#buffer, chunk]);
    const shared = this.#buffer === undefined;
    this.#buffer = undefined;
    try {
      while (this.#handler !== undefined && data.length > 0) {
        if (this.#framing === undefined) {
          const rest = this.#parseHead(data);
          if (rest === undefined) {
            if (data.length > MAX_HEAD) throw protocolError('the head is too large');
            this.#buffer = shared ? Buffer.from(data) : data;
            return;
          }
          data = rest;
          if ((this.#framing as Framing | undefined)?.kind === 'none') this.#complete(data);
          continue;
        }
        data = this.#body(data);
      }
    } catch (error) {
      const handler = this.#handler;
      this.#abort();
      handler?.fail(error as Error);
    }
  }

  /** Parses a head at the start of `data`; returns the bytes after it, or undefined while incomplete. */
  #parseHead(data: Buffer): Buffer | undefined {
    const end = data.indexOf(CRLF2);
    if (end < 0) return undefined;
    const text = data.toString('latin1', 0, end);
    let eol = text.indexOf('\r\n');
    if (eol < 0) eol = text.length;
    const code = statusCode(text, eol);
    if (code < 0) throw protocolError('the status line is malformed');
    const raw: string[] = [];
    let length: string | undefined;
    let chunked = false;
    let encoded = false;
    let close = text.charCodeAt(7) === 0x30; // HTTP/1.0
    let keepAliveMs: number | undefined;
    // One field a line, up to the head's end: no array of lines is made.
    for (let start = eol + 2; start < text.length; ) {
      let next = text.indexOf('\r\n', start);
      if (next < 0) next = text.length;
      const colon = text.indexOf(':', start);
      // No colon on this line (a folded line, whose first byte is white space, has none before its end or fails the token).
      if (colon <= start || colon > next) throw protocolError('a header line is malformed');
      const name = text.slice(start, colon);
      if (!TOKEN.test(name)) throw protocolError('a header line is malformed');
      let from = colon + 1;
      let to = next;
      while (from < to && isTrimmed(text.charCodeAt(from))) from++;
      while (to > from && isTrimmed(text.charCodeAt(to - 1))) to--;
      const value = text.slice(from, to);
      const lower = name.toLowerCase();
      raw.push(lower, value);
      start = next + 2;
      switch (lower) {
        case 'content-length':
          if (!DIGITS.test(value) || (length !== undefined && length !== value)) throw protocolError('the Content-Length is invalid');
          length = value;
          break;
        case 'transfer-encoding':
          encoded = true;
          chunked = CHUNKED_LAST.test(value);
          break;
        case 'connection':
          if (CLOSE_TOKEN.test(value)) close = true;
          break;
        case 'keep-alive': {
          const ms = keepAliveTimeoutMs(value);
          if (ms !== undefined) keepAliveMs = ms;
          break;
        }
      }
    }
    const rest = data.subarray(end + 4);
    if (code >= 100 && code < 200) {
      if (code === 101) throw protocolError('an upgrade nobody asked for');
      return rest; // an interim answer: the final one follows
    }
    if (close) this.#reusable = false;
    if (keepAliveMs !== undefined) this.idleMs = keepAliveMs - 1000;
    if (code === 204 || code === 304) this.#framing = { kind: 'none' };
    else if (encoded) this.#framing = chunked ? { kind: 'chunked' } : { kind: 'close' };
    else if (length !== undefined) this.#framing = Number(length) === 0 ? { kind: 'none' } : { kind: 'length', left: Number(length) };
    else this.#framing = { kind: 'close' };
    if (this.#framing.kind === 'close') this.#reusable = false;
    this.#handler?.head(code, eol > 13 ? text.slice(13, eol) : '', raw);
    return rest;
  }

  /** Consumes body bytes per the framing; returns what is left over (the next answer's: none is expected). */
  #body(data: Buffer): Buffer {
    const framing = this.#framing as Framing;
    if (framing.kind === 'close') {
      this.#deliver(data);
      return EMPTY;
    }
    if (framing.kind === 'length') {
      const take = Math.min(framing.left, data.length);
      framing.left -= take;
      this.#deliver(take === data.length ? data : data.subarray(0, take));
      if (framing.left === 0) this.#complete(take === data.length ? EMPTY : data.subarray(take));
      return EMPTY;
    }
    if (framing.kind === 'chunked') return this.#chunk(data);
    throw protocolError('bytes after a bodiless answer');
  }

  #chunk(data: Buffer): Buffer {
    if (this.#chunkLeft > 0) {
      const take = Math.min(this.#chunkLeft, data.length);
      this.#chunkLeft -= take;
      this.#deliver(take === data.length ? data : data.subarray(0, take));
      if (this.#chunkLeft === 0) this.#chunkLeft = -3; // the chunk's CRLF is next
      return data.subarray(take);
    }
    const eol = data.indexOf('\r\n');
    if (eol < 0) {
      if (data.length > MAX_HEAD) throw protocolError('a chunk line is too long');
      // A copy: `data` may be a view of the shared read buffer.
      this.#buffer = Buffer.from(data);
      return EMPTY;
    }
    const line = data.toString('latin1', 0, eol);
    const rest = data.subarray(eol + 2);
    if (this.#chunkLeft === -3) {
      if (line !== '') throw protocolError('a chunk does not end with CRLF');
      this.#chunkLeft = -1;
      return rest;
    }
    if (this.#chunkLeft === -2) {
      // Trailer fields, up to the empty line that ends the body.
      if (line === '') this.#complete(rest);
      return line === '' ? EMPTY : rest;
    }
    const size = CHUNK_SIZE.exec(line);
    if (size === null) throw protocolError('a chunk size is malformed');
    const n = parseInt(size[1] as string, 16);
    this.#chunkLeft = n === 0 ? -2 : n;
    return rest;
  }

  #deliver(chunk: Buffer): void {
    if (chunk.length === 0 || this.#handler === undefined) return;
    // A copy: the handler keeps it, and `chunk` may be a view of the shared read buffer.
    if (!this.#handler.data(Buffer.from(chunk)) && this.#handler !== undefined && !this.#paused) {
      this.#paused = true;
      this.socket.pause();
    }
  }

  /** The answer is complete: the handler ends, and the connection goes back to the pool (or closes). */
  #complete(rest: Buffer): void {
    const handler = this.#handler;
    this.#handler = undefined;
    this.#framing = undefined;
    if (rest.length > 0) this.#reusable = false;
    if (this.#reusable) this.#origin.release(this);
    else {
      this.#origin.remove(this);
      this.socket.destroy();
    }
    handler?.end();
  }
}

/** A request waiting for a connection of its origin. */
interface Waiter {
  readonly run: (connection: Connection) => void;
  cancelled: boolean;
}

/** The connections of one origin (host and port). */
class Origin {
  readonly #secure: boolean;
  readonly #host: string;
  readonly #port: number;
  readonly #options: Http1PoolOptions;
  readonly #idle: Connection[] = [];
  readonly #all = new Set<Connection>();
  readonly #waiting: Waiter[] = [];

  constructor(secure: boolean, host: string, port: number, options: Http1PoolOptions) {
    this.#secure = secure;
    this.#host = host;
    this.#port = port;
    this.#options = options;
  }

  /** Runs `run` with a connection now (an idle one, or a new one) or when one frees up. */
  acquire(run: (connection: Connection) => void): Waiter | undefined {
    for (let idle = this.#idle.pop(); idle !== undefined; idle = this.#idle.pop()) {
      if (idle.idleUntil < Date.now()) {
        // Too close to the server's keep-alive timeout: it may be closing it right now.
        this.remove(idle);
        idle.socket.destroy();
        continue;
      }
      run(idle);
      return undefined;
    }
    if (this.#all.size < this.#options.maxSockets) {
      run(this.#open());
      return undefined;
    }
    const waiter: Waiter = { run, cancelled: false };
    this.#waiting.push(waiter);
    return waiter;
  }

  #open(): Connection {
    let connection: Connection | undefined;
    if (this.#secure) {
      // SNI names a host, never an address (RFC 6066 section 3); the certificate is checked against either.
      const sni = isIP(this.#host) === 0 ? { servername: this.#host } : {};
      const socket = connectTls({ ...sni, ALPNProtocols: ['http/1.1'], ...this.#options.tls, host: this.#host, port: this.#port });
      connection = new Connection(socket, this, true);
    } else {
      const onread = { buffer: READ_BUFFER, callback: (n: number): boolean => (connection?.onRead(n), true) };
      connection = new Connection(connect({ host: this.#host, port: this.#port, onread }), this, false);
    }
    this.#all.add(connection);
    return connection;
  }

  release(connection: Connection): void {
    for (let waiter = this.#waiting.shift(); waiter !== undefined; waiter = this.#waiting.shift()) {
      if (waiter.cancelled) continue;
      waiter.run(connection);
      return;
    }
    const idleMs = connection.idleMs;
    if (this.#idle.length >= this.#options.maxFreeSockets || (idleMs !== undefined && idleMs <= 0)) {
      this.remove(connection);
      connection.socket.destroy();
      return;
    }
    // Idle: it does not keep the process alive, and is not taken after the server's hint runs out.
    connection.socket.unref();
    connection.idleUntil = idleMs === undefined ? Infinity : Date.now() + idleMs;
    this.#idle.push(connection);
  }

  remove(connection: Connection): void {
    if (!this.#all.delete(connection)) return;
    const index = this.#idle.indexOf(connection);
    if (index >= 0) this.#idle.splice(index, 1);
    // A place freed up: the next waiter gets a new connection.
    for (let waiter = this.#waiting.shift(); waiter !== undefined; waiter = this.#waiting.shift()) {
      if (waiter.cancelled) continue;
      waiter.run(this.#open());
      return;
    }
  }
}

/** Keep-alive HTTP/1.1 connections per origin; see the module notes. */
export class Http1Pool {
  readonly #options: Http1PoolOptions;
  readonly #origins = new Map<string, Origin>();

  constructor(options: Http1PoolOptions) {
    this.#options = options;
  }

  /**
   * Sends `request` and reports its answer to `handler`. Throws (before anything is sent)
   * the `TypeError` of an invalid header.
   */
  request(request: Http1Request, handler: Http1Handler): Http1Exchange {
    const body = request.body;
    const length = body === undefined ? undefined : typeof body === 'string' ? Buffer.byteLength(body) : body.byteLength;
    const head = requestHead(request, length);
    const secure = request.secure === true;
    const key = `${secure ? 's' : ''}${request.host}:${request.port}`;
    let origin = this.#origins.get(key);
    if (origin === undefined) {
      origin = new Origin(secure, request.host, request.port, this.#options);
      this.#origins.set(key, origin);
    }
    let connection: Connection | undefined;
    const waiter = origin.acquire((c) => {
      connection = c;
      c.start(head, body, handler);
    });
    return {
      abort: () => {
        if (waiter !== undefined) waiter.cancelled = true;
        connection?.abort(handler);
      },
      resume: () => connection?.resume(handler),
    };
  }
}
