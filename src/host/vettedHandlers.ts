/**
 * The host's own answers to what a server asks outside any call (elicitation, sampling): each
 * question passes the interceptor chain as a `server/request` first (the sanitiser, the policy's
 * server-request rule, the audit log), and the handler gets it as vetted. Likewise a server's
 * notifications pass the chain's notification hooks before their listener ({@link vettedListener}).
 *
 * @module
 */
import type { ClientHandlers } from '../client/types.js';
import type { InterceptContext, InterceptorChain, NotificationMethod } from './interceptors.js';
import type { ElicitParams } from '../protocol/model/elicitation.js';
import type { CreateMessageParams } from '../protocol/model/sampling.js';

/** Runs a server's question through the chain, then `answer` with the vetted params. */
export type ServerRequestVetting = <R>(method: 'elicitation/create' | 'sampling/createMessage', params: Record<string, unknown>, answer: (vetted: Record<string, unknown>) => Promise<R>) => Promise<R>;

/** `own` with its elicitation and sampling handlers behind `vet` (no handlers: none). */
export function vettedHandlers(own: ClientHandlers | undefined, vet: ServerRequestVetting): ClientHandlers {
  if (own === undefined) return {};
  const handlers: { -readonly [K in keyof ClientHandlers]: ClientHandlers[K] } = { ...own };
  const { elicitation, sampling } = own;
  if (elicitation !== undefined) {
    handlers.elicitation = (params, context) => vet('elicitation/create', { ...params }, async (vetted) => elicitation.call(own, vetted as unknown as ElicitParams, context));
  }
  if (sampling !== undefined) {
    handlers.sampling = (params, context) => vet('sampling/createMessage', { ...params }, async (vetted) => sampling.call(own, vetted as unknown as CreateMessageParams, context));
  }
  return handlers;
}

/** `deliver`, behind `chain`'s notification hooks (the listener itself when no interceptor sees notifications). */
export function vettedListener<P extends object>(chain: InterceptorChain, method: NotificationMethod, deliver: (params: P) => void, ctx: InterceptContext | undefined): (params: P) => void {
  if (!chain.seesNotifications) return deliver;
  return (params) => {
    const out = chain.notify(method, params as unknown as Record<string, unknown>, ctx);
    if (out !== undefined) deliver(out as unknown as P);
  };
}
