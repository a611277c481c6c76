// Per-call log sinks (`CallOptions.onLog`): a server's `notifications/message` during a call
// reaches that call's own sink, attributed like server→client requests (the related request
// on Streamable HTTP, the only call in flight where the wire names none), and never another
// call's. On 2026-07-28 log messages are request-scoped; on 2025-11-25 they are sent on the
// request they relate to.
// https://modelcontextprotocol.io/specification/2026-07-28/server/utilities/logging
// https://modelcontextprotocol.io/specification/2025-11-25/server/utilities/logging
import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { listen } from '../../../src/adapters/nodeHttp.js';
import { McpClient } from '../../../src/client/mcpClient.js';
import type { LoggingMessageParams } from '../../../src/protocol/model/utilities.js';
import type { ProtocolRevision } from '../../../src/protocol/revisions.js';
import { McpServer } from '../../../src/server/mcpServer.js';
import { StreamableHttpClientTransport } from '../../../src/transport/http/client/client.js';
import { createStreamableHttpHandler } from '../../../src/transport/http/server/server.js';
import { CLIENT_INFO, connectServer } from './support.js';

/** A server whose `chatty` tool logs `<tag> 1` and `<tag> 2`, after `waitFor` calls arrived. */
function chattyServer(versions: readonly ProtocolRevision[]): McpServer {
  const server = new McpServer({ name: 'chatty', version: '1.0.0' }, { versions });
  let arrived = 0;
  const waiters: (() => void)[] = [];
  server.tool('chatty', { inputSchema: { type: 'object', properties: { tag: { type: 'string' }, waitFor: { type: 'integer' } }, required: ['tag'] } }, async (args, ctx) => {
    const waitFor = typeof args['waitFor'] === 'number' ? args['waitFor'] : 0;
    if (++arrived >= waitFor) for (const w of waiters.splice(0)) w();
    else await new Promise<void>((resolve) => waiters.push(resolve));
    await ctx.log('info', `${String(args['tag'])} 1`);
    await ctx.log('info', `${String(args['tag'])} 2`);
    return { content: [{ type: 'text', text: 'done' }] };
  });
  return server;
}

const data = (logs: readonly LoggingMessageParams[]): unknown[] => logs.map((l) => l.data);

/** Two `chatty` calls held in flight together, each with its own onLog; what each got. */
async function twoAtOnce(client: McpClient): Promise<{ a: LoggingMessageParams[]; b: LoggingMessageParams[] }> {
  await client.setLoggingLevel('info');
  const a: LoggingMessageParams[] = [];
  const b: LoggingMessageParams[] = [];
  await Promise.all([
    client.callTool('chatty', { tag: 'a', waitFor: 2 }, { onLog: (p) => void a.push(p) }),
    client.callTool('chatty', { tag: 'b', waitFor: 2 }, { onLog: (p) => void b.push(p) }),
  ]);
  return { a, b };
}

for (const revision of ['2026-07-28', '2025-11-25'] as const) {
  describe(`client: per-call onLog (${revision})`, () => {
    it('delivers the log messages of a call to its own onLog, not to on.logMessage', async () => {
      const global: LoggingMessageParams[] = [];
      const { client, close } = await connectServer(chattyServer([revision]), { on: { logMessage: (p) => void global.push(p) } });
      try {
        await client.setLoggingLevel('info');
        const own: LoggingMessageParams[] = [];
        await client.callTool('chatty', { tag: 'a' }, { onLog: (p) => void own.push(p) });
        assert.deepEqual(data(own), ['a 1', 'a 2']);
        assert.deepEqual(global, []);
      } finally {
        await close();
      }
    });

    it('cross-call log leak: with two calls in flight and no relation on the wire, neither call’s onLog gets a message', async () => {
      const global: LoggingMessageParams[] = [];
      const { client, close } = await connectServer(chattyServer([revision]), { on: { logMessage: (p) => void global.push(p) } });
      try {
        const { a, b } = await twoAtOnce(client);
        assert.deepEqual(a, []);
        assert.deepEqual(b, []);
        assert.deepEqual((data(global) as string[]).sort(), ['a 1', 'a 2', 'b 1', 'b 2']);
      } finally {
        await close();
      }
    });

    it('over Streamable HTTP each concurrent call gets exactly its own messages (its response stream)', async () => {
      const server = chattyServer([revision]);
      const http = await listen(createStreamableHttpHandler(server));
      const global: LoggingMessageParams[] = [];
      const client = new McpClient(CLIENT_INFO, { defaultTimeoutMs: 10_000, on: { logMessage: (p) => void global.push(p) } });
      await client.connect(new StreamableHttpClientTransport({ url: `${http.url}mcp` }));
      try {
        const { a, b } = await twoAtOnce(client);
        assert.deepEqual(data(a), ['a 1', 'a 2']);
        assert.deepEqual(data(b), ['b 1', 'b 2']);
        assert.deepEqual(global, []);
      } finally {
        await client.close();
        await server.close();
        await http.close();
      }
    });
  });
}
