/**
 * The person's side of the pins (`switchboard pins list | diff | approve | reject`, the console's
 * review page): pure functions over {@link ServerPins} records, and {@link decidePending}, which
 * saves a decision and records it in the audit log. There is no MCP tool for any of this: the
 * agent can never approve its own definitions.
 *
 * @module
 */
import { McpError, McpErrorCode, describeError } from '../../util/errors.js';
import type { AuditEntry, AuditLog } from '../audit.js';
import { formatChanges } from './pinDiff.js';
import { findingId, formatFindings, pendingFindings, UnacknowledgedFindingsError } from './pinFindings.js';
import { digestOf, namesDigest } from './pinDigests.js';
import type { PendingItem, PinnedItem, PinStore, ServerPins } from './pinStore.js';
import { displayIdentity } from './serverIdentity.js';

/** The item key that names a server's pending instructions. */
export const INSTRUCTIONS_ITEM = 'instructions';

/** The records a `[server]` argument selects: by configured id (alias) or identity; all when undefined. */
export function selectRecords(records: readonly ServerPins[], server: string | undefined): ServerPins[] {
  if (server === undefined) return [...records];
  const found = records.filter((r) => r.alias === server || r.identity === server);
  if (found.length === 0) {
    const known = records.map((r) => r.alias).join(', ') || '(none yet)';
    throw new McpError(McpErrorCode.InvalidArgument, `No pins for server ${JSON.stringify(server)}; pinned servers: ${known}`);
  }
  return found;
}

/** The pending keys of `record` an `[item]` argument selects (`tool:name`, or a bare name matching any kind). */
function selectPending(record: ServerPins, item: string | undefined): string[] {
  const keys = Object.keys(record.pending);
  if (record.pendingInstructions !== undefined) keys.push(INSTRUCTIONS_ITEM);
  if (item === undefined) return keys;
  const matched = keys.filter((k) => k === item || k.slice(k.indexOf(':') + 1) === item);
  if (matched.length === 0) throw new McpError(McpErrorCode.InvalidArgument, `Server ${record.alias} has no pending change ${JSON.stringify(item)}; pending: ${keys.join(', ') || '(none)'}`);
  return matched;
}

/** Approves the selected pending changes of `record` (trust `approved`); returns the new record and the approved keys. */
export function approvePending(record: ServerPins, item: string | undefined, now: number): { record: ServerPins; keys: string[] } {
  const keys = selectPending(record, item);
  const items: Record<string, PinnedItem> = { ...record.items };
  const pending: Record<string, PendingItem> = { ...record.pending };
  let instructions = record.instructions;
  let pendingInstructions = record.pendingInstructions;
  for (const key of keys) {
    if (key === INSTRUCTIONS_ITEM) {
      instructions = pendingInstructions;
      pendingInstructions = undefined;
      continue;
    }
    const p = pending[key] as PendingItem;
    items[key] = { kind: p.kind, name: p.name, definition: p.definition, digests: p.digests, trust: 'approved', at: now };
    delete pending[key];
  }
  const { instructions: _i, pendingInstructions: _p, ...rest } = record;
  return {
    record: {
      ...rest,
      ...(instructions !== undefined ? { instructions } : {}),
      ...(pendingInstructions !== undefined ? { pendingInstructions } : {}),
      names: namesDigest(Object.keys(items)),
      items,
      pending,
      updatedAt: now,
    },
    keys,
  };
}

/** Rejects the selected pending changes: they stay quarantined and are not offered again while unchanged. */
export function rejectPending(record: ServerPins, item: string | undefined, now: number): { record: ServerPins; keys: string[] } {
  const keys = selectPending(record, item).filter((k) => k !== INSTRUCTIONS_ITEM);
  const pending: Record<string, PendingItem> = { ...record.pending };
  for (const key of keys) pending[key] = { ...(pending[key] as PendingItem), status: 'rejected' };
  return { record: { ...record, pending, updatedAt: now }, keys };
}

/** Where a pin decision is recorded, and who made it (`console:admin`, `cli:<user>`). */
export interface PinDecisionAudit {
  readonly log: AuditLog;
  readonly by: string;
}

/** The interceptor id pin decisions are recorded under (the rule id of their audit records). */
export const PIN_REVIEW_ID = 'pins.review';

/**
 * Approves or rejects the selected pending changes of one server in the store, applied to the
 * record as stored at that moment (one atomic {@link PinStore.update}), so a change another
 * instance wrote meanwhile is kept. With `audit`, each decided item then gets a `pin` record
 * ({@link pinDecisionEntry}) in the audit log. Resolves to the decided keys (none: nothing
 * pending, nothing written); rejects with `ERR_MCP_INVALID_ARGUMENT` for an item that is not
 * pending, and with `ERR_MCP_STORE_UNAVAILABLE` when the decision was saved but its record could
 * not be written (the person is told; the decision is not undone behind their back).
 *
 * An approval of a change the scanner has findings for ({@link findingsOfPending}) is refused
 * with {@link UnacknowledgedFindingsError} (nothing written) unless `acknowledgeFindings`; the
 * findings are judged on the very definitions approved, inside the same update.
 */
export async function decidePending(store: PinStore, identity: string, action: 'approve' | 'reject', item: string | undefined, now: number, audit?: PinDecisionAudit, acknowledgeFindings = false): Promise<string[]> {
  let decided: string[] = [];
  let before: ServerPins | undefined;
  const acknowledged = new Map<string, string[]>();
  await store.update(identity, (current) => {
    if (current === undefined) return undefined;
    const { record, keys } = action === 'approve' ? approvePending(current, item, now) : rejectPending(current, item, now);
    if (action === 'approve') {
      const found = Object.fromEntries(keys.map((k) => [k, findingsOfPending(current, k)] as const).filter(([, f]) => f.length > 0));
      if (Object.keys(found).length > 0 && !acknowledgeFindings) throw new UnacknowledgedFindingsError(current.alias, found);
      for (const [k, f] of Object.entries(found)) acknowledged.set(k, f.map(findingId));
    }
    decided = keys;
    before = current;
    return keys.length === 0 ? undefined : record;
  });
  const decidedOn = before;
  if (audit !== undefined && decidedOn !== undefined) {
    try {
      for (const key of decided) await audit.log.append(pinDecisionEntry(decidedOn, key, action, audit.by, now, acknowledged.get(key)));
    } catch (error) {
      throw new McpError(McpErrorCode.StoreUnavailable, `${decidedOn.alias}: ${action === 'approve' ? 'approved' : 'rejected'} ${decided.join(', ')}, but the audit record could not be written: ${describeError(error)}`, { cause: error });
    }
  }
  return decided;
}

/**
 * The `pin` audit record of one decision on `record` (as it was before): who (`principal`),
 * which server and item, `pins/approve` or `pins/reject`, and in the decision's detail the
 * server identity and the digests of the approved definition before (`oldDigest`, null for an
 * added item) and of the one decided on (`newDigest`), and (`acknowledgedFindings`) the ids of
 * the scanner findings the person acknowledged approving it.
 */
export function pinDecisionEntry(record: ServerPins, key: string, action: 'approve' | 'reject', by: string, now: number, acknowledged?: readonly string[]): AuditEntry {
  const instructions = key === INSTRUCTIONS_ITEM;
  const old = instructions ? record.instructions : record.items[key]?.definition;
  const next = instructions ? record.pendingInstructions : record.pending[key]?.definition;
  return {
    time: new Date(now).toISOString(),
    kind: 'pin',
    method: `pins/${action}`,
    principal: by,
    server: record.alias,
    name: key,
    decisions: [
      {
        interceptor: PIN_REVIEW_ID,
        outcome: action === 'approve' ? 'allow' : 'deny',
        reason: `${by} ${action === 'approve' ? 'approved' : 'rejected'} the changed definition`,
        detail: { identity: record.identity, item: key, decision: action, oldDigest: old === undefined ? null : digestOf(old), newDigest: next === undefined ? null : digestOf(next), ...(acknowledged !== undefined ? { acknowledgedFindings: [...acknowledged] } : {}) },
      },
    ],
    outcome: 'ok',
    latencyMs: 0,
  };
}

/** One block per server: identity, key, items with their trust, pending changes. */
export function formatPinList(records: readonly ServerPins[]): string {
  if (records.length === 0) return 'No servers are pinned yet (they are pinned when the gateway first lists them).\n';
  const out: string[] = [];
  for (const r of records) {
    out.push(`${r.alias}  ${displayIdentity(r.identity, r.keyThumbprint)}`);
    for (const [key, item] of Object.entries(r.items)) out.push(`  ${key}  ${item.trust}  ${new Date(item.at).toISOString()}`);
    for (const [key, p] of Object.entries(r.pending)) out.push(`  ${key}  QUARANTINED (${p.status})`);
    if (r.pendingInstructions !== undefined) out.push(`  ${INSTRUCTIONS_ITEM}  CHANGED (the approved ones are kept)`);
  }
  return `${out.join('\n')}\n`;
}

/** The scanner's findings for the pending definition `key` of `record` (none when nothing is pending there). */
export function findingsOfPending(record: ServerPins, key: string): ReturnType<typeof pendingFindings> {
  if (key === INSTRUCTIONS_ITEM) return record.pendingInstructions === undefined ? [] : pendingFindings(record.alias, 'instructions', record.pendingInstructions);
  const p = record.pending[key];
  return p === undefined ? [] : pendingFindings(record.alias, p.kind, p.definition);
}

/** The classified differences of the pending changes, readable, each followed by the scanner's findings for the new definition. */
export function formatPinDiff(records: readonly ServerPins[], item: string | undefined): string {
  const out: string[] = [];
  for (const r of records) {
    const keys = item === undefined ? [...Object.keys(r.pending), ...(r.pendingInstructions !== undefined ? [INSTRUCTIONS_ITEM] : [])] : selectPending(r, item);
    for (const key of keys) {
      if (key === INSTRUCTIONS_ITEM) {
        out.push(`${r.alias} ${key}: changed`, `  approved: ${JSON.stringify(r.instructions ?? null)}`, `  now:      ${JSON.stringify(r.pendingInstructions ?? null)}`);
      } else {
        const p = r.pending[key] as PendingItem;
        out.push(`${r.alias} ${key}: ${p.status}, first seen ${new Date(p.at).toISOString()}`, formatChanges(p.changes));
      }
      out.push(formatFindings(findingsOfPending(r, key)));
    }
  }
  return out.length === 0 ? 'No pending changes.\n' : `${out.join('\n')}\n`;
}
