/**
 * The console's review routes: definitions the pins quarantined (changed, added, or rejected
 * before), each with the approved and the observed definition so the page can show them side
 * by side; changed server instructions; stdio launches waiting for consent. Approve and reject
 * use the same record functions as `switchboard pins approve|reject` (`pinReview.ts`), save
 * through the gateway's pin store, then reload the pins (`PinTrust`) and vet every server's lists again
 * (what `switchboard pins` in another process triggers through the store's watch). Each decision
 * is recorded in the audit log as `console:admin`. Each pending item comes with the scanner's
 * findings for its new definition; approving one that has findings needs
 * `acknowledgeFindings: true` in the body (409 with the findings otherwise).
 *
 * @module
 */
import { UnacknowledgedFindingsError } from '../host/pins/pinFindings.js';
import { decidePending, findingsOfPending, INSTRUCTIONS_ITEM, selectRecords } from '../host/pins/pinReview.js';
import type { HttpResponseLike } from '../transport/http/server/types.js';
import { McpErrorCode, describeError, isMcpError } from '../util/errors.js';
import { CONSOLE_APPROVER } from './consoleConsent.js';
import { failure, json } from './consoleResponses.js';
import type { RouteContext } from './consoleTypes.js';

/** `GET review`. */
export function reviewState(ctx: RouteContext): Promise<HttpResponseLike> {
  const { pins, launches, reload } = ctx.options;
  const items: Record<string, unknown>[] = [];
  const instructions: Record<string, unknown>[] = [];
  for (const record of pins?.trust.records ?? []) {
    for (const [key, p] of Object.entries(record.pending)) {
      items.push({
        identity: record.identity,
        server: record.alias,
        item: key,
        kind: p.kind,
        name: p.name,
        status: p.status,
        before: record.items[key]?.definition ?? null,
        after: p.definition,
        changes: p.changes,
        findings: findingsOfPending(record, key),
        at: p.at,
      });
    }
    if (record.pendingInstructions !== undefined) {
      instructions.push({
        identity: record.identity,
        server: record.alias,
        item: INSTRUCTIONS_ITEM,
        before: record.instructions ?? null,
        after: record.pendingInstructions,
        findings: findingsOfPending(record, INSTRUCTIONS_ITEM),
      });
    }
  }
  return Promise.resolve(json(200, { pins: pins !== undefined, items, instructions, launches: launches?.pending() ?? [], config: reload?.pending ?? null }));
}

/** `POST review/approve|reject` `{ identity, item?, acknowledgeFindings? }`. */
export async function decidePins(ctx: RouteContext, action: 'approve' | 'reject'): Promise<HttpResponseLike> {
  const pins = ctx.options.pins;
  if (pins === undefined) return failure(404, 'pins are off on this gateway (switchboard.pins is false)');
  const body = await ctx.body();
  const identity = body['identity'];
  const item = body['item'];
  if (typeof identity !== 'string' || identity === '') return failure(400, 'the body needs "identity" (a server identity from GET review, or its id)');
  if (item !== undefined && typeof item !== 'string') return failure(400, '"item" must be a string such as "tool:search"');
  const ack = body['acknowledgeFindings'];
  if (ack !== undefined && typeof ack !== 'boolean') return failure(400, '"acknowledgeFindings" must be true or false');
  if (action === 'reject' && item === INSTRUCTIONS_ITEM) return failure(400, 'changed instructions can be approved, not rejected: they stay unserved until approved');
  const now = (ctx.options.now ?? Date.now)();
  const decided: string[] = [];
  // Each decision is audited as the console's admin, like its consent answers.
  const audit = ctx.options.audit !== undefined ? { log: ctx.options.audit.log, by: CONSOLE_APPROVER } : undefined;
  try {
    for (const record of selectRecords(await pins.store.load(), identity)) decided.push(...(await decidePending(pins.store, record.identity, action, item, now, audit, ack === true)));
  } catch (error) {
    if (error instanceof UnacknowledgedFindingsError) return json(409, { error: error.message, findings: error.findings });
    if (isMcpError(error, McpErrorCode.StoreUnavailable)) {
      // Saved but not audited (or not saved): the other instances and this page must still see what is stored.
      await pins.trust.reload().catch(() => undefined);
      ctx.changed('pins');
      return failure(503, error.message);
    }
    if (isMcpError(error)) return failure(400, error.message);
    throw error;
  }
  if (decided.length === 0) return failure(409, 'nothing is pending there');
  await pins.trust.reload();
  await ctx.options.host.refreshTrust();
  ctx.changed('pins');
  return json(200, action === 'approve' ? { approved: decided } : { rejected: decided });
}

/** `POST review/launches/approve` `{ server, digest, acknowledgeFindings? }`: a launch flagged by the supply-chain checks needs `acknowledgeFindings: true`. */
export async function approveLaunch(ctx: RouteContext): Promise<HttpResponseLike> {
  const launches = ctx.options.launches;
  if (launches === undefined) return failure(404, 'no launch waits for consent on this gateway');
  const body = await ctx.body();
  const server = body['server'];
  const digest = body['digest'];
  if (typeof server !== 'string' || typeof digest !== 'string') return failure(400, 'the body needs "server" and "digest" (from GET review)');
  const pending = launches.pending().find((l) => l.server === server);
  if (pending === undefined) return failure(404, `no launch of ${server} waits for consent`);
  if (pending.digest !== digest) return failure(409, `the launch of ${server} changed since it was shown (digest ${pending.digest}); review it again`);
  const flags = pending.findings.filter((f) => f.severity === 'flag');
  if (flags.length > 0 && body['acknowledgeFindings'] !== true) {
    return json(409, { error: `the launch of ${server} is flagged (${flags.map((f) => f.message).join('; ')}); approving it needs "acknowledgeFindings": true`, findings: pending.findings });
  }
  try {
    const started = await launches.approve(server, digest);
    ctx.changed('servers');
    return json(200, { server, started });
  } catch (error) {
    return failure(500, `the launch was approved but ${server} did not start: ${describeError(error)}`);
  }
}

/** `POST review/config/approve` `{ digest }`: applies the reloaded config that waits (it must still be the one shown). */
export async function approveConfig(ctx: RouteContext): Promise<HttpResponseLike> {
  const reload = ctx.options.reload;
  if (reload === undefined) return failure(404, 'this gateway does not watch a config file');
  const body = await ctx.body();
  const digest = body['digest'];
  if (typeof digest !== 'string') return failure(400, 'the body needs "digest" (from GET review: config.digest)');
  const pending = reload.pending;
  if (pending === undefined) return failure(404, 'no reloaded config waits for approval');
  if (pending.digest !== digest) return failure(409, `the waiting config changed since it was shown (digest ${pending.digest}); review it again`);
  try {
    await reload.approve(digest, CONSOLE_APPROVER);
  } catch (error) {
    return failure(500, `the config was approved but could not be applied: ${describeError(error)}`);
  }
  ctx.changed('servers');
  return json(200, { applied: digest });
}
