/**
 * A small **development-only** OAuth 2.1 authorization server. Never deploy it: it approves
 * every authorization request without a user, keeps all state in memory and has no rate
 * limiting or SSRF protection. It exists so that clients, resource servers and tests can run a
 * complete MCP authorization flow without an external identity provider.
 *
 * What it does, all behind one web-standard `(Request) => Promise<Response>` handler:
 * - RFC 8414 metadata at the path-inserted well-known URL, with
 *   `code_challenge_methods_supported: ["S256"]`, `authorization_response_iss_parameter_supported: true`,
 *   `client_id_metadata_document_supported: true`;
 * - an auto-approving authorization endpoint: exact redirect URI match (an unregistered URI is
 *   answered with 400, never redirected to), PKCE S256 required, `resource` required; redirects
 *   with `code`, `state` and `iss` (RFC 9207);
 * - a token endpoint: `authorization_code` (single use, PKCE verified, replay revokes what the
 *   code produced), `refresh_token` (rotated; reuse of a rotated token revokes the family),
 *   `client_credentials`; client authentication `client_secret_basic`, `client_secret_post`,
 *   `none`, `private_key_jwt`;
 * - DCR (`/register`) and CIMD (URL client ids fetched through the injectable `fetch`);
 * - a JWKS endpoint and RFC 7662 introspection; access tokens are ES256 JWTs (RFC 9068) with
 *   `aud` = the requested `resource`.
 *
 * @module
 */

import * as jose from 'jose';
import { type FetchLike, type InsecureOption, allowInsecureRequests, defaultFetch, isObject, parseBasicAuthorization, randomToken, requireUrl, sha256b64u, timingSafeEqual } from '../http.js';
import { type DevClient, type RegistrationError, fetchClientMetadataDocument, isClientIdMetadataUrl, registerDevClient } from './devClients.js';

export type { DevClient } from './devClients.js';

/** Options of {@link createDevAuthorizationServer}. */
export interface DevAuthorizationServerOptions extends InsecureOption {
  /** The issuer identifier, e.g. `https://auth.dev.test` or `https://auth.dev.test/tenant1`. */
  issuer: string;
  /** Fetch for CIMD documents (default: global fetch). */
  fetch?: FetchLike;
  /** `scopes_supported` (default `['mcp:read', 'mcp:write', 'offline_access']`). Requests for other scopes fail. */
  scopesSupported?: readonly string[];
  /** Access token lifetime in seconds (default 300). */
  accessTokenTtlSec?: number;
  /** Authorization code lifetime in seconds (default 60). */
  codeTtlSec?: number;
  /** Pre-registered clients. */
  clients?: readonly DevClient[];
  /** The `sub` of the auto-approving "user" (default `dev-user`). */
  subject?: string;
  /** Clock in ms (default `Date.now`). */
  now?: () => number;
}

/** One request the dev AS saw (for tests: which client id was presented where). */
export interface DevAuthorizationServerEvent {
  readonly endpoint: 'metadata' | 'authorize' | 'token' | 'register' | 'introspect' | 'jwks';
  readonly clientId?: string;
  readonly params: Readonly<Record<string, string>>;
}

/** Claims for {@link DevAuthorizationServer.signAccessToken}. */
export interface DevTokenClaims {
  readonly aud: string | readonly string[];
  readonly sub?: string;
  readonly client_id?: string;
  readonly scope?: string;
  /** Lifetime in seconds (default `accessTokenTtlSec`); negative for an already expired token. */
  readonly expiresInSec?: number;
  /** `nbf` offset in seconds from now. */
  readonly notBeforeSec?: number;
  readonly iss?: string;
  readonly [claim: string]: unknown;
}

/** A running dev authorization server. */
export interface DevAuthorizationServer {
  readonly issuer: string;
  /** The RFC 8414 document. */
  readonly metadata: Readonly<Record<string, unknown>>;
  /** Absolute URL of the metadata document. */
  readonly metadataUrl: string;
  readonly jwksUri: string;
  /** Every request handled, in order. */
  readonly events: readonly DevAuthorizationServerEvent[];
  /** The web handler: answers its own URLs, 404 for anything else. */
  handler(request: Request): Promise<Response>;
  /** Adds a pre-registered client. */
  registerClient(client: DevClient): void;
  /** The public key set. */
  jwks(): jose.JSONWebKeySet;
  /** Signs an access token with this server's key (tests: other audiences, expiry...). */
  signAccessToken(claims: DevTokenClaims): Promise<string>;
}

interface CodeRecord {
  clientId: string;
  redirectUri: string;
  codeChallenge: string;
  scope: string;
  resource: string;
  expiresAt: number;
  used: boolean;
  jtis: string[];
  families: string[];
}

interface RefreshRecord {
  family: string;
  clientId: string;
  scope: string;
  resource: string;
  used: boolean;
}

const methodOf = (client: DevClient): NonNullable<DevClient['tokenEndpointAuthMethod']> =>
  client.tokenEndpointAuthMethod ?? (client.clientSecret !== undefined ? 'client_secret_basic' : 'none');

const json = (status: number, body: unknown, headers: Record<string, string> = {}): Response =>
  new Response(JSON.stringify(body), { status, headers: { 'content-type': 'application/json', 'cache-control': 'no-store', ...headers } });

const oauthError = (status: number, error: string, description: string): Response => json(status, { error, error_description: description });

/** Creates a dev authorization server (generates its ES256 signing key). */
export async function createDevAuthorizationServer(options: DevAuthorizationServerOptions): Promise<DevAuthorizationServer> {
  const insecure = { [allowInsecureRequests]: options[allowInsecureRequests] === true };
  const issuerUrl = requireUrl(options.issuer, 'issuer', insecure);
  const issuer = options.issuer;
  const base = issuer.replace(/\/+$/, '');
  const issuerPath = issuerUrl.pathname.replace(/\/+$/, '');
  const now = options.now ?? Date.now;
  const fetchFn = options.fetch ?? defaultFetch();
  const scopesSupported = [...(options.scopesSupported ?? ['mcp:read', 'mcp:write', 'offline_access'])];
  const ttl = options.accessTokenTtlSec ?? 300;
  const codeTtl = options.codeTtlSec ?? 60;
  const subject = options.subject ?? 'dev-user';

  const { privateKey, publicKey } = await jose.generateKeyPair('ES256', { extractable: true });
  const publicJwk = await jose.exportJWK(publicKey);
  const kid = await jose.calculateJwkThumbprint(publicJwk);
  const jwks: jose.JSONWebKeySet = { keys: [{ ...publicJwk, kid, alg: 'ES256', use: 'sig' }] };
  const localJwks = jose.createLocalJWKSet(jwks);

  const endpoints = {
    authorization: `${base}/authorize`,
    token: `${base}/token`,
    registration: `${base}/register`,
    jwks: `${base}/jwks`,
    introspection: `${base}/introspect`,
  };
  const metadataUrl = `${issuerUrl.origin}/.well-known/oauth-authorization-server${issuerPath}`;
  const metadata = Object.freeze({
    issuer,
    authorization_endpoint: endpoints.authorization,
    token_endpoint: endpoints.token,
    registration_endpoint: endpoints.registration,
    jwks_uri: endpoints.jwks,
    introspection_endpoint: endpoints.introspection,
    scopes_supported: scopesSupported,
    response_types_supported: ['code'],
    grant_types_supported: ['authorization_code', 'refresh_token', 'client_credentials'],
    code_challenge_methods_supported: ['S256'],
    token_endpoint_auth_methods_supported: ['client_secret_basic', 'client_secret_post', 'none', 'private_key_jwt'],
    token_endpoint_auth_signing_alg_values_supported: ['ES256', 'RS256', 'PS256', 'EdDSA'],
    authorization_response_iss_parameter_supported: true,
    client_id_metadata_document_supported: true,
  });

  const clients = new Map<string, DevClient>();
  for (const c of options.clients ?? []) clients.set(c.clientId, c);
  const codes = new Map<string, CodeRecord>();
  const refreshTokens = new Map<string, RefreshRecord>();
  const revokedFamilies = new Set<string>();
  const revokedJtis = new Set<string>();
  const familyJtis = new Map<string, string[]>();
  const usedAssertions = new Set<string>();
  const events: DevAuthorizationServerEvent[] = [];

  const signAccessToken = async (claims: DevTokenClaims): Promise<string> => {
    const { expiresInSec, notBeforeSec, iss, aud, ...rest } = claims;
    const iat = Math.floor(now() / 1000);
    const jwt = new jose.SignJWT({ ...rest, jti: typeof rest['jti'] === 'string' ? rest['jti'] : randomToken(16) })
      .setProtectedHeader({ alg: 'ES256', typ: 'at+jwt', kid })
      .setIssuer(iss ?? issuer)
      .setAudience(typeof aud === 'string' ? aud : [...aud])
      .setIssuedAt(iat)
      .setExpirationTime(iat + (expiresInSec ?? ttl));
    if (notBeforeSec !== undefined) jwt.setNotBefore(iat + notBeforeSec);
    return jwt.sign(privateKey);
  };

  const resolveClient = async (clientId: string): Promise<DevClient | RegistrationError> => {
    const known = clients.get(clientId);
    if (known !== undefined) return known;
    if (isClientIdMetadataUrl(clientId)) {
      const fetched = await fetchClientMetadataDocument(fetchFn, clientId);
      if (!('error' in fetched)) clients.set(clientId, fetched);
      return fetched;
    }
    return { error: 'invalid_client', error_description: 'unknown client' };
  };

  /** Authenticates the client at the token/introspection endpoints (RFC 6749 section 2.3). */
  const authenticateClient = async (request: Request, form: URLSearchParams): Promise<DevClient | Response> => {
    const basic = parseBasicAuthorization(request.headers.get('authorization'));
    const assertionType = form.get('client_assertion_type');
    let clientId = basic?.clientId ?? form.get('client_id') ?? undefined;
    if (assertionType !== null && clientId === undefined) {
      try {
        clientId = jose.decodeJwt(form.get('client_assertion') ?? '').sub;
      } catch {
        /* handled below */
      }
    }
    if (clientId === undefined) return oauthError(401, 'invalid_client', 'client authentication required');
    const client = await resolveClient(clientId);
    if ('error' in client) return oauthError(401, 'invalid_client', client.error_description);
    const method = methodOf(client);
    const fail = (): Response => oauthError(401, 'invalid_client', 'client authentication failed');
    switch (method) {
      case 'client_secret_basic':
      case 'client_secret_post': {
        const secret = basic?.clientSecret ?? form.get('client_secret');
        if (secret === null || client.clientSecret === undefined || !timingSafeEqual(secret, client.clientSecret)) return fail();
        return client;
      }
      case 'none':
        if (basic !== undefined || form.has('client_secret') || assertionType !== null) return fail();
        return client;
      case 'private_key_jwt': {
        if (assertionType !== 'urn:ietf:params:oauth:client-assertion-type:jwt-bearer' || client.jwks === undefined) return fail();
        try {
          const { payload } = await jose.jwtVerify(form.get('client_assertion') ?? '', jose.createLocalJWKSet(client.jwks), {
            issuer: client.clientId,
            subject: client.clientId,
            audience: [issuer, endpoints.token],
            algorithms: ['ES256', 'RS256', 'PS256', 'EdDSA'],
            currentDate: new Date(now()),
            requiredClaims: ['exp', 'jti'],
          });
          const jti = `${client.clientId} ${String(payload.jti)}`;
          if (usedAssertions.has(jti)) return fail();
          usedAssertions.add(jti);
          return client;
        } catch {
          return fail();
        }
      }
    }
  };

  const issueTokens = async (client: DevClient, grant: { sub: string; scope: string; resource: string; family?: string }): Promise<{ body: Record<string, unknown>; jti: string }> => {
    const jti = randomToken(16);
    const claims: DevTokenClaims = { aud: grant.resource, sub: grant.sub, client_id: client.clientId, jti };
    const accessToken = await signAccessToken(grant.scope === '' ? claims : { ...claims, scope: grant.scope });
    const body: Record<string, unknown> = { access_token: accessToken, token_type: 'Bearer', expires_in: ttl };
    if (grant.scope !== '') body['scope'] = grant.scope;
    if (grant.family !== undefined) {
      const refresh = randomToken(32);
      refreshTokens.set(refresh, { family: grant.family, clientId: client.clientId, scope: grant.scope, resource: grant.resource, used: false });
      body['refresh_token'] = refresh;
      familyJtis.set(grant.family, [...(familyJtis.get(grant.family) ?? []), jti]);
    }
    return { body, jti };
  };

  const revokeFamily = (family: string): void => {
    revokedFamilies.add(family);
    for (const j of familyJtis.get(family) ?? []) revokedJtis.add(j);
  };

  const validScope = (scope: string): boolean => scope.split(' ').filter((s) => s !== '').every((s) => scopesSupported.includes(s));
  const validResource = (resource: string): boolean => {
    try {
      const u = new URL(resource);
      return u.hash === '' && !resource.includes('#');
    } catch {
      return false;
    }
  };

  const authorize = async (url: URL): Promise<Response> => {
    const p = url.searchParams;
    for (const name of ['client_id', 'redirect_uri', 'state', 'code_challenge', 'resource', 'scope', 'response_type']) {
      if (p.getAll(name).length > 1) return oauthError(400, 'invalid_request', `${name} repeated`);
    }
    const clientId = p.get('client_id');
    events.push({ endpoint: 'authorize', params: Object.fromEntries(p), ...(clientId !== null ? { clientId } : {}) });
    if (clientId === null) return oauthError(400, 'invalid_request', 'client_id is required');
    const client = await resolveClient(clientId);
    if ('error' in client) return oauthError(400, client.error, client.error_description);
    const redirectUri = p.get('redirect_uri');
    // Never redirect to an unregistered URI (open redirector): exact string match only.
    if (redirectUri === null || !client.redirectUris.includes(redirectUri)) {
      return oauthError(400, 'invalid_request', 'redirect_uri is not registered for this client');
    }
    const back = (params: Record<string, string>): Response => {
      const target = new URL(redirectUri);
      for (const [k, v] of Object.entries(params)) target.searchParams.set(k, v);
      const state = p.get('state');
      if (state !== null) target.searchParams.set('state', state);
      target.searchParams.set('iss', issuer);
      return new Response(null, { status: 302, headers: { location: target.href, 'cache-control': 'no-store' } });
    };
    if (p.get('response_type') !== 'code') return back({ error: 'unsupported_response_type', error_description: 'only code' });
    const challenge = p.get('code_challenge');
    if (challenge === null || p.get('code_challenge_method') !== 'S256' || !/^[A-Za-z0-9_-]{43}$/.test(challenge)) {
      return back({ error: 'invalid_request', error_description: 'PKCE S256 is required' });
    }
    const resource = p.get('resource');
    if (resource === null || !validResource(resource)) return back({ error: 'invalid_target', error_description: 'a resource indicator is required' });
    const scope = p.get('scope') ?? '';
    if (!validScope(scope)) return back({ error: 'invalid_scope', error_description: 'unknown scope' });
    const code = randomToken(32);
    codes.set(code, {
      clientId,
      redirectUri,
      codeChallenge: challenge,
      scope,
      resource,
      expiresAt: now() + codeTtl * 1000,
      used: false,
      jtis: [],
      families: [],
    });
    return back({ code });
  };

  const token = async (request: Request): Promise<Response> => {
    const form = new URLSearchParams(await request.text());
    const client = await authenticateClient(request, form);
    events.push({ endpoint: 'token', params: Object.fromEntries([...form].filter(([k]) => k !== 'client_secret')), ...(client instanceof Response ? {} : { clientId: client.clientId }) });
    if (client instanceof Response) return client;
    const grantType = form.get('grant_type');
    const grants = client.grantTypes ?? ['authorization_code', 'refresh_token', ...(client.clientSecret !== undefined ? ['client_credentials'] : [])];
    if (grantType === 'authorization_code') {
      const code = codes.get(form.get('code') ?? '');
      if (code === undefined) return oauthError(400, 'invalid_grant', 'unknown code');
      if (code.used) {
        // Replay: revoke everything this code produced (OAuth 2.1 section 4.1.3).
        for (const j of code.jtis) revokedJtis.add(j);
        for (const f of code.families) revokeFamily(f);
        return oauthError(400, 'invalid_grant', 'code already used');
      }
      code.used = true;
      if (code.expiresAt <= now()) return oauthError(400, 'invalid_grant', 'code expired');
      if (code.clientId !== client.clientId) return oauthError(400, 'invalid_grant', 'code was issued to another client');
      if (form.get('redirect_uri') !== code.redirectUri) return oauthError(400, 'invalid_grant', 'redirect_uri mismatch');
      const verifier = form.get('code_verifier');
      if (verifier === null || !/^[A-Za-z0-9\-._~]{43,128}$/.test(verifier) || !timingSafeEqual(await sha256b64u(verifier), code.codeChallenge)) {
        return oauthError(400, 'invalid_grant', 'PKCE verification failed');
      }
      const resource = form.get('resource');
      if (resource !== null && resource !== code.resource) return oauthError(400, 'invalid_target', 'resource differs from the authorization request');
      const family = grants.includes('refresh_token') ? randomToken(8) : undefined;
      const { body, jti } = await issueTokens(client, { sub: subject, scope: code.scope, resource: code.resource, ...(family !== undefined ? { family } : {}) });
      code.jtis.push(jti);
      if (family !== undefined) code.families.push(family);
      return json(200, body);
    }
    if (grantType === 'refresh_token') {
      const presented = form.get('refresh_token') ?? '';
      const record = refreshTokens.get(presented);
      if (record === undefined || record.clientId !== client.clientId) return oauthError(400, 'invalid_grant', 'unknown refresh token');
      if (revokedFamilies.has(record.family)) return oauthError(400, 'invalid_grant', 'refresh token revoked');
      if (record.used) {
        // Rotation reuse detection (OAuth 2.1 section 4.3.1): someone replayed an old token.
        revokeFamily(record.family);
        return oauthError(400, 'invalid_grant', 'refresh token reuse detected; family revoked');
      }
      record.used = true;
      const resource = form.get('resource');
      if (resource !== null && resource !== record.resource) return oauthError(400, 'invalid_target', 'resource differs from the original grant');
      const requested = form.get('scope');
      const granted = record.scope.split(' ');
      if (requested !== null && !requested.split(' ').every((s) => granted.includes(s))) return oauthError(400, 'invalid_scope', 'scope exceeds the original grant');
      const { body } = await issueTokens(client, { sub: subject, scope: requested ?? record.scope, resource: record.resource, family: record.family });
      return json(200, body);
    }
    if (grantType === 'client_credentials') {
      if (methodOf(client) === 'none' || !grants.includes('client_credentials')) {
        return oauthError(400, 'unauthorized_client', 'client_credentials needs a confidential client allowed this grant');
      }
      const resource = form.get('resource');
      if (resource === null || !validResource(resource)) return oauthError(400, 'invalid_target', 'a resource indicator is required');
      const scope = form.get('scope') ?? '';
      if (!validScope(scope)) return oauthError(400, 'invalid_scope', 'unknown scope');
      const { body } = await issueTokens(client, { sub: client.clientId, scope, resource });
      return json(200, body);
    }
    return oauthError(400, 'unsupported_grant_type', `unsupported grant_type ${grantType ?? ''}`);
  };

  const introspect = async (request: Request): Promise<Response> => {
    const form = new URLSearchParams(await request.text());
    const client = await authenticateClient(request, form);
    events.push({ endpoint: 'introspect', params: {}, ...(client instanceof Response ? {} : { clientId: client.clientId }) });
    if (client instanceof Response) return client;
    if (methodOf(client) === 'none') return oauthError(401, 'invalid_client', 'introspection needs a confidential client');
    try {
      const { payload } = await jose.jwtVerify(form.get('token') ?? '', localJwks, { issuer, algorithms: ['ES256'], currentDate: new Date(now()) });
      if (typeof payload.jti === 'string' && revokedJtis.has(payload.jti)) return json(200, { active: false });
      return json(200, { ...payload, active: true, token_type: 'Bearer' });
    } catch {
      return json(200, { active: false });
    }
  };

  const register = async (request: Request): Promise<Response> => {
    let body: unknown;
    try {
      body = await request.json();
    } catch {
      body = undefined;
    }
    const result = registerDevClient(body);
    const seen: Record<string, string> = {};
    if (isObject(body)) {
      for (const [k, v] of Object.entries(body)) seen[k] = Array.isArray(v) ? v.join(' ') : String(v);
    }
    events.push({ endpoint: 'register', params: seen, ...('client' in result ? { clientId: result.client.clientId } : {}) });
    if (!('client' in result)) return json(400, result);
    clients.set(result.client.clientId, result.client);
    return json(201, result.response);
  };

  return {
    issuer,
    metadata,
    metadataUrl,
    jwksUri: endpoints.jwks,
    events,
    jwks: () => structuredClone(jwks),
    registerClient: (client) => {
      clients.set(client.clientId, client);
    },
    signAccessToken,
    async handler(request) {
      const url = new URL(request.url);
      const here = `${url.origin}${url.pathname}`;
      if (request.method === 'GET' && here === metadataUrl) {
        events.push({ endpoint: 'metadata', params: {} });
        return json(200, metadata, { 'access-control-allow-origin': '*' });
      }
      if (request.method === 'GET' && here === endpoints.jwks) {
        events.push({ endpoint: 'jwks', params: {} });
        return json(200, jwks, { 'access-control-allow-origin': '*' });
      }
      if (request.method === 'GET' && here === endpoints.authorization) return authorize(url);
      if (request.method === 'POST' && here === endpoints.token) return token(request);
      if (request.method === 'POST' && here === endpoints.registration) return register(request);
      if (request.method === 'POST' && here === endpoints.introspection) return introspect(request);
      return oauthError(404, 'not_found', 'no such endpoint');
    },
  };
}

