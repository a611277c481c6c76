// The everything server's tasks tools (the referee's tasks-* scenarios), in-process.
import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import { ALL_CAPS, elicitAccept, rpcError, start, textOf, type Harness, type Result } from './support.js';

const EXT = { ...ALL_CAPS, extensions: { 'io.modelcontextprotocol/tasks': {} } };

async function terminal(h: Harness, taskId: string): Promise<Result & { status?: string; result?: Result }> {
  for (let i = 0; i < 300; i++) {
    const task = (await h.request('tasks/get', { taskId }, { caps: EXT })) as Result & { status?: string; result?: Result };
    if (task.status === 'completed' || task.status === 'failed' || task.status === 'cancelled') return task;
    await new Promise((r) => setTimeout(r, 20));
  }
  throw new Error('task did not finish');
}

describe('everything: tasks tools', () => {
  let h: Harness;
  before(async () => {
    h = await start();
  });
  after(async () => {
    await h.close();
  });

  it('greet stays synchronous; slow_compute becomes a task only with the extension', async () => {
    assert.equal(textOf(await h.call('greet', { name: 'World' }, {}, EXT)), 'Hello, World!');
    const sync = await h.call('slow_compute', { seconds: 0 });
    assert.equal(sync.resultType, 'complete');
    const task = await h.call('slow_compute', { seconds: 0, label: 'x' }, {}, EXT);
    assert.equal(task.resultType, 'task');
    const done = await terminal(h, task['taskId'] as string);
    assert.equal(done.status, 'completed');
    assert.equal(textOf(done.result as Result), 'Computed for 0s (x)');
  });

  it('failing_job requires the extension (-32021) and completes with isError', async () => {
    await rpcError(h.call('failing_job', {}), -32021);
    const task = await h.call('failing_job', {}, {}, EXT);
    const done = await terminal(h, task['taskId'] as string);
    assert.equal(done.status, 'completed');
    assert.equal(done.result?.isError, true);
  });

  it('test_tool_with_task asks over MRTR, then answers with a task carrying the name', async () => {
    const r1 = await h.call('test_tool_with_task', {}, {}, EXT);
    assert.equal(r1.resultType, 'input_required');
    const r2 = await h.call('test_tool_with_task', {}, { inputResponses: { user_name: elicitAccept({ name: 'Alice' }) }, requestState: r1.requestState }, EXT);
    assert.equal(r2.resultType, 'task');
    const done = await terminal(h, r2['taskId'] as string);
    assert.equal(textOf(done.result as Result), 'Hello, Alice!');
  });

  it('confirm_delete parks in input_required until tasks/update', async () => {
    const task = await h.call('confirm_delete', { filename: 'a.txt' }, {}, EXT);
    const taskId = task['taskId'] as string;
    let parked: Result & { status?: string } = {};
    for (let i = 0; i < 100 && parked.status !== 'input_required'; i++) parked = await h.request('tasks/get', { taskId }, { caps: EXT });
    assert.deepEqual(Object.keys(parked.inputRequests ?? {}), ['confirm']);
    await h.request('tasks/update', { taskId, inputResponses: { confirm: elicitAccept({ confirm: true }) } }, { caps: EXT });
    assert.equal(textOf((await terminal(h, taskId)).result as Result), 'Deleted a.txt');
  });
});
