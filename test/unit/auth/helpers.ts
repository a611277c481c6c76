/**
 * Test helpers for the authorization layer: an in-process `fetch` that dispatches to web
 * handlers by origin (no sockets), and a small protected MCP-like resource server.
 *
 * @module
 */

import { createBearerVerifier, type BearerVerifier, type BearerVerifierOptions } from '../../../src/auth/resource/bearerVerifier.js';
import { protectedResourceMetadata } from '../../../src/auth/resource/protectedResourceMetadata.js';
import { scopesForRequest, type ScopePolicy } from '../../../src/auth/resource/scopesForRequest.js';
import { isAuthError } from '../../../src/auth/errors.js';
import type { FetchLike } from '../../../src/auth/http.js';
import type { OAuthClientProvider } from '../../../src/auth/client/oauthClientProvider.js';

export type Handler = (request: Request) => Promise<Response> | Response;

/** A fetch that routes by origin to in-process handlers and logs every request URL. */
export function dispatcher(routes: Record<string, Handler>): FetchLike & { log: string[] } {
  const log: string[] = [];
  const f = async (input: string | URL | Request, init?: RequestInit): Promise<Response> => {
    const request = new Request(input, init);
    log.push(`${request.method} ${request.url}`);
    const handler = routes[new URL(request.url).origin];
    if (handler === undefined) throw new TypeError(`fetch failed: no route for ${request.url}`);
    return handler(request);
  };
  return Object.assign(f, { log });
}

export const MCP_ORIGIN = 'https://mcp.example.test';
export const MCP_URL = `${MCP_ORIGIN}/mcp`;

/** A protected resource: PRM + a JSON "MCP" endpoint whose scopes come from a policy. */
export function protectedResource(options: {
  issuers: string[];
  fetch: FetchLike;
  jwksUrl: string;
  policy?: ScopePolicy;
  scopesSupported?: string[];
  resource?: string;
  verifier?: Partial<BearerVerifierOptions>;
}): { handler: Handler; verifier: BearerVerifier } {
  const resource = options.resource ?? MCP_URL;
  const prm = protectedResourceMetadata({
    resource,
    authorizationServers: options.issuers,
    ...(options.scopesSupported !== undefined ? { scopesSupported: options.scopesSupported } : {}),
  });
  const verifier = createBearerVerifier({
    resource: MCP_URL,
    issuers: options.issuers,
    jwks: { url: options.jwksUrl, fetch: options.fetch },
    ...(options.policy?.implies !== undefined ? { scopeImplies: options.policy.implies } : {}),
    ...options.verifier,
  } as BearerVerifierOptions);
  const handler: Handler = async (request) => {
    const served = prm.handle(request);
    if (served !== undefined) return served;
    if (new URL(request.url).pathname !== '/mcp') return new Response('not found', { status: 404 });
    const body = (await request.json()) as { method: string; params?: unknown };
    try {
      const principal = await verifier.authenticate(request, { requiredScopes: scopesForRequest(options.policy ?? {}, body) });
      return Response.json({ ok: true, sub: principal.subject, scopes: principal.scopes });
    } catch (error) {
      if (isAuthError(error)) return error.toResponse();
      throw error;
    }
  };
  return { handler, verifier };
}

/** Makes one MCP-like call the way the HTTP transport will: headers, challenge, retry. */
export async function callWithAuth(
  provider: OAuthClientProvider,
  fetch: FetchLike,
  method: string,
  params: unknown = {},
  maxRetries = 5,
): Promise<Response> {
  for (let i = 0; ; i++) {
    const headers = { 'content-type': 'application/json', ...(await provider.authorizationHeaders('POST', MCP_URL)) };
    const response = await fetch(MCP_URL, { method: 'POST', headers, body: JSON.stringify({ jsonrpc: '2.0', id: i, method, params }) });
    if (response.status !== 401 && response.status !== 403) return response;
    if (i >= maxRetries) return response;
    const retry = await provider.handleChallenge({ status: response.status, wwwAuthenticate: response.headers.get('www-authenticate') });
    if (!retry) return response;
  }
}
