import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { Ajv2020, type ErrorObject, type ValidateFunction } from 'ajv/dist/2020.js';
import addFormatsModule from 'ajv-formats';
import fc from 'fast-check';
import { ANNOTATION_KEYWORDS, FALLBACK_KEYWORDS, SUPPORTED_KEYWORDS, compileBuiltin } from '../../../src/protocol/builtinSchema.js';
import { McpError, McpErrorCode } from '../../../src/util/errors.js';
import type { Issue, ValidationResult } from '../../../src/util/schema.js';

type Schema = Record<string, unknown> | boolean;

// The oracle: ajv configured exactly as src/protocol/jsonSchema.ts configures it.
const addFormats = ((addFormatsModule as unknown as { default?: unknown }).default ?? addFormatsModule) as unknown as (ajv: Ajv2020) => Ajv2020;
const ajv = addFormats(new Ajv2020({ strict: false, allErrors: false, addUsedSchema: false, validateSchema: true, code: { optimize: true } }));

const json = <T>(value: T): T => JSON.parse(JSON.stringify(value)) as T;

/** ajv's errors as jsonSchema.ts maps them, with every path segment written as a string. */
function fromAjv(errors: readonly ErrorObject[]): string[] {
  return errors.map((e) => {
    const path = e.instancePath === '' ? [] : e.instancePath.slice(1).split('/').map((s) => s.replace(/~1/g, '/').replace(/~0/g, '~'));
    const params = e.params as Record<string, unknown>;
    if (e.keyword === 'required') return `${[...path, String(params['missingProperty'])].join('/')}: is required`;
    if (e.keyword === 'additionalProperties') return `${[...path, String(params['additionalProperty'])].join('/')}: is not allowed here`;
    return `${path.join('/')}: ${e.message ?? ''}`;
  });
}

function fromBuiltin(issues: readonly Issue[]): string[] {
  return issues.map((i) => `${i.path.join('/')}: ${i.message}`);
}

function ajvCompile(schema: Schema): ValidateFunction | Error {
  try {
    return ajv.compile(json(schema) as Record<string, unknown>);
  } catch (error) {
    return error as Error;
  }
}

function builtinCompile(schema: Schema): ReturnType<typeof compileBuiltin> | Error {
  try {
    return compileBuiltin(schema);
  } catch (error) {
    return error as Error;
  }
}

/** Validates with both; asserts they agree on validity and on every issue; returns the issues. */
function agree(schema: Schema, value: unknown): readonly Issue[] {
  const compiled = builtinCompile(schema);
  assert.ok(!(compiled instanceof Error), `built-in refused ${JSON.stringify(schema)}: ${String(compiled)}`);
  assert.equal(compiled.kind, 'builtin', `${JSON.stringify(schema)} fell back to ajv`);
  if (compiled.kind !== 'builtin') return [];
  const fn = ajvCompile(schema);
  assert.ok(!(fn instanceof Error), `ajv refused ${JSON.stringify(schema)}: ${String(fn)}`);
  const expected = fn(value);
  const result = compiled.validate(value);
  const issues = result.ok ? [] : result.issues;
  const where = `${JSON.stringify(schema)} on ${JSON.stringify(value)}`;
  assert.equal(result.ok, expected, where);
  assert.deepEqual(fromBuiltin(issues), fromAjv(fn.errors ?? []), where);
  return issues;
}

/** Asserts the value is valid, under both validators. */
function accepts(schema: Schema, ...values: unknown[]): void {
  for (const value of values) assert.deepEqual(agree(schema, value), [], JSON.stringify(value));
}

/** Asserts the issues for an invalid value (path and message), under both validators. */
function rejects(schema: Schema, value: unknown, ...expected: Array<[path: Array<string | number>, message: string]>): void {
  const issues = agree(schema, value);
  assert.deepEqual(
    issues.map((i) => [i.path, i.message]),
    expected,
    JSON.stringify(value),
  );
}

/** Asserts the built-in compiler refuses exactly when ajv does (and how it refuses). */
function sameVerdict(schema: Schema): boolean {
  const fn = ajvCompile(schema);
  const compiled = builtinCompile(schema);
  const where = JSON.stringify(schema);
  if (!(compiled instanceof Error) && compiled.kind === 'fallback') return !(fn instanceof Error);
  assert.equal(compiled instanceof Error, fn instanceof Error, `${where}: ajv ${fn instanceof Error ? `refuses (${fn.message})` : 'accepts'}`);
  if (compiled instanceof Error) {
    assert.ok(compiled instanceof McpError, where);
    assert.equal(compiled.code, McpErrorCode.InvalidArgument, where);
    assert.match(compiled.message, /^invalid JSON Schema: /, where);
  }
  return !(compiled instanceof Error);
}

describe('protocol/builtinSchema: keywords, checked against ajv', () => {
  it('type: single names, arrays of names, integer accepts 1.0, nullable adds null', () => {
    accepts({ type: 'string' }, '', 'x');
    rejects({ type: 'string' }, 5, [[], 'must be string']);
    accepts({ type: 'integer' }, 1, json(1.0), -3);
    rejects({ type: 'integer' }, 1.5, [[], 'must be integer']);
    accepts({ type: 'number' }, 1.5, 0);
    rejects({ type: 'object' }, [], [[], 'must be object']);
    rejects({ type: 'array' }, {}, [[], 'must be array']);
    accepts({ type: ['string', 'null'] }, null, 'x');
    rejects({ type: ['string', 'null'] }, 1, [[], 'must be string,null']);
    accepts({ type: 'string', nullable: true }, null, 'x');
    rejects({ type: 'string', nullable: true }, 1, [[], 'must be string']);
  });

  it('enum and const compare deeply, ignoring key order', () => {
    accepts({ enum: [1, 'a', null, { a: 1, b: [1, 2] }] }, { b: [1, 2], a: 1 }, null, 'a');
    rejects({ enum: [{ a: 1, b: [1, 2] }] }, { a: 1, b: [2, 1] }, [[], 'must be equal to one of the allowed values']);
    rejects({ enum: [1] }, '1', [[], 'must be equal to one of the allowed values']);
    accepts({ const: { x: [null, { y: 1 }] } }, { x: [null, { y: 1 }] });
    rejects({ const: { x: 1 } }, { x: 1, y: 2 }, [[], 'must be equal to constant']);
    rejects({ const: null }, 0, [[], 'must be equal to constant']);
  });

  it('numeric limits and multipleOf (with ajv float arithmetic)', () => {
    accepts({ minimum: 1, maximum: 3 }, 1, 3, 'not a number');
    rejects({ minimum: 1 }, 0, [[], 'must be >= 1']);
    rejects({ maximum: 3 }, 4, [[], 'must be <= 3']);
    rejects({ exclusiveMinimum: 1 }, 1, [[], 'must be > 1']);
    rejects({ exclusiveMaximum: 3 }, 3, [[], 'must be < 3']);
    accepts({ multipleOf: 0.5 }, 1.5, 2);
    rejects({ multipleOf: 2 }, 3, [[], 'must be multiple of 2']);
    rejects({ multipleOf: 0.1 }, 0.3, [[], 'must be multiple of 0.1']); // 0.3 / 0.1 = 2.9999999999999996
  });

  it('string lengths count code points; pattern is a unicode RegExp', () => {
    accepts({ maxLength: 2 }, '😀😀', 'ab');
    rejects({ minLength: 3 }, '😀😀', [[], 'must NOT have fewer than 3 characters']);
    rejects({ maxLength: 1 }, 'ab', [[], 'must NOT have more than 1 characters']);
    accepts({ pattern: '^\\p{L}+$' }, 'été');
    rejects({ pattern: '^a' }, 'ba', [[], 'must match pattern "^a"']);
  });

  it('arrays: prefixItems then items, counts, contains bounds, uniqueItems deep', () => {
    const tuple = { prefixItems: [{ type: 'string' }], items: { type: 'number' } };
    accepts(tuple, ['a'], ['a', 1, 2], []);
    rejects(tuple, ['a', 'b'], [[1], 'must be number']);
    rejects(tuple, [1], [[0], 'must be string']);
    rejects({ prefixItems: [true], items: false }, [1, 2], [[], 'must NOT have more than 1 items']);
    rejects({ items: false }, [1], [[0], 'boolean schema is false']);
    rejects({ minItems: 2 }, [1], [[], 'must NOT have fewer than 2 items']);
    rejects({ maxItems: 1 }, [1, 2], [[], 'must NOT have more than 1 items']);
    accepts({ contains: { type: 'number' } }, ['a', 1]);
    rejects({ contains: { type: 'number' } }, ['a'], [[], 'must contain at least 1 valid item(s)']);
    rejects({ contains: { type: 'number' }, minContains: 2 }, [1, 'a'], [[], 'must contain at least 2 valid item(s)']);
    rejects({ contains: { type: 'number' }, maxContains: 2 }, [1, 2, 3], [[], 'must contain at least 1 and no more than 2 valid item(s)']);
    accepts({ contains: { type: 'number' }, minContains: 0 }, ['a']);
    rejects({ uniqueItems: true }, [{ a: 1, b: 2 }, { b: 2, a: 1 }], [[], 'must NOT have duplicate items (items ## 0 and 1 are identical)']);
    rejects({ uniqueItems: true, items: { type: 'number' } }, [1, 2, 1, 2], [[], 'must NOT have duplicate items (items ## 3 and 1 are identical)']);
  });

  it('objects: required and additionalProperties extend the path with the property', () => {
    const schema = { type: 'object', properties: { a: { type: 'object', properties: { b: { type: 'array', items: { type: 'string' } } } } }, required: ['a'] };
    accepts(schema, { a: { b: ['x'] } });
    rejects(schema, {}, [['a'], 'is required']);
    rejects(schema, { a: { b: [1] } }, [['a', 'b', 0], 'must be string']);
    rejects({ properties: { a: true }, additionalProperties: false }, { a: 1, b: 2 }, [['b'], 'is not allowed here']);
    rejects({ minProperties: 1 }, {}, [[], 'must NOT have fewer than 1 properties']);
    rejects({ maxProperties: 1 }, { a: 1, b: 2 }, [[], 'must NOT have more than 1 properties']);
  });

  it('patternProperties and additionalProperties: a key matching a pattern is not additional', () => {
    const schema = { properties: { a: { type: 'number' } }, patternProperties: { '^x-': { type: 'string' } }, additionalProperties: false };
    accepts(schema, { a: 1, 'x-1': 's' });
    rejects(schema, { 'x-1': 5 }, [['x-1'], 'must be string']);
    rejects(schema, { b: 1 }, [['b'], 'is not allowed here']);
    rejects({ patternProperties: { '^a': { type: 'string' } }, additionalProperties: { type: 'number' } }, { a: 's', b: 'x' }, [['b'], 'must be number']);
  });

  it('propertyNames reports the inner failure, then its own, at the object', () => {
    rejects({ propertyNames: { maxLength: 3 } }, { abcd: 1 }, [[], 'must NOT have more than 3 characters'], [[], 'property name must be valid']);
  });

  it('dependentRequired and dependentSchemas apply when the property is present', () => {
    accepts({ dependentRequired: { a: ['b'] } }, { b: 1 }, { a: 1, b: 2 });
    rejects({ dependentRequired: { a: ['b'] } }, { a: 1 }, [[], 'must have property b when property a is present']);
    rejects({ dependentRequired: { a: ['b', 'c'] } }, { a: 1, b: 1 }, [[], 'must have properties b, c when property a is present']);
    rejects({ dependentSchemas: { a: { required: ['b'] } } }, { a: 1 }, [['b'], 'is required']);
  });

  it('allOf, anyOf, oneOf (two matches fail), not', () => {
    rejects({ allOf: [{ minimum: 2 }, { maximum: 3 }] }, 4, [[], 'must be <= 3']);
    rejects({ anyOf: [{ type: 'string' }, { type: 'number' }] }, true, [[], 'must be string'], [[], 'must be number'], [[], 'must match a schema in anyOf']);
    accepts({ oneOf: [{ type: 'number' }, { type: 'string' }] }, 1, 'x');
    rejects({ oneOf: [{ type: 'number' }, { type: 'integer' }] }, 1, [[], 'must match exactly one schema in oneOf']);
    rejects({ not: { type: 'number' } }, 1, [[], 'must NOT be valid']);
  });

  it('if/then/else: the clause error alone at top level, with "must match" inside a composite', () => {
    const schema = { if: { properties: { kind: { const: 'a' } } }, then: { required: ['x'] }, else: { required: ['y'] } };
    accepts(schema, { kind: 'a', x: 1 }, { kind: 'b', y: 1 });
    rejects(schema, { kind: 'a' }, [['x'], 'is required']);
    rejects(schema, { kind: 'b' }, [['y'], 'is required']);
    rejects({ anyOf: [schema, false] }, { kind: 'a' }, [['x'], 'is required'], [[], 'must match "then" schema'], [[], 'boolean schema is false'], [[], 'must match a schema in anyOf']);
  });

  it('$ref: recursion through $defs, siblings apply, escaped and percent-encoded pointers', () => {
    const list = { $defs: { node: { type: 'object', properties: { v: { type: 'number' }, next: { $ref: '#/$defs/node' } }, required: ['v'] } }, $ref: '#/$defs/node' };
    accepts(list, { v: 1, next: { v: 2, next: { v: 3 } } });
    rejects(list, { v: 1, next: { v: 2, next: { v: 'x' } } }, [['next', 'next', 'v'], 'must be number']);
    rejects(list, { v: 1, next: {} }, [['next', 'v'], 'is required']);
    rejects({ $defs: { s: { type: 'string' } }, $ref: '#/$defs/s', maxLength: 3 }, 'abcd', [[], 'must NOT have more than 3 characters']);
    rejects({ $defs: { s: { type: 'string' } }, $ref: '#/$defs/s', maxLength: 3 }, 5, [[], 'must be string']);
    rejects({ $defs: { 'a/b': { type: 'string' } }, $ref: '#/$defs/a~1b' }, 1, [[], 'must be string']);
    rejects({ $defs: { 'a b%': { type: 'string' } }, $ref: '#/$defs/a%20b%25' }, 1, [[], 'must be string']);
    rejects({ $defs: { 'x~': { type: 'string' } }, properties: { p: { $ref: '#/$defs/x~0' } } }, { p: 1 }, [['p'], 'must be string']);
  });

  it('a failed recursive $ref inside patternProperties: the next key\'s first error ends the frame (fast-check seed -605480365)', () => {
    // ajv collects the failed call's errors and goes on to the next key; that key's `const`
    // failure then replaces the list with its one error. The list length stays 1, so only the
    // frame having returned tells that the `maximum` group must not run.
    const schema = { $ref: '#/$defs/d1', $defs: { d1: { patternProperties: { '^a': { $ref: '#/$defs/d1', const: '', maximum: -1 } }, minLength: 0 } } };
    rejects(schema, { a: { a: {} }, a1: 10 }, [['a1'], 'must be equal to constant']);
    rejects(schema, { a: { a: {} }, a1: -5 }, [['a1'], 'must be equal to constant']);
    rejects(schema, { a: { a: {} } }, [['a', 'a'], 'must be equal to constant']);
  });

  it('"$ref": "#" is refused, as ajv refuses it for a schema without "$id"', () => {
    const recursive = { type: 'object', properties: { children: { type: 'array', items: { $ref: '#' } } } };
    assert.equal(sameVerdict(recursive), false);
    assert.throws(() => compileBuiltin(recursive), /can't resolve reference #/);
  });

  it('boolean schemas', () => {
    accepts(true, 1, null);
    rejects(false, 1, [[], 'boolean schema is false']);
    rejects({ properties: { a: false } }, { a: 1 }, [['a'], 'boolean schema is false']);
  });

  it('annotations and unknown keywords assert nothing (contentSchema included)', () => {
    const annotated = {
      type: 'string',
      title: 't',
      description: 'd',
      default: 5,
      examples: [1],
      deprecated: true,
      readOnly: true,
      writeOnly: false,
      $comment: 'c',
      contentMediaType: 'application/json',
      contentEncoding: 'base64',
      contentSchema: { type: 'number' },
      'x-mcp-header': { minLength: -1 },
    };
    accepts(annotated, 'not base64 and not a number');
  });

  it('keeps ajv quirks: inherited properties count for required and properties', () => {
    accepts({ required: ['toString'] }, {});
    rejects({ properties: { toString: { type: 'string' } } }, {}, [['toString'], 'must be string']);
    rejects({ multipleOf: 1 }, 1e21, [[], 'must be multiple of 1']); // ajv compares with parseInt
  });
});

describe('protocol/builtinSchema: refusing schemas exactly when ajv does', () => {
  const cases: Array<[Schema, boolean]> = [
    [{ type: 'strin' }, false],
    [{ type: [] }, false],
    [{ type: ['string', 'string'] }, false],
    [{ properties: 5 }, false],
    [{ properties: { a: 5 } }, false],
    [{ minLength: -1 }, false],
    [{ minLength: 1.5 }, false],
    [{ maxItems: '1' }, false],
    [{ required: ['a', 'a'] }, false],
    [{ required: [] }, true],
    [{ multipleOf: 0 }, false],
    [{ enum: [] }, false],
    [{ $defs: { unused: { enum: [] } } }, true], // never compiled
    [{ if: { enum: [] } }, true], // "if" without "then"/"else" is not compiled
    [{ then: { enum: [] } }, true], // "then" without "if" is not compiled
    [{ if: true, then: { enum: [] } }, false],
    [{ contains: { enum: [] }, minContains: 0 }, true], // contains ignored
    [{ pattern: '(' }, false],
    [{ pattern: '\\-' }, false], // valid without the "u" flag, not with it
    [{ $defs: { unused: { pattern: '(' } } }, true], // the meta-schema does not assert "format": "regex"
    [{ patternProperties: { '\\-': true } }, false],
    [{ patternProperties: { '\\-': true }, additionalProperties: true }, true], // ajv never compiles that regex
    [{ nullable: true }, false],
    [{ type: 'string', nullable: 'yes' }, false],
    [{ type: 'null', nullable: false }, false],
    [{ $ref: '#/$defs/missing' }, false],
    [{ $ref: '#/$defs/a', $defs: { a: { $ref: '#/$defs/a' } } }, false],
    [{ $ref: '#/$defs/%FF', $defs: {} }, false],
    [{ title: 5 }, false],
    [{ $comment: 5 }, false],
    [{ examples: 5 }, false],
    [{ deprecated: 'yes' }, false],
    [{ contentSchema: { minLength: -1 } }, false],
    [{ allOf: [] }, false],
    [{ prefixItems: [] }, false],
    [{ dependentRequired: { a: ['b', 'b'] } }, false],
    [{ uniqueItems: 1 }, false],
    [{ 'x-anything': { minLength: -1, enum: [] } }, true],
  ];
  for (const [schema, accepted] of cases) {
    it(`${accepted ? 'accepts' : 'refuses'} ${JSON.stringify(schema)}`, () => {
      assert.equal(sameVerdict(schema), accepted);
    });
  }
});

describe('protocol/builtinSchema: what goes to ajv', () => {
  it('every keyword ajv 2020 knows is supported, an annotation or a fallback', () => {
    const known = Object.keys((ajv as unknown as { RULES: { keywords: Record<string, unknown> } }).RULES.keywords);
    assert.ok(known.length > 50);
    for (const keyword of known) {
      assert.ok(SUPPORTED_KEYWORDS.has(keyword) || ANNOTATION_KEYWORDS.has(keyword) || FALLBACK_KEYWORDS.has(keyword), keyword);
    }
  });

  it('any fallback keyword anywhere in a subschema sends the whole schema to ajv', () => {
    for (const keyword of FALLBACK_KEYWORDS) {
      const result = compileBuiltin({ type: 'object', properties: { a: { anyOf: [{ [keyword]: 'x' }] } } });
      assert.equal(result.kind, 'fallback', keyword);
    }
    assert.equal(compileBuiltin({ $defs: { a: { format: 'email' } } }).kind, 'fallback');
    assert.equal(compileBuiltin({ contentSchema: { unevaluatedProperties: false } }).kind, 'fallback');
  });

  it('a fallback keyword inside an unknown keyword or a const is data, not a keyword', () => {
    assert.equal(compileBuiltin({ 'x-meta': { format: 'email' }, const: { $id: 'x' }, properties: { format: { type: 'string' } } }).kind, 'builtin');
  });

  it('non-pointer and non-subschema references go to ajv', () => {
    assert.equal(compileBuiltin({ $ref: '#anchor' }).kind, 'fallback');
    assert.equal(compileBuiltin({ $ref: '#/' }).kind, 'fallback');
    assert.equal(compileBuiltin({ $ref: '#/x-defs/a', 'x-defs': { a: { type: 'string' } } }).kind, 'fallback');
    assert.equal(compileBuiltin({ $ref: '#/properties', properties: { a: true } }).kind, 'fallback');
  });

  it('keyword combinations where ajv code reads a stale variable go to ajv', () => {
    assert.equal(compileBuiltin({ prefixItems: [{ type: 'string' }], contains: { type: 'number' } }).kind, 'fallback');
    assert.equal(compileBuiltin({ items: { contains: { type: 'number' } } }).kind, 'fallback');
    assert.equal(compileBuiltin({ propertyNames: { maxLength: 9 }, properties: { constructor: true } }).kind, 'fallback');
    assert.equal(compileBuiltin({ type: ['string'], nullable: true }).kind, 'fallback'); // ajv mutates "type"
    assert.equal(compileBuiltin({ contains: { type: 'number' } }).kind, 'builtin');
  });
});

// ---------------------------------------------------------------------------------------------
// Differential property tests against ajv.

const KEYS = ['a', 'b', 'c', 'a1', 'toString'];
const scalar = fc.oneof(fc.constantFrom<unknown>(null, true, false, 0, 1, 2, -1, 0.5, 1.5, 3, 10), fc.constantFrom('', 'a', 'ab', 'abc', 'b', 'ba', '😀', '😀😀', '1'));
const value: fc.Arbitrary<unknown> = fc.letrec<{ v: unknown }>((tie) => ({
  v: fc.oneof(
    { depthSize: 'small', maxDepth: 3 },
    scalar,
    scalar,
    fc.array(tie('v'), { maxLength: 4 }),
    fc.dictionary(fc.constantFrom('a', 'b', 'c', 'a1'), tie('v'), { maxKeys: 4 }),
  ),
})).v;

const typeName = fc.constantFrom('string', 'number', 'integer', 'boolean', 'null', 'object', 'array');
const count = fc.constantFrom(0, 1, 2, 3);
const limit = fc.constantFrom(-1, 0, 0.5, 1, 2, 3);
const cache = new Map<string, fc.Arbitrary<Record<string, unknown>>>();

/** Schemas from the subset, `depth` levels deep, with `$ref`s to `#/$defs/d0` and `d1`. */
function subsetSchema(depth: number): fc.Arbitrary<Record<string, unknown>> {
  const hit = cache.get(String(depth));
  if (hit !== undefined) return hit;
  const sub: fc.Arbitrary<Schema> = depth === 0 ? fc.boolean() : fc.oneof({ weight: 1, arbitrary: fc.boolean() }, { weight: 4, arbitrary: subsetSchema(depth - 1) });
  const keywords: Record<string, fc.Arbitrary<unknown>> = {
    type: fc.oneof(typeName, fc.uniqueArray(typeName, { minLength: 1, maxLength: 3 })),
    nullable: fc.boolean(),
    enum: fc.array(value, { minLength: 1, maxLength: 4 }),
    const: value,
    minimum: limit,
    maximum: limit,
    exclusiveMinimum: limit,
    exclusiveMaximum: limit,
    multipleOf: fc.constantFrom(0.5, 1, 2, 3, 0.1),
    minLength: count,
    maxLength: count,
    pattern: fc.constantFrom('^a', 'b$', '^[a-c]+$', '\\d', '^\\p{L}*$', '.'),
    minItems: count,
    maxItems: count,
    uniqueItems: fc.boolean(),
    minContains: count,
    maxContains: count,
    required: fc.uniqueArray(fc.constantFrom(...KEYS), { maxLength: 3 }),
    minProperties: count,
    maxProperties: count,
    dependentRequired: fc.dictionary(fc.constantFrom(...KEYS), fc.uniqueArray(fc.constantFrom(...KEYS), { maxLength: 2 }), { maxKeys: 2 }),
    $ref: fc.constantFrom('#/$defs/d0', '#/$defs/d1'),
    title: fc.constant('t'),
    $comment: fc.constant('c'),
    'x-extra': value,
    ...(depth === 0
      ? {}
      : {
          items: sub,
          prefixItems: fc.array(sub, { minLength: 1, maxLength: 2 }),
          contains: sub,
          properties: fc.dictionary(fc.constantFrom(...KEYS), sub, { maxKeys: 3 }),
          additionalProperties: sub,
          patternProperties: fc.dictionary(fc.constantFrom('^a', '^b', '1$', 'c'), sub, { maxKeys: 2 }),
          propertyNames: sub,
          dependentSchemas: fc.dictionary(fc.constantFrom(...KEYS), sub, { maxKeys: 2 }),
          allOf: fc.array(sub, { minLength: 1, maxLength: 3 }),
          anyOf: fc.array(sub, { minLength: 1, maxLength: 3 }),
          oneOf: fc.array(sub, { minLength: 1, maxLength: 3 }),
          not: sub,
          if: sub,
          then: sub,
          else: sub,
        }),
  };
  const names = Object.keys(keywords);
  const arb = fc
    .uniqueArray(fc.constantFrom(...names), { minLength: 1, maxLength: 4 })
    .chain((picked) => fc.record(Object.fromEntries(picked.map((n) => [n, keywords[n] as fc.Arbitrary<unknown>]))))
    .map((schema) => {
      const s = schema as Record<string, unknown>;
      if (s['nullable'] !== undefined && (typeof s['type'] !== 'string' || s['type'] === 'null')) delete s['nullable'];
      return s;
    });
  cache.set(String(depth), arb);
  return arb;
}

const rootSchema = fc
  .tuple(subsetSchema(2), subsetSchema(2), subsetSchema(3))
  .map(([d0, d1, root]) => json({ ...root, $defs: { d0, d1 } }));

/** Tool-style input schemas, and arguments made from them so that both outcomes are common. */
const primitive = fc.constantFrom<Record<string, unknown>>(
  { type: 'string' },
  { type: 'number' },
  { type: 'integer' },
  { type: 'boolean' },
  { type: 'string', minLength: 1 },
  { type: 'integer', minimum: 0 },
  { enum: ['x', 'y'] },
  { type: 'string', nullable: true },
  { anyOf: [{ type: 'string' }, { type: 'null' }] },
  { type: 'array', items: { type: 'string' } },
);
const toolSchema = fc
  .record(
    {
      properties: fc.dictionary(fc.constantFrom('path', 'query', 'limit', 'flag', 'toString'), fc.oneof(primitive, primitive.map((p) => ({ type: 'object', properties: { inner: p }, required: ['inner'] }))), { maxKeys: 4 }),
      required: fc.uniqueArray(fc.constantFrom('path', 'query', 'limit', 'other'), { maxLength: 2 }),
      additionalProperties: fc.oneof(fc.constant(false), fc.constant(true), primitive),
      minProperties: count,
    },
    { requiredKeys: ['properties'] },
  )
  .map((s) => json({ type: 'object', ...s }));
/** A value that often fits `schema` (one of the `primitive` shapes, or an object of one). */
function fitting(schema: Record<string, unknown>): fc.Arbitrary<unknown> {
  const properties = schema['properties'] as Record<string, Record<string, unknown>> | undefined;
  if (properties !== undefined) return fc.record({ inner: fitting(properties['inner'] ?? {}) });
  if (schema['enum'] !== undefined) return fc.constantFrom('x', 'y');
  if (schema['anyOf'] !== undefined) return fc.constantFrom(null, 'x');
  const byType: Record<string, fc.Arbitrary<unknown>> = {
    string: fc.constantFrom('x', 'abc', ''),
    number: fc.constantFrom(1.5, 0),
    integer: fc.constantFrom(2, 0),
    boolean: fc.boolean(),
    array: fc.constantFrom([], ['a'], ['a', 'b']),
  };
  return byType[String(schema['type'])] ?? scalar;
}

/** Arguments for a tool schema: each property usually present and fitting, sometimes not. */
function argsFor(schema: Record<string, unknown>): fc.Arbitrary<unknown> {
  const properties = schema['properties'] as Record<string, Record<string, unknown>>;
  const shape = Object.fromEntries(Object.entries(properties).map(([k, p]) => [k, fc.oneof({ weight: 6, arbitrary: fitting(p) }, { weight: 1, arbitrary: scalar })]));
  return fc
    .tuple(fc.record(shape, { requiredKeys: Object.keys(shape).filter((k) => k !== 'toString') }), fc.option(scalar, { freq: 4 }))
    .map(([args, other]) => (other === null ? args : { ...args, other }));
}

interface Tally {
  compiled: number;
  fallback: number;
  valid: number;
  invalid: number;
}

/** Compares one schema on many values, counting what happened. */
function differential(schema: Schema, values: readonly unknown[], tally: Tally): void {
  const compiled = builtinCompile(schema);
  const fn = ajvCompile(schema);
  if (!(compiled instanceof Error) && compiled.kind === 'fallback') {
    tally.fallback++;
    return;
  }
  assert.equal(compiled instanceof Error, fn instanceof Error, `${JSON.stringify(schema)}: ${String(compiled instanceof Error ? compiled : fn)}`);
  if (compiled instanceof Error || fn instanceof Error || compiled.kind !== 'builtin') return;
  tally.compiled++;
  const validate = compiled.validate;
  for (const v of values) {
    const where = `${JSON.stringify(schema)} on ${JSON.stringify(v)}`;
    const ours: ValidationResult<unknown> | Error = attempt(() => validate(v));
    const theirs: boolean | Error = attempt((): boolean => fn(v));
    if (theirs instanceof Error || ours instanceof Error) {
      // A schema that recurses without consuming data overflows the stack in both.
      assert.equal(ours.constructor.name, theirs.constructor.name, where);
      continue;
    }
    assert.equal(ours.ok, theirs, where);
    assert.deepEqual(ours.ok ? [] : fromBuiltin(ours.issues), fromAjv(fn.errors ?? []), where);
    if (ours.ok) tally.valid++;
    else tally.invalid++;
  }
}

function attempt<T>(run: () => T): T | Error {
  try {
    return run();
  } catch (error) {
    return error as Error;
  }
}

const tally = (): Tally => ({ compiled: 0, fallback: 0, valid: 0, invalid: 0 });

describe('protocol/builtinSchema: differential against ajv (fast-check)', () => {
  it('agrees with ajv on validity and on every issue for generated schemas and values', () => {
    const seen = tally();
    fc.assert(
      fc.property(rootSchema, fc.array(value, { minLength: 4, maxLength: 8 }), (schema, values) => differential(schema, json(values), seen)),
      { numRuns: 2500 },
    );
    // Both outcomes must be common, or the comparison proves little.
    assert.ok(seen.compiled > 2000, JSON.stringify(seen));
    assert.ok(seen.valid > 2000 && seen.invalid > 2000, JSON.stringify(seen));
  });

  it('agrees with ajv on tool-style object schemas and arguments shaped like them', () => {
    const seen = tally();
    fc.assert(
      fc.property(
        toolSchema.chain((schema) => fc.tuple(fc.constant(schema), fc.array(argsFor(schema), { minLength: 4, maxLength: 8 }))),
        ([schema, values]) => differential(schema, json(values), seen),
      ),
      { numRuns: 1500 },
    );
    assert.equal(seen.fallback, 0);
    assert.ok(seen.valid > 1000 && seen.invalid > 1000, JSON.stringify(seen));
  });

  const corruptions: Array<[string, unknown]> = [
    ['minLength', -1],
    ['minLength', 1.5],
    ['type', 'strin'],
    ['type', []],
    ['required', ['a', 'a']],
    ['enum', []],
    ['multipleOf', 0],
    ['pattern', '('],
    ['pattern', '\\-'],
    ['properties', 5],
    ['allOf', []],
    ['items', 5],
    ['nullable', true],
    ['$ref', '#/$defs/missing'],
    ['uniqueItems', 'yes'],
    ['title', 5],
    ['maxContains', -2],
    ['dependentRequired', { a: 'b' }],
    ['patternProperties', { '\\-': {} }],
  ];

  it('refuses a possibly malformed schema exactly when ajv does', () => {
    const objectsIn = (node: unknown, into: Array<Record<string, unknown>>): Array<Record<string, unknown>> => {
      if (typeof node === 'object' && node !== null) {
        if (!Array.isArray(node)) into.push(node as Record<string, unknown>);
        for (const child of Object.values(node)) objectsIn(child, into);
      }
      return into;
    };
    let refused = 0;
    fc.assert(
      fc.property(rootSchema, fc.nat(), fc.constantFrom(...corruptions), (schema, at, [key, bad]) => {
        const targets = objectsIn(schema, []);
        const target = targets[at % targets.length] as Record<string, unknown>;
        target[key] = bad;
        if (!sameVerdict(schema)) refused++;
      }),
      { numRuns: 1500 },
    );
    assert.ok(refused > 300, `only ${refused} schemas were refused`);
  });
});
