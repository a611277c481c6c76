/**
 * Classifies how a definition changed since it was approved, so a person reviewing it sees
 * what matters first: an annotation that turned less safe, a parameter that appeared, text
 * the model will read that changed, a schema that accepts more than before.
 *
 * Annotation safety follows the defaults of the spec: `readOnlyHint` false, `destructiveHint`
 * true, `idempotentHint` false, `openWorldHint` true when absent.
 *
 * @see https://modelcontextprotocol.io/specification/2025-11-25/schema#toolannotations
 * @module
 */
import { canonicalize } from '../../util/canonicalJson.js';
import type { ItemKind } from '../../protocol/model/common.js';

/** The classes of change, roughly most alarming first. */
export type ChangeClass =
  | 'added'
  | 'annotation-less-safe'
  | 'parameter-added'
  | 'schema-widened'
  | 'text-changed'
  | 'parameter-removed'
  | 'annotation-changed'
  | 'schema-changed'
  | 'output-schema-changed'
  | 'execution-changed'
  | 'meta-changed'
  | 'other-changed';

/** One classified difference. */
export interface PinChange {
  readonly class: ChangeClass;
  /** Where, as a JSON path into the definition (`$.inputSchema.properties.cc`). */
  readonly path: string;
  /** One line for a person. */
  readonly summary: string;
}

const SAFE_DEFAULTS: Readonly<Record<string, boolean>> = { readOnlyHint: false, destructiveHint: true, idempotentHint: false, openWorldHint: true };
/** The value of each hint that is the safer one. */
const SAFER: Readonly<Record<string, boolean>> = { readOnlyHint: true, destructiveHint: false, idempotentHint: true, openWorldHint: false };

/** The differences between the approved `before` and the observed `after`. `before` undefined: the item is new. */
export function diffDefinitions(kind: ItemKind, before: Readonly<Record<string, unknown>> | undefined, after: Readonly<Record<string, unknown>>): PinChange[] {
  if (before === undefined) return [{ class: 'added', path: '$', summary: `new ${kind}, never approved` }];
  const changes: PinChange[] = [];
  for (const key of union(before, after)) {
    const a = before[key];
    const b = after[key];
    if (same(a, b)) continue;
    const path = `$.${key}`;
    if (key === 'name' || key === 'title' || key === 'description' || key === 'uri' || key === 'uriTemplate' || key === 'mimeType') changes.push(textChange(path, a, b));
    else if (key === 'annotations') changes.push(...annotationChanges(record(a), record(b)));
    else if (key === 'inputSchema') diffSchema(a, b, path, changes, true);
    else if (key === 'outputSchema') changes.push({ class: 'output-schema-changed', path, summary: 'the output schema changed' });
    else if (key === 'arguments' && kind === 'prompt') changes.push(...argumentChanges(a, b));
    else if (key === 'execution') changes.push({ class: 'execution-changed', path, summary: `execution changed: ${show(a)} → ${show(b)}` });
    else if (key === '_meta') changes.push({ class: 'meta-changed', path, summary: '_meta changed' });
    else changes.push({ class: 'other-changed', path, summary: `${key} changed: ${show(a)} → ${show(b)}` });
  }
  return changes;
}

/** A readable multi-line rendering of `changes`. */
export function formatChanges(changes: readonly PinChange[]): string {
  return changes.map((c) => `  [${c.class}] ${c.summary} (${c.path})`).join('\n');
}

/** The short reason text for a quarantined item: its change classes. */
export function changeClasses(changes: readonly PinChange[]): string {
  return [...new Set(changes.map((c) => c.class))].join(', ');
}

function textChange(path: string, a: unknown, b: unknown): PinChange {
  const [before, after] = typeof a === 'string' && typeof b === 'string' ? changedWindow(a, b) : [show(a), show(b)];
  return { class: 'text-changed', path, summary: `${path.slice(2)} changed: ${before} → ${after}` };
}

/** Characters of unchanged text shown around a change in a long text. */
const CONTEXT = 40;
/** Most characters of changed text shown (a longer change is cut, saying how much is left out). */
const MAX_CHANGED = 2000;

/**
 * Two long texts, each shown as the part that changed with a little context on either side,
 * so a person sees an instruction appended to (or slipped into) a long description in full,
 * where cutting both at 120 characters would show two identical beginnings.
 */
function changedWindow(a: string, b: string): [string, string] {
  if (JSON.stringify(a).length <= 120 && JSON.stringify(b).length <= 120) return [show(a), show(b)];
  let prefix = 0;
  while (prefix < a.length && prefix < b.length && a[prefix] === b[prefix]) prefix++;
  let suffix = 0;
  while (suffix < a.length - prefix && suffix < b.length - prefix && a[a.length - 1 - suffix] === b[b.length - 1 - suffix]) suffix++;
  const start = Math.max(0, prefix - CONTEXT);
  const window = (text: string): string => {
    const end = Math.min(text.length, text.length - suffix + CONTEXT);
    const changedEnd = text.length - suffix;
    const cut = changedEnd - prefix > MAX_CHANGED;
    const middle = cut ? `${text.slice(start, prefix + MAX_CHANGED)}` : text.slice(start, end);
    const body = escapeHidden(JSON.stringify(middle).slice(1, -1));
    const tail = cut ? `... (${changedEnd - prefix - MAX_CHANGED} more changed characters)` : end < text.length ? '...' : '';
    return `"${start > 0 ? '...' : ''}${body}${tail}"`;
  };
  return [window(a), window(b)];
}

function annotationChanges(a: Record<string, unknown>, b: Record<string, unknown>): PinChange[] {
  const out: PinChange[] = [];
  for (const key of union(a, b)) {
    if (same(a[key], b[key])) continue;
    const path = `$.annotations.${key}`;
    if (key in SAFE_DEFAULTS) {
      const was = typeof a[key] === 'boolean' ? (a[key] as boolean) : SAFE_DEFAULTS[key];
      const now = typeof b[key] === 'boolean' ? (b[key] as boolean) : SAFE_DEFAULTS[key];
      if (was === SAFER[key] && now !== SAFER[key]) {
        out.push({ class: 'annotation-less-safe', path, summary: `${key} turned less safe: ${show(a[key])} → ${show(b[key])}` });
        continue;
      }
    }
    out.push({ class: key === 'title' ? 'text-changed' : 'annotation-changed', path, summary: `annotation ${key}: ${show(a[key])} → ${show(b[key])}` });
  }
  return out;
}

function argumentChanges(a: unknown, b: unknown): PinChange[] {
  const byName = (v: unknown): Map<string, Record<string, unknown>> =>
    new Map((Array.isArray(v) ? v : []).filter((x): x is Record<string, unknown> => typeof x === 'object' && x !== null).map((x) => [String(x['name']), x]));
  const before = byName(a);
  const after = byName(b);
  const out: PinChange[] = [];
  for (const [name, arg] of after) {
    const path = `$.arguments[${JSON.stringify(name)}]`;
    const old = before.get(name);
    if (old === undefined) out.push({ class: 'parameter-added', path, summary: `argument ${name} added${arg['required'] === true ? ' (required)' : ''}` });
    else if (!same(old, arg)) {
      const textOnly = same({ ...old, description: null, title: null }, { ...arg, description: null, title: null });
      out.push(textOnly ? textChange(`${path}.description`, old['description'], arg['description']) : { class: 'schema-changed', path, summary: `argument ${name} changed: ${show(old)} → ${show(arg)}` });
    }
  }
  for (const name of before.keys()) if (!after.has(name)) out.push({ class: 'parameter-removed', path: `$.arguments[${JSON.stringify(name)}]`, summary: `argument ${name} removed` });
  return out;
}

/** Walks two JSON Schemas side by side; `top` marks the input schema's own properties (parameters). */
function diffSchema(a: unknown, b: unknown, path: string, out: PinChange[], top: boolean): void {
  if (same(a, b)) return;
  const x = record(a);
  const y = record(b);
  if (typeof a !== 'object' || typeof b !== 'object' || a === null || b === null) {
    out.push({ class: 'schema-changed', path, summary: `schema replaced: ${show(a)} → ${show(b)}` });
    return;
  }
  for (const key of union(x, y)) {
    const p = `${path}.${key}`;
    const before = x[key];
    const after = y[key];
    if (same(before, after)) continue;
    switch (key) {
      case 'properties': {
        const pa = record(before);
        const pb = record(after);
        for (const name of union(pa, pb)) {
          const pp = `${p}.${name}`;
          if (!(name in pa)) out.push({ class: 'parameter-added', path: pp, summary: `${top ? 'parameter' : 'property'} ${name} added: ${show(pb[name])}` });
          else if (!(name in pb)) out.push({ class: 'parameter-removed', path: pp, summary: `${top ? 'parameter' : 'property'} ${name} removed` });
          else diffSchema(pa[name], pb[name], pp, out, false);
        }
        break;
      }
      case 'description':
      case 'title':
      case 'examples':
      case 'default':
        out.push(textChange(p, before, after));
        break;
      case 'required': {
        const was = new Set(strings(before));
        const dropped = [...was].filter((r) => !strings(after).includes(r));
        if (dropped.length > 0) out.push({ class: 'schema-widened', path: p, summary: `no longer required: ${dropped.join(', ')}` });
        const added = strings(after).filter((r) => !was.has(r));
        if (added.length > 0) out.push({ class: 'schema-changed', path: p, summary: `now required: ${added.join(', ')}` });
        break;
      }
      case 'enum': {
        const grown = Array.isArray(after) && (!Array.isArray(before) || after.some((v: unknown) => !(before as unknown[]).some((w) => same(v, w))));
        out.push({ class: grown || after === undefined ? 'schema-widened' : 'schema-changed', path: p, summary: `enum ${show(before)} → ${show(after)}` });
        break;
      }
      case 'type': {
        const ta = new Set(Array.isArray(before) ? before : [before]);
        const tb = Array.isArray(after) ? after : [after];
        const grown = after === undefined || tb.some((t) => !ta.has(t));
        out.push({ class: grown ? 'schema-widened' : 'schema-changed', path: p, summary: `type ${show(before)} → ${show(after)}` });
        break;
      }
      case 'additionalProperties':
        out.push({ class: before === false && after !== false ? 'schema-widened' : 'schema-changed', path: p, summary: `additionalProperties ${show(before)} → ${show(after)}` });
        break;
      case 'items':
        diffSchema(before, after, p, out, false);
        break;
      default:
        out.push({ class: widens(key, before, after) ? 'schema-widened' : 'schema-changed', path: p, summary: `${key} ${show(before)} → ${show(after)}` });
    }
  }
}

/** A bound that moved outward or a restriction that went away. */
function widens(key: string, before: unknown, after: unknown): boolean {
  if (/^(max|exclusiveMax)/.test(key)) return after === undefined || (typeof before === 'number' && typeof after === 'number' && after > before);
  if (/^(min|exclusiveMin)/.test(key)) return after === undefined || (typeof before === 'number' && typeof after === 'number' && after < before);
  return ['pattern', 'format', 'const', 'maxLength', 'propertyNames', 'not'].includes(key) && after === undefined;
}

function union(a: Record<string, unknown>, b: Record<string, unknown>): string[] {
  return [...new Set([...Object.keys(a), ...Object.keys(b)])];
}

function record(v: unknown): Record<string, unknown> {
  return typeof v === 'object' && v !== null && !Array.isArray(v) ? (v as Record<string, unknown>) : {};
}

function strings(v: unknown): string[] {
  return Array.isArray(v) ? v.filter((s): s is string => typeof s === 'string') : [];
}

function same(a: unknown, b: unknown): boolean {
  if (a === b) return true;
  if (a === undefined || b === undefined) return false;
  try {
    return canonicalize(a) === canonicalize(b);
  } catch {
    return false;
  }
}

/** A value for one summary line: JSON, cut at 120 characters, with control and format characters escaped. */
function show(v: unknown): string {
  if (v === undefined) return '(absent)';
  const text = escapeHidden(JSON.stringify(v) ?? String(v));
  return text.length > 120 ? `${text.slice(0, 117)}...` : text;
}

/** `text` with control and format characters escaped as `\u{…}`, so nothing hides in a review. */
function escapeHidden(text: string): string {
  // eslint-disable-next-line no-control-regex
  return text.replace(/[\u0000-\u001f\u007f-\u009f\u200b-\u200f\u202a-\u202e\u2060-\u206f\ufeff]|[\u{e0000}-\u{e007f}]/gu, (c) => `\\u{${c.codePointAt(0)?.toString(16) ?? ''}}`);
}
