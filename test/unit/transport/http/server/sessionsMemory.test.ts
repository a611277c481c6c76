/**
 * Memory of idle stateful sessions: 1,000 initialized sessions of the real `McpServer` must
 * stay under 20 MB of heap (measured after a forced GC; the delta is reported).
 */
import assert from 'node:assert/strict';
import { it } from 'node:test';
import { setFlagsFromString } from 'node:v8';
import { runInNewContext } from 'node:vm';
import { McpServer } from '../../../../../src/server/mcpServer.js';
import { createStreamableHttpHandler } from '../../../../../src/transport/http/server/server.js';
import { httpReq, initRequest } from './sessionSupport.js';

setFlagsFromString('--expose-gc');
const gc = runInNewContext('gc') as () => void;

function heap(): number {
  gc();
  gc();
  return process.memoryUsage().heapUsed;
}

it('1,000 idle sessions (initialize + initialized) stay under 20 MB of heap', async (t) => {
  const server = new McpServer({ name: 'mem', version: '1.0.0' });
  for (let i = 0; i < 5; i++) server.tool(`tool${i}`, {}, () => 'ok');
  const h = createStreamableHttpHandler(server, { sseKeepAliveMs: 0 });
  // Warm up code paths and caches before measuring.
  const warm = await h.handle(httpReq('POST', initRequest()));
  assert.ok(warm.headers['mcp-session-id']);
  const before = heap();
  for (let i = 0; i < 1000; i++) {
    const res = await h.handle(httpReq('POST', initRequest('2025-11-25', i)));
    const id = res.headers['mcp-session-id'] as string;
    const note = await h.handle(httpReq('POST', { jsonrpc: '2.0', method: 'notifications/initialized' }, { 'mcp-session-id': id, 'mcp-protocol-version': '2025-11-25' }));
    assert.equal(note.status, 202);
  }
  const delta = heap() - before;
  assert.equal(h.sessionCount, 1001);
  t.diagnostic(`heap delta for 1,000 idle sessions: ${(delta / 1024 / 1024).toFixed(2)} MB (${Math.round(delta / 1000)} bytes/session)`);
  assert.ok(delta < 20 * 1024 * 1024, `heap grew by ${delta} bytes`);
  await h.close();
  assert.equal(server.sessionCount, 0);
});
