/**
 * The `@example`s of `bearerVerifier.ts` and `dpopProof.ts`, type-checked here (never bundled or
 * run; `npm test` checks the JSDoc copies match).
 *
 * @module
 */
import type * as jose from 'jose';
import { isAuthError } from '../errors.js';
import { createBearerVerifier, type RemoteJwksOptions } from './bearerVerifier.js';
import { createDpopNonceSource, InMemoryDpopReplayCache, verifyDpopProof } from './dpopProof.js';

/** {@link createBearerVerifier} in a fetch-style handler. */
export async function bearerVerifierExample(
  request: Request,
  resource: string,
  issuers: readonly string[],
  jwks: RemoteJwksOptions | jose.JSONWebKeySet,
): Promise<Response | undefined> {
  const verifier = createBearerVerifier({
    resource: 'https://mcp.example.com/mcp',
    issuers: ['https://auth.example.com'],
    jwks: { url: 'https://auth.example.com/jwks' },
  });
  try { const principal = await verifier.authenticate(request); } catch (e) { if (isAuthError(e)) return e.toResponse(); throw e; }
  // Also accept DPoP-bound tokens (principal.jkt is then set); `required: true` refuses Bearer:
  createBearerVerifier({ resource, issuers, jwks, dpop: { nonce: createDpopNonceSource() } });
  return undefined;
}

/** {@link verifyDpopProof} of a request's `DPoP` header. */
export async function verifyDpopProofExample(request: Request, accessToken: string, cnfJkt: string): Promise<void> {
  const replayCache = new InMemoryDpopReplayCache();
  const { jkt } = await verifyDpopProof(request.headers.get('dpop'), {
    method: 'POST', url: 'https://mcp.example.com/mcp', accessToken, jkt: cnfJkt, replayCache,
  });
}
