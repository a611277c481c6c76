// The first ten minutes of issue #33, done as a user does them: `switchboard wrap claude-desktop`
// on a fake HOME (the built CLI, dist/cli/main.js, as a separate process), then the exact command
// the wrapped config holds, started by the official SDK's stdio client, as Claude Desktop would,
// and closed by it: no process of the gateway's tree may outlive the close by 10 s.
import assert from 'node:assert/strict';
import { execFile } from 'node:child_process';
import { existsSync, mkdirSync, mkdtempSync, readdirSync, readFileSync, rmSync, statSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { dirname, join } from 'node:path';
import { after, before, describe, it } from 'node:test';
import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { StdioClientTransport } from '@modelcontextprotocol/sdk/client/stdio.js';
import { alive, descendants, processesMentioning, waitFor } from './processTree.js';

const root = new URL('../../', import.meta.url).pathname;
const MAIN = join(root, 'dist/cli/main.js');
const EVERYTHING = join(root, 'node_modules/@modelcontextprotocol/server-everything/dist/index.js');
const STUBBORN = join(root, 'test/e2e/fixtures/stubbornServer.mjs');
const TOKEN_ONE = 'ghp_first0000000000000000000000000000000';
const TOKEN_TWO = 'ghp_second000000000000000000000000000000';
const HEADER_TOKEN = 'Bearer lin_api_0123456789abcdef0123456789';

interface Outcome {
  readonly code: number;
  readonly stdout: string;
  readonly stderr: string;
}

let home: string;

/** The environment of a user whose HOME is the fake one (nothing of the real home is read or written). */
function userEnv(): Record<string, string> {
  return { PATH: process.env['PATH'] ?? '/usr/bin:/bin', HOME: home, XDG_CONFIG_HOME: join(home, '.config'), XDG_STATE_HOME: join(home, '.local', 'state'), LANG: 'C' };
}

function cli(args: readonly string[], cwd = home): Promise<Outcome> {
  return new Promise((resolve) => {
    execFile(process.execPath, [MAIN, ...args], { cwd, timeout: 60_000, env: userEnv() }, (error, stdout, stderr) => {
      resolve({ code: error === null ? 0 : typeof error.code === 'number' ? error.code : 1, stdout, stderr });
    });
  });
}

const desktopConfig = (): string => join(home, '.config', 'Claude', 'claude_desktop_config.json');

/** A Claude Desktop config with three servers (two with a different GITHUB_TOKEN each, one remote with a bearer header), and `more`. */
function writeDesktopConfig(more: Record<string, { command: string; args: string[] }> = {}): void {
  mkdirSync(dirname(desktopConfig()), { recursive: true });
  writeFileSync(
    desktopConfig(),
    JSON.stringify(
      {
        mcpServers: {
          everything: { command: process.execPath, args: [EVERYTHING, 'stdio'], env: { GITHUB_TOKEN: TOKEN_ONE, PLAIN: 'visible-value' } },
          work: { command: process.execPath, args: [EVERYTHING, 'stdio'], env: { GITHUB_TOKEN: TOKEN_TWO }, disabled: true },
          linear: { url: 'https://mcp.linear.app/mcp', headers: { Authorization: HEADER_TOKEN }, disabled: true },
          ...more,
        },
      },
      null,
      2,
    ),
    { mode: 0o644 },
  );
}

/** The gateway entry wrap left in the client's config. */
function gatewayEntry(): { command: string; args: string[]; env?: Record<string, string> } {
  const parsed = JSON.parse(readFileSync(desktopConfig(), 'utf8')) as { mcpServers: Record<string, { command: string; args: string[]; env?: Record<string, string> }> };
  assert.deepEqual(Object.keys(parsed.mcpServers), ['switchboard']);
  return parsed.mcpServers['switchboard'] as { command: string; args: string[]; env?: Record<string, string> };
}

/** Starts exactly what Claude Desktop would: the entry's command, args and env, through the official SDK's stdio client. */
async function connectAsClaude(): Promise<{ client: Client; transport: StdioClientTransport; stderr: () => string }> {
  const entry = gatewayEntry();
  const transport = new StdioClientTransport({ command: entry.command, args: entry.args, env: { ...userEnv(), ...entry.env }, cwd: home, stderr: 'pipe' });
  let stderr = '';
  transport.stderr?.on('data', (chunk: Buffer) => (stderr += chunk.toString()));
  const client = new Client({ name: 'claude-desktop-stand-in', version: '1.0.0' });
  await client.connect(transport);
  return { client, transport, stderr: () => stderr };
}

describe('switchboard wrap claude-desktop, as a first-time user (#33)', { timeout: 180_000 }, () => {
  before(() => {
    home = mkdtempSync(join(tmpdir(), 'sb-firstrun-'));
  });
  after(() => rmSync(home, { recursive: true, force: true }));

  it('secrets copied in clear: wrap leaves no token in switchboard.json (mode 0600), keeps them in the client entry, and renames a colliding GITHUB_TOKEN', { timeout: 60_000 }, async () => {
    writeDesktopConfig();
    const config = join(home, 'sb', 'switchboard.json');
    mkdirSync(dirname(config), { recursive: true });
    // Not a terminal and no --yes: nothing is approved (the next tests approve it).
    const wrap = await cli(['wrap', 'claude-desktop', '--config', config]);
    assert.equal(wrap.code, 0, wrap.stderr);
    const text = readFileSync(config, 'utf8');
    for (const secret of [TOKEN_ONE, TOKEN_TWO, HEADER_TOKEN, 'lin_api_', 'visible-value']) assert.equal(text.includes(secret), false, `${secret} leaked into switchboard.json`);
    assert.equal(statSync(config).mode & 0o777, 0o600);
    const servers = (JSON.parse(text) as { mcpServers: Record<string, { env?: Record<string, string>; headers?: Record<string, string> }> }).mcpServers;
    assert.deepEqual(servers['everything']?.env, { GITHUB_TOKEN: '${env:GITHUB_TOKEN}', PLAIN: '${env:PLAIN}' });
    assert.deepEqual(servers['work']?.env, { GITHUB_TOKEN: '${env:WORK_GITHUB_TOKEN}' });
    assert.deepEqual(servers['linear']?.headers, { Authorization: '${env:LINEAR_AUTHORIZATION}' });
    assert.deepEqual(gatewayEntry().env, { GITHUB_TOKEN: TOKEN_ONE, PLAIN: 'visible-value', WORK_GITHUB_TOKEN: TOKEN_TWO, LINEAR_AUTHORIZATION: HEADER_TOKEN });
    const backups = readdirSync(dirname(desktopConfig())).filter((n) => n.includes('.switchboard-backup-'));
    assert.equal(backups.length, 1);
    assert.equal(statSync(join(dirname(desktopConfig()), backups[0] as string)).mode & 0o777, 0o600, 'the backup holds the tokens: 0600');
    assert.match(wrap.stdout, /NOT approved yet: everything\. Until they are, these servers do not start and Claude Desktop sees one tool, switchboard_setup_required/);
    assert.match(wrap.stdout, /approve them: switchboard wrap claude-desktop --yes/);
    assert.match(wrap.stdout, /Next: restart Claude Desktop/);
  });

  it('zero tools in silence: with a launch not approved, the client lists one tool, switchboard_setup_required, whose call says how to approve', { timeout: 60_000 }, async () => {
    const { client, transport, stderr } = await connectAsClaude();
    try {
      const { tools } = await client.listTools();
      assert.deepEqual(tools.map((t) => t.name), ['switchboard_setup_required'], stderr());
      assert.match(tools[0]?.description ?? '', /"everything" has not been approved yet/);
      const result = (await client.callTool({ name: 'switchboard_setup_required', arguments: {} })) as { content: { text?: string }[] };
      const text = result.content.map((c) => c.text ?? '').join('');
      assert.match(text, /run switchboard scan .*switchboard\.json --yes/);
      assert.match(text, /Review page of the Switchboard console at http:\/\/127\.0\.0\.1:\d+\//);
    } finally {
      await transport.close();
    }
  });

  it('wrap --yes on the wrapped client approves the waiting launch and records it where the gateway reads it', { timeout: 60_000 }, async () => {
    const wrap = await cli(['wrap', 'claude-desktop', '--yes']);
    assert.equal(wrap.code, 0, wrap.stderr);
    assert.match(wrap.stdout, /already wrapped/);
    assert.match(wrap.stdout, /approved launches: everything \(recorded in /);
  });
});

// Must show (#33): one run of what the user does, from `wrap --yes` on a fresh HOME to the
// client closing, with one wrapped server (`fixtures/stubbornServer.mjs`) whose process and its
// child ignore stdin EOF and SIGTERM, and one that never answers initialize (still starting at
// close). The SDK's close is stdin EOF, 2 s, SIGTERM, 2 s, SIGKILL of the gateway only: the
// gateway must take its servers' trees with it.
describe('wrap claude-desktop --yes, then the client starts, uses and closes the gateway (#33 must show)', { timeout: 180_000 }, () => {
  before(() => {
    home = mkdtempSync(join(tmpdir(), 'sb-mustshow-'));
  });
  after(() => {
    // Whatever the outcome, nothing of this test keeps running.
    for (const pid of processesMentioning(home)) {
      try {
        process.kill(pid, 'SIGKILL');
      } catch {
        // already gone
      }
    }
    rmSync(home, { recursive: true, force: true });
  });

  it('orphaned servers / zero tools: the wrapped command lists tools and calls them; after close() no process of its tree is left within 10 s', { timeout: 150_000 }, async () => {
    const pidFile = (id: string): string => join(home, `${id}.pids`);
    writeDesktopConfig({
      stubborn: { command: process.execPath, args: [STUBBORN, pidFile('stubborn'), 'answer'] },
      hung: { command: process.execPath, args: [STUBBORN, pidFile('hung'), 'hang'] },
    });
    const wrap = await cli(['wrap', 'claude-desktop', '--yes']);
    assert.equal(wrap.code, 0, wrap.stderr);
    assert.match(wrap.stdout, /now starts the Switchboard gateway/);
    assert.match(wrap.stdout, /approved launches: everything, stubborn, hung \(recorded in /);
    assert.equal(statSync(join(home, 'switchboard.json')).mode & 0o777, 0o600);

    const { client, transport, stderr } = await connectAsClaude();
    const gatewayPid = transport.pid;
    assert.ok(gatewayPid !== null);
    let tree: number[] = [];
    try {
      const { tools } = await client.listTools();
      assert.ok(tools.length > 0, `no tools; gateway said: ${stderr()}`);
      assert.equal(tools.some((t) => t.name === 'switchboard_setup_required'), false, 'no notice once every launch is approved');
      const echo = tools.find((t) => t.name.endsWith('echo'));
      assert.ok(echo !== undefined, tools.map((t) => t.name).join(', '));
      const result = (await client.callTool({ name: echo.name, arguments: { message: 'hello through switchboard' } })) as { content: { type: string; text?: string }[]; isError?: boolean };
      assert.notEqual(result.isError, true, JSON.stringify(result));
      assert.match(result.content.map((c) => c.text ?? '').join(''), /hello through switchboard/);
      const env = tools.find((t) => t.name.endsWith('get-env'));
      assert.ok(env !== undefined);
      const printed = (await client.callTool({ name: env.name, arguments: {} })) as { content: { text?: string }[] };
      assert.match(printed.content.map((c) => c.text ?? '').join(''), /"PLAIN": "visible-value"/, 'the server sees its variable under its own name');
      const stubborn = tools.find((t) => t.name.endsWith('stubborn'));
      assert.ok(stubborn !== undefined, tools.map((t) => t.name).join(', '));
      const still = (await client.callTool({ name: stubborn.name, arguments: {} })) as { content: { text?: string }[] };
      assert.equal(still.content[0]?.text, 'still here');
      // Every server runs (the hung one and its child too: both recorded their pid); then the tree, by ppid.
      const servers = await waitFor('both processes of stubborn and hung', () => {
        const recorded = ['stubborn', 'hung'].map((id) => (existsSync(pidFile(id)) ? readFileSync(pidFile(id), 'utf8').split('\n').filter((l) => l !== '').map(Number) : []));
        return recorded.every((p) => p.length >= 2) ? recorded.flat() : undefined;
      }, 60_000);
      tree = [gatewayPid, ...descendants(gatewayPid)];
      for (const pid of servers) assert.ok(tree.includes(pid), `server process ${pid} is in the gateway's tree (${tree.join(', ')})`);
      assert.ok(tree.length >= 6, `the gateway, everything, and two processes each of stubborn and hung: ${tree.join(', ')}`);
      const marked = processesMentioning(home);
      for (const pid of [gatewayPid, ...servers]) assert.ok(marked.includes(pid), `the marker (this HOME) finds ${pid} too`);
    } finally {
      const since = Date.now();
      await client.close();
      // Nothing of the tree taken while it ran, nor anything naming this HOME in its argv or environment (re-parented or started late).
      const left = (): number[] => [...new Set([...tree.filter(alive), ...processesMentioning(home)])];
      await waitFor(() => `processes ${left().join(', ')} to be gone`, () => (left().length === 0 ? true : undefined), 10_000);
      console.log(`# SDK close of the wrapped gateway: ${tree.length} processes gone ${Date.now() - since} ms after close()`);
    }
  });
});
