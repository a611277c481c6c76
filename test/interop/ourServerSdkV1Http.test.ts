// Interop: the official SDK v1 client (@modelcontextprotocol/sdk 1.32, Client +
// StreamableHTTPClientTransport) drives OUR everything server over Streamable HTTP: a
// 2025-11-25 session (Mcp-Session-Id), server->client sampling/elicitation/roots requests
// answered by the client's handlers, logging/setLevel, resources/subscribe, and the 2025-11-25
// task-augmented calls of the v1 experimental tasks API. One in-process server for the file.
import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import { StreamableHTTPClientTransport } from '@modelcontextprotocol/sdk/client/streamableHttp.js';
import { legacyNotificationChecks, missingCapabilityChecks } from './fixtures/ourServerChecks.js';
import { makeV1Client, v1Driver, type V1Setup } from './fixtures/ourServerClients.js';
import { startEverythingHttp, surfaceMatrix, tapWire, textOf, toolMatrix } from './fixtures/ourServerHarness.js';

let server: Awaited<ReturnType<typeof startEverythingHttp>>;
before(async () => {
  server = await startEverythingHttp(250);
});
after(async () => {
  await server.close();
});

async function connect(capabilities: 'all' | 'none' = 'all'): Promise<V1Setup & { transport: StreamableHTTPClientTransport }> {
  const setup = makeV1Client({ capabilities });
  const transport = new StreamableHTTPClientTransport(server.url);
  await setup.client.connect(transport);
  tapWire(transport, setup.wire);
  return { ...setup, transport };
}

describe('interop: SDK v1 client -> our server, Streamable HTTP (2025-11-25 session)', () => {
  let s: V1Setup & { transport: StreamableHTTPClientTransport };
  before(async () => {
    s = await connect();
  });
  after(async () => {
    await s.transport.terminateSession();
    await s.client.close();
  });

  it('initializes a session on the latest revision v1 knows', () => {
    assert.equal(s.transport.protocolVersion, '2025-11-25');
    assert.match(s.transport.sessionId ?? '', /.+/);
    assert.deepEqual(s.client.getServerVersion(), { name: 'switchboard-everything', version: '0.1.0' });
    assert.match(s.client.getInstructions() ?? '', /^switchboard-everything is a test server/);
    const caps = s.client.getServerCapabilities();
    assert.deepEqual(caps?.resources, { subscribe: true, listChanged: true });
    assert.deepEqual(caps?.tasks?.requests, { tools: { call: {} } });
  });
  toolMatrix(it, () => v1Driver(s.client, s.wire), () => s.log);
  surfaceMatrix(it, () => v1Driver(s.client, s.wire), () => s.log);
  legacyNotificationChecks(
    it,
    () => ({
      driver: v1Driver(s.client, s.wire),
      events: s.events,
      setLoggingLevel: (l) => s.client.setLoggingLevel(l),
      subscribeResource: (p) => s.client.subscribeResource(p),
      unsubscribeResource: (p) => s.client.unsubscribeResource(p),
    }),
    2000,
  );

  it('runs the task tools as 2025-11-25 tasks through the v1 experimental tasks API', async () => {
    const stream = async (name: string, args: Record<string, unknown>) => {
      const messages = [];
      for await (const m of s.client.experimental.tasks.callToolStream({ name, arguments: args }, undefined, { task: { ttl: 60_000 } })) messages.push(m);
      return messages;
    };
    const done = await stream('slow_compute', { seconds: 0.05, label: 'task' });
    assert.equal(done[0]?.type, 'taskCreated');
    const last = done.at(-1);
    assert.equal(last?.type, 'result');
    assert.equal(last?.type === 'result' ? textOf(last.result as never) : '', 'Computed for 0.05s (task)');

    const failed = await stream('failing_job', {});
    assert.equal(failed[0]?.type, 'taskCreated');
    const taskId = failed[0]?.type === 'taskCreated' ? failed[0].task.taskId : '';
    assert.equal(failed.at(-1)?.type, 'error');
    const task = await s.client.experimental.tasks.getTask(taskId);
    assert.equal(task.status, 'failed');

    // A task-forbidden tool refuses a task-augmented call with -32601.
    const refused = await stream('echo', { message: 'x' });
    assert.equal(refused.length, 1);
    const only = refused[0];
    assert.equal(only?.type === 'error' ? (only.error as { code?: number }).code : undefined, -32601);
  });
});

describe('interop: SDK v1 client (no capabilities) -> our server, Streamable HTTP', () => {
  let s: V1Setup & { transport: StreamableHTTPClientTransport };
  before(async () => {
    s = await connect('none');
  });
  after(async () => {
    await s.client.close();
  });
  missingCapabilityChecks(it, () => v1Driver(s.client, s.wire));
});
