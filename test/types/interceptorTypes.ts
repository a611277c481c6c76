// Type tests (compiled by `npm run typecheck`, never run): an interceptor written for some
// methods sees each method's own params and result (issue #30, "a chain typed per method").
// Each `@ts-expect-error` is a negative: the line must not compile.
import type { CallToolResult } from '../../src/protocol/model/tools.js';
import type { ReadResourceResult } from '../../src/protocol/model/resources.js';
import type { ExposedTool } from '../../src/host/exposed.js';
import { methodInterceptor, type MethodContext, type ResultOf } from '../../src/host/interceptors.js';

/** True when A and B are the same type (not merely assignable). */
type Equal<A, B> = (<T>() => T extends A ? 1 : 2) extends <T>() => T extends B ? 1 : 2 ? true : false;
/** Compiles only for `true`. */
function assertType<T extends true>(): T | void {}

assertType<Equal<ResultOf<'tools/call'>, CallToolResult>>();
assertType<Equal<ResultOf<'resources/read'>, ReadResourceResult>>();
assertType<Equal<ResultOf<'tools/list'>, readonly ExposedTool[]>>();
assertType<Equal<MethodContext<'tools/call'>['params']['name'], string>>();
assertType<Equal<MethodContext<'resources/read'>['params']['uri'], string>>();

// One method: next() resolves with the method's result, and the interceptor must return one.
methodInterceptor({
  id: 'types.one',
  phase: 'guard',
  methods: ['tools/call'],
  async intercept(ctx, next) {
    const name: string = ctx.params.name;
    const result = await next();
    const flagged: boolean | undefined = result.isError;
    return flagged === true && name !== '' ? { ...result, content: [] } : result;
  },
});

// Several methods: comparing `ctx.method` narrows the params.
methodInterceptor({
  id: 'types.several',
  phase: 'trust',
  methods: ['tools/call', 'resources/read'],
  intercept(ctx, next) {
    const target: string = ctx.method === 'resources/read' ? ctx.params.uri : ctx.params.name;
    return target === '' ? Promise.reject(new Error('empty')) : next();
  },
});

methodInterceptor({
  id: 'types.wrong-result',
  phase: 'guard',
  methods: ['tools/call'],
  // @ts-expect-error a tools/call interceptor cannot answer with something that is not a CallToolResult
  intercept: async () => 42,
});

methodInterceptor({
  id: 'types.wrong-method',
  phase: 'guard',
  // @ts-expect-error not a method the chain passes
  methods: ['tools/explode'],
  intercept: (_ctx, next) => next(),
});

methodInterceptor({
  id: 'types.no-uri-on-calls',
  phase: 'guard',
  methods: ['tools/call'],
  intercept(ctx, next) {
    // @ts-expect-error a call's `name` is a string, not a number
    const n: number = ctx.params.name;
    return n === 0 ? next() : next();
  },
});
