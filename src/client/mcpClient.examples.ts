/**
 * The `@example` of `McpClient` (`mcpClient.ts`), type-checked here (never bundled or run;
 * `npm test` checks the JSDoc copy matches).
 *
 * @module
 */
import type { Transport } from '../transport/types.js';
import { McpClient } from './mcpClient.js';

/** A client's life: connect, list, call, close. */
export async function mcpClientExample(transport: Transport): Promise<void> {
  const client = new McpClient({ name: 'my-host', version: '1.0.0' }, { handlers: { elicitation: async () => ({ action: 'decline' }) } });
  await client.connect(transport);
  const tools = await client.listTools();
  const result = await client.callTool('echo', { message: 'hi' });
  await client.close();
}
