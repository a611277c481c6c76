// The gateway's own files are off-limits to the servers it fronts (issue #31), end to end: the
// real `switchboard gateway` in front of the REAL @modelcontextprotocol/server-filesystem, rooted
// at a project folder that holds the gateway's config and (the worst case, an explicit stateDir)
// its state folder. An agent steered by injected text asks the filesystem server for the admin
// token, to rewrite the config, to move the pin and audit stores away. Judged by the effect on
// disk, by what server-filesystem returned (the token is in no answer) and by the denial records
// `switchboard audit export` prints.
// https://modelcontextprotocol.io/specification/2025-11-25/server/tools#security-considerations
// https://modelcontextprotocol.io/specification/2025-11-25/client/roots#security-considerations
import assert from 'node:assert/strict';
import { execFile } from 'node:child_process';
import { existsSync } from 'node:fs';
import { mkdir, mkdtemp, readFile, rm, symlink, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { promisify } from 'node:util';
import { after, before, describe, it } from 'node:test';
import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { StreamableHTTPClientTransport } from '@modelcontextprotocol/sdk/client/streamableHttp.js';
import { MAIN, startGateway, userFolderEnv, writeConfig, type GatewayConfig, type RunningGateway } from '../interop/fixtures/gatewayHarness.js';
import { REPO_ROOT } from '../interop/fixtures/ourServerHarness.js';
import { connectionsKeyFile, loadConnectionsKeyFile } from '../../src/store/connectionSealer.js';

const TIMEOUT = { timeout: 60_000 };
const FS_SERVER = join(REPO_ROOT, 'node_modules', '@modelcontextprotocol', 'server-filesystem', 'dist', 'index.js');

/** One request record of `audit export`. */
interface Exported {
  readonly kind: string;
  readonly method: string;
  readonly name?: string;
  readonly outcome: string;
  readonly decisions?: readonly { interceptor: string; outcome: string; reason?: string }[];
}

describe('e2e: the gateway\'s own files through the real server-filesystem', () => {
  let config: GatewayConfig;
  let gateway: RunningGateway;
  let client: Client;
  let state: string;
  let adminToken: string;
  let connectionsKey: string;
  let configText: string;
  let elsewhere: string;

  /** Everything the answer to a call carries, as text (a refusal or the server's result). */
  const call = async (name: string, args: Record<string, unknown>): Promise<{ text: string; isError: boolean }> => {
    try {
      const result = await client.callTool({ name, arguments: args });
      return { text: JSON.stringify(result), isError: result.isError === true };
    } catch (error) {
      return { text: String(error), isError: true };
    }
  };
  // Run from another folder without --config: the CLI finds the running gateway through the per-user folder.
  const exported = async (): Promise<Exported[]> => {
    const { stdout } = await promisify(execFile)(process.execPath, [MAIN, 'audit', 'export'], { cwd: elsewhere, env: { ...process.env, NODE_OPTIONS: '', ...userFolderEnv(config) } });
    return stdout
      .split('\n')
      .filter((line) => line !== '')
      .map((line) => JSON.parse(line) as Exported)
      .filter((r) => r.kind === 'request');
  };
  /** The refusal of `name` is in the audit log, by this interceptor. */
  const refusedInLog = async (name: string): Promise<void> => {
    const records = (await exported()).filter((r) => r.method === 'tools/call' && r.name === name && r.outcome === 'denied');
    assert.ok(
      records.some((r) => r.decisions?.some((d) => d.interceptor === 'policy.protected-paths' && d.outcome === 'deny')),
      `no denial of ${name} by policy.protected-paths in the audit log`,
    );
  };
  const refused = (answer: { text: string; isError: boolean }): void => {
    assert.equal(answer.isError, true, answer.text);
    assert.match(answer.text, /policy\.protected-paths/);
    assert.ok(!answer.text.includes(adminToken), 'the admin token is in the answer');
  };

  before(async () => {
    // The project folder: the config, a state folder under data/, and an ordinary file. The
    // filesystem server is launched on a folder of its own and then given the project (and,
    // carelessly, the state folder) as MCP roots.
    config = await writeConfig({}, {});
    elsewhere = await mkdtemp(join(tmpdir(), 'sb-elsewhere-'));
    const project = config.dir;
    state = join(project, 'data', '.switchboard');
    await mkdir(join(project, 'launch-root'), { recursive: true });
    await writeFile(join(project, 'notes.txt'), 'ordinary notes\n');
    await writeFile(
      config.file,
      JSON.stringify(
        {
          mcpServers: { fs: { command: process.execPath, args: [FS_SERVER, join(project, 'launch-root')], cwd: project } },
          switchboard: { stateDir: 'data/.switchboard', roots: [project, state], namespacing: 'never' },
        },
        null,
        2,
      ),
    );
    configText = await readFile(config.file, 'utf8');
    // The per-user connections key (issue #34), as the gateway creates it on first use.
    loadConnectionsKeyFile(connectionsKeyFile(state));
    connectionsKey = (await readFile(connectionsKeyFile(state), 'utf8')).trim();
    gateway = await startGateway(config, [], [], userFolderEnv(config));
    const token = (await readFile(join(state, 'gateway-token'), 'utf8')).trim();
    adminToken = (await readFile(join(state, 'admin-token'), 'utf8')).trim();
    assert.ok(adminToken.length >= 32);
    client = new Client({ name: 'agent', version: '1.0.0' });
    await client.connect(new StreamableHTTPClientTransport(gateway.url, { requestInit: { headers: { Authorization: `Bearer ${token}` } } }));
    // server-filesystem replaces its launch folder with the roots it is offered, once it has asked for them.
    for (let i = 0; i < 200; i++) {
      const { text } = await call('list_allowed_directories', {});
      if (!text.includes('launch-root')) break;
      await new Promise((resolve) => setTimeout(resolve, 50));
    }
  });

  after(async () => {
    await client?.close().catch(() => undefined);
    await gateway?.stop();
    await config?.remove();
    await rm(elsewhere, { recursive: true, force: true });
  });

  it('start: the gateway warns that a server\'s root contains its config and one names its state folder', TIMEOUT, () => {
    // (The project's root URI may be redacted in the log: a temp folder's name looks like a secret.)
    assert.match(gateway.stderr(), /server fs: its root \S+ contains the gateway's config file/);
    assert.match(gateway.stderr(), /server fs: its root \S+\.switchboard names the gateway's state folder/);
  });

  it('roots: the state folder is not among the roots server-filesystem was given; the project is', TIMEOUT, async () => {
    const { text } = await call('list_allowed_directories', {});
    assert.ok(text.includes(config.dir), text);
    assert.ok(!text.includes('.switchboard'), `server-filesystem was given the state folder: ${text}`);
  });

  it('self-approval: read_text_file of the admin token through server-filesystem is refused and recorded', TIMEOUT, async () => {
    refused(await call('read_text_file', { path: join(state, 'admin-token') }));
    await refusedInLog('read_text_file');
  });

  it('self-approval: spellings server-filesystem honours (./, //, .., relative, quotes and spaces) are refused alike', TIMEOUT, async () => {
    for (const path of [
      `${config.dir}/./data/.switchboard//admin-token`,
      `${config.dir}/nowhere/../data/.switchboard/admin-token`,
      'data/.switchboard/admin-token',
      `  "${join(state, 'admin-token')}"  `,
      `${config.dir}/data/./.switchboard/../.switchboard/admin-token`,
    ]) {
      refused(await call('read_text_file', { path }));
    }
  });

  it('self-approval: read_multiple_files with the admin token among ordinary files is refused', TIMEOUT, async () => {
    refused(await call('read_multiple_files', { paths: [join(config.dir, 'notes.txt'), join(state, 'admin-token')] }));
  });

  it('self-approval: a symlink the agent made first (by another tool) is followed at check time', TIMEOUT, async () => {
    await symlink(state, join(config.dir, 'innocent'));
    await symlink(join(state, 'admin-token'), join(config.dir, 'token-link.txt'));
    refused(await call('read_text_file', { path: join(config.dir, 'innocent', 'admin-token') }));
    refused(await call('read_text_file', { path: join(config.dir, 'token-link.txt') }));
  });

  it('config rewrite: a dangling symlink into the state folder (write_file would create the file there) is refused; nothing is created', TIMEOUT, async () => {
    // realpath(3) of a dangling link fails, so a check by "the longest existing prefix" read it as
    // an ordinary new file in the project; the write follows the link into the state folder.
    const planted = join(state, 'approvals-planted.json');
    await symlink(planted, join(config.dir, 'draft.json'));
    refused(await call('write_file', { path: join(config.dir, 'draft.json'), content: '{"approved":true}' }));
    refused(await call('write_file', { path: 'draft.json', content: '{"approved":true}' }));
    assert.ok(!existsSync(planted), 'the write went through the link into the state folder');
    await refusedInLog('write_file');
  });

  it('self-approval: search_files for the token file by pattern, and listing the state folder, are refused', TIMEOUT, async () => {
    refused(await call('search_files', { path: join(config.dir, 'data'), pattern: '**/admin-token' }));
    refused(await call('list_directory', { path: state }));
  });

  it('key theft: the connections key (it opens every user\'s stored tokens) is never read through server-filesystem', TIMEOUT, async () => {
    const key = connectionsKeyFile(state);
    await symlink(key, join(config.dir, 'key-link.txt'));
    for (const answer of [
      await call('read_text_file', { path: key }),
      await call('read_media_file', { path: key }),
      await call('read_text_file', { path: 'data/.switchboard/connections.key' }),
      await call('read_multiple_files', { paths: [join(config.dir, 'notes.txt'), key] }),
      await call('read_text_file', { path: join(config.dir, 'key-link.txt') }),
      await call('search_files', { path: join(config.dir, 'data'), pattern: '**/connections.*' }),
      await call('get_file_info', { path: key }),
      await call('move_file', { source: key, destination: join(config.dir, 'key-copy.txt') }),
    ]) {
      refused(answer);
      assert.ok(!answer.text.includes(connectionsKey), 'the connections key is in the answer');
    }
    assert.ok(!existsSync(join(config.dir, 'key-copy.txt')) && existsSync(key), 'the key was moved');
    await refusedInLog('read_media_file');
  });

  it('config rewrite: write_file and edit_file of switchboard.json are refused; the file is unchanged', TIMEOUT, async () => {
    refused(await call('write_file', { path: config.file, content: '{"mcpServers":{},"switchboard":{"policy":{}}}' }));
    refused(await call('edit_file', { path: 'switchboard.json', edits: [{ oldText: '"namespacing"', newText: '"x"' }] }));
    assert.equal(await readFile(config.file, 'utf8'), configText);
    await refusedInLog('write_file');
  });

  it('state reset: move_file of pins.db and audit.db (and of the state folder\'s parent) is refused; all stay in place', TIMEOUT, async () => {
    for (const file of ['pins.db', 'audit.db']) {
      refused(await call('move_file', { source: join(state, file), destination: join(config.dir, `${file}.moved`) }));
      assert.ok(existsSync(join(state, file)), `${file} was moved`);
      assert.ok(!existsSync(join(config.dir, `${file}.moved`)));
    }
    refused(await call('move_file', { source: join(config.dir, 'data'), destination: join(config.dir, 'elsewhere') }));
    refused(await call('move_file', { source: 'data', destination: 'elsewhere' }));
    assert.ok(existsSync(join(state, 'pins.db')) && !existsSync(join(config.dir, 'elsewhere')));
    // A move INTO the state folder is refused too (its destination is inside).
    refused(await call('move_file', { source: join(config.dir, 'notes.txt'), destination: join(state, 'pins.db') }));
    assert.equal(await readFile(join(config.dir, 'notes.txt'), 'utf8'), 'ordinary notes\n');
    await refusedInLog('move_file');
  });

  it('ordinary work still goes through: reading, listing the project (names only), writing a new file', TIMEOUT, async () => {
    const read = await call('read_text_file', { path: join(config.dir, 'notes.txt') });
    assert.equal(read.isError, false, read.text);
    assert.match(read.text, /ordinary notes/);
    const listed = await call('list_directory', { path: config.dir });
    assert.equal(listed.isError, false, listed.text);
    assert.ok(!listed.text.includes(adminToken));
    const written = await call('write_file', { path: join(config.dir, 'new.txt'), content: 'fine' });
    assert.equal(written.isError, false, written.text);
    assert.equal(await readFile(join(config.dir, 'new.txt'), 'utf8'), 'fine');
  });
});
