/**
 * Token revocation at the authorization server
 * ({@link https://www.rfc-editor.org/rfc/rfc7009 | RFC 7009}): a client tells the authorization
 * server that a refresh or access token it holds is no longer needed, so the server invalidates
 * it (and, for a refresh token, the access tokens issued from the same grant, section 2.1).
 *
 * - The endpoint is the metadata's `revocation_endpoint` (RFC 8414 section 2); without one the
 *   answer is `unsupported`, never an error.
 * - The client authenticates as at the token endpoint ({@link authenticateClient}: `none`,
 *   `client_secret_basic`, `client_secret_post`, `private_key_jwt`); the authorization server
 *   refuses a token issued to another client (section 2.1).
 * - https only, unless the insecure switch is set ({@link allowInsecureRequests}); redirects are
 *   refused; each request is bounded ({@link REVOCATION_TIMEOUT_MS} unless told otherwise).
 * - HTTP 200 is success, also for a token the server no longer knows (section 2.2);
 *   `unsupported_token_type` (section 2.2.1) is `unsupported`; anything else is a failure with
 *   its reason. The function never throws: revocation is best effort for its callers, who report
 *   the outcome.
 *
 * @module
 */

import { type InsecureOption, isObject, requireUrl, str } from '../http.js';
import { authenticateClient, type TokenEndpointContext } from './tokenEndpoint.js';

/** How long one revocation request may take before it is given up: 5 s. */
export const REVOCATION_TIMEOUT_MS = 5_000;

/** Which kind of token is revoked (RFC 7009 section 2.1 `token_type_hint`). */
export type RevocationTokenHint = 'refresh_token' | 'access_token';

/** The outcome of one {@link revokeToken}. */
export type RevocationResult =
  | { readonly revoked: true }
  | { readonly revoked: 'unsupported'; readonly reason: string }
  | { readonly revoked: false; readonly reason: string };

/** What {@link revokeToken} needs: the token endpoint's context plus the insecure switch and a timeout. */
export interface RevocationContext extends TokenEndpointContext, InsecureOption {
  /** Per request (default {@link REVOCATION_TIMEOUT_MS}). */
  readonly timeoutMs?: number;
}

/** Revokes `token` at `ctx.metadata.revocation_endpoint` as `ctx.client`; never throws. */
export async function revokeToken(ctx: RevocationContext, token: string, hint: RevocationTokenHint): Promise<RevocationResult> {
  const endpoint = ctx.metadata.revocation_endpoint;
  if (endpoint === undefined) return { revoked: 'unsupported', reason: `${ctx.metadata.issuer} advertises no revocation_endpoint` };
  const timeoutMs = ctx.timeoutMs ?? REVOCATION_TIMEOUT_MS;
  const timeout = new AbortController();
  const timer = setTimeout(() => timeout.abort(new Error(`timed out after ${timeoutMs} ms`)), timeoutMs);
  const signal = ctx.signal !== undefined ? AbortSignal.any([ctx.signal, timeout.signal]) : timeout.signal;
  try {
    const url = requireUrl(endpoint, 'revocation_endpoint', ctx);
    const body = new URLSearchParams({ token, token_type_hint: hint });
    const headers: Record<string, string> = { accept: 'application/json', 'content-type': 'application/x-www-form-urlencoded' };
    await authenticateClient(ctx, body, headers);
    if (ctx.dpop !== undefined) headers['dpop'] = await ctx.dpop.proof('POST', url.href);
    const response = await ctx.fetch(url.href, { method: 'POST', headers, body: body.toString(), redirect: 'error', signal });
    if (response.ok) {
      await response.body?.cancel();
      return { revoked: true };
    }
    let data: unknown;
    try {
      data = await response.json();
    } catch {
      data = undefined;
    }
    const error = isObject(data) ? str(data, 'error') : undefined;
    if (error === 'unsupported_token_type') return { revoked: 'unsupported', reason: `${ctx.metadata.issuer} does not revoke ${hint === 'refresh_token' ? 'refresh' : 'access'} tokens (unsupported_token_type)` };
    const description = isObject(data) ? str(data, 'error_description') : undefined;
    return { revoked: false, reason: `the revocation endpoint answered ${response.status}${error !== undefined ? ` ${error}` : ''}${description !== undefined ? `: ${description}` : ''}` };
  } catch (error) {
    if (timeout.signal.aborted) return { revoked: false, reason: `the revocation endpoint did not answer within ${timeoutMs} ms` };
    return { revoked: false, reason: error instanceof Error ? error.message : String(error) };
  } finally {
    clearTimeout(timer);
  }
}
