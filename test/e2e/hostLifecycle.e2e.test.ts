// The host with real child processes: a server killed mid-call, a crash-looping server, and
// servers that hang, answer garbage or flood notifications, next to a healthy one that keeps
// serving throughout. Each failure is a clear error naming the server and the cause.
import assert from 'node:assert/strict';
import { fileURLToPath } from 'node:url';
import { after, before, describe, it } from 'node:test';
import type { ServerConfig } from '../../src/host/configTypes.js';
import type { ServerHealth } from '../../src/host/downstream.js';
import { Host, type HostChange } from '../../src/host/host.js';
import { defaultTransportFactory } from '../../src/adapters/hostTransports.js';
import { McpError } from '../../src/util/errors.js';

const fixture = fileURLToPath(new URL('../fixtures/misbehavingServer.ts', import.meta.url));

function stdio(id: string, args: string[], options: Partial<ServerConfig['options']> = {}): Pick<ServerConfig, 'id' | 'launch' | 'options'> {
  return {
    id,
    launch: { kind: 'stdio', command: process.execPath, args, env: {}, cwd: undefined },
    options: { tools: { allow: undefined, deny: [] }, timeoutMs: 10_000, maxConcurrency: 8, era: 'auto', oauth: undefined, ...options },
  };
}

const text = (r: unknown): string => (r as { content: { text?: string }[] }).content.map((c) => c.text ?? '').join('');

let host: Host;
const healthEvents: ((h: readonly ServerHealth[]) => void)[] = [];
function whenHealth(predicate: (all: readonly (ServerHealth & { problem?: string })[]) => boolean): Promise<void> {
  return new Promise((resolve) => {
    const check = (): boolean => predicate(host.health());
    if (check()) return resolve();
    const off = host.onChange((change: HostChange) => {
      if (change === 'servers' && check()) {
        off();
        resolve();
      }
    });
  });
}

before(async () => {
  host = await Host.open({
    servers: [
      stdio('steady', ['--import', 'tsx', fixture, 'ok']),
      stdio('flaky', ['--import', 'tsx', fixture, 'ok']),
      stdio('looping', ['-e', 'process.exit(3)']),
      stdio('mute', ['--import', 'tsx', fixture, 'mute'], { timeoutMs: 1500, era: 'stateful' }),
      stdio('garbage', ['--import', 'tsx', fixture, 'garbage']),
      stdio('flood', ['--import', 'tsx', fixture, 'flood']),
    ],
    namespacing: 'always',
    transport: defaultTransportFactory({ environment: process.env }),
    backoff: { initialMs: 50, maxMs: 400, crashLoopAfter: 3 },
  });
  await host.start();
  void healthEvents;
});

after(async () => {
  await host.close();
});

describe('host lifecycle with real processes', () => {
  it('a downstream server killed mid-call: the caller gets a clear error, the server restarts, the next call succeeds', async () => {
    const pid = Number(text(await host.callTool('flaky__pid', {})));
    const started = Date.now();
    await assert.rejects(
      host.callTool('flaky__die', {}),
      (e: unknown) => e instanceof McpError && e.code === 'ERR_MCP_SERVER_UNAVAILABLE' && /Server flaky stopped during the request: .*exited with code 1/.test(e.message),
    );
    assert.ok(Date.now() - started < 10_000, 'within the timeout');
    await whenHealth((all) => all.some((h) => h.id === 'flaky' && h.state === 'ready' && h.restarts >= 1));
    const again = Number(text(await host.callTool('flaky__pid', {})));
    assert.notEqual(again, pid, 'a new process');
    assert.equal(text(await host.callTool('flaky__echo', { text: 'back' })), 'echo back');
  });

  it('a crash-looping server backs off and is reported while the others keep serving', async () => {
    await whenHealth((all) => all.some((h) => h.id === 'looping' && h.crashLooping));
    const looping = host.health().find((h) => h.id === 'looping');
    assert.match(looping?.lastError ?? '', /exited with code 3/);
    assert.equal(text(await host.callTool('steady__echo', { text: 'fine' })), 'echo fine');
  });

  it('a server that never answers its handshake fails to start with a timeout naming it', async () => {
    await whenHealth((all) => all.some((h) => h.id === 'mute' && h.failures >= 1));
    const mute = host.health().find((h) => h.id === 'mute');
    assert.match(mute?.lastError ?? '', /did not start: .*(timed out|did not answer)/i);
    assert.equal(host.tools.some((t) => t.serverId === 'mute'), false);
  });

  it('a server that writes garbage between its answers still serves; the garbage is dropped', async () => {
    assert.equal(text(await host.callTool('garbage__echo', { text: 'through noise' })), 'echo through noise');
  });

  it('a server that floods notifications does not stop the others or itself', async () => {
    const [flooded, steady] = await Promise.all([host.callTool('flood__flood', {}), host.callTool('steady__echo', { text: 'meanwhile' })]);
    assert.equal(text(flooded), 'flooded');
    assert.equal(text(steady), 'echo meanwhile');
  });

  it('close stops every child process', async () => {
    const pid = Number(text(await host.callTool('steady__pid', {})));
    await host.close();
    assert.throws(() => process.kill(pid, 0));
  });
});
