/**
 * The stateful-era session of the Streamable HTTP client (2025-03-26 … 2025-11-25): the
 * negotiated protocol version, the `Mcp-Session-Id`, and the header maps built from them once
 * per change so that each request reuses them.
 *
 * @see https://modelcontextprotocol.io/specification/2025-11-25/basic/transports#session-management
 * @see https://modelcontextprotocol.io/specification/2025-11-25/basic/transports#protocol-version-header
 * @module
 */
import { H, type HeaderMap } from './clientHeaders.js';

/** The session state; {@link postHeaders} and {@link getHeaders} are frozen and shared. */
export class ClientSession {
  readonly #plain: HeaderMap;
  readonly #extra: HeaderMap;
  #id: string | undefined;
  #version: string | undefined;
  #expired = false;
  #post: HeaderMap;
  #get: HeaderMap;

  /**
   * @param plain The POST headers without session facts (`Accept`, `Content-Type`, static extras).
   * @param extra The static extra headers (for GET, which has its own `Accept`).
   */
  constructor(plain: HeaderMap, extra: HeaderMap) {
    this.#plain = plain;
    this.#extra = extra;
    this.#post = plain;
    this.#get = plain;
    this.#rebuild();
  }

  /** The session id, if the server assigned one. */
  get id(): string | undefined {
    return this.#id;
  }

  /** The negotiated protocol version, once `initialize` succeeded. */
  get version(): string | undefined {
    return this.#version;
  }

  /** True after the server answered 404 to our session id, until the next `initialize`. */
  get expired(): boolean {
    return this.#expired;
  }

  /** True when the negotiated revision allows JSON-RPC batches (2025-03-26 only). */
  get allowsBatches(): boolean {
    return this.#version === '2025-03-26';
  }

  /** Headers for a POST in this session. */
  get postHeaders(): HeaderMap {
    return this.#post;
  }

  /** Headers for the GET stream (and resumption) in this session. */
  get getHeaders(): HeaderMap {
    return this.#get;
  }

  /** Records a successful `initialize`. */
  begin(version: string, id: string | undefined): void {
    this.#version = version;
    this.#id = id;
    this.#expired = false;
    this.#rebuild();
  }

  /** Forgets everything (a new `initialize` is under way, or the transport closed). */
  reset(): void {
    this.#id = undefined;
    this.#version = undefined;
    this.#expired = false;
    this.#rebuild();
  }

  /** Marks session `id` as ended by the server; false when `id` is not the current session. */
  expire(id: string | undefined): boolean {
    if (id === undefined || id !== this.#id) return false;
    this.#id = undefined;
    this.#expired = true;
    this.#rebuild();
    return true;
  }

  #rebuild(): void {
    const session: HeaderMap = {};
    // 2025-03-26 has no MCP-Protocol-Version header; later stateful revisions require it.
    if (this.#version !== undefined && this.#version !== '2025-03-26') session[H.protocolVersion] = this.#version;
    if (this.#id !== undefined) session[H.sessionId] = this.#id;
    this.#post = Object.freeze({ ...this.#plain, ...session });
    this.#get = Object.freeze({ ...this.#extra, [H.accept]: 'text/event-stream', ...session });
  }
}
