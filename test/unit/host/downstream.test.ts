import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { Downstream, type Catalog, type ServerHealth } from '../../../src/host/downstream.js';
import { McpServer } from '../../../src/server/mcpServer.js';
import { McpError } from '../../../src/util/errors.js';
import type { AbortLike } from '../../../src/util/lazyAbort.js';
import { memoryServers, memorySpec, until } from './support/memoryServers.js';
import type { DownstreamSpec } from '../../../src/host/spec.js';
import type { TransportFactory } from '../../../src/host/downstream.js';
import type { Transport } from '../../../src/transport/types.js';

const clientInfo = { name: 'host-test', version: '1.0.0' };

function echoServer(id: string): McpServer {
  const server = new McpServer({ name: id, version: '1.0.0' });
  server.tool('echo', { inputSchema: { type: 'object', properties: { text: { type: 'string' } } } }, (args) => `${id}: ${String(args['text'])}`);
  server.tool('hang', {}, (_args, ctx) => new Promise((_resolve, reject) => ctx.signal.addEventListener('abort', () => reject(new Error('aborted')))));
  return server;
}

/** A Downstream whose health and catalog events tests can wait on. */
function observed(spec: DownstreamSpec, factory: TransportFactory, backoff = { initialMs: 5, maxMs: 80, crashLoopAfter: 3 }) {
  const health: ((h: ServerHealth) => void)[] = [];
  const catalogs: ((c: Catalog) => void)[] = [];
  const seen: ServerHealth[] = [];
  const server = new Downstream(spec, {
    clientInfo,
    transport: factory,
    backoff,
    onHealth: (h) => {
      seen.push(h);
      for (const l of health) l(h);
    },
    onCatalog: (c) => {
      for (const l of catalogs) l(c);
    },
  });
  return {
    server,
    seen,
    health: (predicate: (h: ServerHealth) => boolean) => until<ServerHealth>((l) => health.push(l), predicate),
    catalog: (predicate: (c: Catalog) => boolean) => until<Catalog>((l) => catalogs.push(l), predicate),
  };
}

/** A server that reads everything and never answers (not even initialize): its transport says when it starts and closes. */
function mute(events: { started?: () => void; closed?: () => void }): Transport {
  let sink: Parameters<Transport['start']>[0] | undefined;
  return {
    start: (s) => {
      sink = s;
      events.started?.();
      return Promise.resolve();
    },
    send: () => Promise.resolve(),
    close: () => {
      events.closed?.();
      sink?.closed(undefined);
      sink = undefined;
      return Promise.resolve();
    },
  };
}

const text = (result: { content: readonly unknown[] }): string => (result.content[0] as { text: string }).text;

describe('host/downstream', () => {
  it('starts, reports ready and exposes the catalog as the server sent it', async () => {
    const servers = memoryServers(echoServer);
    const { server } = observed(memorySpec('alpha'), servers.factory);
    await server.start();
    assert.equal(server.health.state, 'ready');
    assert.deepEqual(
      server.catalog.tools.map((t) => t.name),
      ['echo', 'hang'],
    );
    const result = await server.run((client, o) => client.callTool('echo', { text: 'hi' }, o));
    assert.equal(text(result), 'alpha: hi');
    await server.stop();
    assert.equal(server.health.state, 'stopped');
  });

  it('a server killed mid-call: the caller gets a clear error naming the server, the server restarts, the next call succeeds', async () => {
    const servers = memoryServers(echoServer);
    const o = observed(memorySpec('beta'), servers.factory);
    await o.server.start();
    const call = o.server.run((client, opts) => client.callTool('hang', {}, opts));
    const restarted = o.health((h) => h.state === 'ready' && h.restarts === 1);
    await servers.kill('beta');
    await assert.rejects(call, (e: unknown) => e instanceof McpError && e.code === 'ERR_MCP_SERVER_UNAVAILABLE' && /Server beta stopped during the request/.test(e.message));
    await restarted;
    assert.equal(servers.started.get('beta')?.length, 2);
    const result = await o.server.run((client, opts) => client.callTool('echo', { text: 'again' }, opts));
    assert.equal(text(result), 'beta: again');
    await o.server.stop();
  });

  it('a hung server: the call fails with ERR_MCP_REQUEST_TIMEOUT naming the server and its timeout', async () => {
    const servers = memoryServers(echoServer);
    const { server } = observed(memorySpec('slow', { timeoutMs: 50 }), servers.factory);
    await server.start();
    await assert.rejects(
      server.run((client, opts) => client.callTool('hang', {}, opts)),
      (e: unknown) => e instanceof McpError && e.code === 'ERR_MCP_REQUEST_TIMEOUT' && e.message === 'Server slow did not answer within 50 ms (its timeoutMs); the request was cancelled',
    );
    await server.stop();
  });

  it('a hung server on a signal the caller owns: the timeout aborts that signal and the call fails with ERR_MCP_REQUEST_TIMEOUT', async () => {
    const servers = memoryServers(echoServer);
    const { server } = observed(memorySpec('slow', { timeoutMs: 50 }), servers.factory);
    await server.start();
    const controller = new AbortController();
    let seen: AbortLike | undefined;
    await assert.rejects(
      server.run(
        (client, opts) => {
          seen = opts.signal;
          return client.callTool('hang', {}, opts);
        },
        { signal: controller.signal, abort: (reason) => controller.abort(reason) },
      ),
      (e: unknown) => e instanceof McpError && e.code === 'ERR_MCP_REQUEST_TIMEOUT' && e.message === 'Server slow did not answer within 50 ms (its timeoutMs); the request was cancelled',
    );
    assert.equal(seen, controller.signal);
    assert.ok(controller.signal.aborted);
    assert.equal((controller.signal.reason as McpError).code, 'ERR_MCP_REQUEST_TIMEOUT');
    await server.stop();
  });

  it('a caller cancelling its own signal cancels the call, not reported as a timeout', async () => {
    const servers = memoryServers(echoServer);
    const { server } = observed(memorySpec('slow', { timeoutMs: 5000 }), servers.factory);
    await server.start();
    const controller = new AbortController();
    const call = server.run(
      (client, opts) => {
        const pending = client.callTool('hang', {}, opts);
        controller.abort(new Error('caller gave up'));
        return pending;
      },
      { signal: controller.signal, abort: (reason) => controller.abort(reason) },
    );
    await assert.rejects(call, (e: unknown) => e instanceof McpError && e.code === 'ERR_MCP_REQUEST_CANCELLED');
    await server.stop();
  });

  it('a crash-looping server backs off exponentially and is reported, while another server keeps serving', async () => {
    const good = memoryServers(echoServer);
    const failing: TransportFactory = () => {
      throw new Error('spawn ENOENT');
    };
    const bad = observed(memorySpec('broken'), failing, { initialMs: 5, maxMs: 40, crashLoopAfter: 3 });
    const ok = observed(memorySpec('fine'), good.factory);
    await Promise.all([bad.server.start(), ok.server.start()]);
    const looping = await bad.health((h) => h.state === 'backoff' && h.failures === 4);
    assert.equal(looping.crashLooping, true);
    assert.match(looping.lastError ?? '', /did not start: spawn ENOENT/);
    const delays = bad.seen.filter((h) => h.state === 'backoff').map((h) => h.failures);
    assert.deepEqual(delays, [1, 2, 3, 4]);
    // the delays doubled: 5, 10, 20, then capped at 40
    await assert.rejects(
      bad.server.run((client) => client.ping()),
      (e: unknown) => e instanceof McpError && e.code === 'ERR_MCP_SERVER_UNAVAILABLE' && /Server broken is not available: it is (backoff|starting) \(did not start: spawn ENOENT\)/.test(e.message),
    );
    const result = await ok.server.run((client, opts) => client.callTool('echo', { text: 'still here' }, opts));
    assert.equal(text(result), 'fine: still here');
    await Promise.all([bad.server.stop(), ok.server.stop()]);
    assert.equal(bad.server.health.state, 'stopped');
  });

  it('list_changed refreshes the catalog (stateless era, through subscriptions/listen)', async () => {
    const servers = memoryServers(echoServer);
    const o = observed(memorySpec('gamma'), servers.factory);
    await o.server.start();
    const changed = o.catalog((c) => c.tools.some((t) => t.name === 'added'));
    servers.started.get('gamma')?.[0]?.tool('added', {}, () => 'new');
    const catalog = await changed;
    assert.deepEqual(
      catalog.tools.map((t) => t.name),
      ['echo', 'hang', 'added'],
    );
    await o.server.stop();
  });

  it('list_changed refreshes the catalog (stateful era)', async () => {
    const servers = memoryServers(echoServer);
    const o = observed(memorySpec('delta', { era: 'stateful' }), servers.factory);
    await o.server.start();
    assert.equal(o.server.client?.era, 'stateful');
    const changed = o.catalog((c) => c.tools.some((t) => t.name === 'added'));
    servers.started.get('delta')?.[0]?.tool('added', {}, () => 'new');
    await changed;
    await o.server.stop();
  });

  it('a stopped server is not restarted', async () => {
    const servers = memoryServers(echoServer);
    const o = observed(memorySpec('eps'), servers.factory);
    await o.server.start();
    await o.server.stop();
    await servers.kill('eps');
    assert.equal(o.server.health.state, 'stopped');
    assert.equal(servers.started.get('eps')?.length, 1);
  });

  it('hung server: a start that never answers initialize fails after its startTimeoutMs, its transport is closed, and it is retried', { timeout: 10_000 }, async () => {
    let closed = 0;
    let made = 0;
    const o = observed(memorySpec('mute', { startTimeoutMs: 100 }), () => {
      made++;
      return mute({ closed: () => closed++ });
    });
    const since = Date.now();
    await o.server.start();
    assert.ok(Date.now() - since < 5000, 'bounded by startTimeoutMs, not by the 5 s request timeout');
    assert.equal(o.server.health.state, 'backoff');
    assert.match(o.server.health.lastError ?? '', /did not answer initialize within 100 ms \(its startTimeoutMs\)/);
    assert.equal(closed, 1);
    await o.health((h) => h.restarts >= 1 && h.state === 'backoff');
    assert.ok(made >= 2);
    await o.server.stop();
  });

  it('hung server: stopping it during its start closes the transport of that start (its process goes with it)', { timeout: 10_000 }, async () => {
    let markStarted!: () => void;
    const started = new Promise<void>((resolve) => (markStarted = resolve));
    let closed = false;
    const o = observed(memorySpec('mute'), () => mute({ started: markStarted, closed: () => (closed = true) }));
    void o.server.start();
    await started;
    assert.equal(o.server.health.state, 'starting');
    await o.server.stop();
    assert.equal(closed, true);
    assert.equal(o.server.health.state, 'stopped');
  });
});
