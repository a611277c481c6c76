import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { InMemoryEventStore, formatEventId, parseEventId, type EventStore, type StoredEvent } from '../../../../src/transport/http/eventStore.js';
import { createStreamableHttpHandler } from '../../../../src/transport/http/server.js';
import { fakeStatefulDispatcher, httpReq, initRequest, rpc, SseReader } from './sessionSupport.js';

const msg = (n: number) => ({ jsonrpc: '2.0' as const, method: 'n', params: { n } });

describe('http sessions · event store', () => {
  it('event ids round-trip and malformed ones are refused', () => {
    assert.equal(formatEventId('1a', 7), '1a_7');
    assert.deepEqual(parseEventId('1a_7'), { streamId: '1a', seq: 7 });
    for (const bad of ['', '_1', '1_', 'a-b_1', '1_x', '1_1_1', `1_${'9'.repeat(80)}`]) assert.equal(parseEventId(bad), undefined, bad);
  });

  it('replayAfter returns the later events of that stream only, in order', () => {
    const store = new InMemoryEventStore();
    for (let i = 1; i <= 5; i++) store.append('s', 'a', { seq: i, message: msg(i) });
    store.append('s', 'b', { seq: 1, message: msg(100) });
    store.append('t', 'a', { seq: 9, message: msg(200) });
    assert.deepEqual(store.replayAfter('s', 'a', 2).map((e) => e.seq), [3, 4, 5]);
    assert.deepEqual(store.replayAfter('s', 'a', 5), []);
    assert.deepEqual(store.replayAfter('s', 'b', 0).map((e) => e.seq), [1]);
    assert.deepEqual(store.replayAfter('s', 'zz', 0), []);
    store.dropSession('s');
    assert.deepEqual(store.replayAfter('s', 'a', 0), []);
    assert.equal(store.replayAfter('t', 'a', 0).length, 1);
  });

  it('is bounded per session across streams, oldest first', () => {
    const store = new InMemoryEventStore({ maxEventsPerSession: 3 });
    store.append('s', 'a', { seq: 1, message: msg(1) });
    store.append('s', 'b', { seq: 1, message: msg(2) });
    store.append('s', 'a', { seq: 2, message: msg(3) });
    store.append('s', 'a', { seq: 3, message: msg(4) });
    assert.equal(store.size('s'), 3);
    assert.deepEqual(store.replayAfter('s', 'a', 0).map((e) => e.seq), [2, 3]);
    assert.deepEqual(store.replayAfter('s', 'b', 0).map((e) => e.seq), [1]);
    for (let i = 4; i < 5000; i++) store.append('s', 'a', { seq: i, message: msg(i) });
    assert.equal(store.size('s'), 3);
    assert.deepEqual(store.replayAfter('s', 'a', 0).map((e) => e.seq), [4997, 4998, 4999]);
  });

  it('an async store works: appends are awaited before a replay, and dropSession runs on DELETE', async () => {
    const inner = new InMemoryEventStore();
    const dropped: string[] = [];
    const slow: EventStore = {
      append: async (s, stream, e: StoredEvent) => {
        await new Promise((r) => setTimeout(r, 5));
        inner.append(s, stream, e);
      },
      replayAfter: async (s, stream, after) => inner.replayAfter(s, stream, after),
      dropSession: async (s) => {
        dropped.push(s);
        inner.dropSession(s);
      },
    };
    const h = createStreamableHttpHandler(fakeStatefulDispatcher(), { sseKeepAliveMs: 0, eventStore: slow });
    const init = await h.handle(httpReq('POST', initRequest()));
    const id = init.headers['mcp-session-id'] as string;
    const post = new SseReader(await h.handle(httpReq('POST', rpc('progress', { count: 3, gapMs: 0 }, 'x'), { 'mcp-session-id': id })));
    await post.waitFor(1);
    post.disconnect();
    const resumed = new SseReader(await h.handle(httpReq('GET', undefined, { 'mcp-session-id': id, 'last-event-id': post.ids()[0] as string })));
    await resumed.waitEnd();
    const stream = (post.ids()[0] as string).split('_')[0] as string;
    assert.deepEqual(resumed.ids(), [2, 3, 4, 5].map((n) => `${stream}_${n}`));
    await h.handle(httpReq('DELETE', undefined, { 'mcp-session-id': id }));
    assert.deepEqual(dropped, [id]);
  });
});
