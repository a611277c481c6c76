import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { JsonRpcError } from '../../../src/jsonrpc/errors.js';
import { McpServer } from '../../../src/server/mcpServer.js';
import { connectRaw } from './support.js';

function server(): McpServer {
  const s = new McpServer({ name: 'mw', version: '1.0.0' });
  s.tool('echo', { inputSchema: { type: 'object', properties: { text: { type: 'string' } } } }, (a) => String(a['text']));
  return s;
}

describe('server middleware', () => {
  it('runs outermost first around every request, after validation, with the validated params', async () => {
    const s = server();
    const seen: string[] = [];
    s.use(async (ctx, next) => {
      seen.push(`a>${ctx.method}`);
      const r = await next();
      seen.push(`a<${ctx.method}`);
      return r;
    });
    s.use(async (ctx, next) => {
      seen.push(`b>${String((ctx.params as { name?: string }).name ?? '-')}`);
      return next();
    });
    const c = await connectRaw(s);
    try {
      await c.call('tools/call', { name: 'echo', arguments: { text: 'x' } });
      await c.call('tools/list');
      assert.deepEqual(seen, ['a>tools/call', 'b>echo', 'a<tools/call', 'a>tools/list', 'b>-', 'a<tools/list']);
    } finally {
      await c.close();
    }
  });

  it('locals carry data down the chain, one bag per request, and signal is the request’s', async () => {
    const s = server();
    const seen: unknown[] = [];
    s.use((ctx, next) => {
      assert.deepEqual(ctx.locals, {}, 'a fresh bag for each request');
      ctx.locals['user'] = `u-${ctx.method}`;
      return next();
    });
    s.use((ctx, next) => {
      seen.push(ctx.locals['user'], ctx.signal instanceof AbortSignal, ctx.signal.aborted);
      return next();
    });
    const c = await connectRaw(s);
    try {
      await c.call('tools/call', { name: 'echo', arguments: { text: 'x' } });
      await c.call('tools/list');
      assert.deepEqual(seen, ['u-tools/call', true, false, 'u-tools/list', true, false]);
    } finally {
      await c.close();
    }
  });

  it('can change the result and short-circuit with a JSON-RPC error (e.g. an authorization check)', async () => {
    const s = server();
    s.use(async (ctx, next) => {
      if (ctx.method === 'tools/call' && (ctx.params['arguments'] as { text?: string }).text === 'forbidden') {
        throw new JsonRpcError(-32602, 'Invalid params: not allowed', { reason: 'policy' });
      }
      const result = await next();
      return ctx.method === 'tools/call' ? { ...result, _meta: { 'com.example/audited': true } } : result;
    });
    const c = await connectRaw(s);
    try {
      const ok = await c.call('tools/call', { name: 'echo', arguments: { text: 'fine' } });
      assert.equal((ok['_meta'] as Record<string, unknown>)['com.example/audited'], true);
      assert.deepEqual(ok['content'], [{ type: 'text', text: 'fine' }]);
      await assert.rejects(c.call('tools/call', { name: 'echo', arguments: { text: 'forbidden' } }), (e: unknown) => e instanceof JsonRpcError && e.code === -32602 && e.message.includes('not allowed'));
    } finally {
      await c.close();
    }
  });

  it('does not see requests that fail validation, and a middleware calling next() twice is an internal error', async () => {
    const s = server();
    let calls = 0;
    s.use(async (_ctx, next) => {
      calls++;
      await next();
      return next();
    });
    const c = await connectRaw(s);
    try {
      await assert.rejects(c.call('tools/call', { name: 42 }), (e: unknown) => e instanceof JsonRpcError && e.code === -32602);
      assert.equal(calls, 0);
      await assert.rejects(c.call('tools/list'), (e: unknown) => e instanceof JsonRpcError && e.code === -32603 && e.message === 'Internal error');
      assert.equal(calls, 1);
    } finally {
      await c.close();
    }
  });
});
