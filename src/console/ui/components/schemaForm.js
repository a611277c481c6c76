// @ts-check
/**
 * A form generated from a tool's JSON Schema `inputSchema`: one labelled field per top-level
 * property (text, number, checkbox, a select for `enum`, JSON text for objects and arrays),
 * required ones marked. {@link collectArguments} turns the field values into the arguments.
 *
 * @module
 */
import { html } from '../lib/html.js';
import { Reveal } from './text.js';

/** @typedef {{ type?: string | string[], description?: string, title?: string, enum?: unknown[], default?: unknown }} PropSchema */
/** @typedef {{ properties?: Record<string, PropSchema>, required?: string[] }} ObjectSchema */

/** The JSON type a field edits (first non-null type; `json` for objects, arrays and unknowns). */
export function fieldKind(/** @type {PropSchema} */ schema) {
  const types = Array.isArray(schema.type) ? schema.type.filter((t) => t !== 'null') : [schema.type];
  const t = types[0];
  if (Array.isArray(schema.enum) && schema.enum.every((v) => typeof v === 'string')) return 'enum';
  if (t === 'string' || t === 'number' || t === 'integer' || t === 'boolean') return t;
  return 'json';
}

/** Initial field values (strings; booleans as 'true'/'false') from the schema's defaults. */
export function initialValues(/** @type {ObjectSchema | undefined} */ schema) {
  /** @type {Record<string, string>} */
  const out = {};
  for (const [name, prop] of Object.entries(schema?.properties ?? {})) {
    const kind = fieldKind(prop);
    const d = prop.default;
    out[name] = d === undefined ? (kind === 'boolean' ? 'false' : kind === 'enum' ? String(prop.enum?.[0] ?? '') : '') : kind === 'json' ? JSON.stringify(d, null, 2) : String(d);
  }
  return out;
}

/**
 * The arguments object from the field values: empty optional fields are left out, numbers
 * parsed, JSON fields parsed. Throws an Error naming the field when a value does not parse.
 * @param {ObjectSchema | undefined} schema
 * @param {Record<string, string>} values
 * @returns {Record<string, unknown>}
 */
export function collectArguments(schema, values) {
  /** @type {Record<string, unknown>} */
  const args = {};
  const required = new Set(schema?.required ?? []);
  for (const [name, prop] of Object.entries(schema?.properties ?? {})) {
    const raw = values[name] ?? '';
    const kind = fieldKind(prop);
    if (kind === 'boolean') {
      if (raw === 'true' || required.has(name)) args[name] = raw === 'true';
      continue;
    }
    if (raw.trim() === '' && !required.has(name)) continue;
    if (kind === 'number' || kind === 'integer') {
      const n = Number(raw);
      if (raw.trim() === '' || Number.isNaN(n) || (kind === 'integer' && !Number.isInteger(n))) throw new Error(`${name}: expected ${kind === 'integer' ? 'an integer' : 'a number'}`);
      args[name] = n;
    } else if (kind === 'json') {
      try {
        args[name] = JSON.parse(raw);
      } catch {
        throw new Error(`${name}: expected JSON`);
      }
    } else args[name] = raw;
  }
  return args;
}

/**
 * @param {{ schema: ObjectSchema | undefined, values: Record<string, string>, onChange: (values: Record<string, string>) => void, idPrefix: string }} props
 */
export function SchemaFields({ schema, values, onChange, idPrefix }) {
  const props = Object.entries(schema?.properties ?? {});
  if (props.length === 0) return html`<p class="hint">This tool takes no arguments.</p>`;
  const required = new Set(schema?.required ?? []);
  return html`${props.map(([name, prop]) => {
    const id = `${idPrefix}-${name}`;
    const kind = fieldKind(prop);
    const value = values[name] ?? '';
    const set = (/** @type {string} */ v) => onChange({ ...values, [name]: v });
    const read = (/** @type {Event} */ e) => /** @type {HTMLInputElement} */ (e.currentTarget).value;
    const hint = prop.description !== undefined ? html`<span class="hint" id=${`${id}-hint`}><${Reveal} text=${prop.description} /></span>` : null;
    const described = prop.description !== undefined ? `${id}-hint` : undefined;
    if (kind === 'boolean')
      return html`<div class="field"><label class="check" for=${id}><input id=${id} type="checkbox" checked=${value === 'true'} aria-describedby=${described}
        onChange=${(/** @type {Event} */ e) => set(String(/** @type {HTMLInputElement} */ (e.currentTarget).checked))} />${name}${required.has(name) ? ' (required)' : ''}</label>${hint}</div>`;
    const label = html`<label for=${id}>${name}${required.has(name) ? html` <span aria-hidden="true">*</span><span class="sr-only"> (required)</span>` : null}</label>`;
    if (kind === 'enum')
      return html`<div class="field">${label}<select id=${id} value=${value} aria-describedby=${described} onChange=${(/** @type {Event} */ e) => set(read(e))}>
        ${(prop.enum ?? []).map((o) => html`<option value=${String(o)}>${String(o)}</option>`)}</select>${hint}</div>`;
    if (kind === 'json')
      return html`<div class="field wide">${label}<textarea id=${id} value=${value} aria-describedby=${described} placeholder="JSON" onInput=${(/** @type {Event} */ e) => set(read(e))}></textarea>${hint}</div>`;
    return html`<div class="field">${label}<input id=${id} type=${kind === 'string' ? 'text' : 'number'} step=${kind === 'integer' ? '1' : 'any'} required=${required.has(name)}
      value=${value} aria-describedby=${described} onInput=${(/** @type {Event} */ e) => set(read(e))} />${hint}</div>`;
  })}`;
}
