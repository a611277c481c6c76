// E2E: `switchboard gateway --telemetry <module>` with a module that registers OpenTelemetry
// globals: a request over Streamable HTTP carrying a traceparent in `_meta` gets a gateway
// server span continuing that trace, and the downstream call (to `switchboard everything`
// over stdio) a client span under it, tagged with the server id; calls are counted per server
// and tool. https://modelcontextprotocol.io/specification/2026-07-28/basic#_meta
import assert from 'node:assert/strict';
import { spawn, spawnSync } from 'node:child_process';
import { readFile, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { after, before, describe, it } from 'node:test';
import { SpanKind } from '@opentelemetry/api';
import { McpClient } from '../../src/client/mcpClient.js';
import { StreamableHttpClientTransport } from '../../src/transport/http/client/client.js';
import type { RecordedLog } from '../fixtures/otelLogRecorder.js';
import type { Measurement, RecordedSpan } from '../fixtures/otelRecorder.js';
import { everythingEntry, MAIN, startGateway, writeConfig, type GatewayConfig, type RunningGateway } from './fixtures/gatewayHarness.js';
import { REPO_ROOT } from './fixtures/ourServerHarness.js';

let config: GatewayConfig;
let gateway: RunningGateway | undefined;
let out: string;

before(async () => {
  config = await writeConfig({});
  await writeFile(config.file, JSON.stringify({ mcpServers: { every: everythingEntry() } }));
  out = join(config.dir, 'otel.json');
  process.env['SWITCHBOARD_TEST_OTEL_OUT'] = out;
  gateway = await startGateway(config, ['--telemetry', join(REPO_ROOT, 'test', 'fixtures', 'otelSetup.ts')], ['--import', import.meta.resolve('tsx')]);
});

after(async () => {
  await gateway?.stop();
  await config.remove();
});

describe('e2e: gateway --telemetry', () => {
  it('continues the caller’s trace: gateway server span -> downstream client span (server id, tool), counted per server and tool', async () => {
    const client = new McpClient({ name: 'caller', version: '1' });
    const running = gateway as RunningGateway;
    await client.connect(new StreamableHttpClientTransport({ url: running.url, headers: { authorization: `Bearer ${running.token}` } }));
    const traceId = '4bf92f3577b34da6a3ce929d0e0e4736';
    const callerSpan = '00f067aa0ba902b7';
    const result = await client.request('tools/call', { name: 'echo', arguments: { message: 'traced' }, _meta: { traceparent: `00-${traceId}-${callerSpan}-01` } });
    assert.match(JSON.stringify(result), /traced/);
    await client.close();
    // The module writes what it recorded when the process exits.
    await running.stop();
    const recorded = JSON.parse(await readFile(out, 'utf8')) as { spans: RecordedSpan[]; measurements: Measurement[]; logs: RecordedLog[] };
    const served = recorded.spans.find((s) => s.kind === SpanKind.SERVER && s.name === 'tools/call echo');
    const down = recorded.spans.find((s) => s.kind === SpanKind.CLIENT && s.name === 'tools/call echo');
    assert.ok(served && down, recorded.spans.map((s) => s.name).join(', '));
    assert.equal(served.traceId, traceId);
    assert.equal(served.parentSpanId, callerSpan);
    assert.equal(down.traceId, traceId);
    assert.equal(down.parentSpanId, served.spanId);
    assert.equal(down.attributes['switchboard.server.id'], 'every');
    const calls = recorded.measurements.filter((m) => m.instrument === 'switchboard.host.calls');
    assert.deepEqual(
      calls.map((m) => [m.attributes['switchboard.server.id'], m.attributes['gen_ai.tool.name']]),
      [['every', 'echo']],
    );
    // Each audit record the gateway stored is also an OpenTelemetry log record (issue #13).
    const audited = recorded.logs.filter((l) => l.attributes?.['switchboard.audit.method'] === 'tools/call');
    assert.equal(audited.length, 1, JSON.stringify(recorded.logs));
    const call = audited[0]?.attributes ?? {};
    assert.equal(call['switchboard.audit.server'], 'every');
    assert.equal(call['switchboard.audit.name'], 'echo');
    assert.equal(call['switchboard.audit.outcome'], 'ok');
    assert.equal(audited[0]?.severityText, 'INFO');
    assert.match(String(call['switchboard.audit.hash']), /^sha256:[0-9a-f]{64}$/);
    assert.match(String(call['switchboard.audit.arguments_digest']), /^sha256:[0-9a-f]{64}$/);
    // The same records, seq for seq, as the stored chain.
    const stored = spawnSync(process.execPath, [MAIN, 'audit', 'export', '--config', config.file], { cwd: config.dir, encoding: 'utf8' });
    assert.equal(stored.status, 0, stored.stderr);
    const records = stored.stdout.trim().split('\n').map((line) => JSON.parse(line) as { seq: number; hash: string });
    assert.deepEqual(
      recorded.logs.map((l) => [l.attributes?.['switchboard.audit.seq'], l.attributes?.['switchboard.audit.hash']]),
      records.map((r) => [r.seq, r.hash]),
    );
  });

  it('audit export --telemetry emits the stored records (from --from on) as log records, flushes and shuts the provider down, and says how many', async () => {
    const exported = join(config.dir, 'otel-export.json');
    const all = spawnSync(process.execPath, [MAIN, 'audit', 'export', '--config', config.file], { cwd: config.dir, encoding: 'utf8' });
    const records = all.stdout.trim().split('\n').map((line) => JSON.parse(line) as { seq: number; hash: string; outcome: string });
    assert.ok(records.length >= 1, all.stdout);
    const last = (records.at(-1) as { seq: number }).seq;
    for (const from of [1, last, last + 1]) {
      const run = spawnSync(process.execPath, ['--import', import.meta.resolve('tsx'), MAIN, 'audit', 'export', '--from', String(from), '--config', config.file, '--telemetry', join(REPO_ROOT, 'test', 'fixtures', 'otelSetup.ts')], {
        cwd: config.dir,
        encoding: 'utf8',
        env: { ...process.env, SWITCHBOARD_TEST_OTEL_OUT: exported },
      });
      assert.equal(run.status, 0, run.stderr);
      const expected = records.filter((r) => r.seq >= from);
      assert.equal(run.stdout.trim(), `emitted ${expected.length} audit record${expected.length === 1 ? '' : 's'} as OpenTelemetry log records`);
      const recorded = JSON.parse(await readFile(exported, 'utf8')) as { logs: RecordedLog[]; logCalls: { forceFlush: number; shutdown: number } };
      assert.deepEqual(
        recorded.logs.map((l) => [l.attributes?.['switchboard.audit.seq'], l.attributes?.['switchboard.audit.hash'], l.attributes?.['switchboard.audit.outcome']]),
        expected.map((r) => [r.seq, r.hash, r.outcome]),
      );
      assert.deepEqual(recorded.logCalls, { forceFlush: 1, shutdown: 1 });
    }
  });

  it('audit export --telemetry with a module that registers no LoggerProvider fails and says so', async () => {
    const none = join(config.dir, 'none.mjs');
    await writeFile(none, 'export {};\n');
    const run = spawnSync(process.execPath, [MAIN, 'audit', 'export', '--config', config.file, '--telemetry', none], { cwd: config.dir, encoding: 'utf8' });
    assert.equal(run.status, 1, run.stderr);
    assert.match(run.stderr, /registered no OpenTelemetry LoggerProvider/);
    assert.equal(run.stdout, '');
  });

  it('a --telemetry module that cannot be imported stops the gateway before any server starts, naming the file and the cause', async () => {
    const broken = join(config.dir, 'broken.mjs');
    await writeFile(broken, "throw new Error('no exporter configured');\n");
    for (const [file, cause] of [
      [join(config.dir, 'missing.mjs'), /Cannot find module/],
      [broken, /no exporter configured/],
    ] as const) {
      const child = spawn(process.execPath, [MAIN, 'gateway', '--config', config.file, '--port', '0', '--yes', '--telemetry', file], { cwd: config.dir, stdio: ['ignore', 'ignore', 'pipe'] });
      let err = '';
      child.stderr.on('data', (chunk: Buffer) => (err += chunk.toString()));
      const code = await new Promise<number | null>((resolve) => child.once('exit', resolve));
      assert.equal(code, 1, err);
      assert.ok(err.includes(`could not import ${file}`), err);
      assert.match(err, cause);
      assert.doesNotMatch(err, /server every ready|Switchboard gateway:/, 'nothing was started');
    }
  });
});
