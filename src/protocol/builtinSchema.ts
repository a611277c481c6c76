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
 * @see https://json-schema.org/draft/2020-12/json-schema-validation
 * @module
 */
import { McpError, McpErrorCode } from '../util/errors.js';
import type { Issue, PathSegment, ValidationResult } from '../util/schema.js';

/** Keywords ajv's 2020-12 instance knows that the built-in validator does not implement. */
export const FALLBACK_KEYWORDS: ReadonlySet<string> = new Set([
  '$id', '$anchor', '$dynamicRef', '$dynamicAnchor', '$recursiveRef', '$recursiveAnchor', '$vocabulary', '$async', 'id',
  'format', 'formatMaximum', 'formatMinimum', 'formatExclusiveMaximum', 'formatExclusiveMinimum',
  'unevaluatedProperties', 'unevaluatedItems', 'dependencies', 'additionalItems', 'discriminator',
]);

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

type Obj = Readonly<Record<string, unknown>>;
type Node = Obj | boolean;
/** Validates `data`; true when it added no error. `composite` is ajv's `compositeRule`. */
type Check = (data: unknown, composite: boolean) => boolean;
/** One keyword; false stops the rest of its group (ajv nests later keywords in an `if`). */
type Step<D> = (data: D, composite: boolean) => boolean;
/**
 * ajv's compile-time record of evaluated properties or items (for `unevaluated*`): nothing,
 * a static set or count, a run-time variable (`name`) or everything (`true`). It changes the
 * code ajv generates for `anyOf` and `patternProperties`.
 */
type Ev = undefined | 'static' | 'name' | true;
interface Evaluated {
  props: Ev;
  items: Ev;
}

class Fallback extends Error {}

// ---------------------------------------------------------------------------------------------
// Run-time state. Validation is synchronous, so one set of variables serves every schema.

let errors: Issue[] | null = null; // ajv's vErrors of the current function frame
/**
 * ajv's `return false` outside composite keywords: the current function frame has returned.
 * Every check returns false as soon as a child failed, and the few places that go on after a
 * failed child (an `if` clause, `patternProperties`, the type check) look at this flag.
 */
let returned = false;
const path: PathSegment[] = [];

function count(): number {
  return errors === null ? 0 : errors.length;
}

function resetTo(n: number): void {
  if (errors !== null) {
    if (n > 0) errors.length = n;
    else errors = null;
  }
}

/** ajv's reportError: collected inside composite keywords, otherwise the frame returns. */
function report(message: string, composite: boolean, key?: string): false {
  const at = path.slice();
  if (key !== undefined) at.push(key);
  const issue: Issue = { path: at, message };
  if (!composite) {
    errors = [issue];
    returned = true;
  } else if (errors === null) errors = [issue];
  else errors.push(issue);
  return false;
}

/** ajv's reportExtraError: appended to what was collected; outside composites the frame returns. */
function reportExtra(message: string, composite: boolean): false {
  const issue: Issue = { path: path.slice(), message };
  if (errors === null) errors = [issue];
  else errors.push(issue);
  if (!composite) returned = true;
  return false;
}

/** A `$ref` ajv compiles to its own function: fresh error frame, errors appended on failure. */
function callFrame(check: Check, data: unknown): boolean {
  const saved = errors;
  errors = null;
  const ok = check(data, false);
  returned = false;
  const own = errors;
  errors = saved;
  if (!ok && own !== null) errors = saved === null ? own : saved.concat(own);
  return ok;
}

function run<T>(root: Check, value: unknown): ValidationResult<T> {
  errors = null;
  returned = false;
  if (path.length !== 0) path.length = 0; // after an exception (stack overflow) only
  if (root(value, false)) return { ok: true, value: value as T };
  const issues = errors ?? [];
  errors = null;
  returned = false;
  return { ok: false, issues };
}

// ---------------------------------------------------------------------------------------------
// ajv's run-time helpers, reproduced exactly.

/** fast-deep-equal, which ajv uses for `const`, `enum` and `uniqueItems`. */
function equal(a: unknown, b: unknown): boolean {
  if (a === b) return true;
  if (a && b && typeof a === 'object' && typeof b === 'object') {
    if (a.constructor !== b.constructor) return false;
    if (Array.isArray(a)) {
      const other = b as unknown[];
      if (a.length !== other.length) return false;
      for (let i = a.length; i-- !== 0; ) if (!equal(a[i], other[i])) return false;
      return true;
    }
    if (a.constructor === RegExp) return (a as RegExp).source === (b as RegExp).source && (a as RegExp).flags === (b as RegExp).flags;
    if (a.valueOf !== Object.prototype.valueOf) return a.valueOf() === b.valueOf();
    if (a.toString !== Object.prototype.toString) return a.toString() === b.toString();
    const keys = Object.keys(a);
    if (keys.length !== Object.keys(b).length) return false;
    for (let i = keys.length; i-- !== 0; ) if (!Object.prototype.hasOwnProperty.call(b, keys[i] as string)) return false;
    for (let i = keys.length; i-- !== 0; ) {
      const key = keys[i] as string;
      if (!equal((a as Obj)[key], (b as Obj)[key])) return false;
    }
    return true;
  }
  return a !== a && b !== b; // both NaN
}

/** Length in code points (ajv's ucs2length). */
function ucs2length(str: string): number {
  const len = str.length;
  let length = 0;
  let pos = 0;
  while (pos < len) {
    length++;
    const value = str.charCodeAt(pos++);
    if (value >= 0xd800 && value <= 0xdbff && pos < len && (str.charCodeAt(pos) & 0xfc00) === 0xdc00) pos++;
  }
  return length;
}

const isObject = (d: unknown): d is Obj => typeof d === 'object' && d !== null && !Array.isArray(d);
const isInteger = (d: unknown): boolean => typeof d === 'number' && !(d % 1) && !isNaN(d);

function typeTest(type: string): (d: unknown) => boolean {
  switch (type) {
    case 'null':
      return (d) => d === null;
    case 'array':
      return (d) => Array.isArray(d);
    case 'object':
      return isObject;
    case 'integer':
      return isInteger;
    default:
      return (d) => typeof d === type;
  }
}

function typesTest(types: readonly string[]): (d: unknown) => boolean {
  const tests = types.map(typeTest);
  if (tests.length === 1) return tests[0] as (d: unknown) => boolean;
  return (d) => tests.some((t) => t(d));
}

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
const isRule = (key: string): boolean => Boolean((RULES as Record<string, unknown>)[key]);

function alwaysValid(s: Node): boolean {
  if (typeof s === 'boolean') return s;
  for (const key in s) if (isRule(key)) return false;
  return true;
}

const GROUPS = {
  any: ['$comment', '$ref', 'type', 'nullable', 'const', 'enum', 'not', 'anyOf', 'oneOf', 'allOf', 'if', 'then', 'else'],
  number: ['maximum', 'minimum', 'exclusiveMaximum', 'exclusiveMinimum', 'multipleOf'],
  string: ['maxLength', 'minLength', 'pattern'],
  array: ['maxItems', 'minItems', 'prefixItems', 'items', 'contains', 'uniqueItems', 'maxContains', 'minContains'],
  object: ['maxProperties', 'minProperties', 'required', 'propertyNames', 'additionalProperties', 'properties', 'patternProperties', 'dependentRequired', 'dependentSchemas'],
};
const SIMPLE_TYPES = new Set(['array', 'boolean', 'integer', 'null', 'number', 'object', 'string']);
const POINTER = /^#(?:\/(?:[A-Za-z0-9\-._~!$&'()*+,;=:@]|%[0-9A-Fa-f]{2})*)*$/;
const SCHEMA_MAPS = new Set(['properties', 'patternProperties', 'dependentSchemas', '$defs', 'definitions']);
const SCHEMA_LISTS = new Set(['prefixItems', 'allOf', 'anyOf', 'oneOf']);
const SCHEMA_SINGLES = new Set(['items', 'contains', 'additionalProperties', 'propertyNames', 'if', 'then', 'else', 'not', 'contentSchema']);
const STRINGS = new Set(['$schema', '$comment', 'title', 'description', 'contentEncoding', 'contentMediaType']);
const BOOLEANS = new Set(['uniqueItems', 'deprecated', 'readOnly', 'writeOnly']);
const NUMBERS = new Set(['maximum', 'minimum', 'exclusiveMaximum', 'exclusiveMinimum']);
const COUNTS = new Set(['maxLength', 'minLength', 'maxItems', 'minItems', 'maxContains', 'minContains', 'maxProperties', 'minProperties']);

function pointerSegment(key: string): string {
  return key.replace(/~/g, '~0').replace(/\//g, '~1');
}

function invalid(what: string, at: string): McpError {
  return new McpError(McpErrorCode.InvalidArgument, `invalid JSON Schema: ${what} (at ${at})`);
}

function isUniqueStringArray(v: unknown): boolean {
  return Array.isArray(v) && v.every((x) => typeof x === 'string') && new Set(v).size === v.length;
}

/**
 * Checks a (sub)schema against the 2020-12 meta-schema as ajv does (formats in the
 * meta-schema are not asserted) and looks for what needs ajv. Returns the reason to fall back.
 */
function inspect(node: unknown, at: string, seen: Set<object>): string | undefined {
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

function schemaTypes(s: Obj, at: string): string[] {
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

function schemaProperties(map: unknown): string[] {
  return isObject(map) ? Object.keys(map).filter((p) => p !== '__proto__') : [];
}

function regex(source: string, at: string): RegExp {
  try {
    return new RegExp(source, 'u');
  } catch (error) {
    throw invalid(`pattern ${JSON.stringify(source)} is not a valid regular expression (${error instanceof Error ? error.message : String(error)})`, at);
  }
}

function mergeEv(from: Ev, to: Ev): Ev {
  if (to === undefined) return from;
  if (to === 'name' || from === 'name') return 'name';
  return from === true ? true : 'static';
}

// ---------------------------------------------------------------------------------------------
// Compilation

const LOOP = 0;
const SAME = 1;
const CALL = 2;
type EdgeKind = typeof LOOP | typeof SAME | typeof CALL;

const pass: Check = () => true;
const falseSchema: Check = (_d, composite) => report('boolean schema is false', composite);
const isArray = (d: unknown): boolean => Array.isArray(d);
const isNumber = (d: unknown): boolean => typeof d === 'number';
const isString = (d: unknown): boolean => typeof d === 'string';

class Compiler {
  readonly #root: Node;
  readonly #checks = new Map<object, Check>();
  readonly #evaluated = new Map<object, Evaluated>();
  readonly #edges = new Map<object, Array<[Node, EdgeKind]>>();
  /** `contains` whose generated code keeps a stale variable when run twice in one frame. */
  readonly #staleContains = new Set<object>();

  constructor(root: Node) {
    this.#root = root;
  }

  node(s: Node, at: string): Check {
    if (s === true) return pass;
    if (s === false) return falseSchema;
    const hit = this.#checks.get(s);
    if (hit !== undefined) return hit;
    const slot: { check: Check } = { check: pass };
    this.#checks.set(s, (d, composite) => slot.check(d, composite)); // for recursive $ref
    this.#edges.set(s, []);
    slot.check = this.#build(s, at);
    this.#checks.set(s, slot.check);
    return slot.check;
  }

  /** Falls back when a stale-variable `contains` can run twice within one ajv function. */
  checkLoops(): void {
    const seen = [new Set<Node>(), new Set<Node>()];
    const stack: Array<[Node, number]> = [[this.#root, 0]];
    for (let item = stack.pop(); item !== undefined; item = stack.pop()) {
      const [node, inLoop] = item;
      if (inLoop === 1 && typeof node === 'object' && this.#staleContains.has(node)) {
        throw new Fallback('"contains" inside a loop of the same compiled function');
      }
      for (const [to, kind] of (typeof node === 'object' && this.#edges.get(node)) || []) {
        const next = kind === LOOP ? 1 : kind === CALL ? 0 : inLoop;
        const set = seen[next] as Set<Node>;
        if (!set.has(to)) {
          set.add(to);
          stack.push([to, next]);
        }
      }
    }
  }

  #sub(from: Obj, s: Node, at: string, kind: EdgeKind): Check {
    this.#edges.get(from)?.push([s, kind]);
    return this.node(s, at);
  }

  #evaluatedOf(s: Node): Evaluated {
    return (typeof s === 'object' && this.#evaluated.get(s)) || { props: undefined, items: undefined };
  }

  /** ajv's getJsonPointer: the subschema a local pointer names (following bare `$ref`s). */
  #resolve(ref: string, at: string, chain: Set<string>): Node | undefined {
    if (chain.has(ref)) throw invalid(`"$ref" ${JSON.stringify(ref)} is a cycle of references`, at);
    chain.add(ref);
    let node: unknown = this.#root;
    let kind: 'schema' | 'map' | 'list' | 'data' = 'schema';
    for (const raw of ref.slice(2).split('/')) {
      if (typeof node === 'boolean') return undefined;
      let part: string;
      try {
        part = decodeURIComponent(raw).replace(/~1/g, '/').replace(/~0/g, '~');
      } catch {
        throw invalid(`"$ref" ${JSON.stringify(ref)} is not a valid URI`, at);
      }
      const next = (node as Record<string, unknown>)[part];
      if (next === undefined) return undefined;
      if (kind === 'schema') kind = SCHEMA_MAPS.has(part) ? 'map' : SCHEMA_LISTS.has(part) ? 'list' : SCHEMA_SINGLES.has(part) ? 'schema' : 'data';
      else if (kind === 'map') kind = Object.prototype.hasOwnProperty.call(node, part) ? 'schema' : 'data';
      else if (kind === 'list') kind = /^(0|[1-9]\d*)$/.test(part) ? 'schema' : 'data';
      if (kind === 'data') throw new Fallback(`"$ref" ${JSON.stringify(ref)} does not name a subschema (at ${at})`);
      node = next;
    }
    if (kind !== 'schema') throw new Fallback(`"$ref" ${JSON.stringify(ref)} does not name a subschema (at ${at})`);
    if (typeof node === 'object' && node !== null) {
      const bare = (node as Obj)['$ref'];
      let rules = false;
      for (const key in node) if (key !== '$ref' && isRule(key)) rules = true;
      if (bare && !rules && typeof bare === 'string' && bare.startsWith('#/')) {
        const target = this.#resolve(bare, at, chain);
        if (target !== undefined) return target;
      }
    }
    return node === this.#root ? undefined : (node as Node);
  }

  #ref(s: Obj, ref: string, at: string): { step: Step<unknown>; evaluated: Evaluated; dynamic: boolean } {
    // Without "$id", ajv 8 resolves "#" against base "#" and finds nothing: it refuses the schema.
    if (ref === '#') throw invalid(`can't resolve reference # (a schema without "$id" cannot refer to its root)`, at);
    const target = this.#resolve(ref, at, new Set());
    if (target === undefined) throw invalid(`can't resolve reference ${ref}`, at);
    if (typeof target === 'boolean' || !hasRef(target)) {
      const check = this.#sub(s, target, ref, SAME);
      return { step: check, evaluated: this.#evaluatedOf(target), dynamic: false };
    }
    const compiling = this.#checks.has(target) && !this.#evaluated.has(target);
    const check = this.#sub(s, target, ref, CALL);
    return { step: (d) => callFrame(check, d), evaluated: this.#evaluatedOf(target), dynamic: compiling };
  }

  #build(s: Obj, at: string): Check {
    const types = schemaTypes(s, at);
    if (s['nullable'] !== undefined && typeof s['nullable'] !== 'boolean') throw invalid('"nullable" must be a boolean', at);
    const has = (k: string): boolean => s[k] !== undefined;
    const sub = (k: string, kind: EdgeKind = SAME): Check => this.#sub(s, s[k] as Node, `${at}/${k}`, kind);
    const used = (keys: readonly string[]): boolean => keys.some(has);
    // ajv tracks evaluated properties at compile time; `true` changes patternProperties.
    const ev: Evaluated = { props: undefined, items: undefined };
    const mergeName = (from: Node): void => {
      const sub = this.#evaluatedOf(from);
      if (ev.props !== true && sub.props !== undefined) ev.props = 'name';
      if (ev.items !== true && sub.items !== undefined) ev.items = 'name';
    };
    const mergeStatic = (from: Evaluated): void => {
      if (ev.props !== true && from.props !== undefined) ev.props = mergeEv(from.props, ev.props);
      if (ev.items !== true && from.items !== undefined) ev.items = mergeEv(from.items, ev.items);
    };

    // Keywords for any type, in ajv's order.
    const anySteps: Array<Step<unknown>> = [];
    if (typeof s['$ref'] === 'string' && s['$ref'] !== '') {
      const { step, evaluated, dynamic } = this.#ref(s, s['$ref'], at);
      anySteps.push(step);
      // A function still being compiled (recursion) or with run-time results merges as `name`.
      if (ev.props !== true) ev.props = dynamic || evaluated.props === 'name' ? 'name' : evaluated.props === undefined ? ev.props : mergeEv(evaluated.props, ev.props);
      if (ev.items !== true) ev.items = dynamic || evaluated.items === 'name' ? 'name' : evaluated.items === undefined ? ev.items : mergeEv(evaluated.items, ev.items);
    }
    if (has('const')) {
      const c = s['const'];
      const message = 'must be equal to constant';
      anySteps.push(c && typeof c === 'object' ? (d, cp) => equal(d, c) || report(message, cp) : (d, cp) => c === d || report(message, cp));
    }
    if (has('enum')) {
      const values = s['enum'] as readonly unknown[];
      if (values.length === 0) throw invalid('"enum" must have at least one value', at);
      const loop = values.length >= 200;
      anySteps.push((d, cp) => {
        for (const v of values) if (loop || (typeof v === 'object' && v !== null) ? equal(d, v) : d === v) return true;
        return report('must be equal to one of the allowed values', cp);
      });
    }
    if (has('not')) {
      const message = 'must NOT be valid';
      if (alwaysValid(s['not'] as Node)) {
        // ajv emits `if (false)` after this and drops the code of the keywords that follow in
        // the group, yet may still read variables that code declared (ReferenceError).
        if (['anyOf', 'oneOf', 'allOf', 'if'].some(has)) throw new Fallback(`"not" with an always-valid schema next to "anyOf"/"oneOf"/"allOf"/"if" (at ${at})`);
        anySteps.push((_d, cp) => report(message, cp));
      }
      else {
        const check = sub('not');
        anySteps.push((d, cp) => {
          const n = count();
          if (check(d, true)) return report(message, cp);
          resetTo(n);
          return true;
        });
      }
    }
    if (has('anyOf')) {
      const list = s['anyOf'] as readonly Node[];
      // Ajv2020 tries every branch (to record evaluated properties) unless nothing is left to record.
      const shortCircuit = ev.props === true && ev.items === true;
      const checks = list.map((b, i) => this.#sub(s, b, `${at}/anyOf/${i}`, SAME));
      list.forEach(mergeName);
      anySteps.push((d, cp) => {
        const n = count();
        let valid = false;
        for (const check of checks) {
          if (check(d, true)) {
            valid = true;
            if (shortCircuit) break;
          }
        }
        if (!valid) return reportExtra('must match a schema in anyOf', cp);
        resetTo(n);
        return true;
      });
    }
    if (has('oneOf')) {
      const list = s['oneOf'] as readonly Node[];
      const checks = list.map((b, i) => (alwaysValid(b) ? pass : this.#sub(s, b, `${at}/oneOf/${i}`, SAME)));
      list.forEach(mergeName);
      anySteps.push((d, cp) => {
        const n = count();
        let valid = false;
        for (const check of checks) {
          if (!check(d, true)) continue;
          if (valid) {
            valid = false; // a second match: ajv stops looking
            break;
          }
          valid = true;
        }
        if (!valid) return reportExtra('must match exactly one schema in oneOf', cp);
        resetTo(n);
        return true;
      });
    }
    if (has('allOf')) {
      const list = (s['allOf'] as readonly Node[]).map((b, i) => [b, i] as const).filter(([b]) => !alwaysValid(b));
      const checks = list.map(([b, i]) => {
        const check = this.#sub(s, b, `${at}/allOf/${i}`, SAME);
        mergeStatic(this.#evaluatedOf(b));
        return check;
      });
      anySteps.push((d, cp) => {
        for (const check of checks) if (!check(d, cp)) return false;
        return true;
      });
    }
    if (has('if')) {
      const hasThen = has('then') && !alwaysValid(s['then'] as Node);
      const hasElse = has('else') && !alwaysValid(s['else'] as Node);
      if (hasThen || hasElse) {
        const ifCheck = sub('if');
        mergeStatic(this.#evaluatedOf(s['if'] as Node));
        const thenCheck = hasThen ? sub('then') : undefined;
        if (hasThen) mergeName(s['then'] as Node);
        const elseCheck = hasElse ? sub('else') : undefined;
        if (hasElse) mergeName(s['else'] as Node);
        anySteps.push((d, cp) => {
          const n = count();
          const matched = ifCheck(d, true);
          resetTo(n);
          const clause = matched ? thenCheck : elseCheck;
          if (clause === undefined || clause(d, cp)) return true;
          if (returned) return false;
          return reportExtra(matched ? 'must match "then" schema' : 'must match "else" schema', cp);
        });
      }
    }

    // Numbers.
    const numberSteps: Array<Step<number>> = [];
    for (const [key, op] of [['maximum', '<='], ['minimum', '>='], ['exclusiveMaximum', '<'], ['exclusiveMinimum', '>']] as const) {
      if (!has(key)) continue;
      const limit = s[key] as number;
      const message = `must be ${op} ${limit}`;
      const fails =
        op === '<=' ? (d: number) => d > limit : op === '>=' ? (d: number) => d < limit : op === '<' ? (d: number) => d >= limit : (d: number) => d <= limit;
      numberSteps.push((d, cp) => !(fails(d) || isNaN(d)) || report(message, cp));
    }
    if (has('multipleOf')) {
      const m = s['multipleOf'] as number;
      const message = `must be multiple of ${m}`;
      numberSteps.push((d, cp) => {
        const res = d / m;
        return !(m === 0 || res !== parseInt(String(res))) || report(message, cp);
      });
    }

    // Strings.
    const stringSteps: Array<Step<string>> = [];
    if (has('maxLength')) {
      const n = s['maxLength'] as number;
      stringSteps.push((d, cp) => !(ucs2length(d) > n) || report(`must NOT have more than ${n} characters`, cp));
    }
    if (has('minLength')) {
      const n = s['minLength'] as number;
      stringSteps.push((d, cp) => !(ucs2length(d) < n) || report(`must NOT have fewer than ${n} characters`, cp));
    }
    if (has('pattern')) {
      const source = s['pattern'] as string;
      const re = regex(source, `${at}/pattern`);
      const message = `must match pattern "${source}"`;
      stringSteps.push((d, cp) => re.test(d) || report(message, cp));
    }

    // Arrays.
    const arraySteps: Array<Step<readonly unknown[]>> = [];
    if (has('maxItems')) {
      const n = s['maxItems'] as number;
      arraySteps.push((d, cp) => !(d.length > n) || report(`must NOT have more than ${n} items`, cp));
    }
    if (has('minItems')) {
      const n = s['minItems'] as number;
      arraySteps.push((d, cp) => !(d.length < n) || report(`must NOT have fewer than ${n} items`, cp));
    }
    const prefix = s['prefixItems'] as readonly Node[] | undefined;
    if (prefix !== undefined) {
      if (prefix.some((p) => !alwaysValid(p)) && (has('contains') || s['uniqueItems'] === true)) {
        throw new Fallback(`"prefixItems" with "contains" or "uniqueItems" (at ${at})`);
      }
      if (ev.items !== true) ev.items = mergeEv('static', ev.items);
      const checks = prefix.map((p, i) => (alwaysValid(p) ? undefined : this.#sub(s, p, `${at}/prefixItems/${i}`, SAME)));
      arraySteps.push((d, cp) => {
        let valid: boolean | undefined; // ajv's `var valid`: unset until an item is checked
        for (let i = 0; i < checks.length; i++) {
          const check = checks[i];
          if (check === undefined) continue;
          if (d.length > i) {
            path.push(i);
            valid = check(d[i], cp);
            path.pop();
          }
          if (!valid) return false;
        }
        return true;
      });
    }
    if (has('items')) ev.items = true;
    if (has('items') && !alwaysValid(s['items'] as Node)) {
      const items = s['items'] as Node;
      const start = prefix === undefined ? 0 : prefix.length;
      if (items === false && prefix !== undefined) {
        arraySteps.push((d, cp) => !(d.length > start) || report(`must NOT have more than ${start} items`, cp));
      } else {
        const check = sub('items', LOOP);
        arraySteps.push((d, cp) => {
          for (let i = start; i < d.length; i++) {
            path.push(i);
            const ok = check(d[i], cp);
            path.pop();
            if (!ok) return false;
          }
          return true;
        });
      }
    }
    if (has('contains')) {
      const { step, evaluatesItems } = this.#contains(s, at);
      if (step !== undefined) arraySteps.push(step);
      if (evaluatesItems) ev.items = true;
    }
    if (s['uniqueItems'] === true) arraySteps.push(this.#uniqueItems(s, at));

    // Objects.
    const objectSteps: Array<Step<Obj>> = [];
    for (const [key, more] of [['maxProperties', true], ['minProperties', false]] as const) {
      if (!has(key)) continue;
      const n = s[key] as number;
      const message = `must NOT have ${more ? 'more' : 'fewer'} than ${n} properties`;
      objectSteps.push(more ? (d, cp) => !(Object.keys(d).length > n) || report(message, cp) : (d, cp) => !(Object.keys(d).length < n) || report(message, cp));
    }
    const required = (s['required'] ?? []) as readonly string[];
    if (required.length > 0) {
      objectSteps.push((d, cp) => {
        for (let i = 0; i < required.length; i++) {
          const p = required[i] as string;
          if (d[p] === undefined) return report('is required', cp, p);
        }
        return true;
      });
    }
    if (has('propertyNames') && !alwaysValid(s['propertyNames'] as Node)) {
      const named = [...schemaProperties(s['properties']), ...Object.keys((s['dependentRequired'] ?? {}) as object), ...Object.keys((s['dependentSchemas'] ?? {}) as object)];
      if (named.some((p) => p in Object.prototype)) throw new Fallback(`"propertyNames" with a property named after an Object.prototype member (at ${at})`);
      const check = sub('propertyNames', LOOP);
      objectSteps.push((d, cp) => {
        let valid: boolean | undefined; // ajv's `var valid`: unset for an object without keys
        for (const key in d) {
          valid = check(key, true);
          if (!valid) return reportExtra('property name must be valid', cp);
        }
        return valid === true;
      });
    }
    let extra: { readonly isExtra: (key: string) => boolean; readonly check: Check | false } | undefined;
    if (has('additionalProperties')) {
      ev.props = true;
      if (!alwaysValid(s['additionalProperties'] as Node)) {
        extra = this.#additional(s, at);
        objectSteps.push(additionalStep(extra.isExtra, extra.check));
      }
    }
    const propertyNames = schemaProperties(s['properties']);
    const propertyKeys: string[] = [];
    const propertyChecks: Check[] = [];
    if (propertyNames.length > 0) {
      if (ev.props !== true) ev.props = mergeEv('static', ev.props);
      const map = s['properties'] as Obj;
      for (const p of propertyNames) {
        if (alwaysValid(map[p] as Node)) continue;
        propertyKeys.push(p);
        propertyChecks.push(this.#sub(s, map[p] as Node, `${at}/properties/${pointerSegment(p)}`, SAME));
      }
      if (propertyKeys.length > 0) objectSteps.push(propertiesStep(propertyKeys, propertyChecks));
    }
    const patterns = schemaProperties(s['patternProperties']);
    const patternMap = s['patternProperties'] as Obj;
    if (patterns.length > 0 && !(ev.props === true && patterns.every((p) => alwaysValid(patternMap[p] as Node)))) {
      const stopAtFirst = ev.props === true;
      // ajv then writes into its run-time record, which can be an unassigned variable (TypeError).
      if (ev.props === 'name') throw new Fallback(`"patternProperties" with run-time evaluated properties (at ${at})`);
      if (!stopAtFirst) ev.props = 'name';
      const entries = patterns.map((p) => {
        const re = regex(p, `${at}/patternProperties`);
        const sch = patternMap[p] as Node;
        return [re, alwaysValid(sch) ? undefined : this.#sub(s, sch, `${at}/patternProperties/${pointerSegment(p)}`, LOOP)] as const;
      });
      objectSteps.push((d, cp) => {
        for (const [re, check] of entries) {
          let valid = true;
          for (const key in d) {
            if (!re.test(key) || check === undefined) continue;
            path.push(key);
            valid = check(d[key], cp);
            path.pop();
            if (returned) return false;
            if (stopAtFirst && !valid) break;
          }
          if (!valid) return false;
        }
        return true;
      });
    }
    if (has('dependentRequired')) {
      const map = s['dependentRequired'] as Readonly<Record<string, readonly string[]>>;
      const entries: Array<readonly [string, readonly string[], string]> = [];
      for (const p in map) {
        const deps = map[p] as readonly string[];
        if (deps.length > 0) entries.push([p, deps, `must have ${deps.length === 1 ? 'property' : 'properties'} ${deps.join(', ')} when property ${p} is present`]);
      }
      objectSteps.push((d, cp) => {
        for (const [p, deps, message] of entries) {
          if (d[p] !== undefined) for (const dep of deps) if (d[dep] === undefined) return report(message, cp);
        }
        return true;
      });
    }
    if (has('dependentSchemas')) {
      const map = s['dependentSchemas'] as Obj;
      const entries: Array<readonly [string, Check]> = [];
      for (const p in map) {
        const sch = map[p] as Node;
        if (alwaysValid(sch)) continue;
        entries.push([p, this.#sub(s, sch, `${at}/dependentSchemas/${pointerSegment(p)}`, SAME)]);
        mergeName(sch);
      }
      objectSteps.push((d, cp) => {
        for (const [p, check] of entries) if (d[p] !== undefined && !check(d, cp)) return false;
        return true;
      });
    }

    this.#evaluated.set(s, ev);
    // The usual tool schema object: one closure instead of a group of steps.
    if (s['type'] === 'object' && s['nullable'] === undefined && Object.keys(s).every((k) => !isRule(k) || OBJECT_ONLY.has(k))) {
      const max = s['maxProperties'] as number | undefined;
      const min = s['minProperties'] as number | undefined;
      return objectNode(max, min, required, extra, propertyKeys, propertyChecks);
    }
    return assemble(
      s,
      types,
      [
        { keys: GROUPS.any, test: undefined, steps: anySteps },
        { keys: GROUPS.number, test: isNumber, steps: steps(numberSteps) },
        { keys: GROUPS.string, test: isString, steps: steps(stringSteps) },
        { keys: GROUPS.array, test: isArray, steps: steps(arraySteps) },
        { keys: GROUPS.object, test: isObject, steps: steps(objectSteps) },
      ].filter((g) => used(g.keys)),
    );
  }

  #contains(s: Obj, at: string): { step: Step<readonly unknown[]> | undefined; evaluatesItems: boolean } {
    const min = s['minContains'] === undefined ? 1 : (s['minContains'] as number);
    const max = s['maxContains'] as number | undefined;
    const message = max === undefined ? `must contain at least ${min} valid item(s)` : `must contain at least ${min} and no more than ${max} valid item(s)`;
    if (max === undefined && min === 0) return { step: undefined, evaluatesItems: false };
    if (max !== undefined && min > max) return { step: (_d, cp) => report(message, cp), evaluatesItems: false };
    const sch = s['contains'] as Node;
    if (alwaysValid(sch)) return { step: (d, cp) => (d.length >= min && (max === undefined || d.length <= max)) || report(message, cp), evaluatesItems: false };
    if (max === undefined && min === 1) this.#staleContains.add(s);
    const check = this.#sub(s, sch, `${at}/contains`, LOOP);
    return {
      evaluatesItems: true,
      step: (d, cp) => {
        const n = count();
        let valid = min === 0;
        let found = 0;
        for (let i = 0; i < d.length; i++) {
          path.push(i);
          const ok = check(d[i], true);
          path.pop();
          if (!ok) continue;
          found++;
          if (max === undefined) {
            if (found >= min) {
              valid = true;
              break;
            }
          } else {
            if (found > max) {
              valid = false;
              break;
            }
            if (found >= min) valid = true;
          }
        }
        if (!valid) return report(message, cp);
        resetTo(n);
        return true;
      },
    };
  }

  #uniqueItems(s: Obj, at: string): Step<readonly unknown[]> {
    const items = s['items'];
    const itemTypes = isObject(items) ? schemaTypes(items, `${at}/items`) : [];
    const message = (j: number, i: number): string => `must NOT have duplicate items (items ## ${j} and ${i} are identical)`;
    if (itemTypes.length > 0 && !itemTypes.some((t) => t === 'object' || t === 'array')) {
      const right = typesTest(itemTypes);
      const tag = itemTypes.length > 1;
      return (d, cp) => {
        let i = d.length;
        if (i > 1) {
          const indices: Record<string, unknown> = {};
          for (; i--; ) {
            let item = d[i];
            if (!right(item)) continue;
            if (tag && typeof item === 'string') item += '_';
            const key = String(item);
            const j = indices[key];
            if (typeof j === 'number') return report(message(j, i), cp);
            indices[key] = i;
          }
        }
        return true;
      };
    }
    return (d, cp) => {
      for (let i = d.length; i--; ) for (let j = i; j--; ) if (equal(d[i], d[j])) return report(message(j, i), cp);
      return true;
    };
  }

  #additional(s: Obj, at: string): { readonly isExtra: (key: string) => boolean; readonly check: Check | false } {
    const names = schemaProperties(s['properties']);
    const map = s['properties'];
    const patterns = schemaProperties(s['patternProperties']).map((p) => regex(p, `${at}/patternProperties`));
    const known =
      names.length > 8 ? (k: string) => Object.prototype.hasOwnProperty.call(map, k) : names.length > 0 ? (k: string) => names.includes(k) : () => false;
    const isExtra = names.length === 0 && patterns.length === 0 ? () => true : (k: string) => !(known(k) || patterns.some((re) => re.test(k)));
    const extra = s['additionalProperties'] as Node;
    return { isExtra, check: extra === false ? false : this.#sub(s, extra, `${at}/additionalProperties`, LOOP) };
  }
}

function hasRef(schema: unknown): boolean {
  for (const key in schema as object) {
    if (key === '$ref' || key === '$recursiveRef' || key === '$recursiveAnchor' || key === '$dynamicRef' || key === '$dynamicAnchor') return true;
    const sch = (schema as Record<string, unknown>)[key];
    if (Array.isArray(sch) && sch.some(hasRef)) return true;
    if (typeof sch === 'object' && hasRef(sch)) return true;
  }
  return false;
}

function additionalStep(isExtra: (key: string) => boolean, check: Check | false): Step<Obj> {
  if (check === false) {
    return (d, cp) => {
      for (const key in d) if (isExtra(key)) return report('is not allowed here', cp, key);
      return true;
    };
  }
  return (d, cp) => {
    for (const key in d) {
      if (!isExtra(key)) continue;
      path.push(key);
      const ok = check(d[key], cp);
      path.pop();
      if (!ok) return false;
    }
    return true;
  };
}

function propertiesStep(keys: readonly string[], checks: readonly Check[]): Step<Obj> {
  const kinds = checks.map((c) => PRIMITIVE.get(c) ?? 0);
  return (d, cp) => {
    for (let i = 0; i < keys.length; i++) {
      const p = keys[i] as string;
      const v = d[p];
      if (v === undefined || passesInline(kinds[i] as number, v)) continue;
      path.push(p);
      const ok = (checks[i] as Check)(v, cp);
      path.pop();
      if (!ok) return false;
    }
    return true;
  };
}

const OBJECT_ONLY = new Set(['type', 'properties', 'required', 'additionalProperties', 'maxProperties', 'minProperties', '$comment']);

/**
 * `{ type: "object" }` with only `properties`, `required`, `additionalProperties`,
 * `minProperties`, `maxProperties`: the same checks as the object keyword group, in one closure.
 */
function objectNode(
  max: number | undefined,
  min: number | undefined,
  required: readonly string[],
  extra: { readonly isExtra: (key: string) => boolean; readonly check: Check | false } | undefined,
  keys: readonly string[],
  checks: readonly Check[],
): Check {
  const additional = extra === undefined ? undefined : additionalStep(extra.isExtra, extra.check);
  const properties = propertiesStep(keys, checks);
  const kinds = checks.map((c) => PRIMITIVE.get(c) ?? 0);
  const maxMessage = `must NOT have more than ${max} properties`;
  const minMessage = `must NOT have fewer than ${min} properties`;
  const ordered: Check = (d, cp) => {
    if (typeof d !== 'object' || d === null || Array.isArray(d)) return report('must be object', cp);
    const o = d as Obj;
    if (max !== undefined && Object.keys(o).length > max) return report(maxMessage, cp);
    if (min !== undefined && Object.keys(o).length < min) return report(minMessage, cp);
    for (let i = 0; i < required.length; i++) {
      const p = required[i] as string;
      if (o[p] === undefined) return report('is required', cp, p);
    }
    if (additional !== undefined && !additional(o, cp)) return false;
    return properties(o, cp);
  };
  if ((extra !== undefined && extra.check !== false) || max !== undefined || min !== undefined || kinds.includes(0)) return ordered;
  // Flat objects of primitives: one read per property; anything unusual is redone in order.
  const requiredHere = keys.map((k) => required.includes(k));
  const requiredElsewhere = required.filter((r) => !keys.includes(r));
  const isExtra = extra?.isExtra;
  return (d, cp) => {
    if (typeof d !== 'object' || d === null || Array.isArray(d)) return report('must be object', cp);
    const o = d as Obj;
    for (let i = 0; i < requiredElsewhere.length; i++) if (o[requiredElsewhere[i] as string] === undefined) return ordered(d, cp);
    if (isExtra !== undefined) for (const key in o) if (isExtra(key)) return ordered(d, cp);
    for (let i = 0; i < keys.length; i++) {
      const v = o[keys[i] as string];
      if (v === undefined ? requiredHere[i] : !passesInline(kinds[i] as number, v)) return ordered(d, cp);
    }
    return true;
  };
}

/** A keyword group of ajv (RULES.rules): its keywords, its data type test and its steps. */
interface Group {
  readonly keys: readonly string[];
  readonly test: ((d: unknown) => boolean) | undefined;
  readonly steps: ReadonlyArray<Step<unknown>>;
}

/** Steps typed for a group's data type, run only after the group's type test passed. */
function steps<D>(list: Array<Step<D>>): ReadonlyArray<Step<unknown>> {
  return list as unknown as ReadonlyArray<Step<unknown>>;
}

/**
 * Checks of schemas that only have one primitive `type`, by kind, so that a parent can test
 * the type inline and call the check only to report the error.
 */
const PRIMITIVE = new WeakMap<Check, number>();
const STRING = 1;
const NUMBER = 2;
const BOOLEAN = 3;
const INTEGER = 4;

function primitive(kind: number, check: Check): Check {
  PRIMITIVE.set(check, kind);
  return check;
}

/** Whether `v` passes the inline type test of a primitive check (0: there is none). */
function passesInline(kind: number, v: unknown): boolean {
  switch (kind) {
    case STRING:
      return typeof v === 'string';
    case NUMBER:
      return typeof v === 'number';
    case BOOLEAN:
      return typeof v === 'boolean';
    case INTEGER:
      return typeof v === 'number' && !(v % 1) && !isNaN(v);
    default:
      return false;
  }
}

/** A schema that only has `type`. */
function typeOnly(types: readonly string[], message: string): Check {
  switch (types.length === 1 ? types[0] : '') {
    case 'string':
      return primitive(STRING, (d, cp) => typeof d === 'string' || report(message, cp));
    case 'number':
      return primitive(NUMBER, (d, cp) => typeof d === 'number' || report(message, cp));
    case 'boolean':
      return primitive(BOOLEAN, (d, cp) => typeof d === 'boolean' || report(message, cp));
    case 'integer':
      return primitive(INTEGER, (d, cp) => (typeof d === 'number' && !(d % 1) && !isNaN(d)) || report(message, cp));
    default: {
      const ok = typesTest(types);
      return (d, cp) => ok(d) || report(message, cp);
    }
  }
}

/** Runs steps in order until one says stop (ajv nests each keyword in the previous one's `if`). */
function sequence(list: ReadonlyArray<Step<unknown>>): Step<unknown> | undefined {
  const [first, second, third] = list;
  if (first === undefined) return undefined;
  if (second === undefined) return first;
  if (third === undefined) return (d, cp) => first(d, cp) && second(d, cp);
  return (d, cp) => {
    for (const step of list) if (!step(d, cp)) return false;
    return true;
  };
}

/**
 * The check for one schema object: ajv's type check (up front, or deferred into the keyword
 * group of a single type that has keywords), then each keyword group in order, stopping after
 * the first group that added an error. A group whose keywords generate no code only matters
 * as the stop after an up-front type error, which the `any` group (holding `type`) provides.
 */
function assemble(s: Obj, types: readonly string[], groups: readonly Group[]): Check {
  const single = types.length === 1 ? (types[0] as string) : '';
  const deferredKeys = groups.find((g) => g.keys === (GROUPS as Record<string, readonly string[]>)[single])?.keys;
  const typeMessage = `must be ${String(s['type'])}`;
  const typeOk = types.length > 0 && deferredKeys === undefined ? typesTest(types) : undefined;
  const anySteps = sequence(groups.find((g) => g.test === undefined)?.steps ?? []);
  const typed = groups
    .filter((g) => g.test !== undefined && (g.keys === deferredKeys || g.steps.length > 0))
    .map((g) => ({ test: g.test as (d: unknown) => boolean, deferred: g.keys === deferredKeys, steps: sequence(g.steps) }));
  const [only] = typed;
  if (typed.length === 0) {
    if (typeOk === undefined) {
      if (anySteps === undefined) return pass;
      return (d, cp) => {
        const start = count();
        anySteps(d, cp);
        return count() === start;
      };
    }
    if (anySteps === undefined) return typeOnly(types, typeMessage);
  } else if (typed.length === 1 && only !== undefined && typeOk === undefined && anySteps === undefined) {
    const { test, deferred } = only;
    const body = only.steps ?? pass;
    return (d, cp) => {
      if (!test(d)) return deferred ? report(typeMessage, cp) : true;
      const start = count();
      body(d, cp);
      return count() === start;
    };
  }
  return (d, cp) => {
    const start = count();
    if (typeOk !== undefined && !typeOk(d)) {
      report(typeMessage, cp);
      // Inside a composite keyword ajv still runs the `any` group after a type error.
      if (cp && anySteps !== undefined) anySteps(d, cp);
      return false;
    }
    if (anySteps !== undefined) {
      anySteps(d, cp);
      if (count() !== start) return false;
    }
    for (const group of typed) {
      if (group.test(d)) {
        if (group.steps !== undefined) group.steps(d, cp);
      } else if (group.deferred) {
        return report(typeMessage, cp);
      }
      if (count() !== start) return false;
    }
    return true;
  };
}

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
