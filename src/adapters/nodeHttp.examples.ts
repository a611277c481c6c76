/**
 * The `@example`s of `nodeHttp.ts`, type-checked here (never bundled or run; `npm test` checks
 * the JSDoc copies match).
 *
 * @module
 */
import * as http from 'node:http';
import { createStreamableHttpHandler, type StreamableHttpHandler } from '../transport/http/server/server.js';
import type { McpDispatcher } from '../transport/types.js';
import { listen, toNodeHandler } from './nodeHttp.js';

/** {@link toNodeHandler} on a `node:http` server. */
export function toNodeHandlerExample(dispatcher: McpDispatcher): void {
  const server = http.createServer(toNodeHandler(createStreamableHttpHandler(dispatcher)));
  server.listen(3000, '127.0.0.1');
}

/** {@link listen} on a free port. */
export async function listenExample(handler: StreamableHttpHandler): Promise<void> {
  const { url, close } = await listen(handler, { port: 0 });
}
