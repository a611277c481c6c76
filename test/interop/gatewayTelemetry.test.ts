// E2E: `switchboard gateway --telemetry <module>` with a module that registers OpenTelemetry
// globals: a request over Streamable HTTP carrying a traceparent in `_meta` gets a gateway
// server span continuing that trace, and the downstream call (to `switchboard everything`
// over stdio) a client span under it, tagged with the server id; calls are counted per server
// and tool. https://modelcontextprotocol.io/specification/2026-07-28/basic#_meta
import assert from 'node:assert/strict';
import { spawn } from 'node:child_process';
import { readFile, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { after, before, describe, it } from 'node:test';
import { SpanKind } from '@opentelemetry/api';
import { McpClient } from '../../src/client/mcpClient.js';
import { StreamableHttpClientTransport } from '../../src/transport/http/client/client.js';
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
    const recorded = JSON.parse(await readFile(out, 'utf8')) as { spans: RecordedSpan[]; measurements: Measurement[] };
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
