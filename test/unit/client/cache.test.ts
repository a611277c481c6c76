import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { ResultCache } from '../../../src/client/cache.js';
import { McpClient } from '../../../src/client/mcpClient.js';
import { JsonRpcError } from '../../../src/jsonrpc/errors.js';
import type { JsonRpcRequest } from '../../../src/jsonrpc/messages.js';
import { CLIENT_INFO, connectEverything, scriptedPeer } from './support.js';

const DISCOVER_OK = { resultType: 'complete', supportedVersions: ['2026-07-28'], capabilities: { tools: { listChanged: true }, resources: {} }, ttlMs: 0, cacheScope: 'public' };
const tool = (name: string) => ({ name, inputSchema: { type: 'object' } });

async function listPeer(answer: (request: JsonRpcRequest) => Record<string, unknown>) {
  return scriptedPeer((request) => (request.method === 'server/discover' ? DISCOVER_OK : answer(request)));
}

function pages(ttlMs: unknown, cacheScope: unknown = 'private') {
  return (request: JsonRpcRequest): Record<string, unknown> => {
    const hints: Record<string, unknown> = { resultType: 'complete', cacheScope };
    if (ttlMs !== undefined) hints['ttlMs'] = ttlMs;
    if (request.method === 'resources/read') return { ...hints, contents: [{ uri: String(request.params?.['uri']), text: 'x' }] };
    return request.params?.['cursor'] === 'p2' ? { ...hints, tools: [tool('b')] } : { ...hints, tools: [tool('a')], nextCursor: 'p2' };
  };
}

describe('McpClient caching', () => {
  it('caches each page while fresh, bypasses with fresh: false, and expires on the clock', async () => {
    let now = 1000;
    const { transport } = await listPeer(pages(60_000));
    const client = new McpClient(CLIENT_INFO, { cache: new ResultCache({ now: () => now }) });
    await client.connect(transport);
    assert.deepEqual((await client.listTools()).map((t) => t.name), ['a', 'b']);
    assert.deepEqual((await client.listTools()).map((t) => t.name), ['a', 'b']);
    assert.equal(transport.requests('tools/list').length, 2);
    await client.listTools({ fresh: false });
    assert.equal(transport.requests('tools/list').length, 4);
    now += 60_000;
    await client.listTools();
    assert.equal(transport.requests('tools/list').length, 6);
    await client.close();
  });

  for (const ttl of [0, -5, undefined, 'soon']) {
    it(`never caches when ttlMs is ${JSON.stringify(ttl)}`, async () => {
      const { transport } = await listPeer(pages(ttl));
      const client = new McpClient(CLIENT_INFO);
      await client.connect(transport);
      await client.listTools();
      await client.listTools();
      assert.equal(transport.requests('tools/list').length, 4);
      await client.close();
    });
  }

  it('invalidates on list_changed and resources/updated', async () => {
    const { transport, peer } = await listPeer(pages(60_000));
    const changed: string[] = [];
    const client = new McpClient(CLIENT_INFO, { on: { toolsListChanged: () => changed.push('tools'), resourceUpdated: (u) => changed.push(u) } });
    await client.connect(transport);
    await client.listTools();
    await client.readResource('file:///dir/a.txt');
    await client.readResource('file:///dir/a.txt');
    assert.equal(transport.requests('resources/read').length, 1);
    await peer.notify('notifications/tools/list_changed');
    await peer.notify('notifications/resources/updated', { uri: 'file:///dir' });
    await new Promise((r) => setTimeout(r, 10));
    await client.listTools();
    await client.readResource('file:///dir/a.txt');
    assert.equal(transport.requests('tools/list').length, 4);
    assert.equal(transport.requests('resources/read').length, 2);
    assert.deepEqual(changed, ['tools', 'file:///dir']);
    await client.close();
  });

  it('shares public entries across authorization contexts but keeps private ones apart', async () => {
    const shared = new ResultCache();
    for (const [scope, expected] of [['private', 2], ['public', 1]] as const) {
      shared.clear();
      const { transport } = await listPeer(pages(60_000, scope));
      const alice = new McpClient(CLIENT_INFO, { cache: shared, cacheKey: 'alice' });
      const bob = new McpClient(CLIENT_INFO, { cache: shared, cacheKey: 'bob' });
      await alice.connect(transport);
      await alice.listToolsPage();
      await alice.close();
      const second = await listPeer(pages(60_000, scope));
      await bob.connect(second.transport);
      await bob.listToolsPage();
      assert.equal(transport.requests('tools/list').length + second.transport.requests('tools/list').length, expected, scope);
      await bob.close();
    }
  });

  it('restarts from the first page when a cached cursor turns out invalid', async () => {
    let generation = 0;
    const { transport } = await listPeer((request) => {
      const cursor = request.params?.['cursor'];
      if (cursor === undefined) return { resultType: 'complete', ttlMs: 60_000, cacheScope: 'private', tools: [tool(`a${generation}`)], nextCursor: `c${generation}` };
      if (cursor !== `c${generation}`) throw JsonRpcError.invalidParams('invalid cursor');
      return { resultType: 'complete', ttlMs: 0, cacheScope: 'private', tools: [tool('b')] };
    });
    const client = new McpClient(CLIENT_INFO);
    await client.connect(transport);
    assert.deepEqual((await client.listTools()).map((t) => t.name), ['a0', 'b']);
    generation++;
    assert.deepEqual((await client.listTools()).map((t) => t.name), ['a1', 'b']);
    assert.equal(transport.requests('tools/list').length, 5);
    await client.close();
  });

  it('invalidates cached lists through listen streams (everything server)', async () => {
    const { client, close } = await connectEverything({
      cache: new ResultCache(),
    });
    try {
      const sub = await client.listen({ toolsListChanged: true });
      assert.deepEqual(sub.granted, { toolsListChanged: true });
      sub.close();
      assert.equal((await sub.ended).reason, 'aborted');
    } finally {
      await close();
    }
  });
});
