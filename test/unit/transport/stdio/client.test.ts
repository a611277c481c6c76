import assert from 'node:assert/strict';
import { kill } from 'node:process';
import { after, before, describe, it } from 'node:test';
import { Connection, type Progress } from '../../../../src/jsonrpc/connection.js';
import { isJsonRpcError } from '../../../../src/jsonrpc/errors.js';
import type { JsonRpcNotification } from '../../../../src/jsonrpc/messages.js';
import { StdioClientTransport, type StdioClientTransportOptions } from '../../../../src/transport/stdio/client.js';
import { defaultEnvironment } from '../../../../src/transport/stdio/env.js';
import { McpError, isMcpError, McpErrorCode } from '../../../../src/util/errors.js';
import type { Logger } from '../../../../src/util/logger.js';
import { echoServerCommand, isAlive, waitGone } from '../../../fixtures/stdio.js';

function memoryLogger(): Logger & { warnings: string[] } {
  const warnings: string[] = [];
  const noop = (): void => undefined;
  const trace = process.env['SB_TRACE'] === '1' ? (m: string, f?: object): void => console.error(Date.now() % 100_000, m, JSON.stringify(f ?? {})) : noop;
  return { warnings, debug: trace, info: trace, error: trace, warn: (message, f) => (trace(message, f), warnings.push(message)) };
}

interface Harness {
  readonly transport: StdioClientTransport;
  readonly connection: Connection;
  readonly notifications: JsonRpcNotification[];
  readonly logger: ReturnType<typeof memoryLogger>;
}

async function launch(flags: string[] = [], options: Partial<StdioClientTransportOptions> = {}): Promise<Harness> {
  const logger = memoryLogger();
  const transport = new StdioClientTransport({ ...echoServerCommand(...flags), stderr: 'ignore', logger, ...options });
  const notifications: JsonRpcNotification[] = [];
  const connection = new Connection(transport, { logger, onNotification: (n) => notifications.push(n), defaultTimeoutMs: 20_000 });
  await connection.start();
  return { transport, connection, notifications, logger };
}

const isClosedError = (e: unknown): boolean => isMcpError(e, McpErrorCode.ConnectionClosed);

// Grandchildren the fixture started; killed at the end should a test fail to clean them up.
const grandchildren: number[] = [];
async function spawnGrandchild(h: Harness, ignoreSigterm = false): Promise<number> {
  const { pid } = (await h.connection.request('spawnGrandchild', { ignoreSigterm })) as { pid: number };
  grandchildren.push(pid);
  return pid;
}

// Every test must leave no rejection unhandled.
const unhandled: unknown[] = [];
const onUnhandled = (reason: unknown): void => {
  unhandled.push(reason);
};

describe('transport/stdio/client', () => {
  before(() => process.on('unhandledRejection', onUnhandled));
  after(async () => {
    for (const pid of grandchildren) if (await isAlive(pid)) kill(pid, 'SIGKILL');
    process.off('unhandledRejection', onUnhandled);
    assert.deepEqual(unhandled, []);
  });

  describe('against one long-lived echo server', () => {
    let h: Harness;
    before(async () => {
      h = await launch();
    });
    after(async () => {
      await h.connection.close();
    });

    it('round-trips a request and exposes the child pid', async () => {
      const params = { text: 'héllo 🎉', nested: { list: [1, 2, { deep: true }] } };
      assert.deepEqual(await h.connection.request('echo', params), params);
      const { pid } = await h.connection.request('pid');
      assert.equal(pid, h.transport.pid);
      assert.equal(typeof h.transport.pid, 'number');
    });

    it('correlates 1,000 concurrent requests over the real child process', async () => {
      const n = 1000;
      const started = performance.now();
      const results = await Promise.all(
        Array.from({ length: n }, (_, i) =>
          i % 10 === 0
            ? h.connection.request('sleep', { ms: (i * 7) % 20 }).then((r) => ({ i, r, kind: 'sleep' as const }))
            : h.connection.request('echo', { i, tag: `req-${i}` }).then((r) => ({ i, r, kind: 'echo' as const })),
        ),
      );
      const elapsed = performance.now() - started;
      for (const { i, r, kind } of results) {
        if (kind === 'sleep') assert.deepEqual(r, { slept: (i * 7) % 20 });
        else assert.deepEqual(r, { i, tag: `req-${i}` });
      }
      assert.equal(h.connection.pendingCount, 0);
      assert.ok(elapsed < 30_000, `took ${elapsed} ms`);
    });

    it('routes progress notifications to the request', async () => {
      const seen: Progress[] = [];
      const result = await h.connection.request('progress', { steps: 3 }, { onProgress: (p) => seen.push(p) });
      assert.deepEqual(result, { done: true });
      assert.deepEqual(seen, [
        { progress: 1, total: 3 },
        { progress: 2, total: 3 },
        { progress: 3, total: 3 },
      ]);
    });

    it('receives server notifications', async () => {
      await h.connection.request('notify', { method: 'notifications/message', params: { level: 'info', data: 'hi' } });
      assert.deepEqual(h.notifications.at(-1), { jsonrpc: '2.0', method: 'notifications/message', params: { level: 'info', data: 'hi' } });
    });

    it('cancels a request: it rejects locally and the server stops without answering', async () => {
      const controller = new AbortController();
      const pending = h.connection.request('sleep', { ms: 10_000 }, { signal: controller.signal });
      setTimeout(() => controller.abort('changed my mind'), 50);
      await assert.rejects(pending, (e: unknown) => isMcpError(e, McpErrorCode.RequestCancelled));
      assert.deepEqual(await h.connection.request('echo', { after: 'cancel' }), { after: 'cancel' });
      assert.ok(!h.logger.warnings.some((w) => /unknown id/.test(w)), 'the server must not answer a cancelled request');
    });

    it('drops garbage lines on stdout with a warning while valid traffic continues', async () => {
      const before = h.logger.warnings.length;
      const echoes = Array.from({ length: 20 }, (_, i) => h.connection.request('echo', { i }));
      const garbage = h.connection.request('garbage', { lines: ['not json', '{"half":', '[1,2', '{"jsonrpc":"1.0","id":5}', '\u0000\u0001'] });
      assert.deepEqual(await garbage, { ok: true });
      assert.deepEqual(await Promise.all(echoes), Array.from({ length: 20 }, (_, i) => ({ i })));
      assert.deepEqual(await h.connection.request('echo', { still: 'alive' }), { still: 'alive' });
      const warnings = h.logger.warnings.slice(before).filter((w) => /not a valid JSON-RPC message/.test(w));
      assert.equal(warnings.length, 5);
    });

    it('surfaces a method the server lacks as a -32601 JsonRpcError', async () => {
      await assert.rejects(h.connection.request('nope'), (e: unknown) => isJsonRpcError(e, -32601));
    });
  });

  it('tolerates garbage before the first message', async () => {
    const h = await launch(['--garbage-at-start']);
    assert.deepEqual(await h.connection.request('echo', { a: 1 }), { a: 1 });
    assert.ok(h.logger.warnings.some((w) => /not a valid JSON-RPC message/.test(w)));
    await h.connection.close();
  });

  it('fails every pending request with ERR_MCP_CONNECTION_CLOSED when the child exits mid-call', async () => {
    const h = await launch();
    const sleepers = Array.from({ length: 50 }, () => h.connection.request('sleep', { ms: 60_000 }));
    await h.connection.request('echo', {}); // the sleepers are in flight on the server
    const exitCall = h.connection.request('exit', { code: 7 });
    const results = await Promise.allSettled([...sleepers, exitCall]);
    for (const r of results) {
      assert.equal(r.status, 'rejected');
      assert.ok(isClosedError(r.reason), String(r.reason));
      const reason = (r.reason as McpError).cause;
      assert.ok(reason instanceof McpError);
      assert.equal(reason.message, 'The server process exited with code 7');
      assert.deepEqual(reason.cause, { code: 7, signal: null });
    }
    assert.equal(h.connection.closed, true);
    assert.deepEqual(h.transport.exitStatus, { code: 7, signal: null });
    await assert.rejects(h.transport.send({ jsonrpc: '2.0', method: 'late' }), isClosedError);
    await assert.rejects(h.connection.request('echo'), isClosedError);
    await h.connection.close();
  });

  it('a server that exits at once: a request fails with its exit code, not the broken pipe it left (EPIPE), 20 starts', { timeout: 60_000 }, async () => {
    for (let i = 0; i < 20; i++) {
      const transport = new StdioClientTransport({ command: process.execPath, args: ['-e', 'process.exit(3)'], stderr: 'ignore', logger: memoryLogger() });
      const connection = new Connection(transport, { logger: memoryLogger(), defaultTimeoutMs: 20_000 });
      await connection.start();
      // Large enough that the write cannot sit in the pipe's buffer: it meets the exit as EPIPE on some starts.
      const reason = await connection.request('big', { pad: 'x'.repeat(256 * 1024) }).then(
        () => assert.fail('answered'),
        (e: unknown) => e,
      );
      assert.ok(reason instanceof McpError && reason.code === McpErrorCode.ConnectionClosed, String(reason));
      assert.match((reason as McpError).message, /exited with code 3/, `start ${i}`);
      await transport.close();
    }
  });

  it('drops half a line written before the child exits, with a warning', async () => {
    const h = await launch();
    await assert.rejects(h.connection.request('halfLineExit'), isClosedError);
    assert.deepEqual(h.transport.exitStatus, { code: 5, signal: null });
    assert.ok(h.logger.warnings.some((w) => /middle of a message/.test(w)));
  });

  it('rejects start() with ERR_MCP_SPAWN_FAILED when the command does not exist', async () => {
    const transport = new StdioClientTransport({ command: '/definitely/not/here/mcp-server', stderr: 'ignore' });
    const connection = new Connection(transport);
    await assert.rejects(connection.start(), (e: unknown) => {
      assert.ok(isMcpError(e, McpErrorCode.SpawnFailed));
      assert.equal((e.cause as { code?: string }).code, 'ENOENT');
      return true;
    });
    assert.equal(connection.closed, true);
    await assert.rejects(connection.request('echo'), isClosedError);
    await transport.close();
  });

  it('hands stderr text to the callback', async () => {
    let text = '';
    const h = await launch([], { stderr: (chunk) => (text += chunk) });
    await h.connection.request('stderr', { text: 'log line ✓\n' });
    const deadline = Date.now() + 10_000;
    while (!text.includes('log line ✓') && Date.now() < deadline) await new Promise((r) => setTimeout(r, 10));
    assert.match(text, /log line ✓/);
    await h.connection.close();
  });

  it("exposes stderr as a readable stream with stderr: 'pipe'", async () => {
    const transport = new StdioClientTransport({ ...echoServerCommand(), stderr: 'pipe' });
    const stderr = transport.stderr;
    assert.ok(stderr !== null);
    let text = '';
    stderr.setEncoding('utf8');
    stderr.on('data', (c: string) => (text += c));
    const connection = new Connection(transport);
    await connection.start();
    await connection.request('stderr', { text: 'piped\n' });
    await connection.close();
    assert.match(text, /piped/);
  });

  it('passes the env option as the complete child environment', async () => {
    const env = defaultEnvironment(process.env, { SWITCHBOARD_TEST: 'yes' });
    assert.equal(env['SWITCHBOARD_TEST'], 'yes');
    const h = await launch([], { env });
    assert.deepEqual(await h.connection.request('env', { name: 'SWITCHBOARD_TEST' }), { value: 'yes' });
    await h.connection.close();
  });

  it('close() lets a well-behaved child exit on stdin EOF, without signals', async () => {
    const h = await launch([], { shutdownTimeoutMs: 30_000 });
    await h.connection.request('echo'); // it is up and serving
    await h.connection.close();
    // Exited by itself with code 0: no SIGTERM was needed.
    assert.deepEqual(h.transport.exitStatus, { code: 0, signal: null });
    assert.ok(!h.logger.warnings.some((w) => /SIG/.test(w)));
    await h.transport.close(); // idempotent
  });

  it('close() SIGTERMs the process group of a child that ignores stdin EOF, grandchild included', async () => {
    const h = await launch(['--ignore-stdin-eof'], { shutdownTimeoutMs: 300 });
    const pid = await spawnGrandchild(h);
    assert.ok(await isAlive(pid));
    await h.connection.close();
    assert.deepEqual(h.transport.exitStatus, { code: null, signal: 'SIGTERM' });
    assert.ok(await waitGone(pid), `grandchild ${pid} is still alive`);
  });

  it('close() escalates to SIGKILL when the child and grandchild ignore SIGTERM', async () => {
    const h = await launch(['--ignore-stdin-eof', '--ignore-sigterm'], { shutdownTimeoutMs: 300 });
    const pid = await spawnGrandchild(h, true);
    const started = performance.now();
    await h.connection.close();
    assert.ok(performance.now() - started >= 550);
    assert.deepEqual(h.transport.exitStatus, { code: null, signal: 'SIGKILL' });
    assert.ok(await waitGone(pid), `grandchild ${pid} is still alive`);
    assert.ok(h.logger.warnings.some((w) => /SIGKILL/.test(w)));
  });

  it('close() also terminates a grandchild left behind by a child that exits on EOF', async () => {
    const h = await launch();
    const pid = await spawnGrandchild(h);
    await h.connection.close();
    assert.deepEqual(h.transport.exitStatus, { code: 0, signal: null });
    assert.ok(await waitGone(pid), `grandchild ${pid} is still alive`);
  });

  it('reports an external kill as the close reason', async () => {
    const h = await launch();
    const pending = h.connection.request('sleep', { ms: 60_000 });
    const closed = new Promise<Error | undefined>((resolve) => h.connection.onClose(resolve));
    kill(h.transport.pid ?? 0, 'SIGKILL');
    await assert.rejects(pending, isClosedError);
    const reason = await closed;
    assert.equal(reason?.message, 'The server process exited with signal SIGKILL');
  });

  it('rejects send before start, a second start, and start after close', async () => {
    const transport = new StdioClientTransport({ ...echoServerCommand(), stderr: 'ignore' });
    await assert.rejects(transport.send({ jsonrpc: '2.0', method: 'x' }), (e: unknown) => isMcpError(e, McpErrorCode.NotConnected));
    const sink = { receive: () => undefined, closed: () => undefined };
    await transport.start(sink);
    await assert.rejects(transport.start(sink), (e: unknown) => isMcpError(e, McpErrorCode.AlreadyStarted));
    await transport.close();
    const never = new StdioClientTransport({ ...echoServerCommand() });
    await never.close();
    await assert.rejects(never.start(sink), isClosedError);
    assert.equal(never.pid, undefined);
  });
});
