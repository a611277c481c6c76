// Audit records as OpenTelemetry log records (issue #13): with a LoggerProvider registered
// through @opentelemetry/api-logs, every record the audit log stores is also emitted, after it
// is durable, with its chain fields and the redacted text; nothing without a provider; a
// throwing emitter changes neither the call nor the chain.
// https://opentelemetry.io/docs/specs/otel/logs/data-model/
import assert from 'node:assert/strict';
import { afterEach, describe, it } from 'node:test';
import { logs } from '@opentelemetry/api-logs';
import { auditInterceptor, type AuditEntry, type AuditLog, type AuditRecord } from '../../../src/host/audit.js';
import { AUDIT_EVENT_NAME, AUDIT_LOGGER_SCOPE, auditLogRecord, emittingAuditLog } from '../../../src/host/auditTelemetry.js';
import { Host } from '../../../src/host/host.js';
import { DeniedError, type Interceptor } from '../../../src/host/interceptors.js';
import { redactingAuditLog } from '../../../src/host/secrets/redact.js';
import { McpServer } from '../../../src/server/mcpServer.js';
import { SqliteAuditLog } from '../../../src/store/sqliteAudit.js';
import { installLogRecorder, recordingLoggerProvider, type LogRecorder } from '../../fixtures/otelLogRecorder.js';
import { memoryServers, memorySpec } from './support/memoryServers.js';
import { announcingLog } from './support/announcingLog.js';

const GITHUB = `ghp_${'a1B2c3D4e5'.repeat(3)}xY9zW8`;

function build(): McpServer {
  const server = new McpServer({ name: 's', version: '1' });
  server.tool('ok', { inputSchema: { type: 'object', properties: { v: { type: 'string' } } } }, (args) => `got ${String(args['v'])}`);
  server.tool('fails', {}, () => ({ content: [{ type: 'text', text: 'nope' }], isError: true }));
  server.tool('throws', {}, () => {
    throw new Error(`boom with ${GITHUB}`);
  });
  return server;
}

const rule: Interceptor = {
  id: 'policy.test',
  phase: 'policy',
  intercept: (ctx, next) => {
    const v = (ctx.params['arguments'] as Record<string, unknown> | undefined)?.['v'];
    // A refusal that quotes a secret (as a guard quoting what it found would).
    if (v === 'leak') return Promise.reject(new DeniedError('policy.test', `refused: the arguments hold ${GITHUB}`));
    if (v === 'bad') {
      ctx.record({ interceptor: 'policy.test', outcome: 'deny', reason: 'v is bad', detail: { rule: 'no-bad-v' } });
      return Promise.reject(new DeniedError('policy.test', 'v is bad'));
    }
    ctx.record({ interceptor: 'policy.test', outcome: 'allow', detail: { rule: 'default' } });
    return next();
  },
};

async function hostWith(log: AuditLog): Promise<Host> {
  const servers = memoryServers(() => build());
  const host = await Host.open({ servers: [memorySpec('s')], namespacing: 'never', transport: servers.factory, interceptors: [auditInterceptor(log, { now: () => 1_700_000_000_000 }), rule] });
  await host.start();
  return host;
}

let recorder: LogRecorder | undefined;
afterEach(() => {
  recorder?.uninstall();
  recorder = undefined;
});

describe('host/auditTelemetry: audit records as OpenTelemetry log records', () => {
  it('a call through the host emits one log record per stored record: chain fields, attributes, severity by outcome, summary body, record time', async () => {
    recorder = installLogRecorder();
    const store = SqliteAuditLog.open(':memory:');
    const host = await hostWith(emittingAuditLog(store));
    await host.callTool('ok', { v: 'x' }, { principal: { id: 'alice' } });
    await host.callTool('fails', {});
    await assert.rejects(host.callTool('ok', { v: 'bad' }), (e: unknown) => e instanceof DeniedError);
    await assert.rejects(host.callTool('throws', {}));
    const stored = store.read();
    assert.equal(recorder.records.length, stored.length, 'one log record per audit record');
    for (const [i, r] of stored.entries()) {
      const emitted = recorder.records[i] as (typeof recorder.records)[number];
      assert.equal(emitted?.scope, AUDIT_LOGGER_SCOPE);
      assert.equal(emitted.eventName, AUDIT_EVENT_NAME);
      assert.equal(emitted.attributes?.['switchboard.audit.seq'], r.seq);
      assert.equal(emitted.attributes?.['switchboard.audit.hash'], r.hash);
      assert.equal(emitted.attributes?.['switchboard.audit.prev'], r.prev);
      assert.deepEqual(emitted.timestamp, new Date(r.time));
    }
    const calls = recorder.records.filter((l) => l.attributes?.['switchboard.audit.method'] === 'tools/call');
    assert.deepEqual(
      calls.map((l) => [l.attributes?.['switchboard.audit.name'], l.attributes?.['switchboard.audit.outcome'], l.severityText, l.severityNumber]),
      [
        ['ok', 'ok', 'INFO', 9],
        ['fails', 'tool-error', 'WARN', 13],
        ['ok', 'denied', 'WARN', 13],
        ['throws', 'error', 'ERROR', 17],
      ],
    );
    const first = calls[0]?.attributes ?? {};
    const firstStored = stored.find((r) => r.seq === first['switchboard.audit.seq']) as AuditRecord;
    assert.deepEqual(first, {
      'switchboard.audit.seq': firstStored.seq,
      'switchboard.audit.hash': firstStored.hash,
      'switchboard.audit.prev': firstStored.prev,
      'switchboard.audit.kind': 'request',
      'switchboard.audit.method': 'tools/call',
      'switchboard.audit.outcome': 'ok',
      'switchboard.audit.latency_ms': 0,
      'switchboard.audit.decisions': ['policy.test:allow'],
      'switchboard.audit.rule_ids': ['default'],
      'switchboard.audit.principal': 'alice',
      'switchboard.audit.server': 's',
      'switchboard.audit.name': 'ok',
      'switchboard.audit.arguments_digest': firstStored.argumentsDigest as string,
    });
    assert.equal(calls[0]?.body, `#${firstStored.seq} tools/call s ok by alice -> ok`);
    assert.deepEqual(calls[2]?.attributes?.['switchboard.audit.rule_ids'], ['no-bad-v']);
    assert.match(String(calls[2]?.attributes?.['switchboard.audit.error']), /^ERR_MCP_DENIED/);
    assert.equal(store.verify().ok, true);
    await host.close();
    await store.close();
  });

  it('a secret quoted in a refusal leaking to the log collector: the emitted record is the stored, redacted one', async () => {
    recorder = installLogRecorder();
    const store = SqliteAuditLog.open(':memory:');
    const host = await hostWith(emittingAuditLog(redactingAuditLog(store)));
    await assert.rejects(host.callTool('ok', { v: 'leak' }), (e: unknown) => e instanceof DeniedError && e.message.includes(GITHUB));
    const denied = recorder.records.find((l) => l.attributes?.['switchboard.audit.outcome'] === 'denied');
    assert.ok(denied);
    const emitted = JSON.stringify(denied);
    assert.ok(!emitted.includes(GITHUB), emitted);
    assert.match(String(denied.attributes?.['switchboard.audit.error']), /refused: the arguments hold /);
    assert.equal(denied.attributes?.['switchboard.audit.error'], store.read().find((r) => r.outcome === 'denied')?.error);
    await host.close();
    await store.close();
  });

  it('the wrappers (telemetry over redaction, as the gateway stacks them) pass announcements and the announced flag through to the store', async () => {
    const events: string[] = [];
    const wrapped = emittingAuditLog(redactingAuditLog(announcingLog(events)), { provider: recordingLoggerProvider(() => undefined) });
    const host = await hostWith(wrapped);
    await host.callTool('ok', { v: 'x' });
    assert.deepEqual(events, ['announce', 'append ok announced=true']);
    wrapped.withdraw?.();
    assert.deepEqual(events.slice(-1), ['withdraw']);
    await host.close();
    // A store without announcements: neither wrapper makes one up.
    const plain: AuditLog = { problem: undefined, append: (entry) => Promise.resolve({ ...entry, seq: 1, prev: '', hash: '' }) };
    const plainWrapped = emittingAuditLog(redactingAuditLog(plain), { provider: recordingLoggerProvider(() => undefined) });
    assert.deepEqual([plainWrapped.announce, plainWrapped.withdraw], [undefined, undefined]);
  });

  it('nothing registered: the log is returned as it is and nothing is emitted', async () => {
    logs.disable();
    const store = SqliteAuditLog.open(':memory:');
    assert.equal(emittingAuditLog(store), store);
    // A provider registered later is not picked up by a log wrapped before (checked once).
    const wrapped = emittingAuditLog(store);
    recorder = installLogRecorder();
    const host = await hostWith(wrapped);
    await host.callTool('ok', { v: 'x' });
    assert.ok(store.size > 0);
    assert.equal(recorder.records.length, 0);
    await host.close();
    await store.close();
  });

  it('a throwing emitter fails neither the call nor the chain, and is reported once', async () => {
    const provider = recordingLoggerProvider(() => {
      throw new Error('collector unreachable');
    });
    const reported: string[] = [];
    const store = SqliteAuditLog.open(':memory:');
    const host = await hostWith(emittingAuditLog(store, { provider, onError: (m) => reported.push(m) }));
    const result = await host.callTool('ok', { v: 'x' });
    assert.match(JSON.stringify(result), /got x/);
    await host.callTool('ok', { v: 'y' });
    assert.equal(store.read().filter((r) => r.method === 'tools/call').length, 2);
    assert.equal(store.verify().ok, true);
    assert.equal(reported.length, 1, reported.join('\n'));
    assert.match(reported[0] ?? '', /collector unreachable/);
    await host.close();
    await store.close();
  });

  it('a failed append is not emitted (never before the record is durable) and still fails closed', async () => {
    const provider = recordingLoggerProvider();
    const failing: AuditLog = { problem: undefined, append: (_entry: AuditEntry) => Promise.reject(new Error('disk full')) };
    const host = await hostWith(emittingAuditLog(failing, { provider }));
    await assert.rejects(host.callTool('ok', { v: 'x' }), /audit record could not be written/);
    assert.equal(provider.records.length, 0);
    await host.close();
  });

  it('server/request and people-side records carry their own fields', () => {
    const record: AuditRecord = { seq: 3, time: '2026-01-01T00:00:00.000Z', kind: 'approval', method: 'server/request', serverMethod: 'elicitation/create', session: 'sess-1', decisions: [], outcome: 'ok', latencyMs: 1.5, prev: 'sha256:p', hash: 'sha256:h' };
    const log = auditLogRecord(record);
    assert.equal(log.attributes?.['switchboard.audit.server_method'], 'elicitation/create');
    assert.equal(log.attributes?.['switchboard.audit.session'], 'sess-1');
    assert.equal(log.body, '#3 approval server/request elicitation/create -> ok');
  });
});
