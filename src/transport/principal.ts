/**
 * Who sent a message, as transports hand it to the dispatcher: `DispatchEnv.principal`.
 *
 * Inside a transport the principal rides with the message's `extra` under the
 * {@link PRINCIPAL} symbol key (copies of `extra` keep it; JSON, `Object.keys` and a
 * configuration file cannot set or see it). The HTTP transport's `auth` option owns that key:
 * it sets it from the verified token and drops whatever an `extra` hook put there. Without
 * `auth`, an application's own `extra` hook (or `createInMemoryPair({ principal })`) may set it.
 *
 * @module
 */
import type { VerifiedPrincipal } from '../auth/resource/principal.js';
import type { MessageExtra } from '../jsonrpc/channel.js';

/** The authenticated sender of a message. */
export interface Principal {
  /** The stable id sessions, `requestState` and tasks are bound to (never empty). */
  readonly id: string;
  /** The verified access token's identity and grants, when the HTTP `auth` option verified one. */
  readonly auth?: VerifiedPrincipal;
}

/** The `extra` key that carries a message's {@link Principal} inside transports. */
export const PRINCIPAL: unique symbol = Symbol('switchboard.principal');

/** The principal `extra` carries, if any (a malformed value counts as none). */
export function principalIn(extra: MessageExtra | undefined): Principal | undefined {
  const value = (extra as Readonly<Record<PropertyKey, unknown>> | undefined)?.[PRINCIPAL];
  if (typeof value !== 'object' || value === null) return undefined;
  const id = (value as { id?: unknown }).id;
  return typeof id === 'string' && id !== '' ? (value as Principal) : undefined;
}

/** `extra` carrying `principal` (a copy; `undefined` removes it). */
export function withPrincipal(extra: MessageExtra, principal: Principal | undefined): MessageExtra {
  const { [PRINCIPAL]: _drop, ...rest } = extra as Readonly<Record<PropertyKey, unknown>>;
  return (principal === undefined ? rest : { ...rest, [PRINCIPAL]: principal }) as MessageExtra;
}
