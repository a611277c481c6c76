/**
 * Merges servers imported from several clients into one Switchboard `mcpServers` map, and
 * adds them to a `switchboard.json` text without disturbing what is already there. Ids are
 * made to fit Switchboard's rule (`^[A-Za-z0-9_-]{1,32}$`); the same id from two places is
 * kept once when the entries are identical and suffixed (`-2`, `-3`, …) when they differ.
 * Every such decision is returned as a note for the user.
 *
 * @module
 */
import { parseJsonc, sameJson, setSection, valueAt } from './jsonEdit.js';
import { ClientConfigError, GATEWAY_ENTRY_ID, isRecord, type ImportedServer, type ServerEntry } from './types.js';

/** Switchboard's server id rule (they become tool-name prefixes). */
export const SERVER_ID_PATTERN = /^[A-Za-z0-9_-]{1,32}$/;

/** A server and where it came from (`cursor ~/.cursor/mcp.json`), for notes. */
export interface SourcedServer {
  readonly source: string;
  readonly server: ImportedServer;
}

/** The merge: new entries by id, and what was decided along the way. */
export interface MergeResult {
  readonly added: Record<string, ServerEntry>;
  readonly notes: string[];
}

/** `id` made to fit {@link SERVER_ID_PATTERN}: other characters become `-`, cut to 32. */
export function toServerId(id: string): string {
  const cleaned = id.replace(/[^A-Za-z0-9_-]+/g, '-').replace(/^-+|-+$/g, '').slice(0, 32);
  return cleaned === '' ? 'server' : cleaned;
}

/** True for the entry wrap writes (the gateway itself): importing it would loop. */
export function isGatewayEntry(server: ImportedServer): boolean {
  return server.id === GATEWAY_ENTRY_ID && 'command' in server.entry && (server.entry.args ?? []).includes('gateway');
}

/** `base-n` for the first n ≥ 2 not taken, cut so it still fits 32 characters. */
function suffixed(base: string, taken: (id: string) => boolean): string {
  for (let n = 2; ; n++) {
    const suffix = `-${n}`;
    const id = base.slice(0, 32 - suffix.length) + suffix;
    if (!taken(id)) return id;
  }
}

/** Merges `incoming` into `existing` (the current `mcpServers` map, left untouched). */
export function mergeServers(existing: Readonly<Record<string, unknown>>, incoming: readonly SourcedServer[]): MergeResult {
  // A Map, so an id like `__proto__` is an entry like any other (never an object's prototype).
  const added = new Map<string, ServerEntry>();
  const notes: string[] = [];
  const current = (id: string): unknown => (added.has(id) ? added.get(id) : Object.hasOwn(existing, id) ? existing[id] : undefined);
  for (const { source, server } of incoming) {
    const label = `${JSON.stringify(server.id)} (${source})`;
    if (isGatewayEntry(server)) {
      notes.push(`${label}: the Switchboard gateway itself; skipped`);
      continue;
    }
    for (const note of server.notes) notes.push(`${label}: ${note}`);
    let id = toServerId(server.id);
    if (id !== server.id) notes.push(`${label}: renamed to ${JSON.stringify(id)} (ids are letters, digits, _ and -, at most 32)`);
    const entry = server.entry as unknown as Record<string, unknown>;
    if (current(id) !== undefined) {
      if (sameJson(current(id), entry)) {
        notes.push(`${label}: identical to the ${JSON.stringify(id)} already merged; kept once`);
        continue;
      }
      const base = id;
      const same = [...Object.keys(existing), ...added.keys()].find((k) => k.startsWith(`${base}-`) && sameJson(current(k), entry));
      if (same !== undefined) {
        notes.push(`${label}: identical to ${JSON.stringify(same)} already merged; kept once`);
        continue;
      }
      id = suffixed(base, (candidate) => current(candidate) !== undefined);
      notes.push(`${label}: a different ${JSON.stringify(base)} is already there; added as ${JSON.stringify(id)}`);
    }
    added.set(id, server.entry);
  }
  return { added: Object.fromEntries(added), notes };
}

/** A complete Switchboard config holding `servers` (see the README's config section). */
export function renderSwitchboardConfig(servers: Readonly<Record<string, ServerEntry>>): string {
  return `${JSON.stringify({ mcpServers: servers }, null, 2)}\n`;
}

/** The `mcpServers` map of a `switchboard.json` text (empty when it has none). */
export function configServers(text: string, file: string): Record<string, unknown> {
  const servers = valueAt(parseJsonc(text, file), ['mcpServers']);
  if (servers !== undefined && !isRecord(servers)) throw new ClientConfigError(file, 'mcpServers is not an object');
  return servers ?? {};
}

/** `text` (a `switchboard.json`, or undefined for none yet) with `added` put into `mcpServers`. */
export function addServersToConfig(text: string | undefined, file: string, added: Readonly<Record<string, ServerEntry>>): string {
  if (text === undefined || text.trim() === '') return renderSwitchboardConfig(added);
  let out = text;
  for (const [id, entry] of Object.entries(added)) out = setSection(out, parseJsonc(out, file), ['mcpServers', id], entry);
  return out;
}
