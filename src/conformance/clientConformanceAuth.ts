/**
 * OAuth for the conformance fixture (`conformanceClient.ts`): builds the
 * {@link OAuthClientProvider} each `auth/*` scenario of the official referee needs, and the
 * transport hooks that wire it into {@link StreamableHttpClientTransport}.
 *
 * Every scenario runs the same library code; only the configuration differs:
 *
 * - authorization code + PKCE with {@link followRedirectAuthorizer} (the referee's AS answers
 *   the authorization GET with an immediate 302), CIMD where supported, else DCR;
 * - `auth/pre-registration`: the context's `client_id`/`client_secret`;
 * - `auth/client-credentials-*`: the client credentials grant (secret or `private_key_jwt`);
 * - `auth/wif-jwt-bearer`: the RFC 7523 JWT bearer grant with the workload JWT;
 * - `auth/enterprise-managed-authorization`: RFC 8693 token exchange at the IdP for an ID-JAG,
 *   then the JWT bearer grant with it (SEP-990);
 * - `auth/dpop*`: a DPoP key, so tokens are sender-constrained and every request carries a proof.
 *
 * Pre-registered credentials are bound to the issuer the PRM names (learned when the provider
 * selects the authorization server), never to any other.
 *
 * @module
 */
import * as jose from 'jose';
import { allowInsecureRequests } from '../auth/http.js';
import { followRedirectAuthorizer } from '../auth/client/authorization.js';
import { generateDpopKey } from '../auth/client/dpop.js';
import { createOAuthClientProvider, type ClientGrant, type OAuthClientProvider, type OAuthClientProviderOptions } from '../auth/client/oauthClientProvider.js';
import type { PreRegisteredClient } from '../auth/client/registration.js';

/** The CIMD URL the referee expects (an identifier, never fetched by us). */
export const CONFORMANCE_CLIENT_METADATA_URL = 'https://conformance-test.local/client-metadata.json';

/** The loopback redirect URI the fixture registers (nothing listens: the AS redirects at once). */
const REDIRECT_URI = 'http://localhost:3000/callback';

const TOKEN_EXCHANGE = 'urn:ietf:params:oauth:grant-type:token-exchange';

/** The scenario context handed over in `MCP_CONFORMANCE_CONTEXT`. */
export type ConformanceContext = Readonly<Record<string, unknown>>;

function field(context: ConformanceContext, name: string): string {
  const value = context[name];
  if (typeof value !== 'string' || value === '') throw new Error(`MCP_CONFORMANCE_CONTEXT lacks ${name}`);
  return value;
}

/** RFC 8693 token exchange at the IdP: the ID token for an ID-JAG aimed at `audience`. */
async function exchangeForIdJag(context: ConformanceContext, audience: string, resource: string): Promise<string> {
  const body = new URLSearchParams({
    grant_type: TOKEN_EXCHANGE,
    subject_token: field(context, 'idp_id_token'),
    subject_token_type: 'urn:ietf:params:oauth:token-type:id_token',
    requested_token_type: 'urn:ietf:params:oauth:token-type:id-jag',
    audience,
    resource,
    client_id: field(context, 'idp_client_id'),
  });
  const response = await fetch(field(context, 'idp_token_endpoint'), {
    method: 'POST',
    headers: { 'content-type': 'application/x-www-form-urlencoded', accept: 'application/json' },
    body: body.toString(),
  });
  const data = (await response.json().catch(() => undefined)) as { access_token?: unknown } | undefined;
  if (!response.ok || typeof data?.access_token !== 'string') throw new Error(`the IdP token exchange failed (${response.status})`);
  return data.access_token;
}

/** Builds the OAuth client provider for one `auth/*` scenario. */
export async function conformanceOAuthProvider(scenario: string, serverUrl: string, context: ConformanceContext): Promise<OAuthClientProvider> {
  const preRegistered: Record<string, PreRegisteredClient> = {};
  let pending: PreRegisteredClient | undefined;
  let issuer: string | undefined;
  let grant: ClientGrant = 'authorization_code';

  switch (scenario) {
    case 'auth/pre-registration':
      pending = { clientId: field(context, 'client_id'), clientSecret: field(context, 'client_secret') };
      break;
    case 'auth/client-credentials-basic':
      grant = 'client_credentials';
      pending = { clientId: field(context, 'client_id'), clientSecret: field(context, 'client_secret'), tokenEndpointAuthMethod: 'client_secret_basic' };
      break;
    case 'auth/client-credentials-jwt': {
      grant = 'client_credentials';
      const alg = typeof context['signing_algorithm'] === 'string' ? context['signing_algorithm'] : 'ES256';
      const privateKey = await jose.importPKCS8(field(context, 'private_key_pem'), alg);
      pending = { clientId: field(context, 'client_id'), privateKey, signingAlg: alg, tokenEndpointAuthMethod: 'private_key_jwt' };
      break;
    }
    case 'auth/wif-jwt-bearer': {
      const jwt = field(context, 'valid_jwt');
      grant = { type: 'jwt_bearer', assertion: () => Promise.resolve(jwt) };
      pending = { clientId: field(context, 'client_id'), tokenEndpointAuthMethod: 'none' };
      break;
    }
    case 'auth/enterprise-managed-authorization':
      grant = {
        type: 'jwt_bearer',
        assertion: () => {
          if (issuer === undefined) return Promise.reject(new Error('no authorization server selected yet'));
          return exchangeForIdJag(context, issuer, serverUrl);
        },
      };
      pending = { clientId: field(context, 'client_id'), clientSecret: field(context, 'client_secret'), tokenEndpointAuthMethod: 'client_secret_basic' };
      break;
  }

  const options: OAuthClientProviderOptions = {
    serverUrl,
    [allowInsecureRequests]: true,
    grant,
    preRegistered,
    selectAuthorizationServer: (issuers) => {
      const first = issuers[0] as string;
      // The scenario's credentials belong to the authorization server its PRM names first.
      if (pending !== undefined && issuer === undefined) preRegistered[first] = pending;
      issuer ??= first;
      return first;
    },
    ...(scenario === 'auth/dpop' || scenario === 'auth/dpop-nonce' ? { dpop: await generateDpopKey('ES256') } : {}),
  };
  if (grant === 'authorization_code') {
    options.redirectUri = REDIRECT_URI;
    options.authorize = followRedirectAuthorizer((input, init) => fetch(input, init));
    options.clientMetadataUrl = CONFORMANCE_CLIENT_METADATA_URL;
    options.clientMetadata = { client_name: 'switchboard-conformance-client', redirect_uris: [REDIRECT_URI] };
  }
  return createOAuthClientProvider(options);
}
