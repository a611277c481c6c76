// 2025-11-25 experimental core tasks on McpServer (stateful sessions), and the task store.
import assert from 'node:assert/strict';
import { afterEach, describe, it } from 'node:test';
import type { McpServer } from '../../../src/server/mcpServer.js';
import { MemoryTaskStore, TaskCapacityError, type NewTask } from '../../../src/server/tasks/store.js';
import { connect, initLegacy, makeServer, rpcError, type Client } from './tasksSupport.js';

const RELATED = 'io.modelcontextprotocol/related-task';

describe('core tasks (2025-11-25)', () => {
  let server: McpServer | undefined;
  const clients: Client[] = [];
  afterEach(async () => {
    for (const c of clients.splice(0)) await c.close();
    await server?.close();
  });
  async function setup(tasks: Parameters<typeof makeServer>[0] = true, answer?: Parameters<typeof connect>[2], principal?: string) {
    const made = makeServer(tasks);
    server = made.server;
    const client = await connect(made.server, principal, answer);
    clients.push(client);
    const init = await initLegacy(client);
    return { ...made, client, init };
  }

  it('declares tasks {list, cancel, requests.tools.call} in initialize (no extensions)', async () => {
    const { init } = await setup();
    const caps = init['capabilities'] as Record<string, unknown>;
    assert.deepEqual(caps['tasks'], { list: {}, cancel: {}, requests: { tools: { call: {} } } });
    assert.equal(caps['extensions'], undefined);
  });

  it('answers a task-augmented call with CreateTaskResult{task}; tasks/result blocks until terminal', async () => {
    const { client, gate } = await setup();
    const created = await client.legacy('tools/call', { name: 'wait', arguments: {}, task: { ttl: 60_000 } });
    const task = created.task as Record<string, unknown>;
    assert.equal(task['status'], 'working');
    assert.equal(task['ttl'], 60_000);
    assert.equal(task['pollInterval'], 500);
    assert.equal('ttlMs' in task, false);
    const taskId = task['taskId'] as string;
    let settled = false;
    const result = client.legacy('tasks/result', { taskId }).then((r) => {
      settled = true;
      return r;
    });
    await new Promise((r) => setTimeout(r, 30));
    assert.equal(settled, false, 'tasks/result must block while the task works');
    assert.equal((await client.legacy('tasks/get', { taskId }))['status'], 'working');
    gate.open();
    const final = await result;
    assert.equal(final.content?.[0]?.text, 'waited');
    assert.deepEqual((final['_meta'] as Record<string, unknown>)[RELATED], { taskId });
    // status notifications went to the session
    const statuses = client.notifications.filter((n) => n.method === 'notifications/tasks/status').map((n) => (n.params as { status: string }).status);
    assert.ok(statuses.includes('completed'));
  });

  it('isError results make the task failed; tasks/result still returns the result; JSON-RPC errors come back as errors', async () => {
    const { client } = await setup();
    const a = (await client.legacy('tools/call', { name: 'tool_error', arguments: {}, task: {} })).task as { taskId: string };
    const final = await client.legacy('tasks/result', { taskId: a.taskId });
    assert.equal(final.isError, true);
    assert.equal((await client.legacy('tasks/get', { taskId: a.taskId }))['status'], 'failed');
    const b = (await client.legacy('tools/call', { name: 'rpc_error', arguments: {}, task: {} })).task as { taskId: string };
    const error = await rpcError(client.legacy('tasks/result', { taskId: b.taskId }), -32603);
    assert.equal(error.message, 'protocol failure');
  });

  it('tasks/cancel returns the cancelled task; cancelling a terminal task is -32602', async () => {
    const { client } = await setup();
    const { taskId } = (await client.legacy('tools/call', { name: 'sleepy', arguments: {}, task: {} })).task as { taskId: string };
    const cancelled = await client.legacy('tasks/cancel', { taskId });
    assert.equal(cancelled['status'], 'cancelled');
    assert.equal(cancelled['taskId'], taskId);
    await rpcError(client.legacy('tasks/cancel', { taskId }), -32602);
  });

  it('pages tasks/list and rejects a foreign cursor', async () => {
    const { client } = await setup({ pageSize: 2 });
    const ids: string[] = [];
    for (let i = 0; i < 3; i++) ids.push(((await client.legacy('tools/call', { name: 'fast', arguments: {}, task: {} })).task as { taskId: string }).taskId);
    const first = await client.legacy('tasks/list');
    assert.deepEqual(first.tasks?.map((t) => t.taskId), ids.slice(0, 2));
    assert.equal(typeof first.nextCursor, 'string');
    const second = await client.legacy('tasks/list', { cursor: first.nextCursor });
    assert.deepEqual(second.tasks?.map((t) => t.taskId), ids.slice(2));
    assert.equal(second.nextCursor, undefined);
    await rpcError(client.legacy('tasks/list', { cursor: 'bogus' }), -32602);
  });

  it('sends input requests to the client as real requests tagged with related-task', async () => {
    const { client } = await setup(true, (request) => (request.method === 'elicitation/create' ? { action: 'accept', content: { ok: true } } : {}));
    const { taskId } = (await client.legacy('tools/call', { name: 'ask', arguments: {}, task: {} })).task as { taskId: string };
    const final = await client.legacy('tasks/result', { taskId });
    assert.equal(final.content?.[0]?.text, 'answer: {"ok":true}');
    const asked = client.requests.find((r) => r.method === 'elicitation/create');
    assert.deepEqual((asked?.params?.['_meta'] as Record<string, unknown>)[RELATED], { taskId });
    const statuses = client.notifications.filter((n) => n.method === 'notifications/tasks/status').map((n) => (n.params as { status: string }).status);
    assert.ok(statuses.includes('input_required'));
  });

  it('enforces execution.taskSupport: forbidden ⇒ -32601 for a task call, required ⇒ -32601 for a plain call', async () => {
    const { client } = await setup();
    await rpcError(client.legacy('tools/call', { name: 'plain', arguments: {}, task: {} }), -32601);
    await rpcError(client.legacy('tools/call', { name: 'tool_error', arguments: {} }), -32601);
    const plain = await client.legacy('tools/call', { name: 'fast', arguments: {} });
    assert.equal(plain.content?.[0]?.text, 'fast result');
  });

  it('cross-session task access: another session (same principal) gets -32602 and does not list the task', async () => {
    const { client, server: s } = await setup();
    const other = await connect(s);
    clients.push(other);
    await initLegacy(other);
    const { taskId } = (await client.legacy('tools/call', { name: 'sleepy', arguments: {}, task: {} })).task as { taskId: string };
    await rpcError(other.legacy('tasks/get', { taskId }), -32602);
    await rpcError(other.legacy('tasks/result', { taskId }), -32602);
    await rpcError(other.legacy('tasks/cancel', { taskId }), -32602);
    assert.deepEqual((await other.legacy('tasks/list')).tasks, []);
    // nor does a 2026-07-28 request on the same connection see the session's task
    await rpcError(other.req('tasks/get', { taskId }), -32602);
    await client.legacy('tasks/cancel', { taskId });
  });
});

describe('MemoryTaskStore', () => {
  const base = (taskId: string): NewTask => ({ taskId, owner: { principal: 'p' }, era: 'extension', method: 'tools/call', ttlMs: null });

  it('keeps terminal states immutable', async () => {
    const store = new MemoryTaskStore();
    await store.create(base('a'));
    await store.update('a', { status: 'cancelled' });
    const after = await store.update('a', { status: 'completed', result: { content: [] } });
    assert.equal(after?.status, 'cancelled');
    assert.equal(after?.result, undefined);
  });

  it('expires by TTL and evicts the oldest terminal tasks when full', async () => {
    let now = 1_000;
    const store = new MemoryTaskStore({ maxTasks: 2, now: () => now });
    await store.create({ ...base('ttl'), ttlMs: 10 });
    now += 10;
    assert.equal(await store.get('ttl'), undefined);
    await store.create(base('a'));
    await store.create(base('b'));
    await assert.rejects(store.create(base('c')), TaskCapacityError);
    await store.update('a', { status: 'completed', result: {} });
    await store.create(base('c'));
    assert.equal(await store.get('a'), undefined);
    assert.ok(await store.get('b'));
  });

  it('lists only the owner’s tasks', async () => {
    const store = new MemoryTaskStore();
    await store.create(base('mine'));
    await store.create({ ...base('theirs'), owner: { principal: 'q' } });
    await store.create({ ...base('session'), owner: { principal: 'p', session: 's1' } });
    assert.deepEqual((await store.list({ principal: 'p' }, { limit: 10 })).tasks.map((t) => t.taskId), ['mine']);
  });
});
