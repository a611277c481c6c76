import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import { context as otelContext, propagation, trace, type Context, type Span, type SpanOptions, type TextMapPropagator, type Tracer, type TracerProvider } from '@opentelemetry/api';
import { McpServer } from '../../../src/server/mcpServer.js';
import { connectRaw } from './support.js';

interface Recorded {
  name: string;
  attributes: Record<string, unknown>;
  parentTraceId: string | undefined;
  status: number | undefined;
  ended: boolean;
}

const spans: Recorded[] = [];

/** A minimal recording tracer: enough to observe what the server does with the API. */
function recordingProvider(): TracerProvider {
  const tracer: Tracer = {
    startSpan(name: string, options?: SpanOptions, ctx?: Context): Span {
      const parent = ctx === undefined ? undefined : trace.getSpanContext(ctx);
      const rec: Recorded = { name, attributes: { ...(options?.attributes ?? {}) }, parentTraceId: parent?.traceId, status: undefined, ended: false };
      spans.push(rec);
      const span = trace.wrapSpanContext({ traceId: parent?.traceId ?? '1'.repeat(32), spanId: '2'.repeat(16), traceFlags: 1 });
      return Object.assign(span, {
        setAttribute: (k: string, v: unknown) => ((rec.attributes[k] = v), span),
        setStatus: (s: { code: number }) => ((rec.status = s.code), span),
        end: () => void (rec.ended = true),
        isRecording: () => true,
      }) as Span;
    },
    startActiveSpan(name: string, ...args: unknown[]) {
      const fn = args[args.length - 1] as (span: Span) => unknown;
      const options = (args.length >= 2 ? args[0] : undefined) as SpanOptions | undefined;
      const ctx = (args.length >= 3 ? args[1] : undefined) as Context | undefined;
      const span = this.startSpan(name, options, ctx);
      return fn(span);
    },
  } as Tracer;
  return { getTracer: () => tracer };
}

/** Extracts W3C traceparent from a carrier (a stand-in for the SDK's W3C propagator). */
const w3c: TextMapPropagator = {
  inject: () => undefined,
  extract: (ctx, carrier, getter) => {
    const header = getter.get(carrier, 'traceparent');
    const value = Array.isArray(header) ? header[0] : header;
    const m = typeof value === 'string' ? /^00-([0-9a-f]{32})-([0-9a-f]{16})-0[01]$/.exec(value) : null;
    return m === null ? ctx : trace.setSpanContext(ctx, { traceId: m[1] as string, spanId: m[2] as string, traceFlags: 1, isRemote: true });
  },
  fields: () => ['traceparent'],
};

describe('server tracing through @opentelemetry/api', () => {
  before(() => {
    trace.setGlobalTracerProvider(recordingProvider());
    propagation.setGlobalPropagator(w3c);
  });
  after(() => {
    trace.disable();
    propagation.disable();
    void otelContext;
  });

  it('opens one server span per request, named after the method and tool, parented on _meta.traceparent', async () => {
    const s = new McpServer({ name: 't', version: '1' });
    let seenTrace: unknown;
    s.tool('echo', {}, (_a, ctx) => {
      seenTrace = ctx.trace;
      return 'ok';
    });
    const c = await connectRaw(s);
    try {
      spans.length = 0;
      const traceparent = '00-0af7651916cd43dd8448eb211c80319c-b7ad6b7169203331-01';
      await c.call('tools/call', { name: 'echo', arguments: {}, _meta: { traceparent, tracestate: 'vendor=1' } });
      const span = spans.find((x) => x.name === 'tools/call echo');
      assert.ok(span, `spans: ${spans.map((x) => x.name).join(', ')}`);
      assert.equal(span.parentTraceId, '0af7651916cd43dd8448eb211c80319c');
      assert.equal(span.attributes['mcp.method.name'], 'tools/call');
      assert.equal(span.attributes['gen_ai.tool.name'], 'echo');
      assert.equal(span.attributes['mcp.protocol.version'], '2026-07-28');
      assert.equal(span.ended, true);
      assert.deepEqual(seenTrace, { traceparent, tracestate: 'vendor=1' });
    } finally {
      await c.close();
    }
  });

  it('marks the span as an error when the request fails, and ignores a malformed traceparent', async () => {
    const s = new McpServer({ name: 't', version: '1' });
    s.tool('echo', {}, () => 'ok');
    const c = await connectRaw(s);
    try {
      spans.length = 0;
      await assert.rejects(c.call('tools/call', { name: 'missing', arguments: {}, _meta: { traceparent: 'not-a-traceparent' } }));
      const span = spans.find((x) => x.name === 'tools/call missing');
      assert.ok(span);
      assert.equal(span.status, 2); // SpanStatusCode.ERROR
      assert.equal(span.attributes['rpc.jsonrpc.error_code'], -32602);
      assert.equal(span.parentTraceId, undefined);
    } finally {
      await c.close();
    }
  });
});
