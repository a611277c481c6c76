import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { ConsentHttpApi } from '../../../../src/host/consent/consentHttpApi.js';
import { MemoryGrantStore } from '../../../../src/host/consent/consentGrants.js';
import { ConsentQueue } from '../../../../src/host/consent/consentQueue.js';
import { DeniedError } from '../../../../src/host/interceptors.js';
import type { HttpRequestLike, HttpResponseLike, SseStream } from '../../../../src/transport/http/server/types.js';
import { consentWorld } from './consentWorld.js';

const ADMIN = 'a'.repeat(40);
const MCP = 'm'.repeat(43);

function req(method: string, path: string, headers: Record<string, string> = {}, body?: unknown): HttpRequestLike {
  const all: Record<string, string> = { host: '127.0.0.1:8765', ...headers };
  return { method, path, header: (n) => all[n], ...(body !== undefined ? { body: new TextEncoder().encode(JSON.stringify(body)) } : {}) };
}
const admin = { authorization: `Bearer ${ADMIN}` };
const parsed = (r: HttpResponseLike | undefined): Record<string, unknown> => JSON.parse(String(r?.body)) as Record<string, unknown>;

/** A world whose provider is the queue, with the API over it; `waiting()` resolves once a request is queued. */
function setup() {
  const queue = new ConsentQueue();
  const world = consentWorld([queue]);
  const api = new ConsentHttpApi({ queue, grants: world.grants, adminToken: ADMIN, mcpToken: MCP });
  const waiting = (): Promise<string> =>
    new Promise((resolve) => {
      const off = queue.subscribe((e) => {
        if (e.type !== 'request') return;
        off();
        resolve(e.request.id);
      });
    });
  return { queue, world, api, waiting };
}

describe('consent HTTP API: access', () => {
  it('MCP bearer token on the consent API: 403, for reading and for approving', async () => {
    const { api, world, waiting } = setup();
    const call = world.call();
    const id = await waiting();
    const read = await api.handle(req('GET', '/consent/requests', { authorization: `Bearer ${MCP}` }));
    assert.equal(read?.status, 403);
    assert.match(String(parsed(read)['error']), /MCP bearer token is the agent's credential/);
    const approve = await api.handle(req('POST', `/consent/requests/${id}/approve`, { authorization: `Bearer ${MCP}` }, {}));
    assert.equal(approve?.status, 403);
    assert.equal(world.routed.length, 0);
    await api.handle(req('POST', `/consent/requests/${id}/deny`, admin, {}));
    await assert.rejects(call, DeniedError);
  });

  it('no credential: 401 with a Bearer challenge; a wrong token: 401 invalid_token', async () => {
    const { api } = setup();
    const none = await api.handle(req('GET', '/consent/requests'));
    assert.equal(none?.status, 401);
    assert.match(String(none?.headers['www-authenticate']), /^Bearer realm="switchboard-admin"$/);
    const wrong = await api.handle(req('GET', '/consent/requests', { authorization: `Bearer ${'b'.repeat(40)}` }));
    assert.equal(wrong?.status, 401);
    assert.match(String(wrong?.headers['www-authenticate']), /invalid_token/);
  });

  it('cross-origin POST with the admin token: 403, before anything is answered', async () => {
    const { api, world, waiting } = setup();
    const call = world.call();
    const id = await waiting();
    const evil = await api.handle(req('POST', `/consent/requests/${id}/approve`, { ...admin, origin: 'https://evil.example' }, {}));
    assert.equal(evil?.status, 403);
    const site = await api.handle(req('POST', `/consent/requests/${id}/approve`, { ...admin, 'sec-fetch-site': 'cross-site' }, {}));
    assert.equal(site?.status, 403);
    assert.equal(world.routed.length, 0);
    const same = await api.handle(req('POST', `/consent/requests/${id}/approve`, { ...admin, origin: 'http://127.0.0.1:8765' }, {}));
    assert.equal(same?.status, 200);
    await call;
    assert.equal(world.routed.length, 1);
  });

  it('an admin token equal to the MCP token is refused at construction', () => {
    assert.throws(() => new ConsentHttpApi({ queue: new ConsentQueue(), grants: new MemoryGrantStore(), adminToken: ADMIN, mcpToken: ADMIN }), /must differ/);
  });

  it('paths outside /consent/ are not answered (the MCP endpoint handles them)', async () => {
    const { api } = setup();
    assert.equal(await api.handle(req('POST', '/mcp', admin, {})), undefined);
  });
});

describe('consent HTTP API: answering', () => {
  it('lists a waiting request with its full arguments and reasons; approve once lets exactly that call through', async () => {
    const { api, world, waiting } = setup();
    const call = world.call({ args: { to: 'bob@example.com', body: 'quarterly numbers' } });
    const id = await waiting();
    const list = parsed(await api.handle(req('GET', '/consent/requests', admin)));
    const [first] = list['requests'] as { id: string; arguments: unknown; reasons: string[] }[];
    assert.equal(first?.id, id);
    assert.deepEqual(first?.arguments, { to: 'bob@example.com', body: 'quarterly numbers' });
    assert.deepEqual(first?.reasons, ['egress after private data', 'untrusted content']);
    const one = await api.handle(req('GET', `/consent/requests/${id}`, admin));
    assert.equal(parsed(one)['tool'], 'send');
    assert.equal((await api.handle(req('POST', `/consent/requests/${id}/approve`, admin, {})))?.status, 200);
    const ctx = await call;
    const d = ctx.decisions.find((x) => x.interceptor === 'consent');
    assert.equal(d?.detail?.['approver'], 'admin-token');
    assert.equal(d?.detail?.['mediated'], 'person');
  });

  it('deny through the API: the call is denied with the reason', async () => {
    const { api, world, waiting } = setup();
    const call = world.call();
    const id = await waiting();
    await api.handle(req('POST', `/consent/requests/${id}/deny`, admin, { reason: 'no mail today' }));
    await assert.rejects(call, (e) => e instanceof DeniedError && /no mail today/.test(e.message));
  });

  it('a widened approval becomes a grant that is listed and can be revoked', async () => {
    const { api, world, waiting } = setup();
    const first = world.call();
    const id = await waiting();
    const answer = await api.handle(req('POST', `/consent/requests/${id}/approve`, admin, { scope: { match: 'tool', duration: 'session' } }));
    assert.equal(answer?.status, 200);
    await first;
    await world.call({ args: { to: 'carol@example.com' } });
    assert.equal(world.routed.length, 2, 'covered by the grant');
    const grants = parsed(await api.handle(req('GET', '/consent/grants', admin)))['grants'] as { id: string }[];
    assert.equal(grants.length, 1);
    assert.equal((await api.handle(req('DELETE', `/consent/grants/${grants[0]?.id}`, admin)))?.status, 200);
    const again = world.call({ args: { to: 'carol@example.com' } });
    const id2 = await waiting();
    await api.handle(req('POST', `/consent/requests/${id2}/deny`, admin, {}));
    await assert.rejects(again, DeniedError);
  });

  it('an invalid scope is a 400 and the request keeps waiting', async () => {
    const { api, world, waiting } = setup();
    const call = world.call();
    const id = await waiting();
    const bad = await api.handle(req('POST', `/consent/requests/${id}/approve`, admin, { scope: { match: 'pattern', duration: 'session', patterns: { nope: '*' } } }));
    assert.equal(bad?.status, 400);
    assert.match(String(parsed(bad)['error']), /the call has no argument "nope"/);
    await api.handle(req('POST', `/consent/requests/${id}/deny`, admin, {}));
    await assert.rejects(call, DeniedError);
  });

  it('guessing a request id: 404, nothing approved', async () => {
    const { api } = setup();
    const r = await api.handle(req('POST', '/consent/requests/00000000-0000-4000-8000-000000000000/approve', admin, {}));
    assert.equal(r?.status, 404);
  });

  it('a late answer (after the request timed out) is refused, never applied to a later call', async () => {
    const queue = new ConsentQueue();
    const world = consentWorld([queue], { timeoutMs: 20 });
    const api = new ConsentHttpApi({ queue, grants: world.grants, adminToken: ADMIN });
    let id = '';
    queue.subscribe((e) => void (e.type === 'request' && (id = e.request.id)));
    await assert.rejects(world.call(), (e) => e instanceof DeniedError && /nobody answered/.test(e.message));
    const late = await api.handle(req('POST', `/consent/requests/${id}/approve`, admin, {}));
    assert.equal(late?.status, 404);
    assert.deepEqual(queue.pending(), []);
  });

  it('server-sent events: a new request is pushed in full, then its answer', async () => {
    const { api, world, waiting } = setup();
    const response = await api.handle(req('GET', '/consent/events', admin));
    assert.equal(response?.headers['content-type'], 'text/event-stream');
    const chunks: string[] = [];
    let wake = (): void => undefined;
    (response?.body as SseStream).start({ write: (c) => (chunks.push(c), wake()), end: () => undefined });
    const seen = (text: string): Promise<void> => new Promise((resolve) => {
      wake = () => void (chunks.join('').includes(text) && resolve());
      wake();
    });
    const call = world.call({ args: { to: 'dave@example.com' } });
    const id = await waiting();
    await seen('event: request');
    assert.match(chunks.join(''), /dave@example\.com/);
    await api.handle(req('POST', `/consent/requests/${id}/approve`, admin, {}));
    await call;
    await seen('event: answered');
    api.close();
  });
});
