/**
 * The published build (`dist/`, made by `npm run build` = scripts/build.mjs) keeps the promises
 * the package makes: one class identity across subpath exports (STYLE.md section 3), a
 * runtime-neutral root (no `node:*` in its static import graph, STYLE.md section 1), and a
 * stdio server's import graph small enough for the cold-start target of issue #7 (a handful
 * of files, no JSON Schema compiler, no JOSE). Checked on the static import graph of the built
 * files, so nothing here is a timed test.
 */
import assert from 'node:assert/strict';
import { existsSync, readFileSync } from 'node:fs';
import { dirname, join, relative, resolve } from 'node:path';
import { describe, it } from 'node:test';

const root = resolve(import.meta.dirname, '../..');
const dist = join(root, 'dist');
const pkg = JSON.parse(readFileSync(join(root, 'package.json'), 'utf8')) as { exports: Record<string, unknown> };

/** Every specifier a built file imports statically (`import … from 'x'`, `export … from 'x'`, `import 'x'`). */
function staticImports(file: string): string[] {
  const code = readFileSync(file, 'utf8');
  const found: string[] = [];
  for (const m of code.matchAll(/^\s*(?:import|export)\s(?:[^'"]*?\sfrom\s)?['"]([^'"]+)['"]/gm)) found.push(m[1] as string);
  return found;
}

/** The closure of static imports from some entry files: our files, and the bare specifiers reached. */
function graph(entries: readonly string[]): { files: Set<string>; external: Set<string> } {
  const files = new Set<string>();
  const external = new Set<string>();
  const queue = entries.map((e) => join(dist, e));
  while (queue.length > 0) {
    const file = queue.pop() as string;
    if (files.has(file)) continue;
    files.add(file);
    for (const spec of staticImports(file)) {
      if (spec.startsWith('.')) queue.push(resolve(dirname(file), spec));
      else external.add(spec);
    }
  }
  return { files, external };
}

describe('published build (dist/)', () => {
  it('is built (npm test builds it first; alone, run `npm run build`)', () => {
    assert.ok(existsSync(join(dist, 'index.js')), 'dist/ is not built: run `npm run build`');
  });

  it('the exports map is pinned: adding or removing a subpath is a deliberate change', () => {
    assert.deepEqual(Object.keys(pkg.exports), [
      '.',
      './util',
      './jsonrpc',
      './protocol',
      './auth',
      './auth/dev',
      './transport',
      './transport/stdio',
      './transport/http',
      './server',
      './client',
      './host',
      './store',
      './adapters/node',
      './adapters/node-host',
      './schemas/switchboard.config.schema.json',
      './package.json',
    ]);
  });

  it('the development authorization server is only on its own subpath (switchboard/auth/dev), never in switchboard/auth', async () => {
    const auth = (await import('switchboard/auth')) as Record<string, unknown>;
    const dev = (await import('switchboard/auth/dev')) as Record<string, unknown>;
    assert.equal('createDevAuthorizationServer' in auth, false);
    assert.equal(typeof dev['createDevAuthorizationServer'], 'function');
  });

  it('the config JSON Schema is exported and shipped', async () => {
    assert.equal(pkg.exports['./schemas/switchboard.config.schema.json'], './schemas/switchboard.config.schema.json');
    assert.ok((JSON.parse(readFileSync(join(root, 'package.json'), 'utf8')) as { files: string[] }).files.includes('schemas'));
    const schema = (await import('switchboard/schemas/switchboard.config.schema.json', { with: { type: 'json' } })) as { default: Record<string, unknown> };
    assert.equal(schema.default['$schema'], 'https://json-schema.org/draft/2020-12/schema');
  });

  it('switchboard/host is runtime-neutral (no node:* in its static import graph); switchboard/store is where node:fs is', () => {
    assert.deepEqual([...graph(['host/index.js']).external].filter((s) => s.startsWith('node:')), []);
    assert.ok([...graph(['store/index.js']).external].some((s) => s.startsWith('node:fs')));
  });

  it('every export target in package.json exists, with its declarations', () => {
    for (const [subpath, target] of Object.entries(pkg.exports)) {
      if (typeof target !== 'object' || target === null) continue;
      const { types, default: js } = target as { types?: string; default?: string };
      assert.ok(js !== undefined && existsSync(join(root, js)), `${subpath}: ${js} is missing`);
      assert.ok(types !== undefined && existsSync(join(root, types)), `${subpath}: ${types} is missing`);
    }
  });

  it('one class identity across subpath exports (instanceof holds between switchboard/server, /client, /util and the root)', async () => {
    const rootExports = await import('switchboard');
    const util = await import('switchboard/util');
    const server = await import('switchboard/server');
    const client = await import('switchboard/client');
    assert.equal(rootExports.McpError, util.McpError);
    assert.equal(rootExports.McpServer, server.McpServer);
    const error = new util.McpError(util.McpErrorCode.InvalidArgument, 'x');
    assert.ok(rootExports.isMcpError(error));
    assert.ok(error instanceof rootExports.McpError);
    assert.equal(typeof client.McpClient, 'function');
  });

  it('the root export is runtime-neutral: no node:* module in its static import graph', () => {
    const { external } = graph(['index.js']);
    const builtins = [...external].filter((s) => s.startsWith('node:'));
    assert.deepEqual(builtins, []);
  });

  it('an HTTP server on node:http (switchboard/server + /transport/http + /adapters/node) loads neither the host nor the client, nor their dependencies', () => {
    const { files, external } = graph(['server/index.js', 'transport/http/index.js', 'adapters/node.js']);
    const ours = [...files].map((f) => relative(dist, f)).sort();
    const hostSide = ours.filter((f) => /^(_chunks\/host\.js|client\/|host\/|transport\/stdio\/|adapters\/nodeHost\.js)/.test(f));
    assert.deepEqual(hostSide, [], `switchboard/adapters/node reaches ${hostSide.join(', ')}`);
    const heavy = [...external].filter((s) => /^(@marcbachmann\/cel-js|smol-toml|jsonc-parser)(\/|$)/.test(s));
    assert.deepEqual(heavy, [], 'CEL, TOML and JSONC are the host\'s');
  });

  it('the host\'s Node pieces are on switchboard/adapters/node-host, not on switchboard/adapters/node', async () => {
    const node = (await import('switchboard/adapters/node')) as Record<string, unknown>;
    const nodeHost = (await import('switchboard/adapters/node-host')) as Record<string, unknown>;
    for (const name of ['defaultTransportFactory', 'downstreamOAuth', 'loginRequired', 'oauthTransportHooks', 'unconfiguredOAuthHooks']) {
      assert.equal(typeof nodeHost[name], 'function', `switchboard/adapters/node-host exports ${name}`);
      assert.equal(name in node, false, `switchboard/adapters/node does not export ${name}`);
    }
    assert.equal(typeof node['toNodeHandler'], 'function');
  });

  it('a stdio server (switchboard/server + switchboard/transport/stdio) loads a handful of files and neither ajv nor jose', () => {
    const { files, external } = graph(['server/index.js', 'transport/stdio/index.js']);
    const ours = [...files].map((f) => relative(dist, f)).sort();
    assert.ok(ours.length <= 5, `a stdio server loads ${ours.length} built files: ${ours.join(', ')}`);
    const heavy = [...external].filter((s) => /^(ajv|ajv-formats|jose)(\/|$)/.test(s));
    assert.deepEqual(heavy, [], 'ajv is loaded only for schemas outside the built-in subset, jose only by auth');
  });
});
