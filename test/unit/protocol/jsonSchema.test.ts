import assert from 'node:assert/strict';
import { spawnSync } from 'node:child_process';
import { describe, it } from 'node:test';
import { fileURLToPath } from 'node:url';
import { ToolIndex } from '../../../src/client/toolIndex.js';
import type { CallToolResult } from '../../../src/protocol/model/tools.js';
import type { Tool } from '../../../src/protocol/model/tool.js';
import { compileJsonSchema, type CompiledJsonSchema } from '../../../src/protocol/jsonSchema.js';
import { compileTool } from '../../../src/server/tools.js';
import { McpErrorCode } from '../../../src/util/errors.js';
import { silentLogger } from '../../../src/util/logger.js';
import type { ValidationResult } from '../../../src/util/schema.js';

const root = fileURLToPath(new URL('../../../', import.meta.url));
const jsonSchemaModule = new URL('../../../src/protocol/jsonSchema.ts', import.meta.url).href;

/** Runs an ES module script in a fresh Node (TypeScript through tsx); returns its exit and output. */
function node(script: string, flags: string[] = []): { status: number | null; stdout: string; stderr: string } {
  const r = spawnSync(process.execPath, [...flags, '--import', 'tsx', '--input-type=module', '-e', script], {
    cwd: root,
    encoding: 'utf8',
    env: { ...process.env, NODE_OPTIONS: '' },
  });
  return { status: r.status, stdout: r.stdout, stderr: r.stderr };
}

// Records every module URL resolved from here on, and every CommonJS module loaded.
const recordModules = `
import { register, createRequire } from 'node:module';
import { MessageChannel } from 'node:worker_threads';
const resolved = [];
const { port1, port2 } = new MessageChannel();
port1.on('message', (url) => resolved.push(url));
port1.unref();
register('data:text/javascript,' + encodeURIComponent(
  'let port; export function initialize(data) { port = data.port; }' +
  'export async function resolve(specifier, context, next) { const r = await next(specifier, context); port.postMessage(r.url); return r; }'
), { data: { port: port2 }, transferList: [port2] });
const settle = () => new Promise((r) => setTimeout(r, 50));
const ajvLoaded = async () => {
  await settle();
  const cjs = Object.keys(createRequire(import.meta.url).cache);
  return [...resolved, ...cjs].some((u) => u.includes('/node_modules/ajv'));
};
`;

const isPromise = (v: unknown): v is Promise<unknown> => v instanceof Promise;

async function settled<T>(result: ValidationResult<T> | Promise<ValidationResult<T>>): Promise<ValidationResult<T>> {
  return result;
}

describe('protocol/jsonSchema: built-in validator on the common path', () => {
  it('never loads ajv for a schema in the built-in subset (and does load it for one outside)', () => {
    const r = node(`${recordModules}
      const { compileJsonSchema } = await import(${JSON.stringify(jsonSchemaModule)});
      const echo = compileJsonSchema({ type: 'object', properties: { message: { type: 'string' } }, required: ['message'] });
      const ok = echo.validate({ message: 'hi' });
      const bad = echo.validate({});
      if (ok instanceof Promise || !ok.ok || bad.ok) throw new Error('unexpected result');
      const before = await ajvLoaded();
      const email = compileJsonSchema({ type: 'string', format: 'email' });
      await email.ready;
      console.log(JSON.stringify({ before, after: await ajvLoaded() }));
    `);
    assert.equal(r.status, 0, r.stderr);
    assert.deepEqual(JSON.parse(r.stdout.trim()), { before: false, after: true });
  });

  it('validates synchronously and is ready at once', async () => {
    const compiled = compileJsonSchema({ type: 'object', properties: { n: { type: 'integer', minimum: 1 } }, required: ['n'] });
    await compiled.ready;
    const good = compiled.validate({ n: 2 });
    assert.ok(!isPromise(good));
    assert.deepEqual(good, { ok: true, value: { n: 2 } });
    assert.deepEqual(compiled.validate({ n: 0 }), { ok: false, issues: [{ path: ['n'], message: 'must be >= 1' }] });
    assert.deepEqual(compiled.validate({}), { ok: false, issues: [{ path: ['n'], message: 'is required' }] });
  });

  it('refuses an invalid subset schema at compile time, synchronously', () => {
    assert.throws(() => compileJsonSchema({ type: 'string', minLength: -1 }), { code: McpErrorCode.InvalidArgument, message: /^invalid JSON Schema: / });
    assert.throws(() => compileJsonSchema({ type: 'string', pattern: '(' }), { code: McpErrorCode.InvalidArgument });
  });

  it('keeps the dialect rules: 2020-12 with or without "#", other dialects refused', async () => {
    const withHash = compileJsonSchema({ $schema: 'https://json-schema.org/draft/2020-12/schema#', type: 'string' });
    assert.ok(!isPromise(withHash.validate('x')));
    assert.throws(() => compileJsonSchema({ $schema: 'https://json-schema.org/draft/2019-09/schema' }), /2019-09/);
    assert.throws(() => compileJsonSchema({ $schema: 5 }), /must be a string/);
    await withHash.ready;
  });

  it('compiles each schema object once', () => {
    const schema = { type: 'string' };
    assert.equal(compileJsonSchema(schema), compileJsonSchema(schema));
  });
});

describe('protocol/jsonSchema: ajv fallback, loaded lazily', () => {
  it('validates "format" through ajv: a promise before ready, synchronous after', async () => {
    const compiled = compileJsonSchema({ type: 'object', properties: { to: { type: 'string', format: 'email' } }, required: ['to'] });
    const early = compiled.validate({ to: 'a@example.com' });
    assert.ok(isPromise(early));
    assert.deepEqual(await early, { ok: true, value: { to: 'a@example.com' } });
    await compiled.ready;
    const late = compiled.validate({ to: 'not an email' });
    assert.ok(!isPromise(late));
    assert.deepEqual(late, { ok: false, issues: [{ path: ['to'], message: 'must match format "email"' }] });
  });

  it('reports issue paths like the built-in validator: numbers index arrays only, an object key "0" stays a string', async () => {
    const email = { type: 'string', format: 'email' };
    const viaAjv = compileJsonSchema({ type: 'object', properties: { '0': email, list: { type: 'array', items: email } } });
    await viaAjv.ready;
    assert.deepEqual(viaAjv.validate({ '0': 'nope' }), { ok: false, issues: [{ path: ['0'], message: 'must match format "email"' }] });
    assert.deepEqual(viaAjv.validate({ list: ['a@example.com', 'nope'] }), { ok: false, issues: [{ path: ['list', 1], message: 'must match format "email"' }] });
    const builtin = compileJsonSchema({ type: 'object', properties: { '0': { type: 'string' } } });
    assert.deepEqual(builtin.validate({ '0': 5 }), { ok: false, issues: [{ path: ['0'], message: 'must be string' }] });
  });

  it('validates "unevaluatedProperties" through ajv', async () => {
    const compiled = compileJsonSchema({ type: 'object', allOf: [{ properties: { a: { type: 'number' } } }], unevaluatedProperties: false });
    assert.deepEqual(await settled(compiled.validate({ a: 1 })), { ok: true, value: { a: 1 } });
    const result = await settled(compiled.validate({ a: 1, b: 2 }));
    assert.equal(result.ok, false);
    assert.match(result.ok ? '' : (result.issues[0]?.message ?? ''), /unevaluated properties/);
  });

  it('sends draft-07 to ajv, even when it only uses keywords the built-in validator knows', async () => {
    const compiled = compileJsonSchema({ $schema: 'http://json-schema.org/draft-07/schema#', type: 'object', dependencies: { a: ['b'] }, required: ['a'] });
    assert.ok(isPromise(compiled.validate({ a: 1, b: 2 })));
    await compiled.ready;
    assert.deepEqual(compiled.validate({ a: 1, b: 2 }), { ok: true, value: { a: 1, b: 2 } });
    assert.deepEqual(compiled.validate({ a: 1 }), { ok: false, issues: [{ path: [], message: 'must have property b when property a is present' }] });
    const plain = compileJsonSchema({ $schema: 'http://json-schema.org/draft-07/schema', type: 'string' }).validate('x');
    assert.ok(isPromise(plain));
    assert.deepEqual(await plain, { ok: true, value: 'x' });
  });

  it('rejects ready, and every validate, with ERR_MCP_INVALID_ARGUMENT when ajv refuses the schema', async () => {
    const compiled: CompiledJsonSchema = compileJsonSchema({ type: 'string', format: 'email', minLength: -1 });
    await assert.rejects(compiled.ready, { code: McpErrorCode.InvalidArgument, message: /^invalid JSON Schema: / });
    await assert.rejects(async () => compiled.validate('a@example.com'), { code: McpErrorCode.InvalidArgument });
    await assert.rejects(async () => compiled.validate('again'), { code: McpErrorCode.InvalidArgument });
  });

  it('leaves no unhandled rejection when nobody awaits ready', () => {
    const r = node(
      `
      const { compileJsonSchema } = await import(${JSON.stringify(jsonSchemaModule)});
      compileJsonSchema({ type: 'string', format: 'email', minLength: -1 });
      compileJsonSchema({ $schema: 'http://json-schema.org/draft-07/schema#', minLength: -1 });
      await new Promise((r) => setTimeout(r, 500));
      console.log('done');
    `,
      ['--unhandled-rejections=strict'],
    );
    assert.equal(r.status, 0, r.stderr);
    assert.equal(r.stdout.trim(), 'done');
  });
});

describe('protocol/jsonSchema: callers of a lazily compiled schema', () => {
  const handler = (): string => 'ok';

  it('a tool whose schema ajv refuses registers, and its first call fails with the schema error', async () => {
    const tool = compileTool('t', { inputSchema: { type: 'object', properties: { to: { type: 'string', format: 'email', minLength: -1 } } } }, handler);
    await assert.rejects(async () => tool.validateInput({ to: 'a@example.com' }), { code: McpErrorCode.InvalidArgument });
  });

  it('a tool with a "format" schema validates its arguments through ajv', async () => {
    const tool = compileTool('mail', { inputSchema: { type: 'object', properties: { to: { type: 'string', format: 'email' } }, required: ['to'] } }, handler);
    assert.deepEqual(await tool.validateInput({ to: 'a@example.com' }), { ok: true, value: { to: 'a@example.com' } });
    assert.deepEqual(await tool.validateInput({ to: 'nope' }), { ok: false, issues: [{ path: ['to'], message: 'must match format "email"' }] });
  });

  it('the client checks structuredContent against an outputSchema that needs ajv', async () => {
    const index = new ToolIndex(silentLogger);
    const tool = { name: 'mail', inputSchema: { type: 'object' }, outputSchema: { type: 'object', properties: { to: { type: 'string', format: 'email' } }, required: ['to'] } } as Tool;
    index.surface([tool]);
    const result = (structuredContent: unknown): CallToolResult => ({ content: [], structuredContent }) as CallToolResult;
    await index.check('mail', result({ to: 'a@example.com' }));
    await assert.rejects(async () => index.check('mail', result({ to: 'nope' })), { code: McpErrorCode.InvalidResponse });
  });

  it('the client skips, with one warning, an outputSchema ajv refuses', async () => {
    const warnings: string[] = [];
    const index = new ToolIndex({ ...silentLogger, warn: (message: string) => warnings.push(message) });
    const tool = { name: 'bad', inputSchema: { type: 'object' }, outputSchema: { type: 'object', properties: { to: { type: 'string', format: 'email', minLength: -1 } } } } as Tool;
    index.surface([tool]);
    await index.check('bad', { content: [] } as CallToolResult);
    await index.check('bad', { content: [] } as CallToolResult);
    assert.equal(warnings.length, 1);
    assert.match(warnings[0] ?? '', /outputSchema was refused/);
  });
});
