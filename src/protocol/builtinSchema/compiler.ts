/**
 * The built-in validator's compiler: it turns each schema object into a check once, following
 * `$ref`s and the keywords with subschemas (`not`, `anyOf`, `oneOf`, `allOf`, `if`, `items`,
 * `contains`, `properties`, ...) as ajv does, with ajv's compile-time record of evaluated
 * properties and items, and finds the schemas ajv's generated code gets wrong (fallbacks).
 *
 * @module
 */
import {
  arraySizeKeywords,
  dependentRequiredKeyword,
  numberKeywords,
  objectSizeKeywords,
  stringKeywords,
  uniqueItemsKeyword,
  valueKeywords,
} from './keywords.js';
import { Fallback, GROUPS, alwaysValid, invalid, isRule, pointerSegment, regex, schemaProperties, schemaTypes } from './metaSchema.js';
import { hasRef, resolvePointer } from './refs.js';
import { callFrame, count, frameReturned, isArray, isNumber, isObject, isString, path, report, reportExtra, resetTo } from './runtime.js';
import { OBJECT_ONLY, additionalStep, assemble, falseSchema, objectNode, pass, propertiesStep, steps } from './steps.js';
import type { Check, Ev, Evaluated, Node, Obj, Step } from './types.js';

function mergeEv(from: Ev, to: Ev): Ev {
  if (to === undefined) return from;
  if (to === 'name' || from === 'name') return 'name';
  return from === true ? true : 'static';
}

const LOOP = 0;
const SAME = 1;
const CALL = 2;
type EdgeKind = typeof LOOP | typeof SAME | typeof CALL;

export class Compiler {
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

  #ref(s: Obj, ref: string, at: string): { step: Step<unknown>; evaluated: Evaluated; dynamic: boolean } {
    // Without "$id", ajv 8 resolves "#" against base "#" and finds nothing: it refuses the schema.
    if (ref === '#') throw invalid(`can't resolve reference # (a schema without "$id" cannot refer to its root)`, at);
    const target = resolvePointer(this.#root, ref, at, new Set());
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
    anySteps.push(...valueKeywords(s, at));
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
          if (frameReturned()) return false;
          return reportExtra(matched ? 'must match "then" schema' : 'must match "else" schema', cp);
        });
      }
    }

    // Numbers.
    const numberSteps = numberKeywords(s);

    // Strings.
    const stringSteps = stringKeywords(s, at);

    // Arrays.
    const arraySteps = arraySizeKeywords(s);
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
    if (s['uniqueItems'] === true) arraySteps.push(uniqueItemsKeyword(s, at));

    // Objects.
    const required = (s['required'] ?? []) as readonly string[];
    const objectSteps = objectSizeKeywords(s, required);
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
            if (frameReturned()) return false;
            if (stopAtFirst && !valid) break;
          }
          if (!valid) return false;
        }
        return true;
      });
    }
    if (has('dependentRequired')) objectSteps.push(dependentRequiredKeyword(s));
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
