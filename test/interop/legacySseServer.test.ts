// Interop: OUR McpServer serving the deprecated 2024-11-05 HTTP+SSE transport through the
// Streamable HTTP handler's `legacySse` option (GET /sse, POST /messages?sessionId=…), on
// node:http in this process, driven by the official SDK v1 client (Client + SSEClientTransport)
// and by our own LegacySseClientTransport.
import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { SSEClientTransport } from '@modelcontextprotocol/sdk/client/sse.js';
import { ElicitRequestSchema, LoggingMessageNotificationSchema } from '@modelcontextprotocol/sdk/types.js';
import { listen, type ListeningServer } from '../../src/adapters/nodeHttp.js';
import { McpClient } from '../../src/client/mcpClient.js';
import { McpServer } from '../../src/server/mcpServer.js';
import { LegacySseClientTransport } from '../../src/transport/http/legacy/legacySseClient.js';
import { createStreamableHttpHandler, type StreamableHttpHandler } from '../../src/transport/http/server/server.js';

let server: McpServer;
let handler: StreamableHttpHandler;
let running: ListeningServer;
let sseUrl: URL;

const textOf = (result: object): string => (((result as { content?: unknown }).content ?? []) as { type: string; text?: string }[]).map((c) => c.text ?? '').join('');
const tick = (): Promise<void> => new Promise((r) => setTimeout(r, 5));

async function waitFor(predicate: () => boolean, ms = 2000): Promise<void> {
  const deadline = Date.now() + ms;
  while (!predicate()) {
    if (Date.now() > deadline) throw new Error('timed out');
    await new Promise((r) => setTimeout(r, 5));
  }
}

before(async () => {
  server = new McpServer({ name: 'legacy-sse-host', version: '1.0.0' });
  server.tool('add', { inputSchema: { type: 'object', properties: { a: { type: 'number' }, b: { type: 'number' } } } }, (args) => String(Number(args['a']) + Number(args['b'])));
  server.tool('slow', {}, async (_args, ctx) => {
    // A pause after each notification: SDK v1 handles notifications a microtask late, so a
    // response in the same chunk would otherwise overtake them (its progress handler is gone).
    for (let i = 1; i <= 3; i++) {
      await ctx.progress(i, 3);
      await tick();
    }
    await ctx.log('warning', 'careful', 'legacy');
    await tick();
    return 'done';
  });
  server.tool('ask', {}, async (_args, ctx) => {
    const answer = await ctx.elicit({ message: 'Your name?', requestedSchema: { type: 'object', properties: { name: { type: 'string' } } } });
    return `Hello ${String((answer.content as Record<string, unknown> | undefined)?.['name'])}`;
  });
  handler = createStreamableHttpHandler(server, { sseKeepAliveMs: 0, legacySse: { path: '/sse', messagesPath: '/messages' } });
  running = await listen(handler, { port: 0 });
  sseUrl = new URL('sse', running.url);
});

after(async () => {
  await running.close();
  await handler.close();
  await server.close();
});

describe('interop: SDK v1 Client + SSEClientTransport -> our McpServer (legacySse)', () => {
  it('connects, lists and calls tools, gets progress and log notifications, answers elicitation, closes', async () => {
    const client = new Client({ name: 'sdk-v1-legacy', version: '1.0.0' }, { capabilities: { elicitation: {} } });
    const logs: unknown[] = [];
    client.setNotificationHandler(LoggingMessageNotificationSchema, (n) => void logs.push(n.params));
    client.setRequestHandler(ElicitRequestSchema, () => ({ action: 'accept', content: { name: 'Ada' } }));
    const transport = new SSEClientTransport(sseUrl);
    await client.connect(transport);
    // SDK v1 asks for its latest revision, which our server speaks on sessions.
    assert.equal(client.getServerVersion()?.name, 'legacy-sse-host');
    assert.equal(handler.sessionCount, 1);

    const tools = await client.listTools();
    assert.deepEqual(tools.tools.map((t) => t.name).sort(), ['add', 'ask', 'slow']);
    assert.equal(textOf(await client.callTool({ name: 'add', arguments: { a: 2, b: 3 } })), '5');

    const progress: number[] = [];
    await client.setLoggingLevel('info');
    const slow = await client.callTool({ name: 'slow', arguments: {} }, undefined, { onprogress: (p) => progress.push(p.progress) });
    assert.equal(textOf(slow), 'done');
    assert.deepEqual(progress, [1, 2, 3]);
    assert.deepEqual(logs, [{ level: 'warning', logger: 'legacy', data: 'careful' }]);

    assert.equal(textOf(await client.callTool({ name: 'ask', arguments: {} })), 'Hello Ada');

    await client.close();
    await waitFor(() => handler.sessionCount === 0);
  });
});

describe('interop: our McpClient + LegacySseClientTransport -> our McpServer (legacySse)', () => {
  it('connects, calls tools with progress and elicitation, closes the session', async () => {
    const client = new McpClient(
      { name: 'switchboard-legacy', version: '0.1.0' },
      { defaultTimeoutMs: 10_000, era: 'stateful', handlers: { elicitation: () => ({ action: 'accept' as const, content: { name: 'Bob' } }) } },
    );
    await client.connect(new LegacySseClientTransport({ url: sseUrl }));
    assert.equal(client.protocolVersion, '2025-11-25');
    assert.deepEqual((await client.listTools()).map((t) => t.name).sort(), ['add', 'ask', 'slow']);
    assert.equal(textOf(await client.callTool('add', { a: 4, b: 5 })), '9');
    const seen: number[] = [];
    assert.equal(textOf(await client.callTool('slow', {}, { onProgress: (p) => seen.push(p.progress) })), 'done');
    assert.deepEqual(seen, [1, 2, 3]);
    assert.equal(textOf(await client.callTool('ask', {})), 'Hello Bob');
    assert.equal(handler.sessionCount, 1);
    await client.close();
    await waitFor(() => handler.sessionCount === 0);
  });

  it('a client asking for 2024-11-05 gets the server’s normal negotiation answer (its latest session revision)', async () => {
    const res = await fetch(sseUrl, { headers: { accept: 'text/event-stream' } });
    const reader = (res.body as ReadableStream<Uint8Array>).getReader();
    const dec = new TextDecoder();
    let text = '';
    const next = async (pattern: RegExp): Promise<RegExpMatchArray> => {
      for (;;) {
        const m = text.match(pattern);
        if (m !== null) return m;
        const { value, done } = await reader.read();
        if (done) throw new Error(`stream ended; have ${text}`);
        text += dec.decode(value, { stream: true });
      }
    };
    const endpoint = (await next(/event: endpoint\ndata: (\S+)\n\n/))[1] ?? '';
    const post = await fetch(new URL(endpoint, sseUrl), {
      method: 'POST',
      headers: { 'content-type': 'application/json' },
      body: JSON.stringify({ jsonrpc: '2.0', id: 1, method: 'initialize', params: { protocolVersion: '2024-11-05', capabilities: {}, clientInfo: { name: 'old', version: '1' } } }),
    });
    assert.equal(post.status, 202);
    const init = JSON.parse((await next(/event: message\ndata: (.+)\n\n/))[1] ?? '{}') as { result: { protocolVersion: string } };
    assert.equal(init.result.protocolVersion, '2025-11-25');
    await reader.cancel();
    await waitFor(() => handler.sessionCount === 0);
  });
});
