import assert from 'node:assert/strict';
import { getEventListeners } from 'node:events';
import { after, before, describe, it } from 'node:test';
import { fileURLToPath } from 'node:url';
import { McpClient } from '../../../src/client/mcpClient.js';
import { McpError } from '../../../src/util/errors.js';
import { StdioClientTransport } from '../../../src/transport/stdio/client.js';
import { CLIENT_INFO, connectEverything, delay, scriptedPeer } from './support.js';

const DISCOVER_OK = { resultType: 'complete', supportedVersions: ['2026-07-28'], capabilities: { tools: {} }, ttlMs: 0, cacheScope: 'public' };
const dyingServer = fileURLToPath(new URL('./fixtures/dyingServer.mjs', import.meta.url));
const isCode = (code: string) => (e: unknown) => e instanceof McpError && e.code === code;

const unhandled: unknown[] = [];
const warnings: Error[] = [];
const onUnhandled = (reason: unknown): void => void unhandled.push(reason);
const onWarning = (warning: Error): void => void warnings.push(warning);

/** A modern peer whose tools/call never answers, or reports progress as `progress` says. */
async function slowPeer(progress?: { everyMs: number; times: number; thenAnswer: boolean }) {
  const { transport, peer } = await scriptedPeer(async (request, context) => {
    if (request.method === 'server/discover') return DISCOVER_OK;
    if (progress !== undefined && context.progressToken !== undefined) {
      for (let i = 1; i <= progress.times && !context.signal.aborted; i++) {
        await delay(progress.everyMs);
        await context.notify('notifications/progress', { progressToken: context.progressToken, progress: i });
      }
      if (progress.thenAnswer) return { resultType: 'complete', content: [] };
    }
    return new Promise<Record<string, unknown>>(() => undefined);
  });
  return { transport, peer };
}

describe('McpClient failure modes', () => {
  before(() => {
    process.on('unhandledRejection', onUnhandled);
    process.on('warning', onWarning);
  });
  after(() => {
    process.off('unhandledRejection', onUnhandled);
    process.off('warning', onWarning);
    assert.deepEqual(unhandled, []);
    assert.deepEqual(warnings.filter((w) => w.name === 'MaxListenersExceededWarning'), []);
  });

  it('times out a server that never answers', async () => {
    const { transport } = await slowPeer();
    const client = new McpClient(CLIENT_INFO, { defaultTimeoutMs: 80 });
    await client.connect(transport);
    await assert.rejects(client.callTool('hang'), isCode('ERR_MCP_REQUEST_TIMEOUT'));
    await assert.rejects(client.callTool('hang', {}, { timeoutMs: 30 }), isCode('ERR_MCP_REQUEST_TIMEOUT'));
    assert.ok(transport.sent.some((m) => 'method' in m && m.method === 'notifications/cancelled'));
    await client.close();
  });

  it('lets progress reset the timeout, under a hard total cap', async () => {
    const { transport } = await slowPeer({ everyMs: 30, times: 6, thenAnswer: true });
    const client = new McpClient(CLIENT_INFO);
    await client.connect(transport);
    const seen: number[] = [];
    const result = await client.callTool('slow', {}, { timeoutMs: 80, onProgress: (p) => seen.push(p.progress) });
    assert.deepEqual(result.content, []);
    assert.deepEqual(seen, [1, 2, 3, 4, 5, 6]);
    await assert.rejects(client.callTool('slow', {}, { timeoutMs: 80, maxTotalTimeoutMs: 100, onProgress: () => undefined }), isCode('ERR_MCP_REQUEST_TIMEOUT'));
    await client.close();
    const capped = new McpClient(CLIENT_INFO, { maxTotalTimeoutMs: 100 });
    const again = await slowPeer({ everyMs: 30, times: 6, thenAnswer: true });
    await capped.connect(again.transport);
    await assert.rejects(capped.callTool('slow', {}, { timeoutMs: 80, onProgress: () => undefined }), isCode('ERR_MCP_REQUEST_TIMEOUT'));
    await capped.close();
  });

  it('cancels through an AbortSignal and tells the server', async () => {
    const { transport } = await slowPeer();
    const client = new McpClient(CLIENT_INFO);
    await client.connect(transport);
    const controller = new AbortController();
    const call = client.callTool('hang', {}, { signal: controller.signal });
    await delay(20);
    controller.abort(new Error('user gave up'));
    await assert.rejects(call, isCode('ERR_MCP_REQUEST_CANCELLED'));
    await delay(5);
    const [request] = transport.requests('tools/call');
    assert.ok(transport.sent.some((m) => 'method' in m && m.method === 'notifications/cancelled' && m.params?.['requestId'] === request?.id));
    await assert.rejects(client.callTool('hang', {}, { signal: controller.signal }), isCode('ERR_MCP_REQUEST_CANCELLED'));
    await client.close();
  });

  it('leaves no abort listeners behind under sustained traffic', async () => {
    const { client, close } = await connectEverything();
    try {
      const controller = new AbortController();
      await Promise.all(Array.from({ length: 50 }, (_, i) => client.callTool('echo', { message: String(i) }, { signal: controller.signal })));
      for (let i = 0; i < 100; i++) await client.callTool('echo', { message: String(i) }, { signal: controller.signal });
      assert.equal(getEventListeners(controller.signal, 'abort').length, 0);
      const sub = await client.listen({ toolsListChanged: true }, { signal: controller.signal });
      sub.close();
      await sub.ended;
      assert.equal(getEventListeners(controller.signal, 'abort').length, 0);
    } finally {
      await close();
    }
  });

  it('fails pending calls with ERR_MCP_CONNECTION_CLOSED when the peer closes (memory)', async () => {
    const { transport, peer } = await slowPeer();
    const client = new McpClient(CLIENT_INFO);
    await client.connect(transport);
    const call = client.callTool('hang');
    await delay(10);
    await peer.close();
    await assert.rejects(call, isCode('ERR_MCP_CONNECTION_CLOSED'));
    assert.equal(client.connected, false);
    await assert.rejects(client.listTools(), isCode('ERR_MCP_CONNECTION_CLOSED'));
    await client.close();
  });

  for (const modern of [false, true]) {
    it(`fails a call with a typed error when the stdio server dies mid-call (${modern ? 'stateless' : 'stateful'})`, async () => {
      const transport = new StdioClientTransport({ command: process.execPath, args: modern ? [dyingServer, '--modern'] : [dyingServer], stderr: 'ignore' });
      const client = new McpClient(CLIENT_INFO, { defaultTimeoutMs: 5000 });
      await client.connect(transport);
      assert.equal(client.era, modern ? 'stateless' : 'stateful');
      const started = Date.now();
      await assert.rejects(client.callTool('die'), (e: unknown) => {
        assert.ok(e instanceof McpError);
        assert.equal(e.code, 'ERR_MCP_CONNECTION_CLOSED');
        return true;
      });
      assert.ok(Date.now() - started < 3000);
      await client.close();
    });
  }

  it('answers an unexpected server request with -32601 and keeps working (stateless)', async () => {
    let askBack: Promise<unknown> | undefined;
    const { transport, peer } = await scriptedPeer((request) => {
      if (request.method === 'server/discover') return DISCOVER_OK;
      askBack = peer.request('elicitation/create', { message: 'hi', requestedSchema: { type: 'object', properties: {} } }).catch((e: unknown) => e);
      return { resultType: 'complete', content: [] };
    });
    const client = new McpClient(CLIENT_INFO, { handlers: { elicitation: () => ({ action: 'decline' }) } });
    await client.connect(transport);
    await client.callTool('x');
    const answer = (await askBack) as { code?: number };
    assert.equal(answer.code, -32601);
    assert.deepEqual((await client.callTool('x')).content, []);
    await client.close();
  });

  it('close() ends pending calls and is idempotent', async () => {
    const { transport } = await slowPeer();
    const client = new McpClient(CLIENT_INFO);
    await client.connect(transport);
    const call = client.callTool('hang');
    await client.close();
    await assert.rejects(call, isCode('ERR_MCP_CONNECTION_CLOSED'));
    await client.close();
    await assert.rejects(client.connect(transport), isCode('ERR_MCP_ALREADY_STARTED'));
  });
});
