/**
 * JSON Schema validation for tool input/output schemas, compiled once per schema.
 *
 * - Dialect: a schema without `$schema` is JSON Schema 2020-12 (MUST-24); draft-07 is also
 *   supported; any other dialect is refused with an error that names it (MUST-26).
 * - `$ref`: only references that resolve inside the schema itself are allowed. A `$ref`
 *   that would need a network (or any external) fetch is refused at compile time and never
 *   dereferenced (MUST-28); there is no remote mode to switch on by accident (MUST-29).
 * - Denial of service: nesting depth, the number of subschemas and the size of composition
 *   keywords are bounded before compiling.
 * - Cold start: 2020-12 schemas within the subset of `builtinSchema.ts` (what tool schemas
 *   use) are compiled by the built-in validator, synchronously, with ajv's semantics and
 *   errors. Anything else (draft-07, `format`, `unevaluatedProperties`, `$id`, ...) is
 *   compiled by ajv, which is imported only then: `validate` returns a promise until ajv is
 *   loaded and `ready` rejects if ajv refuses the schema.
 *
 * @see https://modelcontextprotocol.io/specification/2026-07-28/basic#json-schema-usage
 * @module
 */
import type { Ajv2020 } from 'ajv/dist/2020.js';
import type { Ajv, ErrorObject, ValidateFunction } from 'ajv';
import { McpError, McpErrorCode } from '../util/errors.js';
import type { Issue, PathSegment, ValidationResult } from '../util/schema.js';
import { compileBuiltin } from './builtinSchema.js';

/** The dialect URIs this module validates. */
export const Dialect = {
  Draft2020_12: 'https://json-schema.org/draft/2020-12/schema',
  Draft07: 'http://json-schema.org/draft-07/schema',
} as const;

/** Bounds applied to a schema before it is compiled. */
export interface SchemaBounds {
  /** Deepest nesting of subschemas. Default 32. */
  readonly maxDepth?: number;
  /** Most subschemas in one schema. Default 2,000. */
  readonly maxSubschemas?: number;
  /** Most alternatives in one `anyOf`/`oneOf`/`allOf`. Default 100. */
  readonly maxCompositionBranches?: number;
}

/** A compiled schema. */
export interface CompiledJsonSchema<T = unknown> {
  /** The schema as given (never modified by the built-in validator). */
  readonly schema: Readonly<Record<string, unknown>> | boolean;
  /**
   * Settles when `validate` can run synchronously: at once for the built-in validator; for a
   * schema compiled by ajv, once ajv is loaded, rejecting with {@link McpError}
   * `ERR_MCP_INVALID_ARGUMENT` when ajv refuses the schema.
   */
  readonly ready: Promise<void>;
  /**
   * Validates a value; issues carry JSON paths. Synchronous for the built-in validator and
   * for an ajv schema once `ready` has resolved; before that a promise. Rejects with the error
   * of `ready` when ajv refused the schema.
   */
  validate(value: unknown): ValidationResult<T> | Promise<ValidationResult<T>>;
}

const DEFAULTS = { maxDepth: 32, maxSubschemas: 2000, maxCompositionBranches: 100 };

// One ajv per dialect, loaded and created on first need and shared: compiled functions are
// cached per schema object below. `strict: false` lets tool schemas carry annotations such
// as `x-mcp-header`; no `loadSchema` is configured, so ajv can never fetch anything.
const ajvOptions = { strict: false, allErrors: false, addUsedSchema: false, validateSchema: true, code: { optimize: true } } as const;
let ajv2020: Promise<Ajv2020> | undefined;
let ajv07: Promise<Ajv> | undefined;
const compiled = new WeakMap<object, CompiledJsonSchema>();
const READY: Promise<void> = Promise.resolve();

type DialectName = '2020-12' | 'draft-07';

async function withFormats<A extends Ajv>(instance: A): Promise<A> {
  const formats = await import('ajv-formats');
  // ajv-formats is CommonJS; its default export arrives wrapped under NodeNext.
  const addFormats = ((formats.default as unknown as { default?: unknown }).default ?? formats.default) as unknown as (ajv: Ajv) => Ajv;
  addFormats(instance);
  return instance;
}

function loadAjv(dialect: DialectName): Promise<Ajv> {
  if (dialect === '2020-12') {
    return (ajv2020 ??= import('ajv/dist/2020.js')
      .then(({ Ajv2020 }) => withFormats(new Ajv2020(ajvOptions)))
      .catch((error: unknown) => {
        ajv2020 = undefined; // let a later schema try again
        throw error;
      }));
  }
  return (ajv07 ??= import('ajv')
    .then(({ Ajv }) => withFormats(new Ajv(ajvOptions)))
    .catch((error: unknown) => {
      ajv07 = undefined;
      throw error;
    }));
}

function normalizeDialect(uri: string): string {
  return uri.replace(/#$/, '').replace(/^https?:\/\//, '');
}

function dialectOf(schema: Readonly<Record<string, unknown>> | boolean): DialectName {
  const declared = typeof schema === 'object' ? schema['$schema'] : undefined;
  if (declared === undefined) return '2020-12';
  if (typeof declared !== 'string') throw new McpError(McpErrorCode.InvalidArgument, '"$schema" must be a string');
  const d = normalizeDialect(declared);
  if (d === normalizeDialect(Dialect.Draft2020_12)) return '2020-12';
  if (d === normalizeDialect(Dialect.Draft07)) return 'draft-07';
  throw new McpError(McpErrorCode.InvalidArgument, `JSON Schema dialect ${declared} is not supported (supported: 2020-12, draft-07)`);
}

const SUBSCHEMA_MAPS = ['properties', 'patternProperties', '$defs', 'definitions', 'dependentSchemas'];
const SUBSCHEMA_ARRAYS = ['allOf', 'anyOf', 'oneOf', 'prefixItems'];
const SUBSCHEMA_SINGLE = ['items', 'additionalItems', 'additionalProperties', 'unevaluatedItems', 'unevaluatedProperties', 'contains', 'propertyNames', 'not', 'if', 'then', 'else'];

/**
 * Walks a schema, enforcing the bounds and collecting every `$ref` with the anchors and ids
 * it declares. Throws {@link McpError} `ERR_MCP_INVALID_ARGUMENT` on a violation.
 */
export function checkSchemaSafety(schema: unknown, bounds: SchemaBounds = {}): void {
  const maxDepth = bounds.maxDepth ?? DEFAULTS.maxDepth;
  const maxSubschemas = bounds.maxSubschemas ?? DEFAULTS.maxSubschemas;
  const maxBranches = bounds.maxCompositionBranches ?? DEFAULTS.maxCompositionBranches;
  const refs: string[] = [];
  const ids = new Set<string>();
  let count = 0;
  const visit = (node: unknown, depth: number): void => {
    if (typeof node === 'boolean') return;
    if (typeof node !== 'object' || node === null || Array.isArray(node)) {
      throw new McpError(McpErrorCode.InvalidArgument, 'a subschema must be an object or a boolean');
    }
    if (++count > maxSubschemas) throw new McpError(McpErrorCode.InvalidArgument, `the schema has more than ${maxSubschemas} subschemas`);
    if (depth > maxDepth) throw new McpError(McpErrorCode.InvalidArgument, `the schema nests deeper than ${maxDepth} levels`);
    const s = node as Record<string, unknown>;
    if (typeof s['$ref'] === 'string') refs.push(s['$ref']);
    if (typeof s['$dynamicRef'] === 'string') refs.push(s['$dynamicRef']);
    if (typeof s['$id'] === 'string') ids.add(s['$id'].replace(/#$/, ''));
    if (typeof s['$anchor'] === 'string') ids.add(`#${s['$anchor']}`);
    if (typeof s['$dynamicAnchor'] === 'string') ids.add(`#${s['$dynamicAnchor']}`);
    for (const key of SUBSCHEMA_MAPS) {
      const map = s[key];
      if (typeof map === 'object' && map !== null && !Array.isArray(map)) {
        for (const child of Object.values(map)) visit(child, depth + 1);
      }
    }
    for (const key of SUBSCHEMA_ARRAYS) {
      const list = s[key];
      if (Array.isArray(list)) {
        if (key !== 'prefixItems' && list.length > maxBranches) {
          throw new McpError(McpErrorCode.InvalidArgument, `"${key}" has more than ${maxBranches} alternatives`);
        }
        for (const child of list) visit(child, depth + 1);
      }
    }
    for (const key of SUBSCHEMA_SINGLE) {
      if (key in s) visit(s[key], depth + 1);
    }
  };
  visit(schema, 0);
  for (const ref of refs) {
    if (ref.startsWith('#')) continue; // JSON pointer or anchor inside this schema
    const base = ref.replace(/#.*$/, '');
    if (ids.has(base) || ids.has(ref)) continue; // an $id declared inside this schema
    throw new McpError(
      McpErrorCode.InvalidArgument,
      `"$ref": ${JSON.stringify(ref)} points outside the schema; external and network references are never dereferenced`,
    );
  }
}

/**
 * An ajv error as an {@link Issue}. The instance path is walked along `value` so a segment is
 * a number only where it indexes an array (an object key `"0"` stays a string), as the
 * built-in validator reports it.
 */
function toIssue(error: ErrorObject, value: unknown): Issue {
  const path: PathSegment[] = [];
  if (error.instancePath !== '') {
    let node: unknown = value;
    for (const raw of error.instancePath.slice(1).split('/')) {
      const seg = raw.replace(/~1/g, '/').replace(/~0/g, '~');
      if (Array.isArray(node) && /^(0|[1-9]\d*)$/.test(seg)) {
        path.push(Number(seg));
        node = node[Number(seg)];
      } else {
        path.push(seg);
        node = typeof node === 'object' && node !== null ? (node as Record<string, unknown>)[seg] : undefined;
      }
    }
  }
  const params = error.params as Record<string, unknown>;
  if (error.keyword === 'required' && typeof params['missingProperty'] === 'string') {
    return { path: [...path, params['missingProperty']], message: 'is required' };
  }
  if (error.keyword === 'additionalProperties' && typeof params['additionalProperty'] === 'string') {
    return { path: [...path, params['additionalProperty']], message: 'is not allowed here' };
  }
  return { path, message: error.message ?? `fails "${error.keyword}"` };
}

function invalidSchema(error: unknown): McpError {
  return new McpError(McpErrorCode.InvalidArgument, `invalid JSON Schema: ${error instanceof Error ? error.message : String(error)}`, { cause: error });
}

/** Compiles with ajv, loading it first; `validate` answers asynchronously until it is ready. */
function compileWithAjv<T>(schema: Readonly<Record<string, unknown>> | boolean, dialect: DialectName): CompiledJsonSchema<T> {
  let fn: ValidateFunction | undefined;
  const ready = loadAjv(dialect).then((ajv) => {
    try {
      fn = ajv.compile(schema as Record<string, unknown>);
    } catch (error) {
      throw invalidSchema(error);
    }
  });
  ready.catch(() => {}); // the rejection is for whoever awaits `ready` or calls `validate`
  const check = (f: ValidateFunction, value: unknown): ValidationResult<T> =>
    f(value) ? { ok: true, value: value as T } : { ok: false, issues: (f.errors ?? []).map((e) => toIssue(e, value)) };
  return {
    schema,
    ready,
    validate(value) {
      if (fn !== undefined) return check(fn, value);
      return ready.then(() => check(fn as ValidateFunction, value));
    },
  };
}

/**
 * Compiles a JSON Schema (once per schema object) after checking dialect, references and
 * bounds. Throws {@link McpError} `ERR_MCP_INVALID_ARGUMENT` when the schema is refused;
 * for a schema outside the built-in subset the refusal comes from ajv, through `ready`.
 */
export function compileJsonSchema<T = unknown>(
  schema: Readonly<Record<string, unknown>> | boolean,
  bounds: SchemaBounds = {},
): CompiledJsonSchema<T> {
  if (typeof schema === 'object') {
    const hit = compiled.get(schema);
    if (hit !== undefined) return hit as CompiledJsonSchema<T>;
  }
  checkSchemaSafety(schema, bounds);
  const dialect = dialectOf(schema);
  const declared = typeof schema === 'object' ? schema['$schema'] : undefined;
  // ajv knows the 2020-12 meta-schema only by its exact https URI (with or without "#").
  const builtin = dialect === '2020-12' && (declared === undefined || declared === Dialect.Draft2020_12 || declared === `${Dialect.Draft2020_12}#`) ? compileBuiltin<T>(schema) : undefined;
  const result: CompiledJsonSchema<T> =
    builtin?.kind === 'builtin' ? { schema, ready: READY, validate: builtin.validate } : compileWithAjv<T>(schema, dialect);
  if (typeof schema === 'object') compiled.set(schema, result as CompiledJsonSchema);
  return result;
}
