#!/usr/bin/env node
// Runs every test/**/*.test.ts with Node's own test runner, TypeScript loaded through tsx.
// Usage: node scripts/runTests.mjs [path-prefix ...]   (defaults to all of test/)
import { spawnSync } from 'node:child_process';
import { mkdtempSync, readdirSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join, relative } from 'node:path';

const root = new URL('..', import.meta.url).pathname;
const prefixes = process.argv.slice(2);
const files = readdirSync(join(root, 'test'), { recursive: true })
  .map((f) => join('test', String(f)))
  .filter((f) => f.endsWith('.test.ts'))
  .filter((f) => prefixes.length === 0 || prefixes.some((p) => f.startsWith(relative(root, join(root, p)))))
  .sort();
if (files.length === 0) {
  console.error('no test files matched');
  process.exit(1);
}
// Tests never write to the real user's per-user folders: the per-user config folder (a gateway records itself
// there) and the state stores' anchor folder (outside the state folder) are temporary ones (a test that needs its
// own anchor folder passes SWITCHBOARD_ANCHOR_DIR itself).
const userConfig = mkdtempSync(join(tmpdir(), 'sb-test-user-'));
const anchorDir = process.env.SWITCHBOARD_ANCHOR_DIR ? undefined : mkdtempSync(join(tmpdir(), 'sb-anchor-'));
const result = spawnSync(
  process.execPath,
  ['--import', 'tsx', '--test', '--test-concurrency=2', '--test-reporter=spec', ...files],
  {
    cwd: root,
    stdio: 'inherit',
    env: { ...process.env, NODE_OPTIONS: '', XDG_CONFIG_HOME: userConfig, APPDATA: userConfig, ...(anchorDir !== undefined ? { SWITCHBOARD_ANCHOR_DIR: anchorDir } : {}) },
  },
);
rmSync(userConfig, { recursive: true, force: true });
if (anchorDir !== undefined) rmSync(anchorDir, { recursive: true, force: true });
process.exit(result.status ?? 1);
