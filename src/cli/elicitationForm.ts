/**
 * The terminal form that answers a server's form-mode elicitation: one question per field of
 * the requested schema (text, number, yes/no, one choice, several choices), with defaults,
 * required fields and the schema's bounds checked before the answer is sent.
 *
 * The form only needs an `ask(question)` that returns the user's line (or undefined at end of
 * input), so it is tested without a terminal; `switchboard` passes a `node:readline` prompt
 * on stderr, loaded only when a server actually asks in a TTY.
 *
 * @see https://modelcontextprotocol.io/specification/2025-11-25/client/elicitation
 * @module
 */
import type { ElicitFormParams, ElicitResult, PrimitiveSchemaDefinition } from '../protocol/model/elicitation.js';

/** One field of the form. */
export interface FormField {
  readonly name: string;
  readonly label: string;
  readonly kind: 'string' | 'number' | 'integer' | 'boolean' | 'choice' | 'choices';
  readonly required: boolean;
  /** For `choice`/`choices`: the values and what to show for each. */
  readonly options: readonly { readonly value: string; readonly title: string }[];
  readonly schema: PrimitiveSchemaDefinition;
}

/** A value of a submitted form. */
export type FormValue = string | number | boolean | string[];

/** The fields of `params.requestedSchema`, in declaration order. */
export function formFields(params: ElicitFormParams): FormField[] {
  const required = new Set(params.requestedSchema.required ?? []);
  return Object.entries(params.requestedSchema.properties).map(([name, schema]) => {
    const s = schema as Record<string, unknown>;
    const label = typeof s['title'] === 'string' ? s['title'] : name;
    let kind: FormField['kind'] = schema.type === 'array' ? 'choices' : schema.type;
    let options: { value: string; title: string }[] = [];
    if (Array.isArray(s['enum'])) {
      const names = Array.isArray(s['enumNames']) ? (s['enumNames'] as string[]) : [];
      options = (s['enum'] as string[]).map((value, i) => ({ value, title: names[i] ?? value }));
      kind = 'choice';
    } else if (Array.isArray(s['oneOf'])) {
      options = (s['oneOf'] as { const: string; title: string }[]).map((o) => ({ value: o.const, title: o.title }));
      kind = 'choice';
    } else if (schema.type === 'array') {
      const items = schema.items as { enum?: string[]; anyOf?: { const: string; title: string }[] };
      options = items.enum !== undefined ? items.enum.map((value) => ({ value, title: value })) : (items.anyOf ?? []).map((o) => ({ value: o.const, title: o.title }));
    }
    return { name, label, kind, required: required.has(name), options, schema };
  });
}

/** The question shown for `field` (description, choices, default). */
export function fieldQuestion(field: FormField): string {
  const s = field.schema as Record<string, unknown>;
  const lines: string[] = [];
  if (typeof s['description'] === 'string') lines.push(`  ${s['description']}`);
  field.options.forEach((o, i) => lines.push(`  ${i + 1}) ${o.title}${o.title === o.value ? '' : ` (${o.value})`}`));
  const what = field.kind === 'boolean' ? ' [y/n]' : field.kind === 'choices' ? ' (numbers, comma-separated)' : field.kind === 'choice' ? ' (number)' : '';
  const fallback = s['default'] === undefined ? (field.required ? '' : ' (optional, Enter to skip)') : ` [default ${JSON.stringify(s['default'])}]`;
  lines.push(`${field.label}${field.required ? ' *' : ''}${what}${fallback}: `);
  return lines.join('\n');
}

/** Picks options by their 1-based numbers or their values. */
function pick(field: FormField, text: string): string | undefined {
  const n = Number(text);
  if (Number.isInteger(n) && n >= 1 && n <= field.options.length) return field.options[n - 1]?.value;
  return field.options.find((o) => o.value === text || o.title === text)?.value;
}

/**
 * Reads one answer for `field`: `{ value }`, `{ skip: true }` for an empty optional field
 * without a default, or `{ error }` to ask again.
 */
export function parseFieldAnswer(field: FormField, raw: string): { value: FormValue } | { skip: true } | { error: string } {
  const s = field.schema as Record<string, unknown>;
  const text = raw.trim();
  if (text === '') {
    if (s['default'] !== undefined) return { value: s['default'] as FormValue };
    return field.required ? { error: 'this field is required' } : { skip: true };
  }
  switch (field.kind) {
    case 'boolean':
      if (/^(y|yes|true)$/i.test(text)) return { value: true };
      if (/^(n|no|false)$/i.test(text)) return { value: false };
      return { error: 'answer y or n' };
    case 'number':
    case 'integer': {
      const n = Number(text);
      if (!Number.isFinite(n)) return { error: 'enter a number' };
      if (field.kind === 'integer' && !Number.isInteger(n)) return { error: 'enter a whole number' };
      if (typeof s['minimum'] === 'number' && n < s['minimum']) return { error: `at least ${s['minimum']}` };
      if (typeof s['maximum'] === 'number' && n > s['maximum']) return { error: `at most ${s['maximum']}` };
      return { value: n };
    }
    case 'choice': {
      const value = pick(field, text);
      return value === undefined ? { error: `choose 1-${field.options.length}` } : { value };
    }
    case 'choices': {
      const values: string[] = [];
      for (const part of text.split(',')) {
        const value = pick(field, part.trim());
        if (value === undefined) return { error: `choose among 1-${field.options.length}` };
        if (!values.includes(value)) values.push(value);
      }
      if (typeof s['minItems'] === 'number' && values.length < s['minItems']) return { error: `choose at least ${s['minItems']}` };
      if (typeof s['maxItems'] === 'number' && values.length > s['maxItems']) return { error: `choose at most ${s['maxItems']}` };
      return { value: values };
    }
    case 'string': {
      if (typeof s['minLength'] === 'number' && text.length < s['minLength']) return { error: `at least ${s['minLength']} characters` };
      if (typeof s['maxLength'] === 'number' && text.length > s['maxLength']) return { error: `at most ${s['maxLength']} characters` };
      if (s['format'] === 'email' && !/^[^@\s]+@[^@\s]+$/.test(text)) return { error: 'enter an e-mail address' };
      return { value: raw };
    }
  }
}

/** Asks the user one line; undefined at end of input (Ctrl-D), which cancels the form. */
export type Ask = (question: string) => Promise<string | undefined>;

/**
 * Runs the form: the server's message, each field until its answer is valid, then a last
 * "send?" question. End of input cancels; answering no to "send?" declines.
 */
export async function runElicitationForm(params: ElicitFormParams, ask: Ask, write: (text: string) => void): Promise<ElicitResult> {
  write(`\nThe server asks: ${params.message}\n(Ctrl-D cancels)\n`);
  const content: Record<string, FormValue> = {};
  for (const field of formFields(params)) {
    for (;;) {
      const line = await ask(fieldQuestion(field));
      if (line === undefined) return { action: 'cancel' };
      const answer = parseFieldAnswer(field, line);
      if ('error' in answer) {
        write(`  ${answer.error}\n`);
        continue;
      }
      if ('value' in answer) content[field.name] = answer.value;
      break;
    }
  }
  const send = await ask('Send this answer to the server? [Y/n]: ');
  if (send === undefined) return { action: 'cancel' };
  return /^n(o)?$/i.test(send.trim()) ? { action: 'decline' } : { action: 'accept', content };
}
