/**
 * The routing decision of the Streamable HTTP handler (`routing.ts`): legacy, stateful or
 * stateless, from method, path, headers and (POST) the decoded body, made once.
 *
 * @module
 */
import assert from 'node:assert/strict';
import { after, describe, it } from 'node:test';
import { decodeFrame, defaultDecodeLimits } from '../../../../../src/jsonrpc/decode.js';
import { silentLogger } from '../../../../../src/util/logger.js';
import { LegacySseEndpoint } from '../../../../../src/transport/http/legacy/legacySse.js';
import { routePost, routeRequest, type RoutingConfig } from '../../../../../src/transport/http/server/routing.js';
import { StatefulHttp } from '../../../../../src/transport/http/server/stateful.js';
import type { HttpRequestLike } from '../../../../../src/transport/http/server/types.js';
import type { JsonRpcRequest } from '../../../../../src/jsonrpc/messages.js';
import { fakeDispatcher, request } from './support.js';

const dispatcher = fakeDispatcher();
const extra = (): Promise<Record<string, unknown>> => Promise.resolve({});
const stateful = new StatefulHttp(dispatcher, {}, { logger: silentLogger, keepAliveMs: 0, maxSseBufferedBytes: 0, limits: defaultDecodeLimits, extra });
const legacy = new LegacySseEndpoint(
  { path: '/sse', messagesPath: '/messages' },
  { sessions: stateful, dispatcher, logger: silentLogger, maxBodyBytes: 1024, limits: defaultDecodeLimits, extra, authenticate: undefined },
);
after(() => stateful.close());

function req(method: string, path: string, headers: Record<string, string> = {}): HttpRequestLike {
  return { method, path, header: (name) => headers[name] };
}
/** A 2025-era request: no 2026 `_meta`. */
const plain = (method: string, params: Record<string, unknown> = {}): JsonRpcRequest => ({ jsonrpc: '2.0', id: 1, method, params });
const decode = (value: unknown) => decodeFrame(new TextEncoder().encode(JSON.stringify(value)), defaultDecodeLimits);

describe('transport/http/server/routing', () => {
  const config: RoutingConfig = { endpoint: '/mcp', legacy, stateful };

  it('sends the legacy paths to the legacy endpoint, other methods there to a 405 naming the allowed one', () => {
    assert.deepEqual(routeRequest(req('GET', '/sse'), config), { to: 'legacy-stream', legacy });
    assert.deepEqual(routeRequest(req('POST', '/messages'), config), { to: 'legacy-message', legacy });
    assert.deepEqual(routeRequest(req('POST', '/sse'), config), { to: 'legacy-not-allowed', allow: 'GET' });
    assert.deepEqual(routeRequest(req('GET', '/messages'), config), { to: 'legacy-not-allowed', allow: 'POST' });
  });

  it('answers other paths than the endpoint with not-found, and every path is the endpoint without one', () => {
    assert.equal(routeRequest(req('POST', '/other'), config).to, 'not-found');
    assert.equal(routeRequest(req('POST', '/other'), { endpoint: undefined, legacy: undefined, stateful }).to, 'post');
  });

  it('sends GET and DELETE with a session id (trimmed) to the stateful path, only when it is on', () => {
    assert.deepEqual(routeRequest(req('GET', '/mcp', { 'mcp-session-id': ' abc ' }), config), { to: 'session-stream', stateful, sessionId: 'abc' });
    assert.deepEqual(routeRequest(req('DELETE', '/mcp', { 'mcp-session-id': 'abc' }), config), { to: 'session-delete', stateful, sessionId: 'abc' });
    assert.equal(routeRequest(req('GET', '/mcp'), config).to, 'not-allowed');
    assert.equal(routeRequest(req('PUT', '/mcp', { 'mcp-session-id': 'abc' }), config).to, 'not-allowed');
    assert.equal(routeRequest(req('GET', '/mcp', { 'mcp-session-id': 'abc' }), { ...config, stateful: undefined }).to, 'not-allowed');
  });

  it('routes a POST by its body: 2026 _meta is stateless even with a session id; initialize opens a session; a session id goes to it', () => {
    const initialize = plain('initialize', { protocolVersion: '2025-11-25' });
    const withSession = req('POST', '/mcp', { 'mcp-session-id': 's1' });
    assert.equal(routePost(withSession, decode(request('echo')), stateful).to, 'stateless');
    assert.deepEqual(routePost(req('POST', '/mcp'), decode(initialize), stateful), { to: 'initialize', stateful, message: initialize });
    assert.deepEqual(routePost(withSession, decode(plain('tools/list')), stateful), { to: 'session', stateful, sessionId: 's1' });
    assert.equal(routePost(req('POST', '/mcp'), decode(plain('tools/list')), stateful).to, 'stateless');
    assert.equal(routePost(req('POST', '/mcp'), decode({ jsonrpc: '2.0', method: 'initialize' }), stateful).to, 'stateless');
    assert.equal(routePost(req('POST', '/mcp'), decode(initialize), undefined).to, 'stateless');
  });
});
