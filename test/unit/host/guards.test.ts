import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { parseConfig } from '../../../src/host/config.js';
import { ConfigError } from '../../../src/host/configTypes.js';
import { GUARD_IDS, MemoryRateLimitStore, guardInterceptor, jsonBytesAtMost, type GuardOptions } from '../../../src/host/guards.js';
import { Host } from '../../../src/host/host.js';
import { DeniedError } from '../../../src/host/interceptors.js';
import { McpServer } from '../../../src/server/mcpServer.js';
import { isMcpError } from '../../../src/util/errors.js';
import { memoryServers, memorySpec } from './support/memoryServers.js';

interface World {
  host: Host;
  calls: string[];
  /** Resolves the pending `slow` calls. */
  release(): void;
  /** The `slow` calls the server saw cancelled. */
  cancelled: string[];
  clock: { now: number };
  setFailing(on: boolean): void;
}

async function world(guards: Omit<GuardOptions, 'now'>, options: { timeoutMs?: number } = {}): Promise<World> {
  const calls: string[] = [];
  const cancelled: string[] = [];
  let release = (): void => undefined;
  let gate = new Promise<void>((r) => (release = r));
  let failing = false;
  const clock = { now: 1_000_000 };
  const servers = memoryServers(() => {
    const s = new McpServer({ name: 's', version: '1' });
    s.tool('ping', {}, () => {
      calls.push('ping');
      if (failing) throw new Error('down');
      return 'pong';
    });
    s.tool('other', {}, () => (calls.push('other'), 'ok'));
    s.tool('big', {}, () => (calls.push('big'), 'x'.repeat(5000)));
    s.tool('slow', {}, async (_args, ctx) => {
      calls.push('slow');
      await new Promise<void>((resolve) => {
        ctx.signal.addEventListener('abort', () => (cancelled.push('slow'), resolve()));
        void gate.then(resolve);
      });
      return 'done';
    });
    return s;
  });
  const host = await Host.open({
    servers: [memorySpec('s', options.timeoutMs !== undefined ? { timeoutMs: options.timeoutMs } : {})],
    namespacing: 'never',
    transport: servers.factory,
    interceptors: [guardInterceptor({ ...guards, now: () => clock.now })],
  });
  await host.start();
  return {
    host,
    calls,
    cancelled,
    clock,
    release: () => {
      release();
      gate = new Promise<void>((r) => (release = r));
    },
    setFailing: (on) => (failing = on),
  };
}

const deniedBy = (id: string, pattern: RegExp) => (e: unknown) => e instanceof DeniedError && e.interceptor === id && pattern.test(e.message);

describe('host/guards: rate limits', () => {
  it('call flood: the call past the limit is refused with when to retry, and never reaches the server', async () => {
    const w = await world({ rateLimits: [{ by: ['principal', 'tool'], max: 3, perMs: 60_000 }] });
    const alice = { principal: { id: 'alice' } };
    for (let i = 0; i < 3; i++) await w.host.callTool('ping', {}, alice);
    await assert.rejects(w.host.callTool('ping', {}, alice), deniedBy(GUARD_IDS.rate, /rate limit of 3 per 60000 ms per principal and tool \(principal=alice, tool=ping\) reached; retry in 20 s/));
    assert.equal(w.calls.length, 3);
    await w.host.close();
  });

  it('buckets are separate per principal and per tool, and refill with time', async () => {
    const w = await world({ rateLimits: [{ by: ['principal', 'tool'], max: 1, perMs: 1000 }] });
    await w.host.callTool('ping', {}, { principal: { id: 'alice' } });
    await w.host.callTool('ping', {}, { principal: { id: 'bob' } });
    await w.host.callTool('other', {}, { principal: { id: 'alice' } });
    await assert.rejects(w.host.callTool('ping', {}, { principal: { id: 'alice' } }), DeniedError);
    w.clock.now += 1000;
    await w.host.callTool('ping', {}, { principal: { id: 'alice' } });
    assert.deepEqual(w.calls, ['ping', 'ping', 'other', 'ping']);
    await w.host.close();
  });

  it('a shared anonymous bucket: callers without a principal cannot dodge a per-principal limit', async () => {
    const w = await world({ rateLimits: [{ by: ['principal'], max: 1, perMs: 60_000 }] });
    await w.host.callTool('ping', {});
    await assert.rejects(w.host.callTool('other', {}), DeniedError);
    await w.host.close();
  });

  it('the memory store keeps a bounded number of buckets', () => {
    const store = new MemoryRateLimitStore(2);
    const rule = { by: [], max: 1, perMs: 1000 } as const;
    assert.equal(store.take('a', rule, 0).allowed, true);
    assert.equal(store.take('b', rule, 0).allowed, true);
    assert.equal(store.take('c', rule, 0).allowed, true); // 'a' dropped
    assert.equal(store.take('c', rule, 0).allowed, false);
  });

  it('the memory store drops the least recently used bucket, a bucket taken twice in a row included', () => {
    const store = new MemoryRateLimitStore(2);
    const rule = { by: [], max: 2, perMs: 1000 } as const;
    assert.equal(store.take('a', rule, 0).allowed, true);
    assert.equal(store.take('b', rule, 0).allowed, true);
    assert.equal(store.take('a', rule, 0).allowed, true);
    assert.equal(store.take('a', rule, 0).allowed, false); // a is empty, and the newest bucket
    assert.equal(store.take('c', rule, 0).allowed, true); // b dropped, not a
    assert.equal(store.take('a', rule, 0).allowed, false);
    assert.equal(store.take('b', rule, 0).allowed, true); // a fresh bucket (c dropped)
  });

  it('a caller alternating with another on one tool cannot spend from the other caller\'s bucket (the remembered key follows the caller)', async () => {
    const w = await world({ rateLimits: [{ by: ['principal', 'tool'], max: 1, perMs: 60_000 }] });
    await w.host.callTool('ping', {}, { principal: { id: 'alice' } });
    await w.host.callTool('ping', {}, { principal: { id: 'bob' } });
    await assert.rejects(w.host.callTool('ping', {}, { principal: { id: 'alice' } }), deniedBy(GUARD_IDS.rate, /principal=alice, tool=ping/));
    await assert.rejects(w.host.callTool('ping', {}, { principal: { id: 'bob' } }), deniedBy(GUARD_IDS.rate, /principal=bob, tool=ping/));
    await w.host.callTool('other', {}, { principal: { id: 'bob' } });
    assert.deepEqual(w.calls, ['ping', 'ping', 'other']);
    await w.host.close();
  });
});

describe('host/guards: caps, breaker, sizes, timeouts', () => {
  it('concurrency cap per caller: a request past the cap is refused while the others run', async () => {
    const w = await world({ maxConcurrentPerPrincipal: 2 });
    const carol = { principal: { id: 'carol' } };
    const running = [w.host.callTool('slow', {}, carol), w.host.callTool('slow', {}, carol)];
    await assert.rejects(w.host.callTool('ping', {}, carol), deniedBy(GUARD_IDS.concurrency, /at most 2 requests in flight per caller; carol has 2/));
    await w.host.callTool('ping', {}, { principal: { id: 'dave' } });
    w.release();
    await Promise.all(running);
    await w.host.callTool('ping', {}, carol);
    await w.host.close();
  });

  it('circuit breaker: a failing server is cut off after N failures, then one trial closes it again', async () => {
    const w = await world({ circuitBreaker: { failures: 2, openMs: 5000 } });
    w.setFailing(true);
    await assert.rejects(w.host.callTool('ping', {}));
    await assert.rejects(w.host.callTool('ping', {}));
    const before = w.calls.length;
    await assert.rejects(w.host.callTool('ping', {}), deniedBy(GUARD_IDS.circuit, /server s failed 2 times in a row/));
    assert.equal(w.calls.length, before, 'refused while open: the server was not called');
    w.clock.now += 5000;
    w.setFailing(false);
    assert.ok(await w.host.callTool('ping', {}));
    await w.host.callTool('other', {});
    await w.host.close();
  });

  it('context flood: a result over maxResultBytes becomes an error instead of reaching the model', async () => {
    const w = await world({ maxResultBytes: 1000 });
    await assert.rejects(w.host.callTool('big', {}), deniedBy(GUARD_IDS.size, /over the 1000-byte limit/));
    await w.host.callTool('ping', {});
    await w.host.close();
  });

  it('hung tool: the per-server timeout fails the call with a clear error and cancels it downstream', async () => {
    const w = await world({}, { timeoutMs: 200 });
    await assert.rejects(w.host.callTool('slow', {}), (e: unknown) => isMcpError(e) && /did not answer within 200 ms/.test(e.message));
    await new Promise<void>((resolve) => {
      const check = (): void => (w.cancelled.length > 0 ? resolve() : void setImmediate(check));
      check();
    });
    assert.deepEqual(w.cancelled, ['slow']);
    await w.host.close();
  });
});

describe('host/guards: config', () => {
  const parse = (guards: unknown) => parseConfig(JSON.stringify({ switchboard: { guards } }), { file: '/c/switchboard.json', env: {} });

  it('reads every key, with breaker defaults', () => {
    const config = parse({ rateLimits: [{ by: ['principal', 'server'], max: 10, perMs: 1000, methods: ['tools/call', 'resources/read'] }], maxConcurrentPerPrincipal: 4, circuitBreaker: {}, maxResultBytes: 1024 });
    assert.deepEqual(config.guards, {
      rateLimits: [{ by: ['principal', 'server'], max: 10, perMs: 1000, methods: ['tools/call', 'resources/read'] }],
      maxConcurrentPerPrincipal: 4,
      circuitBreaker: { failures: 5, openMs: 30000 },
      maxResultBytes: 1024,
    });
    assert.equal(parseConfig('{}', { file: 'f', env: {} }).guards, undefined);
  });

  it('refuses bad guards naming the JSON path', () => {
    const refuses = (guards: unknown, path: string) => assert.throws(() => parse(guards), (e: unknown) => e instanceof ConfigError && e.path === path);
    refuses({ rateLimits: [{ by: ['ip'], max: 1, perMs: 1 }] }, '$.switchboard.guards.rateLimits[0].by[0]');
    refuses({ rateLimits: [{ max: 0, perMs: 1 }] }, '$.switchboard.guards.rateLimits[0].max');
    refuses({ rateLimits: [{ max: 1 }] }, '$.switchboard.guards.rateLimits[0]');
    refuses({ rateLimits: {} }, '$.switchboard.guards.rateLimits');
    refuses({ circuitBreaker: { failures: 0 } }, '$.switchboard.guards.circuitBreaker.failures');
    refuses({ maxResultBytes: 'big' }, '$.switchboard.guards.maxResultBytes');
    refuses({ unknown: 1 }, '$.switchboard.guards.unknown');
  });
});

describe('host/guards: the bound on a result size', () => {
  const utf8 = (value: unknown): number => new TextEncoder().encode(JSON.stringify(value)).byteLength;
  const values: unknown[] = [
    'plain',
    '\u0000\u0001\u001f'.repeat(50),
    '"\\'.repeat(40),
    '\uD83D\uDE00 é ü 中'.repeat(30),
    'lone \uD800 and \uDC00',
    [-0.0000012345678901234567, -1.7976931348623157e308, 5e-324, NaN, Infinity, -0],
    { content: [{ type: 'text', text: 'hello' }], isError: false, meta: null, list: [true, false, null, undefined] },
    { kind: 'complete', value: { content: [{ type: 'text', text: '\u0007'.repeat(300) }] } },
    Object.assign(Object.create(null) as object, { a: 'x' }),
  ];

  it('is never under the real size (escapes, surrogates, long numbers included)', () => {
    for (const value of values) assert.ok(jsonBytesAtMost(value, Infinity) >= utf8(value), JSON.stringify(value).slice(0, 80));
  });

  it('gives up (Infinity) on what it does not follow, so the caller serialises: toJSON, class instances, deep nesting, functions', () => {
    assert.equal(jsonBytesAtMost({ at: new Date(0) }, 1e9), Infinity);
    assert.equal(jsonBytesAtMost({ m: new Map([[1, 2]]) }, 1e9), Infinity);
    assert.equal(jsonBytesAtMost({ f: () => 1 }, 1e9), Infinity);
    let deep: unknown = 'x';
    for (let i = 0; i < 100; i++) deep = [deep];
    assert.equal(jsonBytesAtMost(deep, 1e9), Infinity);
  });

  it('context flood with escapes: control characters that swell when escaped are still counted over the cap', async () => {
    // 200 control characters: 200 bytes raw, 1200 bytes as JSON escapes.
    const flood = { content: [{ type: 'text', text: '\u0001'.repeat(200) }] };
    assert.ok(utf8(flood) > 1000);
    assert.ok(jsonBytesAtMost(flood, 1000) > 1000);
    const guard = guardInterceptor({ maxResultBytes: 1000 });
    const ctx = { method: 'tools/call', params: {}, decisions: [], record: () => undefined, signal: new AbortController().signal, principal: undefined, session: undefined, server: { id: 's' } } as unknown as Parameters<typeof guard.intercept>[0];
    await assert.rejects(guard.intercept(ctx, () => Promise.resolve(flood)), (e: unknown) => e instanceof DeniedError && e.interceptor === GUARD_IDS.size);
    assert.deepEqual(await guard.intercept(ctx, () => Promise.resolve({ content: [{ type: 'text', text: 'small' }] })), { content: [{ type: 'text', text: 'small' }] });
  });
});
