/**
 * Wires an `OAuthClientProvider` into the Streamable HTTP client transport: per-request
 * authorization headers (Bearer, or DPoP with a fresh proof) and challenge handling on
 * 401/403, with the `DPoP-Nonce` and request URL passed along. The implementation lives with
 * the host's OAuth wiring (`adapters/hostOAuth.ts`), which uses it for every remote server.
 *
 * @module
 */
export { oauthTransportHooks } from '../adapters/hostOAuth.js';
