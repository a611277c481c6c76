// Type tests (compiled by `npm run typecheck`, never run): tool arguments typed from a JSON
// Schema written `as const` and from a Standard Schema, and `structuredContent` typed from
// the output schema. Each `@ts-expect-error` is a negative: the line must not compile.
import * as v from 'valibot';
import { z } from 'zod';
import { McpServer } from '../../src/server/mcpServer.js';
import type { FromJsonSchema, InferArgs, InferStructured, JsonSchemaObject } from '../../src/server/types.js';

/** True when A and B are the same type (not merely assignable). */
type Equal<A, B> = (<T>() => T extends A ? 1 : 2) extends <T>() => T extends B ? 1 : 2 ? true : false;
/** Compiles only for `true`. */
function assertType<T extends true>(): T | void {}

const server = new McpServer({ name: 'types', version: '1' });

// ---- primitives, enum, const, null, unions ----------------------------------------------
assertType<Equal<FromJsonSchema<{ readonly type: 'string' }>, string>>();
assertType<Equal<FromJsonSchema<{ readonly type: 'integer' }>, number>>();
assertType<Equal<FromJsonSchema<{ readonly type: 'boolean' }>, boolean>>();
assertType<Equal<FromJsonSchema<{ readonly type: 'null' }>, null>>();
assertType<Equal<FromJsonSchema<{ readonly type: readonly ['string', 'null'] }>, string | null>>();
assertType<Equal<FromJsonSchema<{ readonly type: 'string'; readonly enum: readonly ['a', 'b'] }>, 'a' | 'b'>>();
assertType<Equal<FromJsonSchema<{ readonly const: 42 }>, 42>>();
assertType<Equal<FromJsonSchema<{ readonly anyOf: readonly [{ readonly type: 'string' }, { readonly type: 'number' }] }>, string | number>>();
assertType<Equal<FromJsonSchema<{ readonly type: 'array'; readonly items: { readonly type: 'number' } }>, number[]>>();
assertType<Equal<FromJsonSchema<{ readonly type: 'array' }>, unknown[]>>();
assertType<Equal<FromJsonSchema<{ readonly format: 'email' }>, unknown>>();

// ---- objects: required vs optional, nesting, additionalProperties -----------------------
const closed = {
  type: 'object',
  properties: {
    city: { type: 'string' },
    days: { type: 'integer' },
    units: { type: 'string', enum: ['metric', 'imperial'] },
    at: { type: 'object', properties: { lat: { type: 'number' }, lon: { type: 'number' } }, required: ['lat', 'lon'], additionalProperties: false },
    tags: { type: 'array', items: { type: 'string' } },
  },
  required: ['city'],
  additionalProperties: false,
} as const;
type Closed = FromJsonSchema<typeof closed>;
assertType<Equal<Closed['city'], string>>();
assertType<Equal<Closed['days'], number | undefined>>();
assertType<Equal<Closed['units'], 'metric' | 'imperial' | undefined>>();
assertType<Equal<NonNullable<Closed['at']>, { lat: number; lon: number }>>();
assertType<Equal<Closed['tags'], string[] | undefined>>();
// @ts-expect-error additionalProperties: false leaves no index signature
export const noExtra: Closed['other'] = undefined;
// @ts-expect-error `city` is required
export const missingCity: Closed = { days: 1 };
// @ts-expect-error `days` is a number
export const wrongDays: Closed = { city: 'Oslo', days: '3' };

export const open = { type: 'object', properties: { id: { type: 'string' } }, required: ['id'] } as const;
assertType<Equal<FromJsonSchema<typeof open>['anything'], unknown>>();
export const typedExtra = { type: 'object', properties: {}, additionalProperties: { type: 'number' } } as const;
assertType<Equal<FromJsonSchema<typeof typedExtra>['n'], number>>();

// Depth limit: past it the type is `unknown`, not an error or a slow compile.
type Nest<N extends unknown[]> = N['length'] extends 12 ? { readonly type: 'string' } : { readonly type: 'array'; readonly items: Nest<[...N, 0]> };
assertType<Equal<FromJsonSchema<Nest<[]>>, unknown[][][][][][][][]>>();

// ---- tool(): arguments from `as const`, from a Standard Schema, or untyped ---------------
server.tool('weather', { inputSchema: closed }, (args) => {
  assertType<Equal<typeof args.city, string>>();
  assertType<Equal<typeof args.days, number | undefined>>();
  // @ts-expect-error no such argument (additionalProperties: false)
  void args.country;
  // @ts-expect-error `city` is a string
  const n: number = args.city;
  return `${args.city} ${n}`;
});

server.tool('zod', { inputSchema: z.object({ a: z.number(), b: z.string().optional() }) }, (args) => {
  assertType<Equal<typeof args.a, number>>();
  assertType<Equal<typeof args.b, string | undefined>>();
  return String(args.a);
});

server.tool('valibot', { inputSchema: v.object({ flag: v.boolean() }) }, (args) => {
  assertType<Equal<typeof args.flag, boolean>>();
  return String(args.flag);
});

// Without `as const` the schema's shape is not known: arguments stay a plain record.
export const loose: JsonSchemaObject = { type: 'object', properties: { a: { type: 'number' } } };
assertType<Equal<InferArgs<typeof loose>, Record<string, unknown>>>();
server.tool('loose', { inputSchema: { type: 'object', properties: { a: { type: 'number' } } } }, (args) => {
  void args;
  assertType<Equal<typeof args, Record<string, unknown>>>();
  return 'ok';
});

// ---- structuredContent from the output schema -------------------------------------------
const forecast = { type: 'object', properties: { tempC: { type: 'number' }, summary: { type: 'string' } }, required: ['tempC'], additionalProperties: false } as const;
assertType<Equal<InferStructured<typeof forecast>, { tempC: number; summary?: string }>>();
server.tool('forecast', { inputSchema: closed, outputSchema: forecast }, (args) => ({ structuredContent: { tempC: args.days ?? 0, summary: 'sunny' } }));
// @ts-expect-error `tempC` must be a number
server.tool('forecast-bad', { outputSchema: forecast }, () => ({ structuredContent: { tempC: 'warm' } }));
// @ts-expect-error `tempC` is required
server.tool('forecast-missing', { outputSchema: forecast }, () => ({ structuredContent: { summary: 'sunny' } }));

server.tool('zod-out', { outputSchema: z.object({ n: z.number() }) }, () => ({ structuredContent: { n: 1 } }));
// @ts-expect-error the Standard Schema wants `n: number`
server.tool('zod-out-bad', { outputSchema: z.object({ n: z.number() }) }, () => ({ structuredContent: { n: '1' } }));

// No output schema: structuredContent is anything.
server.tool('free', {}, () => ({ structuredContent: { whatever: [1, 'two'] } }));
