/**
 * stdio MUSTs: framing, a clean stdout, no server requests, and cancellation by
 * `notifications/cancelled`.
 *
 * @module
 */
import assert from 'node:assert/strict';
import { delay, textOf, verifies } from './support.js';

verifies('MUST-87', async ({ peer }) => {
  const text = 'line one\nline two\r\nline three\u2028\u2029end';
  const before = peer.received.length;
  const result = await peer.call('tools/call', { name: 'echo', arguments: { text } });
  assert.equal(textOf(result), text);
  assert.equal(peer.received.length, before + 1, 'exactly one frame for one response');
  assert.equal(peer.invalidFrames, 0);
});

verifies('MUST-88', async ({ peer }) => {
  await peer.call('server/discover');
  await peer.request('tools/call', { name: 'boom' });
  await peer.call('tools/call', { name: 'log', _meta: { 'io.modelcontextprotocol/logLevel': 'debug' } });
  await peer.call('tools/call', { name: 'progress', arguments: { steps: 3 }, _meta: { progressToken: 1 } });
  await peer.request('no/such/method');
  await delay(100);
  assert.equal(peer.invalidFrames, 0, 'something that is not a JSON-RPC message reached stdout');
  for (const m of peer.received) assert.equal(m['jsonrpc'], '2.0');
});

verifies('MUST-91', async ({ peer }) => {
  await peer.call('tools/call', { name: 'ask' }, { caps: { elicitation: {} } });
  await peer.call('resources/read', { uri: 'test://gated' }, { caps: { elicitation: {} } });
  await delay(50);
  assert.deepEqual(peer.serverRequests, []);
});

verifies('MUST-92', async ({ peer }) => {
  const controller = new AbortController();
  const pending = peer.request('tools/call', { name: 'slow', arguments: { ms: 600, key: 'cancelled' }, _meta: { progressToken: 'cp' } }, { id: 'to-cancel', signal: controller.signal });
  pending.catch(() => undefined);
  await peer.waitFor((n) => n.method === 'notifications/progress' && n.params?.['progressToken'] === 'cp');
  controller.abort();
  const progressAtCancel = peer.notifications.filter((n) => n.params?.['progressToken'] === 'cp').length;
  await delay(900);
  assert.deepEqual(peer.lateResponses, [], 'a response was sent for a cancelled request');
  // At most one progress notification may already have been in flight when the cancel arrived.
  const progressAfter = peer.notifications.filter((n) => n.params?.['progressToken'] === 'cp').length;
  assert.ok(progressAfter - progressAtCancel <= 1, `progress went on after cancel: ${progressAfter - progressAtCancel}`);
  const seen = (await peer.call('tools/call', { name: 'probe' }))['structuredContent'] as { aborted: string[]; finished: string[] };
  assert.deepEqual(seen.aborted, ['cancelled'], 'the handler signal aborted');
  assert.deepEqual(seen.finished, []);
});
