/**
 * Client adapter for the official SDK v1 `Client` (`@modelcontextprotocol/sdk`), on the
 * 2025-11-25 wire (initialize handshake at connect).
 *
 * @module
 */
import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { StdioClientTransport } from '@modelcontextprotocol/sdk/client/stdio.js';
import { StreamableHTTPClientTransport } from '@modelcontextprotocol/sdk/client/streamableHttp.js';
import { expectHello, type ConnectClient } from './types.js';

const connect: ConnectClient = async (endpoint) => {
  const client = new Client({ name: 'bench', version: '0.0.0' });
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
