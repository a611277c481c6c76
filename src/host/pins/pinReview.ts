/**
 * The person's side of the pins (`switchboard pins list | diff | approve | reject`): pure
 * functions over {@link ServerPins} records. There is no MCP tool for any of this: the agent
 * can never approve its own definitions.
 *
 * @module
 */
import { McpError, McpErrorCode } from '../../util/errors.js';
import { formatChanges } from './pinDiff.js';
import { namesDigest } from './pinDigests.js';
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

/**
 * Approves or rejects the selected pending changes of one server in the store, applied to the
 * record as stored at that moment (one atomic {@link PinStore.update}), so a change another
 * instance wrote meanwhile is kept. Resolves to the decided keys (none: nothing pending, nothing
 * written); rejects with `ERR_MCP_INVALID_ARGUMENT` for an item that is not pending.
 */
export async function decidePending(store: PinStore, identity: string, action: 'approve' | 'reject', item: string | undefined, now: number): Promise<string[]> {
  let decided: string[] = [];
  await store.update(identity, (current) => {
    if (current === undefined) return undefined;
    const { record, keys } = action === 'approve' ? approvePending(current, item, now) : rejectPending(current, item, now);
    decided = keys;
    return keys.length === 0 ? undefined : record;
  });
  return decided;
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

/** The classified differences of the pending changes, readable. */
export function formatPinDiff(records: readonly ServerPins[], item: string | undefined): string {
  const out: string[] = [];
  for (const r of records) {
    const keys = item === undefined ? [...Object.keys(r.pending), ...(r.pendingInstructions !== undefined ? [INSTRUCTIONS_ITEM] : [])] : selectPending(r, item);
    for (const key of keys) {
      if (key === INSTRUCTIONS_ITEM) {
        out.push(`${r.alias} ${key}: changed`, `  approved: ${JSON.stringify(r.instructions ?? null)}`, `  now:      ${JSON.stringify(r.pendingInstructions ?? null)}`);
        continue;
      }
      const p = r.pending[key] as PendingItem;
      out.push(`${r.alias} ${key}: ${p.status}, first seen ${new Date(p.at).toISOString()}`, formatChanges(p.changes));
    }
  }
  return out.length === 0 ? 'No pending changes.\n' : `${out.join('\n')}\n`;
}
