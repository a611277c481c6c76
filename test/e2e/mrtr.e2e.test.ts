/**
 * MRTR (multi round-trip requests) and the protection of `requestState`, plus the same
 * handler on a stateful 2025-11-25 session, where it must send a real request instead.
 *
 * @module
 */
import assert from 'node:assert/strict';
import { assertError, delay, textOf, verifies, type Peer } from './support.js';

const ELICIT = { elicitation: {} };
const accept = (name: string): Record<string, unknown> => ({ action: 'accept', content: { name } });

/** First round of `tool` with elicitation declared; returns the InputRequiredResult. */
async function firstRound(peer: Peer, tool: string, args: Record<string, unknown> = {}): Promise<Record<string, unknown>> {
  const result = await peer.call('tools/call', { name: tool, arguments: args }, { caps: ELICIT });
  assert.equal(result['resultType'], 'input_required', JSON.stringify(result));
  assert.equal(typeof result['requestState'], 'string');
  return result;
}

verifies(
  'MUST-49',
  async ({ peer }) => {
    const irr = await firstRound(peer, 'ask');
    assert.ok(irr['inputRequests'] !== undefined);
    await peer.call('resources/read', { uri: 'test://gated' }, { caps: ELICIT });
    await delay(50);
    assert.deepEqual(peer.serverRequests, [], 'the server sent a JSON-RPC request');
    for (const m of peer.received) assert.ok(!('method' in m && 'id' in m), `server-initiated request: ${JSON.stringify(m)}`);
  },
  { title: 'on 2026-07-28 the server never sends a JSON-RPC request, even when a handler needs input' },
);

verifies(
  'MUST-50',
  async ({ peer, revision }) => {
    if (revision === '2026-07-28') {
      const irr = await firstRound(peer, 'ask');
      const requests = irr['inputRequests'] as Record<string, { method: string; params: Record<string, unknown> }>;
      assert.equal(requests['user_name']?.method, 'elicitation/create');
      assert.ok(!('jsonrpc' in (requests['user_name'] as object)) && !('id' in (requests['user_name'] as object)), 'embedded, not a JSON-RPC message');
      const done = await peer.call(
        'tools/call',
        { name: 'ask', arguments: {}, inputResponses: { user_name: accept('Ada') }, requestState: irr['requestState'] },
        { caps: ELICIT },
      );
      assert.equal(done['resultType'], 'complete');
      assert.equal(textOf(done), 'Hello Ada');
      assert.deepEqual(peer.serverRequests, []);
    } else {
      // The same handler on a stateful session: a real elicitation/create request, answered by the client.
      const result = await peer.call('tools/call', { name: 'ask', arguments: {} });
      assert.equal(textOf(result), 'Hello Legacy');
      assert.equal(peer.serverRequests.length, 1, 'exactly one server-to-client request');
      const sent = peer.serverRequests[0];
      assert.equal(sent?.method, 'elicitation/create');
      assert.equal((sent?.params as Record<string, unknown>)['message'], 'Your name?');
      assert.ok(!('resultType' in result), 'legacy results carry no resultType');
    }
  },
  { revisions: ['2026-07-28', '2025-11-25'] },
);

verifies('MUST-52', async ({ peer }) => {
  // A completer that asks for input must not turn completion/complete into an InputRequiredResult.
  const reply = await peer.request('completion/complete', { ref: { type: 'ref/prompt', name: 'sneaky' }, argument: { name: 'x', value: '' } }, { caps: ELICIT });
  assert.notEqual(reply.result?.['resultType'], 'input_required', JSON.stringify(reply));
  for (const method of ['tools/list', 'prompts/list', 'resources/list', 'resources/templates/list', 'server/discover']) {
    const result = await peer.call(method, {}, { caps: ELICIT });
    assert.equal(result['resultType'], 'complete', method);
  }
});

verifies('MUST-53', async ({ peer }) => {
  const irr = await firstRound(peer, 'ask_twice');
  const keys = Object.keys(irr['inputRequests'] as object);
  assert.deepEqual(keys, ['first']);
  const second = await peer.call(
    'tools/call',
    { name: 'ask_twice', arguments: {}, inputResponses: { first: accept('A') }, requestState: irr['requestState'] },
    { caps: ELICIT },
  );
  assert.equal(second['resultType'], 'input_required');
  assert.deepEqual(Object.keys(second['inputRequests'] as object), ['second'], 'the next round asks only what is still missing');
  const done = await peer.call(
    'tools/call',
    { name: 'ask_twice', arguments: {}, inputResponses: { second: accept('B') }, requestState: second['requestState'] },
    { caps: ELICIT },
  );
  assert.equal(textOf(done), 'A+B', 'the first answer was carried in requestState');
});

verifies('MUST-54', async ({ peer }) => {
  for (const [method, params] of [
    ['tools/call', { name: 'ask' }],
    ['resources/read', { uri: 'test://gated' }],
  ] as const) {
    const result = await peer.call(method, params, { caps: ELICIT });
    for (const request of Object.values(result['inputRequests'] as Record<string, { method: string; params: unknown }>)) {
      assert.ok(['elicitation/create', 'sampling/createMessage', 'roots/list'].includes(request.method), request.method);
      assert.equal(typeof request.params, 'object');
    }
  }
});

verifies('MUST-55', async ({ peer }) => {
  for (const requestState of ['', 'garbage', 'sb1.', 'sb1.AAAA', 'x'.repeat(5000), 'sb1.' + 'A'.repeat(200)]) {
    const reply = await peer.request('tools/call', { name: 'ask', arguments: {}, inputResponses: { user_name: accept('Eve') }, requestState }, { caps: ELICIT });
    assertError(reply, -32602);
  }
  const wrongType = await peer.request('tools/call', { name: 'ask', arguments: {}, requestState: { forged: true } }, { caps: ELICIT });
  assertError(wrongType, -32602);
});

verifies(
  'MUST-56',
  async ({ peer }) => {
    // The state of one call, replayed on a call with other arguments: bound to the original request.
    const irr = await firstRound(peer, 'ask_twice', { order: 'one' });
    const other = await peer.request(
      'tools/call',
      { name: 'ask_twice', arguments: { order: 'two' }, inputResponses: { first: accept('A') }, requestState: irr['requestState'] },
      { caps: ELICIT },
    );
    assertError(other, -32602);
    // ... and on another tool.
    const otherTool = await peer.request('tools/call', { name: 'ask', arguments: {}, inputResponses: {}, requestState: irr['requestState'] }, { caps: ELICIT });
    assertError(otherTool, -32602);
    // ... and on another method.
    const otherMethod = await peer.request('resources/read', { uri: 'test://gated', requestState: irr['requestState'] }, { caps: ELICIT });
    assertError(otherMethod, -32602);
  },
  { title: 'requestState is bound to its originating request: other params, tool or method are rejected' },
);

verifies(
  'MUST-57',
  async ({ peer, connect, transport }) => {
    // Tampered: flip one character in the middle.
    const irr = await firstRound(peer, 'ask');
    const state = irr['requestState'] as string;
    const at = Math.floor(state.length / 2);
    const tampered = state.slice(0, at) + (state[at] === 'A' ? 'B' : 'A') + state.slice(at + 1);
    const reply = await peer.request('tools/call', { name: 'ask', arguments: {}, inputResponses: { user_name: accept('Eve') }, requestState: tampered }, { caps: ELICIT });
    const error = assertError(reply, -32602);
    assert.match(error.message, /requestState/);
    if (transport === 'stdio') return;
    // Cross-principal: alice's state presented by mallory.
    const alice = await connect({ principal: 'alice' });
    const mallory = await connect({ principal: 'mallory' });
    const own = await firstRound(alice, 'ask');
    const stolen = await mallory.request('tools/call', { name: 'ask', arguments: {}, inputResponses: { user_name: accept('M') }, requestState: own['requestState'] }, { caps: ELICIT });
    assertError(stolen, -32602);
    // The rightful owner still succeeds.
    const done = await alice.call('tools/call', { name: 'ask', arguments: {}, inputResponses: { user_name: accept('Alice') }, requestState: own['requestState'] }, { caps: ELICIT });
    assert.equal(textOf(done), 'Hello Alice');
  },
  { title: 'tampered and cross-principal requestState are rejected with -32602' },
);

verifies(
  'MUST-57',
  async ({ peer }) => {
    const irr = await firstRound(peer, 'ask');
    await delay(400);
    const reply = await peer.request('tools/call', { name: 'ask', arguments: {}, inputResponses: { user_name: accept('Late') }, requestState: irr['requestState'] }, { caps: ELICIT });
    const error = assertError(reply, -32602);
    assert.match(error.message, /expired|requestState/);
  },
  { title: 'an expired requestState (ttlMs 200) is rejected with -32602', server: { stateTtlMs: 200 } },
);

verifies('MUST-58', async ({ peer }) => {
  const irr = await firstRound(peer, 'ask_once');
  const params = { name: 'ask_once', arguments: {}, inputResponses: { confirm: accept('Bob') }, requestState: irr['requestState'] };
  const first = await peer.call('tools/call', params, { caps: ELICIT });
  assert.equal(textOf(first), 'redeemed by Bob');
  const replay = await peer.request('tools/call', params, { caps: ELICIT });
  const error = assertError(replay, -32602);
  assert.match(error.message, /replayed|requestState/);
  // Concurrent replays of a fresh single-use state: at most one wins.
  const irr2 = await firstRound(peer, 'ask_once');
  const again = { ...params, requestState: irr2['requestState'] };
  const replies = await Promise.all(Array.from({ length: 5 }, () => peer.request('tools/call', again, { caps: ELICIT })));
  assert.equal(replies.filter((r) => r.result !== undefined).length, 1, 'exactly one redemption');
});

verifies('MUST-59', async ({ peer }) => {
  for (const [method, params] of [
    ['tools/call', { name: 'ask' }],
    ['tools/call', { name: 'ask_twice' }],
    ['resources/read', { uri: 'test://gated' }],
  ] as const) {
    const result = await peer.call(method, params, { caps: ELICIT });
    assert.equal(result['resultType'], 'input_required');
    assert.ok(result['inputRequests'] !== undefined || result['requestState'] !== undefined);
    assert.ok(!('ttlMs' in result) && !('cacheScope' in result), 'an InputRequiredResult carries no cache hints');
  }
});

verifies('MUST-60', async ({ peer }) => {
  assertError(await peer.request('tools/call', { name: 'ask' }, { caps: {} }), -32021);
  assertError(await peer.request('tools/call', { name: 'ask' }, { caps: { sampling: {}, roots: {} } }), -32021);
  // `elicitation: { url: {} }` declares URL mode only: a form request must not be sent.
  assertError(await peer.request('tools/call', { name: 'ask' }, { caps: { elicitation: { url: {} } } }), -32021);
});
