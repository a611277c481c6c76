// `switchboard tools` and `switchboard call` run as real processes (through tsx) against
// `switchboard everything`: in-process over HTTP, and spawned over stdio.
import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import { listen, type ListeningServer } from '../../../src/adapters/nodeHttp.js';
import { createEverythingServer } from '../../../src/demo/everything/server.js';
import { createStreamableHttpHandler } from '../../../src/transport/http/server/server.js';
import { cli as run, STDIO_SERVER, type Outcome } from './cliProcess.js';

/** Runs the CLI with these arguments. */
const cli = (...args: string[]): Promise<Outcome> => run(args);

let running: ListeningServer;
let url: string;

before(async () => {
  const server = createEverythingServer({ watchIntervalMs: 0 });
  running = await listen(createStreamableHttpHandler(server, { path: '/mcp', legacySse: { path: '/sse', messagesPath: '/messages' } }), { port: 0, host: '127.0.0.1' });
  url = new URL('/mcp', running.url).href;
});

after(async () => {
  await running.close();
});

describe('switchboard tools', () => {
  it('lists tools over HTTP: one line per tool with title and description', async () => {
    const { code, stdout } = await cli('tools', url);
    assert.equal(code, 0);
    const lines = stdout.trimEnd().split('\n');
    assert.match(lines.find((l) => l.startsWith('echo(')) ?? '', /^echo\(message: string\) +Echo — Returns the message it is given/);
    assert.ok(lines.some((l) => /^test_simple_text\(\) +Tests simple text content response$/.test(l)));
  });

  it('--json prints the raw tool list', async () => {
    const { code, stdout } = await cli('tools', '--json', '--era', 'stateless', url);
    assert.equal(code, 0);
    const tools = JSON.parse(stdout) as { name: string; inputSchema: unknown }[];
    assert.ok(tools.some((t) => t.name === 'echo' && typeof t.inputSchema === 'object'));
  });

  it('lists tools over stdio (command line in one argument)', async () => {
    const { code, stdout } = await cli('tools', STDIO_SERVER);
    assert.equal(code, 0, stdout);
    assert.match(stdout, /^echo\(message: string\) +Echo/m);
  });

  it('an unreachable server exits 1 with a message; a bad option exits 2 with one line and a pointer to the help', async () => {
    const down = await cli('tools', '--timeout', '2000', 'http://127.0.0.1:9/mcp');
    assert.equal(down.code, 1);
    assert.match(down.stderr, /^switchboard tools: /);
    const bad = await cli('tools', '--era', 'sometimes', url);
    assert.equal(bad.code, 2);
    assert.equal(bad.stderr, "switchboard tools: invalid --era sometimes\nRun 'switchboard tools --help' for usage.\n");
  });
});

describe('switchboard tools / call --legacy-sse (the 2024-11-05 HTTP+SSE transport)', () => {
  it('lists tools and calls one through the /sse endpoint', async () => {
    const sse = new URL('/sse', running.url).href;
    const tools = await cli('tools', '--legacy-sse', sse);
    assert.equal(tools.code, 0, tools.stderr);
    assert.ok(tools.stdout.split('\n').some((l) => l.startsWith('echo(')));
    const call = await cli('call', '--legacy-sse', sse, 'echo', '{"message":"over sse"}');
    assert.equal(call.code, 0, call.stderr);
    assert.match(call.stdout, /over sse/);
  });

  it('refuses --legacy-sse with a stdio server or --era stateless (exit 2)', async () => {
    assert.equal((await cli('tools', '--legacy-sse', STDIO_SERVER)).code, 2);
    assert.equal((await cli('tools', '--legacy-sse', '--era', 'stateless', new URL('/sse', running.url).href)).code, 2);
  });
});

describe('switchboard call', () => {
  it('prints the text result over HTTP (stateful era too) with a header', async () => {
    const { code, stdout } = await cli('call', '--era', 'stateful', '--header', 'X-Trace: t1', url, 'echo', '{"message":"hello there"}');
    assert.equal(code, 0);
    assert.equal(stdout, 'hello there\n');
  });

  it('calls over stdio with -- and the server argv', async () => {
    const { code, stdout } = await cli('call', 'echo', '{"message":"via stdio"}', '--', process.execPath, '--import', 'tsx', 'src/cli/main.ts', 'everything', '--stdio', '--log-level', 'error');
    assert.equal(code, 0);
    assert.equal(stdout, 'via stdio\n');
  });

  it('exits 1 on isError, printing the content', async () => {
    const { code, stdout, stderr } = await cli('call', url, 'test_error_handling');
    assert.equal(code, 1);
    assert.match(stdout, /intentionally returns an error/);
    assert.match(stderr, /reported an error/);
  });

  it('exits 1 on a protocol error (unknown tool), over stdio', async () => {
    const { code, stderr } = await cli('call', STDIO_SERVER, 'no_such_tool');
    assert.equal(code, 1);
    assert.match(stderr, /Unknown tool/);
  });

  it("the demo's task tools: a task-only tool is called as a task and waited for (tasks/get), its input request answered (declined: no terminal) before", { timeout: 60_000 }, async () => {
    const { code, stdout, stderr } = await cli('call', url, 'test_tool_with_task');
    assert.equal(code, 0, stderr);
    assert.equal(stdout, 'Hello, unknown!\n');
    assert.match(stderr, /the server asked for input \("What is your name\?"\); declined/);
    assert.match(stderr, /test_tool_with_task runs as task \S+; waiting for its result/);
  });

  it("the demo's task tools: a task-only tool that fails prints its error and exits 1, over stdio", { timeout: 60_000 }, async () => {
    const { code, stdout, stderr } = await cli('call', STDIO_SERVER, 'failing_job');
    assert.equal(code, 1, stderr);
    assert.match(stdout, /The job failed: simulated tool execution error/);
    assert.match(stderr, /failing_job runs as task/);
    assert.match(stderr, /tool "failing_job" reported an error/);
  });

  it('--json prints the raw result; invalid json-args exit 2', async () => {
    const raw = await cli('call', '--json', url, 'test_simple_text');
    assert.equal(raw.code, 0);
    const result = JSON.parse(raw.stdout) as { content: { type: string }[] };
    assert.equal(result.content[0]?.type, 'text');
    const bad = await cli('call', url, 'echo', '[1]');
    assert.equal(bad.code, 2);
    assert.match(bad.stderr, /must be a JSON object/);
  });
});
