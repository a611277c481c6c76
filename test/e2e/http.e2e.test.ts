/**
 * Streamable HTTP server MUSTs: endpoint, Origin, statuses, header/body agreement, SSE and
 * cancellation by disconnect.
 *
 * @module
 */
import assert from 'node:assert/strict';
import { assertError, CLIENT_CAPABILITIES, delay, PROTOCOL_VERSION, verifies, type E2EContext } from './support.js';

const META = { [PROTOCOL_VERSION]: '2026-07-28', [CLIENT_CAPABILITIES]: {} };

function http(ctx: E2EContext): NonNullable<E2EContext['http']> {
  assert.ok(ctx.http !== undefined, 'an HTTP world');
  return ctx.http;
}

function post(ctx: E2EContext, body: unknown, headers: Record<string, string> = {}): Promise<Response> {
  const message = body as { method?: string };
  return http(ctx).raw({
    method: 'POST',
    headers: {
      'content-type': 'application/json',
      accept: 'application/json, text/event-stream',
      'mcp-protocol-version': '2026-07-28',
      ...(message.method !== undefined ? { 'mcp-method': message.method } : {}),
      ...headers,
    },
    body: typeof body === 'string' ? body : JSON.stringify(body),
  });
}

async function probe(ctx: E2EContext): Promise<{ aborted: string[]; finished: string[] }> {
  return (await ctx.peer.call('tools/call', { name: 'probe' }))['structuredContent'] as { aborted: string[]; finished: string[] };
}

verifies('MUST-94', async (ctx) => {
  for (const method of ['GET', 'DELETE', 'PUT']) {
    const response = await http(ctx).raw({ method, headers: { accept: 'text/event-stream' } });
    assert.equal(response.status, 405, method);
    assert.match(response.headers.get('allow') ?? '', /POST/);
    await response.body?.cancel();
  }
  const ok = await post(ctx, { jsonrpc: '2.0', id: 1, method: 'server/discover', params: { _meta: META } });
  assert.equal(ok.status, 200);
  await ok.body?.cancel();
});

verifies('MUST-95', async (ctx) => {
  // Allowed: same-host origins. Refused: everything else, including `null`.
  const good = await post(ctx, { jsonrpc: '2.0', id: 1, method: 'server/discover', params: { _meta: META } }, { origin: 'http://localhost:5173' });
  assert.equal(good.status, 200);
  await good.body?.cancel();
  for (const origin of ['null', 'http://localhost.evil.example', 'http://127.0.0.1.nip.io', 'file://']) {
    const bad = await post(ctx, { jsonrpc: '2.0', id: 1, method: 'server/discover', params: { _meta: META } }, { origin });
    assert.equal(bad.status, 403, origin);
    await bad.body?.cancel();
  }
  // Notifications are checked too.
  const note = await post(ctx, { jsonrpc: '2.0', method: 'notifications/cancelled', params: { requestId: 1 } }, { origin: 'https://evil.example' });
  assert.equal(note.status, 403);
  await note.body?.cancel();
});

verifies('MUST-96', async (ctx) => {
  const response = await post(
    ctx,
    { jsonrpc: '2.0', id: 1, method: 'tools/call', params: { _meta: META, name: 'mutate', arguments: { action: 'addTool', name: 'csrf_tool' } } },
    { origin: 'https://attacker.example', 'mcp-name': 'mutate' },
  );
  assert.equal(response.status, 403);
  const text = await response.text();
  if (text.length > 0) assert.ok(!('result' in (JSON.parse(text) as object)));
  const tools = (await ctx.peer.call('tools/list'))['tools'] as { name: string }[];
  assert.ok(!tools.some((t) => t.name === 'csrf_tool'), 'the foreign-origin request was dispatched');
});

verifies('MUST-103', async ({ peer }) => {
  const sent = await peer.notify('notifications/cancelled', { requestId: 12345 });
  assert.equal(sent.status, 202);
  assert.equal(sent.body, '');
});

verifies('MUST-104', async (ctx) => {
  const mismatch = await post(ctx, { jsonrpc: '2.0', method: 'notifications/cancelled', params: { requestId: 1 } }, { 'mcp-method': 'notifications/other' });
  assert.ok(mismatch.status >= 400, `status ${mismatch.status}`);
  await mismatch.body?.cancel();
  const garbage = await post(ctx, '{"jsonrpc":"2.0","method":');
  assert.ok(garbage.status >= 400);
  await garbage.body?.cancel();
});

verifies('MUST-105', async ({ peer }) => {
  const json = await peer.request('tools/list');
  assert.match(json.contentType ?? '', /^application\/json/);
  const sse = await peer.request('tools/call', { name: 'progress', arguments: { steps: 2 }, _meta: { progressToken: 't' } });
  assert.match(sse.contentType ?? '', /^text\/event-stream/);
  assert.ok(sse.result !== undefined, 'the final response ends the stream');
  const error = await peer.request('no/such');
  assert.match(error.contentType ?? '', /^application\/json/);
});

verifies('MUST-107', async ({ peer }) => {
  const replies = await Promise.all(
    Array.from({ length: 10 }, (_, i) => peer.request('tools/call', { name: 'progress', arguments: { steps: 3 }, _meta: { progressToken: `tok-${i}`, 'io.modelcontextprotocol/logLevel': 'debug' } })),
  );
  replies.forEach((reply, i) => {
    assert.ok(reply.notifications.length >= 3);
    for (const n of reply.notifications) {
      if (n.method === 'notifications/progress') assert.equal(n.params?.['progressToken'], `tok-${i}`, 'another request progress on this stream');
    }
  });
});

verifies('MUST-108', async ({ peer }) => {
  await peer.request('tools/call', { name: 'ask' }, { caps: { elicitation: {} } });
  await peer.request('tools/call', { name: 'progress', arguments: { steps: 2 }, _meta: { progressToken: 1 } });
  assert.deepEqual(peer.serverRequests, []);
});

verifies('MUST-74', async (ctx) => {
  const controller = new AbortController();
  const pending = ctx.peer.request('tools/call', { name: 'slow', arguments: { ms: 3000, key: 'disconnect' } }, { signal: controller.signal });
  pending.catch(() => undefined);
  await delay(200);
  controller.abort();
  await delay(200);
  const seen = await probe(ctx);
  assert.deepEqual(seen.aborted, ['disconnect'], 'the handler signal aborted on disconnect');
  assert.deepEqual(seen.finished, []);
});

verifies('MUST-109', async (ctx) => {
  // Closed after the SSE stream opened (progress already flowing).
  const controller = new AbortController();
  const pending = ctx.peer.request('tools/call', { name: 'slow', arguments: { ms: 3000, key: 'sse-close' }, _meta: { progressToken: 'p' } }, { signal: controller.signal });
  pending.catch(() => undefined);
  await ctx.peer.waitFor((n) => n.method === 'notifications/progress');
  controller.abort();
  await delay(200);
  assert.deepEqual((await probe(ctx)).aborted, ['sse-close']);
});

verifies('MUST-110', async (ctx) => {
  const controller = new AbortController();
  const pending = ctx.peer.request('tools/call', { name: 'slow', arguments: { ms: 600, key: 'no-more' } }, { signal: controller.signal });
  pending.catch(() => undefined);
  await delay(100);
  controller.abort();
  await delay(800);
  const seen = await probe(ctx);
  assert.deepEqual(seen.finished, [], 'the work went on after the disconnect');
});

verifies('MUST-113', async ({ peer }) => {
  const reply = await peer.request('tools/list', {}, { headers: { 'mcp-protocol-version': '2025-06-18' } });
  assertError(reply, -32020, 400);
  assert.equal(reply.status, 400);
});

verifies('MUST-114', async ({ peer }) => {
  const meta = { [PROTOCOL_VERSION]: '2099-01-01', [CLIENT_CAPABILITIES]: {} };
  const reply = await peer.request('tools/list', { _meta: meta }, { meta: false, headers: { 'mcp-protocol-version': '2099-01-01' } });
  const error = assertError(reply, -32022, 400);
  assert.equal(reply.status, 400);
  assert.ok(Array.isArray((error.data as { supported?: unknown }).supported));
});

verifies('MUST-115', async ({ peer }) => {
  for (const method of ['no/such/method', 'tools/delete', 'tasks/get', 'ping', 'initialize']) {
    const reply = await peer.request(method, method === 'tasks/get' ? { taskId: 'x' } : {}, method === 'tasks/get' ? { headers: { 'mcp-name': 'x' } } : {});
    assertError(reply, -32601, 404);
    assert.equal(reply.status, 404, method);
  }
});

verifies('MUST-116', async ({ peer }) => {
  const reply = await peer.request('tools/list', {}, { headers: { 'mcp-protocol-version': undefined } });
  assert.equal(reply.status, 400);
  assert.ok(reply.error !== undefined && reply.result === undefined);
});

verifies('MUST-135', async ({ peer }) => {
  const encoded = `=?base64?${Buffer.from('echo').toString('base64')}?=`;
  const ok = await peer.request('tools/call', { name: 'echo', arguments: { text: 'b64' } }, { headers: { 'mcp-name': encoded } });
  assert.equal(ok.status, 200, JSON.stringify(ok.error));
  assert.ok(ok.result !== undefined);
  const wrong = `=?base64?${Buffer.from('ask').toString('base64')}?=`;
  assertError(await peer.request('tools/call', { name: 'echo', arguments: { text: 'b64' } }, { headers: { 'mcp-name': wrong } }), -32020, 400);
  // A resource URI that needs encoding.
  const uri = 'test://items/ü';
  const read = await peer.request('resources/read', { uri });
  assert.ok(read.error?.code !== -32020, JSON.stringify(read.error));
});

verifies('MUST-139', async ({ peer }) => {
  const reply = await peer.request('tools/call', { name: 'regional', arguments: { region: 'eu' } }, { headers: { 'mcp-param-region': 'e\u0001u' } }).catch(() => undefined);
  // fetch itself may refuse a control character; then try a bad Base64 sentinel instead.
  const bad = reply ?? (await peer.request('tools/call', { name: 'regional', arguments: { region: 'eu' } }, { headers: { 'mcp-param-region': '=?base64?***?=' } }));
  assertError(bad, -32020, 400);
  const sentinel = await peer.request('tools/call', { name: 'regional', arguments: { region: 'eu' } }, { headers: { 'mcp-param-region': '=?base64?***?=' } });
  assertError(sentinel, -32020, 400);
});

verifies('MUST-140', async ({ peer }) => {
  const ok = await peer.request('tools/call', { name: 'regional', arguments: { region: 'eu-west' } }, { headers: { 'mcp-param-region': 'eu-west' } });
  assert.ok(ok.result !== undefined, JSON.stringify(ok.error));
  const b64 = await peer.request('tools/call', { name: 'regional', arguments: { region: 'zürich' } }, { headers: { 'mcp-param-region': `=?base64?${Buffer.from('zürich').toString('base64')}?=` } });
  assert.ok(b64.result !== undefined, JSON.stringify(b64.error));
  assertError(await peer.request('tools/call', { name: 'regional', arguments: { region: 'eu-west' } }, { headers: { 'mcp-param-region': 'us-east' } }), -32020, 400);
  // Absent in the body: the header must not be required.
  const absent = await peer.request('tools/call', { name: 'regional', arguments: {} });
  assert.ok(absent.result !== undefined, JSON.stringify(absent.error));
});

verifies('MUST-141', async ({ peer }) => {
  for (const headers of [{ 'mcp-method': 'tools/list' }, { 'mcp-name': 'ask' }, { 'mcp-param-region': 'other' }, { 'mcp-protocol-version': '2025-11-25' }]) {
    const reply = await peer.request('tools/call', { name: 'regional', arguments: { region: 'eu' } }, { headers: { 'mcp-param-region': 'eu', ...headers } });
    assertError(reply, -32020, 400);
    assert.equal(reply.status, 400, JSON.stringify(headers));
  }
});

verifies('MUST-144', async ({ peer }) => {
  assertError(await peer.request('tools/call', { name: 'regional', arguments: { region: 'eu' } }), -32020, 400);
  assertError(await peer.request('tools/call', { name: 'echo', arguments: { text: 'x' } }, { headers: { 'mcp-name': undefined } }), -32020, 400);
  assertError(await peer.request('resources/read', { uri: 'test://static' }, { headers: { 'mcp-name': undefined } }), -32020, 400);
  assertError(await peer.request('tools/list', {}, { headers: { 'mcp-method': undefined } }), -32020, 400);
});

verifies('MUST-146', async ({ peer }) => {
  assertError(await peer.request('tools/list', {}, { headers: { 'mcp-method': 'prompts/list' } }), -32020, 400);
  assertError(await peer.request('prompts/get', { name: 'greet', arguments: { name: 'x' } }, { headers: { 'mcp-name': 'sneaky' } }), -32020, 400);
  assertError(await peer.request('resources/read', { uri: 'test://static' }, { headers: { 'mcp-name': 'test://binary' } }), -32020, 400);
  // Header names are case-insensitive.
  const mixed = await peer.request('tools/list', {}, { headers: { 'MCP-METHOD': 'tools/list' } });
  assert.ok(mixed.result !== undefined);
});

verifies('MUST-147', async ({ peer }) => {
  const reply = await peer.request('tools/call', { name: 'echo', arguments: { text: 'x' } }, { headers: { 'mcp-name': 'ask' } });
  assert.equal(reply.status, 400);
  assert.equal(reply.error?.code, -32020);
  assert.equal(reply.id, 1, 'the JSON-RPC error echoes the id');
});

verifies('MUST-330', async ({ peer }) => {
  const mismatch = await peer.request('tools/list', {}, { headers: { 'mcp-method': 'x' } });
  const missingCap = await peer.request('tools/call', { name: 'ask' });
  const version = await peer.request('tools/list', { _meta: { [PROTOCOL_VERSION]: '1.0', [CLIENT_CAPABILITIES]: {} } }, { meta: false, headers: { 'mcp-protocol-version': '1.0' } });
  assert.deepEqual(
    [mismatch, missingCap, version].map((r) => [r.error?.code, r.status]),
    [
      [-32020, 400],
      [-32021, 400],
      [-32022, 400],
    ],
  );
});

verifies(
  'MUST-95',
  async (ctx) => {
    // Oversize bodies are refused before they are parsed (4 MiB default), declared or streamed.
    const big = JSON.stringify({ jsonrpc: '2.0', id: 1, method: 'tools/call', params: { _meta: META, name: 'echo', arguments: { text: 'x'.repeat(5 * 1024 * 1024) } } });
    const response = await post(ctx, big, { 'mcp-name': 'echo' });
    assert.equal(response.status, 413);
    await response.body?.cancel();
    const after = await ctx.peer.request('server/discover');
    assert.ok(after.result !== undefined, 'the server is still serving');
  },
  { title: 'an oversize body gets 413 and the endpoint keeps serving (endpoint hardening)' },
);
