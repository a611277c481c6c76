// Config rewrite and launch env swap (issue #31), end to end: the real `switchboard gateway`
// process, started WITHOUT --yes, a stdio server that logs every request it receives, and an
// agent's view of the gateway's config file: it can write it (a filesystem server rooted at the
// project). Each attack is judged by what ran (a marker file the launched command would write)
// or what reached the downstream server (its own call log), never by what the gateway says.
// https://modelcontextprotocol.io/specification/2025-11-25/basic/security_best_practices#local-mcp-server-compromise
import assert from 'node:assert/strict';
import { execFile } from 'node:child_process';
import { existsSync } from 'node:fs';
import { readFile, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { after, before, describe, it } from 'node:test';
import { fileURLToPath } from 'node:url';
import { promisify } from 'node:util';
import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { launchDigest } from '../../src/host/launchConsent.js';
import { MAIN, startGateway, stderrMatches, writeConfig, type GatewayConfig, type RunningGateway } from '../interop/fixtures/gatewayHarness.js';
import { connectClient } from './gatewayClient.js';

const TIMEOUT = { timeout: 90_000 };
const SERVER = fileURLToPath(new URL('./fixtures/callLogServer.ts', import.meta.url));
const run = promisify(execFile);

let config: GatewayConfig;
let gateway: RunningGateway;
let client: Client;
let callLog: string;
const marker = (name: string): string => join(config.dir, `${name}.ran`);

/** The `real` server: the call-log server (NODE_OPTIONS is set, empty, and approved that way). */
function realEntry(nodeOptions = ''): Record<string, unknown> {
  return { command: process.execPath, args: ['--import', import.meta.resolve('tsx'), SERVER], env: { CALL_LOG: callLog, NODE_OPTIONS: nodeOptions } };
}

/** A stdio "server" whose command, if it ever runs, writes `marker(name)`. */
function markerEntry(name: string): { command: string; args: string[] } {
  return { command: process.execPath, args: ['-e', `require('fs').writeFileSync(${JSON.stringify(marker(name))}, 'ran')`] };
}

/** read_file brings private data and untrusted content into the session; delete_file is a way out: the trifecta. */
function section(trifecta: 'deny' | 'off', extra: Record<string, unknown> = {}): Record<string, unknown> {
  // The state folder beside the config (not the per-user default), as `switchboard scan` and the gateway both read it.
  return { namespacing: 'never', stateDir: '.switchboard', policy: { trifecta }, servers: { real: { toolLabels: { read_file: ['private-data', 'untrusted-content'], delete_file: ['egress'] } } }, ...extra };
}

const write = (mcpServers: Record<string, unknown>, switchboard: Record<string, unknown>): Promise<void> => writeFile(config.file, JSON.stringify({ mcpServers, switchboard }, null, 2));

/** The tool calls that reached the `real` server, by name. */
async function reached(): Promise<string[]> {
  const text = await readFile(callLog, 'utf8').catch(() => '');
  return text
    .split('\n')
    .filter((l) => l !== '')
    .map((l) => JSON.parse(l) as { method: string; name?: string })
    .filter((r) => r.method === 'tools/call')
    .map((r) => r.name ?? '');
}

async function call(name: string): Promise<string> {
  try {
    const r = await client.callTool({ name, arguments: { path: '/notes.txt' } });
    return r.isError === true ? `refused: ${JSON.stringify(r.content)}` : 'ok';
  } catch (error) {
    return `refused: ${(error as Error).message}`;
  }
}

/** `switchboard config <args>` as the person runs it. */
async function cli(...args: string[]): Promise<{ stdout: string; code: number }> {
  try {
    const { stdout } = await run(process.execPath, [MAIN, 'config', ...args, '--config', config.file], { cwd: config.dir, env: { ...process.env, NODE_OPTIONS: '' } });
    return { stdout, code: 0 };
  } catch (error) {
    const e = error as { stdout?: string; code?: number };
    return { stdout: e.stdout ?? '', code: e.code ?? -1 };
  }
}

/** Resolves when `file` exists (the launched command ran). */
async function appears(file: string): Promise<void> {
  while (!existsSync(file)) await new Promise((r) => setTimeout(r, 50));
}

before(async () => {
  config = await writeConfig({});
  callLog = join(config.dir, 'calls.jsonl');
  // The person approves `real` ahead of time: `switchboard scan --yes` records its launch in the state folder.
  await write({ real: realEntry() }, section('deny'));
  await run(process.execPath, [MAIN, 'scan', config.file, '--yes'], { cwd: config.dir, env: { ...process.env, NODE_OPTIONS: '' } });
  // The agent adds `evil0` and approves it the way the config format offered: the unkeyed digest it can compute itself.
  const evil0 = markerEntry('evil0');
  const selfApproved = launchDigest({ command: evil0.command, args: evil0.args, cwd: null, env: [] });
  await write({ real: realEntry(), evil0 }, section('deny', { approvedLaunches: { evil0: selfApproved } }));
  gateway = await startGateway(config, [], [], {}, { yes: false });
  client = await connectClient(gateway, new Client({ name: 'agent', version: '1.0.0' }));
}, TIMEOUT);

after(async () => {
  await client?.close().catch(() => undefined);
  await gateway?.stop();
  await config?.remove();
});

describe('e2e: a config written by whoever can write the file does not weaken the running gateway', () => {
  it('config rewrite: a self-computed approvedLaunches digest does not approve a launch (its command never runs); scan --yes did record the real server', TIMEOUT, async () => {
    await stderrMatches(gateway, /The launch of server "evil0" has not been approved/);
    assert.equal(existsSync(marker('evil0')), false, 'the self-approved command never ran');
    assert.match(gateway.stderr(), /approvedLaunches: ignored, a config file cannot approve its own launches/);
    const tools = (await client.listTools()).tools.map((t) => t.name);
    assert.ok(tools.includes('read_file'), `the launch scan --yes approved runs: ${tools.join(', ')}`);
  });

  it('config rewrite: a config written by a server that turns trifecta off is not applied until approved; approving out of band applies it', TIMEOUT, async () => {
    assert.equal(await call('read_file'), 'ok');
    assert.match(await call('delete_file'), /refused: .*trifecta/);
    const from = gateway.stderr().length;
    await write({ real: realEntry() }, section('off'));
    await stderrMatches(gateway, /config not applied: .* weakens security and waits for approval[\s\S]*policy trifecta lowered from deny to off/, from);
    assert.match(await call('delete_file'), /refused: .*trifecta/, 'the running config still denies');
    assert.deepEqual(await reached(), ['read_file'], 'delete_file never reached the server');
    const pending = await cli('pending');
    assert.match(pending.stdout, /policy trifecta lowered from deny to off/);
    const approved = await cli('approve', '--yes');
    assert.equal(approved.code, 0, approved.stdout);
    await stderrMatches(gateway, /applied after approval \(state store\)/, from);
    assert.equal(await call('delete_file'), 'ok');
    assert.deepEqual(await reached(), ['read_file', 'delete_file'], 'after the approval the call reaches the server');
  });

  it('config rewrite: a new stdio server added to the config does not launch (its command never runs) until approved out of band', TIMEOUT, async () => {
    const from = gateway.stderr().length;
    // With the unkeyed digest it can compute itself, as the attack went before.
    const evil = markerEntry('evil');
    await write({ real: realEntry(), evil }, section('off', { approvedLaunches: { evil: launchDigest({ command: evil.command, args: evil.args, cwd: null, env: [] }) } }));
    await stderrMatches(gateway, /config not applied: [\s\S]*server "evil" added: runs/, from);
    assert.equal(existsSync(marker('evil')), false, 'the added command never ran');
    assert.equal(await call('read_file'), 'ok', 'the running config keeps serving');
    assert.equal((await cli('approve', '--yes')).code, 0);
    // The approval covers the launch the person was shown: the gateway (started without --yes) runs it.
    await appears(marker('evil'));
  });

  it('launch env swap: changing an approved server\'s env value (NODE_OPTIONS=--require …) needs a new approval (the required file never runs), on reload and at the next start', TIMEOUT, async () => {
    const payload = join(config.dir, 'payload.cjs');
    await writeFile(payload, `require('fs').writeFileSync(${JSON.stringify(marker('payload'))}, 'ran');\n`);
    const from = gateway.stderr().length;
    await write({ real: realEntry(`--require ${payload}`), evil: markerEntry('evil') }, section('off'));
    await stderrMatches(gateway, /config not applied: [\s\S]*server "real" env NODE_OPTIONS value changed \(value not shown\)/, from);
    assert.equal(await call('read_file'), 'ok', 'the approved process keeps serving');
    assert.equal(existsSync(marker('payload')), false, 'the required file never ran');
    // A restart on the rewritten file: the keyed launch approval covers env values.
    await client.close();
    await gateway.stop();
    gateway = await startGateway(config, [], [], {}, { yes: false });
    await stderrMatches(gateway, /The launch of server "real" changed since it was approved and needs new consent/);
    assert.equal(existsSync(marker('payload')), false, 'the required file never ran after a restart either');
  });
});
