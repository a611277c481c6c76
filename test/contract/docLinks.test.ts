// Every relative link in the README and docs/ points at a file that exists and, with a `#fragment`,
// at a heading of that file (GitHub's anchor rule: lower case, punctuation dropped, spaces to `-`).
// Docs move (the README's reference moved under docs/); a link left behind fails here.
import assert from 'node:assert/strict';
import { existsSync, readdirSync, readFileSync } from 'node:fs';
import { dirname, join, normalize } from 'node:path';
import { describe, it } from 'node:test';

const root = new URL('../..', import.meta.url).pathname;
const files = ['README.md', ...readdirSync(join(root, 'docs'), { recursive: true }).map(String).filter((f) => f.endsWith('.md')).map((f) => join('docs', f))];

/** The anchors GitHub makes for a Markdown file's headings. */
function anchorsOf(file: string): Set<string> {
  const out = new Set<string>();
  for (const line of readFileSync(join(root, file), 'utf8').replace(/```[\s\S]*?```/g, '').split('\n')) {
    const m = /^#{1,6} (.*)$/.exec(line);
    if (m !== null) out.add((m[1] as string).trim().toLowerCase().replace(/[^\p{L}\p{N}\- _]/gu, '').replace(/ /g, '-'));
  }
  return out;
}

describe('docs: relative links', () => {
  it('every relative link in README.md and docs/ resolves to a file and a heading', { timeout: 30_000 }, () => {
    const broken: string[] = [];
    for (const file of files) {
      const text = readFileSync(join(root, file), 'utf8').replace(/```[\s\S]*?```/g, '');
      for (const m of text.matchAll(/\]\(([^)\s]+)\)/g)) {
        const link = m[1] as string;
        if (/^[a-z]+:/.test(link)) continue;
        const [path, fragment] = link.split('#', 2) as [string, string | undefined];
        const target = path === '' ? file : normalize(join(dirname(file), path));
        if (!existsSync(join(root, target))) broken.push(`${file}: ${link} (no such file)`);
        else if (fragment !== undefined && target.endsWith('.md') && !anchorsOf(target).has(fragment)) broken.push(`${file}: ${link} (no such heading)`);
      }
    }
    assert.ok(files.length > 10);
    assert.deepEqual(broken, []);
  });
});
