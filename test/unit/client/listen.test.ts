import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { McpClient } from '../../../src/client/mcpClient.js';
import type { JsonRpcNotification } from '../../../src/jsonrpc/messages.js';
import { McpError } from '../../../src/util/errors.js';
import { CLIENT_INFO, connectEverything, scriptedPeer } from './support.js';

const SUB = 'io.modelcontextprotocol/subscriptionId';

describe('McpClient listen', () => {
  it('resolves with the granted filter, demultiplexes by subscription id and invalidates caches', async () => {
    const changed: string[] = [];
    const { client, wire, close } = await connectEverything({ on: { toolsListChanged: () => changed.push('tools'), promptsListChanged: () => changed.push('prompts') } });
    try {
      const toolsSeen: JsonRpcNotification[] = [];
      const promptsSeen: JsonRpcNotification[] = [];
      const tools = await client.listen({ toolsListChanged: true, resourceSubscriptions: ['test://watched-resource'] }, { onNotification: (n) => toolsSeen.push(n) });
      const prompts = await client.listen({ promptsListChanged: true }, { onNotification: (n) => promptsSeen.push(n) });
      assert.deepEqual(tools.granted, { toolsListChanged: true, resourceSubscriptions: ['test://watched-resource'] });
      assert.notEqual(tools.id, prompts.id);
      const listens = wire.requests('subscriptions/listen');
      assert.deepEqual(listens.map((l) => l.id), [tools.id, prompts.id]);
      assert.equal((listens[0]?.params?.['_meta'] as Record<string, unknown>)['io.modelcontextprotocol/protocolVersion'], '2026-07-28');
      await client.listTools();
      await client.callTool('test_trigger_tool_change');
      await client.callTool('test_trigger_prompt_change');
      await new Promise((r) => setTimeout(r, 20));
      assert.deepEqual(toolsSeen.map((n) => n.method), ['notifications/tools/list_changed']);
      assert.deepEqual(promptsSeen.map((n) => n.method), ['notifications/prompts/list_changed']);
      assert.equal((toolsSeen[0]?.params?.['_meta'] as Record<string, unknown>)[SUB], tools.id);
      assert.deepEqual(changed.sort(), ['prompts', 'tools']);
      assert.ok((await client.listTools()).some((t) => t.name === 'test_dynamic_tool'));
      tools.close();
      assert.deepEqual(await tools.ended, { reason: 'aborted' });
      assert.ok(wire.sent.some((m) => 'method' in m && m.method === 'notifications/cancelled' && m.params?.['requestId'] === tools.id));
      const controller = new AbortController();
      const third = await client.listen({ resourcesListChanged: true }, { signal: controller.signal });
      controller.abort();
      assert.equal((await third.ended).reason, 'aborted');
      await client.close();
      assert.equal((await prompts.ended).reason, 'aborted');
    } finally {
      await close();
    }
  });

  it('ends gracefully on the listen result, and with an error when the server goes away', async () => {
    const { transport, peer } = await scriptedPeer(async (request) => {
      if (request.method === 'server/discover') return { resultType: 'complete', supportedVersions: ['2026-07-28'], capabilities: {}, ttlMs: 0, cacheScope: 'public' };
      await peer.notify('notifications/subscriptions/acknowledged', { notifications: {}, _meta: { [SUB]: request.id } });
      await new Promise((r) => setTimeout(r, 20));
      return { resultType: 'complete', _meta: { [SUB]: request.id } };
    });
    const client = new McpClient(CLIENT_INFO);
    await client.connect(transport);
    const sub = await client.listen({ toolsListChanged: true });
    assert.deepEqual(sub.granted, {});
    assert.deepEqual(await sub.ended, { reason: 'graceful' });
    await client.close();

    const everything = await connectEverything();
    const dropped = await everything.client.listen({ toolsListChanged: true });
    await everything.server.close();
    const end = await dropped.ended;
    assert.ok(end.reason === 'graceful' || (end.reason === 'error' && end.error instanceof McpError), JSON.stringify(end));
    await everything.close();
  });

  it('drops notifications before the acknowledgement and fails when none comes', async () => {
    const { transport, peer } = await scriptedPeer(async (request) => {
      if (request.method === 'server/discover') return { resultType: 'complete', supportedVersions: ['2026-07-28'], capabilities: {}, ttlMs: 0, cacheScope: 'public' };
      await peer.notify('notifications/tools/list_changed', { _meta: { [SUB]: request.id } });
      return new Promise<Record<string, unknown>>(() => undefined);
    });
    const client = new McpClient(CLIENT_INFO, { defaultTimeoutMs: 100 });
    await client.connect(transport);
    await assert.rejects(client.listen({ toolsListChanged: true }), (e: unknown) => e instanceof McpError && e.code === 'ERR_MCP_REQUEST_TIMEOUT');
    await client.close();
  });
});

/** Collects notifications and lets a test wait for the next one of a method. */
function inbox() {
  const seen: JsonRpcNotification[] = [];
  const waiters: { method: string; resolve: (n: JsonRpcNotification) => void }[] = [];
  return {
    seen,
    onNotification: (n: JsonRpcNotification) => {
      seen.push(n);
      for (const w of waiters.splice(0)) {
        if (w.method === n.method) w.resolve(n);
        else waiters.push(w);
      }
    },
    next: (method: string) => new Promise<JsonRpcNotification>((resolve) => waiters.push({ method, resolve })),
  };
}

describe('McpClient listen on a stateful server (mapped onto unsolicited notifications and resources/subscribe)', () => {
  it('grants what the server declared, delivers list_changed and resource updates, and unsubscribes with the last subscription of a URI', async () => {
    const uri = 'test://watched-resource';
    const { client, server, wire, close } = await connectEverything({ era: 'stateful' });
    try {
      assert.equal(client.era, 'stateful');
      const first = inbox();
      const sub = await client.listen({ toolsListChanged: true, resourceSubscriptions: [uri], taskIds: ['t-1'] }, { onNotification: first.onNotification });
      assert.deepEqual(sub.granted, { toolsListChanged: true, resourceSubscriptions: [uri] });
      assert.equal(wire.requests('resources/subscribe').length, 1);
      assert.deepEqual(wire.requests('resources/subscribe')[0]?.params, { uri });

      const toolsChanged = first.next('notifications/tools/list_changed');
      await client.callTool('test_trigger_tool_change');
      await toolsChanged;
      const updated = first.next('notifications/resources/updated');
      server.notifyResourceUpdated(uri);
      assert.equal((await updated).params?.['uri'], uri);

      const second = inbox();
      const again = await client.listen({ promptsListChanged: true, resourceSubscriptions: [uri] }, { onNotification: second.onNotification });
      assert.equal(wire.requests('resources/subscribe').length, 1, 'a URI already subscribed is not subscribed twice');
      const promptsChanged = second.next('notifications/prompts/list_changed');
      await client.callTool('test_trigger_prompt_change');
      await promptsChanged;
      assert.ok(!first.seen.some((n) => n.method === 'notifications/prompts/list_changed'), 'a subscription never gets what it was not granted');

      sub.close();
      assert.deepEqual(await sub.ended, { reason: 'aborted' });
      assert.equal(wire.requests('resources/unsubscribe').length, 0, 'still wanted by the other subscription');
      const controller = new AbortController();
      const third = await client.listen({ resourcesListChanged: true }, { signal: controller.signal });
      controller.abort();
      assert.deepEqual(await third.ended, { reason: 'aborted' });
      again.close();
      await again.ended;
      // The unsubscribe is sent right after the last subscription of the URI ends.
      await client.ping();
      assert.deepEqual(wire.requests('resources/unsubscribe').map((r) => r.params), [{ uri }]);
    } finally {
      await close();
    }
  });

  it('ends every stateful subscription when the client closes', async () => {
    const { client, close } = await connectEverything({ era: 'stateful' });
    const sub = await client.listen({ toolsListChanged: true });
    await close();
    assert.deepEqual(await sub.ended, { reason: 'aborted' });
  });
});
