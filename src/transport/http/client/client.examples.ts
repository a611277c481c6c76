/**
 * The `@example` of `StreamableHttpClientTransport` (`client.ts`), type-checked here (never
 * bundled or run; `npm test` checks the JSDoc copy matches).
 *
 * @module
 */
import { Connection } from '../../../jsonrpc/connection.js';
import { StreamableHttpClientTransport } from './client.js';

/** A JSON-RPC connection over Streamable HTTP. */
export async function streamableHttpClientExample(): Promise<void> {
  const connection = new Connection(new StreamableHttpClientTransport({ url: 'http://127.0.0.1:3000/mcp' }));
  await connection.start();
}
