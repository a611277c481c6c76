#!/usr/bin/env node
// Builds dist/: type declarations with tsc, JavaScript as one rollup bundle in a few layer chunks.
//
// Why a bundle: loading ~60 small ES modules costs Node 20 about 20 ms of resolve/read/link
// before the first line of a server runs, while the same code in a handful of files loads in
// about 10 ms (cold start, issue #7). Why chunks per layer rather than automatic splitting:
// automatic splitting makes one chunk per distinct set of entries that reach a module, which
// for our 13 entries is ~30 chunks, 15 of them on a stdio server's path. Here a stdio server
// loads its two entries plus the `core`, `server` and `stdio` chunks.
//
// Every entry shares the same chunks, so a class has exactly one identity and `instanceof`
// holds across `switchboard/server`, `switchboard/client`, … (STYLE.md section 3). The chunks
// keep the layer rules: `core`, `server`, `client`, `auth`, `http` and `host` import no `node:*`
// module, so the root export stays runtime-neutral; only `stdio`, `node`, `nodeHost`, `store` and
// the CLI do.
//
// Entries are read from package.json (every `exports` target, every `bin`) plus the extra
// executables below, so a new subpath export cannot be forgotten. TypeScript is stripped per
// file by esbuild (the project compiles with `isolatedModules`); dependencies stay external.
import { execFileSync } from 'node:child_process';
import { cpSync, existsSync, mkdirSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { dirname, join, relative, resolve as resolvePath, sep } from 'node:path';
import { transform } from 'esbuild';
import { rollup } from 'rollup';

const root = resolvePath(new URL('..', import.meta.url).pathname);
const src = join(root, 'src');
const pkg = JSON.parse(readFileSync(join(root, 'package.json'), 'utf8'));

/** Executables that are neither exports nor bins (the referee's client fixture, src/conformance). */
const EXTRA_ENTRIES = ['dist/conformance/conformanceClient.js'];

/** Which chunk a source file lives in, by folder (first match wins). CLI, demo and conformance code is left to rollup. */
const CHUNKS = [
  ['transport/stdio/', 'stdio'],
  ['transport/http/', 'http'],
  // The host's Node pieces (switchboard/adapters/node-host) apart from the server's, so that
  // switchboard/adapters/node loads neither the host chunk nor the client and CEL it imports.
  ['adapters/nodeHost.ts', 'nodeHost'],
  ['adapters/host', 'nodeHost'],
  ['adapters/', 'node'],
  ['store/', 'store'],
  ['host/', 'host'],
  ['auth/', 'auth'],
  ['server/', 'server'],
  ['client/', 'client'],
  ['util/', 'core'],
  ['jsonrpc/', 'core'],
  ['protocol/', 'core'],
  ['transport/', 'core'],
];

function targets(node) {
  if (typeof node === 'string') return [node];
  if (node === null || typeof node !== 'object') return [];
  return Object.entries(node)
    .filter(([condition]) => condition !== 'types')
    .flatMap(([, value]) => targets(value));
}

const outputs = new Set([...targets(pkg.exports), ...Object.values(pkg.bin ?? {}), ...EXTRA_ENTRIES].filter((p) => /^(\.\/)?dist\//.test(p)));
/** Output name (relative to dist, without .js) → source file. */
const input = {};
for (const out of outputs) {
  const rel = relative('dist', out.replace(/^\.\//, ''));
  if (!rel.endsWith('.js')) throw new Error(`build: export target ${out} is not a .js file`);
  const file = join(src, rel.replace(/\.js$/, '.ts'));
  if (!existsSync(file)) throw new Error(`build: ${out} has no source ${relative(root, file)}`);
  input[rel.replace(/\.js$/, '')] = file;
}

/** Resolves our `./x.js` specifiers to `./x.ts` and strips types per file with esbuild. */
const typescript = {
  name: 'switchboard-typescript',
  resolveId(source, importer) {
    if (importer === undefined || !(source.startsWith('./') || source.startsWith('../'))) return null;
    const candidate = resolvePath(dirname(importer), source).replace(/\.js$/, '.ts');
    if (existsSync(candidate)) return candidate;
    throw new Error(`build: cannot resolve ${source} from ${relative(root, importer)}`);
  },
  async transform(code, id) {
    if (!id.endsWith('.ts')) return null;
    const out = await transform(code, {
      loader: 'ts',
      format: 'esm',
      target: 'node20',
      sourcemap: true,
      sourcefile: id,
      tsconfigRaw: { compilerOptions: { target: 'ES2022', verbatimModuleSyntax: true, useDefineForClassFields: true } },
    });
    return { code: out.code, map: out.map };
  },
};

rmSync(join(root, 'dist'), { recursive: true, force: true });

// 1. Declarations (and a type check of src under the build config).
execFileSync(process.execPath, [join(root, 'node_modules/typescript/bin/tsc'), '-p', 'tsconfig.build.json', '--emitDeclarationOnly'], {
  cwd: root,
  stdio: 'inherit',
});

// 2. JavaScript.
const bundle = await rollup({
  input,
  // Bare specifiers are dependencies or Node builtins: resolved at run time, never bundled.
  external: (id) => !id.startsWith('.') && !id.startsWith('/') && !id.startsWith('\0'),
  plugins: [typescript],
  preserveEntrySignatures: 'strict',
  treeshake: { moduleSideEffects: (_id, external) => !external },
  onwarn(warning) {
    throw new Error(`build: ${warning.message}`);
  },
});
const { output } = await bundle.write({
  dir: join(root, 'dist'),
  format: 'es',
  sourcemap: true,
  sourcemapExcludeSources: true,
  entryFileNames: '[name].js',
  chunkFileNames: '_chunks/[name].js',
  manualChunks(id) {
    if (!id.startsWith(src + sep)) return undefined;
    const rel = relative(src, id).split(sep).join('/');
    return CHUNKS.find(([prefix]) => rel.startsWith(prefix))?.[1];
  },
  generatedCode: 'es2015',
  hoistTransitiveImports: false,
});
await bundle.close();

const chunks = output.filter((o) => o.type === 'chunk' && !o.isEntry).map((o) => o.fileName);
console.log(`build: ${Object.keys(input).length} entries, chunks ${chunks.join(', ')}; declarations by tsc`);

// 3. The web console's page files (issue #14): src/console/ui/ copied as is (plain ES modules,
// no build step), and the vendored runtime (Preact, its hooks, htm) from node_modules with the
// bare `preact` import rewritten to a relative one. No import map: an inline one would need
// 'unsafe-inline' in the console's Content-Security-Policy.
const consoleOut = join(root, 'dist', 'console', 'ui');
const consoleSrc = join(src, 'console', 'ui');
if (existsSync(consoleSrc)) cpSync(consoleSrc, consoleOut, { recursive: true });
mkdirSync(join(consoleOut, 'vendor'), { recursive: true });
const vendored = [
  ['preact/dist/preact.mjs', 'preact.mjs'],
  ['preact/hooks/dist/hooks.mjs', 'hooks.mjs'],
  ['htm/dist/htm.mjs', 'htm.mjs'],
];
for (const [from, to] of vendored) {
  const text = readFileSync(join(root, 'node_modules', from), 'utf8').replace(/from\s*["']preact["']/g, 'from"./preact.mjs"');
  if (/from\s*["'][^./][^"']*["']/.test(text)) throw new Error(`build: ${from} still imports a bare specifier`);
  writeFileSync(join(consoleOut, 'vendor', to), text);
}
console.log(`build: console pages${existsSync(consoleSrc) ? '' : ' (none yet)'} and vendored preact, hooks, htm in dist/console/ui/`);
