import assert from 'node:assert/strict';
import { createHash } from 'node:crypto';
import { describe, it } from 'node:test';
import { parseConfig } from '../../../src/host/config.js';
import { LaunchNotApprovedError, checkLaunch, describeLaunch, launchDigest, launchSpecOf, type LaunchSpec } from '../../../src/host/launchConsent.js';
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
    assert.match(describeLaunch({ command: 'x', args: [], cwd: null, env: [] }), /arguments: \(none\)[\s\S]*Switchboard's own[\s\S]*\(none\)/);
  });

  it('display spoofing: a right-to-left override or newline in an argument is shown escaped', () => {
    const text = describeLaunch({ command: 'sh', args: ['-c', 'echo hi\u202e#\nrm -rf ~'], cwd: null, env: [] });
    assert.ok(!text.includes('\u202e'));
    assert.match(text, /\[1\] "echo hi\\u202e#\\u000arm -rf ~"/);
  });
});

describe('host/launchConsent: checkLaunch', () => {
  it('approved by the digest in the config', async () => {
    assert.equal(await checkLaunch({ serverId: 'fs', spec, configApproved: digest, store: new MemoryLaunchApprovalStore(), yes: false }), 'approved');
  });

  it('approved by a recorded digest', async () => {
    assert.equal(await checkLaunch({ serverId: 'fs', spec, store: new MemoryLaunchApprovalStore({ fs: digest }), yes: false }), 'approved');
  });

  it('--yes approves now and records it', async () => {
    const store = new MemoryLaunchApprovalStore();
    assert.equal(await checkLaunch({ serverId: 'fs', spec, store, yes: true }), 'approved-now');
    assert.equal(await store.get('fs'), digest);
  });

  it('an accepted prompt approves now, showing the launch and digest', async () => {
    const store = new MemoryLaunchApprovalStore();
    let shown = '';
    const result = await checkLaunch({ serverId: 'fs', spec, store, yes: false, prompt: (text) => ((shown = text), Promise.resolve(true)) });
    assert.equal(result, 'approved-now');
    assert.ok(shown.includes(describeLaunch(spec)) && shown.includes(digest));
  });

  it('silent launch: an unapproved server without --yes or a prompt is refused, and the error says how to approve', async () => {
    await assert.rejects(checkLaunch({ serverId: 'fs', spec, store: new MemoryLaunchApprovalStore(), yes: false }), (error) => {
      assert.ok(refused(error));
      const message = (error as Error).message;
      assert.ok(message.includes(describeLaunch(spec)));
      assert.ok(message.includes('--yes'));
      assert.ok(message.includes(`"approvedLaunches": { "fs": "${digest}" }`));
      assert.ok(message.includes('"switchboard" section'));
      return true;
    });
  });

  it('declined prompt: the user saying no is refused and nothing is recorded', async () => {
    const store = new MemoryLaunchApprovalStore();
    await assert.rejects(checkLaunch({ serverId: 'fs', spec, store, yes: false, prompt: () => Promise.resolve(false) }), refused);
    assert.equal(await store.get('fs'), undefined);
  });

  it('rug pull: a changed argument after approval is refused', async () => {
    const store = new MemoryLaunchApprovalStore({ fs: digest });
    const pulled = { ...spec, args: ['-y', '@modelcontextprotocol/server-filesystem', '/'] };
    await assert.rejects(checkLaunch({ serverId: 'fs', spec: pulled, store, yes: false }), (e) => refused(e) && (e as LaunchNotApprovedError).changed && /changed since it was approved/.test((e as Error).message));
  });

  it('rug pull: a swapped command after approval in the config is refused', async () => {
    await assert.rejects(checkLaunch({ serverId: 'fs', spec: { ...spec, command: '/tmp/evil' }, configApproved: digest, store: new MemoryLaunchApprovalStore(), yes: false }), refused);
  });

  it('rug pull: a changed working directory after approval is refused', async () => {
    await assert.rejects(checkLaunch({ serverId: 'fs', spec: { ...spec, cwd: '/home/victim' }, store: new MemoryLaunchApprovalStore({ fs: digest }), yes: false }), refused);
  });

  it('env injection: an added environment variable (e.g. NODE_OPTIONS) after approval is refused', async () => {
    await assert.rejects(checkLaunch({ serverId: 'fs', spec: { ...spec, env: ['NODE_OPTIONS', 'TOKEN'] }, store: new MemoryLaunchApprovalStore({ fs: digest }), yes: false }), refused);
  });

  it('argument splitting: moving text between arguments changes the digest', () => {
    assert.notEqual(launchDigest({ ...spec, args: ['-y', 'a b'] }), launchDigest({ ...spec, args: ['-y', 'a', 'b'] }));
    assert.notEqual(launchDigest({ ...spec, args: ['ab'] }), launchDigest({ ...spec, args: ['a', 'b'] }));
  });

  it('approval transplant: a digest approved for one server does not approve another server', async () => {
    await assert.rejects(checkLaunch({ serverId: 'other', spec, store: new MemoryLaunchApprovalStore({ fs: digest }), yes: false }), refused);
  });
});
