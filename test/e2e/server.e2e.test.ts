/**
 * Server features: tools, resources, prompts, caching, completion, pagination, and the JSON
 * Schema rules tool registration enforces.
 *
 * @module
 */
import assert from 'node:assert/strict';
import { createServer } from 'node:http';
import type { AddressInfo } from 'node:net';
import { assertError, textOf, verifies, type Peer } from './support.js';

async function capabilities(peer: Peer): Promise<Record<string, unknown>> {
  return (await peer.call('server/discover'))['capabilities'] as Record<string, unknown>;
}

/** Walks every page of a list method; returns the items and the pages. */
async function walk(peer: Peer, method: string, member: string): Promise<{ items: Record<string, unknown>[]; pages: Record<string, unknown>[] }> {
  const items: Record<string, unknown>[] = [];
  const pages: Record<string, unknown>[] = [];
  let cursor: string | undefined;
  do {
    const page = await peer.call(method, cursor === undefined ? {} : { cursor });
    pages.push(page);
    items.push(...(page[member] as Record<string, unknown>[]));
    cursor = page['nextCursor'] as string | undefined;
    assert.ok(pages.length < 100, 'pagination does not end');
  } while (cursor !== undefined);
  return { items, pages };
}

async function tryRegister(peer: Peer, schema: Record<string, unknown>): Promise<{ ok: boolean; message?: string }> {
  const result = await peer.call('tools/call', { name: 'try_register', arguments: { schema } });
  return result['structuredContent'] as { ok: boolean; message?: string };
}

/** A local HTTP server that counts every request it gets. */
async function canary(): Promise<{ url: string; hits: () => number; close: () => Promise<void> }> {
  let hits = 0;
  const server = createServer((_req, res) => {
    hits++;
    res.setHeader('content-type', 'application/schema+json');
    res.end(JSON.stringify({ type: 'string' }));
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const { port } = server.address() as AddressInfo;
  return {
    url: `http://127.0.0.1:${port}/`,
    hits: () => hits,
    close: () => new Promise((resolve) => server.close(() => resolve())),
  };
}

verifies('MUST-28', async ({ peer }) => {
  const c = await canary();
  try {
    for (const schema of [
      { type: 'object', properties: { a: { $ref: `${c.url}schema.json` } } },
      { type: 'object', $ref: `${c.url}root.json` },
      { type: 'object', $id: `${c.url}base/`, properties: { a: { $ref: 'other.json' } } },
      { type: 'object', properties: { a: { $dynamicRef: `${c.url}dyn.json#x` } } },
    ]) {
      const outcome = await tryRegister(peer, schema);
      assert.equal(outcome.ok, false, `accepted ${JSON.stringify(schema)}`);
      assert.match(outcome.message ?? '', /\$ref|reference/i);
    }
    // A local reference is fine.
    assert.equal((await tryRegister(peer, { type: 'object', $defs: { s: { type: 'string' } }, properties: { a: { $ref: '#/$defs/s' } } })).ok, true);
    await new Promise((r) => setTimeout(r, 200));
    assert.equal(c.hits(), 0, 'the canary was fetched');
  } finally {
    await c.close();
  }
});

verifies('MUST-29', async ({ peer }) => {
  const c = await canary();
  try {
    const outcome = await tryRegister(peer, { type: 'object', properties: { a: { $ref: `${c.url}default.json` } } });
    assert.equal(outcome.ok, false, 'no remote mode is on by default');
    const listed = (await peer.call('tools/list'))['tools'] as { name: string }[];
    assert.ok(listed.every((t) => !t.name.startsWith('registered_')));
    assert.equal(c.hits(), 0);
  } finally {
    await c.close();
  }
});

verifies('MUST-122', async ({ peer }) => {
  for (const bad of ['', 'Has Space', 'a\r\nb', 'semi;colon', 'ümlaut']) {
    const outcome = await tryRegister(peer, { type: 'object', properties: { p: { type: 'string', 'x-mcp-header': bad } } });
    assert.equal(outcome.ok, false, `x-mcp-header ${JSON.stringify(bad)} accepted`);
  }
  assert.equal((await tryRegister(peer, { type: 'object', properties: { p: { type: 'string', 'x-mcp-header': 'Good-Name_1' } } })).ok, true);
});

verifies('MUST-125', async ({ peer }) => {
  assert.equal((await tryRegister(peer, { type: 'object', properties: { p: { type: 'number', 'x-mcp-header': 'N' } } })).ok, false);
  for (const type of ['string', 'integer', 'boolean']) {
    assert.equal((await tryRegister(peer, { type: 'object', properties: { p: { type, 'x-mcp-header': 'V' } } })).ok, true, type);
  }
});

verifies('MUST-127', async ({ peer }) => {
  for (const schema of [
    { type: 'object', properties: { list: { type: 'array', items: { type: 'string', 'x-mcp-header': 'Item' } } } },
    { type: 'object', anyOf: [{ properties: { p: { type: 'string', 'x-mcp-header': 'P' } } }] },
    { type: 'object', $defs: { s: { type: 'string', 'x-mcp-header': 'S' } }, properties: { p: { $ref: '#/$defs/s' } } },
  ]) {
    assert.equal((await tryRegister(peer, schema)).ok, false, JSON.stringify(schema));
  }
  assert.equal((await tryRegister(peer, { type: 'object', properties: { o: { type: 'object', properties: { p: { type: 'string', 'x-mcp-header': 'Deep' } } } } })).ok, true);
});

verifies('MUST-235', async ({ peer }) => {
  assert.ok((await capabilities(peer))['tools'] !== undefined);
});

verifies(
  'MUST-236',
  async ({ peer }) => {
    const { items, pages } = await walk(peer, 'tools/list', 'tools');
    assert.ok(pages.length >= 3, `${pages.length} pages`);
    const names = items.map((t) => t['name'] as string);
    assert.equal(new Set(names).size, names.length, 'no duplicates across pages');
    for (let i = 0; i < 250; i++) assert.ok(names.includes(`gen_${String(i).padStart(3, '0')}`), `gen_${i} missing`);
    assert.ok(names.includes('echo'));
    // Deterministic: the same walk gives the same order.
    const again = await walk(peer, 'tools/list', 'tools');
    assert.deepEqual(again.items.map((t) => t['name']), names);
    // Opaque cursors: a forged or foreign cursor is -32602.
    for (const cursor of ['not-a-cursor', '999999', 'eyJvZmZzZXQiOjk5OTk5fQ', (pages[0]?.['nextCursor'] as string) + 'x']) {
      assertError(await peer.request('tools/list', { cursor }), -32602);
    }
    assertError(await peer.request('tools/list', { cursor: 42 }), -32602);
    // A registration change, then a fresh walk sees it.
    await peer.call('tools/call', { name: 'mutate', arguments: { action: 'addTool', name: 'zz_late' } });
    const changed = await walk(peer, 'tools/list', 'tools');
    assert.ok(changed.items.some((t) => t['name'] === 'zz_late'));
  },
  { server: { extraTools: 250, pageSize: 100 }, title: 'tools/list pages (250 tools) return every tool once, in a deterministic order; invalid cursors are -32602' },
);

verifies('MUST-237', async ({ peer, connect, transport }) => {
  const first = await walk(peer, 'tools/list', 'tools');
  await peer.call('tools/call', { name: 'echo', arguments: { text: 'side effect?' } });
  await peer.call('tools/call', { name: 'ask' }, { caps: { elicitation: {} } });
  const second = await walk(peer, 'tools/list', 'tools');
  assert.deepEqual(second.items, first.items, 'other requests changed the list');
  if (transport !== 'stdio') {
    const other = await connect();
    assert.deepEqual((await walk(other, 'tools/list', 'tools')).items, first.items, 'another connection sees another list');
  }
});

verifies('MUST-238', async ({ peer }) => {
  const { items } = await walk(peer, 'tools/list', 'tools');
  for (const tool of items) {
    const schema = tool['inputSchema'] as Record<string, unknown> | null;
    assert.ok(schema !== null && typeof schema === 'object', `${String(tool['name'])}: inputSchema`);
    assert.equal(schema['type'], 'object', `${String(tool['name'])}: root type`);
  }
  assert.equal((await tryRegister(peer, { type: 'array' })).ok, false);
  assert.equal((await tryRegister(peer, { properties: {} })).ok, false);
  assert.equal((await tryRegister(peer, { type: 'object', properties: { a: { type: 'no-such-type' } } })).ok, false, 'an invalid schema');
});

verifies('MUST-240', async ({ peer }) => {
  const reply = await peer.request('tools/call', { name: 'bad_output' });
  if (reply.result !== undefined) {
    assert.equal(reply.result['isError'], true, `a non-conforming structured result was sent: ${JSON.stringify(reply.result)}`);
  } else {
    assertError(reply, -32603);
  }
});

verifies('MUST-241', async ({ peer }) => {
  const wrongType = await peer.call('tools/call', { name: 'echo', arguments: { text: 42 } });
  assert.equal(wrongType['isError'], true);
  assert.match(textOf(wrongType), /text/, 'the message names the field');
  const missing = await peer.call('tools/call', { name: 'echo', arguments: {} });
  assert.equal(missing['isError'], true);
  assert.match(textOf(missing), /text/);
  const extra = await peer.call('tools/call', { name: 'probe', arguments: { unexpected: true } });
  assert.equal(extra['isError'], true, 'additionalProperties:false is enforced on no-argument tools');
  // A malformed request (not the arguments) is a protocol error naming the field.
  // (On HTTP a non-string name cannot agree with its Mcp-Name header: -32020 comes first.)
  const badName = await peer.request('tools/call', { name: 42 });
  if (peer.transport === 'http' && badName.error?.code === -32020) assert.equal(badName.status, 400);
  else assert.match(assertError(badName, -32602).message, /params\.name/);
  const badArgs = assertError(await peer.request('tools/call', { name: 'echo', arguments: 'text' }), -32602);
  assert.match(badArgs.message, /params\.arguments/);
  const unknown = assertError(await peer.request('tools/call', { name: 'no_such_tool' }), -32602);
  assert.match(unknown.message, /no_such_tool/);
  const toolError = await peer.call('tools/call', { name: 'tool_error' });
  assert.equal(toolError['isError'], true);
  assert.equal(textOf(toolError), 'the upstream API said no');
});

verifies('MUST-245', async ({ peer }) => {
  assert.ok((await capabilities(peer))['resources'] !== undefined);
});

verifies('MUST-246', async ({ peer }) => {
  const before = (await walk(peer, 'resources/list', 'resources')).items.map((r) => r['uri']);
  assert.ok(before.includes('test://static') && before.includes('test://binary'));
  await peer.call('tools/call', { name: 'mutate', arguments: { action: 'addResource', uri: 'test://added' } });
  const after = (await walk(peer, 'resources/list', 'resources')).items.map((r) => r['uri']);
  assert.ok(after.includes('test://added'));
  const templates = (await walk(peer, 'resources/templates/list', 'resourceTemplates')).items;
  assert.deepEqual(templates.map((t) => t['uriTemplate']), ['test://items/{id}']);
});

verifies('MUST-247', async ({ peer, connect, transport }) => {
  const first = await walk(peer, 'resources/list', 'resources');
  await peer.call('resources/read', { uri: 'test://static' });
  assert.deepEqual((await walk(peer, 'resources/list', 'resources')).items, first.items);
  if (transport !== 'stdio') assert.deepEqual((await walk(await connect({ principal: 'p2' }), 'resources/list', 'resources')).items, first.items);
});

verifies('MUST-249', async ({ peer }) => {
  const error = assertError(await peer.request('resources/read', { uri: 'test://missing' }), -32602);
  assert.deepEqual((error.data as { uri?: string } | undefined)?.uri, 'test://missing');
});

verifies('MUST-250', async ({ peer }) => {
  for (const uri of ['test://missing', 'other://x', 'test://static/child']) {
    const reply = await peer.request('resources/read', { uri });
    assert.ok(reply.error !== undefined, `${uri}: ${JSON.stringify(reply.result)}`);
    assert.equal(reply.result, undefined);
  }
  const read = await peer.call('resources/read', { uri: 'test://items/7' });
  assert.ok((read['contents'] as unknown[]).length > 0);
});

verifies('MUST-251', async ({ peer }) => {
  // (On HTTP a non-string uri cannot agree with its Mcp-Name header: -32020 comes first.)
  const notString = await peer.request('resources/read', { uri: 42 });
  if (peer.transport === 'http' && notString.error?.code === -32020) assert.equal(notString.status, 400);
  else assert.match(assertError(notString, -32602).message, /params\.uri/);
  const missing = assertError(await peer.request('resources/read', {}), -32602);
  assert.match(missing.message, /params\.uri/);
  assertError(await peer.request('resources/read', { uri: 'not a uri at all' }), -32602);
});

verifies('MUST-252', async ({ peer }) => {
  const result = await peer.call('resources/read', { uri: 'test://binary' });
  const [content] = result['contents'] as Record<string, unknown>[];
  assert.equal(typeof content?.['blob'], 'string');
  assert.ok(!('text' in (content ?? {})));
  assert.deepEqual([...Buffer.from(content?.['blob'] as string, 'base64')], [0, 1, 2, 250, 255]);
  assert.equal(content?.['uri'], 'test://binary');
});

verifies('MUST-254', async ({ peer }) => {
  assert.ok((await capabilities(peer))['prompts'] !== undefined);
});

verifies('MUST-255', async ({ peer }) => {
  const names = (await walk(peer, 'prompts/list', 'prompts')).items.map((p) => p['name']);
  assert.deepEqual(names, ['greet', 'sneaky']);
  await peer.call('tools/call', { name: 'mutate', arguments: { action: 'addPrompt', name: 'late_prompt' } });
  assert.ok((await walk(peer, 'prompts/list', 'prompts')).items.some((p) => p['name'] === 'late_prompt'));
  const missingArg = assertError(await peer.request('prompts/get', { name: 'greet', arguments: {} }), -32602);
  assert.match(missingArg.message, /name/);
  assertError(await peer.request('prompts/get', { name: 'nope' }), -32602);
});

verifies('MUST-256', async ({ peer, connect, transport }) => {
  const first = await walk(peer, 'prompts/list', 'prompts');
  await peer.call('prompts/get', { name: 'greet', arguments: { name: 'x' } });
  assert.deepEqual((await walk(peer, 'prompts/list', 'prompts')).items, first.items);
  if (transport !== 'stdio') assert.deepEqual((await walk(await connect(), 'prompts/list', 'prompts')).items, first.items);
});

const CACHEABLE: [string, Record<string, unknown>][] = [
  ['server/discover', {}],
  ['tools/list', {}],
  ['prompts/list', {}],
  ['resources/list', {}],
  ['resources/templates/list', {}],
  ['resources/read', { uri: 'test://static' }],
];

verifies('MUST-261', async ({ peer }) => {
  for (const [method, params] of CACHEABLE) {
    const result = await peer.call(method, params);
    assert.equal(result['resultType'], 'complete');
    assert.ok('ttlMs' in result, `${method}: ttlMs`);
    assert.ok(result['cacheScope'] === 'public' || result['cacheScope'] === 'private', `${method}: cacheScope ${JSON.stringify(result['cacheScope'])}`);
  }
  // MRTR results carry no hints; a retry's final result of resources/read does.
  const irr = await peer.call('resources/read', { uri: 'test://gated' }, { caps: { elicitation: {} } });
  assert.ok(!('ttlMs' in irr));
});

verifies('MUST-264', async ({ peer }) => {
  for (const [method, params] of CACHEABLE) {
    const ttl = (await peer.call(method, params))['ttlMs'];
    assert.ok(Number.isInteger(ttl) && (ttl as number) >= 0, `${method}: ttlMs ${JSON.stringify(ttl)}`);
  }
});

verifies(
  'MUST-267',
  async ({ peer }) => {
    const { pages } = await walk(peer, 'tools/list', 'tools');
    assert.ok(pages.length > 1);
    const scopes = new Set(pages.map((p) => p['cacheScope']));
    assert.equal(scopes.size, 1, `scopes ${JSON.stringify([...scopes])}`);
  },
  { server: { extraTools: 120, pageSize: 50 } },
);

verifies('MUST-270', async ({ peer }) => {
  assert.ok((await capabilities(peer))['completions'] !== undefined);
  const result = await peer.call('completion/complete', { ref: { type: 'ref/resource', uri: 'test://items/{id}' }, argument: { name: 'id', value: '1' } });
  assert.deepEqual((result['completion'] as Record<string, unknown>)['values'], ['1', '10', '11']);
});

verifies('MUST-271', async ({ peer }) => {
  const result = await peer.call('completion/complete', { ref: { type: 'ref/prompt', name: 'greet' }, argument: { name: 'name', value: 'a' } });
  const completion = result['completion'] as { values: string[]; total?: number; hasMore?: boolean };
  assert.ok(completion.values.length <= 100, `${completion.values.length} values`);
  assert.equal(completion.hasMore, true);
  assertError(await peer.request('completion/complete', { ref: { type: 'ref/prompt', name: 'nope' }, argument: { name: 'x', value: '' } }), -32602);
  assertError(await peer.request('completion/complete', { ref: { type: 'ref/resource', uri: 'test://nope/{x}' }, argument: { name: 'x', value: '' } }), -32602);
  const malformed = assertError(await peer.request('completion/complete', { ref: { type: 'ref/prompt', name: 'greet' } }), -32602);
  assert.match(malformed.message, /params\.argument/);
});
