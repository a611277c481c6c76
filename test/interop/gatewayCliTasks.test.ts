// `switchboard call` through the real gateway on a task-only tool of the demo server (#33: "the
// CLI cannot call the demo's task tools"): the CLI (dist, as a user runs it) declares the tasks
// extension on that call, the gateway hands the downstream's task on, and the CLI polls the
// gateway's tasks/get to the result.
// See https://modelcontextprotocol.io/extensions/tasks/overview
import assert from 'node:assert/strict';
import { execFile } from 'node:child_process';
import { describe, it } from 'node:test';
import { everythingGatewayForFile, MAIN } from './fixtures/gatewayHarness.js';

const fixture = everythingGatewayForFile();

function call(tool: string): Promise<{ code: number; stdout: string; stderr: string }> {
  return new Promise((resolve) => {
    execFile(process.execPath, [MAIN, 'call', '--header', `Authorization: Bearer ${fixture.gateway().token}`, fixture.gateway().url.href, tool], { cwd: fixture.config().dir, timeout: 60_000 }, (error, stdout, stderr) => {
      resolve({ code: error === null ? 0 : typeof error.code === 'number' ? error.code : 1, stdout, stderr });
    });
  });
}

describe("switchboard call through the gateway: the demo's task tools (#33)", { timeout: 90_000 }, () => {
  it('a task-only tool runs as a task through the gateway and the CLI prints its result', async () => {
    const { code, stdout, stderr } = await call('test_tool_with_task');
    assert.equal(code, 0, stderr);
    assert.equal(stdout, 'Hello, unknown!\n');
    assert.match(stderr, /test_tool_with_task runs as task \S+; waiting for its result/);
  });

  it('a task-only tool that fails: the error is printed, exit 1', async () => {
    const { code, stdout, stderr } = await call('failing_job');
    assert.equal(code, 1, stderr);
    assert.match(stdout, /The job failed: simulated tool execution error/);
  });
});
