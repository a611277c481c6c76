import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { Host, type HostChange } from '../../../src/host/host.js';
import { DeniedError, type Interceptor } from '../../../src/host/interceptors.js';
import { MemoryNameAssignmentStore } from '../../../src/host/memoryStores.js';
import type { NamespacingMode } from '../../../src/host/configTypes.js';
import { McpServer } from '../../../src/server/mcpServer.js';
import { McpError } from '../../../src/util/errors.js';
import { memoryServers, memorySpec, until } from './support/memoryServers.js';

/** Each server has `search` (colliding), `<id>_only`, a prompt `greet` and a resource `mem://shared`. */
function build(id: string): McpServer {
  const server = new McpServer({ name: id, version: '1.0.0' });
  server.tool('search', { description: `search in ${id}`, inputSchema: { type: 'object', properties: { q: { type: 'string' } } } }, (args) => `${id} searched ${String(args['q'])}`);
  server.tool(`${id}_only`, {}, () => `only ${id}`);
  server.prompt('greet', { arguments: [{ name: 'who' }] }, (args) => ({ messages: [{ role: 'user', content: { type: 'text', text: `${id} greets ${args['who']}` } }] }));
  server.resource('mem://shared', { name: 'shared' }, (uri) => [{ uri, text: `shared of ${id}` }]);
  return server;
}

async function openHost(mode: NamespacingMode, ids: string[], extra: Partial<Parameters<typeof Host.open>[0]> = {}) {
  const servers = memoryServers(build);
  const host = await Host.open({ servers: ids.map((id) => memorySpec(id)), namespacing: mode, transport: servers.factory, backoff: { initialMs: 5 }, ...extra });
  await host.start();
  return { host, servers };
}

const text = (r: unknown): string => ((r as { content: { text: string }[] }).content[0] as { text: string }).text;

describe('host/host', () => {
  it('on-collision: the first server keeps the bare name, the second is prefixed, both are reachable', async () => {
    const { host } = await openHost('on-collision', ['a', 'b']);
    assert.deepEqual(
      host.tools.map((t) => `${t.name}<-${t.serverId}`),
      ['search<-a', 'a_only<-a', 'b__search<-b', 'b_only<-b'],
    );
    assert.equal(text(await host.callTool('search', { q: 'x' })), 'a searched x');
    assert.equal(text(await host.callTool('b__search', { q: 'y' })), 'b searched y');
    await host.close();
  });

  it('always: every name is prefixed with its server', async () => {
    const { host } = await openHost('always', ['a', 'b']);
    assert.deepEqual(
      host.tools.map((t) => t.name),
      ['a__search', 'a__a_only', 'b__search', 'b__b_only'],
    );
    assert.equal(text(await host.callTool('b__search', { q: 'z' })), 'b searched z');
    await host.close();
  });

  it('never: an ambiguous name is an explicit error naming both servers, and the other server keeps serving', async () => {
    const { host } = await openHost('never', ['a', 'b']);
    const b = host.health().find((h) => h.id === 'b');
    assert.match(b?.problem ?? '', /tool name "search" is exposed by both server "a" and server "b"/);
    assert.deepEqual(
      host.tools.map((t) => t.name),
      ['search', 'a_only'],
    );
    assert.equal(text(await host.callTool('search', { q: 'q' })), 'a searched q');
    await host.close();
  });

  it('on-collision names survive a restart and an added server (the assignment is stored)', async () => {
    const store = new MemoryNameAssignmentStore();
    const first = await openHost('on-collision', ['b', 'a'], { nameStore: store });
    assert.equal(first.host.tool('search')?.serverId, 'b');
    await first.host.close();
    // restart with the servers in the other order and a new one that also has `search`
    const second = await openHost('on-collision', ['a', 'c', 'b'], { nameStore: store });
    assert.equal(second.host.tool('search')?.serverId, 'b', 'b keeps the bare name it had');
    assert.equal(second.host.tool('a__search')?.serverId, 'a');
    assert.equal(second.host.tool('c__search')?.serverId, 'c');
    await second.host.close();
  });

  it('routes prompts, resources and completions with the server’s own names; colliding URIs are rewritten reversibly', async () => {
    const { host } = await openHost('on-collision', ['a', 'b']);
    assert.deepEqual(
      host.resources.map((r) => r.uri),
      ['mem://shared', 'b+mem://shared'],
    );
    const read = (await host.readResource('b+mem://shared')) as { contents: { uri: string; text: string }[] };
    assert.equal(read.contents[0]?.text, 'shared of b');
    assert.equal(((await host.readResource('mem://shared')) as { contents: { text: string }[] }).contents[0]?.text, 'shared of a');
    const prompt = (await host.getPrompt('b__greet', { who: 'ann' })) as { messages: { content: { text: string } }[] };
    assert.equal(prompt.messages[0]?.content.text, 'b greets ann');
    await assert.rejects(host.readResource('c+mem://shared'), (e: unknown) => e instanceof McpError && /Unknown resource/.test(e.message));
    await host.close();
  });

  it('per-server allow and deny lists: a denied tool is neither listed nor callable', async () => {
    const servers = memoryServers(build);
    const spec = memorySpec('a', { tools: { allow: ['*'], deny: ['search'] } });
    const host = await Host.open({ servers: [spec], transport: servers.factory });
    await host.start();
    assert.deepEqual(
      host.tools.map((t) => t.name),
      ['a_only'],
    );
    await assert.rejects(host.callTool('search', {}), (e: unknown) => e instanceof McpError && e.message === 'Unknown tool: search');
    await host.close();
  });

  it('interceptors run in phase order (audit, trust, policy, consent, guard), may change arguments and deny with their id', async () => {
    const order: string[] = [];
    const step = (id: string, phase: Interceptor['phase'], body?: Interceptor['intercept']): Interceptor => ({
      id,
      phase,
      intercept: async (ctx, next) => {
        order.push(id);
        return body === undefined ? next() : body(ctx, next);
      },
    });
    const interceptors: Interceptor[] = [
      step('guard.rewrite', 'guard', (ctx, next) => {
        ctx.params['arguments'] = { q: 'rewritten' };
        ctx.record({ interceptor: 'guard.rewrite', outcome: 'change' });
        return next();
      }),
      step('policy.block', 'policy', (ctx, next) => {
        if (ctx.server?.id === 'b') throw new DeniedError('policy.block', 'server b is off limits');
        return next();
      }),
      step('audit.log', 'audit'),
      step('trust.pins', 'trust'),
    ];
    const { host } = await openHost('on-collision', ['a', 'b'], { interceptors });
    assert.deepEqual(
      host.interceptors.map((i) => i.id),
      ['audit.log', 'trust.pins', 'policy.block', 'guard.rewrite'],
    );
    assert.equal(text(await host.callTool('search', { q: 'original' })), 'a searched rewritten');
    assert.deepEqual(order, ['audit.log', 'trust.pins', 'policy.block', 'guard.rewrite']);
    order.length = 0;
    await assert.rejects(host.callTool('b__search', { q: 'x' }), (e: unknown) => e instanceof DeniedError && e.interceptor === 'policy.block' && e.message === 'Denied by policy.block: server b is off limits');
    assert.deepEqual(order, ['audit.log', 'trust.pins', 'policy.block']);
    await host.close();
  });

  it('a list_changed downstream updates the aggregated registry and announces it', async () => {
    const { host, servers } = await openHost('on-collision', ['a', 'b']);
    const changed = until<HostChange>((l) => host.onChange(l), (c) => c === 'tools');
    servers.started.get('b')?.[0]?.tool('fresh', {}, () => 'fresh');
    await changed;
    assert.equal(host.tool('fresh')?.serverId, 'b');
    await host.close();
  });

  it('reconcile: a removed server stops and its tools go, an added one starts, an unchanged one keeps running', async () => {
    const { host, servers } = await openHost('on-collision', ['a', 'b']);
    await host.reconcile([memorySpec('a'), memorySpec('c')]);
    assert.deepEqual(host.serverIds, ['a', 'c']);
    assert.equal(servers.started.get('a')?.length, 1, 'a was not restarted');
    assert.equal(host.tool('b_only'), undefined);
    assert.equal(host.tool('c_only')?.serverId, 'c');
    await host.close();
  });

  it('isolation: a call reaches only the server that owns the name', async () => {
    const calls: string[] = [];
    const servers = memoryServers((id) => {
      const server = new McpServer({ name: id, version: '1' });
      server.tool('probe', {}, () => {
        calls.push(id);
        return id;
      });
      return server;
    });
    const host = await Host.open({ servers: [memorySpec('x'), memorySpec('y')], namespacing: 'always', transport: servers.factory });
    await host.start();
    await host.callTool('y__probe', {});
    assert.deepEqual(calls, ['y']);
    await host.close();
  });

  it('hung server: a server that never answers does not hold the others; a late one joins with a change after the start window', { timeout: 10_000 }, async () => {
    const servers = memoryServers(build);
    const mute: Parameters<typeof Host.open>[0]['transport'] = () => ({ start: () => Promise.resolve(), send: () => Promise.resolve(), close: () => Promise.resolve() });
    const host = await Host.open({
      servers: [memorySpec('a'), memorySpec('hung', { startTimeoutMs: 60_000 }), memorySpec('late')],
      transport: async (spec, io) => {
        if (spec.id === 'hung') return mute(spec, io);
        if (spec.id === 'late') await new Promise((resolve) => setTimeout(resolve, 400));
        return servers.factory(spec, io);
      },
      startWindowMs: 100,
    });
    const changes: HostChange[] = [];
    host.onChange((c) => changes.push(c));
    void host.start();
    // A list sent at once waits for the window only, and has the server that is up.
    const first = await host.listTools();
    assert.deepEqual(first.map((t) => t.name), ['search', 'a_only']);
    assert.equal(host.health().find((h) => h.id === 'hung')?.state, 'starting');
    await until<HostChange>((l) => host.onChange(l), (c) => c === 'tools' && host.tools.some((t) => t.serverId === 'late'));
    assert.deepEqual((await host.listTools()).map((t) => t.name), ['search', 'a_only', 'late__search', 'late_only']);
    assert.equal(host.health().find((h) => h.id === 'hung')?.state, 'starting');
    await host.close();
  });
});
