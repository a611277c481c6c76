/**
 * Parsing answers that arrive as JSON (the HTTP API, a webhook's response or its later
 * signed answer) into {@link ConsentAnswer}s. Anything malformed is refused with the reason.
 *
 * A webhook answer is `{ "id": <request id>, "decision": "approve" | "deny" | "pending",
 * "scope"?: GrantScope, "approver"?: string, "reason"?: string }`.
 *
 * @module
 */
import { McpError, McpErrorCode } from '../../util/errors.js';
import { ONCE, type ConsentAnswer, type GrantScope } from './consentTypes.js';

const bad = (why: string): never => {
  throw new McpError(McpErrorCode.InvalidArgument, why);
};

/** A {@link GrantScope} from JSON (absent: this call, once). Only its shape is checked here; `checkScope` checks it against the request. */
export function parseScope(value: unknown): GrantScope {
  if (value === undefined) return ONCE;
  if (typeof value !== 'object' || value === null || Array.isArray(value)) return bad('scope must be an object { match, duration, patterns?, expiresAt? }');
  const v = value as Record<string, unknown>;
  for (const key of Object.keys(v)) if (!['match', 'duration', 'patterns', 'expiresAt'].includes(key)) bad(`scope has an unknown member ${JSON.stringify(key)}`);
  const match = v['match'] ?? 'call';
  const duration = v['duration'] ?? 'once';
  if (match !== 'call' && match !== 'tool' && match !== 'pattern') return bad('scope.match must be "call", "tool" or "pattern"');
  if (duration !== 'once' && duration !== 'session' && duration !== 'until') return bad('scope.duration must be "once", "session" or "until"');
  let patterns: Record<string, string> | undefined;
  if (v['patterns'] !== undefined) {
    const p = v['patterns'];
    if (typeof p !== 'object' || p === null || Array.isArray(p)) return bad('scope.patterns must be an object of argument name → glob');
    patterns = {};
    for (const [name, glob] of Object.entries(p)) {
      if (typeof glob !== 'string') return bad(`scope.patterns.${name} must be a string`);
      patterns[name] = glob;
    }
  }
  const expiresAt = v['expiresAt'];
  if (expiresAt !== undefined && typeof expiresAt !== 'string') return bad('scope.expiresAt must be an ISO 8601 string');
  return { match, duration, ...(patterns !== undefined ? { patterns } : {}), ...(expiresAt !== undefined ? { expiresAt } : {}) };
}

/**
 * A webhook's answer for request `id`: the {@link ConsentAnswer}, or `pending` (the answer
 * comes later). Throws when it is malformed or names another request.
 */
export function parseWebhookAnswer(text: string, id: string): ConsentAnswer | 'pending' {
  let value: unknown;
  try {
    value = JSON.parse(text);
  } catch {
    return bad('the webhook answer is not JSON');
  }
  if (typeof value !== 'object' || value === null || Array.isArray(value)) return bad('the webhook answer must be a JSON object');
  const v = value as Record<string, unknown>;
  if (v['id'] !== id) return bad(`the webhook answer names request ${JSON.stringify(v['id'])}, not ${JSON.stringify(id)}`);
  const approver = `webhook${typeof v['approver'] === 'string' && v['approver'] !== '' ? `:${v['approver']}` : ''}`;
  switch (v['decision']) {
    case 'pending':
      return 'pending';
    case 'approve':
      return { approved: true, scope: parseScope(v['scope']), approver, mediated: 'person' };
    case 'deny':
      return { approved: false, reason: typeof v['reason'] === 'string' ? v['reason'] : 'denied out of band', approver, mediated: 'person' };
    default:
      return bad('the webhook answer needs "decision": "approve", "deny" or "pending"');
  }
}
