/**
 * The built-in validator's combinators: they turn compiled checks and keyword steps into the
 * check of one schema object (ajv's type check and keyword groups), including the one-closure
 * forms of the usual tool schema object and of schemas that only have a primitive `type`.
 *
 * @module
 */
import { GROUPS } from './metaSchema.js';
import { count, frameReturned, path, report, typesTest } from './runtime.js';
import type { Check, Obj, Step } from './types.js';

export const pass: Check = () => true;
export const falseSchema: Check = (_d, composite) => report('boolean schema is false', composite);

export function additionalStep(isExtra: (key: string) => boolean, check: Check | false): Step<Obj> {
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

export function propertiesStep(keys: readonly string[], checks: readonly Check[]): Step<Obj> {
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

export const OBJECT_ONLY = new Set(['type', 'properties', 'required', 'additionalProperties', 'maxProperties', 'minProperties', '$comment']);

/**
 * `{ type: "object" }` with only `properties`, `required`, `additionalProperties`,
 * `minProperties`, `maxProperties`: the same checks as the object keyword group, in one closure.
 */
export function objectNode(
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
export function steps<D>(list: Array<Step<D>>): ReadonlyArray<Step<unknown>> {
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

/**
 * Whether a check added an error since `start` errors were collected. A report outside a
 * composite keyword replaces the list with its one error (ajv's `return false`), so the count
 * alone can come back unchanged: the frame having returned says so too.
 */
function addedSince(start: number): boolean {
  return count() !== start || frameReturned();
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
export function assemble(s: Obj, types: readonly string[], groups: readonly Group[]): Check {
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
        return !addedSince(start);
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
      return !addedSince(start);
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
      if (addedSince(start)) return false;
    }
    for (const group of typed) {
      if (group.test(d)) {
        if (group.steps !== undefined) group.steps(d, cp);
      } else if (group.deferred) {
        return report(typeMessage, cp);
      }
      if (addedSince(start)) return false;
    }
    return true;
  };
}
