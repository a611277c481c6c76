/**
 * Client adapter for the official SDK v2 `Client` (`@modelcontextprotocol/client`), on the
 * 2026-07-28 wire (`versionNegotiation: 'auto'`: one `server/discover` probe at connect).
 *
 * @module
 */
import { Client, StreamableHTTPClientTransport } from '@modelcontextprotocol/client';
import { StdioClientTransport } from '@modelcontextprotocol/client/stdio';
import { expectHello, type ConnectClient } from './types.js';

const connect: ConnectClient = async (endpoint) => {
  const client = new Client({ name: 'bench', version: '0.0.0' }, { versionNegotiation: { mode: 'auto' } });
  const transport =
    endpoint.kind === 'http'
      ? new StreamableHTTPClientTransport(new URL(endpoint.url))
      : new StdioClientTransport({ command: endpoint.command, args: [...endpoint.args], stderr: 'inherit' });
  await client.connect(transport);
  return {
    callEcho: async () => expectHello(await client.callTool({ name: 'echo', arguments: { message: 'hello' } })),
    close: () => client.close(),
  };
};
export default connect;
