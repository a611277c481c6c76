/**
 * Integrity- and confidentiality-protected `requestState` for multi round-trip requests.
 *
 * The spec tells servers to treat a returned `requestState` as attacker-controlled and, when
 * it affects authorization or business logic, to protect it and bind it to the principal, a
 * short expiry and the originating request. Switchboard seals every state it issues with
 * AES-256-GCM (authenticated encryption: tampering is detected and the content, which may
 * hold earlier answers of the user, is not readable by the client), binding inside the
 * sealed payload: the method, a SHA-256 digest of the salient params, the principal, an
 * expiry, and a nonce that a {@link NonceStore} can consume for single-use states.
 *
 * @see https://modelcontextprotocol.io/specification/2026-07-28/basic/patterns/mrtr
 * @module
 */
import { McpError, McpErrorCode } from '../util/errors.js';

/** Remembers consumed nonces so a single-use state cannot be replayed. */
export interface NonceStore {
  /**
   * Marks `nonce` used until `expiresAt` (epoch ms). Resolves false when it was already
   * used. A shared implementation (Redis, SQL) makes replay protection hold across instances.
   */
  consume(nonce: string, expiresAt: number): boolean | Promise<boolean>;
}

/** An in-process {@link NonceStore}; expired entries are swept as new ones arrive. */
export class MemoryNonceStore implements NonceStore {
  readonly #used = new Map<string, number>();
  readonly #now: () => number;
  #nextSweep = 0;

  constructor(options: { now?: () => number } = {}) {
    this.#now = options.now ?? Date.now;
  }

  consume(nonce: string, expiresAt: number): boolean {
    const now = this.#now();
    if (now >= this.#nextSweep) {
      for (const [key, exp] of this.#used) if (exp <= now) this.#used.delete(key);
      this.#nextSweep = now + 60_000;
    }
    const seen = this.#used.get(nonce);
    if (seen !== undefined && seen > now) return false;
    this.#used.set(nonce, expiresAt);
    return true;
  }

  /** Number of remembered nonces (for tests and metrics). */
  get size(): number {
    return this.#used.size;
  }
}

/** Options for {@link RequestStateSealer.create}. */
export interface RequestStateOptions {
  /**
   * 32-byte AES keys. The first seals; all are tried when opening (key rotation). Default:
   * one random key per process — set a shared key when several instances serve one client.
   */
  readonly keys?: readonly Uint8Array[];
  /** How long an issued state stays valid, in ms. Default 10 minutes. */
  readonly ttlMs?: number;
  /** Where single-use nonces are recorded. Default: in memory. */
  readonly nonceStore?: NonceStore;
  /** The clock (epoch ms). */
  readonly now?: () => number;
}

/** What a state is bound to; all of it is checked when the state comes back. */
export interface StateBinding {
  /** The request method (`tools/call`, `prompts/get`, `resources/read`). */
  readonly method: string;
  /** Digest of the salient params (see {@link digestParams}). */
  readonly digest: string;
  /** The authenticated principal, or '' when anonymous. */
  readonly principal: string;
}

/** The content sealed into a state. */
export interface StateContent {
  /** Answers gathered in earlier rounds, by input key. */
  readonly answers: Readonly<Record<string, unknown>>;
  /** Handler-defined data carried between rounds. */
  readonly data?: unknown;
  /** The round that issued this state (1 for the first input request). */
  readonly round: number;
  /** Reject a second use of this state. */
  readonly singleUse?: boolean;
}

/** Why a returned state was refused. */
export type StateRejection = 'malformed' | 'tampered' | 'expired' | 'wrong-method' | 'wrong-params' | 'wrong-principal' | 'replayed';

/** The outcome of {@link RequestStateSealer.open}. */
export type OpenedState = { readonly ok: true; readonly content: StateContent } | { readonly ok: false; readonly reason: StateRejection };

interface Payload {
  v: 1;
  m: string;
  d: string;
  p: string;
  e: number;
  n: string;
  r: number;
  a: Record<string, unknown>;
  x?: unknown;
  s?: true;
}

const PREFIX = 'sb1.';
const encoder = new TextEncoder();
const decoder = new TextDecoder();

function toBase64Url(bytes: Uint8Array): string {
  let binary = '';
  for (let i = 0; i < bytes.length; i++) binary += String.fromCharCode(bytes[i] as number);
  return btoa(binary).replace(/\+/g, '-').replace(/\//g, '_').replace(/=+$/, '');
}

function fromBase64Url(text: string): Uint8Array<ArrayBuffer> | undefined {
  if (!/^[A-Za-z0-9_-]*$/.test(text)) return undefined;
  try {
    const binary = atob(text.replace(/-/g, '+').replace(/_/g, '/'));
    const out = new Uint8Array(binary.length);
    for (let i = 0; i < binary.length; i++) out[i] = binary.charCodeAt(i);
    return out;
  } catch {
    return undefined;
  }
}

/** JSON with object keys sorted, so equal values always give equal text. */
export function canonicalJson(value: unknown): string {
  if (value === null || typeof value !== 'object') return JSON.stringify(value) ?? 'null';
  if (Array.isArray(value)) return `[${value.map(canonicalJson).join(',')}]`;
  const keys = Object.keys(value).sort();
  const parts: string[] = [];
  for (const key of keys) {
    const v = (value as Record<string, unknown>)[key];
    if (v !== undefined) parts.push(`${JSON.stringify(key)}:${canonicalJson(v)}`);
  }
  return `{${parts.join(',')}}`;
}

/**
 * SHA-256 (base64url) of the params that identify a request, minus the MRTR fields and
 * `_meta`: the same call retried gives the same digest, any other call a different one.
 */
export async function digestParams(params: Readonly<Record<string, unknown>>): Promise<string> {
  const salient: Record<string, unknown> = {};
  for (const key of Object.keys(params)) {
    if (key !== '_meta' && key !== 'inputResponses' && key !== 'requestState') salient[key] = params[key];
  }
  const hash = await crypto.subtle.digest('SHA-256', encoder.encode(canonicalJson(salient)));
  return toBase64Url(new Uint8Array(hash));
}

/** Seals and opens `requestState` values. Create with {@link RequestStateSealer.create}. */
export class RequestStateSealer {
  readonly #keys: readonly CryptoKey[];
  readonly #ttlMs: number;
  readonly #nonces: NonceStore;
  readonly #now: () => number;

  private constructor(keys: readonly CryptoKey[], options: RequestStateOptions) {
    this.#keys = keys;
    this.#ttlMs = options.ttlMs ?? 10 * 60_000;
    this.#nonces = options.nonceStore ?? new MemoryNonceStore(options.now ? { now: options.now } : {});
    this.#now = options.now ?? Date.now;
  }

  /** Imports the keys (or makes a random one). */
  static async create(options: RequestStateOptions = {}): Promise<RequestStateSealer> {
    const raw = options.keys ?? [crypto.getRandomValues(new Uint8Array(32))];
    if (raw.length === 0) throw new McpError(McpErrorCode.InvalidArgument, 'requestState needs at least one key');
    const keys = await Promise.all(
      raw.map((k) => {
        if (k.byteLength !== 32) throw new McpError(McpErrorCode.InvalidArgument, 'requestState keys must be 32 bytes (AES-256)');
        return crypto.subtle.importKey('raw', new Uint8Array(k), { name: 'AES-GCM' }, false, ['encrypt', 'decrypt']);
      }),
    );
    return new RequestStateSealer(keys, options);
  }

  /** Seals `content` bound to `binding`; the result is an opaque printable string. */
  async seal(binding: StateBinding, content: StateContent): Promise<string> {
    const payload: Payload = {
      v: 1,
      m: binding.method,
      d: binding.digest,
      p: binding.principal,
      e: this.#now() + this.#ttlMs,
      n: toBase64Url(crypto.getRandomValues(new Uint8Array(16))),
      r: content.round,
      a: { ...content.answers },
    };
    if (content.data !== undefined) payload.x = content.data;
    if (content.singleUse === true) payload.s = true;
    const iv = crypto.getRandomValues(new Uint8Array(12));
    const key = this.#keys[0] as CryptoKey;
    const sealed = new Uint8Array(await crypto.subtle.encrypt({ name: 'AES-GCM', iv }, key, encoder.encode(JSON.stringify(payload))));
    const out = new Uint8Array(iv.length + sealed.length);
    out.set(iv, 0);
    out.set(sealed, iv.length);
    return PREFIX + toBase64Url(out);
  }

  /** Opens a state returned by a client and checks every binding. Never throws. */
  async open(token: string, expected: StateBinding): Promise<OpenedState> {
    if (typeof token !== 'string' || !token.startsWith(PREFIX) || token.length > 1_000_000) return { ok: false, reason: 'malformed' };
    const bytes = fromBase64Url(token.slice(PREFIX.length));
    if (bytes === undefined || bytes.length < 12 + 16) return { ok: false, reason: 'malformed' };
    const iv = bytes.subarray(0, 12);
    const body = bytes.subarray(12);
    let plain: ArrayBuffer | undefined;
    for (const key of this.#keys) {
      try {
        plain = await crypto.subtle.decrypt({ name: 'AES-GCM', iv }, key, body);
        break;
      } catch {
        // try the next key
      }
    }
    if (plain === undefined) return { ok: false, reason: 'tampered' };
    let payload: Payload;
    try {
      payload = JSON.parse(decoder.decode(plain)) as Payload;
    } catch {
      return { ok: false, reason: 'tampered' };
    }
    if (payload.v !== 1) return { ok: false, reason: 'malformed' };
    if (this.#now() >= payload.e) return { ok: false, reason: 'expired' };
    if (payload.m !== expected.method) return { ok: false, reason: 'wrong-method' };
    if (payload.p !== expected.principal) return { ok: false, reason: 'wrong-principal' };
    if (payload.d !== expected.digest) return { ok: false, reason: 'wrong-params' };
    if (payload.s === true && !(await this.#nonces.consume(payload.n, payload.e))) return { ok: false, reason: 'replayed' };
    const content: StateContent = {
      answers: payload.a,
      round: payload.r,
      ...(payload.x !== undefined ? { data: payload.x } : {}),
      ...(payload.s === true ? { singleUse: true } : {}),
    };
    return { ok: true, content };
  }
}
