/**
 * The `@example` of `authFetchHandler.ts`, type-checked here (never bundled or run; `npm test`
 * checks the JSDoc copy matches).
 *
 * @module
 */
import { listen } from '../../../adapters/nodeHttp.js';
import { createDevAuthorizationServer } from '../../../auth/dev/devAuthorizationServer.js';
import { allowInsecureRequests } from '../../../auth/http.js';
import { authFetchHandler } from './authFetchHandler.js';

/** A development authorization server on port 4000. */
export async function authFetchHandlerExample(): Promise<void> {
  const as = await createDevAuthorizationServer({ issuer: 'http://127.0.0.1:4000', [allowInsecureRequests]: true });
  await listen(authFetchHandler((r) => as.handler(r), { origin: as.issuer }), { port: 4000 });
}
