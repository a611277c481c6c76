/**
 * Local `$ref`s for the built-in validator: the subschema a JSON pointer names, found as ajv
 * finds it, and whether a subschema has references (ajv compiles those to their own function).
 *
 * @module
 */
import { Fallback, SCHEMA_LISTS, SCHEMA_MAPS, SCHEMA_SINGLES, invalid, isRule } from './metaSchema.js';
import type { Node, Obj } from './types.js';

/** ajv's getJsonPointer: the subschema a local pointer names (following bare `$ref`s). */
export function resolvePointer(root: Node, ref: string, at: string, chain: Set<string>): Node | undefined {
  if (chain.has(ref)) throw invalid(`"$ref" ${JSON.stringify(ref)} is a cycle of references`, at);
  chain.add(ref);
  let node: unknown = root;
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
      const target = resolvePointer(root, bare, at, chain);
      if (target !== undefined) return target;
    }
  }
  return node === root ? undefined : (node as Node);
}

export function hasRef(schema: unknown): boolean {
  for (const key in schema as object) {
    if (key === '$ref' || key === '$recursiveRef' || key === '$recursiveAnchor' || key === '$dynamicRef' || key === '$dynamicAnchor') return true;
    const sch = (schema as Record<string, unknown>)[key];
    if (Array.isArray(sch) && sch.some(hasRef)) return true;
    if (typeof sch === 'object' && hasRef(sch)) return true;
  }
  return false;
}
