/**
 * HTTP helpers shared by the authorization layer: the unsafe switches, URL policy, JSON
 * fetching with bounded bodies, and `application/x-www-form-urlencoded` / Basic encodings.
 *
 * Runtime-neutral: only web-standard `fetch`, `URL`, `Headers`, `AbortSignal`.
 *
 * @module
 */

import { AuthError, AuthErrorCode } from './errors.js';

/**
 * Unsafe switch: allow `http:` URLs for metadata, endpoints and resources (local development,
 * test referees on `http://localhost`). A `unique symbol` key, so JSON configuration can never
 * set it (as oauth4webapi's `allowInsecureRequests`). OAuth 2.1 section 1.5 requires HTTPS.
 */
export const allowInsecureRequests: unique symbol = Symbol('switchboard.auth.allowInsecureRequests');

/** A `fetch`-compatible function (the global `fetch`, or an in-process dispatcher in tests). */
export type FetchLike = (input: string | URL | Request, init?: RequestInit) => Promise<Response>;

/** Options carrying the insecure switch. */
export interface InsecureOption {
  /** See {@link allowInsecureRequests}. */
  [allowInsecureRequests]?: boolean;
}

/** The default fetch: the global one, looked up lazily so tests can replace it. */
export function defaultFetch(): FetchLike {
  return (input, init) => globalThis.fetch(input, init);
}

/**
 * Parses `value` as an absolute URL and enforces HTTPS unless the insecure switch is set.
 * Fragments are refused (RFC 8414 / RFC 9728 identifiers and endpoints carry none).
 */
export function requireUrl(value: unknown, what: string, options: InsecureOption = {}): URL {
  if (typeof value !== 'string' || value === '') {
    throw new AuthError(AuthErrorCode.InvalidMetadata, `${what} is missing or not a string`, { cause: value });
  }
  let url: URL;
  try {
    url = new URL(value);
  } catch (cause) {
    throw new AuthError(AuthErrorCode.InvalidMetadata, `${what} is not an absolute URL`, { cause });
  }
  if (url.hash !== '' || value.includes('#')) {
    throw new AuthError(AuthErrorCode.InvalidMetadata, `${what} must not contain a fragment`, { cause: value });
  }
  if (url.protocol !== 'https:' && !(url.protocol === 'http:' && options[allowInsecureRequests] === true)) {
    throw new AuthError(AuthErrorCode.InsecureUrl, `${what} must use https: (got ${url.protocol})`, { cause: value });
  }
  return url;
}

/** True for a plain JSON object (not an array, not null). */
export function isObject(value: unknown): value is Record<string, unknown> {
  return typeof value === 'object' && value !== null && !Array.isArray(value);
}

/** Reads a string member, or `undefined` when absent or not a string. */
export function str(obj: Record<string, unknown>, key: string): string | undefined {
  const v = obj[key];
  return typeof v === 'string' ? v : undefined;
}

/** Reads a string-array member, or `undefined` when absent or malformed. */
export function strArray(obj: Record<string, unknown>, key: string): string[] | undefined {
  const v = obj[key];
  return Array.isArray(v) && v.every((x) => typeof x === 'string') ? (v as string[]) : undefined;
}

/** Largest JSON body accepted from metadata, registration and token endpoints (bytes). */
export const MAX_JSON_BYTES = 256 * 1024;

/**
 * Reads a JSON object body (bounded to {@link MAX_JSON_BYTES}). Throws `InvalidMetadata` with the
 * response as `cause` when the body is not a JSON object.
 */
export async function readJsonObject(response: Response, what: string): Promise<Record<string, unknown>> {
  const text = await response.text();
  if (text.length > MAX_JSON_BYTES) {
    throw new AuthError(AuthErrorCode.InvalidMetadata, `${what}: body too large`, { cause: response });
  }
  let parsed: unknown;
  try {
    parsed = JSON.parse(text);
  } catch {
    throw new AuthError(AuthErrorCode.InvalidMetadata, `${what}: body is not JSON`, { cause: response });
  }
  if (!isObject(parsed)) {
    throw new AuthError(AuthErrorCode.InvalidMetadata, `${what}: body is not a JSON object`, { cause: response });
  }
  return parsed;
}

/** `application/x-www-form-urlencoded` encoding of one component (RFC 6749 appendix B). */
export function formEncode(value: string): string {
  return encodeURIComponent(value).replace(/%20/g, '+').replace(/[!'()*]/g, (c) => `%${c.charCodeAt(0).toString(16).toUpperCase()}`);
}

/**
 * `Authorization: Basic` value for client authentication: id and secret are each form-encoded
 * first ({@link https://datatracker.ietf.org/doc/html/rfc6749#section-2.3.1 | RFC 6749 section 2.3.1}).
 */
export function basicAuthorization(clientId: string, clientSecret: string): string {
  const raw = `${formEncode(clientId)}:${formEncode(clientSecret)}`;
  return `Basic ${btoa(String.fromCharCode(...new TextEncoder().encode(raw)))}`;
}

/** Decodes a `Basic` credential into form-decoded id and secret, or `undefined` when malformed. */
export function parseBasicAuthorization(header: string | null): { clientId: string; clientSecret: string } | undefined {
  if (header === null) return undefined;
  const m = /^Basic[ ]+([A-Za-z0-9+/]+=*)$/i.exec(header.trim());
  if (m === null || m[1] === undefined) return undefined;
  let decoded: string;
  try {
    decoded = new TextDecoder('utf-8', { fatal: true }).decode(Uint8Array.from(atob(m[1]), (c) => c.charCodeAt(0)));
  } catch {
    return undefined;
  }
  const i = decoded.indexOf(':');
  if (i < 0) return undefined;
  try {
    const dec = (s: string): string => decodeURIComponent(s.replace(/\+/g, ' '));
    return { clientId: dec(decoded.slice(0, i)), clientSecret: dec(decoded.slice(i + 1)) };
  } catch {
    return undefined;
  }
}

/** Base64url (no padding) of bytes. */
export function base64url(bytes: Uint8Array): string {
  let bin = '';
  for (const b of bytes) bin += String.fromCharCode(b);
  return btoa(bin).replace(/\+/g, '-').replace(/\//g, '_').replace(/=+$/, '');
}

/** `n` cryptographically random bytes, base64url-encoded. */
export function randomToken(n = 32): string {
  return base64url(crypto.getRandomValues(new Uint8Array(n)));
}

/** SHA-256 of a UTF-8 string, base64url-encoded. */
export async function sha256b64u(value: string): Promise<string> {
  return base64url(new Uint8Array(await crypto.subtle.digest('SHA-256', new TextEncoder().encode(value))));
}

/** Constant-time string comparison (for secrets and verifiers). */
export function timingSafeEqual(a: string, b: string): boolean {
  const ea = new TextEncoder().encode(a);
  const eb = new TextEncoder().encode(b);
  let diff = ea.length ^ eb.length;
  for (let i = 0; i < Math.max(ea.length, eb.length); i++) diff |= (ea[i] ?? 0) ^ (eb[i] ?? 0);
  return diff === 0;
}
