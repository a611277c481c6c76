/**
 * The `@example`s of `tokenExchange.ts`, type-checked here (never bundled or run; `npm test`
 * checks the JSDoc copies match).
 *
 * @module
 */
import type { VerifiedPrincipal } from '../resource/principal.js';
import { subjectTokenOf } from '../resource/subjectToken.js';
import type { TokenEndpointContext } from './tokenEndpoint.js';
import { exchangeToken } from './tokenExchange.js';

/** {@link exchangeToken} of the caller's token (a verifier created with `exchangeable: true`). */
export async function exchangeTokenExample(ctx: TokenEndpointContext, principal: VerifiedPrincipal): Promise<void> {
  const subjectToken = subjectTokenOf(principal);
  if (subjectToken === undefined) return;
  const tokens = await exchangeToken(ctx, { subjectToken, resource: 'https://mcp.example.com/mcp', scopes: ['files:read'] });
}
