/**
 * Client adapter for Switchboard's `McpClient` (the published build, `switchboard/client`),
 * on the 2026-07-28 wire: one `server/discover` probe at connect, then stateless calls. Over
 * HTTP it uses Node's global `fetch` (the transport's default); `oursNode.ts` passes
 * `nodeFetch` instead.
 *
 * @module
 */
import { McpClient } from 'switchboard/client';
import { StreamableHttpClientTransport, type FetchLike } from 'switchboard/transport/http';
import { StdioClientTransport } from 'switchboard/transport/stdio';
import { expectHello, type ConnectClient } from './types.js';

/** Connects an `McpClient`, over HTTP with `fetch` when given (else the global one). */
export function connectOurs(fetch?: FetchLike): ConnectClient {
  return async (endpoint) => {
    const client = new McpClient({ name: 'bench', version: '0.0.0' });
    const transport =
      endpoint.kind === 'http'
        ? new StreamableHttpClientTransport({ url: endpoint.url, ...(fetch === undefined ? {} : { fetch }) })
        : new StdioClientTransport({ command: endpoint.command, args: [...endpoint.args], stderr: 'inherit' });
    await client.connect(transport);
    return {
      callEcho: async () => expectHello(await client.callTool('echo', { message: 'hello' })),
      close: () => client.close(),
    };
  };
}

export default connectOurs();
