/**
 * Fails when a requirement in `requirements.ts` is not cited by any `verifies(id, ...)` in
 * the scenario files, or when a scenario cites an id that is not a requirement. Reads the
 * sources, so it never runs the scenarios a second time.
 *
 * @module
 */
import assert from 'node:assert/strict';
import { readdirSync, readFileSync } from 'node:fs';
import { describe, it } from 'node:test';
import { fileURLToPath } from 'node:url';
import { requirements } from './requirements.js';

const dir = fileURLToPath(new URL('.', import.meta.url));
const sources = readdirSync(dir)
  .filter((f) => f.endsWith('.e2e.test.ts'))
  .map((f) => ({ file: f, text: readFileSync(new URL(f, import.meta.url), 'utf8') }));

const cited = new Map<string, string[]>();
for (const { file, text } of sources) {
  for (const match of text.matchAll(/\bverifies\(\s*['"](MUST-\d+)['"]/g)) {
    const id = match[1] as string;
    cited.set(id, [...(cited.get(id) ?? []), file]);
  }
}

describe('e2e requirement coverage', () => {
  it('finds the scenario files', () => {
    assert.ok(sources.length >= 3, `${sources.length} scenario files`);
  });

  it('every requirement is cited by at least one verifies()', () => {
    const uncited = requirements.map((r) => r.id).filter((id) => !cited.has(id));
    assert.deepEqual(uncited, [], `uncited requirements: ${uncited.join(', ')}`);
  });

  it('every cited id is a requirement', () => {
    const known = new Set<string>(requirements.map((r) => r.id));
    const unknown = [...cited.keys()].filter((id) => !known.has(id));
    assert.deepEqual(unknown, []);
  });

  it('requirement ids are unique and carry a spec URL and a behaviour', () => {
    const ids = requirements.map((r) => r.id);
    assert.equal(new Set(ids).size, ids.length);
    for (const r of requirements) {
      assert.match(r.url, /^https:\/\/modelcontextprotocol\.io\/specification\/2026-07-28\//, r.id);
      assert.ok(r.behaviour.length > 10, r.id);
    }
  });
});
