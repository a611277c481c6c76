import assert from 'node:assert/strict';
import { createHash } from 'node:crypto';
import { describe, it } from 'node:test';
import { parseConfig } from '../../../src/host/config.js';
import type { ServerConfig } from '../../../src/host/configTypes.js';
import { LaunchNotApprovedError, admitLaunches, checkLaunch, describeLaunch, launchDigest, launchSpecOf, type LaunchSpec } from '../../../src/host/launchConsent.js';
import { launchApproval } from '../../../src/host/launchKeys.js';
import { MemoryLaunchApprovalStore } from '../../../src/host/memoryStores.js';
import { canonicalJson } from '../../../src/server/requestState.js';
import { isMcpError } from '../../../src/util/errors.js';

const spec: LaunchSpec = { command: 'npx', args: ['-y', '@modelcontextprotocol/server-filesystem', '/tmp'], cwd: '/srv', env: ['TOKEN'] };
const digest = launchDigest(spec);

function refused(error: unknown): boolean {
  return error instanceof LaunchNotApprovedError && isMcpError(error, 'ERR_MCP_LAUNCH_NOT_APPROVED');
}

describe('host/launchConsent: spec, digest, description', () => {
  it('launchSpecOf takes command, args, cwd and sorted env names (not values) of a stdio server; none for a remote one', () => {
    const config = parseConfig(JSON.stringify({ mcpServers: { fs: { command: 'npx', args: ['a'], env: { Z: 'secret', A: 'x' }, cwd: '/w' }, web: { url: 'https://e.com/mcp' } } }), { file: '/c/sb.json', env: {} });
    assert.deepEqual(launchSpecOf(config.servers[0] as never), { command: 'npx', args: ['a'], cwd: '/w', env: ['A', 'Z'] });
    assert.equal(launchSpecOf(config.servers[1] as never), undefined);
  });

  it('the digest is sha256 over the canonical JSON of the spec', () => {
    const canonical = '{"args":["-y","@modelcontextprotocol/server-filesystem","/tmp"],"command":"npx","cwd":"/srv","env":["TOKEN"]}';
    assert.equal(digest, `sha256:${createHash('sha256').update(canonical).digest('hex')}`);
    assert.equal(launchDigest({ ...spec, env: ['B', 'A'] }), launchDigest({ ...spec, env: ['A', 'B'] }), 'env name order does not matter');
  });

  it('canonical JSON sorts keys by UTF-16 code units (RFC 8785 section 3.2.3 example)', () => {
    const value = { '\u20ac': 1, '\r': 2, '\ufb33': 3, '1': 4, '\ud83d\ude00': 5, '\u0080': 6, '\u00f6': 7 };
    assert.equal(canonicalJson(value), '{"\\r":2,"1":4,"\u0080":6,"\u00f6":7,"\u20ac":1,"\ud83d\ude00":5,"\ufb33":3}');
  });

  it('describeLaunch shows the command, each argument, the cwd and env names, never values', () => {
    const text = describeLaunch(spec);
    assert.equal(text, ['  command: "npx"', '  arguments:', '    [0] "-y"', '    [1] "@modelcontextprotocol/server-filesystem"', '    [2] "/tmp"', '  working directory: "/srv"', '  environment variables set: "TOKEN" (values not shown)'].join('\n'));
    assert.match(describeLaunch({ command: 'x', args: [], cwd: null, env: [] }), /arguments: \(none\)[\s\S]*working directory: \(not set in the config: the gateway's own, wherever the MCP client starts it\)[\s\S]*\(none\)/);
  });

  it('wrong working folder: a launch without cwd names the folder it inherits, in the prompt and in the refusal', async () => {
    const launch = { command: 'x', args: [], cwd: null, env: [] };
    assert.match(describeLaunch(launch, '/home/user/project'), /working directory: "\/home\/user\/project" \(not set in the config: the gateway's own\)/);
    let asked = '';
    await assert.rejects(
      checkLaunch({ serverId: 's', spec: launch, digest: 'd', store: new MemoryLaunchApprovalStore(), yes: false, inheritedCwd: '/srv/gw', prompt: (text) => ((asked = text), Promise.resolve(false)) }),
      (error: Error) => /working directory: "\/srv\/gw"/.test(error.message),
    );
    assert.match(asked, /working directory: "\/srv\/gw" \(not set in the config: the gateway's own\)/);
  });

  it('display spoofing: a right-to-left override or newline in an argument is shown escaped', () => {
    const text = describeLaunch({ command: 'sh', args: ['-c', 'echo hi\u202e#\nrm -rf ~'], cwd: null, env: [] });
    assert.ok(!text.includes('\u202e'));
    assert.match(text, /\[1\] "echo hi\\u202e#\\u000arm -rf ~"/);
  });
});

const KEY = 'k'.repeat(43);
/** The server `fs` of a config, its launch spec and keyed approval. */
function serverOf(entry: Record<string, unknown>): { server: ServerConfig; spec: LaunchSpec; digest: string } {
  const server = parseConfig(JSON.stringify({ mcpServers: { fs: entry } }), { file: '/c/sb.json', env: { TOKEN_SRC: 'from-env' } }).servers[0] as ServerConfig;
  return { server, spec: launchSpecOf(server) as LaunchSpec, digest: launchApproval(KEY, server) as string };
}
const base = { command: 'npx', args: ['-y', '@modelcontextprotocol/server-filesystem', '/tmp'], cwd: '/srv', env: { TOKEN: '${env:TOKEN_SRC}' } };
const approved = serverOf(base);

describe('host/launchConsent: checkLaunch', () => {
  it('approved by a recorded keyed digest', async () => {
    assert.equal(await checkLaunch({ serverId: 'fs', spec: approved.spec, digest: approved.digest, store: new MemoryLaunchApprovalStore({ fs: approved.digest }), yes: false }), 'approved');
  });

  it('--yes approves now and records the keyed digest', async () => {
    const store = new MemoryLaunchApprovalStore();
    assert.equal(await checkLaunch({ serverId: 'fs', spec: approved.spec, digest: approved.digest, store, yes: true }), 'approved-now');
    assert.equal(await store.get('fs'), approved.digest);
    assert.match(approved.digest, /^hmac-sha256:[0-9a-f]{64}$/);
  });

  it('an accepted prompt approves now, showing the launch', async () => {
    const store = new MemoryLaunchApprovalStore();
    let shown = '';
    const result = await checkLaunch({ serverId: 'fs', spec: approved.spec, digest: approved.digest, store, yes: false, prompt: (text) => ((shown = text), Promise.resolve(true)) });
    assert.equal(result, 'approved-now');
    assert.ok(shown.includes(describeLaunch(approved.spec)));
  });

  it('silent launch: an unapproved server without --yes or a prompt is refused, and the error says how to approve (never through the config file)', async () => {
    await assert.rejects(checkLaunch({ serverId: 'fs', spec: approved.spec, digest: approved.digest, store: new MemoryLaunchApprovalStore(), yes: false }), (error) => {
      assert.ok(refused(error));
      const message = (error as Error).message;
      assert.ok(message.includes(describeLaunch(approved.spec)));
      assert.ok(message.includes('--yes'));
      assert.ok(message.includes('Review page'));
      assert.ok(!message.includes('approvedLaunches'));
      return true;
    });
  });

  it('declined prompt: the user saying no is refused and nothing is recorded', async () => {
    const store = new MemoryLaunchApprovalStore();
    await assert.rejects(checkLaunch({ serverId: 'fs', spec: approved.spec, digest: approved.digest, store, yes: false, prompt: () => Promise.resolve(false) }), refused);
    assert.equal(await store.get('fs'), undefined);
  });

  for (const [attack, entry] of [
    ['rug pull: a changed argument after approval is refused', { ...base, args: ['-y', '@modelcontextprotocol/server-filesystem', '/'] }],
    ['rug pull: a swapped command after approval is refused', { ...base, command: '/tmp/evil' }],
    ['rug pull: a changed working directory after approval is refused', { ...base, cwd: '/home/victim' }],
    ['env injection: an added environment variable (NODE_OPTIONS) after approval is refused', { ...base, env: { ...base.env, NODE_OPTIONS: '--require /tmp/x.js' } }],
    ['launch env swap: a changed env value after approval is refused', { ...base, env: { TOKEN: '--require /tmp/x.js' } }],
  ] as const) {
    it(attack, async () => {
      const pulled = serverOf(entry);
      assert.notEqual(pulled.digest, approved.digest);
      const store = new MemoryLaunchApprovalStore({ fs: approved.digest });
      await assert.rejects(checkLaunch({ serverId: 'fs', spec: pulled.spec, digest: pulled.digest, store, yes: false }), (e) => refused(e) && (e as LaunchNotApprovedError).changed && /changed since it was approved/.test((e as Error).message));
    });
  }

  it('self-computed approval: the unkeyed sha256 digest an agent can compute does not approve a launch (an older store entry never matches)', async () => {
    const unkeyed = launchDigest(approved.spec);
    await assert.rejects(checkLaunch({ serverId: 'fs', spec: approved.spec, digest: approved.digest, store: new MemoryLaunchApprovalStore({ fs: unkeyed }), yes: false }), refused);
  });

  it('a config file cannot approve its own launches: approvedLaunches is ignored with a warning, and admitLaunches does not start the server', async () => {
    const config = parseConfig(JSON.stringify({ mcpServers: { fs: base }, switchboard: { approvedLaunches: { fs: launchDigest(approved.spec) } } }), { file: '/c/sb.json', env: { TOKEN_SRC: 'x' } });
    assert.ok(config.warnings.some((w) => /approvedLaunches: ignored, a config file cannot approve its own launches/.test(w)));
    const refusedIds: string[] = [];
    const admitted = await admitLaunches(config, { store: new MemoryLaunchApprovalStore(), key: KEY, yes: false, refused: (s) => refusedIds.push(s.id) });
    assert.deepEqual(admitted, []);
    assert.deepEqual(refusedIds, ['fs']);
  });

  it('a secret rotated in the gateway\'s environment needs no new consent (the value as written, ${env:…}, is what is approved)', () => {
    const rotated = parseConfig(JSON.stringify({ mcpServers: { fs: base } }), { file: '/c/sb.json', env: { TOKEN_SRC: 'rotated' } }).servers[0] as ServerConfig;
    assert.equal(launchApproval(KEY, rotated), approved.digest);
  });

  it('a different key gives a different approval (a digest minted elsewhere does not transfer)', () => {
    assert.notEqual(launchApproval('x'.repeat(43), approved.server), approved.digest);
  });

  it('argument splitting: moving text between arguments changes the keyed digest', () => {
    assert.notEqual(serverOf({ ...base, args: ['-y', 'a b'] }).digest, serverOf({ ...base, args: ['-y', 'a', 'b'] }).digest);
    assert.notEqual(serverOf({ ...base, args: ['ab'] }).digest, serverOf({ ...base, args: ['a', 'b'] }).digest);
  });

  it('approval transplant: a digest approved for one server does not approve another server', async () => {
    await assert.rejects(checkLaunch({ serverId: 'other', spec: approved.spec, digest: approved.digest, store: new MemoryLaunchApprovalStore({ fs: approved.digest }), yes: false }), refused);
  });
});

describe('host/launchConsent: supply-chain checks at admission', { timeout: 10_000 }, () => {
  const squat = (args: readonly string[]): ServerConfig => serverOf({ command: 'npx', args }).server;
  /** Admits `server` with `options`; the ids admitted, refusals and warnings seen. */
  async function admit(server: ServerConfig, options: { store?: MemoryLaunchApprovalStore; yes: boolean; prompt?: (text: string) => Promise<boolean> }) {
    const refusedWith: unknown[] = [];
    const warned: string[] = [];
    const admitted = await admitLaunches({ servers: [server] }, {
      store: options.store ?? new MemoryLaunchApprovalStore(),
      key: KEY,
      yes: options.yes,
      ...(options.prompt !== undefined ? { prompt: options.prompt } : {}),
      refused: (_s, error) => refusedWith.push(error),
      warned: (_s, findings) => warned.push(...findings.map((f) => f.message)),
    });
    return { admitted: admitted.map((s) => s.id), refusedWith, warned };
  }

  it('typosquat: --yes does not approve a launch whose package is one edit from a well-known one; nothing is recorded', async () => {
    const store = new MemoryLaunchApprovalStore();
    const out = await admit(squat(['-y', '@modelcontextprotocol/server-githb@1.0.0']), { store, yes: true });
    assert.deepEqual(out.admitted, []);
    const error = out.refusedWith[0] as LaunchNotApprovedError;
    assert.ok(refused(error));
    assert.match(error.message, /is flagged and needs a person's approval/);
    assert.match(error.message, /WARNING \(typosquat\): .*"@modelcontextprotocol\/server-githb" is one edit away from the well-known "@modelcontextprotocol\/server-github"/);
    assert.match(error.message, /--yes does not approve a flagged launch/);
    assert.equal(await store.get('fs'), undefined);
  });

  it('confusable: a Cyrillic letter in the scope is shown escaped in the prompt, and a "no" refuses it', async () => {
    let asked = '';
    const out = await admit(squat(['-y', '@modelcontextprotocоl/server-github@1.0.0']), { yes: true, prompt: (text) => ((asked = text), Promise.resolve(false)) });
    assert.deepEqual(out.admitted, []);
    assert.match(asked, /WARNING \(confusable\): .*looks like the well-known "@modelcontextprotocol\/server-github"/);
    assert.match(asked, /protoc\\u043el/, 'the look-alike letter is spelled out');
    assert.ok(!asked.includes('\u043e'));
  });

  it('a person who saw the flag and said yes is recorded; the next start admits it without asking', async () => {
    const store = new MemoryLaunchApprovalStore();
    const server = squat(['-y', '@modelcontextprotocol/server-githb@1.0.0']);
    assert.deepEqual((await admit(server, { store, yes: false, prompt: () => Promise.resolve(true) })).admitted, ['fs']);
    assert.deepEqual((await admit(server, { store, yes: false })).admitted, ['fs']);
  });

  it('an approval given without the warning (an older approval, a config approval: the plain keyed digest) does not admit a flagged launch', async () => {
    const store = new MemoryLaunchApprovalStore();
    const server = squat(['-y', '@modeIcontextprotocol/server-github@1.0.0']);
    await store.set('fs', launchApproval(KEY, server) as string);
    const out = await admit(server, { store, yes: true });
    assert.deepEqual(out.admitted, []);
    assert.match((out.refusedWith[0] as Error).message, /WARNING \(confusable\)/);
  });

  it('pinned version bump: a launch approved at pkg@1.0.0 is a changed launch at pkg@1.0.1 and is not started without new consent', async () => {
    const store = new MemoryLaunchApprovalStore();
    assert.deepEqual((await admit(squat(['-y', '@modelcontextprotocol/server-github@1.0.0']), { store, yes: true })).admitted, ['fs']);
    const bumped = await admit(squat(['-y', '@modelcontextprotocol/server-github@1.0.1']), { store, yes: false });
    assert.deepEqual(bumped.admitted, []);
    assert.equal((bumped.refusedWith[0] as LaunchNotApprovedError).changed, true);
    assert.match((bumped.refusedWith[0] as Error).message, /changed since it was approved/);
  });

  it('unpinned: --yes admits it (a warning stops nothing) and the warning with its fix is told', async () => {
    const out = await admit(squat(['-y', '@modelcontextprotocol/server-github']), { yes: true });
    assert.deepEqual(out.admitted, ['fs']);
    assert.equal(out.warned.length, 1);
    assert.match(out.warned[0] ?? '', /not pinned: no version.*pin one release: @modelcontextprotocol\/server-github@x\.y\.z/);
  });
});
