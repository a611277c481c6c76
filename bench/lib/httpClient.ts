/**
 * A minimal keep-alive HTTP/1.1 client on `node:net`, built to be cheaper than the servers it
 * drives: one request in flight per connection (no pipelining), the request written with a
 * single `write`, and the response parsed only as far as needed to find its end
 * (`Content-Length`, or `Transfer-Encoding: chunked`, which is how SSE answers arrive).
 *
 * @module
 */
import { connect, type Socket } from 'node:net';

/** A parsed response. Header names are lower case. */
export interface HttpResponse {
  readonly status: number;
  readonly headers: ReadonlyMap<string, string>;
  readonly body: string;
}

interface Pending {
  resolve(response: HttpResponse): void;
  reject(error: Error): void;
}

const CRLFCRLF = Buffer.from('\r\n\r\n');

/** One keep-alive connection. Call {@link HttpConnection.open}, then `request` one at a time. */
export class HttpConnection {
  readonly #socket: Socket;
  readonly #host: string;
  #buf: Buffer = Buffer.alloc(0);
  #pending: Pending | undefined;
  // Parse state of the response in progress.
  #status = 0;
  #headers: Map<string, string> | undefined;
  #bodyStart = 0;
  #length = -1; // Content-Length, or -1 when chunked
  #chunks: Buffer[] = [];
  #closed: Error | undefined;

  private constructor(socket: Socket, host: string) {
    this.#socket = socket;
    this.#host = host;
    socket.setNoDelay(true);
    socket.on('data', (chunk: Buffer) => this.#onData(chunk));
    socket.on('error', (error) => this.#fail(error));
    socket.on('close', () => this.#fail(new Error('connection closed by the server')));
  }

  /** Opens a connection to `host:port`. */
  static open(host: string, port: number): Promise<HttpConnection> {
    return new Promise((resolve, reject) => {
      const socket = connect({ host, port }, () => {
        socket.off('error', reject);
        resolve(new HttpConnection(socket, `${host}:${port}`));
      });
      socket.once('error', reject);
    });
  }

  /** Sends one request and resolves with the complete response. */
  request(method: string, path: string, headers: Readonly<Record<string, string>>, body = ''): Promise<HttpResponse> {
    if (this.#closed !== undefined) return Promise.reject(this.#closed);
    if (this.#pending !== undefined) return Promise.reject(new Error('a request is already in flight'));
    let head = `${method} ${path} HTTP/1.1\r\nHost: ${this.#host}\r\nConnection: keep-alive\r\n`;
    for (const name in headers) head += `${name}: ${headers[name]}\r\n`;
    head += `Content-Length: ${Buffer.byteLength(body)}\r\n\r\n`;
    return new Promise((resolve, reject) => {
      this.#pending = { resolve, reject };
      this.#socket.write(head + body);
    });
  }

  /** Whether the connection is closed (by us, by the server, or by an error). */
  get closed(): boolean {
    return this.#closed !== undefined;
  }

  /** Closes the connection. */
  close(): void {
    this.#closed ??= new Error('connection closed');
    this.#socket.destroy();
  }

  #fail(error: Error): void {
    this.#closed ??= error;
    const pending = this.#pending;
    this.#pending = undefined;
    pending?.reject(error);
  }

  #onData(chunk: Buffer): void {
    this.#buf = this.#buf.length === 0 ? chunk : Buffer.concat([this.#buf, chunk]);
    try {
      this.#parse();
    } catch (error) {
      this.#fail(error as Error);
      this.#socket.destroy();
    }
  }

  #parse(): void {
    if (this.#headers === undefined) {
      const end = this.#buf.indexOf(CRLFCRLF);
      if (end < 0) return;
      const lines = this.#buf.toString('latin1', 0, end).split('\r\n');
      this.#status = Number((lines[0] ?? '').split(' ')[1]);
      const headers = new Map<string, string>();
      for (let i = 1; i < lines.length; i++) {
        const line = lines[i] as string;
        const colon = line.indexOf(':');
        headers.set(line.slice(0, colon).trim().toLowerCase(), line.slice(colon + 1).trim());
      }
      this.#headers = headers;
      this.#bodyStart = end + 4;
      const length = headers.get('content-length');
      if (length !== undefined) this.#length = Number(length);
      else if (headers.get('transfer-encoding')?.toLowerCase().includes('chunked')) this.#length = -1;
      else if (this.#status === 204 || this.#status === 304 || this.#status < 200) this.#length = 0;
      else throw new Error(`response ${this.#status} has neither Content-Length nor chunked encoding`);
    }
    if (this.#length >= 0) {
      if (this.#buf.length - this.#bodyStart < this.#length) return;
      const body = this.#buf.toString('utf8', this.#bodyStart, this.#bodyStart + this.#length);
      this.#finish(body, this.#bodyStart + this.#length);
      return;
    }
    // Chunked: consume whole chunks; a zero-size chunk (plus the final CRLF) ends the body.
    for (;;) {
      const lineEnd = this.#buf.indexOf('\r\n', this.#bodyStart, 'latin1');
      if (lineEnd < 0) return;
      const size = parseInt(this.#buf.toString('latin1', this.#bodyStart, lineEnd), 16);
      if (Number.isNaN(size)) throw new Error('bad chunk size');
      const dataStart = lineEnd + 2;
      if (size === 0) {
        // No trailers are expected: the terminator is "0\r\n\r\n".
        if (this.#buf.length < dataStart + 2) return;
        this.#finish(Buffer.concat(this.#chunks).toString('utf8'), dataStart + 2);
        return;
      }
      if (this.#buf.length < dataStart + size + 2) return;
      this.#chunks.push(this.#buf.subarray(dataStart, dataStart + size));
      this.#bodyStart = dataStart + size + 2;
    }
  }

  #finish(body: string, consumed: number): void {
    const response: HttpResponse = { status: this.#status, headers: this.#headers as Map<string, string>, body };
    this.#buf = consumed >= this.#buf.length ? Buffer.alloc(0) : this.#buf.subarray(consumed);
    this.#headers = undefined;
    this.#chunks = [];
    this.#length = -1;
    const pending = this.#pending;
    this.#pending = undefined;
    pending?.resolve(response);
  }
}
