/**
 * Every JSDoc `@example` in src/ is a copy of code in a type-checked `*.examples.ts` file of
 * the same folder (STYLE.md section 7), so an example cannot drift from the API it shows: the
 * typecheck compiles the examples files, and this test fails when a JSDoc copy differs.
 * Compared line by line with indentation and blank lines ignored.
 */
import assert from 'node:assert/strict';
import { readdirSync, readFileSync } from 'node:fs';
import { dirname, join, resolve } from 'node:path';
import { describe, it } from 'node:test';

const root = resolve(import.meta.dirname, '../..');

/** The code of each `@example` fence (```ts … ```) in a file's JSDoc comments, one string per block. */
function jsdocExamples(source: string): string[] {
  const blocks: string[] = [];
  const lines = source.split('\n');
  for (let i = 0; i < lines.length; i++) {
    if (!/^\s*\*\s*@example\b/.test(lines[i] as string)) continue;
    let j = i + 1;
    while (j < lines.length && !/^\s*\*\s*```/.test(lines[j] as string)) j++;
    const body: string[] = [];
    for (j++; j < lines.length && !/^\s*\*\s*```/.test(lines[j] as string) && !/\*\//.test(lines[j] as string); j++) {
      body.push((lines[j] as string).replace(/^\s*\* ?/, ''));
    }
    blocks.push(normalize(body.join('\n')));
    i = j;
  }
  return blocks;
}

/** Trimmed, non-blank lines. */
function normalize(code: string): string {
  return code
    .split('\n')
    .map((line) => line.trim())
    .filter((line) => line !== '')
    .join('\n');
}

/** The `@example` blocks of `files` (path → text) not found in an `*.examples.ts` of their folder. */
function driftedExamples(files: ReadonlyMap<string, string>): string[] {
  const examples = new Map<string, string[]>();
  for (const [path, text] of files) {
    if (!path.endsWith('.examples.ts')) continue;
    const folder = dirname(path);
    examples.set(folder, [...(examples.get(folder) ?? []), normalize(text)]);
  }
  const drifted: string[] = [];
  for (const [path, text] of files) {
    if (path.endsWith('.examples.ts')) continue;
    for (const block of jsdocExamples(text)) {
      const lines = block.split('\n');
      const found = (examples.get(dirname(path)) ?? []).some((file) => containsLines(file.split('\n'), lines));
      if (!found) drifted.push(`${path}: ${lines[0] ?? '(empty example)'}`);
    }
  }
  return drifted;
}

/** Whether `needle` occurs as consecutive whole lines of `haystack`. */
function containsLines(haystack: readonly string[], needle: readonly string[]): boolean {
  if (needle.length === 0) return false;
  for (let i = 0; i + needle.length <= haystack.length; i++) {
    if (needle.every((line, k) => haystack[i + k] === line)) return true;
  }
  return false;
}

function sourceFiles(): Map<string, string> {
  const files = new Map<string, string>();
  for (const entry of readdirSync(join(root, 'src'), { recursive: true })) {
    const path = join('src', String(entry));
    if (path.endsWith('.ts')) files.set(path, readFileSync(join(root, path), 'utf8'));
  }
  return files;
}

describe('contract/jsdocExamples', () => {
  it('finds every JSDoc @example of src/ in a type-checked examples file of its folder', () => {
    const files = sourceFiles();
    const total = [...files.entries()].filter(([path]) => !path.endsWith('.examples.ts')).reduce((n, [, text]) => n + jsdocExamples(text).length, 0);
    assert.ok(total > 0, 'no @example found in src/: the extractor is broken');
    assert.ok(total >= 15, `only ${total} @example blocks found`);
    assert.deepEqual(driftedExamples(files), [], '@example blocks without a matching *.examples.ts in their folder');
  });

  it('reports an example whose JSDoc copy drifted, or whose examples file is in another folder', () => {
    const doc = ['/**', ' * Adds.', ' *', ' * @example', ' * ```ts', ' * add(1,', ' *   2);', ' * ```', ' */', 'export function add() {}'].join('\n');
    const good = 'export function ex(): void {\n    add(1,\n      2);\n}\n';
    assert.deepEqual(driftedExamples(new Map([['src/a/add.ts', doc], ['src/a/add.examples.ts', good]])), []);
    assert.deepEqual(driftedExamples(new Map([['src/a/add.ts', doc], ['src/a/add.examples.ts', good.replace('2)', '3)')]])), ['src/a/add.ts: add(1,']);
    assert.deepEqual(driftedExamples(new Map([['src/a/add.ts', doc], ['src/b/add.examples.ts', good]])), ['src/a/add.ts: add(1,']);
    // A partial line does not count: the whole line must match.
    assert.deepEqual(driftedExamples(new Map([['src/a/add.ts', doc], ['src/a/add.examples.ts', 'x; add(1,\n2);']])), ['src/a/add.ts: add(1,']);
  });
});
