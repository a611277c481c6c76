// With nothing registered with @opentelemetry/api, telemetry is a no-op: no span, no metric,
// no trace context in `_meta`, no wrapper around the operation, and nothing registered as a
// side effect. (A file of its own: node:test runs each file in its own process, and the
// other telemetry tests register a recorder.)
import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { McpClient } from '../../../src/client/mcpClient.js';
import { counter, durationHistogram, observe, telemetryActive, type OperationScope } from '../../../src/protocol/telemetry.js';
import { McpServer } from '../../../src/server/mcpServer.js';
import type { TraceContext } from '../../../src/server/types.js';
import { createInMemoryPair } from '../../../src/transport/memory.js';

const OTEL_GLOBAL = Symbol.for('opentelemetry.js.api.1');

describe('protocol/telemetry with nothing registered', () => {
  it('observe is exactly fn(): the same promise, one shared frozen scope without trace context', async () => {
    assert.equal(telemetryActive(), false);
    const scopes: OperationScope[] = [];
    const results: Promise<string>[] = [];
    const fn = (scope: OperationScope): Promise<string> => {
      scopes.push(scope);
      const p = Promise.resolve('done');
      results.push(p);
      return p;
    };
    const op = { side: 'client', method: 'tools/call', protocolVersion: '2026-07-28', target: 'echo' } as const;
    const first = observe(op, fn);
    const second = observe(op, fn);
    assert.equal(first, results[0], 'no wrapper promise');
    assert.equal(second, results[1]);
    assert.equal(await first, 'done');
    assert.equal(scopes[0], scopes[1], 'no scope allocated per call');
    assert.ok(Object.isFrozen(scopes[0]));
    assert.equal(scopes[0]?.traceMeta, undefined);
    assert.equal(counter('x', 'x'), undefined, 'no instrument without a meter provider');
    assert.equal(durationHistogram('y', 'y'), undefined);
  });

  it('a client call reaches the server with no trace context in _meta, and nothing gets registered', async () => {
    let seen: TraceContext | undefined | 'unset' = 'unset';
    let meta: Readonly<Record<string, unknown>> = {};
    const server = new McpServer({ name: 's', version: '1' });
    server.tool('echo', {}, (_a, ctx) => {
      seen = ctx.trace;
      meta = ctx.meta;
      return 'ok';
    });
    const [c, t] = createInMemoryPair();
    await server.connect(t);
    const client = new McpClient({ name: 'c', version: '1' }, { telemetryAttributes: { 'switchboard.server.id': 's' } });
    await client.connect(c);
    try {
      await client.callTool('echo', {});
      assert.equal(seen, undefined);
      assert.equal('traceparent' in meta, false);
      assert.equal(meta['io.modelcontextprotocol/protocolVersion'], '2026-07-28', 'the _meta the client did send');
      assert.equal((globalThis as Record<symbol, unknown>)[OTEL_GLOBAL], undefined);
      assert.equal(telemetryActive(), false);
    } finally {
      await client.close();
      await server.close();
    }
  });
});
