/**
 * The `@example` of `createStreamableHttpHandler` (`server.ts`), type-checked here (never
 * bundled or run; `npm test` checks the JSDoc copy matches).
 *
 * @module
 */
import type { Logger } from '../../../util/logger.js';
import type { McpDispatcher } from '../../types.js';
import { createStreamableHttpHandler } from './server.js';

/** An `McpServer` (its `dispatcher`). */
declare const server: { readonly dispatcher: McpDispatcher };
declare const logger: Logger;

const handler = createStreamableHttpHandler(server.dispatcher, { logger });
export default { fetch: handler.fetch }; // any fetch-style runtime
// or on Node: await listen(handler, { port: 3000 });
