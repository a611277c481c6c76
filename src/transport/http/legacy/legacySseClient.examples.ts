/**
 * The `@example` of `LegacySseClientTransport` (`legacySseClient.ts`), type-checked here (never
 * bundled or run; `npm test` checks the JSDoc copy matches).
 *
 * @module
 */
import { McpClient } from '../../../client/mcpClient.js';
import { LegacySseClientTransport } from './legacySseClient.js';

/** A client of a 2024-11-05 HTTP+SSE server. */
export async function legacySseClientExample(): Promise<void> {
  const client = new McpClient({ name: 'my-host', version: '1.0.0' }, { era: 'stateful' });
  await client.connect(new LegacySseClientTransport({ url: 'https://example.com/sse' }));
}
