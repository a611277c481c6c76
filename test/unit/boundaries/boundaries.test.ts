/**
 * The import-boundary check (`npm run boundaries`) must fail when a layer breaks STYLE.md's
 * rules. Each case builds a throwaway source tree and runs dependency-cruiser on it with the
 * project's own configuration.
 */
import assert from 'node:assert/strict';
import { spawnSync } from 'node:child_process';
import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { dirname, join } from 'node:path';
import { after, describe, it } from 'node:test';

const root = new URL('../../../', import.meta.url).pathname;
const config = join(root, '.dependency-cruiser.cjs');
const depcruise = join(root, 'node_modules', '.bin', 'depcruise');
const scratch = mkdtempSync(join(tmpdir(), 'sb-boundaries-'));
after(() => rmSync(scratch, { recursive: true, force: true }));

let n = 0;
function cruise(files: Record<string, string>): { status: number | null; output: string } {
  const dir = join(scratch, `case${n++}`);
  for (const [path, text] of Object.entries(files)) {
    mkdirSync(dirname(join(dir, path)), { recursive: true });
    writeFileSync(join(dir, path), text);
  }
  writeFileSync(join(dir, 'tsconfig.json'), JSON.stringify({ compilerOptions: { module: 'NodeNext', moduleResolution: 'NodeNext', allowImportingTsExtensions: false } }));
  writeFileSync(join(dir, 'package.json'), JSON.stringify({ name: 'scratch', type: 'module' }));
  const r = spawnSync(depcruise, ['src', '--config', config], { cwd: dir, encoding: 'utf8' });
  return { status: r.status, output: `${r.stdout}${r.stderr}` };
}

const clean = {
  'src/util/a.ts': 'export const a = 1;\n',
  'src/jsonrpc/b.ts': "import { a } from '../util/a.js';\nexport const b = a + 1;\n",
  'src/server/c.ts': "import { b } from '../jsonrpc/b.js';\nimport type { T } from '../transport/types.js';\nexport const c: T = b;\n",
  'src/transport/types.ts': 'export type T = number;\n',
};

describe('import boundaries (STYLE.md section 1)', () => {
  it('a tree that follows the layers passes', () => {
    const r = cruise(clean);
    assert.equal(r.status, 0, r.output);
  });

  it('fails when a lower layer (jsonrpc) imports a higher one (server)', () => {
    const r = cruise({ ...clean, 'src/jsonrpc/b.ts': "import { c } from '../server/c.js';\nexport const b = c;\n" });
    assert.notEqual(r.status, 0);
    assert.match(r.output, /layer-jsonrpc/);
  });

  it('fails when server imports client (siblings never see each other)', () => {
    const r = cruise({ ...clean, 'src/client/d.ts': 'export const d = 1;\n', 'src/server/e.ts': "import { d } from '../client/d.js';\nexport const e = d;\n" });
    assert.notEqual(r.status, 0);
    assert.match(r.output, /layer-server/);
  });

  it('fails when server imports a concrete transport instead of transport/types', () => {
    const r = cruise({ ...clean, 'src/transport/memory.ts': 'export const m = 1;\n', 'src/server/f.ts': "import { m } from '../transport/memory.js';\nexport const f = m;\n" });
    assert.notEqual(r.status, 0);
    assert.match(r.output, /server-client-see-only-transport-types/);
  });

  it('fails on a node: import outside the edge layers', () => {
    const r = cruise({ ...clean, 'src/protocol/g.ts': "import { readFileSync } from 'node:fs';\nexport const g = readFileSync;\n" });
    assert.notEqual(r.status, 0);
    assert.match(r.output, /node-builtins-only-at-the-edges/);
  });

  it('fails on an import cycle', () => {
    const r = cruise({
      ...clean,
      'src/util/x.ts': "import { y } from './y.js';\nexport const x = () => y;\n",
      'src/util/y.ts': "import { x } from './x.js';\nexport const y = () => x;\n",
    });
    assert.notEqual(r.status, 0);
    assert.match(r.output, /no-circular/);
  });

  it('fails when a module imports its own barrel', () => {
    const r = cruise({ ...clean, 'src/util/index.ts': "export { a } from './a.js';\n", 'src/util/h.ts': "import { a } from './index.js';\nexport const h = a;\n" });
    assert.notEqual(r.status, 0);
    assert.match(r.output, /no-own-barrel/);
  });
});
