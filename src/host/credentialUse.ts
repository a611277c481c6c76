/**
 * Whose credential a downstream request carried, noted on its intercept context by the code
 * that chose it (`principalClients.ts`) and read by the audit log, which records it with the
 * request (`credential: { principal?, mode }`).
 *
 * @module
 */
import type { DownstreamAuthMode } from './connections.js';
import type { InterceptContext } from './interceptors.js';

/** The credential of one downstream request: the gateway's own sign-in (`shared`), or a principal's. */
export interface CredentialUse {
  readonly mode: DownstreamAuthMode;
  /** The principal whose credential it was (absent for `shared`). */
  readonly principal?: string;
}

const used = new WeakMap<InterceptContext, CredentialUse>();

/** Notes that the request of `ctx` carries `credential`. */
export function noteCredential(ctx: InterceptContext, credential: CredentialUse): void {
  used.set(ctx, Object.freeze({ ...credential }));
}

/** The credential the request of `ctx` carried, if one was noted. */
export function credentialOf(ctx: InterceptContext): CredentialUse | undefined {
  return used.get(ctx);
}
