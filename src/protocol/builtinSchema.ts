/**
 * A built-in validator for the subset of JSON Schema 2020-12 that tool schemas use, so that
 * the common path never loads ajv (importing it and compiling one small schema costs tens of
 * milliseconds at cold start).
 *
 * ajv, configured as in `jsonSchema.ts`, is the oracle: for every schema in the subset the
 * built-in compiler refuses exactly the schemas ajv refuses (its meta-schema and the errors
 * its keyword code throws, only for the subschemas ajv compiles), accepts exactly the values
 * ajv accepts, and reports ajv's errors (same order, instance paths and English messages) in
 * the `Issue` form of `jsonSchema.ts`. That includes ajv's evaluation order (type check, then
 * keyword groups), its "stop at the first failing keyword" rule outside composite keywords,
 * its error accumulation inside `anyOf`/`oneOf`/`contains`/`propertyNames`/`if` and across
 * `$ref` function boundaries, and its quirks (inherited properties count for `required` and
 * `properties`, `multipleOf` uses `parseInt`, `Infinity` is an integer, a `$ref` of `#` is
 * refused because ajv cannot resolve it without `$id`).
 *
 * A schema goes to ajv instead (the caller falls back) when it uses a keyword outside the
 * subset anywhere ({@link FALLBACK_KEYWORDS}), a `$ref` that is not a plain local JSON pointer
 * to a subschema, `nullable` with a `type` array (ajv mutates the array), `__proto__` as a
 * property name, or a combination where ajv's generated code misbehaves: it reads a stale or
 * unassigned variable (`prefixItems` with `contains`/`uniqueItems` in one schema;
 * `propertyNames` next to a property named after an `Object.prototype` member; `contains`
 * with default bounds inside a loop of the same compiled function), drops code it still
 * refers to (an always-valid `not` next to `anyOf`/`oneOf`/`allOf`/`if`), or writes into an
 * unassigned record (`patternProperties` after keywords that record evaluated properties at
 * run time).
 *
 * A schema is compiled once into closures; validating never walks the schema object.
 *
 * This module is the public face; the implementation is in `builtinSchema/`: `runtime.ts`
 * (run-time state and value helpers), `metaSchema.ts` (schema checks and keyword tables),
 * `refs.ts` (local `$ref`s), `keywords.ts` (keywords without subschemas), `steps.ts`
 * (combinators), `compiler.ts` (the compiler) and `types.ts`.
 *
 * @see https://json-schema.org/draft/2020-12/json-schema-validation
 * @module
 */
import { McpError, McpErrorCode } from '../util/errors.js';
import type { ValidationResult } from '../util/schema.js';
import { Compiler } from './builtinSchema/compiler.js';
import { Fallback, inspect } from './builtinSchema/metaSchema.js';
import { run } from './builtinSchema/runtime.js';

export { FALLBACK_KEYWORDS } from './builtinSchema/metaSchema.js';

/** Keywords that never assert (their shape is still checked as ajv's meta-schema does). */
export const ANNOTATION_KEYWORDS: ReadonlySet<string> = new Set([
  '$schema', '$comment', '$defs', 'definitions', 'title', 'description', 'default', 'examples', 'deprecated',
  'readOnly', 'writeOnly', 'contentMediaType', 'contentEncoding', 'contentSchema',
]);

/** Keywords the built-in validator implements with ajv's semantics. */
export const SUPPORTED_KEYWORDS: ReadonlySet<string> = new Set([
  '$ref', 'type', 'nullable', 'const', 'enum', 'not', 'anyOf', 'oneOf', 'allOf', 'if', 'then', 'else',
  'maximum', 'minimum', 'exclusiveMaximum', 'exclusiveMinimum', 'multipleOf', 'maxLength', 'minLength', 'pattern',
  'maxItems', 'minItems', 'prefixItems', 'items', 'contains', 'uniqueItems', 'maxContains', 'minContains',
  'maxProperties', 'minProperties', 'required', 'propertyNames', 'additionalProperties', 'properties',
  'patternProperties', 'dependentRequired', 'dependentSchemas',
]);

/** What {@link compileBuiltin} produced: a validator, or the reason the schema needs ajv. */
export type BuiltinCompileResult<T> =
  | { readonly kind: 'builtin'; readonly validate: (value: unknown) => ValidationResult<T> }
  | { readonly kind: 'fallback'; readonly reason: string };

/**
 * Compiles a JSON Schema 2020-12 schema with the built-in validator, or says why it needs
 * ajv. The caller has checked bounds and the dialect. Throws {@link McpError}
 * `ERR_MCP_INVALID_ARGUMENT` exactly when ajv would refuse the schema.
 */
export function compileBuiltin<T = unknown>(schema: Readonly<Record<string, unknown>> | boolean): BuiltinCompileResult<T> {
  try {
    const reason = inspect(schema, '#', new Set());
    if (reason !== undefined) return { kind: 'fallback', reason };
    const compiler = new Compiler(schema);
    const root = compiler.node(schema, '#');
    compiler.checkLoops();
    return { kind: 'builtin', validate: (value) => run<T>(root, value) };
  } catch (error) {
    if (error instanceof Fallback) return { kind: 'fallback', reason: error.message };
    if (error instanceof McpError) throw error;
    throw new McpError(McpErrorCode.InvalidArgument, `invalid JSON Schema: ${error instanceof Error ? error.message : String(error)}`, { cause: error });
  }
}
