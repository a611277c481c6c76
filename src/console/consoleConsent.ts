/**
 * The console's consent routes, on the gateway's own `ConsentQueue` and grant store (the same
 * objects the `/consent/` admin API and `switchboard consent` answer through; nothing is
 * duplicated): the waiting requests in full, approve (once, or widened by tool, argument
 * pattern, session or expiry), deny, and the kept grants.
 *
 * @module
 */
import { parseScope } from '../host/consent/consentAnswers.js';
import type { HttpResponseLike } from '../transport/http/server/types.js';
import { describeError } from '../util/errors.js';
import { failure, json } from './consoleResponses.js';
import type { RouteContext } from './consoleTypes.js';

/** Who answers through the console, in the audit log. */
export const CONSOLE_APPROVER = 'console:admin';

/** `GET consent`. */
export async function consentState(ctx: RouteContext): Promise<HttpResponseLike> {
  const consent = ctx.options.consent;
  if (consent === undefined) return json(200, { requests: [], grants: [], queue: false });
  const now = (ctx.options.now ?? Date.now)();
  return json(200, { requests: consent.queue.pending(), grants: await consent.grants.list(now), queue: consent.queued });
}

/** `POST consent/<id>/approve|deny`. */
export async function answerConsent(ctx: RouteContext): Promise<HttpResponseLike> {
  const consent = ctx.options.consent;
  if (consent === undefined) return failure(404, 'consent is not configured on this gateway');
  const id = ctx.params['id'] as string;
  const verb = ctx.params['verb'];
  if (verb !== 'approve' && verb !== 'deny') return failure(404, 'use consent/<id>/approve or consent/<id>/deny');
  const body = await ctx.body();
  const refused = consent.queue.refusal(id);
  if (refused !== undefined) return failure(refused.status, refused.error);
  try {
    if (verb === 'approve') {
      const scope = parseScope(body['scope']);
      const failed = await consent.queue.tryAnswer(id, { approved: true, scope, approver: CONSOLE_APPROVER, mediated: 'person' });
      return failed !== undefined ? failure(failed.status, failed.error) : json(200, { id, approved: true, scope });
    }
    const reason = typeof body['reason'] === 'string' && body['reason'].trim() !== '' ? body['reason'] : 'denied by a person in the console';
    const failed = await consent.queue.tryAnswer(id, { approved: false, reason, approver: CONSOLE_APPROVER, mediated: 'person' });
    return failed !== undefined ? failure(failed.status, failed.error) : json(200, { id, approved: false, reason });
  } catch (error) {
    // A scope the request cannot honour, or a malformed one.
    return failure(400, describeError(error));
  }
}

/** `DELETE consent/grants/<id>`. */
export async function revokeGrant(ctx: RouteContext): Promise<HttpResponseLike> {
  const consent = ctx.options.consent;
  if (consent === undefined) return failure(404, 'consent is not configured on this gateway');
  const id = ctx.params['id'] as string;
  return (await consent.grants.revoke(id)) ? json(200, { revoked: id }) : failure(404, `no grant ${id}`);
}
