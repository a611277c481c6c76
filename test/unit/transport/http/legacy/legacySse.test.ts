/**
 * The deprecated HTTP+SSE transport (2024-11-05) served by the Streamable HTTP handler's
 * `legacySse` option: the handshake, round trips on the stream, the session's end, and the
 * attacks (named after them).
 *
 * @module
 */
import { PRINCIPAL } from '../../../../../src/transport/principal.js';
import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import * as jose from 'jose';
import { ErrorCode } from '../../../../../src/jsonrpc/errors.js';
import { allowInsecureRequests } from '../../../../../src/auth/http.js';
import { createBearerVerifier, type BearerVerifierOptions } from '../../../../../src/auth/resource/bearerVerifier.js';
import { protectedResourceMetadata } from '../../../../../src/auth/resource/protectedResourceMetadata.js';
import { createStreamableHttpHandler, type StreamableHttpHandler, type StreamableHttpServerOptions } from '../../../../../src/transport/http/server/server.js';
import type { HttpRequestLike, HttpResponseLike } from '../../../../../src/transport/http/server/types.js';
import { bodyJson, fakeStatefulDispatcher, initRequest, rpc, SseReader, type FakeStatefulDispatcher } from '../server/sessionSupport.js';

const LEGACY = { path: '/sse', messagesPath: '/messages' } as const;
const enc = new TextEncoder();

function req(method: string, path: string, body?: unknown, headers: Record<string, string | undefined> = {}, query?: string): HttpRequestLike {
  const all: Record<string, string> = { host: 'localhost:3000' };
  if (method === 'POST') all['content-type'] = 'application/json';
  if (method === 'GET') all['accept'] = 'text/event-stream';
  for (const [k, v] of Object.entries(headers)) {
    if (v === undefined) delete all[k];
    else all[k] = v;
  }
  const base = { method, path, query, header: (n: string) => all[n] };
  return body === undefined ? base : { ...base, body: enc.encode(typeof body === 'string' ? body : JSON.stringify(body)) };
}

function make(options: StreamableHttpServerOptions = {}): { h: StreamableHttpHandler; d: FakeStatefulDispatcher } {
  const d = fakeStatefulDispatcher();
  return { h: createStreamableHttpHandler(d, { sseKeepAliveMs: 0, legacySse: LEGACY, ...options }), d };
}

interface Opened {
  readonly stream: SseReader;
  readonly endpoint: string;
  readonly query: string;
}

async function open(h: StreamableHttpHandler, headers: Record<string, string | undefined> = {}): Promise<Opened> {
  const res = await h.handle(req('GET', '/sse', undefined, headers));
  assert.equal(res.status, 200);
  assert.equal(res.headers['content-type'], 'text/event-stream');
  const stream = new SseReader(res);
  const [first] = await stream.waitFor(1);
  assert.equal(first?.event, 'endpoint');
  const endpoint = first?.data ?? '';
  assert.match(endpoint, /^\/messages\?sessionId=[0-9a-f-]{36}$/);
  return { stream, endpoint, query: endpoint.slice(endpoint.indexOf('?') + 1) };
}

const send = (h: StreamableHttpHandler, o: Opened, body: unknown, headers: Record<string, string | undefined> = {}): Promise<HttpResponseLike> =>
  h.handle(req('POST', '/messages', body, headers, o.query));

/** The JSON of the `event: message` events so far. */
const messages = (s: SseReader): Record<string, unknown>[] => s.events.filter((e) => e.event === 'message').map((e) => JSON.parse(e.data) as Record<string, unknown>);

async function until(s: SseReader, predicate: (m: Record<string, unknown>) => boolean): Promise<Record<string, unknown>> {
  const deadline = Date.now() + 2000;
  for (;;) {
    const found = messages(s).find(predicate);
    if (found !== undefined) return found;
    if (Date.now() > deadline || s.ended) throw new Error(`not received; have ${JSON.stringify(messages(s))}`);
    await s.waitFor(s.events.length + 1, 100).catch(() => undefined);
  }
}

async function initialized(h: StreamableHttpHandler, headers: Record<string, string | undefined> = {}): Promise<Opened> {
  const o = await open(h, headers);
  assert.equal((await send(h, o, initRequest('2025-06-18'), headers)).status, 202);
  const init = await until(o.stream, (m) => m['id'] === 1);
  assert.equal((init['result'] as { protocolVersion: string }).protocolVersion, '2025-06-18');
  assert.equal((await send(h, o, { jsonrpc: '2.0', method: 'notifications/initialized' }, headers)).status, 202);
  return o;
}

describe('legacy HTTP+SSE (2024-11-05): positives', () => {
  it('handshake: the first event names the messages endpoint with a random session id', async () => {
    const { h, d } = make();
    const a = await open(h);
    const b = await open(h);
    assert.notEqual(a.endpoint, b.endpoint);
    assert.equal(d.sessions.length, 2);
    assert.equal(h.sessionCount, 2);
    await h.close();
  });

  it('initialize and a request round trip: POST gets 202 empty, the response comes as event: message', async () => {
    const { h, d } = make();
    const o = await initialized(h);
    const res = await send(h, o, rpc('echo', { q: 1 }, 2));
    assert.equal(res.status, 202);
    assert.equal(res.body, undefined);
    const echo = await until(o.stream, (m) => m['id'] === 2);
    assert.deepEqual(echo['result'], { echo: { q: 1 }, principal: null, hasSession: true });
    assert.deepEqual(d.notifications, ['notifications/initialized']);
    await h.close();
  });

  it('notifications of a request (progress) and unsolicited ones (the session peer) go on the stream', async () => {
    const { h } = make();
    const o = await initialized(h);
    await send(h, o, rpc('progress', { count: 2 }, 3));
    await until(o.stream, (m) => m['id'] === 3);
    assert.equal(messages(o.stream).filter((m) => m['method'] === 'notifications/progress').length, 2);
    await send(h, o, rpc('shout', {}, 4));
    await until(o.stream, (m) => m['method'] === 'notifications/tools/list_changed');
    await h.close();
  });

  it('a server→client request (elicitation/create) is answered by a POST', async () => {
    const { h } = make();
    const o = await initialized(h);
    await send(h, o, rpc('ask', {}, 5));
    const ask = await until(o.stream, (m) => m['method'] === 'elicitation/create');
    assert.equal((await send(h, o, { jsonrpc: '2.0', id: ask['id'], result: { action: 'accept', content: {} } })).status, 202);
    const done = await until(o.stream, (m) => m['id'] === 5);
    assert.deepEqual(done['result'], { answer: { action: 'accept', content: {} } });
    await h.close();
  });

  it('closing the stream ends the session and aborts a running handler', async () => {
    const { h, d } = make();
    const o = await initialized(h);
    await send(h, o, rpc('gate', {}, 6));
    await new Promise((r) => setTimeout(r, 10));
    o.stream.disconnect();
    assert.deepEqual(d.aborted, [6]);
    assert.equal(d.closed.length, 1);
    assert.equal(h.sessionCount, 0);
    assert.equal((await send(h, o, rpc('echo', {}, 7))).status, 404);
    await h.close();
  });

  it('handler.close() ends every legacy session and its stream', async () => {
    const { h, d } = make();
    const o = await initialized(h);
    await h.close();
    await o.stream.waitEnd();
    assert.equal(d.closed.length, 1);
    assert.equal(h.sessionCount, 0);
  });

  it('a legacy session id is not a Streamable Mcp-Session-Id (and the Streamable endpoint still works)', async () => {
    const { h } = make();
    const o = await initialized(h);
    const id = o.query.slice('sessionId='.length);
    const res = await h.handle({ ...req('POST', '/mcp', rpc('echo', {}, 8), { accept: 'application/json, text/event-stream', 'mcp-session-id': id }) });
    assert.equal(res.status, 404);
    await h.close();
  });
});

describe('legacy HTTP+SSE (2024-11-05): attacks', () => {
  it('session hijack: a POST to another principal’s session → 404, nothing dispatched', async () => {
    let principal = 'alice';
    const { h } = make({ extra: () => ({ [PRINCIPAL]: { id: principal } }) });
    const o = await initialized(h);
    principal = 'mallory';
    const res = await send(h, o, rpc('echo', { steal: true }, 9));
    assert.equal(res.status, 404);
    assert.equal((bodyJson(res) as { error: { code: number } }).error.code, ErrorCode.SessionNotFound);
    principal = 'alice';
    assert.equal((await send(h, o, rpc('echo', {}, 10))).status, 202);
    assert.equal(messages(o.stream).some((m) => m['id'] === 9), false);
    await h.close();
  });

  it('session guessing: an unknown sessionId → 404, a missing one → 400', async () => {
    const { h } = make();
    assert.equal((await h.handle(req('POST', '/messages', rpc('echo'), {}, 'sessionId=00000000-0000-4000-8000-000000000000'))).status, 404);
    assert.equal((await h.handle(req('POST', '/messages', rpc('echo')))).status, 400);
    await h.close();
  });

  it('DNS rebinding: a foreign Host or Origin → 403 on both paths', async () => {
    const { h, d } = make();
    assert.equal((await h.handle(req('GET', '/sse', undefined, { host: 'evil.example' }))).status, 403);
    assert.equal((await h.handle(req('GET', '/sse', undefined, { origin: 'http://evil.example' }))).status, 403);
    const o = await open(h);
    assert.equal((await send(h, o, rpc('echo'), { origin: 'http://evil.example' })).status, 403);
    assert.equal((await send(h, o, rpc('echo'), { host: 'evil.example:3000' })).status, 403);
    assert.equal(d.sessions.length, 1);
    await h.close();
  });

  it('oversized body → 413; wrong content type → 415; malformed JSON or a batch → 400', async () => {
    const { h } = make({ maxBodyBytes: 64 });
    const o = await open(h);
    assert.equal((await send(h, o, rpc('echo', { pad: 'x'.repeat(100) }))).status, 413);
    assert.equal((await send(h, o, rpc('echo'), { 'content-type': 'text/plain' })).status, 415);
    const bad = await send(h, o, '{"jsonrpc":');
    assert.equal(bad.status, 400);
    assert.equal((bodyJson(bad) as { error: { code: number } }).error.code, -32700);
    assert.equal((await send(h, o, [rpc('echo')])).status, 400);
    await h.close();
  });

  it('session flooding: maxSessions → 503 with Retry-After', async () => {
    const { h } = make({ maxSessions: 1 });
    await open(h);
    const res = await h.handle(req('GET', '/sse'));
    assert.equal(res.status, 503);
    assert.equal(res.headers['retry-after'], '5');
    await h.close();
  });

  it('wrong method on a legacy path → 405 with Allow', async () => {
    const { h } = make();
    const res = await h.handle(req('POST', '/sse', rpc('echo')));
    assert.equal(res.status, 405);
    assert.equal(res.headers['allow'], 'GET');
    assert.equal((await h.handle(req('GET', '/messages'))).headers['allow'], 'POST');
    await h.close();
  });
});

describe('legacy HTTP+SSE (2024-11-05) with auth', async () => {
  const RESOURCE = 'http://localhost:3000/mcp';
  const ISSUER = 'http://localhost:4000';
  const insecure = { [allowInsecureRequests]: true } as const;
  const { privateKey, publicKey } = await jose.generateKeyPair('ES256', { extractable: true });
  const publicJwk = { ...(await jose.exportJWK(publicKey)), kid: 'k1', alg: 'ES256', use: 'sig' };
  const sign = (sub: string, expSeconds = 300): Promise<string> => {
    const now = Math.floor(Date.now() / 1000);
    return new jose.SignJWT({ client_id: 'c1', sub, iat: now, exp: now + expSeconds, iss: ISSUER, aud: RESOURCE })
      .setProtectedHeader({ alg: 'ES256', kid: 'k1', typ: 'at+jwt' })
      .sign(privateKey);
  };
  const protect = (): { h: StreamableHttpHandler; d: FakeStatefulDispatcher } =>
    make({
      auth: {
        verifier: createBearerVerifier({ resource: RESOURCE, issuers: [ISSUER], jwks: { keys: [publicJwk] }, ...insecure } as BearerVerifierOptions),
        resourceMetadata: protectedResourceMetadata({ resource: RESOURCE, authorizationServers: [ISSUER], ...insecure }),
      },
    });
  const bearer = (token: string): Record<string, string> => ({ authorization: `Bearer ${token}` });

  it('no token → 401 + WWW-Authenticate on the GET and on the POST', async () => {
    const { h, d } = protect();
    const get = await h.handle(req('GET', '/sse'));
    assert.equal(get.status, 401);
    assert.match(get.headers['www-authenticate'] ?? '', /^Bearer /);
    const alice = bearer(await sign('alice'));
    const o = await open(h, alice);
    assert.equal((await send(h, o, rpc('echo'))).status, 401);
    assert.equal(d.sessions.length, 1);
    await h.close();
  });

  it('session hijack with a valid token of another subject → 404', async () => {
    const { h } = protect();
    const alice = bearer(await sign('alice'));
    const o = await initialized(h, alice);
    const res = await send(h, o, rpc('echo', {}, 2), bearer(await sign('mallory')));
    assert.equal(res.status, 404);
    assert.equal((await send(h, o, rpc('echo', {}, 3), alice)).status, 202);
    const echo = await until(o.stream, (m) => m['id'] === 3);
    assert.equal((echo['result'] as { principal: string }).principal, 'alice');
    await h.close();
  });

  it('token expiry: the stream is cut when the GET’s token expires, which ends the session', async () => {
    const { h, d } = protect();
    const o = await open(h, bearer(await sign('alice', 1)));
    await o.stream.waitEnd(3000);
    assert.equal(d.closed.length, 1);
    assert.equal(h.sessionCount, 0);
    await h.close();
  });
});
