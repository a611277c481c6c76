import { PRINCIPAL } from '../../../../../src/transport/principal.js';
import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { createStreamableHttpHandler, type StreamableHttpServerOptions } from '../../../../../src/transport/http/server/server.js';
import { isSseStream, type HttpResponseLike } from '../../../../../src/transport/http/server/types.js';
import { bodyJson, fakeStatefulDispatcher, httpReq, initRequest, rpc, SseReader } from './sessionSupport.js';
import { fakeDispatcher, post, request } from './support.js';

const make = (options: StreamableHttpServerOptions = {}) => {
  const d = fakeStatefulDispatcher();
  const h = createStreamableHttpHandler(d, { sseKeepAliveMs: 0, ...options });
  return { d, h };
};

type Handler = ReturnType<typeof make>['h'];

async function init(h: Handler, version = '2025-11-25', headers: Record<string, string> = {}): Promise<{ id: string; res: HttpResponseLike }> {
  const res = await h.handle(httpReq('POST', initRequest(version), headers));
  assert.equal(res.status, 200, JSON.stringify(res.body));
  const id = res.headers['mcp-session-id'];
  assert.ok(id !== undefined, 'an Mcp-Session-Id header');
  return { id, res };
}

const inSession = (id: string, version?: string, more: Record<string, string> = {}) => ({
  'mcp-session-id': id,
  ...(version === undefined ? {} : { 'mcp-protocol-version': version }),
  ...more,
});

describe('http sessions · lifecycle', () => {
  it('initialize without a session id creates one: visible ASCII, exposed to browsers', async () => {
    const { h, d } = make();
    const { id, res } = await init(h);
    assert.match(id, /^[\x21-\x7e]{16,}$/);
    assert.equal(res.headers['access-control-expose-headers'], 'Mcp-Session-Id');
    assert.equal(res.headers['content-type'], 'application/json');
    assert.equal((bodyJson(res) as { result: { protocolVersion: string } }).result.protocolVersion, '2025-11-25');
    assert.equal(d.sessions.length, 1);
    assert.equal(h.sessionCount, 1);
    const other = await init(h);
    assert.notEqual(other.id, id);
  });

  it('later requests with the id reach that session; notifications get 202', async () => {
    const { h, d } = make();
    const { id } = await init(h);
    const note = await h.handle(httpReq('POST', { jsonrpc: '2.0', method: 'notifications/initialized' }, inSession(id, '2025-11-25')));
    assert.equal(note.status, 202);
    assert.equal(note.body, undefined);
    assert.deepEqual(d.notifications, ['notifications/initialized']);
    const res = await h.handle(httpReq('POST', rpc('echo', { q: 1 }, 2), inSession(id, '2025-11-25')));
    assert.equal(res.status, 200);
    assert.deepEqual(bodyJson(res), { jsonrpc: '2.0', id: 2, result: { echo: { q: 1 }, principal: null, hasSession: true } });
  });

  it('a missing MCP-Protocol-Version is accepted (assume 2025-03-26 semantics)', async () => {
    const { h } = make();
    const { id } = await init(h);
    const res = await h.handle(httpReq('POST', rpc('echo', {}, 2), inSession(id)));
    assert.equal(res.status, 200);
  });

  it('a failed initialize allocates nothing and hands out no id', async () => {
    const { h, d } = make();
    const res = await h.handle(httpReq('POST', initRequest('broken')));
    assert.equal(res.headers['mcp-session-id'], undefined);
    assert.equal((bodyJson(res) as { error: { code: number } }).error.code, -32602);
    assert.equal(h.sessionCount, 0);
    assert.equal(d.closed.length, 1);
  });

  it('an unknown session id → 404 with a JSON-RPC error body', async () => {
    const { h } = make();
    await init(h);
    for (const method of ['POST', 'GET', 'DELETE']) {
      const res = await h.handle(httpReq(method, method === 'POST' ? rpc('echo', {}, 9) : undefined, inSession('nope')));
      assert.equal(res.status, 404, method);
      const body = bodyJson(res) as { error: { code: number; message: string }; id?: unknown };
      assert.match(body.error.message, /Session not found/);
      if (method === 'POST') assert.equal(body.id, 9);
    }
  });

  it('DELETE ends the session (closeSession) with 200; the id then gets 404', async () => {
    const { h, d } = make();
    const { id } = await init(h);
    const del = await h.handle(httpReq('DELETE', undefined, inSession(id, '2025-11-25')));
    assert.equal(del.status, 200);
    assert.equal(d.closed.length, 1);
    assert.equal(d.closed[0], d.sessions[0]);
    assert.equal(h.sessionCount, 0);
    const after = await h.handle(httpReq('POST', rpc('echo'), inSession(id, '2025-11-25')));
    assert.equal(after.status, 404);
    assert.equal((await h.handle(httpReq('DELETE', undefined, inSession(id)))).status, 404);
  });

  it('an idle session expires (closeSession) and its id gets 404', async () => {
    const { h, d } = make({ sessionIdleTimeoutMs: 30 });
    const { id } = await init(h);
    assert.equal((await d.nextClose()).peer, d.sessions[0]?.peer, 'the sweep closed it');
    assert.equal(d.closed.length, 1);
    assert.equal(h.sessionCount, 0);
    const res = await h.handle(httpReq('POST', rpc('echo'), inSession(id)));
    assert.equal(res.status, 404);
  });

  it('a session with an open GET stream is not idle', async () => {
    const { h, d } = make({ sessionIdleTimeoutMs: 30 });
    const { id } = await init(h);
    const get = new SseReader(await h.handle(httpReq('GET', undefined, inSession(id))));
    // Absence over time is the claim: four idle periods pass with the stream open.
    await new Promise((r) => setTimeout(r, 120));
    assert.equal(d.closed.length, 0);
    get.disconnect();
    await d.nextClose();
    assert.equal(d.closed.length, 1, 'idle again once the stream is gone: the sweep closed it');
    await h.close();
  });

  it('maxSessions: beyond the cap → 503 + Retry-After + a JSON-RPC error; nothing allocated', async () => {
    const { h, d } = make({ maxSessions: 2 });
    await init(h);
    await init(h);
    const res = await h.handle(httpReq('POST', initRequest('2025-11-25', 7)));
    assert.equal(res.status, 503);
    assert.equal(res.headers['retry-after'], '5');
    assert.equal(res.headers['mcp-session-id'], undefined);
    const body = bodyJson(res) as { id: number; error: { message: string } };
    assert.equal(body.id, 7);
    assert.match(body.error.message, /maximum number of sessions/);
    assert.equal(d.sessions.length, 2);
  });

  it('principal binding: the same id with another principal → 404, never the session', async () => {
    let principal = 'alice';
    const { h, d } = make({ extra: () => ({ [PRINCIPAL]: { id: principal } }) });
    const { id } = await init(h);
    principal = 'mallory';
    for (const method of ['POST', 'GET', 'DELETE']) {
      const res = await h.handle(httpReq(method, method === 'POST' ? rpc('echo') : undefined, inSession(id)));
      assert.equal(res.status, 404, method);
    }
    assert.equal(d.closed.length, 0);
    principal = 'alice';
    const res = await h.handle(httpReq('POST', rpc('echo'), inSession(id)));
    assert.equal((bodyJson(res) as { result: { principal: string } }).result.principal, 'alice');
  });

  it('MCP-Protocol-Version different from the negotiated one → 400', async () => {
    const { h } = make();
    const { id } = await init(h, '2025-06-18');
    for (const version of ['2025-11-25', 'nonsense']) {
      const res = await h.handle(httpReq('POST', rpc('echo', {}, 3), inSession(id, version)));
      assert.equal(res.status, 400, version);
      assert.equal((bodyJson(res) as { id: number }).id, 3);
    }
    const ok = await h.handle(httpReq('POST', rpc('echo', {}, 3), inSession(id, '2025-06-18')));
    assert.equal(ok.status, 200);
  });

  it('close() ends every session', async () => {
    const { h, d } = make();
    await init(h);
    await init(h);
    await h.close();
    assert.equal(d.closed.length, 2);
    assert.equal(h.sessionCount, 0);
  });
});

describe('http sessions · routing next to 2026-07-28', () => {
  it('2026 requests (with _meta) still take the stateless path, session header or not', async () => {
    const { h } = make();
    const { id } = await init(h);
    for (const headers of [{}, { 'mcp-session-id': id }, { 'mcp-session-id': 'unknown' }]) {
      const res = await h.handle(post(request('echo', { a: 1 }, 5), headers));
      assert.equal(res.status, 200);
      assert.equal((bodyJson(res) as { result: { hasSession: boolean } }).result.hasSession, false);
    }
  });

  it('GET and DELETE without a session id → 405 as before', async () => {
    const { h } = make();
    for (const method of ['GET', 'DELETE']) {
      const res = await h.handle(httpReq(method, undefined));
      assert.equal(res.status, 405);
      assert.equal(res.headers['allow'], 'POST');
    }
  });

  it('a non-initialize request without a session id and without _meta is left to the stateless path', async () => {
    const { h } = make();
    const res = await h.handle(httpReq('POST', rpc('echo'), { 'mcp-protocol-version': '2026-07-28', 'mcp-method': 'echo' }));
    assert.equal((bodyJson(res) as { result: { hasSession: boolean } }).result.hasSession, false);
    const bare = await h.handle(httpReq('POST', rpc('echo')));
    assert.equal(bare.status, 400, 'the 2026 header rules apply');
  });

  it('statefulSessions: false answers initialize like today (no session)', async () => {
    const { h, d } = make({ statefulSessions: false });
    const res = await h.handle(httpReq('POST', initRequest()));
    assert.equal(res.headers['mcp-session-id'], undefined);
    assert.equal(d.sessions.length, 0);
    const get = await h.handle(httpReq('GET', undefined, { 'mcp-session-id': 'x' }));
    assert.equal(get.status, 405);
  });

  it('a dispatcher without createSession keeps the stateless behaviour', async () => {
    const h = createStreamableHttpHandler(fakeDispatcher(), { sseKeepAliveMs: 0 });
    const res = await h.handle(httpReq('POST', initRequest()));
    assert.equal(res.headers['mcp-session-id'], undefined);
    assert.equal(h.sessionCount, 0);
  });
});

describe('http sessions · batches (2025-03-26 only)', () => {
  it('a 2025-03-26 session accepts a batch of requests and notifications → JSON array', async () => {
    const { h, d } = make();
    const { id } = await init(h, '2025-03-26');
    const res = await h.handle(
      httpReq('POST', [rpc('echo', { n: 1 }, 'a'), { jsonrpc: '2.0', method: 'notifications/initialized' }, rpc('echo', { n: 2 }, 'b')], inSession(id)),
    );
    assert.equal(res.status, 200);
    const body = bodyJson(res) as { id: string; result: { echo: { n: number } } }[];
    assert.deepEqual(body.map((r) => r.id).sort(), ['a', 'b']);
    assert.deepEqual(d.notifications, ['notifications/initialized']);
  });

  it('a batch of notifications only → 202; initialize inside a batch is refused', async () => {
    const { h } = make();
    const { id } = await init(h, '2025-03-26');
    const notes = await h.handle(httpReq('POST', [{ jsonrpc: '2.0', method: 'notifications/initialized' }], inSession(id)));
    assert.equal(notes.status, 202);
    const withInit = await h.handle(httpReq('POST', [initRequest('2025-03-26', 'i'), rpc('echo', {}, 'e')], inSession(id)));
    const body = bodyJson(withInit) as { id: string; error?: { code: number } }[];
    assert.equal(body.find((r) => r.id === 'i')?.error?.code, -32600);
    assert.ok(body.find((r) => r.id === 'e' && !('error' in r)));
  });

  it('a batch whose requests stream goes out as SSE with every response', async () => {
    const { h } = make();
    const { id } = await init(h, '2025-03-26');
    const res = await h.handle(httpReq('POST', [rpc('progress', { count: 1 }, 'p'), rpc('echo', {}, 'e')], inSession(id)));
    const sse = new SseReader(res);
    await sse.waitEnd();
    const ids = sse.messages().map((m) => m['id'] ?? m['method']);
    assert.deepEqual([...ids].sort(), ['e', 'notifications/progress', 'p'].sort());
  });

  for (const version of ['2025-06-18', '2025-11-25']) {
    it(`a batch in a ${version} session → 400`, async () => {
      const { h } = make();
      const { id } = await init(h, version);
      const res = await h.handle(httpReq('POST', [rpc('echo', {}, 'a')], inSession(id, version)));
      assert.equal(res.status, 400);
      assert.match((bodyJson(res) as { error: { message: string } }).error.message, /batch/);
    });
  }
});

describe('http sessions · POST streams', () => {
  it('related notifications turn the answer into SSE: priming (id, retry, empty data) first on 2025-11-25', async () => {
    const { h } = make({ retryMs: 1500 });
    const { id } = await init(h);
    const res = await h.handle(httpReq('POST', rpc('progress', { count: 2 }, 4), inSession(id, '2025-11-25')));
    assert.equal(res.headers['content-type'], 'text/event-stream');
    const sse = new SseReader(res);
    await sse.waitEnd();
    assert.equal(sse.events[0]?.data, '');
    assert.equal(sse.retry, 1500);
    const ids = sse.ids();
    assert.equal(new Set(ids).size, ids.length, 'ids are unique');
    const stream = ids[0]?.split('_')[0];
    assert.ok(ids.every((x) => x.startsWith(`${stream}_`)), 'ids name the stream');
    assert.deepEqual(sse.messages().map((m) => m['method'] ?? m['id']), ['notifications/progress', 'notifications/progress', 4]);
  });

  it('no priming event before 2025-11-25, and no closeStream there', async () => {
    const { h } = make();
    const { id } = await init(h, '2025-06-18');
    const sse = new SseReader(await h.handle(httpReq('POST', rpc('poll', {}, 4), inSession(id, '2025-06-18'))));
    await sse.waitEnd();
    assert.ok(sse.events.every((e) => e.data !== ''));
    assert.deepEqual(sse.messages().at(-1), { jsonrpc: '2.0', id: 4, result: { closeStream: false } });
  });

  it('elicitation/create travels on the POST stream and the POSTed answer completes the call', async () => {
    const { h } = make();
    const { id } = await init(h);
    const sse = new SseReader(await h.handle(httpReq('POST', rpc('ask', {}, 'call-1'), inSession(id, '2025-11-25'))));
    await sse.waitFor(2);
    const ask = sse.messages()[0] as { id: number; method: string };
    assert.equal(ask.method, 'elicitation/create');
    const answer = await h.handle(
      httpReq('POST', { jsonrpc: '2.0', id: ask.id, result: { action: 'accept', content: { name: 'Bob' } } }, inSession(id, '2025-11-25')),
    );
    assert.equal(answer.status, 202);
    await sse.waitEnd();
    assert.deepEqual(sse.messages().at(-1), { jsonrpc: '2.0', id: 'call-1', result: { answer: { action: 'accept', content: { name: 'Bob' } } } });
  });

  it('a response with an unknown id is ignored with 202', async () => {
    const { h } = make();
    const { id } = await init(h);
    const res = await h.handle(httpReq('POST', { jsonrpc: '2.0', id: 999, result: {} }, inSession(id)));
    assert.equal(res.status, 202);
  });

  it('notifications/cancelled aborts the request in flight; a dropped connection does not', async () => {
    const { h, d } = make();
    const { id } = await init(h);
    const pending = h.handle(httpReq('POST', rpc('gate', {}, 'g1'), inSession(id)));
    await d.gated();
    const cancel = await h.handle(
      httpReq('POST', { jsonrpc: '2.0', method: 'notifications/cancelled', params: { requestId: 'g1', reason: 'user' } }, inSession(id)),
    );
    assert.equal(cancel.status, 202);
    assert.deepEqual(bodyJson(await pending), { jsonrpc: '2.0', id: 'g1', result: { opened: false } });
    assert.deepEqual(d.aborted, ['g1']);
  });
});

describe('http sessions · GET stream', () => {
  it('unsolicited messages go on the GET stream; sent while none is open they are buffered and flushed', async () => {
    const { h } = make();
    const { id } = await init(h);
    await h.handle(httpReq('POST', rpc('shout', {}, 2), inSession(id)));
    const get = new SseReader(await h.handle(httpReq('GET', undefined, inSession(id, '2025-11-25'))));
    await get.waitFor(2);
    await h.handle(httpReq('POST', rpc('shout', {}, 3), inSession(id)));
    await get.waitFor(3);
    assert.equal(get.events[0]?.data, '', 'priming first');
    assert.deepEqual(
      get.messages().map((m) => m['method']),
      ['notifications/tools/list_changed', 'notifications/tools/list_changed'],
    );
    assert.ok(get.ids().every((x) => x.startsWith('0_')));
  });

  it('a second concurrent GET → 409; after the first closes, a new one is fine', async () => {
    const { h } = make();
    const { id } = await init(h);
    const first = new SseReader(await h.handle(httpReq('GET', undefined, inSession(id))));
    const second = await h.handle(httpReq('GET', undefined, inSession(id)));
    assert.equal(second.status, 409);
    first.disconnect();
    const third = await h.handle(httpReq('GET', undefined, inSession(id)));
    assert.equal(third.status, 200);
    assert.ok(isSseStream(third.body));
  });

  it('GET without Accept: text/event-stream → 406', async () => {
    const { h } = make();
    const { id } = await init(h);
    const res = await h.handle(httpReq('GET', undefined, { ...inSession(id), accept: 'application/json' }));
    assert.equal(res.status, 406);
  });

  it('the buffer of an unopened GET stream is bounded (oldest dropped)', async () => {
    const { h } = make({ maxBufferedEventsPerSession: 3 });
    const { id } = await init(h);
    for (let i = 0; i < 5; i++) await h.handle(httpReq('POST', rpc('shout', {}, i + 10), inSession(id)));
    const get = new SseReader(await h.handle(httpReq('GET', undefined, inSession(id))));
    // A sentinel sent after the stream opened: what arrives before it is all that was buffered.
    await h.handle(httpReq('POST', rpc('shout', { tag: 'sentinel' }, 20), inSession(id)));
    const events = await get.waitFor(5);
    const messages = events.filter((e) => e.data !== '').map((e) => JSON.parse(e.data) as { params?: { _meta?: { tag?: string } } });
    assert.equal(messages.length, 4, 'three buffered, then the sentinel');
    assert.equal(messages[3]?.params?._meta?.tag, 'sentinel');
  });
});

describe('http sessions · resumability', () => {
  it('a dropped POST stream resumes with GET + Last-Event-ID: exactly the missed events, then the rest', async () => {
    const { h } = make();
    const { id } = await init(h);
    const first = new SseReader(await h.handle(httpReq('POST', rpc('progress', { count: 6, gapMs: 15 }, 'r'), inSession(id, '2025-11-25'))));
    await first.waitFor(3); // priming + 2 notifications
    first.disconnect();
    const seen = first.ids().slice(0, 3);
    const last = seen[2] as string;
    await new Promise((r) => setTimeout(r, 40)); // more events happen while disconnected
    const resumed = new SseReader(await h.handle(httpReq('GET', undefined, inSession(id, '2025-11-25', { 'last-event-id': last }))));
    await resumed.waitEnd();
    const all = [...seen, ...resumed.ids()];
    const stream = last.split('_')[0] as string;
    // priming is seq 1, then 6 notifications and the response: seq 2..8, no gap, no duplicate.
    assert.deepEqual(all, [1, 2, 3, 4, 5, 6, 7, 8].map((n) => `${stream}_${n}`));
    assert.deepEqual(resumed.messages().at(-1), { jsonrpc: '2.0', id: 'r', result: { done: 6 } });
  });

  it('a replay never includes another stream, and a finished stream replays then ends', async () => {
    const { h } = make();
    const { id } = await init(h);
    const a = new SseReader(await h.handle(httpReq('POST', rpc('progress', { count: 2 }, 'a'), inSession(id))));
    const b = new SseReader(await h.handle(httpReq('POST', rpc('progress', { count: 3 }, 'b'), inSession(id))));
    await a.waitEnd();
    await b.waitEnd();
    const firstOfA = a.ids()[0] as string;
    const replay = new SseReader(await h.handle(httpReq('GET', undefined, inSession(id, undefined, { 'last-event-id': firstOfA }))));
    await replay.waitEnd();
    assert.deepEqual(replay.ids(), a.ids().slice(1));
    assert.deepEqual(replay.messages(), a.messages());
  });

  it('closeStream ends the POST response; GET + Last-Event-ID gets the later events and the final response', async () => {
    const { h } = make({ retryMs: 250 });
    const { id } = await init(h);
    const post = new SseReader(await h.handle(httpReq('POST', rpc('poll', { ms: 30 }, 'p'), inSession(id, '2025-11-25'))));
    await post.waitEnd();
    assert.equal(post.retry, 250);
    assert.equal(post.messages().length, 1, 'only the first notification before the close');
    const last = post.ids().at(-1) as string;
    const get = new SseReader(await h.handle(httpReq('GET', undefined, inSession(id, '2025-11-25', { 'last-event-id': last }))));
    await get.waitEnd();
    assert.deepEqual(
      get.messages().map((m) => m['method'] ?? m['id']),
      ['notifications/progress', 'p'],
    );
    assert.deepEqual(get.messages().at(-1), { jsonrpc: '2.0', id: 'p', result: { polled: true } });
  });

  it('the GET stream resumes too, without replaying POST streams', async () => {
    const { h } = make();
    const { id } = await init(h);
    const get = new SseReader(await h.handle(httpReq('GET', undefined, inSession(id))));
    await get.waitFor(1);
    await h.handle(httpReq('POST', rpc('shout', {}, 2), inSession(id)));
    await get.waitFor(2);
    const last = get.ids().at(-1) as string;
    await h.handle(httpReq('POST', rpc('shout', {}, 3), inSession(id)));
    await get.waitFor(3);
    get.disconnect();
    await h.handle(httpReq('POST', rpc('shout', {}, 4), inSession(id)));
    const resumed = new SseReader(await h.handle(httpReq('GET', undefined, inSession(id, undefined, { 'last-event-id': last }))));
    // A sentinel sent after the resume: what arrives before it is all that was replayed.
    await h.handle(httpReq('POST', rpc('shout', { tag: 'sentinel' }, 5), inSession(id)));
    await resumed.waitFor(3);
    const replayed = resumed.messages() as { params?: { _meta?: { tag?: string } } }[];
    assert.equal(replayed.length, 3, 'the one written to the dropped connection after the id, the buffered one, then the sentinel');
    assert.equal(replayed[2]?.params?._meta?.tag, 'sentinel');
    assert.ok(resumed.ids().every((x) => x.startsWith('0_')));
  });

  it('an unknown or malformed Last-Event-ID → 400', async () => {
    const { h } = make();
    const { id } = await init(h);
    for (const last of ['garbage', 'zz_1', '7_1']) {
      const res = await h.handle(httpReq('GET', undefined, inSession(id, undefined, { 'last-event-id': last })));
      assert.equal(res.status, 400, last);
    }
  });
});
