/**
 * No committed file cites a path outside the repository: not the team's shared folder, not a
 * machine path, not the specification repository's files. Comments cite spec URLs
 * (https://modelcontextprotocol.io/specification/<rev>/...) or paths inside this repository.
 */
import assert from 'node:assert/strict';
import { readdirSync, readFileSync, statSync } from 'node:fs';
import { join, resolve } from 'node:path';
import { describe, it } from 'node:test';

const root = resolve(import.meta.dirname, '../..');

/** Folders and files scanned (relative to the repository root). */
const SCANNED = ['src', 'test', 'bench', 'scripts', 'examples', 'docs', 'README.md', 'package.json', 'eslint.config.js', '.dependency-cruiser.cjs'];
/** Generated or installed folders inside the scanned ones. */
const SKIPPED = /(^|\/)(node_modules|\.out|results)(\/|$)/;

/** Each forbidden citation, with what to write instead. */
const FORBIDDEN: readonly { readonly pattern: RegExp; readonly instead: string }[] = [
  { pattern: /\.\.\/shared\b/, instead: 'a repository path or a public URL' },
  { pattern: /\/work\//, instead: 'a repository path' },
  { pattern: /docs\/specification\//, instead: 'https://modelcontextprotocol.io/specification/<rev>/...' },
  { pattern: /\bschema\/(?:\d{4}-\d{2}-\d{2}|draft)\/schema\.(?:ts|json)\b/, instead: 'https://modelcontextprotocol.io/specification/<rev>/schema' },
];

/** The forbidden citations in one file's text, as `line: match` strings. */
function citationsIn(text: string): string[] {
  const found: string[] = [];
  text.split('\n').forEach((line, i) => {
    for (const { pattern, instead } of FORBIDDEN) {
      const m = pattern.exec(line);
      if (m !== null) found.push(`${i + 1}: ${m[0]} (cite ${instead})`);
    }
  });
  return found;
}

function files(path: string): string[] {
  const full = join(root, path);
  if (!statSync(full).isDirectory()) return [path];
  return readdirSync(full, { recursive: true })
    .map((entry) => join(path, String(entry)))
    .filter((p) => !SKIPPED.test(p) && statSync(join(root, p)).isFile());
}

describe('contract/citations', () => {
  it('finds no citation of a path outside the repository in src, test, bench, scripts, examples, docs', () => {
    const scanned = SCANNED.flatMap(files);
    assert.ok(scanned.length > 100, `only ${scanned.length} files scanned`);
    const found = scanned.flatMap((path) => citationsIn(readFileSync(join(root, path), 'utf8')).map((hit) => `${path}:${hit}`));
    assert.deepEqual(found, []);
  });

  it('catches each forbidden form and lets spec URLs and repository paths through', () => {
    // Spelled with `${s}` so this file does not cite them itself.
    const s = '/';
    const outside = [`see ..${s}shared/STYLE.md`, `at ${s}work/main/src`, `git show HEAD:docs${s}specification/2025-11-25/basic/index.mdx`, `from schema${s}2025-11-25/schema.ts`];
    for (const line of outside) assert.equal(citationsIn(line).length, 1, line);
    const fine = ['https://modelcontextprotocol.io/specification/2025-11-25/basic/transports', 'see src/protocol/model/tool.ts', 'the JSON schema of 2025-11-25'];
    for (const line of fine) assert.deepEqual(citationsIn(line), [], line);
  });
});
