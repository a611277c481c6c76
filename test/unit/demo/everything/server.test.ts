import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import { createEverythingServer, EVERYTHING_INSTRUCTIONS } from '../../../../src/demo/everything/server.js';
import { SWITCHBOARD_VERSION } from '../../../../src/util/version.js';
import { DYNAMIC_PROMPT } from '../../../../src/demo/everything/prompts.js';
import { DYNAMIC_TOOL } from '../../../../src/demo/everything/tools.js';
import { rpcError, settle, start, textOf, type Harness } from './support.js';

const SUBSCRIPTION_ID = 'io.modelcontextprotocol/subscriptionId';

describe('everything: discovery', () => {
  let h: Harness;
  before(async () => {
    h = await start();
  });
  after(() => h.close());

  it('server/discover names the server and declares what it serves', async () => {
    const d = await h.request('server/discover');
    assert.deepEqual(d['supportedVersions'], ['2026-07-28']);
    assert.deepEqual(d['capabilities'], {
      tools: { listChanged: true },
      prompts: { listChanged: true },
      resources: { subscribe: true, listChanged: true },
      completions: {},
      logging: {},
      extensions: { 'io.modelcontextprotocol/tasks': {} },
    });
    assert.equal(d['instructions'], EVERYTHING_INSTRUCTIONS);
    assert.deepEqual((d['_meta'] as Record<string, unknown>)['io.modelcontextprotocol/serverInfo'], { name: 'switchboard-everything', version: SWITCHBOARD_VERSION });
    assert.equal(d.resultType, 'complete');
  });

  it('removed stateful methods are -32601', async () => {
    for (const method of ['initialize', 'ping', 'logging/setLevel', 'resources/subscribe', 'resources/unsubscribe', 'no/such/method']) {
      await rpcError(h.request(method, method === 'resources/subscribe' ? { uri: 'test://watched-resource' } : {}), -32601);
    }
  });
});

describe('everything: listen streams', () => {
  let h: Harness;
  before(async () => {
    h = await start();
  });
  after(() => h.close());

  /** Opens a listen stream; returns its subscription id and a function that closes it. */
  async function listen(notifications: Record<string, unknown>): Promise<{ id: unknown; stop: () => Promise<void> }> {
    const controller = new AbortController();
    const pending = h.request('subscriptions/listen', { notifications }, { signal: controller.signal }).catch(() => undefined);
    const ack = await h.waitFor((n) => n.method === 'notifications/subscriptions/acknowledged');
    h.notifications.splice(h.notifications.indexOf(ack), 1);
    const id = (ack.params?.['_meta'] as Record<string, unknown>)[SUBSCRIPTION_ID];
    assert.deepEqual(ack.params?.['notifications'], notifications);
    return {
      id,
      stop: async () => {
        controller.abort();
        await pending;
      },
    };
  }

  it('acknowledges first, then sends tools/list_changed tagged with the subscription id on each trigger', async () => {
    h.notifications.length = 0;
    const sub = await listen({ toolsListChanged: true });
    assert.equal(textOf(await h.call('test_trigger_tool_change')), `Mutation triggered: ${DYNAMIC_TOOL} added`);
    const changed = await h.waitFor((n) => n.method === 'notifications/tools/list_changed');
    assert.equal((changed.params?.['_meta'] as Record<string, unknown>)[SUBSCRIPTION_ID], sub.id);
    const { tools } = (await h.request('tools/list')) as { tools: { name: string }[] };
    assert.equal(tools.at(-1)?.name, DYNAMIC_TOOL);
    assert.equal(textOf(await h.call(DYNAMIC_TOOL)), 'Dynamic tool called');
    assert.equal(textOf(await h.call('test_trigger_tool_change')), `Mutation triggered: ${DYNAMIC_TOOL} removed`);
    await settle();
    assert.equal(h.notifications.filter((n) => n.method === 'notifications/tools/list_changed').length, 2);
    const after = (await h.request('tools/list')) as { tools: { name: string }[] };
    assert.ok(!after.tools.some((t) => t.name === DYNAMIC_TOOL));
    await sub.stop();
  });

  it('filters: a prompts-only stream gets prompts/list_changed and no tools notification', async () => {
    h.notifications.length = 0;
    const sub = await listen({ promptsListChanged: true });
    await h.call('test_trigger_tool_change');
    assert.equal(textOf(await h.call('test_trigger_prompt_change')), `Mutation triggered: ${DYNAMIC_PROMPT} added`);
    const changed = await h.waitFor((n) => n.method === 'notifications/prompts/list_changed');
    assert.equal((changed.params?.['_meta'] as Record<string, unknown>)[SUBSCRIPTION_ID], sub.id);
    await settle();
    assert.equal(h.notifications.filter((n) => n.method === 'notifications/tools/list_changed').length, 0);
    const prompt = (await h.request('prompts/get', { name: DYNAMIC_PROMPT })) as { messages: unknown[] };
    assert.equal(prompt.messages.length, 1);
    await h.call('test_trigger_prompt_change');
    await rpcError(h.request('prompts/get', { name: DYNAMIC_PROMPT }), -32602);
    await h.call('test_trigger_tool_change');
    await sub.stop();
  });

  it('no list_changed reaches a stream after it is closed', async () => {
    const sub = await listen({ toolsListChanged: true });
    await sub.stop();
    h.notifications.length = 0;
    await h.call('test_trigger_tool_change');
    await h.call('test_trigger_tool_change');
    await settle();
    assert.deepEqual(h.notifications, []);
  });
});

describe('everything: watched resource', () => {
  it('sends resources/updated for test://watched-resource on its timer, and the content changes', async () => {
    const h = await start({ watchIntervalMs: 15 });
    try {
      const controller = new AbortController();
      const pending = h.request('subscriptions/listen', { notifications: { resourceSubscriptions: ['test://watched-resource'] } }, { signal: controller.signal }).catch(() => undefined);
      const ack = await h.waitFor((n) => n.method === 'notifications/subscriptions/acknowledged');
      assert.deepEqual(ack.params?.['notifications'], { resourceSubscriptions: ['test://watched-resource'] });
      const updated = await h.waitFor((n) => n.method === 'notifications/resources/updated');
      assert.equal(updated.params?.['uri'], 'test://watched-resource');
      const read = (await h.request('resources/read', { uri: 'test://watched-resource' })) as { contents: { text: string }[] };
      assert.match(read.contents[0]?.text ?? '', /^Watched resource content \(revision [1-9]\d*\)$/);
      controller.abort();
      await pending;
    } finally {
      await h.close();
    }
  });

  it('the timer stops when the server closes', async () => {
    const server = createEverythingServer({ watchIntervalMs: 5 });
    let updates = 0;
    const original = server.notifyResourceUpdated.bind(server);
    server.notifyResourceUpdated = (uri: string) => {
      updates++;
      original(uri);
    };
    await settle(40);
    assert.ok(updates > 0, 'the timer runs while the server is open');
    await server.close();
    const atClose = updates;
    await settle(40);
    assert.equal(updates, atClose);
  });
});
