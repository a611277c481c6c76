/**
 * Wires an {@link OAuthClientProvider} into the Streamable HTTP client transport: per-request
 * authorization headers (Bearer, or DPoP with a fresh proof) and challenge handling on
 * 401/403, with the `DPoP-Nonce` and request URL passed along.
 *
 * @module
 */
import type { OAuthClientProvider } from '../auth/client/oauthClientProvider.js';
import type { StreamableHttpClientOptions } from '../transport/http/client/clientOptions.js';

/** The transport options that route authorization through `provider`. */
export function oauthTransportHooks(provider: OAuthClientProvider): Pick<StreamableHttpClientOptions, 'authorizationHeaders' | 'onUnauthorized'> {
  return {
    authorizationHeaders: (method, url) => provider.authorizationHeaders(method, url),
    onUnauthorized: (info) =>
      provider.handleChallenge({
        status: info.status,
        wwwAuthenticate: info.wwwAuthenticate ?? null,
        ...(info.url !== undefined ? { resourceUrl: info.url } : {}),
        ...(info.dpopNonce !== undefined ? { dpopNonce: info.dpopNonce } : {}),
      }),
  };
}
