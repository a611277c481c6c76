/**
 * A client over HTTP on Node: `nodeFetch` (a keep-alive fetch on node:http, about a third of
 * the CPU per call of Node's global fetch) for Streamable HTTP, and the same server reached
 * through the deprecated 2024-11-05 HTTP+SSE transport that older servers still expose. Run
 * with `npx tsx examples/client-http-node.ts` after `npm run build`: it serves a small server
 * on 127.0.0.1 (both transports on one handler), talks to it both ways, and exits.
 */
import { listen, nodeFetch } from 'switchboard/adapters/node';
import { McpClient } from 'switchboard/client';
import { McpServer } from 'switchboard/server';
import { createStreamableHttpHandler, LegacySseClientTransport, StreamableHttpClientTransport } from 'switchboard/transport/http';

const server = new McpServer({ name: 'greeter', version: '1.0.0' });
server.tool(
  'greet',
  { description: 'Greets someone.', inputSchema: { type: 'object', properties: { name: { type: 'string' } }, required: ['name'] } },
  (args) => `Hello, ${String(args['name'])}!`,
);

// One handler: Streamable HTTP at /mcp, and the 2024-11-05 transport at /sse + /messages.
const running = await listen(createStreamableHttpHandler(server, { path: '/mcp', legacySse: { path: '/sse', messagesPath: '/messages' } }), { port: 0 });
const fetch = nodeFetch(); // one per application: it holds the connection pools

// Streamable HTTP: the client probes with server/discover and speaks 2026-07-28.
const modern = new McpClient({ name: 'example', version: '1.0.0' });
await modern.connect(new StreamableHttpClientTransport({ url: new URL('/mcp', running.url), fetch }));
const first = await modern.callTool('greet', { name: 'Ada' });
console.log(`${modern.protocolVersion} (${modern.era}):`, JSON.stringify(first.content));
await modern.close();

// HTTP+SSE: stateful, negotiated through initialize. The server's message endpoint must be on
// the /sse URL's origin, or the transport refuses it.
const legacy = new McpClient({ name: 'example', version: '1.0.0' }, { era: 'stateful' });
await legacy.connect(new LegacySseClientTransport({ url: new URL('/sse', running.url), fetch }));
const second = await legacy.callTool('greet', { name: 'Grace' });
console.log(`${legacy.protocolVersion} (${legacy.era}) over HTTP+SSE:`, JSON.stringify(second.content));
await legacy.close();

await running.close();
await server.close();
