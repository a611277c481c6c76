/**
 * Base protocol, versioning and error MUSTs, over every transport.
 *
 * @module
 */
import assert from 'node:assert/strict';
import { assertError, CLIENT_CAPABILITIES, PROTOCOL_VERSION, SECRET, textOf, verifies, type Reply } from './support.js';

verifies('MUST-2', async ({ peer }) => {
  await peer.call('server/discover');
  await peer.call('tools/call', { name: 'progress', arguments: { steps: 2 }, _meta: { progressToken: 'p' } });
  await peer.request('no/such/method');
  assert.ok(peer.received.length >= 3);
  for (const message of peer.received) assert.equal(message['jsonrpc'], '2.0', JSON.stringify(message));
  assert.equal(peer.invalidFrames, 0);
});

verifies('MUST-6', async ({ peer }) => {
  for (const id of [7, 'abc', '7', 0, -3, 'id with spaces']) {
    const reply = await peer.request('server/discover', {}, { id });
    assert.strictEqual(reply.id, id, `id ${JSON.stringify(id)} came back as ${JSON.stringify(reply.id)}`);
  }
  // Many in flight at once, answered out of order: each response matches its own request.
  const replies = await Promise.all(
    Array.from({ length: 25 }, (_, i) => peer.request('tools/call', { name: 'echo', arguments: { text: `t${i}` } }, { id: `req-${i}` })),
  );
  replies.forEach((reply, i) => {
    assert.equal(reply.id, `req-${i}`);
    assert.equal(textOf(reply.result), `t${i}`);
  });
});

verifies('MUST-7', async ({ peer }) => {
  const reply = await peer.request('tools/list');
  assert.ok(reply.message !== undefined && 'result' in reply.message, 'a success response has `result`');
  assert.ok(!('error' in reply.message), 'and no `error`');
});

verifies('MUST-8', async ({ peer }) => {
  const calls: [string, Record<string, unknown>, Record<string, unknown>?][] = [
    ['server/discover', {}],
    ['tools/list', {}],
    ['prompts/list', {}],
    ['resources/list', {}],
    ['resources/templates/list', {}],
    ['resources/read', { uri: 'test://static' }],
    ['tools/call', { name: 'echo', arguments: { text: 'x' } }],
    ['tools/call', { name: 'tool_error' }],
    ['tools/call', { name: 'ask' }, { elicitation: {} }],
    ['prompts/get', { name: 'greet', arguments: { name: 'Ada' } }],
    ['completion/complete', { ref: { type: 'ref/prompt', name: 'greet' }, argument: { name: 'name', value: 'a' } }],
  ];
  for (const [method, params, caps] of calls) {
    const result = await peer.call(method, params, caps !== undefined ? { caps } : {});
    assert.ok(['complete', 'input_required'].includes(result['resultType'] as string), `${method}: resultType ${JSON.stringify(result['resultType'])}`);
  }
});

verifies('MUST-12', async ({ peer }) => {
  for (const id of [41, 'err-id']) {
    const unknown = await peer.request('no/such/method', {}, { id });
    assert.ok(unknown.error !== undefined);
    assert.strictEqual(unknown.id, id);
    const invalid = await peer.request('tools/call', { name: 42 }, { id });
    assert.ok(invalid.error !== undefined);
    assert.strictEqual(invalid.id, id);
  }
});

function checkErrorShape(reply: Reply): void {
  assert.ok(reply.error !== undefined, JSON.stringify(reply));
  assert.equal(typeof reply.error.message, 'string');
  assert.ok(reply.error.message.length > 0);
  assert.ok(Number.isInteger(reply.error.code), `integer code, got ${JSON.stringify(reply.error.code)}`);
}

verifies('MUST-13', async ({ peer }) => {
  checkErrorShape(await peer.request('no/such/method'));
  checkErrorShape(await peer.request('tools/call', { name: 'nope' }));
  checkErrorShape(await peer.request('tools/call', { name: 'boom' }));
  checkErrorShape(await peer.request('server/discover', {}, { meta: false }));
});

verifies('MUST-14', async ({ peer }) => {
  const replies = [
    await peer.request('no/such/method'),
    await peer.request('resources/read', { uri: 'test://missing' }),
    await peer.request('tools/call', { name: 'ask' }),
    await peer.request('server/discover', { _meta: { [PROTOCOL_VERSION]: '1999-01-01', [CLIENT_CAPABILITIES]: {} } }),
  ];
  for (const reply of replies) checkErrorShape(reply);
});

verifies('MUST-18', async ({ peer }) => {
  const missing = await peer.request('resources/read', { uri: 'test://missing' });
  assert.notEqual(missing.error?.code, -32002);
  const url = await peer.request('tools/call', { name: 'ask' }, { caps: { elicitation: { form: {} } } });
  assert.notEqual(url.error?.code, -32042);
  for (const m of peer.received) {
    const code = (m['error'] as { code?: number } | undefined)?.code;
    assert.ok(code !== -32002 && code !== -32042, `retired code in ${JSON.stringify(m)}`);
  }
});

verifies('MUST-19', async ({ peer, transport }) => {
  const before = peer.received.length;
  const sent = await peer.notify('notifications/cancelled', { requestId: 999, reason: 'nothing' });
  await peer.notify('notifications/unknown-thing', { _meta: peer.meta() });
  if (transport === 'http') assert.equal(sent.body, '', 'no body for a notification');
  // A request after the notifications: its answer must be the only thing that came back.
  const reply = await peer.request('server/discover', {}, { id: 'after' });
  assert.equal(reply.id, 'after');
  const got = peer.received.slice(before);
  assert.deepEqual(
    got.map((m) => m['id']),
    ['after'],
    `only the request was answered: ${JSON.stringify(got)}`,
  );
});

verifies('MUST-20', async ({ peer }) => {
  await peer.call('tools/call', { name: 'progress', arguments: { steps: 3 }, _meta: { progressToken: 5, [`io.modelcontextprotocol/logLevel`]: 'debug' } });
  await peer.call('tools/call', { name: 'log', _meta: { 'io.modelcontextprotocol/logLevel': 'debug' } });
  assert.ok(peer.notifications.length >= 3, 'some notifications were sent');
  for (const n of peer.notifications) assert.ok(!('id' in n), `notification with an id: ${JSON.stringify(n)}`);
});

verifies(
  'MUST-21',
  async ({ peer }) => {
    const init = await peer.request('initialize', { protocolVersion: '2026-07-28', capabilities: {}, clientInfo: { name: 'x', version: '1' } });
    assertError(init, -32601, 404);
    assertError(await peer.request('ping'), -32601, 404);
    assertError(await peer.request('logging/setLevel', { level: 'debug' }), -32601, 404);
    assertError(await peer.request('resources/subscribe', { uri: 'test://static' }), -32601, 404);
    assertError(await peer.request('resources/unsubscribe', { uri: 'test://static' }), -32601, 404);
    // No session appeared: a request without logLevel still gets no log notifications.
    const before = peer.notifications.length;
    await peer.call('tools/call', { name: 'log' });
    assert.equal(peer.notifications.length, before, 'logging/setLevel must not have changed anything');
  },
  { title: 'no session state: removed methods are -32601 (HTTP 404) and change nothing' },
);

verifies('MUST-24', async ({ peer }) => {
  // `prefixItems` only exists in 2020-12; without `$schema` it must be enforced.
  const ok = await peer.call('tools/call', { name: 'pair', arguments: { pair: ['a', 1] } });
  assert.notEqual(ok['isError'], true, JSON.stringify(ok));
  const bad = await peer.call('tools/call', { name: 'pair', arguments: { pair: [1, 'a'] } });
  assert.equal(bad['isError'], true, `prefixItems ignored: ${JSON.stringify(bad)}`);
  const extra = await peer.call('tools/call', { name: 'pair', arguments: { pair: ['a', 1, 'extra'] } });
  assert.equal(extra['isError'], true, `items:false after prefixItems ignored: ${JSON.stringify(extra)}`);
});

verifies('MUST-25', async ({ peer }) => {
  const draft7 = await peer.call('tools/call', {
    name: 'try_register',
    arguments: { schema: { $schema: 'http://json-schema.org/draft-07/schema#', type: 'object', properties: { a: { type: 'string' } } } },
  });
  assert.deepEqual(draft7['structuredContent'], { ok: true });
  const bad = await peer.call('tools/call', { name: 'echo', arguments: { text: 5 } });
  assert.equal(bad['isError'], true);
});

verifies('MUST-26', async ({ peer }) => {
  const result = await peer.call('tools/call', {
    name: 'try_register',
    arguments: { schema: { $schema: 'http://json-schema.org/draft-03/schema#', type: 'object' } },
  });
  const outcome = result['structuredContent'] as { ok: boolean; message?: string };
  assert.equal(outcome.ok, false);
  assert.match(outcome.message ?? '', /draft-03/);
  assert.match(outcome.message ?? '', /not supported|unsupported/i);
});

verifies('MUST-35', async ({ peer, transport }) => {
  const status = transport === 'http' ? 400 : undefined;
  const none = assertError(await peer.request('tools/list', {}, { meta: false, headers: { 'mcp-protocol-version': '2026-07-28' } }), -32602, status);
  assert.match(none.message, /_meta|protocolVersion/);
  const noCaps = assertError(await peer.request('tools/list', { _meta: { [PROTOCOL_VERSION]: '2026-07-28' } }, { meta: false }), -32602, status);
  assert.match(noCaps.message, /clientCapabilities/, `the message names the missing field: ${noCaps.message}`);
});

verifies('MUST-36', async ({ peer }) => {
  const reply = await peer.request('tools/list', { _meta: { [PROTOCOL_VERSION]: '2026-07-28' } }, { meta: false });
  assertError(reply, -32602);
  assert.equal(reply.status, 400);
});

verifies('MUST-37', async ({ peer }) => {
  // The first request declares elicitation; the second does not and must not inherit it.
  const first = await peer.call('tools/call', { name: 'ask' }, { caps: { elicitation: {} } });
  assert.equal(first['resultType'], 'input_required');
  const second = await peer.request('tools/call', { name: 'ask' }, { caps: {} });
  assertError(second, -32021, peer.transport === 'http' ? 400 : undefined);
});

verifies('MUST-38', async ({ peer }) => {
  const error = assertError(await peer.request('tools/call', { name: 'ask' }), -32021);
  const data = error.data as { requiredCapabilities?: Record<string, unknown> } | undefined;
  assert.ok(data?.requiredCapabilities?.['elicitation'] !== undefined, `data.requiredCapabilities names elicitation: ${JSON.stringify(error)}`);
  const url = assertError(await peer.request('resources/read', { uri: 'test://gated' }), -32021);
  assert.ok((url.data as { requiredCapabilities?: unknown }).requiredCapabilities !== undefined);
});

verifies('MUST-39', async ({ peer }) => {
  const reply = await peer.request('tools/call', { name: 'ask' });
  assertError(reply, -32021, 400);
  assert.equal(reply.status, 400);
});

verifies('MUST-45', async ({ peer, transport }) => {
  for (const requested of ['1999-01-01', '2025-06-18', 'latest']) {
    const reply = await peer.request('server/discover', { _meta: { [PROTOCOL_VERSION]: requested, [CLIENT_CAPABILITIES]: {} } }, { meta: false });
    const error = assertError(reply, -32022, transport === 'http' ? 400 : undefined);
    const data = error.data as { supported?: unknown; requested?: unknown };
    assert.ok(Array.isArray(data.supported) && data.supported.includes('2026-07-28'), JSON.stringify(error));
    assert.equal(data.requested, requested);
  }
});

verifies('MUST-46', async ({ peer }) => {
  const result = await peer.call('server/discover');
  assert.ok(Array.isArray(result['supportedVersions']));
  assert.ok((result['supportedVersions'] as string[]).includes('2026-07-28'));
  assert.equal(typeof result['capabilities'], 'object');
  assert.equal(result['instructions'], 'end-to-end fixture');
  const info = (result['_meta'] as Record<string, unknown> | undefined)?.['io.modelcontextprotocol/serverInfo'] as Record<string, unknown> | undefined;
  assert.equal(info?.['name'], 'e2e-fixture');
});

verifies('MUST-84', async ({ peer }) => {
  const text = 'héllo wörld — 日本語 — 🚀 — \u0000 — \u2028';
  const result = await peer.call('tools/call', { name: 'echo', arguments: { text } });
  assert.equal(textOf(result), text);
  const named = await peer.call('prompts/get', { name: 'greet', arguments: { name: 'Zoë 🌍' } });
  assert.match(JSON.stringify(named['messages']), /Zoë 🌍/);
});

verifies('MUST-85', async ({ peer, connect, transport }) => {
  const clients = transport === 'stdio' ? [peer] : [peer, ...(await Promise.all(Array.from({ length: transport === 'http' ? 49 : 19 }, () => connect())))];
  const perClient = transport === 'stdio' ? 40 : 5;
  await Promise.all(
    clients.map(async (client, c) => {
      const replies = await Promise.all(
        Array.from({ length: perClient }, (_, i) => {
          const nonce = `client-${c}-req-${i}-${Math.random().toString(36).slice(2)}`;
          return client.request('tools/call', { name: 'echo', arguments: { text: nonce, nonce } }, { id: i }).then((r) => ({ r, nonce }));
        }),
      );
      for (const { r, nonce } of replies) {
        assert.equal(textOf(r.result), nonce, `client ${c} got someone else's answer`);
        assert.deepEqual((r.result?.['structuredContent'] as Record<string, unknown>)['nonce'], nonce);
      }
    }),
  );
});

verifies('MUST-244', async ({ peer }) => {
  const error = assertError(await peer.request('tools/call', { name: 'boom' }), -32603);
  const wire = JSON.stringify(peer.received.at(-1));
  assert.ok(!wire.includes(SECRET), `secret leaked: ${wire}`);
  assert.ok(!/\/srv\/app|db\.ts|at .*\(|password/.test(wire), `internals leaked: ${wire}`);
  assert.ok(error.message.length < 100, 'a generic message');
});
