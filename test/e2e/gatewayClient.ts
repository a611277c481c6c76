/**
 * The official SDK's client on a gateway the scenario started (`startGateway`), as an MCP client
 * app connects: Streamable HTTP with the gateway's bearer token; and the teardown the scenarios share.
 *
 * @module
 */
import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { StreamableHTTPClientTransport } from '@modelcontextprotocol/sdk/client/streamableHttp.js';
import type { GatewayConfig, RunningGateway } from '../interop/fixtures/gatewayHarness.js';

/** Connects `client` (by default a plain one named `e2e`) to `gateway` with its bearer token; resolves with it. */
export async function connectClient(gateway: RunningGateway, client: Client = new Client({ name: 'e2e', version: '1.0.0' })): Promise<Client> {
  await client.connect(new StreamableHTTPClientTransport(gateway.url, { requestInit: { headers: { Authorization: `Bearer ${gateway.token}` } } }));
  return client;
}

/** Closes the client, stops the gateway and removes the config folder, in that order (whichever were made). */
export async function closeScenario(client: Client | undefined, gateway: RunningGateway | undefined, config: GatewayConfig | undefined): Promise<void> {
  await client?.close();
  await gateway?.stop();
  await config?.remove();
}
