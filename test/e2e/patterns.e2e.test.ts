/**
 * Message patterns: subscriptions (`subscriptions/listen`), cancellation races, progress and
 * request-scoped logging.
 *
 * @module
 */
import assert from 'node:assert/strict';
import type { JsonRpcNotification } from '../../src/jsonrpc/messages.js';
import { assertError, delay, LOG_LEVEL, subscriptionIdOf, verifies, type Peer, type Reply } from './support.js';

interface Listening {
  readonly id: string;
  readonly done: Promise<Reply>;
  readonly stop: () => void;
  /** Notifications tagged with this subscription, in order. */
  tagged(): JsonRpcNotification[];
}

function listen(peer: Peer, filter: Record<string, unknown>, id = 'listen-1'): Listening {
  const controller = new AbortController();
  const done = peer.request('subscriptions/listen', { notifications: filter }, { id, signal: controller.signal });
  done.catch(() => undefined);
  return { id, done, stop: () => controller.abort(), tagged: () => peer.notifications.filter((n) => subscriptionIdOf(n) === id) };
}

const isAck = (id: string) => (n: JsonRpcNotification) => n.method === 'notifications/subscriptions/acknowledged' && subscriptionIdOf(n) === id;

verifies('MUST-40', async ({ peer }) => {
  const sub = listen(peer, { toolsListChanged: true, promptsListChanged: true, resourcesListChanged: true, resourceSubscriptions: ['test://static'] });
  await peer.waitFor(isAck(sub.id));
  await peer.call('tools/call', { name: 'mutate', arguments: { action: 'addTool', name: 'late_tool' } });
  await peer.call('tools/call', { name: 'mutate', arguments: { action: 'addPrompt', name: 'late_prompt' } });
  await peer.call('tools/call', { name: 'mutate', arguments: { action: 'addResource', uri: 'test://late' } });
  await peer.call('tools/call', { name: 'mutate', arguments: { action: 'updateResource', uri: 'test://static' } });
  await peer.waitFor((n) => n.method === 'notifications/resources/updated');
  const onStream = peer.notifications.filter((n) => n.method.startsWith('notifications/') && n.method !== 'notifications/progress' && n.method !== 'notifications/message');
  assert.ok(onStream.length >= 5, JSON.stringify(onStream));
  for (const n of onStream) assert.equal(subscriptionIdOf(n), sub.id, `untagged: ${JSON.stringify(n)}`);
  sub.stop();
});

verifies('MUST-67', async ({ peer }) => {
  const sub = listen(peer, { toolsListChanged: true, resourceSubscriptions: ['test://items/1'] });
  await peer.waitFor(isAck(sub.id));
  await peer.call('tools/call', { name: 'mutate', arguments: { action: 'addPrompt', name: 'p2' } });
  await peer.call('tools/call', { name: 'mutate', arguments: { action: 'addResource', uri: 'test://new' } });
  await peer.call('tools/call', { name: 'mutate', arguments: { action: 'updateResource', uri: 'test://static' } });
  await peer.call('tools/call', { name: 'mutate', arguments: { action: 'updateResource', uri: 'test://items/1' } });
  await peer.call('tools/call', { name: 'mutate', arguments: { action: 'addTool', name: 't2' } });
  await peer.waitFor((n) => n.method === 'notifications/tools/list_changed');
  await delay(50);
  const methods = sub.tagged().map((n) => n.method);
  assert.deepEqual(methods, ['notifications/subscriptions/acknowledged', 'notifications/resources/updated', 'notifications/tools/list_changed']);
  const updated = sub.tagged().find((n) => n.method === 'notifications/resources/updated');
  assert.equal(updated?.params?.['uri'], 'test://items/1', 'resources/updated only for the subscribed URI');
  sub.stop();
});

verifies('MUST-68', async ({ peer }) => {
  const sub = listen(peer, { toolsListChanged: true, promptsListChanged: true, tasksSomething: true, resourceSubscriptions: ['test://static'] });
  const ack = await peer.waitFor(isAck(sub.id));
  assert.equal(sub.tagged()[0], ack, 'the ack is the first message of the subscription');
  const granted = ack.params?.['notifications'] as Record<string, unknown>;
  assert.equal(granted['toolsListChanged'], true);
  assert.equal(granted['promptsListChanged'], true);
  assert.deepEqual(granted['resourceSubscriptions'], ['test://static']);
  assert.ok(!('resourcesListChanged' in granted), 'not requested, not granted');
  assert.ok(!('tasksSomething' in granted), 'unknown types are omitted from the ack');
  sub.stop();
});

verifies('MUST-69', async ({ peer }) => {
  // Changes racing the listen request: whatever arrives, the ack comes first.
  for (let round = 0; round < 5; round++) {
    const id = `race-${round}`;
    const churn = Array.from({ length: 5 }, (_, i) => peer.request('tools/call', { name: 'mutate', arguments: { action: 'addTool', name: `race_${round}_${i}` } }));
    const sub = listen(peer, { toolsListChanged: true }, id);
    await Promise.all(churn);
    await peer.waitFor(isAck(id));
    await peer.call('tools/call', { name: 'mutate', arguments: { action: 'addTool', name: `after_${round}` } });
    await peer.waitFor((n) => n.method === 'notifications/tools/list_changed' && subscriptionIdOf(n) === id);
    assert.equal(sub.tagged()[0]?.method, 'notifications/subscriptions/acknowledged', `round ${round}: ${JSON.stringify(sub.tagged().map((n) => n.method))}`);
    sub.stop();
  }
});

verifies(
  'MUST-329',
  async ({ peer }) => {
    const sub = listen(peer, { toolsListChanged: true }, 'graceful');
    await peer.waitFor(isAck(sub.id));
    await peer.call('tools/call', { name: 'mutate', arguments: { action: 'teardown' } });
    const reply = await sub.done;
    assert.equal(reply.error, undefined, JSON.stringify(reply));
    assert.equal(reply.id, 'graceful');
    assert.equal(reply.result?.['resultType'], 'complete');
    assert.equal((reply.result?.['_meta'] as Record<string, unknown> | undefined)?.['io.modelcontextprotocol/subscriptionId'], 'graceful');
  },
  { title: 'server teardown (McpServer.close) ends an open listen stream with a graceful result carrying _meta.subscriptionId' },
);

verifies('MUST-73', async ({ peer, transport }) => {
  const controller = new AbortController();
  const slow = peer.request('tools/call', { name: 'slow', arguments: { ms: 2000, key: 'c1' } }, { signal: controller.signal });
  slow.catch(() => undefined);
  await delay(100);
  controller.abort();
  await peer.request('tools/call', { name: 'boom' });
  await peer.request('tools/call', { name: 'nope' });
  await peer.request('no/such/method');
  await delay(100);
  const cancels = peer.notifications.filter((n) => n.method === 'notifications/cancelled');
  assert.deepEqual(cancels, [], `${transport}: the server sent notifications/cancelled outside a listen teardown`);
});

verifies('MUST-78', async ({ peer, transport }) => {
  // Late cancel (already answered), unknown id, duplicate cancels, and aborts at random moments.
  const done = await peer.request('tools/call', { name: 'echo', arguments: { text: 'x' } }, { id: 'finished' });
  assert.ok(done.result !== undefined);
  if (transport !== 'http') {
    await peer.notify('notifications/cancelled', { requestId: 'finished' });
    await peer.notify('notifications/cancelled', { requestId: 'never-sent' });
    await peer.notify('notifications/cancelled', { requestId: { not: 'an id' } });
  }
  for (let i = 0; i < 10; i++) {
    const controller = new AbortController();
    const r = peer.request('tools/call', { name: 'slow', arguments: { ms: 60, key: `race-${i}` } }, { signal: controller.signal });
    r.catch(() => undefined);
    await delay(i * 12);
    controller.abort();
    if (transport !== 'http') await peer.notify('notifications/cancelled', { requestId: `dup-${i}` });
  }
  await delay(150);
  const after = await peer.request('server/discover', {}, { id: 'still-alive' });
  assert.equal(after.id, 'still-alive');
  assert.ok(after.result !== undefined, 'the server keeps serving');
});

function progressOf(notifications: readonly JsonRpcNotification[], token: unknown): number[] {
  return notifications.filter((n) => n.method === 'notifications/progress' && n.params?.['progressToken'] === token).map((n) => n.params?.['progress'] as number);
}

verifies('MUST-81', async ({ peer }) => {
  const reply = await peer.request('tools/call', { name: 'progress', arguments: { steps: 5 }, _meta: { progressToken: 'inc' } });
  assert.ok(reply.result !== undefined);
  const values = progressOf(peer.notifications, 'inc');
  assert.deepEqual(values, [1, 2, 3, 4, 5], 'strictly increasing (the backwards step was dropped)');
});

verifies('MUST-82', async ({ peer }) => {
  await peer.call('tools/call', { name: 'progress', arguments: { steps: 3 } });
  assert.deepEqual(peer.notifications.filter((n) => n.method === 'notifications/progress'), [], 'no token, no progress');
  await peer.call('tools/call', { name: 'progress', arguments: { steps: 2 }, _meta: { progressToken: 77 } });
  const progress = peer.notifications.filter((n) => n.method === 'notifications/progress');
  assert.ok(progress.length > 0);
  for (const n of progress) assert.strictEqual(n.params?.['progressToken'], 77, 'the token, type preserved');
});

verifies('MUST-83', async ({ peer }) => {
  await peer.call('tools/call', { name: 'progress', arguments: { steps: 3 }, _meta: { progressToken: 'late' } });
  const atResponse = progressOf(peer.notifications, 'late').length;
  await delay(150); // the handler tries once more, 30 ms after it returned
  const values = progressOf(peer.notifications, 'late');
  assert.equal(values.length, atResponse, `progress after the response: ${JSON.stringify(values)}`);
  assert.ok(!values.includes(13));
});

verifies('MUST-272', async ({ peer }) => {
  const discover = await peer.call('server/discover');
  assert.ok((discover['capabilities'] as Record<string, unknown>)['logging'] !== undefined, 'logging declared');
  await peer.call('tools/call', { name: 'log', _meta: { [LOG_LEVEL]: 'debug' } });
  assert.ok(peer.notifications.some((n) => n.method === 'notifications/message'));
});

verifies('MUST-273', async ({ peer }) => {
  const plain = await peer.request('tools/call', { name: 'log' });
  assert.equal(plain.result?.['isError'], undefined);
  await delay(30);
  assert.deepEqual(peer.notifications.filter((n) => n.method === 'notifications/message'), [], 'no logLevel, no log notifications');
  await peer.call('tools/call', { name: 'log', _meta: { [LOG_LEVEL]: 'warning' } });
  const levels = peer.notifications.filter((n) => n.method === 'notifications/message').map((n) => n.params?.['level']);
  assert.deepEqual(levels, ['warning', 'error'], 'only at or above the requested level');
  assertError(await peer.request('tools/call', { name: 'log', _meta: { [LOG_LEVEL]: 'loud' } }), -32602);
});

verifies('MUST-274', async ({ peer, transport }) => {
  const sub = listen(peer, { toolsListChanged: true, resourcesListChanged: true });
  await peer.waitFor(isAck(sub.id));
  const reply = await peer.request('tools/call', { name: 'log', _meta: { [LOG_LEVEL]: 'debug' } });
  const logs = peer.notifications.filter((n) => n.method === 'notifications/message');
  assert.equal(logs.length, 4);
  for (const n of logs) assert.equal(subscriptionIdOf(n), undefined, 'a log message on the listen stream');
  if (transport === 'http') {
    assert.equal(reply.notifications.filter((n) => n.method === 'notifications/message').length, 4, 'on the request own SSE stream');
  }
  sub.stop();
  await delay(50);
  if (transport === 'http') {
    const listenReply = await sub.done.catch(() => undefined);
    assert.ok(listenReply === undefined || listenReply.notifications.every((n) => n.method !== 'notifications/message'));
  }
});
