/**
 * The Node `http` adapter for the Streamable HTTP server handler: a request listener that
 * feeds `IncomingMessage`s straight into the handler's internal shapes (no WHATWG
 * `Request`/`Response` on the way), and a `listen` helper that binds to loopback by default.
 *
 * - The body is read with the handler's size limit: 413 up front when `Content-Length` is too
 *   big, and as soon as a streamed body outgrows it (the rest is discarded and the
 *   connection closed).
 * - Headers are read in place from `req.headers`, never copied; `Host` from `rawHeaders`, so a
 *   repeated `Host` reaches the handler (which refuses it) instead of being dropped.
 * - JSON answers go out with `Content-Length` in a single `res.end`; SSE answers are written
 *   event by event right after the headers are flushed.
 * - A closed response or socket before the answer is complete aborts `DispatchEnv.signal`
 *   (cancellation), and nothing more is written.
 * - The listener never throws.
 *
 * @see https://modelcontextprotocol.io/specification/2026-07-28/basic/transports/streamable-http#security-%26-endpoint
 * @module
 */
import { createServer, type IncomingMessage, type Server, type ServerResponse } from 'node:http';
import type { AddressInfo, Socket } from 'node:net';
import { pathOf, type StreamableHttpHandler } from '../transport/http/server/server.js';
import { isSseStream, type HttpRequestLike, type HttpResponseLike } from '../transport/http/server/types.js';
import { McpError, McpErrorCode } from '../util/errors.js';
import { silentLogger, type Logger } from '../util/logger.js';
import { spreadCopy } from '../util/object.js';

/** Options for {@link toNodeHandler}. */
export interface NodeHandlerOptions {
  /** Diagnostics. Default: silent. */
  readonly logger?: Logger;
  /**
   * Lingering close after a 413 sent before the body was read: how long the rest of the
   * body is read and discarded, so a client still sending it (one that writes the whole
   * request before reading, like Python's `http.client`) gets the 413 instead of a broken
   * pipe. Default 2,000 ms.
   */
  readonly lingerMs?: number;
  /** Lingering close: how many more bytes are read and discarded at most. Default 32 MiB. */
  readonly lingerBytes?: number;
}

/** The bounds of a lingering close. */
interface Linger {
  readonly ms: number;
  readonly bytes: number;
}

/**
 * A lingering close for a response sent before the request body was read (413): the rest of
 * the body is read and discarded (through the request, so Node's HTTP parser keeps reading),
 * and when Node's HTTP server closes the socket after the `Connection: close` response
 * (`destroySoon()`), the socket is only half-closed instead of destroyed: destroying it while
 * request bytes still arrive sends a TCP reset, which discards the response on the client.
 * The socket is destroyed once the client closes its side, `linger.bytes` more arrived or
 * `linger.ms` passed.
 */
function closeLingering(req: IncomingMessage, linger: Linger): void {
  const socket = req.socket;
  let discarded = 0;
  const stop = (): void => {
    clearTimeout(timer);
    socket.destroy();
  };
  const timer = setTimeout(stop, linger.ms);
  timer.unref();
  req.on('data', (chunk: Buffer) => {
    discarded += chunk.length;
    if (discarded > linger.bytes) stop();
  });
  req.resume();
  socket.once('error', stop);
  (socket as Socket & { destroySoon?: () => void }).destroySoon = () => {
    socket.once('end', stop);
    socket.end();
  };
}

/** A Node request listener. */
export type NodeRequestListener = (req: IncomingMessage, res: ServerResponse) => void;

function readNodeBody(req: IncomingMessage, max: number): Promise<Uint8Array | undefined> {
  return new Promise((resolve, reject) => {
    const chunks: Buffer[] = [];
    let total = 0;
    const cleanup = (): void => {
      req.off('data', onData);
      req.off('end', onEnd);
      req.off('error', onError);
      req.off('close', onClose);
    };
    const onData = (chunk: Buffer): void => {
      total += chunk.length;
      if (total > max) {
        cleanup();
        // Keep the stream flowing so the remainder is discarded, not buffered.
        req.resume();
        resolve(undefined);
        return;
      }
      chunks.push(chunk);
    };
    const onEnd = (): void => {
      cleanup();
      resolve(chunks.length === 1 ? (chunks[0] as Buffer) : Buffer.concat(chunks, total));
    };
    const onError = (error: Error): void => {
      cleanup();
      reject(error);
    };
    const onClose = (): void => {
      cleanup();
      reject(new Error('the request was closed before its body was complete'));
    };
    req.on('data', onData);
    req.on('end', onEnd);
    req.on('error', onError);
    req.on('close', onClose);
  });
}

function writeResponse(req: IncomingMessage, res: ServerResponse, response: HttpResponseLike, linger: Linger): void {
  const body = response.body;
  if (res.destroyed || res.writableEnded) {
    if (isSseStream(body)) body.cancel(new Error('the client closed the connection'));
    return;
  }
  if (body === undefined) {
    res.writeHead(response.status, response.headers);
    res.end();
    return;
  }
  if (typeof body === 'string' || body instanceof Uint8Array) {
    const length = typeof body === 'string' ? Buffer.byteLength(body) : body.byteLength;
    // Not `{ ...response.headers, 'content-length': length }`: slow on Node 20 (util/object.ts).
    const headers: Record<string, string | number> = spreadCopy(response.headers);
    headers['content-length'] = length;
    if (response.status === 413 && !req.complete) {
      // The rest of an oversized body is never parsed: close, lingering so the 413 arrives.
      headers['connection'] = 'close';
      closeLingering(req, linger);
    }
    res.writeHead(response.status, headers);
    res.end(body);
    return;
  }
  res.writeHead(response.status, response.headers);
  res.flushHeaders();
  const onClose = (): void => body.cancel(clientGone());
  res.once('close', onClose);
  body.start({
    write: (chunk) => {
      if (!res.destroyed) res.write(chunk);
    },
    end: () => {
      res.off('close', onClose);
      if (!res.destroyed) res.end();
    },
    buffered: () => res.writableLength,
    abort: () => {
      res.off('close', onClose);
      res.destroy();
    },
  });
}

/**
 * The request's `Host` field: Node's parser keeps only the first of repeated `Host` lines in
 * `req.headers`, so they are read from `rawHeaders` and joined with `, ` (which the handler
 * answers with 400, RFC 9112 section 3.2) instead of silently dropped.
 *
 * @see https://www.rfc-editor.org/rfc/rfc9112#section-3.2
 */
function hostOf(req: IncomingMessage): string | undefined {
  const raw = req.rawHeaders;
  let found: string | undefined;
  for (let i = 0; i < raw.length; i += 2) {
    const name = raw[i] as string;
    if (name.length !== 4 || name.toLowerCase() !== 'host') continue;
    found = found === undefined ? (raw[i + 1] as string) : `${found}, ${raw[i + 1] as string}`;
  }
  return found;
}

/** The abort reason of a request whose client disconnected (an ordinary end, see `isCancellation`). */
const clientGone = (): McpError => new McpError(McpErrorCode.ConnectionClosed, 'The client closed the connection');

/**
 * Wraps a Streamable HTTP handler as a Node `http` request listener.
 *
 * @example
 * ```ts
 * const server = http.createServer(toNodeHandler(createStreamableHttpHandler(dispatcher)));
 * server.listen(3000, '127.0.0.1');
 * ```
 */
export function toNodeHandler(handler: StreamableHttpHandler, options: NodeHandlerOptions = {}): NodeRequestListener {
  const logger = options.logger ?? silentLogger;
  const max = handler.maxBodyBytes;
  const linger: Linger = { ms: options.lingerMs ?? 2000, bytes: options.lingerBytes ?? 32 * 1024 * 1024 };
  return (req, res) => {
    try {
      // A plain listener instead of an AbortController: creating AbortSignals is slow on Node 20.
      let gone = false;
      let onGone: ((reason: unknown) => void) | undefined;
      res.once('close', () => {
        if (res.writableFinished) return;
        gone = true;
        onGone?.(clientGone());
      });
      const headers = req.headers;
      const target = req.url ?? '/';
      const q = target.indexOf('?');
      const request: HttpRequestLike = {
        method: req.method ?? 'GET',
        path: pathOf(target),
        query: q < 0 ? undefined : target.slice(q + 1),
        header: (name) => {
          if (name === 'host') return hostOf(req);
          const value = headers[name];
          return typeof value === 'string' ? value : value === undefined ? undefined : value.join(', ');
        },
        body: (limit) => readNodeBody(req, Math.min(limit, max)),
        remoteAddress: req.socket.remoteAddress,
        onAbort: (listener) => {
          if (gone) listener(clientGone());
          else onGone = listener;
        },
      };
      handler.handle(request).then(
        (response) => {
          try {
            writeResponse(req, res, response, linger);
          } catch (e) {
            logger.error('writing the HTTP response failed', { error: String(e) });
            res.destroy();
          }
        },
        (error: unknown) => {
          // handle() never rejects; be safe anyway.
          logger.error('the HTTP handler rejected', { error: String(error) });
          if (!res.headersSent) {
            res.writeHead(500);
            res.end();
          } else res.destroy();
        },
      );
    } catch (e) {
      logger.error('the HTTP listener failed', { error: String(e) });
      try {
        res.destroy();
      } catch {
        // ignore
      }
    }
  };
}

/** Options for {@link listen}. */
export interface ListenOptions {
  /** The port; 0 (default) picks a free one. */
  readonly port?: number;
  /** The interface to bind. Default `127.0.0.1` (local servers SHOULD NOT bind 0.0.0.0). */
  readonly host?: string;
  /** Diagnostics. Default: silent. */
  readonly logger?: Logger;
  /** Connection limits and request timeouts (slowloris). Default {@link DEFAULT_SERVER_LIMITS}. */
  readonly limits?: Partial<ServerLimits>;
}

/**
 * What one client may hold of a {@link listen} server: connections, and how long it may take
 * to send a request. The timeouts bound RECEIVING a request only (Node's `headersTimeout` and
 * `requestTimeout` stop counting once the request is complete), so a long SSE response (a GET
 * stream, a streamed tool result) is never cut by them.
 */
export interface ServerLimits {
  /** Most open connections; past it a new connection is closed at once, unread. */
  readonly maxConnections: number;
  /** Time (ms) to receive a request's headers, counted from its first byte (or the connection's start): 408 and close. */
  readonly headersTimeoutMs: number;
  /** Time (ms) to receive a whole request, headers and body: 408 and close. At least `headersTimeoutMs`. */
  readonly requestTimeoutMs: number;
  /** How long (ms) an idle keep-alive connection stays open between requests. */
  readonly keepAliveTimeoutMs: number;
}

/** The defaults of {@link ServerLimits}: 1,024 connections, 10 s for headers, 30 s for a request, 5 s keep-alive. */
export const DEFAULT_SERVER_LIMITS: ServerLimits = Object.freeze({ maxConnections: 1024, headersTimeoutMs: 10_000, requestTimeoutMs: 30_000, keepAliveTimeoutMs: 5_000 });

/** The Node server options of `limits`; the timeouts are checked every second at most (Node's default is 30 s). */
function serverOptionsOf(limits: ServerLimits): { headersTimeout: number; requestTimeout: number; keepAliveTimeout: number; connectionsCheckingInterval: number } {
  const requestTimeout = limits.requestTimeoutMs;
  const headersTimeout = Math.min(limits.headersTimeoutMs, requestTimeout);
  return { headersTimeout, requestTimeout, keepAliveTimeout: limits.keepAliveTimeoutMs, connectionsCheckingInterval: Math.max(50, Math.min(1000, Math.floor(headersTimeout / 4))) };
}

/** Logs connections refused at `maxConnections`: the first at once, then a count at most every 10 s. */
function logDrops(server: Server, logger: Logger, max: number): void {
  let dropped = 0;
  let lastWarn = 0;
  server.on('drop', () => {
    dropped++;
    const now = Date.now();
    if (now - lastWarn < 10_000) return;
    logger.warn('refusing connections: maxConnections reached', { maxConnections: max, refused: dropped });
    lastWarn = now;
    dropped = 0;
  });
}

/** A running server from {@link listen}. */
export interface ListeningServer {
  /** The Node server. */
  readonly server: Server;
  /** The bound address. */
  readonly host: string;
  /** The bound port. */
  readonly port: number;
  /** `http://host:port/` with IPv6 hosts bracketed. */
  readonly url: string;
  /** Ends the handler's stateful sessions, stops accepting connections, closes open ones (SSE streams included) and resolves when done. */
  close(): Promise<void>;
}

/**
 * Starts a Node `http` server for the handler, on 127.0.0.1 unless told otherwise, with
 * bounded connections and request timeouts ({@link ServerLimits}), and resolves once it is bound.
 *
 * @example
 * ```ts
 * const { url, close } = await listen(handler, { port: 0 });
 * ```
 */
export function listen(handler: StreamableHttpHandler, options: ListenOptions = {}): Promise<ListeningServer> {
  const limits: ServerLimits = { ...DEFAULT_SERVER_LIMITS, ...options.limits };
  const server = createServer(serverOptionsOf(limits), toNodeHandler(handler, options.logger === undefined ? {} : { logger: options.logger }));
  server.maxConnections = limits.maxConnections;
  logDrops(server, options.logger ?? silentLogger, limits.maxConnections);
  return new Promise((resolve, reject) => {
    server.once('error', reject);
    server.listen(options.port ?? 0, options.host ?? '127.0.0.1', () => {
      server.off('error', reject);
      const address = server.address() as AddressInfo;
      const host = address.address;
      const shown = host.includes(':') ? `[${host}]` : host;
      resolve({
        server,
        host,
        port: address.port,
        url: `http://${shown}:${address.port}/`,
        close: async () => {
          // Stateful sessions end with the server (their streams would dangle otherwise).
          await handler.close();
          await new Promise<void>((done, fail) => {
            server.close((error) => (error === undefined ? done() : fail(error)));
            server.closeAllConnections();
          });
        },
      });
    });
  });
}
