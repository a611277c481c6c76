// Test support: an McpServer on an in-memory pair, driven by a raw Connection with 2026-07-28 _meta.
import { Connection } from '../../../src/jsonrpc/connection.js';
import type { McpServer } from '../../../src/server/mcpServer.js';
import { createInMemoryPair } from '../../../src/transport/memory.js';

/** The `_meta` of a 2026-07-28 request. */
export function meta(extra: Record<string, unknown> = {}): Record<string, unknown> {
  return { 'io.modelcontextprotocol/protocolVersion': '2026-07-28', 'io.modelcontextprotocol/clientCapabilities': {}, ...extra };
}

/** Connects a raw client to `server`; `call` sends a 2026-07-28 request. */
export async function connectRaw(server: McpServer): Promise<{ call: (method: string, params?: Record<string, unknown>) => Promise<Record<string, unknown>>; close: () => Promise<void> }> {
  const [clientSide, serverSide] = createInMemoryPair();
  await server.connect(serverSide);
  const conn = new Connection(clientSide);
  await conn.start();
  return {
    call: (method, params = {}) => conn.request(method, { ...params, _meta: meta(params['_meta'] as Record<string, unknown> | undefined) }),
    close: async () => {
      await conn.close();
      await server.close();
    },
  };
}
