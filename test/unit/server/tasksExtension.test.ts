// The 2026-07-28 tasks extension (io.modelcontextprotocol/tasks) on McpServer.
import assert from 'node:assert/strict';
import { afterEach, describe, it } from 'node:test';
import type { McpServer } from '../../../src/server/mcpServer.js';
import { connect, makeServer, NO_EXT, pollUntil, rpcError, terminal, TASKS_EXT, type Client } from './tasksSupport.js';

const ISO = /^\d{4}-\d{2}-\d{2}T\d{2}:\d{2}:\d{2}/;

describe('tasks extension (2026-07-28)', () => {
  let server: McpServer | undefined;
  const clients: Client[] = [];
  afterEach(async () => {
    for (const c of clients.splice(0)) await c.close();
    await server?.close();
  });
  async function setup(tasks: Parameters<typeof makeServer>[0] = true) {
    const made = makeServer(tasks);
    server = made.server;
    const client = await connect(made.server);
    clients.push(client);
    return { ...made, client };
  }

  it('advertises the extension in server/discover and no v1 tasks slot', async () => {
    const { client } = await setup();
    const discovered = await client.req('server/discover');
    const caps = discovered['capabilities'] as Record<string, Record<string, unknown>>;
    assert.deepEqual(caps['extensions']?.[TASKS_EXT], {});
    assert.equal(caps['tasks'], undefined);
  });

  it('answers a task-supporting tool with a flat CreateTaskResult and completes it (working → completed)', async () => {
    const { client, gate } = await setup();
    const created = await client.req('tools/call', { name: 'wait', arguments: {} });
    assert.equal(created.resultType, 'task');
    assert.equal(created.status, 'working');
    assert.match(String(created['createdAt']), ISO);
    assert.match(String(created['lastUpdatedAt']), ISO);
    assert.equal(created['ttlMs'], 3_600_000);
    assert.equal(created['pollIntervalMs'], 500);
    for (const absent of ['task', 'result', 'error', 'inputRequests', 'requestState', 'ttl', 'pollInterval']) assert.equal(absent in created, false, absent);
    const taskId = created.taskId as string;
    const working = await client.req('tasks/get', { taskId });
    assert.equal(working.resultType, 'complete');
    assert.equal(working.status, 'working');
    assert.equal('result' in working, false);
    gate.open();
    const done = await pollUntil(client, taskId, terminal);
    assert.equal(done.status, 'completed');
    assert.equal(done.result?.content?.[0]?.text, 'waited');
    assert.equal(done.result?._meta?.['io.modelcontextprotocol/related-task'], undefined);
  });

  it('never promotes a plain tool, even with a legacy task param', async () => {
    const { client } = await setup();
    const result = await client.req('tools/call', { name: 'plain', arguments: {}, task: { ttl: 1000 } });
    assert.equal(result.resultType, 'complete');
    assert.equal(result.taskId, undefined);
  });

  it('reports isError results as completed, JSON-RPC errors as failed', async () => {
    const { client } = await setup();
    const a = await client.req('tools/call', { name: 'tool_error', arguments: {} });
    const b = await client.req('tools/call', { name: 'rpc_error', arguments: {} });
    const toolError = await pollUntil(client, a.taskId as string, terminal);
    assert.equal(toolError.status, 'completed');
    assert.equal(toolError.result?.isError, true);
    const rpc = await pollUntil(client, b.taskId as string, terminal);
    assert.equal(rpc.status, 'failed');
    assert.deepEqual(rpc.error, { code: -32603, message: 'protocol failure' });
    assert.equal('result' in rpc, false);
  });

  it('cancels cooperatively with an empty ack, and acks again on a terminal task', async () => {
    const { client } = await setup();
    const created = await client.req('tools/call', { name: 'sleepy', arguments: {} });
    const ack = await client.req('tasks/cancel', { taskId: created.taskId });
    assert.deepEqual(Object.keys(ack).sort(), ['_meta', 'resultType']);
    assert.equal(ack.resultType, 'complete');
    const after = await client.req('tasks/get', { taskId: created.taskId });
    assert.equal(after.status, 'cancelled');
    const again = await client.req('tasks/cancel', { taskId: created.taskId });
    assert.equal(again.resultType, 'complete');
    // terminal states are immutable: still cancelled after the handler's abort settles
    await new Promise((r) => setTimeout(r, 20));
    assert.equal((await client.req('tasks/get', { taskId: created.taskId })).status, 'cancelled');
  });

  it('surfaces input requests on tasks/get and resumes on tasks/update (partial answers, unique keys)', async () => {
    const { client } = await setup();
    const created = await client.req('tools/call', { name: 'ask_twice', arguments: {} });
    const taskId = created.taskId as string;
    const parked = await pollUntil(client, taskId, (t) => Object.keys(t.inputRequests ?? {}).length === 2);
    assert.equal(parked.status, 'input_required');
    assert.deepEqual(Object.keys(parked.inputRequests ?? {}).sort(), ['a', 'b']);
    assert.equal(parked.inputRequests?.['a']?.method, 'elicitation/create');
    // unknown keys are ignored; partial answers keep the task waiting
    const ack = await client.req('tasks/update', { taskId, inputResponses: { a: { action: 'accept', content: { v: '1' } }, nope: { whatever: true } } });
    assert.equal(ack.resultType, 'complete');
    const partial = await client.req('tasks/get', { taskId });
    assert.equal(partial.status, 'input_required');
    assert.deepEqual(Object.keys(partial.inputRequests ?? {}), ['b']);
    await client.req('tasks/update', { taskId, inputResponses: { b: { action: 'accept', content: { v: '2' } } } });
    // the handler asks "a" again: a fresh key, never reused
    const third = await pollUntil(client, taskId, (t) => t.status === 'input_required' && !('b' in (t.inputRequests ?? {})));
    const keys = Object.keys(third.inputRequests ?? {});
    assert.deepEqual(keys, ['a.2']);
    await client.req('tasks/update', { taskId, inputResponses: { a: { action: 'accept', content: { v: 'stale' } }, 'a.2': { action: 'accept', content: { v: '3' } } } });
    const done = await pollUntil(client, taskId, terminal);
    assert.equal(done.result?.content?.[0]?.text, '1-2-3');
  });

  it('rejects an answer of the wrong shape for an outstanding key with -32602', async () => {
    const { client } = await setup();
    const created = await client.req('tools/call', { name: 'ask', arguments: {} });
    await pollUntil(client, created.taskId as string, (t) => t.status === 'input_required');
    await rpcError(client.req('tasks/update', { taskId: created.taskId, inputResponses: { ok: { action: 'maybe' } } }), -32602);
    assert.equal((await client.req('tasks/get', { taskId: created.taskId })).status, 'input_required');
  });

  it('composes MRTR rounds with a task (runAsTask after input)', async () => {
    const { client } = await setup();
    const round1 = await client.req('tools/call', { name: 'escalate', arguments: {} });
    assert.equal(round1.resultType, 'input_required');
    assert.equal('taskId' in round1, false);
    const round2 = await client.req('tools/call', {
      name: 'escalate',
      arguments: {},
      inputResponses: { user_name: { action: 'accept', content: { name: 'Alice' } } },
      requestState: round1['requestState'],
    });
    assert.equal(round2.resultType, 'task');
    assert.equal('requestState' in round2, false);
    assert.equal('inputRequests' in round2, false);
    const done = await pollUntil(client, round2.taskId as string, terminal);
    assert.equal(done.result?.content?.[0]?.text, 'Hello Alice (task: true)');
  });

  it('runAsTask is a no-op (false) for a client without the extension', async () => {
    const { client } = await setup();
    const round1 = await client.req('tools/call', { name: 'escalate', arguments: {} }, NO_EXT);
    const round2 = await client.req(
      'tools/call',
      { name: 'escalate', arguments: {}, inputResponses: { user_name: { action: 'accept', content: { name: 'Bo' } } }, requestState: round1['requestState'] },
      NO_EXT,
    );
    assert.equal(round2.resultType, 'complete');
    assert.equal(round2.content?.[0]?.text, 'Hello Bo (task: false)');
  });

  it('falls back to a sync result without the extension, and -32021 for task-required tools', async () => {
    const { client } = await setup();
    const sync = await client.req('tools/call', { name: 'fast', arguments: {} }, NO_EXT);
    assert.equal(sync.resultType, 'complete');
    assert.equal(sync.content?.[0]?.text, 'fast result');
    const error = await rpcError(client.req('tools/call', { name: 'tool_error', arguments: {} }, NO_EXT), -32021);
    assert.deepEqual(error.data, { requiredCapabilities: { extensions: { [TASKS_EXT]: {} } } });
    for (const [method, params] of [
      ['tasks/get', { taskId: 'x' }],
      ['tasks/update', { taskId: 'x', inputResponses: {} }],
      ['tasks/cancel', { taskId: 'x' }],
    ] as const) {
      await rpcError(client.req(method, params, NO_EXT), -32021);
    }
  });

  it('answers -32601 for the removed tasks/result and tasks/list, -32602 for an unknown taskId', async () => {
    const { client } = await setup();
    await rpcError(client.req('tasks/result', { taskId: 'x' }), -32601);
    await rpcError(client.req('tasks/list', {}), -32601);
    await rpcError(client.req('tasks/get', { taskId: 'nope' }), -32602);
    await rpcError(client.req('tasks/cancel', { taskId: 'nope' }), -32602);
    await rpcError(client.req('tasks/update', { taskId: 'nope', inputResponses: {} }), -32602);
  });

  it('does not offer the tasks methods when tasks are off', async () => {
    const { client } = await setup(false);
    await rpcError(client.req('tasks/get', { taskId: 'x' }), -32601);
    const caps = (await client.req('server/discover'))['capabilities'] as Record<string, unknown>;
    assert.equal(caps['extensions'], undefined);
  });

  it('expires tasks after their TTL (-32602 afterwards)', async () => {
    const { client } = await setup({ ttlMs: 40 });
    const created = await client.req('tools/call', { name: 'fast', arguments: {} });
    assert.equal(created['ttlMs'], 40);
    await pollUntil(client, created.taskId as string, terminal);
    await new Promise((r) => setTimeout(r, 60));
    await rpcError(client.req('tasks/get', { taskId: created.taskId }), -32602);
  });

  it('honours mode "never" and a decision function', async () => {
    const never = await setup({ mode: 'never' });
    assert.equal((await never.client.req('tools/call', { name: 'fast', arguments: {} })).resultType, 'complete');
    await never.server.close();
    const picky = await setup({ mode: (tool) => tool.name === 'plain' });
    assert.equal((await picky.client.req('tools/call', { name: 'plain', arguments: {} })).resultType, 'task');
    assert.equal((await picky.client.req('tools/call', { name: 'fast', arguments: {} })).resultType, 'complete');
  });

  it('pushes notifications/tasks to a listen stream that asked for the task id', async () => {
    const { client, gate } = await setup();
    const created = await client.req('tools/call', { name: 'wait', arguments: {} });
    const listening = client.req('subscriptions/listen', { notifications: { taskIds: [created.taskId, 'unknown-id'] } });
    listening.catch(() => undefined);
    const ack = await client.notified((n) => n.method === 'notifications/subscriptions/acknowledged');
    assert.deepEqual((ack.params as { notifications: unknown }).notifications, { taskIds: [created.taskId] });
    gate.open();
    const completed = await client.notified((n) => n.method === 'notifications/tasks' && (n.params as Record<string, unknown>)['status'] === 'completed');
    const last = completed.params as Record<string, unknown>;
    assert.equal(last?.['status'], 'completed');
    assert.equal(last?.['taskId'], created.taskId);
    assert.ok(last?.['result']);
  });

  it('rejects taskIds on subscriptions/listen without the extension (-32021)', async () => {
    const { client } = await setup();
    await rpcError(client.req('subscriptions/listen', { notifications: { taskIds: ['x'] } }, NO_EXT), -32021);
  });

  it('cross-principal task access: another principal gets -32602 unknown task (get, update, cancel, listen)', async () => {
    const { server: s } = await setup();
    const alice = await connect(s, 'alice');
    const mallory = await connect(s, 'mallory');
    clients.push(alice, mallory);
    const created = await alice.req('tools/call', { name: 'sleepy', arguments: {} });
    const taskId = created.taskId as string;
    const stolen = await rpcError(mallory.req('tasks/get', { taskId }), -32602);
    const unknown = await rpcError(mallory.req('tasks/get', { taskId: 'does-not-exist' }), -32602);
    assert.equal(stolen.message, unknown.message, 'same answer as for a task that does not exist');
    await rpcError(mallory.req('tasks/cancel', { taskId }), -32602);
    await rpcError(mallory.req('tasks/update', { taskId, inputResponses: {} }), -32602);
    assert.equal((await alice.req('tasks/get', { taskId })).status, 'working');
    const listening = mallory.req('subscriptions/listen', { notifications: { taskIds: [taskId] } });
    listening.catch(() => undefined);
    const ack = await mallory.notified((n) => n.method === 'notifications/subscriptions/acknowledged');
    assert.deepEqual((ack.params as { notifications: unknown }).notifications, { taskIds: [] });
    await alice.req('tasks/cancel', { taskId });
  });
});
