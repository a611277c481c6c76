// CORS for browser clients: preflight answered for allowed origins, CORS headers on actual
// responses, nothing for a disallowed origin (issue #16).
// https://modelcontextprotocol.io/specification/2025-11-25/basic/transports#security-warning
import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { createStreamableHttpHandler } from '../../../../../src/transport/http/server/server.js';
import type { HttpRequestLike } from '../../../../../src/transport/http/server/types.js';
import { fakeDispatcher, json, post, request, withMeta } from './support.js';

const APP = 'https://app.example.com';

function preflight(origin: string, requestHeaders?: string, path = '/mcp'): HttpRequestLike {
  const headers: Record<string, string> = { host: 'localhost:3000', origin, 'access-control-request-method': 'POST' };
  if (requestHeaders !== undefined) headers['access-control-request-headers'] = requestHeaders;
  return { method: 'OPTIONS', path, header: (name) => headers[name], body: new Uint8Array() };
}

function handler() {
  const dispatcher = fakeDispatcher();
  return { dispatcher, http: createStreamableHttpHandler(dispatcher, { path: '/mcp', allowedOrigins: [APP, 'localhost'] }) };
}

describe('http · CORS', () => {
  it('a preflight from an allowed origin: 204 with Allow-Origin/-Methods/-Headers/-Max-Age; requested Mcp-Param-* headers allowed', async () => {
    const { http, dispatcher } = handler();
    const res = await http.handle(preflight(APP, 'Content-Type, Mcp-Param-Region, x-evil, mcp-method'));
    assert.equal(res.status, 204);
    assert.equal(res.headers['access-control-allow-origin'], APP);
    assert.equal(res.headers['access-control-allow-methods'], 'GET, POST, DELETE, OPTIONS');
    assert.equal(
      res.headers['access-control-allow-headers'],
      'content-type, accept, authorization, mcp-protocol-version, mcp-session-id, last-event-id, mcp-method, mcp-name, mcp-param-region',
    );
    assert.equal(res.headers['access-control-max-age'], '600');
    assert.match(res.headers['vary'] ?? '', /Origin/);
    assert.equal(dispatcher.messages.length, 0);
  });

  it('DNS rebinding / cross-site page cannot preflight: a disallowed origin gets 403 and no CORS headers', async () => {
    const { http } = handler();
    for (const origin of ['https://evil.example', 'null', 'https://app.example.com.evil.example']) {
      const res = await http.handle(preflight(origin, 'content-type'));
      assert.equal(res.status, 403, origin);
      assert.equal(Object.keys(res.headers).filter((name) => name.startsWith('access-control-')).length, 0, origin);
    }
  });

  it('an actual response to an allowed origin carries Allow-Origin, Vary: Origin and the exposed headers', async () => {
    const { http } = handler();
    const res = await http.handle(post(request('echo', withMeta()), { origin: 'http://localhost:5173' }));
    assert.equal(res.headers['access-control-allow-origin'], 'http://localhost:5173');
    assert.equal(res.headers['access-control-expose-headers'], 'mcp-session-id, mcp-protocol-version, www-authenticate');
    assert.match(res.headers['vary'] ?? '', /Origin/);
    assert.equal(res.status, 200);
    assert.ok(json(res).result !== undefined);
  });

  it('a response to a request without Origin (not a browser) has no CORS headers', async () => {
    const { http } = handler();
    const res = await http.handle(post(request('echo', withMeta())));
    assert.equal(res.headers['access-control-allow-origin'], undefined);
  });

  it('OPTIONS without Origin is not a preflight (405); a preflight on another path is 404', async () => {
    const { http } = handler();
    const bare: HttpRequestLike = { method: 'OPTIONS', path: '/mcp', header: (name) => (name === 'host' ? 'localhost:3000' : undefined), body: new Uint8Array() };
    assert.equal((await http.handle(bare)).status, 405);
    assert.equal((await http.handle(preflight(APP, undefined, '/other'))).status, 404);
  });
});
