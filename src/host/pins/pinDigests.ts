/**
 * What a pin hashes: every definition a server exposes is split into field groups, and each
 * group is hashed on its own (SHA-256 of the RFC 8785 canonical JSON), so a change is known to
 * be in the description, the input schema, the annotations and so on without keeping the old
 * text around. Members no group names fall into `other`, so no member escapes the pin.
 *
 * | kind | groups |
 * |---|---|
 * | tool | `text` (name, title, description), `inputSchema`, `outputSchema`, `annotations`, `execution`, `_meta`, `other` |
 * | prompt | `text` (name, title, description), `arguments`, `_meta`, `other` |
 * | resource | `text` (uri, name, title, description, mimeType), `annotations`, `_meta`, `other` |
 * | template | `text` (uriTemplate, name, title, description, mimeType), `annotations`, `_meta`, `other` |
 *
 * The server itself is pinned by its instructions and the set of names it exposes.
 *
 * @see https://modelcontextprotocol.io/specification/2025-11-25/server/tools#tool
 * @module
 */
import { canonicalize } from '../../util/canonicalJson.js';
import { sha256Hex } from '../../util/sha256.js';
import type { ItemKind } from '../../protocol/model/common.js';

/** The field groups of each kind (`other` takes every member not listed). */
export const FIELD_GROUPS: Readonly<Record<ItemKind, Readonly<Record<string, readonly string[]>>>> = Object.freeze({
  tool: { text: ['name', 'title', 'description'], inputSchema: ['inputSchema'], outputSchema: ['outputSchema'], annotations: ['annotations'], execution: ['execution'], _meta: ['_meta'] },
  prompt: { text: ['name', 'title', 'description'], arguments: ['arguments'], _meta: ['_meta'] },
  resource: { text: ['uri', 'name', 'title', 'description', 'mimeType'], annotations: ['annotations'], _meta: ['_meta'] },
  template: { text: ['uriTemplate', 'name', 'title', 'description', 'mimeType'], annotations: ['annotations'], _meta: ['_meta'] },
});

/** Group name → `sha256:<hex>`. */
export type GroupDigests = Readonly<Record<string, string>>;

/** `sha256:` + hex SHA-256 of the canonical JSON of `value`. */
export function digestOf(value: unknown): string {
  return `sha256:${sha256Hex(canonicalize(value))}`;
}

/** The name an item is pinned under: a tool's or prompt's name, a resource's URI, a template's URI template. */
export function pinnedName(kind: ItemKind, definition: Readonly<Record<string, unknown>>): string {
  const member = kind === 'resource' ? 'uri' : kind === 'template' ? 'uriTemplate' : 'name';
  return String(definition[member]);
}

/** `<kind>:<name>`: the key of an item within its server's pins. */
export function itemKey(kind: ItemKind, name: string): string {
  return `${kind}:${name}`;
}

/** The digest of each field group of `definition`. Throws for a definition that is not I-JSON. */
export function groupDigests(kind: ItemKind, definition: Readonly<Record<string, unknown>>): GroupDigests {
  const groups = FIELD_GROUPS[kind];
  const claimed = new Set<string>();
  const out: Record<string, string> = {};
  for (const [group, members] of Object.entries(groups)) {
    const part: Record<string, unknown> = {};
    for (const m of members) {
      claimed.add(m);
      if (Object.hasOwn(definition, m)) part[m] = definition[m];
    }
    out[group] = digestOf(part);
  }
  const other: Record<string, unknown> = {};
  for (const key of Object.keys(definition)) if (!claimed.has(key)) other[key] = definition[key];
  out['other'] = digestOf(other);
  return out;
}

/** The groups whose digests differ (a group missing on one side counts as changed). */
export function changedGroups(a: GroupDigests, b: GroupDigests): string[] {
  const groups = new Set([...Object.keys(a), ...Object.keys(b)]);
  return [...groups].filter((g) => a[g] !== b[g]);
}

/** The digest of a server's exposed names (sorted item keys). */
export function namesDigest(keys: Iterable<string>): string {
  return digestOf([...keys].sort());
}
