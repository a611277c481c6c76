/**
 * Fixed data of the `everything` demo server: the media payloads, the JSON Schema 2020-12
 * input schema and the elicitation forms the conformance scenarios expect, plus small helpers
 * to read answers. Pure data and pure functions; nothing here touches the server.
 *
 * @module
 */
import type { ContentBlock } from '../../protocol/model/content.js';
import type { ElicitResult, RequestedSchema } from '../../protocol/model/elicitation.js';
import type { CreateMessageResult } from '../../protocol/model/sampling.js';

/** The server's name in `serverInfo`. */
export const EVERYTHING_SERVER_NAME = 'switchboard-everything';

/** A 1×1 red PNG, base64. */
export const PNG_BASE64 = 'iVBORw0KGgoAAAANSUhEUgAAAAEAAAABCAYAAAAfFcSJAAAADUlEQVR42mP8z8DwHwAFBQIAX8jx0gAAAABJRU5ErkJggg==';

/** A minimal (empty) 8 kHz mono WAV, base64. */
export const WAV_BASE64 = 'UklGRiYAAABXQVZFZm10IBAAAAABAAEAQB8AAAB9AAACABAAZGF0YQIAAAA=';

/** The dialect URI of JSON Schema 2020-12. */
export const JSON_SCHEMA_2020_12 = 'https://json-schema.org/draft/2020-12/schema';

/**
 * The input schema of `json_schema_2020_12_tool`: `$schema`, `$defs` with an `$anchor`, a
 * `$ref`, composition (`allOf`/`anyOf`), a conditional (`if`/`then`/`else`) and
 * `additionalProperties: false` — all of which must survive `tools/list` unchanged.
 */
export const JSON_SCHEMA_2020_12_INPUT = Object.freeze({
  $schema: JSON_SCHEMA_2020_12,
  type: 'object',
  $defs: {
    address: {
      $anchor: 'addressDef',
      type: 'object',
      properties: { street: { type: 'string' }, city: { type: 'string' } },
    },
  },
  properties: {
    name: { type: 'string' },
    address: { $ref: '#/$defs/address' },
    contactMethod: { type: 'string', enum: ['phone', 'email'] },
    phone: { type: 'string' },
    email: { type: 'string' },
  },
  allOf: [{ anyOf: [{ required: ['phone'] }, { required: ['email'] }] }],
  if: { properties: { contactMethod: { const: 'phone' } }, required: ['contactMethod'] },
  then: { required: ['phone'] },
  else: { required: ['email'] },
  additionalProperties: false,
});

/** The form of `test_elicitation`: a username and an email address. */
export const USER_FORM: RequestedSchema = {
  type: 'object',
  properties: {
    username: { type: 'string', description: "User's response" },
    email: { type: 'string', description: "User's email address" },
  },
  required: ['username', 'email'],
};

/** The SEP-1034 form: a default for every primitive type. */
export const DEFAULTS_FORM: RequestedSchema = {
  type: 'object',
  properties: {
    name: { type: 'string', description: 'User name', default: 'John Doe' },
    age: { type: 'integer', description: 'User age', default: 30 },
    score: { type: 'number', description: 'User score', default: 95.5 },
    status: { type: 'string', description: 'User status', enum: ['active', 'inactive', 'pending'], default: 'active' },
    verified: { type: 'boolean', description: 'Verification status', default: true },
  },
  required: [],
};

/** The SEP-1330 form: the five enum shapes. */
export const ENUMS_FORM: RequestedSchema = {
  type: 'object',
  properties: {
    untitledSingle: { type: 'string', description: 'Select one option', enum: ['option1', 'option2', 'option3'] },
    titledSingle: {
      type: 'string',
      description: 'Select one option with titles',
      oneOf: [
        { const: 'value1', title: 'First Option' },
        { const: 'value2', title: 'Second Option' },
        { const: 'value3', title: 'Third Option' },
      ],
    },
    legacyEnum: {
      type: 'string',
      description: 'Select one option (legacy)',
      enum: ['opt1', 'opt2', 'opt3'],
      enumNames: ['Option One', 'Option Two', 'Option Three'],
    },
    untitledMulti: {
      type: 'array',
      description: 'Select multiple options',
      minItems: 1,
      maxItems: 3,
      items: { type: 'string', enum: ['option1', 'option2', 'option3'] },
    },
    titledMulti: {
      type: 'array',
      description: 'Select multiple options with titles',
      minItems: 1,
      maxItems: 3,
      items: {
        anyOf: [
          { const: 'value1', title: 'First Choice' },
          { const: 'value2', title: 'Second Choice' },
          { const: 'value3', title: 'Third Choice' },
        ],
      },
    },
  },
  required: [],
};

/** A one-field required string form (`{ [field]: string }`). */
export function stringForm(field: string): RequestedSchema {
  return { type: 'object', properties: { [field]: { type: 'string' } }, required: [field] };
}

/** A one-field required boolean form (`{ ok: boolean }`). */
export const CONFIRM_FORM: RequestedSchema = { type: 'object', properties: { ok: { type: 'boolean' } }, required: ['ok'] };

/** A text content block. */
export function text(value: string): ContentBlock {
  return { type: 'text', text: value };
}

/** A field of an accepted elicitation as a string, or `fallback`. */
export function formField(result: ElicitResult, field: string, fallback = 'unknown'): string {
  if (result.action !== 'accept') return fallback;
  const value = result.content?.[field];
  return typeof value === 'string' ? value : value === undefined ? fallback : JSON.stringify(value);
}

/** `action=…, content={…}`: how the elicitation tools report an answer. */
export function describeElicitation(result: ElicitResult): string {
  return `action=${result.action}, content=${JSON.stringify(result.content ?? {})}`;
}

/** The text of a sampling answer (single block or array), or `fallback`. */
export function sampledText(result: CreateMessageResult, fallback = 'no response'): string {
  const blocks = Array.isArray(result.content) ? result.content : [result.content];
  const texts = blocks.flatMap((b) => (b.type === 'text' ? [b.text] : []));
  return texts.length > 0 ? texts.join('\n') : fallback;
}
