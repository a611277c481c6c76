// Interop: an official SDK v1 McpServer (test/interop/fixtures/sdkV1Server.mjs) over stdio
// and over Streamable HTTP (the SDK's own StreamableHTTPServerTransport on node:http).
import assert from 'node:assert/strict';
import { randomUUID } from 'node:crypto';
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { after, before, describe, it } from 'node:test';
import { fileURLToPath } from 'node:url';
import { StreamableHTTPServerTransport } from '@modelcontextprotocol/sdk/server/streamableHttp.js';
import { McpClient } from '../../src/client/mcpClient.js';
import { JsonRpcError } from '../../src/jsonrpc/errors.js';
import { StreamableHttpClientTransport } from '../../src/transport/http/client/client.js';
import { buildSdkServer } from './fixtures/sdkV1Server.mjs';
import { answerEverything, stdioClient } from './support.js';

const fixture = fileURLToPath(new URL('./fixtures/sdkV1Server.mjs', import.meta.url));
const text = (result: { content: readonly { type: string; text?: string }[] }): string => result.content.map((c) => c.text ?? '').join('');

/** The same checks on either transport. */
function exercise(label: string, connect: () => Promise<McpClient>, stop: () => Promise<void> = async () => undefined): void {
  describe(`interop: SDK v1 McpServer (${label})`, () => {
    let client: McpClient;
    const handlers = { ...answerEverything, elicitation: () => ({ action: 'accept' as const, content: { name: 'Ada' } }) };
    before(async () => {
      client = await connect();
      void handlers;
    });
    after(async () => {
      await client.close();
      await stop();
    });

    it('negotiates the stateful era', () => {
      assert.equal(client.era, 'stateful');
      assert.equal(client.protocolVersion, '2025-11-25');
      assert.equal(client.serverInfo?.name, 'sdk-v1-fixture');
    });

    it('lists and calls tools, with structured output validated', async () => {
      const names = (await client.listTools()).map((t) => t.name).sort();
      assert.deepEqual(names, ['add', 'ask', 'fail', 'roots', 'sample', 'slow']);
      const sum = await client.callTool('add', { a: 5, b: 3 });
      assert.deepEqual(sum.structuredContent, { sum: 8 });
      assert.equal(text(sum), '8');
      const failed = await client.callTool('fail', {});
      assert.equal(failed.isError, true);
      const bad = await client.callTool('add', { a: 'x', b: 1 }).then((r) => r.isError === true, (e: unknown) => e instanceof JsonRpcError);
      assert.equal(bad, true);
    });

    it('answers elicitation (defaults filled), sampling and roots through the handlers', async () => {
      const answer = JSON.parse(text(await client.callTool('ask', {}))) as { action: string; content: Record<string, unknown> };
      assert.deepEqual(answer, { action: 'accept', content: { name: 'Ada', age: 30, ok: true } });
      assert.match(text(await client.callTool('sample', { prompt: 'hi' })), /sampled 1 message/);
      assert.deepEqual(JSON.parse(text(await client.callTool('roots', {}))), [{ uri: 'file:///tmp', name: 'tmp' }]);
    });

    it('receives progress', async () => {
      const seen: number[] = [];
      await client.callTool('slow', { steps: 3 }, { onProgress: (p) => seen.push(p.progress) });
      assert.deepEqual(seen, [1, 2, 3]);
    });

    it('reads resources and templates, gets prompts, pings', async () => {
      const resources = await client.listResources();
      assert.deepEqual(resources.map((r) => r.uri), ['memo://greeting']);
      assert.equal((await client.readResource('memo://greeting')).contents[0]?.uri, 'memo://greeting');
      assert.deepEqual((await client.listResourceTemplates()).map((t) => t.uriTemplate), ['memo://items/{id}']);
      assert.match(JSON.stringify(await client.readResource('memo://items/7')), /item 7/);
      const prompt = await client.getPrompt('review', { code: 'x = 1' });
      assert.match(JSON.stringify(prompt.messages), /Please review: x = 1/);
      await client.ping();
      await client.setLoggingLevel('warning');
    });
  });
}

const handlersWithName = { ...answerEverything, elicitation: () => ({ action: 'accept' as const, content: { name: 'Ada' } }) };

exercise('stdio', () => stdioClient(fixture, [], { handlers: handlersWithName }));

let httpServer: Server | undefined;
exercise(
  'Streamable HTTP',
  async () => {
    const transports = new Map<string, StreamableHTTPServerTransport>();
    httpServer = createServer((req, res) => {
      void (async () => {
        const sessionId = req.headers['mcp-session-id'];
        let transport = typeof sessionId === 'string' ? transports.get(sessionId) : undefined;
        if (transport === undefined) {
          transport = new StreamableHTTPServerTransport({ sessionIdGenerator: () => randomUUID(), onsessioninitialized: (id) => void transports.set(id, transport as StreamableHTTPServerTransport) });
          await buildSdkServer().connect(transport);
        }
        await transport.handleRequest(req, res);
      })().catch((error: unknown) => {
        res.statusCode = 500;
        res.end(String(error));
      });
    });
    await new Promise<void>((resolve) => httpServer?.listen(0, '127.0.0.1', resolve));
    const { port } = httpServer.address() as AddressInfo;
    const client = new McpClient({ name: 'switchboard-interop', version: '0.1.0' }, { defaultTimeoutMs: 10_000, handlers: handlersWithName });
    await client.connect(new StreamableHttpClientTransport({ url: `http://127.0.0.1:${port}/mcp` }));
    return client;
  },
  async () => {
    httpServer?.closeAllConnections();
    await new Promise<void>((resolve) => httpServer?.close(() => resolve()));
  },
);
