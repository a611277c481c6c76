/**
 * Using the client: spawn an MCP server over stdio (here our own demo server), let the client
 * negotiate the protocol era, list and call tools, and answer the server's questions with one
 * handler API that serves both eras. Run with `npx tsx examples/client-quickstart.ts` after
 * `npm run build`.
 */
import { McpClient } from 'switchboard/client';
import { StdioClientTransport } from 'switchboard/transport/stdio';

const client = new McpClient(
  { name: 'quickstart-client', version: '1.0.0' },
  {
    handlers: {
      // Used for MRTR input requests (2026-07-28) and for real elicitation/create requests
      // (stateful revisions) alike.
      elicitation: (params) => {
        console.log(`server asks: ${params.message}`);
        return { action: 'accept', content: { name: 'Ada' } };
      },
    },
  },
);

const server = new StdioClientTransport({
  command: process.execPath,
  args: [new URL('../dist/cli/main.js', import.meta.url).pathname, 'everything', '--stdio', '--log-level', 'warn'],
  stderr: 'inherit',
});
await client.connect(server);
console.log(`connected: ${client.serverInfo?.name} speaking ${client.protocolVersion} (${client.era})`);

const tools = await client.listTools();
console.log(`${tools.length} tools, e.g. ${tools.slice(0, 3).map((t) => t.name).join(', ')}`);

const echoed = await client.callTool('echo', { message: 'hello' });
console.log('echo:', JSON.stringify(echoed.content));

// This tool asks for the user's name: the client answers through the elicitation handler and
// retries transparently (a multi round-trip request on 2026-07-28).
const greeted = await client.callTool('test_input_required_result_elicitation', {});
console.log('greeting:', JSON.stringify(greeted.content));

await client.close();
