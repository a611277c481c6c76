// maxSessionsPerPrincipal: one caller's sessions never take another caller's slots.
// https://modelcontextprotocol.io/specification/2025-11-25/basic/transports#session-management
import assert from 'node:assert/strict';
import { describe, it, mock } from 'node:test';
import { createStreamableHttpHandler, type StreamableHttpServerOptions } from '../../../../../src/transport/http/server/server.js';
import type { HttpRequestLike } from '../../../../../src/transport/http/server/types.js';
import { PRINCIPAL } from '../../../../../src/transport/principal.js';
import { bodyJson, fakeStatefulDispatcher, httpReq, initRequest, rpc, SseReader } from './sessionSupport.js';

const TIMEOUT = { timeout: 10_000 };

/** A handler whose principal is the request's `x-who` header (none without it), capped at `perPrincipal`. */
function make(perPrincipal: number, options: StreamableHttpServerOptions = {}) {
  const d = fakeStatefulDispatcher();
  const h = createStreamableHttpHandler(d, {
    sseKeepAliveMs: 0,
    maxSessionsPerPrincipal: perPrincipal,
    extra: (req) => {
      const who = req.header('x-who');
      return who === undefined ? {} : { [PRINCIPAL]: { id: who } };
    },
    ...options,
  });
  return { d, h };
}

const as = (who: string | undefined, req: HttpRequestLike, remoteAddress?: string): HttpRequestLike => ({
  ...req,
  header: (n: string) => (n === 'x-who' ? who : req.header(n)),
  ...(remoteAddress !== undefined ? { remoteAddress } : {}),
});

async function open(h: ReturnType<typeof make>['h'], who: string | undefined, remote?: string): Promise<{ status: number; id: string | undefined; retryAfter: string | undefined; body: unknown }> {
  const res = await h.handle(as(who, httpReq('POST', initRequest()), remote));
  return { status: res.status, id: res.headers['mcp-session-id'], retryAfter: res.headers['retry-after'], body: res.status === 200 ? undefined : bodyJson(res) };
}

async function echo(h: ReturnType<typeof make>['h'], who: string | undefined, id: string, remote?: string): Promise<number> {
  return (await h.handle(as(who, httpReq('POST', rpc('echo'), { 'mcp-session-id': id }), remote))).status;
}

describe('http sessions · maxSessionsPerPrincipal', () => {
  it('session exhaustion: a principal at its share has its least recently used idle session ended, never another principal’s', TIMEOUT, async (t) => {
    // A mocked clock: "least recently used" is told apart by the millisecond.
    mock.timers.enable({ apis: ['Date'], now: 1_000_000 });
    t.after(() => mock.timers.reset());
    const { h, d } = make(2, { maxSessions: 3 });
    const bob = await open(h, 'bob');
    const a1 = await open(h, 'alice');
    mock.timers.tick(10);
    const a2 = await open(h, 'alice');
    mock.timers.tick(10);
    // a1 used last: a2 is the least recently used.
    assert.equal(await echo(h, 'alice', a1.id as string), 200);
    mock.timers.tick(10);
    const a3 = await open(h, 'alice');
    assert.equal(a3.status, 200);
    assert.equal(await echo(h, 'alice', a2.id as string), 404, 'her least recently used idle session was ended');
    assert.equal(await echo(h, 'alice', a1.id as string), 200);
    assert.equal(await echo(h, 'bob', bob.id as string), 200, 'bob’s session is untouched');
    assert.equal(d.closed.length, 1);
    assert.equal(h.sessionCount, 3);
    await h.close();
  });

  it('session exhaustion: a principal whose sessions are all busy gets 429 + Retry-After; nothing is ended or allocated', TIMEOUT, async () => {
    const { h, d } = make(2);
    const streams: SseReader[] = [];
    for (let i = 0; i < 2; i++) {
      const { id } = await open(h, 'alice');
      streams.push(new SseReader(await h.handle(as('alice', httpReq('GET', undefined, { 'mcp-session-id': id as string })))));
    }
    const refused = await open(h, 'alice');
    assert.equal(refused.status, 429);
    assert.equal(refused.retryAfter, '5');
    assert.equal(refused.id, undefined);
    assert.match((refused.body as { error: { message: string } }).error.message, /Too many sessions/);
    assert.equal(d.sessions.length, 2);
    assert.equal(d.closed.length, 0);
    assert.equal((await open(h, 'bob')).status, 200, 'another principal still connects');
    for (const s of streams) s.disconnect();
    await h.close();
  });

  it('session exhaustion: anonymous callers are counted per remote address (one address cannot take another’s slots)', TIMEOUT, async () => {
    const { h } = make(1);
    const first = await open(h, undefined, '10.0.0.1');
    const stream = new SseReader(await h.handle(as(undefined, httpReq('GET', undefined, { 'mcp-session-id': first.id as string }), '10.0.0.1')));
    assert.equal((await open(h, undefined, '10.0.0.1')).status, 429);
    assert.equal((await open(h, undefined, '10.0.0.2')).status, 200);
    stream.disconnect();
    await h.close();
  });

  it('a principal named like an address does not share its count with that address', TIMEOUT, async () => {
    const { h } = make(1);
    const anon = await open(h, undefined, '10.0.0.1');
    const stream = new SseReader(await h.handle(as(undefined, httpReq('GET', undefined, { 'mcp-session-id': anon.id as string }), '10.0.0.1')));
    assert.equal((await open(h, '10.0.0.1', '10.0.0.9')).status, 200);
    assert.equal((await open(h, 'address:10.0.0.1')).status, 200);
    stream.disconnect();
    await h.close();
  });
});
