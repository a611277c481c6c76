/**
 * What a {@link ConsentQueue} needs to be one queue across several gateway instances: the
 * waiting requests kept where every instance sees them, an atomic "first answer wins", and a
 * change feed. The host defines it; `store/postgres/pgConsent.ts` implements it on a
 * PostgreSQL table with LISTEN/NOTIFY.
 *
 * An approval or a denial given through any instance is recorded once (the first one wins,
 * a second is refused as "no longer waiting"), and the instance where the call waits is told
 * by the change feed and delivers it. Every failure to reach the store fails closed: a
 * request that cannot be published is not asked (the call is denied), an answer that cannot
 * be recorded is refused, and a stored answer that does not read back as one is a denial.
 *
 * @module
 */
import { McpError, McpErrorCode } from '../../util/errors.js';
import type { ConsentAnswer, ConsentRequest } from './consentTypes.js';

/**
 * One change of the shared requests (what the feed says; the details are read from the store).
 * `gone`: the instance where the call waited stopped (its request can no longer be answered).
 */
export interface SharedConsentChange {
  readonly type: 'request' | 'answered' | 'closed' | 'gone';
  readonly id: string;
}

/**
 * The answer to a request whose call is gone: the gateway instance it waited on stopped, so
 * nobody can deliver the answer (`ERR_MCP_CONNECTION_CLOSED`; nothing was applied).
 */
export class ConsentCallGoneError extends McpError {
  constructor(id: string, instance?: string) {
    super(McpErrorCode.ConnectionClosed, `the call that asked for consent request ${id} is gone: the gateway instance it waited on${instance !== undefined ? ` (${instance})` : ''} stopped; the answer was not applied`);
  }
}

/** Consent requests shared by every instance (see the module comment). */
export interface SharedConsentRequests {
  /** Publishes a request that waits on this instance. Rejects when it cannot (the ask then fails: denied). */
  publish(request: ConsentRequest): Promise<void>;
  /**
   * Records the first answer to `id`; resolves false when it no longer waits (answered, withdrawn,
   * expired, unknown); rejects with {@link ConsentCallGoneError} when the instance it waited on stopped.
   */
  answer(id: string, answer: ConsentAnswer): Promise<boolean>;
  /** The answer recorded for `id`, if any. A stored answer that is not one reads as a denial. */
  answerOf(id: string): Promise<ConsentAnswer | undefined>;
  /** Removes a request nobody waits for any more (delivered, timed out, cancelled). */
  withdraw(id: string): Promise<void>;
  /** Every request still waiting on any instance at `now` (ms), oldest first. */
  pending(now: number): Promise<readonly ConsentRequest[]>;
  /**
   * Calls `onChange` for each change on any instance, and `onResync` once the feed is in place
   * and again whenever changes may have been missed (it was lost and is back); returns the
   * stop function.
   */
  watch(onChange: (change: SharedConsentChange) => void, onResync: () => void): () => void;
}

/** A stored answer read back: the answer when it has an answer's shape, else a denial saying so (fail closed). */
export function storedAnswer(value: unknown): ConsentAnswer {
  const denial: ConsentAnswer = { approved: false, reason: 'the recorded answer is malformed; denied', approver: 'store', mediated: 'person' };
  if (typeof value !== 'object' || value === null) return denial;
  const a = value as Record<string, unknown>;
  if (typeof a['approver'] !== 'string' || (a['mediated'] !== 'person' && a['mediated'] !== 'client')) return denial;
  if (a['approved'] === false && typeof a['reason'] === 'string') return a as unknown as ConsentAnswer;
  const scope = a['scope'] as Record<string, unknown> | undefined;
  if (a['approved'] === true && typeof scope === 'object' && scope !== null && typeof scope['match'] === 'string' && typeof scope['duration'] === 'string') return a as unknown as ConsentAnswer;
  return denial;
}
