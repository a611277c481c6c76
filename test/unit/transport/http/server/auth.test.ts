/**
 * The `auth` option of the Streamable HTTP server with a real verifier and real keys (ES256
 * signing key, a foreign key, HMAC confusion, `alg: none`). Negative cases are named after the
 * attack they stop.
 *
 * @module
 */
import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import * as jose from 'jose';
import { allowInsecureRequests } from '../../../../../src/auth/http.js';
import { createBearerVerifier, type BearerVerifierOptions } from '../../../../../src/auth/resource/bearerVerifier.js';
import { PRINCIPAL } from '../../../../../src/transport/principal.js';
import type { VerifiedPrincipal } from '../../../../../src/auth/resource/principal.js';
import { protectedResourceMetadata } from '../../../../../src/auth/resource/protectedResourceMetadata.js';
import type { ScopePolicy } from '../../../../../src/auth/resource/scopesForRequest.js';
import type { MessageExtra } from '../../../../../src/jsonrpc/channel.js';
import { createStreamableHttpHandler, type StreamableHttpServerOptions } from '../../../../../src/transport/http/server/server.js';
import { isSseStream, type HttpExtra, type HttpResponseLike } from '../../../../../src/transport/http/server/types.js';
import type { McpDispatcher } from '../../../../../src/transport/types.js';
import { bodyJson, fakeStatefulDispatcher, httpReq, initRequest, rpc, SseReader } from './sessionSupport.js';
import { fakeDispatcher, json, post, request } from './support.js';

const RESOURCE = 'http://localhost:3000/mcp';
const ISSUER = 'http://localhost:4000';
const PRM_URL = 'http://localhost:3000/.well-known/oauth-protected-resource/mcp';
const insecure = { [allowInsecureRequests]: true } as const;

const { privateKey, publicKey } = await jose.generateKeyPair('ES256', { extractable: true });
const publicJwk = { ...(await jose.exportJWK(publicKey)), kid: 'k1', alg: 'ES256', use: 'sig' };
const foreign = await jose.generateKeyPair('ES256');

interface Claims {
  readonly sub?: string | undefined;
  readonly scope?: string;
  readonly aud?: string;
  readonly iss?: string;
  readonly exp?: number;
}

async function sign(claims: Claims = {}, key: jose.CryptoKey | Uint8Array = privateKey, alg = 'ES256'): Promise<string> {
  const now = Math.floor(Date.now() / 1000);
  const payload: jose.JWTPayload = { client_id: 'c1', iat: now, exp: claims.exp ?? now + 300, iss: claims.iss ?? ISSUER, aud: claims.aud ?? RESOURCE };
  if (!('sub' in claims)) payload.sub = 'alice';
  else if (claims.sub !== undefined) payload.sub = claims.sub;
  if (claims.scope !== undefined) payload['scope'] = claims.scope;
  return new jose.SignJWT(payload).setProtectedHeader({ alg, kid: 'k1', typ: 'at+jwt' }).sign(key);
}

const b64u = (value: unknown): string => Buffer.from(JSON.stringify(value)).toString('base64url');

function protect(
  dispatcher: McpDispatcher,
  auth: { scopes?: ScopePolicy; publicMethods?: readonly string[]; verifier?: Partial<BearerVerifierOptions> } = {},
  options: StreamableHttpServerOptions = {},
): ReturnType<typeof createStreamableHttpHandler> {
  const resourceMetadata = protectedResourceMetadata({ resource: RESOURCE, authorizationServers: [ISSUER], scopesSupported: ['mcp:read'], ...insecure });
  const verifier = createBearerVerifier({ resource: RESOURCE, issuers: [ISSUER], jwks: { keys: [publicJwk] }, ...insecure, ...auth.verifier } as BearerVerifierOptions);
  return createStreamableHttpHandler(dispatcher, {
    ...options,
    auth: {
      verifier,
      resourceMetadata,
      ...(auth.scopes !== undefined ? { scopes: auth.scopes } : {}),
      ...(auth.publicMethods !== undefined ? { publicMethods: auth.publicMethods } : {}),
    },
  });
}

const POLICY: ScopePolicy = { always: ['mcp:read'], methods: { 'tools/call': ['mcp:read'] }, tools: { deploy: ['mcp:deploy'] }, implies: { 'mcp:admin': ['mcp:deploy', 'mcp:read'] } };

const bearer = (token: string): Record<string, string> => ({ authorization: `Bearer ${token}` });
const header = (r: HttpResponseLike, name: string): string | undefined => r.headers[name];

function assertChallenge(r: HttpResponseLike, status: number, error?: string): string {
  assert.equal(r.status, status);
  const challenge = header(r, 'www-authenticate');
  assert.ok(challenge !== undefined, 'a WWW-Authenticate challenge');
  assert.match(challenge, /^Bearer /);
  assert.ok(challenge.includes(`resource_metadata="${PRM_URL}"`), challenge);
  if (error === undefined) assert.ok(!challenge.includes('error='), challenge);
  else assert.ok(challenge.includes(`error="${error}"`), challenge);
  assert.equal(header(r, 'cache-control'), 'no-store');
  return challenge;
}

const call = (name: string, id = 1) => request('tools/call', { name, arguments: {} }, id);

describe('http auth: positives', () => {
  it('serves the Protected Resource Metadata at both well-known paths without a token, CORS-enabled', async () => {
    const handler = protect(fakeDispatcher(), {}, { path: '/mcp' });
    for (const path of ['/.well-known/oauth-protected-resource/mcp', '/.well-known/oauth-protected-resource']) {
      const r = await handler.handle({ method: 'GET', path, header: (n) => (n === 'origin' ? 'https://elsewhere.example' : n === 'host' ? 'localhost:3000' : undefined) });
      assert.equal(r.status, 200);
      assert.equal(header(r, 'access-control-allow-origin'), '*');
      const doc = json(r) as unknown as Record<string, unknown>;
      assert.equal(doc['resource'], RESOURCE);
      assert.deepEqual(doc['authorization_servers'], [ISSUER]);
      assert.deepEqual(doc['bearer_methods_supported'], ['header']);
    }
    const head = await handler.handle({ method: 'HEAD', path: '/.well-known/oauth-protected-resource/mcp', header: () => undefined });
    assert.equal(head.status, 200);
    assert.equal(head.body, undefined);
    const preflight = await handler.handle({ method: 'OPTIONS', path: '/.well-known/oauth-protected-resource', header: () => undefined });
    assert.equal(preflight.status, 204);
  });

  it('dispatches a valid token with env.principal (id = the subject, auth = the frozen VerifiedPrincipal); handlers cannot read the credentials', async () => {
    const d = fakeDispatcher();
    const handler = protect(d, { scopes: POLICY });
    const token = await sign({ scope: 'mcp:read' });
    const r = await handler.handle(post(request('echo', { x: 1 }), { ...bearer(token), 'x-trace': 't1' }));
    assert.equal(r.status, 200, JSON.stringify(json(r)));
    const extra = d.envs[0]?.extra as MessageExtra;
    assert.equal(d.envs[0]?.principal?.id, 'alice');
    assert.equal(extra['principal'], undefined, 'no string principal in extra any more');
    const auth = d.envs[0]?.principal?.auth as VerifiedPrincipal;
    assert.ok(Object.isFrozen(auth));
    assert.equal(auth.subject, 'alice');
    assert.deepEqual(auth.scopes, ['mcp:read']);
    assert.ok(!JSON.stringify(auth).includes(token), 'the principal never holds the token');
    const http = extra['http'] as HttpExtra;
    for (const name of ['authorization', 'Authorization', 'AUTHORIZATION', 'dpop', 'proxy-authorization']) assert.equal(http.getHeader(name), undefined, name);
    assert.equal(http.getHeader('x-trace'), 't1');
  });

  it('honours the policy hierarchy: a broad scope covers the tool scope', async () => {
    const handler = protect(fakeDispatcher(), { scopes: POLICY });
    const r = await handler.handle(post(call('deploy'), bearer(await sign({ scope: 'mcp:admin' }))));
    assert.equal(r.status, 200, JSON.stringify(json(r)));
  });

  it('serves publicMethods without a token (and without a principal)', async () => {
    const d = fakeDispatcher();
    const handler = protect(d, { scopes: POLICY, publicMethods: ['echo'] }, { extra: () => ({ [PRINCIPAL]: { id: 'hook-said-so' } }) });
    const r = await handler.handle(post(request('echo')));
    assert.equal(r.status, 200);
    assert.equal(d.envs[0]?.principal, undefined);
  });

  it('binds 2025-11-25 sessions to the principal: the owner uses its session, GET stream and DELETE', async () => {
    const d = fakeStatefulDispatcher();
    const handler = protect(d, { scopes: POLICY });
    const alice = bearer(await sign({ scope: 'mcp:read' }));
    const init = await handler.handle(httpReq('POST', initRequest(), alice));
    assert.equal(init.status, 200);
    const sid = header(init, 'mcp-session-id');
    assert.ok(sid !== undefined);
    const echo = await handler.handle(httpReq('POST', rpc('echo', {}, 2), { ...alice, 'mcp-session-id': sid, 'mcp-protocol-version': '2025-11-25' }));
    assert.equal(echo.status, 200);
    assert.equal((bodyJson(echo) as { result: { principal: string } }).result.principal, 'alice');
    const stream = await handler.handle(httpReq('GET', undefined, { ...alice, 'mcp-session-id': sid, 'mcp-protocol-version': '2025-11-25' }));
    assert.equal(stream.status, 200);
    assert.ok(isSseStream(stream.body));
    stream.body.cancel();
    const del = await handler.handle(httpReq('DELETE', undefined, { ...alice, 'mcp-session-id': sid }));
    assert.equal(del.status, 200);
    await handler.close();
  });

  it('leaves handlers without auth unchanged (no redaction, no principal)', async () => {
    const d = fakeDispatcher();
    const handler = createStreamableHttpHandler(d);
    const r = await handler.handle(post(request('echo'), { authorization: 'Bearer abc' }));
    assert.equal(r.status, 200);
    assert.equal((d.envs[0]?.extra?.['http'] as HttpExtra).getHeader('authorization'), 'Bearer abc');
  });
});

describe('http auth: attacks', () => {
  it('no token: 401 with resource_metadata and every scope the tool call needs', async () => {
    const d = fakeDispatcher();
    const handler = protect(d, { scopes: POLICY });
    const r = await handler.handle(post(call('deploy')));
    const challenge = assertChallenge(r, 401);
    assert.ok(challenge.includes('scope="mcp:read mcp:deploy"'), challenge);
    assert.equal(header(r, 'access-control-expose-headers'), 'WWW-Authenticate');
    assert.equal(d.envs.length, 0, 'nothing dispatched');
  });

  it('no token on a method without policy scopes: the challenge names the PRM baseline scopes', async () => {
    const r = await protect(fakeDispatcher()).handle(post(request('echo')));
    assert.ok(assertChallenge(r, 401).includes('scope="mcp:read"'));
  });

  it('token audience confusion: a token issued for another resource is refused with a challenge', async () => {
    const d = fakeDispatcher();
    const r = await protect(d).handle(post(request('echo'), bearer(await sign({ aud: 'http://localhost:3000/other-mcp' }))));
    assertChallenge(r, 401, 'invalid_token');
    assert.equal(d.envs.length, 0);
  });

  it('expired token replay: 401 invalid_token', async () => {
    const r = await protect(fakeDispatcher()).handle(post(request('echo'), bearer(await sign({ exp: Math.floor(Date.now() / 1000) - 3600 }))));
    assertChallenge(r, 401, 'invalid_token');
  });

  it('token minted by an untrusted issuer: 401 invalid_token', async () => {
    const r = await protect(fakeDispatcher()).handle(post(request('echo'), bearer(await sign({ iss: 'http://localhost:4666' }))));
    assertChallenge(r, 401, 'invalid_token');
  });

  it('forged signature (attacker key, same kid): 401 invalid_token', async () => {
    const r = await protect(fakeDispatcher()).handle(post(request('echo'), bearer(await sign({}, foreign.privateKey))));
    assertChallenge(r, 401, 'invalid_token');
  });

  it('alg none: an unsigned token is refused', async () => {
    const now = Math.floor(Date.now() / 1000);
    const token = `${b64u({ alg: 'none', typ: 'at+jwt' })}.${b64u({ sub: 'alice', iss: ISSUER, aud: RESOURCE, exp: now + 300, scope: 'mcp:read' })}.`;
    const r = await protect(fakeDispatcher()).handle(post(request('echo'), bearer(token)));
    assert.ok([400, 401].includes(r.status), String(r.status));
    assert.ok(header(r, 'www-authenticate')?.includes(`resource_metadata="${PRM_URL}"`));
  });

  it('algorithm confusion: HS256 signed with the public key as the secret is refused', async () => {
    const secret = new TextEncoder().encode(JSON.stringify(publicJwk));
    const r = await protect(fakeDispatcher()).handle(post(request('echo'), bearer(await sign({ scope: 'mcp:read' }, secret, 'HS256'))));
    assertChallenge(r, 401, 'invalid_token');
  });

  it('insufficient scope: 403 insufficient_scope naming the full needed set', async () => {
    const d = fakeDispatcher();
    const r = await protect(d, { scopes: POLICY }).handle(post(call('deploy'), bearer(await sign({ scope: 'mcp:read' }))));
    const challenge = assertChallenge(r, 403, 'insufficient_scope');
    assert.ok(challenge.includes('scope="mcp:read mcp:deploy"'), challenge);
    assert.equal(d.envs.length, 0);
  });

  it('scope smuggling in a 2025-03-26 batch: the privileged call in the batch still needs its scope', async () => {
    const d = fakeStatefulDispatcher();
    const handler = protect(d, { scopes: POLICY });
    const alice = bearer(await sign({ scope: 'mcp:read' }));
    const init = await handler.handle(httpReq('POST', initRequest('2025-03-26'), alice));
    const sid = header(init, 'mcp-session-id') as string;
    const batch = [rpc('echo', {}, 2), rpc('tools/call', { name: 'deploy', arguments: {} }, 3)];
    const r = await handler.handle(httpReq('POST', batch, { ...alice, 'mcp-session-id': sid, 'mcp-protocol-version': '2025-03-26' }));
    assertChallenge(r, 403, 'insufficient_scope');
    await handler.close();
  });

  it('token in the query string: 400 invalid_request even with a valid header', async () => {
    const token = await sign({ scope: 'mcp:read' });
    const d = fakeDispatcher();
    const r = await protect(d).handle({ ...post(request('echo'), bearer(token)), query: `access_token=${token}` });
    assertChallenge(r, 400, 'invalid_request');
    assert.equal(d.envs.length, 0);
  });

  it('token in the query string through the web fetch entry: 400 before anything is dispatched', async () => {
    const token = await sign({ scope: 'mcp:read' });
    const d = fakeDispatcher();
    const message = request('echo');
    const response = await protect(d).fetch(
      new Request(`http://localhost:3000/mcp?x=1&access_token=${token}`, {
        method: 'POST',
        headers: { 'content-type': 'application/json', accept: 'application/json, text/event-stream', 'mcp-protocol-version': '2026-07-28', 'mcp-method': 'echo' },
        body: JSON.stringify(message),
      }),
    );
    assert.equal(response.status, 400);
    assert.ok(response.headers.get('www-authenticate')?.includes('error="invalid_request"'));
    assert.equal(d.envs.length, 0);
  });

  it('malformed Authorization header (two credentials): 400 invalid_request', async () => {
    const token = await sign();
    const r = await protect(fakeDispatcher()).handle(post(request('echo'), { authorization: `Bearer ${token}, Bearer ${token}` }));
    assertChallenge(r, 400, 'invalid_request');
  });

  it('anonymous token (no subject) cannot borrow the "nobody" principal: 401', async () => {
    const r = await protect(fakeDispatcher()).handle(post(request('echo'), bearer(await sign({ sub: undefined }))));
    assertChallenge(r, 401, 'invalid_token');
  });

  it('probing with a malformed body reveals nothing before authentication: 401, not 400', async () => {
    const r = await protect(fakeDispatcher()).handle(post('{"jsonrpc":'));
    assertChallenge(r, 401);
  });

  it('a public method does not launder a bad token: a present token must be valid', async () => {
    const r = await protect(fakeDispatcher(), { publicMethods: ['echo'] }).handle(post(request('echo'), bearer(await sign({ aud: 'http://evil.example/mcp' }))));
    assertChallenge(r, 401, 'invalid_token');
  });

  it('GET stream and DELETE without a token: 401 (the session survives)', async () => {
    const d = fakeStatefulDispatcher();
    const handler = protect(d);
    const init = await handler.handle(httpReq('POST', initRequest(), bearer(await sign())));
    const sid = header(init, 'mcp-session-id') as string;
    assertChallenge(await handler.handle(httpReq('GET', undefined, { 'mcp-session-id': sid })), 401);
    assertChallenge(await handler.handle(httpReq('DELETE', undefined, { 'mcp-session-id': sid })), 401);
    assert.equal(handler.sessionCount, 1);
    await handler.close();
  });

  it('session hijack across principals: B with a valid token gets 404 on A’s session (POST, GET, DELETE)', async () => {
    const d = fakeStatefulDispatcher();
    const handler = protect(d);
    const init = await handler.handle(httpReq('POST', initRequest(), bearer(await sign({ sub: 'alice' }))));
    const sid = header(init, 'mcp-session-id') as string;
    const bob = { ...bearer(await sign({ sub: 'bob' })), 'mcp-session-id': sid, 'mcp-protocol-version': '2025-11-25' };
    assert.equal((await handler.handle(httpReq('POST', rpc('echo', {}, 2), bob))).status, 404);
    assert.equal((await handler.handle(httpReq('GET', undefined, bob))).status, 404);
    assert.equal((await handler.handle(httpReq('DELETE', undefined, bob))).status, 404);
    assert.equal(handler.sessionCount, 1);
    await handler.close();
  });

  it('principal spoofing through the extra hook: auth owns env.principal', async () => {
    const d = fakeDispatcher();
    const handler = protect(d, {}, { extra: () => ({ [PRINCIPAL]: { id: 'admin', auth: { subject: 'admin' } } }) });
    const r = await handler.handle(post(request('echo'), bearer(await sign({ sub: 'alice' }))));
    assert.equal(r.status, 200);
    assert.equal(d.envs[0]?.principal?.id, 'alice');
    assert.equal(d.envs[0]?.principal?.auth?.subject, 'alice');
  });

  it('key set unavailable: 503 without a challenge (fail closed)', async () => {
    const handler = protect(fakeDispatcher(), {
      verifier: { jwks: { url: 'http://localhost:4000/jwks', fetch: () => Promise.reject(new TypeError('fetch failed')) } } as Partial<BearerVerifierOptions>,
    });
    const r = await handler.handle(post(request('echo'), bearer(await sign())));
    assert.equal(r.status, 503);
    assert.equal(header(r, 'www-authenticate'), undefined);
  });

  it('challenge pointing nowhere: a verifier whose resource_metadata URL the handler does not serve is refused at startup', () => {
    const verifier = createBearerVerifier({ resource: RESOURCE, issuers: [ISSUER], jwks: { keys: [publicJwk] }, resourceMetadataUrl: 'http://localhost:3000/elsewhere', ...insecure });
    const resourceMetadata = protectedResourceMetadata({ resource: RESOURCE, authorizationServers: [ISSUER], ...insecure });
    assert.throws(() => createStreamableHttpHandler(fakeDispatcher(), { auth: { verifier, resourceMetadata } }), TypeError);
  });

  it('stream outliving its token: a GET stream opened with a token is cut when the token expires (the session survives)', async () => {
    const d = fakeStatefulDispatcher();
    const handler = protect(d, { scopes: POLICY });
    const longLived = bearer(await sign({ scope: 'mcp:read' }));
    const sid = header(await handler.handle(httpReq('POST', initRequest(), longLived)), 'mcp-session-id') as string;
    const shortLived = bearer(await sign({ scope: 'mcp:read', exp: Math.floor(Date.now() / 1000) + 1 }));
    const stream = await handler.handle(httpReq('GET', undefined, { ...shortLived, 'mcp-session-id': sid, 'mcp-protocol-version': '2025-11-25' }));
    assert.equal(stream.status, 200);
    const reader = new SseReader(stream);
    const started = Date.now();
    await reader.waitEnd(5000);
    assert.ok(Date.now() - started < 2500, 'cut at expiry, within the second');
    // The session itself is not the token's: a fresh token reopens the stream.
    const again = await handler.handle(httpReq('GET', undefined, { ...longLived, 'mcp-session-id': sid, 'mcp-protocol-version': '2025-11-25' }));
    assert.equal(again.status, 200);
    assert.ok(isSseStream(again.body));
    again.body.cancel();
    await handler.close();
  });

  it('stream outliving its token: a POST answered as SSE is cut, and its handler aborted, when the token expires', async () => {
    let aborted: unknown;
    const dispatcher: McpDispatcher = {
      async dispatch(message, env) {
        if (!('id' in message)) return undefined;
        env.notify({ jsonrpc: '2.0', method: 'notifications/progress', params: { progress: 0 } });
        await new Promise<void>((resolve) => env.signal.addEventListener('abort', () => resolve(), { once: true }));
        aborted = env.signal.reason;
        return { jsonrpc: '2.0', id: message.id, result: {} };
      },
    };
    const handler = protect(dispatcher, { scopes: POLICY }, { sseKeepAliveMs: 0 });
    const token = await sign({ scope: 'mcp:read', exp: Math.floor(Date.now() / 1000) + 1 });
    const response = await handler.handle(post(request('tools/call', { name: 'slow', arguments: {} }), bearer(token)));
    assert.equal(response.status, 200);
    const reader = new SseReader(response);
    await reader.waitEnd(5000);
    assert.ok(aborted instanceof Error && /access token this stream was opened with expired/.test(aborted.message), String(aborted));
    await handler.close();
  });

  it('streams of tokens that expire later stay open until then', async () => {
    const d = fakeStatefulDispatcher();
    const handler = protect(d, { scopes: POLICY });
    const alice = bearer(await sign({ scope: 'mcp:read' })); // exp = now + 300 s
    const sid = header(await handler.handle(httpReq('POST', initRequest(), alice)), 'mcp-session-id') as string;
    const reader = new SseReader(await handler.handle(httpReq('GET', undefined, { ...alice, 'mcp-session-id': sid, 'mcp-protocol-version': '2025-11-25' })));
    await new Promise((r) => setTimeout(r, 50));
    assert.equal(reader.ended, false);
    reader.disconnect();
    await handler.close();
  });
});
