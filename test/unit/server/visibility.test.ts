import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { Connection } from '../../../src/jsonrpc/connection.js';
import type { JsonRpcNotification } from '../../../src/jsonrpc/messages.js';
import { McpServer } from '../../../src/server/mcpServer.js';
import type { VisibleEntry, VisibilityContext } from '../../../src/server/visibility.js';
import { createInMemoryPair } from '../../../src/transport/memory.js';
import type { DispatchEnv } from '../../../src/transport/types.js';
import { meta } from './support.js';

/** Entries whose `_meta.owner` names someone are visible to that principal only. */
function ownerOnly(entry: VisibleEntry, ctx: VisibilityContext): boolean {
  const owner = (entry.definition['_meta'] as { owner?: string } | undefined)?.owner;
  return owner === undefined || owner === ctx.principal?.id;
}

function makeServer(pageSize = 100): McpServer {
  const server = new McpServer({ name: 'views', version: '1' }, { visibility: ownerOnly, pageSize });
  const secret = { _meta: { owner: 'alice' } };
  server.tool('public', {}, () => 'public');
  server.tool('secret', { ...secret, inputSchema: { type: 'object', properties: { region: { type: 'string', 'x-mcp-header': 'Region' } } } }, () => 'secret');
  server.prompt('secret-prompt', { ...secret, arguments: [{ name: 'topic', complete: () => ['a', 'b'] }] }, () => ({ messages: [] }));
  server.resource('file:///secret.txt', { name: 'secret', ...secret }, () => [{ text: 'classified' }]);
  server.resourceTemplate('secret://{id}', { name: 'secret-template', ...secret, complete: { id: () => ['1'] } }, () => [{ text: 'classified' }]);
  return server;
}

interface Peer {
  call(method: string, params?: Record<string, unknown>): Promise<Record<string, unknown>>;
  error(method: string, params?: Record<string, unknown>): Promise<{ code: number; message: string }>;
  readonly notifications: JsonRpcNotification[];
  readonly conn: Connection;
  /** Resolves when a notification with `method` has arrived. */
  waitFor(method: string): Promise<void>;
}

async function as(server: McpServer, id: string | undefined): Promise<Peer> {
  const [clientSide, serverSide] = createInMemoryPair(id === undefined ? {} : { principal: { id } });
  await server.connect(serverSide);
  const notifications: JsonRpcNotification[] = [];
  const waiters: { method: string; resolve: () => void }[] = [];
  const conn = new Connection(clientSide, {
    onNotification: (n) => {
      notifications.push(n);
      for (const w of waiters.filter((w) => w.method === n.method)) w.resolve();
    },
  });
  await conn.start();
  const call = (method: string, params: Record<string, unknown> = {}): Promise<Record<string, unknown>> => conn.request(method, { ...params, _meta: meta() });
  return {
    call,
    conn,
    notifications,
    waitFor: (method) =>
      notifications.some((n) => n.method === method) ? Promise.resolve() : new Promise<void>((resolve) => waiters.push({ method, resolve })),
    error: async (method, params) => {
      const failure = await call(method, params).then(
        () => assert.fail(`${method} should fail`),
        (e: unknown) => e as { code: number; message: string },
      );
      return { code: failure.code, message: failure.message };
    },
  };
}

const names = (result: Record<string, unknown>, member: string): string[] => (result[member] as { name: string }[]).map((e) => e.name);

describe('visibility: per-principal views', () => {
  it('lists only what the principal may see', async () => {
    const server = makeServer();
    const alice = await as(server, 'alice');
    const bob = await as(server, 'bob');
    assert.deepEqual(names(await alice.call('tools/list'), 'tools'), ['public', 'secret']);
    assert.deepEqual(names(await bob.call('tools/list'), 'tools'), ['public']);
    assert.deepEqual(names(await bob.call('prompts/list'), 'prompts'), []);
    assert.deepEqual(names(await bob.call('resources/list'), 'resources'), []);
    assert.deepEqual(names(await bob.call('resources/templates/list'), 'resourceTemplates'), []);
    assert.deepEqual(names(await alice.call('resources/templates/list'), 'resourceTemplates'), ['secret-template']);
    await server.close();
  });

  it('filters before paging: every page is full', async () => {
    const server = new McpServer({ name: 'views', version: '1' }, { visibility: ownerOnly, pageSize: 2 });
    for (const [name, owner] of [['a', 'bob'], ['h1', 'alice'], ['b', 'bob'], ['h2', 'alice'], ['c', undefined], ['d', 'bob']] as const) {
      server.tool(name, owner === undefined ? {} : { _meta: { owner } }, () => name);
    }
    const bob = await as(server, 'bob');
    const first = await bob.call('tools/list');
    assert.deepEqual(names(first, 'tools'), ['a', 'b']);
    const second = await bob.call('tools/list', { cursor: first['nextCursor'] });
    assert.deepEqual(names(second, 'tools'), ['c', 'd']);
    assert.equal(second['nextCursor'], undefined);
    await server.close();
  });

  it('a hidden tool is not callable by guessing its name (same -32602 as a missing tool)', async () => {
    const server = makeServer();
    const bob = await as(server, 'bob');
    const hidden = await bob.error('tools/call', { name: 'secret', arguments: {} });
    const missing = await bob.error('tools/call', { name: 'nonexistent', arguments: {} });
    assert.equal(hidden.code, -32602);
    assert.equal(hidden.message, missing.message.replace('nonexistent', 'secret'));
    const alice = await as(server, 'alice');
    assert.deepEqual((await alice.call('tools/call', { name: 'secret', arguments: {} }))['content'], [{ type: 'text', text: 'secret' }]);
    await server.close();
  });

  it('an anonymous caller cannot reach an owned tool either', async () => {
    const server = makeServer();
    const nobody = await as(server, undefined);
    assert.equal((await nobody.error('tools/call', { name: 'secret', arguments: {} })).code, -32602);
    await server.close();
  });

  it('a hidden prompt is not gettable or completable by guessing its name', async () => {
    const server = makeServer();
    const bob = await as(server, 'bob');
    const get = await bob.error('prompts/get', { name: 'secret-prompt' });
    const missing = await bob.error('prompts/get', { name: 'other' });
    assert.deepEqual(get, { code: missing.code, message: missing.message.replace('other', 'secret-prompt') });
    const complete = await bob.error('completion/complete', { ref: { type: 'ref/prompt', name: 'secret-prompt' }, argument: { name: 'topic', value: '' } });
    assert.equal(complete.code, -32602);
    const alice = await as(server, 'alice');
    const values = await alice.call('completion/complete', { ref: { type: 'ref/prompt', name: 'secret-prompt' }, argument: { name: 'topic', value: '' } });
    assert.deepEqual((values['completion'] as { values: string[] }).values, ['a', 'b']);
    await server.close();
  });

  it('a hidden resource or template is not readable by guessing its URI (same "Resource not found")', async () => {
    const server = makeServer();
    const bob = await as(server, 'bob');
    const missing = await bob.error('resources/read', { uri: 'file:///missing.txt' });
    assert.deepEqual(await bob.error('resources/read', { uri: 'file:///secret.txt' }), missing);
    assert.deepEqual(await bob.error('resources/read', { uri: 'secret://42' }), missing);
    const template = await bob.error('completion/complete', { ref: { type: 'ref/resource', uri: 'secret://{id}' }, argument: { name: 'id', value: '' } });
    assert.equal(template.code, -32602);
    const alice = await as(server, 'alice');
    assert.equal(((await alice.call('resources/read', { uri: 'secret://42' }))['contents'] as { text: string }[])[0]?.text, 'classified');
    await server.close();
  });

  it("a hidden tool's x-mcp-header does not leak its existence (toolHeaders answers as for a missing tool)", () => {
    const server = makeServer();
    const env = (id: string): DispatchEnv => ({ signal: new AbortController().signal, extra: undefined, notify: () => undefined, principal: { id } });
    assert.equal(server.toolHeaders('secret', env('bob')), undefined);
    assert.equal(server.toolHeaders('nonexistent', env('bob')), undefined);
    assert.deepEqual(server.toolHeaders('secret', env('alice')), [{ name: 'Region', path: ['region'], type: 'string' }]);
  });

  it('a hidden change sends no list_changed to a session that cannot see it (stateful)', async () => {
    const server = makeServer();
    const init = async (peer: Peer): Promise<void> => {
      await peer.conn.request('initialize', { protocolVersion: '2025-11-25', capabilities: {}, clientInfo: { name: 'c', version: '1' } });
      await peer.conn.notify('notifications/initialized');
    };
    const alice = await as(server, 'alice');
    const bob = await as(server, 'bob');
    await init(alice);
    await init(bob);
    server.tool('another-secret', { _meta: { owner: 'alice' } }, () => 'x');
    server.tool('for-everyone', {}, () => 'x');
    // Ping both: everything sent before the pong has arrived.
    await alice.conn.request('ping', {});
    await bob.conn.request('ping', {});
    const changes = (peer: Peer): number => peer.notifications.filter((n) => n.method === 'notifications/tools/list_changed').length;
    assert.equal(changes(alice), 2);
    assert.equal(changes(bob), 1);
    await server.close();
  });

  it('a hidden change sends no list_changed to a listen stream that cannot see it (2026-07-28)', async () => {
    const server = makeServer();
    const listen = async (peer: Peer): Promise<void> => {
      const acknowledged = peer.waitFor('notifications/subscriptions/acknowledged');
      void peer.call('subscriptions/listen', { notifications: { toolsListChanged: true } }).catch(() => undefined);
      await acknowledged;
    };
    const alice = await as(server, 'alice');
    const bob = await as(server, 'bob');
    await listen(alice);
    await listen(bob);
    server.tool('another-secret', { _meta: { owner: 'alice' } }, () => 'x');
    // A request answered after the change: everything sent before its answer has arrived.
    await alice.call('tools/list');
    await bob.call('tools/list');
    const changes = (peer: Peer): number => peer.notifications.filter((n) => n.method === 'notifications/tools/list_changed').length;
    assert.equal(changes(alice), 1);
    assert.equal(changes(bob), 0);
    await server.close();
  });

  it('a throwing visibility hook hides the entry (fail closed)', async () => {
    const server = new McpServer({ name: 'views', version: '1' }, { visibility: () => { throw new Error('policy store down'); } });
    server.tool('t', {}, () => 't');
    const alice = await as(server, 'alice');
    assert.deepEqual(names(await alice.call('tools/list'), 'tools'), []);
    assert.equal((await alice.error('tools/call', { name: 't', arguments: {} })).code, -32602);
    await server.close();
  });
});
