/**
 * The types the built-in validator's modules share: schema nodes, compiled checks and
 * keyword steps, and ajv's compile-time record of evaluated properties and items.
 *
 * @module
 */

export type Obj = Readonly<Record<string, unknown>>;
export type Node = Obj | boolean;
/** Validates `data`; true when it added no error. `composite` is ajv's `compositeRule`. */
export type Check = (data: unknown, composite: boolean) => boolean;
/** One keyword; false stops the rest of its group (ajv nests later keywords in an `if`). */
export type Step<D> = (data: D, composite: boolean) => boolean;
/**
 * ajv's compile-time record of evaluated properties or items (for `unevaluated*`): nothing,
 * a static set or count, a run-time variable (`name`) or everything (`true`). It changes the
 * code ajv generates for `anyOf` and `patternProperties`.
 */
export type Ev = undefined | 'static' | 'name' | true;
export interface Evaluated {
  props: Ev;
  items: Ev;
}
