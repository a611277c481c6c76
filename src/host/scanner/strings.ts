/**
 * Every string of a definition, in raw form, with its JSON path: one walker reads every value
 * and every object key at any depth (a tool's input and output schema whole: `$comment`,
 * vendor `x-…` keys, tuple `items`, `dependencies`, `required` entries, enums of any length;
 * `_meta`; custom `annotations` keys; a prompt's arguments and texts; a resource's `mimeType`;
 * anything a server adds), and gives each string the role it has for the model (name,
 * description, enum value, property name, key, ...).
 *
 * Nothing is passed unread: past {@link MAX_DEPTH} levels, {@link MAX_STRINGS} strings or
 * {@link MAX_CHARS} characters (or on a cycle, which JSON from the wire cannot have) the item
 * records why in `unread`, and the scanner blocks it. Bad input never throws: a non-object
 * yields nothing.
 *
 * @module
 */
import type { ScannedKind } from './types.js';

/**
 * What a string is to the model. `key` is an object key other than a property name, `other`
 * a value in a field with no documented meaning to the model (`$comment`, `x-…`, `_meta`,
 * `mimeType`, `required` entries, ...): read by the same rules as a description.
 */
export type StringRole = 'name' | 'title' | 'description' | 'enum' | 'default' | 'example' | 'property' | 'uri' | 'instructions' | 'text' | 'key' | 'other';

/** One model-visible string. */
export interface VisibleString {
  /** JSON path inside the definition. */
  readonly path: string;
  readonly role: StringRole;
  readonly text: string;
}

/** An item ready for the rules: its kind, name and strings. */
export interface ScanItem {
  readonly kind: ScannedKind;
  readonly name: string;
  readonly strings: readonly VisibleString[];
  /** The parameter names of a tool (top level and nested), for the covert-parameter rules. */
  readonly parameters: readonly ParameterInfo[];
  /** Why part of the definition was not read (a limit or a cycle); absent when all of it was. */
  readonly unread?: string;
}

/** A parameter of a tool's input schema. */
export interface ParameterInfo {
  readonly name: string;
  readonly path: string;
  readonly type: string | undefined;
  readonly description: string | undefined;
  readonly required: boolean;
}

/** JSON nesting deeper than this is not read (the item is blocked). */
export const MAX_DEPTH = 64;
/** Strings (values and keys) read per item at most (past it the item is blocked). */
export const MAX_STRINGS = 20_000;
/** Characters read per item at most (past it the item is blocked). */
export const MAX_CHARS = 2_000_000;

type Json = Record<string, unknown>;

const isRecord = (v: unknown): v is Json => typeof v === 'object' && v !== null && !Array.isArray(v);

function key(path: string, k: string | number): string {
  if (typeof k === 'number') return `${path}[${k}]`;
  return /^[A-Za-z_$][\w$]*$/.test(k) ? `${path}.${k}` : `${path}[${JSON.stringify(k)}]`;
}

/** Keys whose values are maps from names (property names, definition names) to schemas. */
const NAME_MAPS: ReadonlySet<string> = new Set(['properties', 'patternProperties', '$defs', 'definitions', 'dependentSchemas', 'dependencies', 'dependentRequired']);
/** JSON Schema and MCP keywords: keys with a fixed meaning, not text (their values are read). */
const KEYWORDS: ReadonlySet<string> = new Set(
  'type title description enum const default examples example properties patternProperties additionalProperties required items prefixItems additionalItems contains minContains maxContains anyOf oneOf allOf not if then else $defs definitions $ref $schema $id $anchor $comment format pattern minLength maxLength minimum maximum exclusiveMinimum exclusiveMaximum multipleOf minItems maxItems uniqueItems minProperties maxProperties propertyNames unevaluatedProperties unevaluatedItems dependentSchemas dependentRequired dependencies readOnly writeOnly deprecated contentEncoding contentMediaType nullable name inputSchema outputSchema annotations _meta arguments messages role content text uri uriTemplate mimeType size icons src sizes theme readOnlyHint destructiveHint idempotentHint openWorldHint execution taskSupport'.split(' '),
);
const VALUE_ROLES: ReadonlySet<StringRole> = new Set(['enum', 'default', 'example']);

/** The role of the value under key `k` of an object whose own role is `parent`. */
function roleOfKey(k: string, parent: StringRole): StringRole {
  if (VALUE_ROLES.has(parent)) return parent;
  switch (k) {
    case 'title':
      return 'title';
    case 'description':
      return 'description';
    case 'enum':
    case 'const':
      return 'enum';
    case 'default':
      return 'default';
    case 'examples':
    case 'example':
      return 'example';
    case 'text':
      return 'text';
    case '$schema':
    case '$id':
    case '$ref':
      return 'uri';
    default:
      return 'other';
  }
}

class Collector {
  readonly strings: VisibleString[] = [];
  readonly parameters: ParameterInfo[] = [];
  unread: string | undefined;
  #chars = 0;
  readonly #ancestors = new Set<object>();
  /** Roles fixed by path (a definition's `name`, a prompt argument's `name`). */
  readonly #fixed: (path: string) => StringRole | undefined;

  constructor(fixed: (path: string) => StringRole | undefined) {
    this.#fixed = fixed;
  }

  add(path: string, role: StringRole, value: unknown): void {
    if (typeof value !== 'string' || value === '') return;
    if (this.strings.length >= MAX_STRINGS) {
      this.unread ??= `more than ${MAX_STRINGS} strings`;
      return;
    }
    this.#chars += value.length;
    if (this.#chars > MAX_CHARS) {
      this.unread ??= `more than ${MAX_CHARS} characters`;
      return;
    }
    // A URI with spaces in it is text, not an address.
    this.strings.push({ path, role: role === 'uri' && /\s/u.test(value) ? 'other' : role, text: value });
  }

  /** Every string and key of `value`; `names` says the object's keys are property names or definition names. */
  walk(value: unknown, path: string, role: StringRole, depth: number, names?: 'property' | 'key'): void {
    if (typeof value === 'string') {
      this.add(path, this.#fixed(path) ?? role, value);
      return;
    }
    if (value === null || typeof value !== 'object') return;
    if (depth > MAX_DEPTH) {
      this.unread ??= `nested deeper than ${MAX_DEPTH} levels at ${path}`;
      return;
    }
    if (this.#ancestors.has(value)) {
      this.unread ??= `a cycle at ${path}`;
      return;
    }
    this.#ancestors.add(value);
    if (Array.isArray(value)) {
      value.forEach((v, i) => this.walk(v, key(path, i), role, depth + 1));
    } else {
      const obj = value as Json;
      if (names === undefined && isRecord(obj['properties']) && !VALUE_ROLES.has(role)) this.#parameters(obj, path);
      for (const k of Object.keys(obj)) {
        const at = key(path, k);
        if (names === 'property') this.add(at, 'property', k);
        else if (names === 'key' || VALUE_ROLES.has(role) || !KEYWORDS.has(k)) this.add(`${at}#key`, 'key', k);
        const child = names === undefined ? roleOfKey(k, role) : 'other';
        const inner = names === undefined && !VALUE_ROLES.has(role) && NAME_MAPS.has(k) ? (k === 'properties' ? 'property' : 'key') : undefined;
        this.walk(obj[k], at, child, depth + 1, inner);
      }
    }
    this.#ancestors.delete(value);
  }

  #parameters(node: Json, path: string): void {
    const required = Array.isArray(node['required']) ? node['required'] : [];
    for (const [name, child] of Object.entries(node['properties'] as Json)) {
      const c = isRecord(child) ? child : {};
      const type = typeof c['type'] === 'string' ? c['type'] : Array.isArray(c['type']) ? c['type'].filter((t) => typeof t === 'string').join('|') : undefined;
      this.parameters.push({ name, path: key(key(path, 'properties'), name), type, description: typeof c['description'] === 'string' ? c['description'] : undefined, required: required.includes(name) });
    }
  }

  item(kind: ScannedKind, name: string): ScanItem {
    return { kind, name, strings: this.strings, parameters: this.parameters, ...(this.unread !== undefined ? { unread: this.unread } : {}) };
  }
}

const nameOf = (def: Json, field: string, fallback: string): string => (typeof def[field] === 'string' && def[field] !== '' ? (def[field] as string) : fallback);

const TOP_NAME = (path: string): StringRole | undefined => (path === '$.name' ? 'name' : undefined);

/** The strings of a tool definition (`tools/list` entry): all of it. */
export function toolItem(definition: unknown, index = 0): ScanItem {
  const c = new Collector(TOP_NAME);
  const def = isRecord(definition) ? definition : {};
  c.walk(def, '$', 'other', 0);
  return c.item('tool', nameOf(def, 'name', `#${index}`));
}

const PROMPT_ROLES = (path: string): StringRole | undefined => (path === '$.name' ? 'name' : /^\$\.arguments\[\d+\]\.name$/u.test(path) ? 'property' : undefined);

/**
 * The strings of a prompt: all of it (name, title, description, arguments and, when given
 * (a `prompts/get` result merged in as `messages`), the message texts).
 */
export function promptItem(definition: unknown, index = 0): ScanItem {
  const c = new Collector(PROMPT_ROLES);
  const def = isRecord(definition) ? definition : {};
  c.walk(def, '$', 'other', 0);
  return c.item('prompt', nameOf(def, 'name', `#${index}`));
}

/** The strings of a resource (`uri`) or resource template (`uriTemplate`): all of it, `mimeType` and `_meta` included. */
export function resourceItem(definition: unknown, kind: 'resource' | 'template', index = 0): ScanItem {
  const uriField = kind === 'resource' ? 'uri' : 'uriTemplate';
  const c = new Collector((path) => (path === '$.name' ? 'name' : path === `$.${uriField}` ? 'uri' : undefined));
  const def = isRecord(definition) ? definition : {};
  c.walk(def, '$', 'other', 0);
  return c.item(kind, nameOf(def, uriField, nameOf(def, 'name', `#${index}`)));
}

/** The server's instructions (`initialize` result). */
export function instructionsItem(instructions: string): ScanItem {
  return { kind: 'server', name: 'instructions', strings: instructions === '' ? [] : [{ path: '$.instructions', role: 'instructions', text: instructions }], parameters: [] };
}
