/**
 * The built-in validator's steps for keywords without subschemas (the assertions on the
 * value itself: `const`, `enum`, number bounds, string lengths and `pattern`, array and
 * object sizes, `uniqueItems`, `required`, `dependentRequired`), with ajv's messages.
 * Each function returns the steps of a run of keywords in ajv's order within its group.
 *
 * @module
 */
import { invalid, regex, schemaTypes } from './metaSchema.js';
import { equal, isObject, report, typesTest, ucs2length } from './runtime.js';
import type { Obj, Step } from './types.js';

function has(s: Obj, key: string): boolean {
  return s[key] !== undefined;
}

/** `const` and `enum` (keywords of any type). */
export function valueKeywords(s: Obj, at: string): Array<Step<unknown>> {
  const anySteps: Array<Step<unknown>> = [];
  if (has(s, 'const')) {
    const c = s['const'];
    const message = 'must be equal to constant';
    anySteps.push(c && typeof c === 'object' ? (d, cp) => equal(d, c) || report(message, cp) : (d, cp) => c === d || report(message, cp));
  }
  if (has(s, 'enum')) {
    const values = s['enum'] as readonly unknown[];
    if (values.length === 0) throw invalid('"enum" must have at least one value', at);
    const loop = values.length >= 200;
    anySteps.push((d, cp) => {
      for (const v of values) if (loop || (typeof v === 'object' && v !== null) ? equal(d, v) : d === v) return true;
      return report('must be equal to one of the allowed values', cp);
    });
  }
  return anySteps;
}

/** `maximum`, `minimum`, `exclusiveMaximum`, `exclusiveMinimum`, `multipleOf`. */
export function numberKeywords(s: Obj): Array<Step<number>> {
  const numberSteps: Array<Step<number>> = [];
  for (const [key, op] of [['maximum', '<='], ['minimum', '>='], ['exclusiveMaximum', '<'], ['exclusiveMinimum', '>']] as const) {
    if (!has(s, key)) continue;
    const limit = s[key] as number;
    const message = `must be ${op} ${limit}`;
    const fails =
      op === '<=' ? (d: number) => d > limit : op === '>=' ? (d: number) => d < limit : op === '<' ? (d: number) => d >= limit : (d: number) => d <= limit;
    numberSteps.push((d, cp) => !(fails(d) || isNaN(d)) || report(message, cp));
  }
  if (has(s, 'multipleOf')) {
    const m = s['multipleOf'] as number;
    const message = `must be multiple of ${m}`;
    numberSteps.push((d, cp) => {
      const res = d / m;
      return !(m === 0 || res !== parseInt(String(res))) || report(message, cp);
    });
  }
  return numberSteps;
}

/** `maxLength`, `minLength`, `pattern`. */
export function stringKeywords(s: Obj, at: string): Array<Step<string>> {
  const stringSteps: Array<Step<string>> = [];
  if (has(s, 'maxLength')) {
    const n = s['maxLength'] as number;
    stringSteps.push((d, cp) => !(ucs2length(d) > n) || report(`must NOT have more than ${n} characters`, cp));
  }
  if (has(s, 'minLength')) {
    const n = s['minLength'] as number;
    stringSteps.push((d, cp) => !(ucs2length(d) < n) || report(`must NOT have fewer than ${n} characters`, cp));
  }
  if (has(s, 'pattern')) {
    const source = s['pattern'] as string;
    const re = regex(source, `${at}/pattern`);
    const message = `must match pattern "${source}"`;
    stringSteps.push((d, cp) => re.test(d) || report(message, cp));
  }
  return stringSteps;
}

/** `maxItems`, `minItems` (the array keywords before `prefixItems`). */
export function arraySizeKeywords(s: Obj): Array<Step<readonly unknown[]>> {
  const arraySteps: Array<Step<readonly unknown[]>> = [];
  if (has(s, 'maxItems')) {
    const n = s['maxItems'] as number;
    arraySteps.push((d, cp) => !(d.length > n) || report(`must NOT have more than ${n} items`, cp));
  }
  if (has(s, 'minItems')) {
    const n = s['minItems'] as number;
    arraySteps.push((d, cp) => !(d.length < n) || report(`must NOT have fewer than ${n} items`, cp));
  }
  return arraySteps;
}

/** `uniqueItems: true` (the last array keyword). */
export function uniqueItemsKeyword(s: Obj, at: string): Step<readonly unknown[]> {
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

/** `maxProperties`, `minProperties`, `required` (the object keywords before `propertyNames`). */
export function objectSizeKeywords(s: Obj, required: readonly string[]): Array<Step<Obj>> {
  const objectSteps: Array<Step<Obj>> = [];
  for (const [key, more] of [['maxProperties', true], ['minProperties', false]] as const) {
    if (!has(s, key)) continue;
    const n = s[key] as number;
    const message = `must NOT have ${more ? 'more' : 'fewer'} than ${n} properties`;
    objectSteps.push(more ? (d, cp) => !(Object.keys(d).length > n) || report(message, cp) : (d, cp) => !(Object.keys(d).length < n) || report(message, cp));
  }
  if (required.length > 0) {
    objectSteps.push((d, cp) => {
      for (let i = 0; i < required.length; i++) {
        const p = required[i] as string;
        if (d[p] === undefined) return report('is required', cp, p);
      }
      return true;
    });
  }
  return objectSteps;
}

/** `dependentRequired`. */
export function dependentRequiredKeyword(s: Obj): Step<Obj> {
  const map = s['dependentRequired'] as Readonly<Record<string, readonly string[]>>;
  const entries: Array<readonly [string, readonly string[], string]> = [];
  for (const p in map) {
    const deps = map[p] as readonly string[];
    if (deps.length > 0) entries.push([p, deps, `must have ${deps.length === 1 ? 'property' : 'properties'} ${deps.join(', ')} when property ${p} is present`]);
  }
  return (d, cp) => {
    for (const [p, deps, message] of entries) {
      if (d[p] !== undefined) for (const dep of deps) if (d[dep] === undefined) return report(message, cp);
    }
    return true;
  };
}
