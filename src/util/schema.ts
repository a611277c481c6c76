/**
 * A small, allocation-light schema library for wire shapes.
 *
 * Every MCP wire shape is written once as a schema built from these combinators, and its
 * TypeScript type is inferred from it with {@link Infer}. Validation never copies or
 * transforms the value: a valid value is returned as-is, so decoding a message costs one
 * walk over the parts the schema names. Objects are open by default (unknown keys pass
 * through untouched, as MCP requires for forward compatibility); `strict: true` closes one.
 *
 * @module
 */

/** One step of a path into a value: an object key or an array index. */
export type PathSegment = string | number;

/** A single validation failure, located by its path from the validated root. */
export interface Issue {
  readonly path: readonly PathSegment[];
  readonly message: string;
}

/** Per-call validation state. Reused across a whole walk to avoid allocation. */
interface Ctx {
  readonly path: PathSegment[];
  readonly issues: Issue[];
  /** Stop after this many issues. */
  readonly maxIssues: number;
}

/**
 * A schema for values of type `T`. `check` reports whether the value conforms and appends
 * issues to `ctx`; it never mutates the value.
 */
export interface Schema<T> {
  /** Phantom member carrying the inferred type; never set at run time. */
  readonly _type?: T;
  /** A short name for error messages, e.g. `string` or `object`. */
  readonly expected: string;
  /** @internal */
  check(value: unknown, ctx: Ctx): boolean;
}

/** A schema marked as an optional object member (see {@link optional}). */
export interface OptionalSchema<T> extends Schema<T> {
  readonly isOptional: true;
  readonly inner: Schema<T>;
}

/** The type a schema describes. */
export type Infer<S> = S extends Schema<infer T> ? T : never;

/** The members of an object schema. */
export type Shape = Readonly<Record<string, Schema<unknown>>>;

type Simplify<T> = { [K in keyof T]: T[K] } & {};
type RequiredKeys<S extends Shape> = { [K in keyof S]: S[K] extends OptionalSchema<unknown> ? never : K }[keyof S];
type OptionalKeys<S extends Shape> = { [K in keyof S]: S[K] extends OptionalSchema<unknown> ? K : never }[keyof S];

/** The object type an object {@link Shape} describes. */
export type InferShape<S extends Shape> = Simplify<
  { [K in RequiredKeys<S>]: Infer<S[K]> } & { [K in OptionalKeys<S>]?: Infer<S[K]> }
>;

/** An object schema; its shape stays reachable so revisions can extend it. */
export interface ObjectSchema<S extends Shape> extends Schema<InferShape<S>> {
  readonly shape: S;
  readonly strict: boolean;
}

function fail(ctx: Ctx, message: string): false {
  if (ctx.issues.length < ctx.maxIssues) ctx.issues.push({ path: ctx.path.slice(), message });
  return false;
}

function describe(value: unknown): string {
  if (value === null) return 'null';
  if (Array.isArray(value)) return 'array';
  return typeof value;
}

function mismatch(ctx: Ctx, expected: string, value: unknown): false {
  return fail(ctx, `expected ${expected}, got ${describe(value)}`);
}

/** Options for {@link string}. */
export interface StringOptions {
  readonly minLength?: number;
  readonly maxLength?: number;
  readonly pattern?: RegExp;
  /** Replaces the default message when `pattern` does not match. */
  readonly patternMessage?: string;
}

/** Any string, optionally bounded in length (UTF-16 code units) or matched by a pattern. */
export function string(options: StringOptions = {}): Schema<string> {
  const { minLength, maxLength, pattern, patternMessage } = options;
  return {
    expected: 'string',
    check(value, ctx) {
      if (typeof value !== 'string') return mismatch(ctx, 'string', value);
      if (minLength !== undefined && value.length < minLength) return fail(ctx, `must be at least ${minLength} characters`);
      if (maxLength !== undefined && value.length > maxLength) return fail(ctx, `must be at most ${maxLength} characters`);
      if (pattern !== undefined && !pattern.test(value)) return fail(ctx, patternMessage ?? `must match ${String(pattern)}`);
      return true;
    },
  };
}

/** Options for {@link number} and {@link integer}. */
export interface NumberOptions {
  readonly minimum?: number;
  readonly maximum?: number;
}

function numeric(name: string, isInt: boolean, options: NumberOptions): Schema<number> {
  const { minimum, maximum } = options;
  return {
    expected: name,
    check(value, ctx) {
      if (typeof value !== 'number' || !Number.isFinite(value)) return mismatch(ctx, name, value);
      if (isInt && !Number.isInteger(value)) return fail(ctx, 'expected integer, got a fractional number');
      if (minimum !== undefined && value < minimum) return fail(ctx, `must be >= ${minimum}`);
      if (maximum !== undefined && value > maximum) return fail(ctx, `must be <= ${maximum}`);
      return true;
    },
  };
}

/** A finite JSON number. */
export function number(options: NumberOptions = {}): Schema<number> {
  return numeric('number', false, options);
}

/** A finite JSON number with no fractional part. */
export function integer(options: NumberOptions = {}): Schema<number> {
  return numeric('integer', true, options);
}

const booleanSchema: Schema<boolean> = {
  expected: 'boolean',
  check: (value, ctx) => typeof value === 'boolean' || mismatch(ctx, 'boolean', value),
};

/** `true` or `false`. */
export function boolean(): Schema<boolean> {
  return booleanSchema;
}

const unknownSchema: Schema<unknown> = { expected: 'any value', check: () => true };

/** Any value at all (still JSON, since it came from JSON). */
export function unknown(): Schema<unknown> {
  return unknownSchema;
}

/** Exactly the given primitive value. */
export function literal<const T extends string | number | boolean | null>(expected: T): Schema<T> {
  const label = JSON.stringify(expected);
  return {
    expected: label,
    check: (value, ctx) => value === expected || fail(ctx, `expected ${label}, got ${value === null ? 'null' : JSON.stringify(value) ?? describe(value)}`),
  };
}

/** One of the given string (or number) values. */
export function enumeration<const T extends readonly (string | number)[]>(values: T): Schema<T[number]> {
  const set = new Set<unknown>(values);
  const label = values.map((v) => JSON.stringify(v)).join(' | ');
  return {
    expected: label,
    check: (value, ctx) => set.has(value) || fail(ctx, `expected one of ${label}`),
  };
}

/** Options for {@link array}. */
export interface ArrayOptions {
  readonly minItems?: number;
  readonly maxItems?: number;
}

/** An array whose every item matches `item`. */
export function array<T>(item: Schema<T>, options: ArrayOptions = {}): Schema<T[]> {
  const { minItems, maxItems } = options;
  const checkItem = item.check; // read once (see `object`)
  return {
    expected: 'array',
    check(value, ctx) {
      if (!Array.isArray(value)) return mismatch(ctx, 'array', value);
      if (minItems !== undefined && value.length < minItems) return fail(ctx, `must have at least ${minItems} items`);
      if (maxItems !== undefined && value.length > maxItems) return fail(ctx, `must have at most ${maxItems} items`);
      let ok = true;
      for (let i = 0; i < value.length; i++) {
        ctx.path.push(i);
        const good = checkItem.call(item, value[i], ctx);
        ctx.path.pop();
        if (!good) {
          ok = false;
          if (ctx.issues.length >= ctx.maxIssues) break;
        }
      }
      return ok;
    },
  };
}

/** Marks an object member as optional: absent is fine; present must match `inner`. */
export function optional<T>(inner: Schema<T>): OptionalSchema<T> {
  const check = inner.check; // read once (see `object`)
  return { expected: inner.expected, isOptional: true, inner, check: (value, ctx) => check.call(inner, value, ctx) };
}

function isPlainObject(value: unknown): value is Record<string, unknown> {
  return typeof value === 'object' && value !== null && !Array.isArray(value);
}

/** Options for {@link object}. */
export interface ObjectOptions {
  /** Reject keys the shape does not name. Default: false (MCP objects are open). */
  readonly strict?: boolean;
}

/**
 * A JSON object with the given members. Members not in the shape are allowed and
 * passed through unless `strict` is set.
 */
export function object<const S extends Shape>(shape: S, options: ObjectOptions = {}): ObjectSchema<S> {
  // Each member's `check` is read here, once: read in the loop, from schemas of every kind, the
  // load went megamorphic (V8's stub cache, and its misses, on every member of every message).
  const entries = Object.entries(shape).map(([key, schema]) => ({
    key,
    schema,
    check: schema.check,
    isOptional: (schema as Partial<OptionalSchema<unknown>>).isOptional === true,
  }));
  const strict = options.strict === true;
  return {
    expected: 'object',
    shape,
    strict,
    check(value, ctx) {
      if (!isPlainObject(value)) return mismatch(ctx, 'object', value);
      let ok = true;
      for (const { key, schema, check, isOptional } of entries) {
        const member = value[key];
        if (member === undefined) {
          // JSON has no `undefined`: an absent member and one set to undefined are the same.
          if (isOptional) continue;
          ctx.path.push(key);
          fail(ctx, 'is required');
          ctx.path.pop();
          ok = false;
          if (ctx.issues.length >= ctx.maxIssues) return false;
          continue;
        }
        ctx.path.push(key);
        const good = check.call(schema, member, ctx);
        ctx.path.pop();
        if (!good) {
          ok = false;
          if (ctx.issues.length >= ctx.maxIssues) return false;
        }
      }
      if (strict) {
        for (const key in value) {
          if (!Object.hasOwn(shape, key)) {
            ctx.path.push(key);
            fail(ctx, 'is not allowed here');
            ctx.path.pop();
            ok = false;
          }
        }
      }
      return ok;
    },
  };
}

/** A new object schema with the members of `base` plus (or replaced by) `extra`. */
export function extend<const B extends Shape, const E extends Shape>(
  base: ObjectSchema<B>,
  extra: E,
  options: ObjectOptions = {},
): ObjectSchema<Simplify<Omit<B, keyof E> & E>> {
  return object({ ...base.shape, ...extra } as Simplify<Omit<B, keyof E> & E>, { strict: options.strict ?? base.strict });
}

/** A new object schema without the named members. */
export function omit<const B extends Shape, const K extends keyof B & string>(
  base: ObjectSchema<B>,
  keys: readonly K[],
): ObjectSchema<Simplify<Omit<B, K>>> {
  const copy: Record<string, Schema<unknown>> = { ...base.shape };
  for (const key of keys) delete copy[key];
  return object(copy as Simplify<Omit<B, K>>, { strict: base.strict });
}

/** An object used as a map: every own value matches `value`, every key matches `key`. */
export function record<T>(value: Schema<T>, key?: Schema<string>): Schema<Record<string, T>> {
  const checkValue = value.check; // read once (see `object`)
  return {
    expected: 'object',
    check(input, ctx) {
      if (!isPlainObject(input)) return mismatch(ctx, 'object', input);
      let ok = true;
      for (const k in input) {
        if (!Object.hasOwn(input, k)) continue;
        ctx.path.push(k);
        const good = (key === undefined || key.check(k, ctx)) && checkValue.call(value, input[k], ctx);
        ctx.path.pop();
        if (!good) {
          ok = false;
          if (ctx.issues.length >= ctx.maxIssues) return false;
        }
      }
      return ok;
    },
  };
}

/** `T` or `null`. */
export function nullable<T>(inner: Schema<T>): Schema<T | null> {
  const check = inner.check; // read once (see `object`)
  return { expected: `${inner.expected} | null`, check: (value, ctx) => value === null || check.call(inner, value, ctx) };
}

/**
 * The first matching alternative wins. On failure the issue names every alternative, or,
 * when exactly one alternative is an object and the value is one, that alternative's issues.
 */
export function union<const S extends readonly Schema<unknown>[]>(alternatives: S): Schema<Infer<S[number]>> {
  const label = alternatives.map((a) => a.expected).join(' | ');
  return {
    expected: label,
    check(value, ctx) {
      for (const alt of alternatives) {
        const probe: Ctx = { path: ctx.path, issues: [], maxIssues: 1 };
        if (alt.check(value, probe)) return true;
      }
      return fail(ctx, `expected ${label}, got ${describe(value)}`);
    },
  };
}

/**
 * A union of object schemas told apart by the value of one member (e.g. content blocks by
 * `type`). Faster and with better messages than {@link union}.
 */
export function discriminated<const K extends string, const M extends Readonly<Record<string, Schema<unknown>>>>(
  key: K,
  variants: M,
): Schema<Infer<M[keyof M]>> {
  const table = new Map<unknown, Schema<unknown>>(Object.entries(variants));
  const label = Object.keys(variants).map((v) => JSON.stringify(v)).join(' | ');
  return {
    expected: 'object',
    check(value, ctx) {
      if (!isPlainObject(value)) return mismatch(ctx, 'object', value);
      const tag = value[key];
      const variant = table.get(tag);
      if (variant === undefined) {
        ctx.path.push(key);
        fail(ctx, `expected one of ${label}`);
        ctx.path.pop();
        return false;
      }
      return variant.check(value, ctx);
    },
  };
}

/** A schema defined later, for recursive shapes. Annotate the variable's type. */
export function lazy<T>(get: () => Schema<T>): Schema<T> {
  let cached: Schema<T> | undefined;
  return {
    expected: 'value',
    check: (value, ctx) => (cached ??= get()).check(value, ctx),
  };
}

/** Adds a predicate on top of a schema; `message` is reported when it returns false. */
export function refine<T>(inner: Schema<T>, predicate: (value: T) => boolean, message: string): Schema<T> {
  const check = inner.check; // read once (see `object`)
  return {
    expected: inner.expected,
    check: (value, ctx) => check.call(inner, value, ctx) && (predicate(value as T) || fail(ctx, message)),
  };
}

/** The outcome of {@link validate}. */
export type ValidationResult<T> = { readonly ok: true; readonly value: T } | { readonly ok: false; readonly issues: readonly Issue[] };

/** Options for {@link validate}. */
export interface ValidateOptions {
  /** Stop collecting after this many issues. Default 10. */
  readonly maxIssues?: number;
  /** Prefix every issue path with these segments (e.g. `['params']`). */
  readonly path?: readonly PathSegment[];
}

/** Checks `value` against `schema`. The value is returned untouched when it conforms. */
export function validate<T>(schema: Schema<T>, value: unknown, options: ValidateOptions = {}): ValidationResult<T> {
  const ctx: Ctx = { path: options.path ? [...options.path] : [], issues: [], maxIssues: options.maxIssues ?? 10 };
  if (schema.check(value, ctx)) return { ok: true, value: value as T };
  return { ok: false, issues: ctx.issues };
}

/** True when `value` conforms to `schema` (a type guard). */
export function is<T>(schema: Schema<T>, value: unknown): value is T {
  return schema.check(value, { path: [], issues: [], maxIssues: 0 });
}

/** Formats a path as `a.b[0].c`. */
export function formatPath(path: readonly PathSegment[]): string {
  let out = '';
  for (const seg of path) {
    if (typeof seg === 'number') out += `[${seg}]`;
    else if (/^[A-Za-z_$][\w$]*$/.test(seg)) out += out === '' ? seg : `.${seg}`;
    else out += `[${JSON.stringify(seg)}]`;
  }
  return out;
}

/** One line per issue: `path: message` (the path is omitted at the root). */
export function formatIssues(issues: readonly Issue[]): string {
  return issues.map((i) => (i.path.length > 0 ? `${formatPath(i.path)}: ${i.message}` : i.message)).join('; ');
}
