/**
 * An upstream client connected in memory to a `Gateway` over a started `Host`, for tests
 * of what crosses the gateway.
 */
import type { McpClient } from '../../../../src/client/mcpClient.js';
import { Gateway } from '../../../../src/host/gateway.js';
import type { Host } from '../../../../src/host/host.js';
import { createInMemoryPair } from '../../../../src/transport/memory.js';

/** Serves `host` through a new gateway and connects `client` to it; `close` closes the client, the gateway and the host, in that order. */
export async function throughGateway(host: Host, client: McpClient): Promise<{ readonly gateway: Gateway; close(): Promise<void> }> {
  const gateway = new Gateway(host);
  const [clientSide, serverSide] = createInMemoryPair();
  await gateway.server.connect(serverSide);
  await client.connect(clientSide);
  return {
    gateway,
    close: async () => {
      await client.close();
      await gateway.close();
      await host.close();
    },
  };
}
