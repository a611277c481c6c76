/**
 * The console's responses: every one carries the same security headers (a strict
 * Content-Security-Policy with `frame-ancestors 'none'`, `X-Frame-Options: DENY`, no sniffing,
 * no referrer), API answers are JSON and never cached, errors are `{ "error": sentence }`.
 *
 * @module
 */
import type { HttpResponseLike } from '../transport/http/server/types.js';

/** The Content-Security-Policy of every console response: only this origin's own files, never framed. */
export const CONSOLE_CSP =
  "default-src 'self'; script-src 'self'; style-src 'self'; img-src 'self' data:; media-src 'self' data:; connect-src 'self'; frame-ancestors 'none'; base-uri 'none'; form-action 'self'";

/** The headers every console response carries. */
export const SECURITY_HEADERS: Readonly<Record<string, string>> = Object.freeze({
  'content-security-policy': CONSOLE_CSP,
  'x-frame-options': 'DENY',
  'x-content-type-options': 'nosniff',
  'referrer-policy': 'no-referrer',
  'cross-origin-opener-policy': 'same-origin',
  'cross-origin-resource-policy': 'same-origin',
});

/** A response with the security headers added (they win over the response's own). */
export function secured(response: HttpResponseLike): HttpResponseLike {
  return { ...response, headers: { ...response.headers, ...SECURITY_HEADERS } };
}

/** A JSON answer, never cached. */
export function json(status: number, body: unknown, headers: Readonly<Record<string, string>> = {}): HttpResponseLike {
  return { status, headers: { 'content-type': 'application/json; charset=utf-8', 'cache-control': 'no-store', ...headers }, body: JSON.stringify(body) };
}

/** An error answer: `{ "error": message }`. */
export function failure(status: number, message: string, headers: Readonly<Record<string, string>> = {}): HttpResponseLike {
  return json(status, { error: message }, headers);
}

/** A bad request: the message says what is wrong. */
export class ConsoleRequestError extends Error {
  readonly status: number;

  constructor(status: number, message: string) {
    super(message);
    this.name = 'ConsoleRequestError';
    this.status = status;
  }
}
