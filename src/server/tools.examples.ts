/**
 * The `@example` of `withJsonSchema` (`tools.ts`), type-checked here (never bundled or run;
 * `npm test` checks the JSDoc copy matches).
 *
 * @module
 */
import * as v from 'valibot';
import type { McpServer } from './mcpServer.js';
import { withJsonSchema } from './tools.js';

/** A valibot schema with the JSON Schema clients see. */
export function withJsonSchemaExample(server: McpServer): void {
  server.tool('add', { inputSchema: withJsonSchema(v.object({ a: v.number() }), { type: 'object', properties: { a: { type: 'number' } }, required: ['a'] }) }, ({ a }) => String(a));
}
