/**
 * Elicitation: asking the user for structured input (form mode) or to visit a URL (url mode).
 *
 * Legacy revisions send `elicitation/create` as a server-to-client request (2025-06-18+);
 * 2026-07-28 embeds it in an `InputRequiredResult`.
 *
 * @see https://modelcontextprotocol.io/specification/2026-07-28/client/elicitation
 * @module
 */

import {
  array,
  boolean,
  discriminated,
  enumeration,
  integer,
  literal,
  number,
  object,
  optional,
  record,
  string,
  union,
  type Infer,
} from '../../util/schema.js';
import { Meta, select } from './common.js';

const described = { title: optional(string()), description: optional(string()) } as const;

/** A free-text field. */
export const StringSchema = object({
  type: literal('string'),
  ...described,
  minLength: optional(integer({ minimum: 0 })),
  maxLength: optional(integer({ minimum: 0 })),
  format: optional(enumeration(['email', 'uri', 'date', 'date-time'])),
  default: optional(string()),
});
/** @see {@link StringSchema} */
export type StringSchema = Infer<typeof StringSchema>;

/** A numeric field. */
export const NumberSchema = object({
  type: enumeration(['number', 'integer']),
  ...described,
  minimum: optional(number()),
  maximum: optional(number()),
  default: optional(number()),
});
/** @see {@link NumberSchema} */
export type NumberSchema = Infer<typeof NumberSchema>;

/** A yes/no field. */
export const BooleanSchema = object({ type: literal('boolean'), ...described, default: optional(boolean()) });
/** @see {@link BooleanSchema} */
export type BooleanSchema = Infer<typeof BooleanSchema>;

const TitledOption = object({ const: string(), title: string() });

/** Single choice among plain values (`enumNames` is the legacy display-name list). */
export const UntitledSingleSelectEnumSchema = object({
  type: literal('string'),
  ...described,
  enum: array(string()),
  enumNames: optional(array(string())),
  default: optional(string()),
});
/** @see {@link UntitledSingleSelectEnumSchema} */
export type UntitledSingleSelectEnumSchema = Infer<typeof UntitledSingleSelectEnumSchema>;

/** Single choice among titled values. */
export const TitledSingleSelectEnumSchema = object({
  type: literal('string'),
  ...described,
  oneOf: array(TitledOption),
  default: optional(string()),
});
/** @see {@link TitledSingleSelectEnumSchema} */
export type TitledSingleSelectEnumSchema = Infer<typeof TitledSingleSelectEnumSchema>;

/** Multiple choice among plain values. */
export const UntitledMultiSelectEnumSchema = object({
  type: literal('array'),
  ...described,
  minItems: optional(integer({ minimum: 0 })),
  maxItems: optional(integer({ minimum: 0 })),
  items: object({ type: literal('string'), enum: array(string()) }),
  default: optional(array(string())),
});
/** @see {@link UntitledMultiSelectEnumSchema} */
export type UntitledMultiSelectEnumSchema = Infer<typeof UntitledMultiSelectEnumSchema>;

/** Multiple choice among titled values. */
export const TitledMultiSelectEnumSchema = object({
  type: literal('array'),
  ...described,
  minItems: optional(integer({ minimum: 0 })),
  maxItems: optional(integer({ minimum: 0 })),
  items: object({ anyOf: array(TitledOption) }),
  default: optional(array(string())),
});
/** @see {@link TitledMultiSelectEnumSchema} */
export type TitledMultiSelectEnumSchema = Infer<typeof TitledMultiSelectEnumSchema>;

/** One field of a form: a flat primitive schema (string, number, boolean, or enum). */
export const PrimitiveSchemaDefinition = discriminated('type', {
  // Chosen by member: objects are open, so plain StringSchema would also accept an enum.
  string: select([StringSchema, UntitledSingleSelectEnumSchema, TitledSingleSelectEnumSchema], (v) =>
    'oneOf' in v ? 2 : 'enum' in v ? 1 : 0,
  ),
  number: NumberSchema,
  integer: NumberSchema,
  boolean: BooleanSchema,
  array: select([UntitledMultiSelectEnumSchema, TitledMultiSelectEnumSchema], (v) =>
    typeof v['items'] === 'object' && v['items'] !== null && 'anyOf' in v['items'] ? 1 : 0,
  ),
});
/** @see {@link PrimitiveSchemaDefinition} */
export type PrimitiveSchemaDefinition = Infer<typeof PrimitiveSchemaDefinition>;

/** The restricted, flat JSON Schema of a form. */
export const RequestedSchema = object({
  $schema: optional(string()),
  type: literal('object'),
  properties: record(PrimitiveSchemaDefinition),
  required: optional(array(string())),
});
/** @see {@link RequestedSchema} */
export type RequestedSchema = Infer<typeof RequestedSchema>;

/** Form-mode params (`mode` defaults to `"form"`; 2025-06-18 has no `mode`). */
export const ElicitFormParams = object({
  mode: optional(literal('form')),
  message: string(),
  requestedSchema: RequestedSchema,
  _meta: optional(Meta),
});
/** @see {@link ElicitFormParams} */
export type ElicitFormParams = Infer<typeof ElicitFormParams>;

/**
 * URL-mode params (2025-11-25+). `elicitationId` is required in 2025-11-25 and gone in
 * 2026-07-28 (correlation moves into `requestState`).
 */
export const ElicitUrlParams = object({
  mode: literal('url'),
  message: string(),
  url: string(),
  elicitationId: optional(string()),
  _meta: optional(Meta),
});
/** @see {@link ElicitUrlParams} */
export type ElicitUrlParams = Infer<typeof ElicitUrlParams>;

/** Form or URL params, told apart by `mode` (absent ⇒ form). */
export const ElicitParams = select([ElicitFormParams, ElicitUrlParams], (v) => (v['mode'] === 'url' ? 1 : 0));
/** @see {@link ElicitParams} */
export type ElicitParams = Infer<typeof ElicitParams>;

/** A submitted form value. */
export const ElicitValue = union([string(), number(), boolean(), array(string())]);

/** The user's answer: `accept` (with `content` for forms), `decline` or `cancel`. */
export const ElicitResult = object({
  action: enumeration(['accept', 'decline', 'cancel']),
  content: optional(record(ElicitValue)),
  _meta: optional(Meta),
});
/** @see {@link ElicitResult} */
export type ElicitResult = Infer<typeof ElicitResult>;

/** `notifications/elicitation/complete` params (2025-11-25 only). */
export const ElicitationCompleteParams = object({ elicitationId: string(), _meta: optional(Meta) });
/** @see {@link ElicitationCompleteParams} */
export type ElicitationCompleteParams = Infer<typeof ElicitationCompleteParams>;
