// One guarded path (issue #30), end to end: the real `switchboard gateway` process, the official
// SDK v1 client with named bearer tokens (`gateway.auth.tokens`), and a stdio server that logs
// every request it receives. A rule denies a tool to alice only; between two starts the server
// changes a tool's description (a rug pull). Judged by the server's own log and by
// `switchboard audit export`, never by what the gateway says about itself.
// https://modelcontextprotocol.io/specification/2025-11-25/server/tools#security-considerations
import assert from 'node:assert/strict';
import { execFile } from 'node:child_process';
import { createHash, randomBytes } from 'node:crypto';
import { readFile } from 'node:fs/promises';
import { join } from 'node:path';
import { after, before, describe, it } from 'node:test';
import { fileURLToPath } from 'node:url';
import { promisify } from 'node:util';
import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { StreamableHTTPClientTransport } from '@modelcontextprotocol/sdk/client/streamableHttp.js';
import { MAIN, startGateway, writeConfig, type GatewayConfig, type RunningGateway } from '../interop/fixtures/gatewayHarness.js';
import { refusalText } from '../fixtures/refusal.js';

const TIMEOUT = { timeout: 60_000 };
const SERVER = fileURLToPath(new URL('./fixtures/callLogServer.ts', import.meta.url));
const ALICE_TOKEN = randomBytes(32).toString('hex');
const BOB_TOKEN = randomBytes(32).toString('hex');
/** Denies `delete_file` to alice only (the default reason, which names the rule). */
const NO_DELETE = { id: 'no-delete', when: "tool.name == 'delete_file' && principal.id == 'alice'", outcome: 'deny' };

/** One line of the server's own log. */
interface Reached {
  readonly variant: string;
  readonly method: string;
  readonly name?: string;
  readonly arguments?: Record<string, unknown>;
}

/** One line of `audit export`. */
interface Exported {
  readonly kind: string;
  readonly method: string;
  readonly name?: string;
  readonly principal?: string;
  readonly outcome: string;
}

/** An SDK v1 client of `url` that sends `token` as its bearer token. */
async function connect(url: URL, token: string): Promise<Client> {
  const client = new Client({ name: 'e2e', version: '1.0.0' });
  await client.connect(new StreamableHTTPClientTransport(url, { requestInit: { headers: { Authorization: `Bearer ${token}` } } }));
  return client;
}

const names = async (client: Client): Promise<string[]> => (await client.listTools()).tools.map((t) => t.name);

/** The request records `switchboard audit export --config <file>` prints (run with the gateway's `env`: the config names it). */
async function exportedRequests(config: GatewayConfig, env: Readonly<Record<string, string>> = {}): Promise<Exported[]> {
  const { stdout } = await promisify(execFile)(process.execPath, [MAIN, 'audit', 'export', '--config', config.file], { cwd: config.dir, env: { ...process.env, NODE_OPTIONS: '', ...env } });
  return stdout
    .split('\n')
    .filter((line) => line !== '')
    .map((line) => JSON.parse(line) as Exported)
    .filter((r) => r.kind === 'request');
}

/** The `mcpServers` entry of the call-log server: it logs to `calls.jsonl` in the config's folder; its variant comes from the gateway's environment. */
const FILES_SERVER = {
  command: process.execPath,
  args: ['--import', import.meta.resolve('tsx'), SERVER],
  cwd: '.',
  env: { CALL_LOG: 'calls.jsonl', FIXTURE_VARIANT: '${env:FIXTURE_VARIANT:-v1}' },
};

describe('e2e: one guarded path through the real gateway (SDK v1 client, named tokens)', () => {
  let config: GatewayConfig;
  let callLog: string;
  let gateway: RunningGateway | undefined;
  const reached = async (): Promise<Reached[]> =>
    (await readFile(callLog, 'utf8'))
      .split('\n')
      .filter((line) => line !== '')
      .map((line) => JSON.parse(line) as Reached);
  const start = async (variant: 'v1' | 'rug'): Promise<RunningGateway> => (gateway = await startGateway(config, [], [], { ALICE_TOKEN, FIXTURE_VARIANT: variant }));

  before(async () => {
    config = await writeConfig(
      { files: FILES_SERVER },
      {
        gateway: { auth: { tokens: [{ name: 'alice', token: '${env:ALICE_TOKEN}' }, { name: 'bob', sha256: createHash('sha256').update(BOB_TOKEN).digest('hex') }] } },
        policy: { rules: [NO_DELETE] },
      },
    );
    callLog = join(config.dir, 'calls.jsonl');
  }, TIMEOUT);

  after(async () => {
    await gateway?.stop();
    await config.remove();
  }, TIMEOUT);

  it('a denied tool is absent from alice’s list, listed for bob, and alice’s call of it is refused with the rule id and never reaches the server', TIMEOUT, async () => {
    const running = await start('v1');
    const alice = await connect(running.url, ALICE_TOKEN);
    const listed = await names(alice);
    assert.ok(listed.includes('weather') && listed.includes('read_file'), `alice lists the allowed tools: ${listed.join(', ')}`);
    assert.ok(!listed.includes('delete_file'), `the rule no-delete hides delete_file from alice, yet the gateway listed: ${listed.join(', ')}`);
    const weather = (await alice.callTool({ name: 'weather', arguments: { city: 'Oslo' } })) as { isError?: boolean; content: { text?: string }[] };
    assert.notEqual(weather.isError, true);
    assert.equal(weather.content[0]?.text, 'Sunny in Oslo');
    assert.match(await refusalText(alice.callTool({ name: 'delete_file', arguments: { path: 'alice.txt' } })), /no-delete/, 'the refusal names the rule');
    assert.match(await refusalText(alice.callTool({ name: 'no_such_tool', arguments: {} })), /Unknown tool/);
    await alice.close();

    const bob = await connect(running.url, BOB_TOKEN);
    assert.ok((await names(bob)).includes('delete_file'), 'the rule is alice’s only: bob still lists delete_file');
    await bob.callTool({ name: 'delete_file', arguments: { path: 'bob.txt' } });
    await bob.close();

    // The server answers in arrival order and logs before answering: bob's call, which came after
    // alice's refused one, is on disk, so alice's would be too had it arrived.
    const deletes = (await reached()).filter((r) => r.method === 'tools/call' && r.name === 'delete_file');
    assert.deepEqual(
      deletes.map((r) => r.arguments?.['path']),
      ['bob.txt'],
      'bob’s call reached the server, alice’s never did',
    );
    await running.stop();
  });

  it('after a rug pull, alice’s call of the quarantined tool names the review command and never reaches the server', TIMEOUT, async () => {
    const running = await start('rug');
    const alice = await connect(running.url, ALICE_TOKEN);
    assert.ok(!(await names(alice)).includes('weather'), 'the changed weather is withheld from the list');
    const text = await refusalText(alice.callTool({ name: 'weather', arguments: { city: 'Oslo' } }));
    assert.match(text, /weather/, 'the refusal names the tool');
    assert.match(text, /switchboard pins (diff|approve)/, 'the refusal names the review command');
    await alice.callTool({ name: 'read_file', arguments: { path: 'notes.txt' } });
    await alice.close();
    const rugged = (await reached()).filter((r) => r.variant === 'rug' && r.method === 'tools/call');
    assert.deepEqual(
      rugged.map((r) => r.name),
      ['read_file'],
      'the call after it reached the changed server; the quarantined one never did',
    );
    await running.stop();
  });

  it('every request of the session is in audit export, with the token’s name as principal', TIMEOUT, async () => {
    const requests = await exportedRequests(config, { ALICE_TOKEN });
    // A downstream server's own requests (`server/request`) have no caller; every client request has one.
    const unnamed = requests.filter((r) => r.method !== 'server/request' && r.principal !== 'alice' && r.principal !== 'bob');
    assert.deepEqual(
      unnamed.map((r) => `${r.method} ${r.name ?? ''} principal=${String(r.principal)}`),
      [],
      'every request carries its token’s name',
    );
    const of = (principal: string): string[] =>
      requests
        .filter((r) => r.principal === principal && r.method.startsWith('tools/'))
        .map((r) => [r.method, r.name, r.name === 'no_such_tool' && r.outcome !== 'ok' ? 'refused' : r.outcome].filter((x) => x !== undefined).join(' '))
        .sort();
    assert.deepEqual(
      of('alice'),
      [
        'tools/call delete_file denied', // the rule
        'tools/call no_such_tool refused', // an unknown name
        'tools/call read_file ok',
        'tools/call weather denied', // quarantined (second start)
        'tools/call weather ok',
        'tools/list ok',
        'tools/list ok',
      ],
      'one record per request of alice’s session, refusals included',
    );
    assert.deepEqual(of('bob'), ['tools/call delete_file ok', 'tools/list ok']);
  });
});

describe('e2e: the generated gateway token', () => {
  it('a caller with the generated gateway-token is recorded as principal "default"', TIMEOUT, async () => {
    const config = await writeConfig({ files: FILES_SERVER });
    const running = await startGateway(config);
    try {
      assert.notEqual(running.token, '', 'the gateway generated its token');
      assert.match(running.stderr(), /^Switchboard gateway: \S+ \(1 server\)$/m, 'one server, said in the singular');
      const client = await connect(running.url, running.token);
      await client.callTool({ name: 'read_file', arguments: { path: 'notes.txt' } });
      await client.close();
      await running.stop();
      const calls = (await exportedRequests(config)).filter((r) => r.method === 'tools/call');
      assert.deepEqual(
        calls.map((r) => [r.name, r.principal]),
        [['read_file', 'default']],
      );
    } finally {
      await running.stop();
      await config.remove();
    }
  });
});
