/**
 * The console API's routes (`/console/api/<path>`), after the handler checked the host, the
 * origin, the session and the CSRF token (`consoleApi.ts`). Each route answers JSON.
 *
 * @module
 */
import type { HttpResponseLike } from '../transport/http/server/types.js';
import { auditExport, auditList, auditVerify } from './consoleAudit.js';
import { connectionsState, revokeConnectionsRoute } from './consoleConnections.js';
import { answerConsent, consentState, revokeGrant } from './consoleConsent.js';
import { inspectServer, inspectorAnswer, inspectorCall, inspectorPrompt, inspectorRead } from './consoleInspector.js';
import { overview, tools } from './consoleOverview.js';
import { policyDryRun, policyState } from './consolePolicy.js';
import { json } from './consoleResponses.js';
import { approveConfig, approveLaunch, decidePins, reviewState } from './consoleReview.js';
import type { ConsoleOptions, Route, RouteContext } from './consoleTypes.js';

const sync =
  (f: (o: ConsoleOptions) => unknown) =>
  (ctx: RouteContext): Promise<HttpResponseLike> =>
    Promise.resolve(json(200, f(ctx.options)));

/** Every route, first match wins. */
export const ROUTES: readonly Route[] = [
  { method: 'GET', path: 'overview', run: sync(overview) },
  { method: 'GET', path: 'tools', run: sync(tools) },
  { method: 'GET', path: 'consent', run: consentState },
  { method: 'POST', path: 'consent/:id/:verb', run: answerConsent },
  { method: 'DELETE', path: 'consent/grants/:id', run: revokeGrant },
  { method: 'GET', path: 'review', run: reviewState },
  { method: 'POST', path: 'review/approve', run: (ctx) => decidePins(ctx, 'approve') },
  { method: 'POST', path: 'review/reject', run: (ctx) => decidePins(ctx, 'reject') },
  { method: 'POST', path: 'review/launches/approve', run: approveLaunch },
  { method: 'POST', path: 'review/config/approve', run: approveConfig },
  { method: 'GET', path: 'connections', run: connectionsState },
  { method: 'POST', path: 'connections/revoke', run: revokeConnectionsRoute },
  { method: 'GET', path: 'audit', run: auditList },
  { method: 'GET', path: 'audit/verify', run: auditVerify },
  { method: 'GET', path: 'audit/export', run: auditExport },
  { method: 'GET', path: 'policy', run: policyState },
  { method: 'POST', path: 'policy/dry-run', run: policyDryRun },
  { method: 'POST', path: 'inspector/call', run: inspectorCall },
  { method: 'POST', path: 'inspector/read', run: inspectorRead },
  { method: 'POST', path: 'inspector/prompt', run: inspectorPrompt },
  { method: 'POST', path: 'inspector/answer', run: inspectorAnswer },
  { method: 'GET', path: 'inspector/:server', run: inspectServer },
];
