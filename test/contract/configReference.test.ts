// docs/reference/config.md is generated from the config's JSON Schema: it must match it, and it must
// name every key the schema declares (so a key added to the loader and the schema is documented).
import assert from 'node:assert/strict';
import { readFileSync } from 'node:fs';
import { describe, it } from 'node:test';
import { renderConfigReference, type SchemaNode } from '../../scripts/lib/configReference.js';

const schema = JSON.parse(readFileSync(new URL('../../schemas/switchboard.config.schema.json', import.meta.url), 'utf8')) as SchemaNode;

describe('docs/reference/config.md', () => {
  it('is what npm run reference writes from the JSON Schema (run it after changing the schema)', { timeout: 30_000 }, () => {
    const committed = readFileSync(new URL('../../docs/reference/config.md', import.meta.url), 'utf8');
    assert.equal(committed, renderConfigReference(schema), 'docs/reference/config.md is stale: run npm run reference');
  });

  it('has a row for every key of the switchboard section and of a server entry', { timeout: 30_000 }, () => {
    const text = renderConfigReference(schema);
    const section = schema.$defs?.['switchboard']?.properties ?? {};
    assert.ok(Object.keys(section).length > 10);
    for (const key of Object.keys(section)) assert.ok(text.includes(`| \`switchboard.${key}\` |`), key);
    for (const key of ['command', 'args', 'env', 'cwd', 'url', 'headers']) assert.ok(text.includes(`| \`mcpServers.<name>.${key}\` |`), key);
  });
});
