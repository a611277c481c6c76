// The tasks extension (io.modelcontextprotocol/tasks, SEP-2663) through the gateway: a
// downstream task reaches the upstream under a gateway id bound to its server and caller;
// tasks/get|update|cancel go through the interceptor chain to that server and to no other;
// notifications/tasks are relayed for the caller's own tasks; nobody else can touch a task.
// https://modelcontextprotocol.io/extensions/tasks/overview
import assert from 'node:assert/strict';
import { afterEach, describe, it } from 'node:test';
import type { JsonRpcNotification } from '../../../src/jsonrpc/messages.js';
import { Gateway, GATEWAY_CLIENT_CAPABILITIES, type GatewayOptions } from '../../../src/host/gateway.js';
import { Host } from '../../../src/host/host.js';
import { guardInterceptor } from '../../../src/host/guards.js';
import { DeniedError, type InterceptContext, type Interceptor } from '../../../src/host/interceptors.js';
import { ErrorCode, JsonRpcError } from '../../../src/jsonrpc/errors.js';
import { McpServer } from '../../../src/server/mcpServer.js';
import type { TasksOptions } from '../../../src/server/tasks/manager.js';
import type { Tool } from '../../../src/protocol/model/tool.js';
import { connect, initLegacy, makeServer, NO_EXT, pollUntil, rpcError, terminal, TASKS_EXT, WITH_EXT, type Client, type Gate } from '../server/tasksSupport.js';
import { memoryServers, memorySpec } from './support/memoryServers.js';

const GATEWAY_ID = /^[0-9a-f]{32}$/;

interface Rig {
  readonly gateway: Gateway;
  readonly gates: Map<string, Gate>;
  /** What passed the chain, in order. */
  readonly seen: InterceptContext[];
  /** An upstream raw client, as `principal` when given; `answer` serves requests sent to it. */
  client(principal?: string, answer?: Parameters<typeof connect>[2]): Promise<Client>;
}

const open: (() => Promise<void>)[] = [];
afterEach(async () => {
  for (const close of open.splice(0).reverse()) await close();
});

/**
 * Servers `a` and `b` (the tasks test tools, plus `whoami`: a task answering its server id),
 * each minting task ids with `newId` when given, behind one gateway.
 */
async function rig(options: { newId?: (server: string) => string; tasks?: Partial<TasksOptions>; gateway?: GatewayOptions; interceptors?: Interceptor[] } = {}): Promise<Rig> {
  const gates = new Map<string, Gate>();
  const servers = memoryServers((id) => {
    const newId = options.newId;
    const made = makeServer({ ...options.tasks, ...(newId !== undefined ? { newId: () => newId(id) } : {}) });
    made.server.tool('whoami', { execution: { taskSupport: 'optional' } }, () => id);
    made.server.tool('big', { execution: { taskSupport: 'optional' } }, () => 'x'.repeat(5000));
    made.server.tool('ask_required', { execution: { taskSupport: 'required' } }, async (_a, ctx) => {
      const answer = await ctx.elicit({ message: 'ok?', requestedSchema: { type: 'object', properties: { ok: { type: 'boolean' } } } }, { key: 'ok' });
      return `answer: ${JSON.stringify(answer.content ?? null)}`;
    });
    gates.set(id, made.gate);
    return made.server;
  });
  const seen: InterceptContext[] = [];
  const recorder: Interceptor = {
    id: 'test.recorder',
    phase: 'audit',
    intercept: (ctx, next) => {
      seen.push(ctx);
      return next();
    },
  };
  const host = await Host.open({
    servers: [memorySpec('a'), memorySpec('b')],
    transport: servers.factory,
    capabilities: GATEWAY_CLIENT_CAPABILITIES,
    interceptors: [recorder, ...(options.interceptors ?? [])],
  });
  await host.start();
  const gateway = new Gateway(host, options.gateway);
  open.push(async () => {
    for (const gate of gates.values()) gate.open();
    await gateway.close();
    await host.close();
    // The servers' own task timers (a sleeping tool) end with them.
    for (const list of servers.started.values()) for (const server of list) await server.close();
  });
  return {
    gateway,
    gates,
    seen,
    client: async (principal, answer) => {
      const client = await connect(gateway.server, principal, answer);
      open.push(() => client.close());
      return client;
    },
  };
}

/** Resolves once `client` received a notification matching `match`. */
async function notified(client: Client, match: (n: JsonRpcNotification) => boolean): Promise<JsonRpcNotification> {
  const deadline = Date.now() + 3000;
  for (;;) {
    const found = client.notifications.find(match);
    if (found !== undefined) return found;
    if (Date.now() > deadline) throw new Error(`no such notification; got ${JSON.stringify(client.notifications.map((n) => n.method))}`);
    await new Promise((resolve) => setImmediate(resolve));
  }
}

const text = (result: { content?: { text?: string }[] } | undefined): string | undefined => result?.content?.[0]?.text;

describe('gateway: tasks extension pass-through', () => {
  it('advertises the extension in server/discover', async () => {
    const r = await rig();
    const caps = (await (await r.client()).req('server/discover'))['capabilities'] as Record<string, Record<string, unknown>>;
    assert.deepEqual(caps['extensions']?.[TASKS_EXT], {});
  });

  it('passes a downstream task through under a gateway id and polls it to its result', async () => {
    const r = await rig({ newId: (server) => `${server}-own-id` });
    const client = await r.client();
    const created = await client.req('tools/call', { name: 'wait', arguments: {} });
    assert.equal(created.resultType, 'task');
    assert.equal(created.status, 'working');
    assert.match(String(created.taskId), GATEWAY_ID);
    assert.equal(JSON.stringify(created).includes('a-own-id'), false, 'the server’s own task id never reaches the upstream');
    assert.equal(typeof created['ttlMs'], 'number');
    const working = await client.req('tasks/get', { taskId: created.taskId });
    assert.equal(working.taskId, created.taskId);
    assert.equal(working.status, 'working');
    r.gates.get('a')?.open();
    const done = await pollUntil(client, created.taskId as string, terminal);
    assert.equal(done.status, 'completed');
    assert.equal(done.taskId, created.taskId);
    assert.equal(text(done.result), 'waited');
  });

  it('a call without the extension stays an ordinary call; a task-required tool is -32021', async () => {
    const r = await rig();
    const client = await r.client();
    const plain = await client.req('tools/call', { name: 'fast', arguments: {} }, NO_EXT);
    assert.equal(plain.resultType, 'complete');
    assert.equal(text(plain), 'fast result');
    await rpcError(client.req('tools/call', { name: 'tool_error', arguments: {} }, NO_EXT), -32021);
    await rpcError(client.req('tasks/get', { taskId: 'whatever' }, NO_EXT), -32021);
  });

  it('tasks/update carries the answers to the server that asked, and the task completes', async () => {
    const r = await rig();
    const client = await r.client();
    const created = await client.req('tools/call', { name: 'ask', arguments: {} });
    const asking = await pollUntil(client, created.taskId as string, (t) => t.status === 'input_required');
    const [key] = Object.keys(asking.inputRequests ?? {});
    assert.equal(asking.inputRequests?.[key as string]?.method, 'elicitation/create');
    const ack = await client.req('tasks/update', { taskId: created.taskId, inputResponses: { [key as string]: { action: 'accept', content: { ok: true } } } });
    assert.deepEqual(Object.keys(ack).filter((k) => k !== '_meta'), ['resultType']);
    const done = await pollUntil(client, created.taskId as string, terminal);
    assert.equal(text(done.result), 'answer: {"ok":true}');
  });

  it('tasks/cancel reaches the owning server: the task ends cancelled', async () => {
    const r = await rig();
    const client = await r.client();
    const created = await client.req('tools/call', { name: 'sleepy', arguments: {} });
    const ack = await client.req('tasks/cancel', { taskId: created.taskId });
    assert.equal(ack.resultType, 'complete');
    assert.equal(ack.taskId, undefined);
    assert.equal((await pollUntil(client, created.taskId as string, terminal)).status, 'cancelled');
  });

  it('tasks/get, tasks/update and tasks/cancel pass the interceptor chain with the server, the tool and the server’s own id', async () => {
    const r = await rig({ newId: (server) => `${server}-own-id` });
    const client = await r.client('alice');
    const created = await client.req('tools/call', { name: 'sleepy', arguments: {} });
    await client.req('tasks/get', { taskId: created.taskId });
    await client.req('tasks/update', { taskId: created.taskId, inputResponses: {} });
    await client.req('tasks/cancel', { taskId: created.taskId });
    const tasks = r.seen.filter((c) => c.method.startsWith('tasks/'));
    assert.deepEqual(
      tasks.map((c) => [c.method, c.server?.id, c.exposedName, c.params['taskId'], c.principal?.id]),
      [
        ['tasks/get', 'a', 'sleepy', 'a-own-id', 'alice'],
        ['tasks/update', 'a', 'sleepy', 'a-own-id', 'alice'],
        ['tasks/cancel', 'a', 'sleepy', 'a-own-id', 'alice'],
      ],
    );
  });

  it('an interceptor that refuses tasks/cancel stops it before the server', async () => {
    const refuse: Interceptor = {
      id: 'policy.no-cancel',
      phase: 'policy',
      methods: ['tasks/cancel'],
      intercept: () => Promise.reject(new DeniedError('policy.no-cancel', 'cancelling is not allowed')),
    };
    const r = await rig({ interceptors: [refuse] });
    const client = await r.client();
    const created = await client.req('tools/call', { name: 'wait', arguments: {} });
    const denied = await rpcError(client.req('tasks/cancel', { taskId: created.taskId }), ErrorCode.Denied);
    assert.match(denied.message, /cancelling is not allowed/);
    assert.equal((await client.req('tasks/get', { taskId: created.taskId })).status, 'working');
  });

  it('an oversized result smuggled through a task: the result-size guard refuses tasks/get too', async () => {
    const r = await rig({ interceptors: [guardInterceptor({ maxResultBytes: 2000 })] });
    const client = await r.client();
    const created = await client.req('tools/call', { name: 'big', arguments: {} });
    assert.equal(created.resultType, 'task');
    const deadline = Date.now() + 3000;
    let denied: JsonRpcError | undefined;
    while (denied === undefined && Date.now() < deadline) {
      try {
        const polled = await client.req('tasks/get', { taskId: created.taskId });
        assert.notEqual(polled.status, 'completed', 'a completed oversized result must not pass');
      } catch (error) {
        if (error instanceof JsonRpcError && error.code === ErrorCode.Denied) denied = error;
        else throw error;
      }
    }
    assert.match(String(denied?.message), /over the 2000-byte limit/);
  });

  it('polling hammered at a server: tasks/get can be rate limited like calls', async () => {
    const r = await rig({ interceptors: [guardInterceptor({ rateLimits: [{ by: ['principal'], max: 2, perMs: 60_000, methods: ['tasks/get'] }] })] });
    const client = await r.client();
    const created = await client.req('tools/call', { name: 'sleepy', arguments: {} });
    await client.req('tasks/get', { taskId: created.taskId });
    await client.req('tasks/get', { taskId: created.taskId });
    const denied = await rpcError(client.req('tasks/get', { taskId: created.taskId }), ErrorCode.Denied);
    assert.match(denied.message, /rate limit of 2 per 60000 ms/);
  });

  it('another caller reads, answers or cancels someone else’s task by its id: refused as unknown (-32602), the task untouched', async () => {
    const r = await rig();
    const alice = await r.client('alice');
    const mallory = await r.client('mallory');
    const anonymous = await r.client();
    const created = await alice.req('tools/call', { name: 'ask', arguments: {} });
    const taskId = created.taskId as string;
    await pollUntil(alice, taskId, (t) => t.status === 'input_required');
    const unknown = await rpcError(mallory.req('tasks/get', { taskId: 'f'.repeat(32) }), -32602);
    for (const thief of [mallory, anonymous]) {
      const stolen = await rpcError(thief.req('tasks/get', { taskId }), -32602);
      assert.equal(stolen.message, unknown.message, 'the same answer as for a task that does not exist');
      await rpcError(thief.req('tasks/update', { taskId, inputResponses: { ok: { action: 'accept', content: { ok: false } } } }), -32602);
      await rpcError(thief.req('tasks/cancel', { taskId }), -32602);
    }
    const still = await alice.req('tasks/get', { taskId });
    assert.equal(still.status, 'input_required', 'neither answered nor cancelled');
    const refused = r.seen.filter((c) => c.method.startsWith('tasks/') && c.principal?.id !== 'alice');
    // Each refusal passes the audit phase (it is recorded), and none is routed to a server.
    assert.equal(refused.length, 7, 'every refused task request is recorded');
    assert.equal(refused.filter((c) => c.server !== undefined).length, 0, 'no refused request reached a server');
  });

  it('a forged gateway task id, or a server’s own task id sent to the gateway: unknown (-32602)', async () => {
    const r = await rig({ newId: (server) => `${server}-own-id` });
    const client = await r.client();
    const created = await client.req('tools/call', { name: 'sleepy', arguments: {} });
    const forged = String(created.taskId).replace(/.$/, (c) => (c === '0' ? '1' : '0'));
    await rpcError(client.req('tasks/get', { taskId: forged }), -32602);
    await rpcError(client.req('tasks/get', { taskId: 'a-own-id' }), -32602);
    await rpcError(client.req('tasks/cancel', { taskId: 'a-own-id' }), -32602);
    assert.equal((await client.req('tasks/get', { taskId: created.taskId })).status, 'working');
  });

  it('a task id of server A used to reach server B: it only ever reaches A, even when both servers mint the same ids', async () => {
    const r = await rig({ newId: () => 'same-id' });
    const client = await r.client();
    const fromA = await client.req('tools/call', { name: 'whoami', arguments: {} });
    const fromB = await client.req('tools/call', { name: 'b__whoami', arguments: {} });
    assert.notEqual(fromA.taskId, fromB.taskId);
    assert.equal(text((await pollUntil(client, fromA.taskId as string, terminal)).result), 'a');
    assert.equal(text((await pollUntil(client, fromB.taskId as string, terminal)).result), 'b');
    const routed = r.seen.filter((c) => c.method === 'tasks/get').map((c) => [c.server?.id, c.exposedName]);
    assert.deepEqual(new Set(routed.map(([server, tool]) => `${server} ${tool}`)), new Set(['a whoami', 'b b__whoami']));
  });

  it('relays notifications/tasks for the caller’s own tasks only, under the gateway id', async () => {
    let minted = 0;
    const r = await rig({ newId: (server) => `${server}-own-id-${++minted}` });
    const alice = await r.client('alice');
    const mallory = await r.client('mallory');
    const mine = await alice.req('tools/call', { name: 'wait', arguments: {} });
    const theirs = await mallory.req('tools/call', { name: 'b__whoami', arguments: {} });
    const listening = alice.req('subscriptions/listen', { notifications: { taskIds: [mine.taskId, theirs.taskId] } });
    listening.catch(() => undefined);
    const ack = await notified(alice, (n) => n.method === 'notifications/subscriptions/acknowledged');
    assert.deepEqual((ack.params as { notifications: unknown }).notifications, { taskIds: [mine.taskId] });
    await notified(alice, (n) => n.method === 'notifications/tasks' && n.params?.['status'] === 'working');
    r.gates.get('a')?.open();
    const done = await notified(alice, (n) => n.method === 'notifications/tasks' && n.params?.['status'] === 'completed');
    assert.equal(done.params?.['taskId'], mine.taskId);
    assert.equal(text(done.params?.['result'] as { content?: { text?: string }[] }), 'waited');
    assert.equal(JSON.stringify(alice.notifications).includes('own-id'), false, 'no server task id leaks');
    assert.equal(alice.notifications.some((n) => n.params?.['taskId'] === theirs.taskId), false);
  });

  it('taskIds on subscriptions/listen without the extension: -32021', async () => {
    const r = await rig();
    const client = await r.client();
    await rpcError(client.req('subscriptions/listen', { notifications: { taskIds: ['x'] } }, NO_EXT), -32021);
  });

  it('forgets a task after its lifetime (frozen clock): -32602 afterwards', async () => {
    let now = 1_000_000;
    const r = await rig({ tasks: { ttlMs: 60_000 }, gateway: { tasks: { now: () => now } } });
    const client = await r.client();
    const created = await client.req('tools/call', { name: 'sleepy', arguments: {} });
    now += 59_999;
    assert.equal((await client.req('tasks/get', { taskId: created.taskId })).status, 'working');
    now += 60_001;
    await rpcError(client.req('tasks/get', { taskId: created.taskId }), -32602);
  });

  it('bounded: past maxTasks the oldest task is forgotten first', async () => {
    const r = await rig({ gateway: { tasks: { maxTasks: 2 } } });
    const client = await r.client();
    const ids: string[] = [];
    for (let i = 0; i < 3; i++) ids.push((await client.req('tools/call', { name: 'sleepy', arguments: {} })).taskId as string);
    await rpcError(client.req('tasks/get', { taskId: ids[0] }), -32602);
    assert.equal((await client.req('tasks/get', { taskId: ids[2] })).status, 'working');
  });

  it('tasks: false keeps every call ordinary and does not advertise the extension', async () => {
    const r = await rig({ gateway: { tasks: false } });
    const client = await r.client();
    const caps = (await client.req('server/discover'))['capabilities'] as Record<string, unknown>;
    assert.equal(caps['extensions'], undefined);
    r.gates.get('a')?.open();
    const result = await client.req('tools/call', { name: 'wait', arguments: {} }, WITH_EXT);
    assert.equal(result.resultType, 'complete');
    await rpcError(client.req('tasks/get', { taskId: 'x' }), -32601);
  });

  it('a 2025-11-25 upstream client: calls stay ordinary and the task methods do not exist', async () => {
    const r = await rig();
    const client = await r.client();
    await initLegacy(client);
    const result = await client.legacy('tools/call', { name: 'fast', arguments: {} });
    assert.equal(text(result), 'fast result');
    await rpcError(client.legacy('tasks/get', { taskId: 'x' }), -32601);
  });

  it('a 2025-11-25 caller of a task-only tool: the gateway runs the task for it and returns what the call would have', async () => {
    const r = await rig({ tasks: { pollIntervalMs: 10 } });
    const client = await r.client();
    await initLegacy(client);
    const result = await client.legacy('tools/call', { name: 'tool_error', arguments: {} });
    assert.equal(result.isError, true);
    assert.equal(text(result), 'it broke');
  });

  it('a 2025-11-25 caller of a task-only tool: the task’s question reaches it as a real elicitation request, the answer goes back by tasks/update', async () => {
    const r = await rig({ tasks: { pollIntervalMs: 10 } });
    const client = await r.client(undefined, (request) => (request.method === 'elicitation/create' ? { action: 'accept', content: { ok: true } } : {}));
    await initLegacy(client);
    const result = await client.legacy('tools/call', { name: 'ask_required', arguments: {} });
    assert.equal(text(result), 'answer: {"ok":true}');
    assert.deepEqual(client.requests.map((q) => q.method), ['elicitation/create']);
  });

  it('a 2025-11-25 caller without elicitation: the task’s question is refused, not answered by anyone else', async () => {
    const r = await rig({ tasks: { pollIntervalMs: 10 } });
    const client = await r.client();
    await initLegacy(client, {});
    const result = await client.legacy('tools/call', { name: 'ask_required', arguments: {} }).catch((error: unknown) => error);
    assert.equal(client.requests.length, 0, 'nothing was asked of a client that cannot answer');
    // The server was told the caller has no elicitation: its task fails with -32021, which the caller gets.
    assert.ok(result instanceof JsonRpcError && result.code === -32021, `refused: ${String(result)}`);
  });
});

describe('McpServer forwardedTasks (the server layer’s seam)', () => {
  const task = { resultType: 'task', taskId: 't1', status: 'working', createdAt: new Date(0).toISOString(), lastUpdatedAt: new Date(0).toISOString(), ttlMs: 1000 };

  it('a forwarded task to a request that did not declare the extension: refused (-32603), never sent', async () => {
    const server = new McpServer({ name: 's', version: '1' }, { forwardedTasks: { serve: () => Promise.resolve({}) }, onError: () => undefined });
    server.forwardTool({ name: 'leaky', inputSchema: { type: 'object' } } as Tool, () => Promise.resolve(task as never));
    const client = await connect(server);
    open.push(async () => {
      await client.close();
      await server.close();
    });
    await rpcError(client.req('tools/call', { name: 'leaky', arguments: {} }, NO_EXT), -32603);
    assert.equal((await client.req('tools/call', { name: 'leaky', arguments: {} })).resultType, 'task');
  });

  it('tasks and forwardedTasks together: refused at construction', () => {
    assert.throws(() => new McpServer({ name: 's', version: '1' }, { tasks: true, forwardedTasks: { serve: () => Promise.resolve({}) } }), /cannot both be set/);
  });
});
