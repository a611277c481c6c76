/**
 * Every model-visible string of a definition, in raw form, with its JSON path: a tool's name,
 * title, description, annotation title and every schema node's title, description, enum
 * values, const, default and examples (nested properties, items, combinators and `$defs`
 * included, in input and output schema); a prompt's texts and its arguments; a resource's or
 * template's name, title, description and URI; a server's instructions.
 *
 * Bad input never throws: a non-object yields nothing, a cycle or a very deep schema is cut
 * at {@link MAX_DEPTH}, and at most {@link MAX_STRINGS} strings are taken per item.
 *
 * @module
 */
import type { ScannedKind } from './types.js';

/** What a string is to the model. */
export type StringRole = 'name' | 'title' | 'description' | 'enum' | 'default' | 'example' | 'property' | 'uri' | 'instructions' | 'text';

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
}

/** A parameter of a tool's input schema. */
export interface ParameterInfo {
  readonly name: string;
  readonly path: string;
  readonly type: string | undefined;
  readonly description: string | undefined;
  readonly required: boolean;
}

/** Schemas deeper than this are not followed. */
export const MAX_DEPTH = 24;
/** Strings taken per item at most. */
export const MAX_STRINGS = 4000;

type Json = Record<string, unknown>;

const isRecord = (v: unknown): v is Json => typeof v === 'object' && v !== null && !Array.isArray(v);

function key(path: string, k: string | number): string {
  if (typeof k === 'number') return `${path}[${k}]`;
  return /^[A-Za-z_$][\w$]*$/.test(k) ? `${path}.${k}` : `${path}[${JSON.stringify(k)}]`;
}

class Collector {
  readonly strings: VisibleString[] = [];
  readonly parameters: ParameterInfo[] = [];
  add(path: string, role: StringRole, value: unknown): void {
    if (typeof value === 'string' && value !== '' && this.strings.length < MAX_STRINGS) this.strings.push({ path, role, text: value });
  }
  /** Strings anywhere inside a value (defaults and examples may be objects). */
  addDeep(path: string, role: StringRole, value: unknown, depth = 0): void {
    if (depth > MAX_DEPTH) return;
    if (typeof value === 'string') this.add(path, role, value);
    else if (Array.isArray(value)) value.forEach((v, i) => this.addDeep(key(path, i), role, v, depth + 1));
    else if (isRecord(value)) for (const [k, v] of Object.entries(value)) this.addDeep(key(path, k), role, v, depth + 1);
  }
  schema(node: unknown, path: string, depth: number, seen: Set<unknown>): void {
    if (!isRecord(node) || depth > MAX_DEPTH || seen.has(node)) return;
    seen.add(node);
    this.add(key(path, 'title'), 'title', node['title']);
    this.add(key(path, 'description'), 'description', node['description']);
    if (Array.isArray(node['enum'])) node['enum'].forEach((v, i) => this.addDeep(key(key(path, 'enum'), i), 'enum', v));
    if ('const' in node) this.addDeep(key(path, 'const'), 'enum', node['const']);
    if ('default' in node) this.addDeep(key(path, 'default'), 'default', node['default']);
    if ('examples' in node) this.addDeep(key(path, 'examples'), 'example', node['examples']);
    if ('example' in node) this.addDeep(key(path, 'example'), 'example', node['example']);
    const properties = node['properties'];
    if (isRecord(properties)) {
      const required = Array.isArray(node['required']) ? node['required'] : [];
      for (const [name, child] of Object.entries(properties)) {
        const at = key(key(path, 'properties'), name);
        this.add(at, 'property', name);
        const c = isRecord(child) ? child : {};
        const type = typeof c['type'] === 'string' ? c['type'] : Array.isArray(c['type']) ? c['type'].filter((t) => typeof t === 'string').join('|') : undefined;
        this.parameters.push({ name, path: at, type, description: typeof c['description'] === 'string' ? c['description'] : undefined, required: required.includes(name) });
        this.schema(child, at, depth + 1, seen);
      }
    }
    for (const k of ['items', 'additionalProperties', 'not', 'if', 'then', 'else', 'contains', 'propertyNames', 'unevaluatedProperties', 'unevaluatedItems']) this.schema(node[k], key(path, k), depth + 1, seen);
    for (const k of ['anyOf', 'oneOf', 'allOf', 'prefixItems']) {
      const list = node[k];
      if (Array.isArray(list)) list.forEach((s, i) => this.schema(s, key(key(path, k), i), depth + 1, seen));
      else this.schema(list, key(path, k), depth + 1, seen);
    }
    for (const k of ['$defs', 'definitions', 'patternProperties', 'dependentSchemas']) {
      const map = node[k];
      if (isRecord(map)) for (const [name, s] of Object.entries(map)) this.schema(s, key(key(path, k), name), depth + 1, seen);
    }
  }
}

const nameOf = (def: Json, field: string, fallback: string): string => (typeof def[field] === 'string' && def[field] !== '' ? (def[field] as string) : fallback);

/** The strings of a tool definition (`tools/list` entry). */
export function toolItem(definition: unknown, index = 0): ScanItem {
  const c = new Collector();
  const def = isRecord(definition) ? definition : {};
  c.add('$.name', 'name', def['name']);
  c.add('$.title', 'title', def['title']);
  c.add('$.description', 'description', def['description']);
  if (isRecord(def['annotations'])) c.add('$.annotations.title', 'title', def['annotations']['title']);
  c.schema(def['inputSchema'], '$.inputSchema', 0, new Set());
  c.schema(def['outputSchema'], '$.outputSchema', 0, new Set());
  return { kind: 'tool', name: nameOf(def, 'name', `#${index}`), strings: c.strings, parameters: c.parameters };
}

/**
 * The strings of a prompt: name, title, description, arguments (name, title, description)
 * and, when given (a `prompts/get` result merged in as `messages`), the message texts.
 */
export function promptItem(definition: unknown, index = 0): ScanItem {
  const c = new Collector();
  const def = isRecord(definition) ? definition : {};
  c.add('$.name', 'name', def['name']);
  c.add('$.title', 'title', def['title']);
  c.add('$.description', 'description', def['description']);
  if (Array.isArray(def['arguments'])) {
    def['arguments'].forEach((arg, i) => {
      if (!isRecord(arg)) return;
      const at = `$.arguments[${i}]`;
      c.add(`${at}.name`, 'property', arg['name']);
      c.add(`${at}.title`, 'title', arg['title']);
      c.add(`${at}.description`, 'description', arg['description']);
    });
  }
  if (Array.isArray(def['messages'])) {
    def['messages'].forEach((m, i) => {
      const content = isRecord(m) ? m['content'] : undefined;
      const parts = Array.isArray(content) ? content : [content];
      parts.forEach((p, j) => {
        if (isRecord(p)) c.add(Array.isArray(content) ? `$.messages[${i}].content[${j}].text` : `$.messages[${i}].content.text`, 'text', p['text']);
      });
    });
  }
  return { kind: 'prompt', name: nameOf(def, 'name', `#${index}`), strings: c.strings, parameters: [] };
}

/** The strings of a resource (`uri`) or resource template (`uriTemplate`). */
export function resourceItem(definition: unknown, kind: 'resource' | 'template', index = 0): ScanItem {
  const c = new Collector();
  const def = isRecord(definition) ? definition : {};
  const uriField = kind === 'resource' ? 'uri' : 'uriTemplate';
  c.add(`$.${uriField}`, 'uri', def[uriField]);
  c.add('$.name', 'name', def['name']);
  c.add('$.title', 'title', def['title']);
  c.add('$.description', 'description', def['description']);
  return { kind, name: nameOf(def, uriField, nameOf(def, 'name', `#${index}`)), strings: c.strings, parameters: [] };
}

/** The server's instructions (`initialize` result). */
export function instructionsItem(instructions: string): ScanItem {
  return { kind: 'server', name: 'instructions', strings: instructions === '' ? [] : [{ path: '$.instructions', role: 'instructions', text: instructions }], parameters: [] };
}
