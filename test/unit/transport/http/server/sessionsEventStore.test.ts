import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { InMemoryEventStore, formatEventId, parseEventId, type EventStore, type StoredEvent } from '../../../../../src/transport/http/server/eventStore.js';
import { createStreamableHttpHandler } from '../../../../../src/transport/http/server/server.js';
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

  it('memory pinning by a few huge events: the store is bounded by encoded size too, oldest first, the newest always kept', () => {
    const store = new InMemoryEventStore({ maxEventsPerSession: 1000, maxSizePerSession: 10_000 });
    for (let i = 1; i <= 4; i++) store.append('s', 'a', { seq: i, message: msg(i), size: 3000 });
    assert.deepEqual(store.replayAfter('s', 'a', 0).map((e) => e.seq), [2, 3, 4]);
    assert.equal(store.sizeOf('s'), 9000);
    store.append('s', 'b', { seq: 1, message: msg(5), size: 50_000 });
    assert.deepEqual(store.replayAfter('s', 'a', 0), [], 'older events make room');
    assert.deepEqual(store.replayAfter('s', 'b', 0).map((e) => e.seq), [1], 'one event larger than the budget is still kept');
    store.append('s', 'b', { seq: 2, message: msg(6), size: 10 });
    assert.deepEqual(store.replayAfter('s', 'b', 0).map((e) => e.seq), [2]);
    assert.equal(store.sizeOf('s'), 10);
  });

  it('the server records each event with its encoded size, so the default store bounds real traffic', async () => {
    const store = new InMemoryEventStore();
    const appended: StoredEvent[] = [];
    const spy: EventStore = {
      append: (s, stream, e) => {
        appended.push(e);
        store.append(s, stream, e);
      },
      replayAfter: (s, stream, after) => store.replayAfter(s, stream, after),
      dropSession: (s) => store.dropSession(s),
    };
    const h = createStreamableHttpHandler(fakeStatefulDispatcher(), { sseKeepAliveMs: 0, eventStore: spy });
    const init = await h.handle(httpReq('POST', initRequest()));
    const id = init.headers['mcp-session-id'] as string;
    const post = new SseReader(await h.handle(httpReq('POST', rpc('progress', { count: 3 }, 2), { 'mcp-session-id': id })));
    await post.waitEnd();
    assert.ok(appended.length >= 4, `events stored: ${appended.length}`);
    for (const e of appended) assert.ok(typeof e.size === 'number' && e.size > JSON.stringify(e.message).length, `size ${e.size}`);
    await h.close();
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

  it('lost events on resume: the final response arriving while an async store replays does not end the stream before the replay', async () => {
    const inner = new InMemoryEventStore();
    const store: EventStore = {
      append: (sid, stream, e) => inner.append(sid, stream, e),
      replayAfter: async (sid, stream, after) => {
        const events = inner.replayAfter(sid, stream, after);
        await new Promise((r) => setTimeout(r, 30)); // the POST finishes meanwhile
        return events;
      },
      dropSession: (sid) => inner.dropSession(sid),
    };
    const h = createStreamableHttpHandler(fakeStatefulDispatcher(), { sseKeepAliveMs: 0, eventStore: store });
    const id = (await h.handle(httpReq('POST', initRequest()))).headers['mcp-session-id'] as string;
    const post = new SseReader(await h.handle(httpReq('POST', rpc('progress', { count: 3, gapMs: 5 }, 'x'), { 'mcp-session-id': id })));
    await post.waitFor(2); // priming + the first progress
    post.disconnect();
    const resumed = new SseReader(await h.handle(httpReq('GET', undefined, { 'mcp-session-id': id, 'last-event-id': post.ids()[0] as string })));
    await resumed.waitEnd();
    const stream = (post.ids()[0] as string).split('_')[0] as string;
    assert.deepEqual(resumed.ids(), [2, 3, 4, 5].map((n) => `${stream}_${n}`));
    await h.close();
  });

  it('lost events on resume: a stream that just finished is still replayed in full while its appends are pending', async () => {
    const inner = new InMemoryEventStore();
    const gate: (() => void)[] = [];
    const store: EventStore = {
      append: (sid, stream, e) =>
        new Promise<void>((resolve) =>
          gate.push(() => {
            inner.append(sid, stream, e);
            resolve();
          }),
        ),
      replayAfter: (sid, stream, after) => inner.replayAfter(sid, stream, after),
      dropSession: (sid) => inner.dropSession(sid),
    };
    const h = createStreamableHttpHandler(fakeStatefulDispatcher(), { sseKeepAliveMs: 0, eventStore: store });
    const id = (await h.handle(httpReq('POST', initRequest()))).headers['mcp-session-id'] as string;
    const post = new SseReader(await h.handle(httpReq('POST', rpc('progress', { count: 3, gapMs: 0 }, 'x'), { 'mcp-session-id': id })));
    await post.waitEnd(); // the POST stream has finished; none of its events is in the store yet
    assert.equal(inner.size(id), 0);
    const resumed = new SseReader(await h.handle(httpReq('GET', undefined, { 'mcp-session-id': id, 'last-event-id': post.ids()[0] as string })));
    for (const open of gate.splice(0)) open();
    await resumed.waitEnd();
    const stream = (post.ids()[0] as string).split('_')[0] as string;
    assert.deepEqual(resumed.ids(), [2, 3, 4, 5].map((n) => `${stream}_${n}`));
    await h.close();
  });

});
