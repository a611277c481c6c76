// OpenTelemetry through @opentelemetry/api (src/protocol/telemetry.ts) as the server and the
// client use it: a server span per request parented on the trace context in `_meta`, a client
// span per request whose trace context goes into the outgoing `_meta`, semantic-convention
// names, errors recorded, operation-duration histograms.
// https://modelcontextprotocol.io/specification/2026-07-28/basic#_meta
import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import { SpanKind, SpanStatusCode } from '@opentelemetry/api';
import { McpClient } from '../../../src/client/mcpClient.js';
import { McpServer } from '../../../src/server/mcpServer.js';
import type { TraceContext } from '../../../src/server/types.js';
import { createInMemoryPair } from '../../../src/transport/memory.js';
import { installRecorder, type Recorder } from '../../fixtures/otelRecorder.js';
import { connectRaw } from '../server/support.js';

let recorder: Recorder;
let seen: TraceContext | undefined;
/** What the `echo` handler saw last (a function: TypeScript does not see the handler assign it). */
const observed = (): TraceContext | undefined => seen;

function server(): McpServer {
  const s = new McpServer({ name: 't', version: '1' });
  s.tool('echo', {}, (_a, ctx) => {
    seen = ctx.trace;
    return 'ok';
  });
  s.resource('mem://a', { name: 'a' }, (uri) => [{ uri, text: 'a' }]);
  return s;
}

async function pair(era?: 'stateful'): Promise<{ client: McpClient; close: () => Promise<void> }> {
  const s = server();
  const [c, t] = createInMemoryPair();
  await s.connect(t);
  const client = new McpClient({ name: 'c', version: '1' }, { telemetryAttributes: { 'test.peer': 't' }, ...(era !== undefined ? { era } : {}) });
  await client.connect(c);
  return {
    client,
    close: async () => {
      await client.close();
      await s.close();
    },
  };
}

describe('protocol/telemetry', () => {
  before(() => {
    recorder = installRecorder();
  });
  after(() => recorder.uninstall());

  it('server: one span per request, named after the method and tool, parented on _meta.traceparent', async () => {
    const c = await connectRaw(server());
    try {
      recorder.reset();
      const traceparent = '00-0af7651916cd43dd8448eb211c80319c-b7ad6b7169203331-01';
      await c.call('tools/call', { name: 'echo', arguments: {}, _meta: { traceparent, tracestate: 'vendor=1' } });
      const span = recorder.spans.find((x) => x.name === 'tools/call echo');
      assert.ok(span, `spans: ${recorder.spans.map((x) => x.name).join(', ')}`);
      assert.equal(span.kind, SpanKind.SERVER);
      assert.equal(span.traceId, '0af7651916cd43dd8448eb211c80319c');
      assert.equal(span.parentSpanId, 'b7ad6b7169203331');
      assert.equal(span.attributes['mcp.method.name'], 'tools/call');
      assert.equal(span.attributes['gen_ai.tool.name'], 'echo');
      assert.equal(span.attributes['gen_ai.operation.name'], 'execute_tool');
      assert.equal(span.attributes['mcp.protocol.version'], '2026-07-28');
      assert.equal(typeof span.attributes['jsonrpc.request.id'], 'string');
      assert.equal(span.ended, true);
      assert.deepEqual(seen, { traceparent, tracestate: 'vendor=1' });
      const timed = recorder.measurements.filter((m) => m.instrument === 'mcp.server.operation.duration');
      assert.equal(timed.length, 1);
      assert.equal(timed[0]?.unit, 's');
      assert.equal(timed[0]?.attributes['gen_ai.tool.name'], 'echo');
    } finally {
      await c.close();
    }
  });

  it('server: a failed request marks the span (error.type, rpc.response.status_code); a malformed traceparent is ignored', async () => {
    const c = await connectRaw(server());
    try {
      recorder.reset();
      await assert.rejects(c.call('tools/call', { name: 'missing', arguments: {}, _meta: { traceparent: 'not-a-traceparent' } }));
      const span = recorder.spans.find((x) => x.name === 'tools/call missing');
      assert.ok(span);
      assert.equal(span.status?.code, SpanStatusCode.ERROR);
      assert.equal(span.attributes['error.type'], '-32602');
      assert.equal(span.attributes['rpc.response.status_code'], '-32602');
      assert.equal(span.parentSpanId, undefined);
      const timed = recorder.measurements.find((m) => m.instrument === 'mcp.server.operation.duration');
      assert.equal(timed?.attributes['error.type'], '-32602');
    } finally {
      await c.close();
    }
  });

  it('a resource read is named after the method only (no URI in the span name), the URI an attribute, never a metric dimension', async () => {
    const { client, close } = await pair();
    try {
      recorder.reset();
      await client.readResource('mem://a');
      const spans = recorder.spans.filter((s) => s.attributes['mcp.method.name'] === 'resources/read');
      assert.deepEqual(spans.map((s) => [s.name, s.attributes['mcp.resource.uri']]), [
        ['resources/read', 'mem://a'],
        ['resources/read', 'mem://a'],
      ]);
      assert.ok(recorder.measurements.every((m) => !('mcp.resource.uri' in m.attributes)));
    } finally {
      await close();
    }
  });

  it('client: a client span per call whose trace context the server receives in _meta and continues', async () => {
    const { client, close } = await pair();
    try {
      recorder.reset();
      seen = undefined;
      await client.callTool('echo', {});
      const sent = recorder.spans.find((s) => s.kind === SpanKind.CLIENT && s.name === 'tools/call echo');
      const served = recorder.spans.find((s) => s.kind === SpanKind.SERVER && s.name === 'tools/call echo');
      assert.ok(sent && served);
      assert.equal(sent.attributes['test.peer'], 't', 'the client\'s telemetryAttributes');
      assert.equal(typeof sent.attributes['jsonrpc.request.id'], 'string');
      assert.equal(observed()?.traceparent, `00-${sent.traceId}-${sent.spanId}-01`);
      assert.equal(served.traceId, sent.traceId);
      assert.equal(served.parentSpanId, sent.spanId);
      const timed = recorder.measurements.filter((m) => m.instrument === 'mcp.client.operation.duration');
      assert.equal(timed.length, 1);
      assert.equal(timed[0]?.attributes['test.peer'], 't');
    } finally {
      await close();
    }
  });

  it('client: the stateful era (2025-11-25) carries the trace context in _meta too', async () => {
    const { client, close } = await pair('stateful');
    try {
      recorder.reset();
      seen = undefined;
      assert.equal(client.protocolVersion, '2025-11-25');
      await client.callTool('echo', {});
      const sent = recorder.spans.find((s) => s.kind === SpanKind.CLIENT && s.name === 'tools/call echo');
      const served = recorder.spans.find((s) => s.kind === SpanKind.SERVER && s.name === 'tools/call echo');
      assert.ok(sent && served);
      assert.equal(observed()?.traceparent, `00-${sent.traceId}-${sent.spanId}-01`);
      assert.equal(served.parentSpanId, sent.spanId);
      assert.equal(served.attributes['mcp.protocol.version'], '2025-11-25');
    } finally {
      await close();
    }
  });

  it('client: a traceparent the caller put in _meta is kept, not overwritten', async () => {
    const { client, close } = await pair();
    try {
      seen = undefined;
      const traceparent = '00-11111111111111111111111111111111-2222222222222222-01';
      await client.request('tools/call', { name: 'echo', arguments: {}, _meta: { traceparent } });
      assert.equal(observed()?.traceparent, traceparent);
    } finally {
      await close();
    }
  });

  it('client: an error response marks the client span and the duration with error.type', async () => {
    const { client, close } = await pair();
    try {
      recorder.reset();
      await assert.rejects(client.request('tools/call', { name: 'missing', arguments: {} }));
      const sent = recorder.spans.find((s) => s.kind === SpanKind.CLIENT && s.name === 'tools/call missing');
      assert.equal(sent?.status?.code, SpanStatusCode.ERROR);
      assert.equal(sent?.attributes['error.type'], '-32602');
      const timed = recorder.measurements.find((m) => m.instrument === 'mcp.client.operation.duration');
      assert.equal(timed?.attributes['error.type'], '-32602');
    } finally {
      await close();
    }
  });
});
