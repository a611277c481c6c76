// Observability of the host and gateway through @opentelemetry/api: one trace across the
// upstream client, the gateway's server span, its client span to the downstream server (trace
// context in `_meta`) and that server's span; call metrics per server and tool; log events.
// https://modelcontextprotocol.io/specification/2026-07-28/basic#_meta
import assert from 'node:assert/strict';
import { after, before, beforeEach, describe, it } from 'node:test';
import { SpanKind, SpanStatusCode } from '@opentelemetry/api';
import { McpClient } from '../../../src/client/mcpClient.js';
import { Gateway, GATEWAY_CLIENT_CAPABILITIES } from '../../../src/host/gateway.js';
import { Host } from '../../../src/host/host.js';
import { DeniedError, type Interceptor } from '../../../src/host/interceptors.js';
import { McpServer } from '../../../src/server/mcpServer.js';
import type { TraceContext } from '../../../src/server/types.js';
import { createInMemoryPair } from '../../../src/transport/memory.js';
import type { Logger } from '../../../src/util/logger.js';
import { installRecorder, type Recorder, type RecordedSpan } from '../../fixtures/otelRecorder.js';
import { memoryServers, memorySpec } from './support/memoryServers.js';

let recorder: Recorder;
/** The trace context the downstream `echo` handler saw in its `_meta`. */
let seen: TraceContext | undefined;

function build(id: string): McpServer {
  const server = new McpServer({ name: id, version: '1.0.0' });
  server.tool('echo', {}, (_args, ctx) => {
    seen = ctx.trace;
    return `${id} echo`;
  });
  server.tool('broken', {}, () => ({ content: [{ type: 'text', text: 'it broke' }], isError: true }));
  server.tool('secret', {}, () => 'never');
  return server;
}

const denySecret: Interceptor = {
  id: 'policy.test',
  phase: 'policy',
  intercept: (ctx, next) => {
    if (ctx.exposedName?.endsWith('secret') === true) throw new DeniedError('policy.test', 'secret tools are off limits');
    return next();
  },
};

interface Logged {
  level: string;
  message: string;
  fields: Record<string, unknown> | undefined;
}

async function gatewayOn(ids: string[], logs: Logged[]) {
  const log = (level: string) => (message: string, fields?: Record<string, unknown>) => void logs.push({ level, message, fields });
  const logger: Logger = { debug: log('debug'), info: log('info'), warn: log('warn'), error: log('error') };
  const servers = memoryServers(build);
  const host = await Host.open({
    servers: ids.map((id) => memorySpec(id)),
    namespacing: 'always',
    transport: servers.factory,
    interceptors: [denySecret],
    capabilities: GATEWAY_CLIENT_CAPABILITIES,
    logger,
  });
  await host.start();
  const gateway = new Gateway(host, { server: { logger } });
  const [clientSide, serverSide] = createInMemoryPair();
  await gateway.server.connect(serverSide);
  const upstream = new McpClient({ name: 'upstream', version: '1' });
  await upstream.connect(clientSide);
  return {
    host,
    upstream,
    close: async () => {
      await upstream.close();
      await gateway.close();
      await host.close();
    },
  };
}

function one(spans: readonly RecordedSpan[], match: (s: RecordedSpan) => boolean, what: string): RecordedSpan {
  const found = spans.filter(match);
  assert.equal(found.length, 1, `${what}: ${spans.map((s) => `${s.name}[${String(s.kind)}]`).join(', ')}`);
  return found[0] as RecordedSpan;
}

describe('host telemetry through @opentelemetry/api', () => {
  before(() => {
    recorder = installRecorder();
  });
  after(() => recorder.uninstall());
  beforeEach(() => {
    seen = undefined;
  });

  it('one trace: upstream client span -> gateway server span -> downstream client span (traceparent in _meta) -> downstream server span', async () => {
    const { upstream, close } = await gatewayOn(['alpha', 'beta'], []);
    try {
      recorder.reset();
      await upstream.callTool('alpha__echo', {});
      const spans = recorder.spans;
      const client = one(spans, (s) => s.kind === SpanKind.CLIENT && s.name === 'tools/call alpha__echo', 'the upstream client span');
      const served = one(spans, (s) => s.kind === SpanKind.SERVER && s.name === 'tools/call alpha__echo', 'the gateway server span');
      const down = one(spans, (s) => s.kind === SpanKind.CLIENT && s.name === 'tools/call echo', 'the downstream client span');
      const downServed = one(spans, (s) => s.kind === SpanKind.SERVER && s.name === 'tools/call echo', 'the downstream server span');
      for (const s of [served, down, downServed]) assert.equal(s.traceId, client.traceId, `${s.name} shares the trace`);
      assert.equal(served.parentSpanId, client.spanId);
      assert.equal(down.parentSpanId, served.spanId, 'the downstream call is a child of the upstream request');
      assert.equal(downServed.parentSpanId, down.spanId, 'the downstream server continues the trace from _meta');
      assert.equal(seen?.traceparent, `00-${down.traceId}-${down.spanId}-01`);
      assert.equal(down.attributes['switchboard.server.id'], 'alpha');
      assert.equal(down.attributes['gen_ai.tool.name'], 'echo');
      assert.equal(down.attributes['mcp.method.name'], 'tools/call');
      assert.equal(typeof down.attributes['jsonrpc.request.id'], 'string');
      assert.equal(served.attributes['gen_ai.tool.name'], 'alpha__echo');
      assert.ok(spans.every((s) => s.ended));
      assert.ok(spans.every((s) => s.status === undefined));
    } finally {
      await close();
    }
  });

  it('counts calls per server and tool, with latency, on the host and on the wire', async () => {
    const { upstream, close } = await gatewayOn(['alpha', 'beta'], []);
    try {
      recorder.reset();
      await upstream.callTool('alpha__echo', {});
      await upstream.callTool('alpha__echo', {});
      await upstream.callTool('beta__echo', {});
      const m = recorder.measurements;
      const calls = (server: string) => m.filter((x) => x.instrument === 'switchboard.host.calls' && x.attributes['switchboard.server.id'] === server);
      assert.deepEqual(
        calls('alpha').map((x) => [x.value, x.attributes['gen_ai.tool.name'], x.attributes['mcp.method.name']]),
        [
          [1, 'echo', 'tools/call'],
          [1, 'echo', 'tools/call'],
        ],
      );
      assert.equal(calls('beta').length, 1);
      assert.equal(m.filter((x) => x.instrument === 'switchboard.host.errors').length, 0);
      const hostLatency = m.filter((x) => x.instrument === 'switchboard.host.call.duration');
      assert.equal(hostLatency.length, 3);
      assert.ok(hostLatency.every((x) => x.unit === 's' && x.value >= 0 && x.value < 5));
      const wire = m.filter((x) => x.instrument === 'mcp.client.operation.duration' && x.attributes['switchboard.server.id'] === 'alpha' && x.attributes['gen_ai.tool.name'] === 'echo');
      assert.equal(wire.length, 2, 'the downstream client times each call of alpha');
      const servedLatency = m.filter((x) => x.instrument === 'mcp.server.operation.duration' && x.attributes['gen_ai.tool.name'] === 'alpha__echo');
      assert.equal(servedLatency.length, 2, 'the gateway times each upstream request');
    } finally {
      await close();
    }
  });

  it('a tool result with isError counts as an error (tool_error) and marks the spans', async () => {
    const { upstream, close } = await gatewayOn(['alpha'], []);
    try {
      recorder.reset();
      const result = await upstream.callTool('alpha__broken', {});
      assert.equal(result.isError, true);
      const errors = recorder.measurements.filter((x) => x.instrument === 'switchboard.host.errors');
      assert.deepEqual(
        errors.map((x) => [x.attributes['switchboard.server.id'], x.attributes['gen_ai.tool.name'], x.attributes['error.type']]),
        [['alpha', 'broken', 'tool_error']],
      );
      const down = one(recorder.spans, (s) => s.kind === SpanKind.CLIENT && s.name === 'tools/call broken', 'the downstream client span');
      assert.equal(down.status?.code, SpanStatusCode.ERROR);
      assert.equal(down.attributes['error.type'], 'tool_error');
    } finally {
      await close();
    }
  });

  it('a denied call is counted as an error, logged as call.denied, and never reaches the server (no downstream span)', async () => {
    const logs: Logged[] = [];
    const { upstream, close } = await gatewayOn(['alpha'], logs);
    try {
      recorder.reset();
      const result = await upstream.callTool('alpha__secret', {});
      assert.equal(result.isError, true);
      const errors = recorder.measurements.filter((x) => x.instrument === 'switchboard.host.errors');
      assert.deepEqual(
        errors.map((x) => [x.attributes['switchboard.server.id'], x.attributes['gen_ai.tool.name'], x.attributes['error.type']]),
        [['alpha', 'secret', 'ERR_MCP_DENIED']],
      );
      assert.equal(recorder.spans.filter((s) => s.name === 'tools/call secret').length, 0, 'no downstream request was made');
      const denied = logs.filter((l) => l.fields?.['event'] === 'call.denied');
      assert.equal(denied.length, 1);
      assert.equal(denied[0]?.level, 'warn');
      assert.deepEqual(
        { server: denied[0]?.fields?.['server'], target: denied[0]?.fields?.['target'], interceptor: denied[0]?.fields?.['interceptor'] },
        { server: 'alpha', target: 'secret', interceptor: 'policy.test' },
      );
    } finally {
      await close();
    }
  });

  it('logs server lifecycle events with the server id (ready, stopped)', async () => {
    const logs: Logged[] = [];
    const { close } = await gatewayOn(['alpha'], logs);
    const ready = logs.filter((l) => l.fields?.['event'] === 'server.ready');
    assert.deepEqual(
      ready.map((l) => [l.level, l.fields?.['server'], l.fields?.['tools']]),
      [['info', 'alpha', 3]],
    );
    await close();
    assert.deepEqual(
      logs.filter((l) => l.fields?.['event'] === 'server.stopped').map((l) => l.fields?.['server']),
      ['alpha'],
    );
  });
});
