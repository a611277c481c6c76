// `switchboard resources`, `read`, `prompts`, `prompt`, and what `call` shows on stderr while
// a call runs (progress, server log messages, refused sampling, declined elicitation), run as
// real processes against `switchboard everything` over HTTP.
import assert from 'node:assert/strict';
import { writeFileSync, mkdtempSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { after, before, describe, it } from 'node:test';
import { listen, type ListeningServer } from '../../../src/adapters/nodeHttp.js';
import { createEverythingServer } from '../../../src/demo/everything/server.js';
import { formatPromptList } from '../../../src/cli/commands/prompts.js';
import { parsePromptArguments } from '../../../src/cli/jsonArguments.js';
import { createStreamableHttpHandler } from '../../../src/transport/http/server/server.js';
import { cli, STDIO_SERVER } from './cliProcess.js';

let running: ListeningServer;
let url: string;

before(async () => {
  running = await listen(createStreamableHttpHandler(createEverythingServer({ watchIntervalMs: 0 }), { path: '/mcp' }), { port: 0, host: '127.0.0.1' });
  url = new URL('/mcp', running.url).href;
});

after(async () => {
  await running.close();
});

describe('switchboard resources / read', () => {
  it('lists resources and templates in aligned columns', async () => {
    const { code, stdout } = await cli(['resources', url]);
    assert.equal(code, 0);
    const lines = stdout.trimEnd().split('\n');
    assert.match(lines[0] ?? '', /^test:\/\/static-text +Static Text Resource \(text\/plain\) — A static text resource for testing$/);
    assert.ok(lines.includes('Templates:'));
    assert.match(stdout, /^test:\/\/template\/\{id\}\/data +Resource Template \(application\/json\)/m);
    const starts = lines.filter((l) => l.startsWith('test://')).map((l) => l.search(/ {2}\S/) + 2);
    assert.equal(new Set(starts).size, 1, stdout);
  });

  it('reads text as is and binary as a summary; --json gives the raw result; over stdio too', async () => {
    const text = await cli(['read', url, 'test://static-text']);
    assert.equal(text.code, 0);
    assert.equal(text.stdout, 'This is the content of the static text resource.\n');
    const blob = await cli(['read', STDIO_SERVER, 'test://static-binary']);
    assert.equal(blob.code, 0, blob.stderr);
    assert.match(blob.stdout, /^\[blob image\/png, \d+ bytes\]\n$/);
    const raw = await cli(['read', '--json', url, 'test://static-text']);
    assert.equal((JSON.parse(raw.stdout) as { contents: { uri: string }[] }).contents[0]?.uri, 'test://static-text');
  });

  it('an unknown resource exits 1; a missing <uri> exits 2', async () => {
    const missing = await cli(['read', url, 'test://nope']);
    assert.equal(missing.code, 1);
    assert.match(missing.stderr, /^switchboard read: /);
    assert.equal((await cli(['read', url])).code, 2);
  });
});

describe('switchboard prompts / prompt', () => {
  it('lists prompts with their arguments', async () => {
    const { code, stdout } = await cli(['prompts', url]);
    assert.equal(code, 0);
    assert.match(stdout, /^test_prompt_with_arguments\(arg1, arg2\) +Prompt With Arguments — /m);
    assert.match(stdout, /^test_simple_prompt\(\) +Simple Test Prompt/m);
  });

  it('gets a prompt with arguments and prints its messages', async () => {
    const { code, stdout } = await cli(['prompt', url, 'test_prompt_with_arguments', '{"arg1":"alpha","arg2":2}']);
    assert.equal(code, 0);
    assert.match(stdout, /^\[user\]\n.*alpha.*2/m);
  });

  it('prompt arguments: strings, numbers and booleans as strings; objects refused', () => {
    assert.deepEqual(parsePromptArguments('{"a":"x","n":1,"b":true}'), { a: 'x', n: '1', b: 'true' });
    assert.throws(() => parsePromptArguments('{"o":{}}'), /must be a string/);
    assert.deepEqual(formatPromptList([{ name: 'p', arguments: [{ name: 'a', required: true }, { name: 'b' }] }]), ['p(a, b?)']);
  });
});

describe('switchboard call: what the server reports while a call runs', () => {
  it('shows progress on stderr, the result alone on stdout; --quiet shows none', async () => {
    const shown = await cli(['call', url, 'test_tool_with_progress']);
    assert.equal(shown.code, 0);
    assert.match(shown.stderr, /^progress 50\/100 \(50%\) Completed step 50 of 100$/m);
    assert.doesNotMatch(shown.stdout, /progress/);
    const quiet = await cli(['call', '--quiet', url, 'test_tool_with_logging']);
    assert.equal(quiet.stderr, '');
  });

  it("shows the server's log messages", async () => {
    const { code, stderr } = await cli(['call', url, 'test_tool_with_logging']);
    assert.equal(code, 0);
    assert.match(stderr, /^\[server info switchboard-everything\] Tool execution started$/m);
  });

  it('declines an elicitation without a terminal, saying why, once', async () => {
    const { code, stdout, stderr } = await cli(['call', url, 'test_elicitation', '{"message":"Your name?"}']);
    assert.equal(code, 0);
    assert.match(stdout, /action=decline/);
    assert.equal(stderr, 'switchboard: the server asked for input ("Your name?"); declined: stdin is not a terminal (run it in a terminal to answer)\n');
  });

  it('refuses sampling without --sampling-command, saying how to enable it, once', async () => {
    const { code, stderr } = await cli(['call', url, 'test_sampling', '{"prompt":"hi"}']);
    assert.equal(code, 1);
    assert.equal(stderr.match(/--sampling-command/g)?.length, 2, stderr);
    assert.equal(stderr.split('\n').filter((l) => l !== '').length, 1, stderr);
  });

  it('answers sampling through --sampling-command (params on stdin, result on stdout)', async () => {
    const dir = mkdtempSync(join(tmpdir(), 'sb-sampling-'));
    const script = join(dir, 'model.mjs');
    writeFileSync(
      script,
      `let s='';process.stdin.on('data',(d)=>s+=d).on('end',()=>{const p=JSON.parse(s);process.stdout.write(JSON.stringify({role:'assistant',model:'echo-model',content:{type:'text',text:'you said '+p.messages[0].content.text}}));});`,
    );
    const { code, stdout, stderr } = await cli(['call', '--sampling-command', `${JSON.stringify(process.execPath)} ${JSON.stringify(script)}`, url, 'test_sampling', '{"prompt":"ping"}']);
    assert.equal(code, 0, stderr);
    assert.match(stdout, /you said ping/);
  });
});
