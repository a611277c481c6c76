/**
 * Switchboard authorization: a standalone OAuth 2.1 library for MCP
 * ({@link https://modelcontextprotocol.io/specification/2026-07-28/basic/authorization | MCP authorization}).
 *
 * - Resource server: {@link protectedResourceMetadata}, {@link createBearerVerifier} (Bearer and
 *   DPoP-bound tokens), {@link verifyDpopProof}, {@link scopesForRequest}.
 * - Client: {@link createOAuthClientProvider} and the discovery, registration, authorization and
 *   token-endpoint building blocks, {@link MemoryTokenStore}, DPoP.
 * - The development-only authorization server is not here: it has its own subpath,
 *   `switchboard/auth/dev`, so nobody ships it by accident.
 *
 * Imports only web standards and `jose`; runs on any runtime with `fetch` and `crypto.subtle`.
 *
 * @module
 */

export { AuthError, AuthErrorCode, isAuthError, oauthErrorName, type AuthErrorOptions } from './errors.js';
export { allowInsecureRequests, type FetchLike, type InsecureOption } from './http.js';
export { expandScopes, formatScope, missingScopes, parseScope, unionScopes, type ScopeImplies } from './scopes.js';
export { findChallenge, formatChallenge, parseWwwAuthenticate, type AuthChallenge } from './wwwAuthenticate.js';

export {
  PRM_WELL_KNOWN,
  protectedResourceMetadata,
  protectedResourceMetadataUrl,
  type ProtectedResourceMetadata,
  type ProtectedResourceMetadataDocument,
  type ProtectedResourceMetadataOptions,
} from './resource/protectedResourceMetadata.js';
export {
  DEFAULT_ALGORITHMS,
  createBearerVerifier,
  unsafeSymmetricSecret,
  type BearerVerifier,
  type BearerVerifierCommonOptions,
  type BearerVerifierOptions,
  type ChallengeParams,
  type IntrospectionBearerVerifierOptions,
  type JwtBearerVerifierOptions,
  type AuthScheme,
  type DpopVerifierOptions,
  type RemoteJwksOptions,
  type VerifyOptions,
} from './resource/bearerVerifier.js';
export {
  DEFAULT_DPOP_ALGORITHMS,
  InMemoryDpopReplayCache,
  createDpopNonceSource,
  normalizeHtu,
  verifyDpopProof,
  type DpopNonceSource,
  type DpopNonceSourceOptions,
  type SyncDpopNonceSource,
  type DpopProofChallengeError,
  type DpopProofOptions,
  type DpopReplayCache,
  type InMemoryDpopReplayCacheOptions,
  type VerifiedDpopProof,
} from './resource/dpopProof.js';
export type { IntrospectionOptions } from './resource/introspection.js';
export type { VerifiedPrincipal } from './resource/principal.js';
export { subjectTokenOf } from './resource/subjectToken.js';
export { isAuthorizedFor, scopesForRequest, type ScopePolicy, type ScopedRequest } from './resource/scopesForRequest.js';

export {
  authorizationServerMetadataCandidates,
  discoverAuthorizationServer,
  discoverProtectedResource,
  protectedResourceMetadataCandidates,
  resourceMatchesServer,
  type AuthorizationServerDiscoveryOptions,
  type AuthorizationServerMetadata,
  type DiscoveryOptions,
  type ResourceMetadata,
} from './client/discovery.js';
export {
  createAuthorizationRequest,
  followRedirectAuthorizer,
  parseAuthorizationResponse,
  validateAuthorizationResponse,
  type AuthorizationRequestOptions,
  type AuthorizationResponse,
  type Authorizer,
  type AuthorizerContext,
  type PendingAuthorization,
} from './client/authorization.js';
export { codeChallengeS256, createPkce, type Pkce } from './client/pkce.js';
export {
  inferApplicationType,
  obtainClientRegistration,
  type ClientMetadata,
  type PreRegisteredClient,
  type RegistrationOptions,
} from './client/registration.js';
export {
  clientCredentialsGrant,
  exchangeAuthorizationCode,
  jwtBearerGrant,
  refreshAccessToken,
  selectTokenEndpointAuthMethod,
  tokenRequest,
  type TokenEndpointContext,
  type TokenResponse,
} from './client/tokenEndpoint.js';
export { TOKEN_EXCHANGE_GRANT_TYPE, TokenTypeUri, exchangeToken, type TokenExchangeRequest } from './client/tokenExchange.js';
export { MemoryTokenStore, type ClientRegistration, type TokenEndpointAuthMethod, type TokenSet, type TokenStore } from './client/tokenStore.js';
export { createDpopProofer, generateDpopKey, type DpopKey, type DpopProofer } from './client/dpop.js';
export {
  createOAuthClientProvider,
  type ChallengeInput,
  type ClientGrant,
  type OAuthClientProvider,
  type OAuthClientProviderOptions,
} from './client/oauthClientProvider.js';
