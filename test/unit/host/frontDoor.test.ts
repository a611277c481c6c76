// The gateway's front door (src/host/frontDoor.ts) on a real port: one Host/Origin policy for
// the MCP endpoint, /healthz, /readyz and the mounts (consent API, console); duplicate Host is
// 400 (RFC 9112 section 3.2); both entries (`handle` through the Node adapter, `fetch`) pass the
// token check; named static tokens reach tool handlers as `ctx.principal`. Attacks are judged
// by what reached the tool (its call log), the mount (its request log) or the wire (raw sockets).
import assert from 'node:assert/strict';
import { connect } from 'node:net';
import { after, before, describe, it } from 'node:test';
import { listen, type ListeningServer } from '../../../src/adapters/nodeHttp.js';
import { createBearerVerifier } from '../../../src/auth/resource/bearerVerifier.js';
import { protectedResourceMetadata } from '../../../src/auth/resource/protectedResourceMetadata.js';
import { tokenDigest } from '../../../src/auth/resource/staticTokens.js';
import { ConsentHttpApi } from '../../../src/host/consent/consentHttpApi.js';
import { ConsentQueue } from '../../../src/host/consent/consentQueue.js';
import { DeniedError } from '../../../src/host/interceptors.js';
import { createFrontDoor, type FrontDoorOptions, type MountedRoutes } from '../../../src/host/frontDoor.js';
import { McpServer } from '../../../src/server/mcpServer.js';
import type { Principal } from '../../../src/transport/principal.js';
import type { StreamableHttpHandler } from '../../../src/transport/http/server/server.js';
import { silentLogger } from '../../../src/util/logger.js';
import { consentWorld } from './consent/consentWorld.js';

const ALICE = 'alice-token-0123456789abcdefghijklmnopqrstuv';
const CI = 'ci-token-0123456789abcdefghijklmnopqrstuvwxyz';
const ADMIN = 'a'.repeat(40);
const SECRET_ID = 'billing-db';
const SECRET_ERROR = 'password authentication failed for 10.20.30.40';
const TIMEOUT = { timeout: 20_000 };

/** What the tool saw: one entry per call that reached it. */
const calls: (Principal | null)[] = [];
/** What reached the fake mounts. */
const mounted: string[] = [];

function whoamiServer(): McpServer {
  const server = new McpServer({ name: 'front-door-test', version: '1' });
  server.tool('whoami', { description: 'Echoes the caller' }, (_args, ctx) => {
    calls.push(ctx.principal ?? null);
    return JSON.stringify(ctx.principal ?? null);
  });
  return server;
}

/** A mount that answers 200 and records each request it saw. */
function recordingMount(prefix: string): MountedRoutes {
  return {
    owns: (path) => path === prefix || path.startsWith(`${prefix}/`),
    handle: (request) => {
      mounted.push(`${request.method} ${request.path}`);
      return Promise.resolve({ status: 200, headers: { 'content-type': 'application/json' }, body: '{"mounted":true}' });
    },
  };
}

const baseOptions: FrontDoorOptions = {
  path: '/mcp',
  logger: silentLogger,
  auth: {
    tokens: [
      { name: 'alice', sha256: tokenDigest(ALICE), scopes: ['tools:read', 'tools:call'] },
      { name: 'ci', sha256: tokenDigest(CI), scopes: [] },
    ],
    hint: 'see the gateway-token file in the state folder',
  },
  health: () => [{ id: SECRET_ID, state: 'error', lastError: SECRET_ERROR }, { id: 'docs', state: 'ready' }],
  mounts: [recordingMount('/console'), recordingMount('/consent')],
};

let door: StreamableHttpHandler;
let running: ListeningServer;
let port: number;

before(async () => {
  door = createFrontDoor(whoamiServer(), baseOptions);
  running = await listen(door, { port: 0 });
  port = running.port;
});
after(async () => {
  await running.close();
});

/** Sends raw request bytes and resolves with the whole answer (the server closes: `Connection: close`). */
function raw(head: string, body = ''): Promise<{ status: number; text: string }> {
  return new Promise((resolve, reject) => {
    const socket = connect(port, '127.0.0.1', () => socket.end(`${head}\r\nConnection: close\r\nContent-Length: ${Buffer.byteLength(body)}\r\n\r\n${body}`));
    let text = '';
    socket.setEncoding('utf8');
    socket.on('data', (chunk: string) => (text += chunk));
    socket.on('error', reject);
    socket.on('close', () => resolve({ status: Number(/^HTTP\/1\.1 (\d{3})/.exec(text)?.[1] ?? 0), text }));
  });
}

function toolCallBody(): string {
  return JSON.stringify({
    jsonrpc: '2.0',
    id: 1,
    method: 'tools/call',
    params: { name: 'whoami', arguments: {}, _meta: { 'io.modelcontextprotocol/protocolVersion': '2026-07-28', 'io.modelcontextprotocol/clientCapabilities': {} } },
  });
}

function toolCallHeaders(token?: string): Record<string, string> {
  return {
    'content-type': 'application/json',
    accept: 'application/json, text/event-stream',
    'mcp-protocol-version': '2026-07-28',
    'mcp-method': 'tools/call',
    'mcp-name': 'whoami',
    ...(token !== undefined ? { authorization: `Bearer ${token}` } : {}),
  };
}

function callTool(token?: string, url = `http://127.0.0.1:${port}/mcp`): Promise<Response> {
  return fetch(url, { method: 'POST', headers: toolCallHeaders(token), body: toolCallBody() });
}

describe('front door: one Host/Origin policy for every route', () => {
  it('readyz with a foreign Host (DNS rebinding) is 403 and leaks no server id', TIMEOUT, async () => {
    for (const auth of ['', `\r\nAuthorization: Bearer ${ALICE}`]) {
      const answer = await raw(`GET /readyz HTTP/1.1\r\nHost: evil.example:${port}${auth}`);
      assert.equal(answer.status, 403);
      assert.equal(answer.text.includes(SECRET_ID), false);
      assert.equal(answer.text.includes(SECRET_ERROR), false);
    }
    // The same request with the gateway's own Host is answered (the refusal was the Host's).
    assert.equal((await raw(`GET /healthz HTTP/1.1\r\nHost: 127.0.0.1:${port}`)).status, 200);
  });

  it('two Host headers are 400 (on /mcp, /readyz, /consent/…, /console), and nothing reaches the tool or the mounts', TIMEOUT, async () => {
    calls.length = 0;
    mounted.length = 0;
    const hosts = `Host: 127.0.0.1:${port}\r\nHost: evil.example`;
    const body = toolCallBody();
    const mcpHead = Object.entries(toolCallHeaders(ALICE))
      .map(([k, v]) => `${k}: ${v}`)
      .join('\r\n');
    assert.equal((await raw(`POST /mcp HTTP/1.1\r\n${hosts}\r\n${mcpHead}`, body)).status, 400);
    for (const path of ['/readyz', '/healthz', '/consent/requests', '/console/', '/console/api/overview']) {
      assert.equal((await raw(`GET ${path} HTTP/1.1\r\n${hosts}\r\nAuthorization: Bearer ${ALICE}`)).status, 400, path);
    }
    // The foreign one first, the allowed one second: still 400 (neither is silently picked).
    assert.equal((await raw(`GET /console/ HTTP/1.1\r\nHost: evil.example\r\nHost: 127.0.0.1:${port}`)).status, 400);
    assert.deepEqual(calls, []);
    assert.deepEqual(mounted, []);
    // One Host: the same requests get through.
    assert.equal((await raw(`POST /mcp HTTP/1.1\r\nHost: 127.0.0.1:${port}\r\n${mcpHead}`, body)).status, 200);
    assert.equal((await raw(`GET /console/ HTTP/1.1\r\nHost: 127.0.0.1:${port}`)).status, 200);
    assert.equal(calls.length, 1);
    assert.deepEqual(mounted, ['GET /console/']);
  });

  it('two Host headers through the fetch entry are 400 too', TIMEOUT, async () => {
    calls.length = 0;
    const headers = new Headers(toolCallHeaders(ALICE));
    headers.append('host', '127.0.0.1');
    headers.append('host', 'evil.example');
    const response = await door.fetch(new Request('http://127.0.0.1/mcp', { method: 'POST', headers, body: toolCallBody() }));
    assert.equal(response.status, 400);
    assert.deepEqual(calls, []);
  });

  it('a mount with a foreign Host or Origin (DNS rebinding, a foreign page) is 403 and never reached', TIMEOUT, async () => {
    mounted.length = 0;
    assert.equal((await raw(`GET /console/api/overview HTTP/1.1\r\nHost: evil.example:${port}`)).status, 403);
    assert.equal((await raw(`POST /consent/requests/x/approve HTTP/1.1\r\nHost: 127.0.0.1:${port}\r\nOrigin: https://evil.example`, '{}')).status, 403);
    assert.deepEqual(mounted, []);
  });

  it('the consent API refuses a foreign Host: a rebinding page cannot approve a waiting call, even with the admin token', TIMEOUT, async () => {
    const queue = new ConsentQueue();
    const world = consentWorld([queue]);
    const api = new ConsentHttpApi({ queue, grants: world.grants, adminToken: ADMIN });
    const waiting = new Promise<string>((resolve) => {
      const off = queue.subscribe((e) => {
        if (e.type !== 'request') return;
        off();
        resolve(e.request.id);
      });
    });
    const consentDoor = createFrontDoor(whoamiServer(), { ...baseOptions, mounts: [api] });
    const server = await listen(consentDoor, { port: 0 });
    try {
      // Settled into a value at once: the denial below must not surface as an unhandled rejection.
      const outcome = world.call().then(() => undefined, (error: unknown) => error);
      const id = await waiting;
      const url = `http://127.0.0.1:${server.port}/consent/requests/${id}/approve`;
      const foreign = await new Promise<number>((resolve, reject) => {
        const socket = connect(server.port, '127.0.0.1', () =>
          socket.end(`POST /consent/requests/${id}/approve HTTP/1.1\r\nHost: evil.example:${server.port}\r\nAuthorization: Bearer ${ADMIN}\r\nContent-Type: application/json\r\nContent-Length: 2\r\nConnection: close\r\n\r\n{}`),
        );
        let text = '';
        socket.on('data', (chunk: Buffer) => (text += chunk.toString('utf8')));
        socket.on('error', reject);
        socket.on('close', () => resolve(Number(/^HTTP\/1\.1 (\d{3})/.exec(text)?.[1] ?? 0)));
      });
      assert.equal(foreign, 403);
      assert.equal(world.routed.length, 0);
      assert.equal(queue.pending().length, 1);
      // The admin on the gateway's own Host: denied, so the call ends and nothing was routed.
      const own = await fetch(url.replace('/approve', '/deny'), { method: 'POST', headers: { authorization: `Bearer ${ADMIN}`, 'content-type': 'application/json' }, body: '{}' });
      assert.equal(own.status, 200);
      assert.ok((await outcome) instanceof DeniedError);
      assert.equal(world.routed.length, 0);
    } finally {
      api.close();
      await server.close();
    }
  });

  it('favicon.ico (asked by the console page) is 404, not 401', TIMEOUT, async () => {
    const response = await fetch(`http://127.0.0.1:${port}/favicon.ico`);
    assert.equal(response.status, 404);
    assert.equal(response.headers.get('www-authenticate'), null);
  });
});

describe('front door: readiness and the token check', () => {
  it('readyz without a token gives no details, with one gives them', TIMEOUT, async () => {
    const bare = await fetch(`http://127.0.0.1:${port}/readyz`);
    assert.equal(bare.status, 200);
    const bareText = await bare.text();
    assert.deepEqual(JSON.parse(bareText), { status: 'ready' });
    assert.equal(bareText.includes(SECRET_ID), false);
    const wrong = await fetch(`http://127.0.0.1:${port}/readyz`, { headers: { authorization: 'Bearer not-a-token-of-this-gateway-000000' } });
    assert.deepEqual(await wrong.json(), { status: 'ready' });
    const detailed = await fetch(`http://127.0.0.1:${port}/readyz`, { headers: { authorization: `Bearer ${CI}` } });
    assert.equal(detailed.status, 200);
    const body = (await detailed.json()) as { status: string; servers: { id: string; state: string; error?: string }[] };
    assert.deepEqual(body.servers, [{ id: SECRET_ID, state: 'error', error: SECRET_ERROR }, { id: 'docs', state: 'ready' }]);
    assert.deepEqual(await (await fetch(`http://127.0.0.1:${port}/healthz`)).json(), { status: 'ok' });
  });

  it('the fetch entry without a token is 401, and the tool is never called', TIMEOUT, async () => {
    calls.length = 0;
    const none = await door.fetch(new Request('http://127.0.0.1/mcp', { method: 'POST', headers: toolCallHeaders(), body: toolCallBody() }));
    assert.equal(none.status, 401);
    assert.equal(none.headers.get('www-authenticate'), 'Bearer realm="switchboard"');
    assert.match(await none.text(), /gateway-token file/);
    const wrong = await door.fetch(new Request('http://127.0.0.1/mcp', { method: 'POST', headers: toolCallHeaders('wrong-token-0123456789abcdefghijklmnop'), body: toolCallBody() }));
    assert.equal(wrong.status, 401);
    assert.deepEqual(calls, []);
    const good = await door.fetch(new Request('http://127.0.0.1/mcp', { method: 'POST', headers: toolCallHeaders(ALICE), body: toolCallBody() }));
    assert.equal(good.status, 200);
    assert.equal(calls.length, 1);
  });

  it('the Node entry without a token is 401 with the Bearer challenge; GET and DELETE too', TIMEOUT, async () => {
    calls.length = 0;
    const none = await callTool();
    assert.equal(none.status, 401);
    assert.equal(none.headers.get('www-authenticate'), 'Bearer realm="switchboard"');
    assert.equal((await fetch(`http://127.0.0.1:${port}/mcp`, { headers: { 'mcp-session-id': 'x' } })).status, 401);
    assert.equal((await fetch(`http://127.0.0.1:${port}/mcp`, { method: 'DELETE', headers: { 'mcp-session-id': 'x' } })).status, 401);
    assert.deepEqual(calls, []);
  });
});

describe('front door: named tokens', () => {
  it("each token's name arrives as ctx.principal.id, and its scopes in principal.auth.scopes", TIMEOUT, async () => {
    calls.length = 0;
    assert.equal((await callTool(ALICE)).status, 200);
    assert.equal((await callTool(CI)).status, 200);
    assert.deepEqual(
      calls.map((p) => p?.id),
      ['alice', 'ci'],
    );
    assert.deepEqual(calls[0]?.auth?.scopes, ['tools:read', 'tools:call']);
    assert.equal(calls[0]?.auth?.subject, 'alice');
    assert.deepEqual(calls[0]?.auth?.claims, {});
    assert.deepEqual(calls[1]?.auth?.scopes, []);
  });

  it('a wrong token is 401 invalid_token and reaches no handler (a near miss, a token with a suffix, the digest itself)', TIMEOUT, async () => {
    calls.length = 0;
    for (const token of [`${ALICE.slice(0, -1)}x`, `${ALICE}x`, tokenDigest(ALICE), 'alice']) {
      const response = await callTool(token);
      assert.equal(response.status, 401, token);
      assert.equal(response.headers.get('www-authenticate'), 'Bearer realm="switchboard", error="invalid_token"');
    }
    // Not a bearer scheme at all, or the token in the query string (MCP forbids it).
    const basic = await fetch(`http://127.0.0.1:${port}/mcp`, { method: 'POST', headers: { ...toolCallHeaders(), authorization: `Basic ${ALICE}` }, body: toolCallBody() });
    assert.equal(basic.status, 401);
    assert.equal((await callTool(undefined, `http://127.0.0.1:${port}/mcp?access_token=${ALICE}`)).status, 400);
    assert.deepEqual(calls, []);
  });

  it('with OAuth configured too, a static token still passes, and refusals keep the resource metadata challenge', TIMEOUT, async () => {
    const resource = 'https://gateway.example.test/mcp';
    const verifier = createBearerVerifier({ resource, issuers: ['https://as.example.test'], jwks: { url: 'https://as.example.test/jwks', fetch: () => Promise.reject(new Error('offline')) } });
    const resourceMetadata = protectedResourceMetadata({ resource, authorizationServers: ['https://as.example.test'] });
    const both = createFrontDoor(whoamiServer(), { ...baseOptions, auth: { ...baseOptions.auth, oauth: { verifier, resourceMetadata } } });
    calls.length = 0;
    const request = (token?: string): Request => new Request('http://127.0.0.1/mcp', { method: 'POST', headers: toolCallHeaders(token), body: toolCallBody() });
    const none = await both.fetch(request());
    assert.equal(none.status, 401);
    assert.match(String(none.headers.get('www-authenticate')), /^Bearer resource_metadata="https:\/\/gateway\.example\.test\/\.well-known\/oauth-protected-resource\/mcp"/);
    assert.equal(calls.length, 0);
    assert.equal((await both.fetch(request(CI))).status, 200);
    assert.deepEqual(
      calls.map((p) => p?.id),
      ['ci'],
    );
    assert.equal((await both.fetch(new Request('http://127.0.0.1/.well-known/oauth-protected-resource/mcp'))).status, 200);
  });

  it('a repeated name or digest is refused when the door is built', () => {
    const same = tokenDigest(ALICE);
    assert.throws(() => createFrontDoor(whoamiServer(), { ...baseOptions, auth: { tokens: [{ name: 'a', sha256: same, scopes: [] }, { name: 'a', sha256: tokenDigest(CI), scopes: [] }] } }), /repeated/);
    assert.throws(() => createFrontDoor(whoamiServer(), { ...baseOptions, auth: { tokens: [{ name: 'a', sha256: same, scopes: [] }, { name: 'b', sha256: same, scopes: [] }] } }), /same token/);
  });
});
