#!/usr/bin/env node
// Runs every examples/*.ts (after `npm run build`) and fails when one exits non-zero or hangs.
import { spawnSync } from 'node:child_process';
import { readdirSync } from 'node:fs';
import { join } from 'node:path';

const root = new URL('..', import.meta.url).pathname;
const examples = readdirSync(join(root, 'examples')).filter((f) => f.endsWith('.ts')).sort();
let failed = 0;
for (const file of examples) {
  const started = Date.now();
  const r = spawnSync(process.execPath, ['--import', 'tsx', join('examples', file)], { cwd: root, encoding: 'utf8', timeout: 60_000 });
  const ok = r.status === 0;
  if (!ok) failed++;
  console.log(`${ok ? '✔' : '✖'} examples/${file} (${Date.now() - started} ms)`);
  if (!ok) console.log(r.stdout, r.stderr, r.error ?? '');
}
console.log(`${examples.length - failed} passed, ${failed} failed`);
process.exit(failed === 0 ? 0 : 1);
