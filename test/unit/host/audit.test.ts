import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { auditInterceptor, type AuditEntry, type AuditLog, type AuditRecord } from '../../../src/host/audit.js';
import { McpClient } from '../../../src/client/mcpClient.js';
import { Gateway } from '../../../src/host/gateway.js';
import { Host } from '../../../src/host/host.js';
import { createInMemoryPair } from '../../../src/transport/memory.js';
import { DeniedError, type Interceptor } from '../../../src/host/interceptors.js';
import { McpServer } from '../../../src/server/mcpServer.js';
import { SqliteAuditLog } from '../../../src/store/sqliteAudit.js';
import { isMcpError } from '../../../src/util/errors.js';
import { memoryServers, memorySpec } from './support/memoryServers.js';
import { announcingLog } from './support/announcingLog.js';

/** A log that keeps entries in memory and can be told to fail. */
class RecordingLog implements AuditLog {
  readonly entries: AuditEntry[] = [];
  problem: string | undefined;
  failWrites = false;
  append(entry: AuditEntry): Promise<AuditRecord> {
    if (this.failWrites) return Promise.reject(new Error('disk full'));
    this.entries.push(entry);
    const { arguments: _args, ...rest } = entry;
    return Promise.resolve({ ...rest, seq: this.entries.length, prev: '', hash: '' });
  }
}

function build(): McpServer {
  const server = new McpServer({ name: 's', version: '1' });
  server.tool('ok', { inputSchema: { type: 'object', properties: { v: { type: 'string' } } } }, (args) => `got ${String(args['v'])}`);
  server.tool('fails', {}, () => ({ content: [{ type: 'text', text: 'nope' }], isError: true }));
  server.tool('throws', {}, () => {
    throw new Error('boom');
  });
  return server;
}

async function hostWith(log: AuditLog, more: Interceptor[] = [], calls: string[] = []) {
  const servers = memoryServers(() => {
    const s = build();
    s.tool('count', {}, () => {
      calls.push('count');
      return 'counted';
    });
    return s;
  });
  const host = await Host.open({ servers: [memorySpec('s')], namespacing: 'never', transport: servers.factory, interceptors: [auditInterceptor(log, { now: () => 1_700_000_000_000 }), ...more] });
  await host.start();
  return host;
}

describe('host/audit: the audit interceptor', () => {
  it('records a call with its server, name, arguments (for the log to digest), decisions and outcome', async () => {
    const log = new RecordingLog();
    const observe: Interceptor = { id: 'policy.test', phase: 'policy', intercept: (ctx, next) => (ctx.record({ interceptor: 'policy.test', outcome: 'allow', reason: 'rule r1' }), next()) };
    const host = await hostWith(log, [observe]);
    await host.callTool('ok', { v: 'x' }, { principal: { id: 'alice' } });
    const call = log.entries.find((e) => e.method === 'tools/call');
    assert.deepEqual(call, {
      time: '2023-11-14T22:13:20.000Z',
      kind: 'request',
      method: 'tools/call',
      principal: 'alice',
      server: 's',
      name: 'ok',
      arguments: { v: 'x' },
      decisions: [{ interceptor: 'policy.test', outcome: 'allow', reason: 'rule r1' }],
      outcome: 'ok',
      latencyMs: 0,
    });
    await host.close();
  });

  it('a tool error, a downstream failure and a denial are each recorded with their outcome', async () => {
    const log = new RecordingLog();
    const deny: Interceptor = { id: 'policy.deny', phase: 'policy', intercept: (ctx, next) => (ctx.params['arguments'] !== undefined && (ctx.params['arguments'] as Record<string, unknown>)['v'] === 'bad' ? Promise.reject(new DeniedError('policy.deny', 'v is bad')) : next()) };
    const host = await hostWith(log, [deny]);
    await host.callTool('fails', {});
    await assert.rejects(host.callTool('throws', {}));
    await assert.rejects(host.callTool('ok', { v: 'bad' }), (e: unknown) => e instanceof DeniedError);
    const outcomes = log.entries.filter((e) => e.method === 'tools/call').map((e) => [e.name, e.outcome, e.error?.split(':')[0]]);
    assert.deepEqual(outcomes, [
      ['fails', 'tool-error', undefined],
      ['throws', 'error', outcomes[1]?.[2]],
      ['ok', 'denied', 'ERR_MCP_DENIED'],
    ]);
    assert.ok(outcomes[1]?.[2] !== undefined, 'the failure has its error');
    await host.close();
  });

  it('a tool error through the gateway (a forwarded answer) is recorded as tool-error, not ok', async () => {
    const log = new RecordingLog();
    const host = await hostWith(log);
    const gateway = new Gateway(host);
    const [clientSide, serverSide] = createInMemoryPair();
    await gateway.server.connect(serverSide);
    const client = new McpClient({ name: 'up', version: '1.0.0' }, { versions: ['2026-07-28'], defaultTimeoutMs: 5000 });
    await client.connect(clientSide);
    const result = await client.callTool('fails', {});
    assert.equal(result.isError, true);
    await client.callTool('ok', { v: 'x' });
    const outcomes = log.entries.filter((e) => e.method === 'tools/call').map((e) => [e.name, e.outcome]);
    assert.deepEqual(outcomes, [
      ['fails', 'tool-error'],
      ['ok', 'ok'],
    ]);
    await client.close();
    await gateway.close();
    await host.close();
  });

  it('audit gap: while the log cannot write, requests are refused before they reach the server', async () => {
    const log = new RecordingLog();
    const calls: string[] = [];
    const host = await hostWith(log, [], calls);
    log.problem = 'disk full';
    await assert.rejects(host.callTool('count', {}), (e: unknown) => e instanceof DeniedError && /audit log cannot be written \(disk full\)/.test(e.message));
    assert.deepEqual(calls, []);
    log.problem = undefined;
    await host.callTool('count', {});
    assert.deepEqual(calls, ['count']);
    await host.close();
  });

  it('an answer whose record could not be written is withheld', async () => {
    const log = new RecordingLog();
    const host = await hostWith(log);
    log.failWrites = true;
    await assert.rejects(host.callTool('ok', { v: 'x' }), (e: unknown) => isMcpError(e) && e.code === 'ERR_MCP_STORE_WRITE_FAILED' && /answer is withheld/.test(e.message));
    await host.close();
  });

  it('announces each request to the log and settles it with its append (so a grouping log need not wait for a request not in flight)', async () => {
    const events: string[] = [];
    const host = await hostWith(announcingLog(events));
    await host.callTool('ok', { v: 'x' });
    await assert.rejects(host.callTool('throws', {}));
    assert.deepEqual(events.slice(-4), ['announce', 'append ok announced=true', 'announce', 'append throws announced=true']);
    await host.close();
  });

  it('a request whose record cannot even be made withdraws its announcement (the answer is still withheld)', async () => {
    const events: string[] = [];
    const log = announcingLog(events, true);
    const servers = memoryServers(build);
    // A clock that yields no valid time: the record's time cannot be written.
    const host = await Host.open({ servers: [memorySpec('s')], namespacing: 'never', transport: servers.factory, interceptors: [auditInterceptor(log, { now: () => Number.NaN })] });
    await host.start();
    await assert.rejects(host.callTool('ok', { v: 'x' }), (e: unknown) => isMcpError(e) && /answer is withheld/.test(e.message));
    assert.deepEqual(events.slice(-2), ['announce', 'withdraw']);
    await host.close();
  });

  it('with the SQLite log: calls through the host leave a verified chain holding digests only', async () => {
    const log = SqliteAuditLog.open(':memory:');
    const host = await hostWith(log);
    await Promise.all([host.callTool('ok', { v: 'secret-value' }), host.callTool('ok', { v: 'other' }), host.callTool('fails', {})]);
    const calls = log.read().filter((r) => r.method === 'tools/call');
    assert.equal(calls.length, 3);
    assert.ok(calls.every((r) => /^sha256:/.test(r.argumentsDigest ?? '')));
    assert.ok(!JSON.stringify(log.read()).includes('secret-value'));
    assert.equal(log.verify().ok, true);
    await host.close();
    await log.close();
  });
});
