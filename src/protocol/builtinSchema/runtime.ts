/**
 * The built-in validator's run-time state and helpers: the error list and instance path of
 * the current validation with ajv's ways of reporting into them, and ajv's value helpers
 * (deep equality, string length in code points, type tests). This is the only module whose
 * state changes while validating; the others reach it through the functions exported here.
 *
 * @module
 */
import type { Issue, PathSegment, ValidationResult } from '../../util/schema.js';
import type { Check, Obj } from './types.js';

// ---------------------------------------------------------------------------------------------
// Run-time state. Validation is synchronous, so one set of variables serves every schema.

let errors: Issue[] | null = null; // ajv's vErrors of the current function frame
/**
 * ajv's `return false` outside composite keywords: the current function frame has returned.
 * Every check returns false as soon as a child failed, and the few places that go on after a
 * failed child (an `if` clause, `patternProperties`, the type check) look at this flag.
 */
let returned = false;
/** The instance path of the value being checked; checks push and pop around a child. */
export const path: PathSegment[] = [];

/** Whether the current function frame has returned (see `returned` above). */
export function frameReturned(): boolean {
  return returned;
}

export function count(): number {
  return errors === null ? 0 : errors.length;
}

export function resetTo(n: number): void {
  if (errors !== null) {
    if (n > 0) errors.length = n;
    else errors = null;
  }
}

/** ajv's reportError: collected inside composite keywords, otherwise the frame returns. */
export function report(message: string, composite: boolean, key?: string): false {
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
export function reportExtra(message: string, composite: boolean): false {
  const issue: Issue = { path: path.slice(), message };
  if (errors === null) errors = [issue];
  else errors.push(issue);
  if (!composite) returned = true;
  return false;
}

/** A `$ref` ajv compiles to its own function: fresh error frame, errors appended on failure. */
export function callFrame(check: Check, data: unknown): boolean {
  const saved = errors;
  errors = null;
  const ok = check(data, false);
  returned = false;
  const own = errors;
  errors = saved;
  if (!ok && own !== null) errors = saved === null ? own : saved.concat(own);
  return ok;
}

export function run<T>(root: Check, value: unknown): ValidationResult<T> {
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
export function equal(a: unknown, b: unknown): boolean {
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
export function ucs2length(str: string): number {
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

export const isObject = (d: unknown): d is Obj => typeof d === 'object' && d !== null && !Array.isArray(d);
export const isInteger = (d: unknown): boolean => typeof d === 'number' && !(d % 1) && !isNaN(d);
export const isArray = (d: unknown): boolean => Array.isArray(d);
export const isNumber = (d: unknown): boolean => typeof d === 'number';
export const isString = (d: unknown): boolean => typeof d === 'string';

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

export function typesTest(types: readonly string[]): (d: unknown) => boolean {
  const tests = types.map(typeTest);
  if (tests.length === 1) return tests[0] as (d: unknown) => boolean;
  return (d) => tests.some((t) => t(d));
}
