/**
 * The built-in validator's schema checks: ajv's meta-schema (2020-12) and the errors its
 * keyword code throws, the keywords that send a schema to ajv, and ajv's keyword tables
 * (`RULES`, the keyword groups) that the compiler follows.
 *
 * @module
 */
import { McpError, McpErrorCode } from '../../util/errors.js';
import { isInteger, isObject } from './runtime.js';
import type { Node, Obj } from './types.js';

/** Keywords ajv's 2020-12 instance knows that the built-in validator does not implement. */
export const FALLBACK_KEYWORDS: ReadonlySet<string> = new Set([
  '$id', '$anchor', '$dynamicRef', '$dynamicAnchor', '$recursiveRef', '$recursiveAnchor', '$vocabulary', '$async', 'id',
  'format', 'formatMaximum', 'formatMinimum', 'formatExclusiveMaximum', 'formatExclusiveMinimum',
  'unevaluatedProperties', 'unevaluatedItems', 'dependencies', 'additionalItems', 'discriminator',
]);

/** Thrown while compiling when the schema needs ajv; its message is the reason. */
export class Fallback extends Error {}

// ---------------------------------------------------------------------------------------------
// Schema checks: ajv's meta-schema (2020-12) and the errors its keyword code throws.

/** ajv's RULES.all: a plain object, so inherited names such as `toString` count as rules. */
const RULES: Record<string, true> = Object.fromEntries(
  [
    '$dynamicAnchor', '$dynamicRef', '$recursiveAnchor', '$recursiveRef', '$comment', 'id', '$ref', 'type', 'nullable',
    'const', 'enum', 'not', 'anyOf', 'oneOf', 'allOf', 'if', 'then', 'else', 'maximum', 'minimum', 'exclusiveMaximum',
    'exclusiveMinimum', 'multipleOf', 'format', 'maxLength', 'minLength', 'pattern', 'formatMaximum', 'formatMinimum',
    'formatExclusiveMaximum', 'formatExclusiveMinimum', 'maxItems', 'minItems', 'prefixItems', 'items', 'contains',
    'uniqueItems', 'maxContains', 'minContains', 'unevaluatedItems', 'maxProperties', 'minProperties', 'required',
    'propertyNames', 'additionalProperties', 'dependencies', 'properties', 'patternProperties', 'dependentRequired',
    'dependentSchemas', 'unevaluatedProperties',
  ].map((k) => [k, true]),
);
export const isRule = (key: string): boolean => Boolean((RULES as Record<string, unknown>)[key]);

export function alwaysValid(s: Node): boolean {
  if (typeof s === 'boolean') return s;
  for (const key in s) if (isRule(key)) return false;
  return true;
}

export const GROUPS = {
  any: ['$comment', '$ref', 'type', 'nullable', 'const', 'enum', 'not', 'anyOf', 'oneOf', 'allOf', 'if', 'then', 'else'],
  number: ['maximum', 'minimum', 'exclusiveMaximum', 'exclusiveMinimum', 'multipleOf'],
  string: ['maxLength', 'minLength', 'pattern'],
  array: ['maxItems', 'minItems', 'prefixItems', 'items', 'contains', 'uniqueItems', 'maxContains', 'minContains'],
  object: ['maxProperties', 'minProperties', 'required', 'propertyNames', 'additionalProperties', 'properties', 'patternProperties', 'dependentRequired', 'dependentSchemas'],
};
const SIMPLE_TYPES = new Set(['array', 'boolean', 'integer', 'null', 'number', 'object', 'string']);
const POINTER = /^#(?:\/(?:[A-Za-z0-9\-._~!$&'()*+,;=:@]|%[0-9A-Fa-f]{2})*)*$/;
export const SCHEMA_MAPS = new Set(['properties', 'patternProperties', 'dependentSchemas', '$defs', 'definitions']);
export const SCHEMA_LISTS = new Set(['prefixItems', 'allOf', 'anyOf', 'oneOf']);
export const SCHEMA_SINGLES = new Set(['items', 'contains', 'additionalProperties', 'propertyNames', 'if', 'then', 'else', 'not', 'contentSchema']);
const STRINGS = new Set(['$schema', '$comment', 'title', 'description', 'contentEncoding', 'contentMediaType']);
const BOOLEANS = new Set(['uniqueItems', 'deprecated', 'readOnly', 'writeOnly']);
const NUMBERS = new Set(['maximum', 'minimum', 'exclusiveMaximum', 'exclusiveMinimum']);
const COUNTS = new Set(['maxLength', 'minLength', 'maxItems', 'minItems', 'maxContains', 'minContains', 'maxProperties', 'minProperties']);

export function pointerSegment(key: string): string {
  return key.replace(/~/g, '~0').replace(/\//g, '~1');
}

export function invalid(what: string, at: string): McpError {
  return new McpError(McpErrorCode.InvalidArgument, `invalid JSON Schema: ${what} (at ${at})`);
}

function isUniqueStringArray(v: unknown): boolean {
  return Array.isArray(v) && v.every((x) => typeof x === 'string') && new Set(v).size === v.length;
}

/**
 * Checks a (sub)schema against the 2020-12 meta-schema as ajv does (formats in the
 * meta-schema are not asserted) and looks for what needs ajv. Returns the reason to fall back.
 */
export function inspect(node: unknown, at: string, seen: Set<object>): string | undefined {
  if (typeof node === 'boolean') return undefined;
  if (!isObject(node)) throw invalid('a schema must be an object or a boolean', at);
  if (seen.has(node)) return undefined;
  seen.add(node);
  for (const key of Object.keys(node)) {
    const v = node[key];
    if (v === undefined) continue;
    const here = `${at}/${pointerSegment(key)}`;
    if (FALLBACK_KEYWORDS.has(key)) return `"${key}" (at ${at})`;
    const fail = (what: string): McpError => invalid(`"${key}" ${what}`, at);
    let reason: string | undefined;
    if (SCHEMA_SINGLES.has(key)) {
      reason = inspect(v, here, seen);
    } else if (SCHEMA_LISTS.has(key)) {
      if (!Array.isArray(v) || v.length === 0) throw fail('must be a non-empty array of schemas');
      for (let i = 0; i < v.length && reason === undefined; i++) reason = inspect(v[i], `${here}/${i}`, seen);
    } else if (SCHEMA_MAPS.has(key)) {
      if (!isObject(v)) throw fail('must be an object');
      for (const name of Object.keys(v)) {
        if (name === '__proto__') return `"__proto__" in "${key}" (at ${at})`;
        reason ??= inspect(v[name], `${here}/${pointerSegment(name)}`, seen);
      }
    } else if (STRINGS.has(key) || key === 'pattern') {
      if (typeof v !== 'string') throw fail('must be a string');
    } else if (BOOLEANS.has(key)) {
      if (typeof v !== 'boolean') throw fail('must be a boolean');
    } else if (NUMBERS.has(key)) {
      if (typeof v !== 'number') throw fail('must be a number');
    } else if (COUNTS.has(key)) {
      if (!isInteger(v) || (v as number) < 0) throw fail('must be a non-negative integer');
    } else if (key === 'multipleOf') {
      if (typeof v !== 'number' || !(v > 0)) throw fail('must be a number greater than 0');
    } else if (key === 'type') {
      const ok = typeof v === 'string' ? SIMPLE_TYPES.has(v) : Array.isArray(v) && v.length > 0 && isUniqueStringArray(v) && v.every((t) => SIMPLE_TYPES.has(t as string));
      if (!ok) throw fail('must be a JSON type name or a non-empty array of distinct type names');
    } else if (key === 'enum' || key === 'examples') {
      if (!Array.isArray(v)) throw fail('must be an array');
    } else if (key === 'required') {
      if (!isUniqueStringArray(v)) throw fail('must be an array of distinct strings');
    } else if (key === 'dependentRequired') {
      if (!isObject(v)) throw fail('must be an object');
      for (const name of Object.keys(v)) {
        if (name === '__proto__') return `"__proto__" in "${key}" (at ${at})`;
        if (!isUniqueStringArray(v[name])) throw invalid(`"${key}/${name}" must be an array of distinct strings`, at);
      }
    } else if (key === '$ref') {
      if (typeof v !== 'string') throw fail('must be a string');
      if (!POINTER.test(v) || v === '#/') return `"$ref": ${JSON.stringify(v)} is not a plain local JSON pointer (at ${at})`;
    }
    if (reason !== undefined) return reason;
  }
  return undefined;
}

export function schemaTypes(s: Obj, at: string): string[] {
  const t = s['type'];
  const types = Array.isArray(t) ? [...(t as string[])] : t ? [t as string] : [];
  if (!types.every((x) => SIMPLE_TYPES.has(x))) throw invalid('"type" must be a JSON type name or an array of them', at);
  const nullable = s['nullable'];
  if (types.includes('null')) {
    if (nullable === false) throw invalid('"type": null contradicts "nullable": false', at);
  } else {
    if (types.length === 0 && nullable !== undefined) throw invalid('"nullable" cannot be used without "type"', at);
    if (nullable === true) {
      // ajv appends "null" to the schema's own `type` array (mutating the schema).
      if (Array.isArray(t)) throw new Fallback(`"nullable" with a "type" array (at ${at})`);
      types.push('null');
    }
  }
  return types;
}

export function schemaProperties(map: unknown): string[] {
  return isObject(map) ? Object.keys(map).filter((p) => p !== '__proto__') : [];
}

export function regex(source: string, at: string): RegExp {
  try {
    return new RegExp(source, 'u');
  } catch (error) {
    throw invalid(`pattern ${JSON.stringify(source)} is not a valid regular expression (${error instanceof Error ? error.message : String(error)})`, at);
  }
}
