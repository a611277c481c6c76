import assert from 'node:assert/strict';
import { readFileSync } from 'node:fs';
import { describe, it } from 'node:test';
import { parseConfig } from '../../../src/host/config.js';
import { compileJsonSchema } from '../../../src/protocol/jsonSchema.js';
import { badSemanticConfigs, badShapeConfigs, goodConfigs } from '../../fixtures/host/configFixtures.js';

const schema = JSON.parse(readFileSync(new URL('../../../schemas/switchboard.config.schema.json', import.meta.url), 'utf8')) as Record<string, unknown>;
const compiled = compileJsonSchema(schema);

async function schemaAccepts(config: unknown): Promise<boolean> {
  await compiled.ready;
  return (await compiled.validate(config)).ok;
}

function parserAccepts(config: unknown): boolean {
  try {
    parseConfig(JSON.stringify(config), { file: '/cfg/switchboard.json', env: {} });
    return true;
  } catch {
    return false;
  }
}

describe('schemas/switchboard.config.schema.json', () => {
  it('is draft 2020-12 and describes the switchboard section and every server key', () => {
    assert.equal(schema['$schema'], 'https://json-schema.org/draft/2020-12/schema');
    const defs = schema['$defs'] as Record<string, { properties?: Record<string, { description?: string }> }>;
    for (const key of ['namespacing', 'separator', 'exposure', 'stateDir', 'store', 'cache', 'gateway', 'approvedLaunches', 'servers', 'roots', 'guards', 'sanitize', 'redact']) {
      assert.ok(defs['switchboard']?.properties?.[key]?.description, `switchboard.${key} has a description`);
    }
  });

  for (const fixture of goodConfigs) {
    it(`accepts, as parseConfig does: ${fixture.name}`, async () => {
      assert.equal(parserAccepts(fixture.config), true);
      assert.equal(await schemaAccepts(fixture.config), true);
    });
  }

  for (const fixture of badShapeConfigs) {
    it(`refuses, as parseConfig does: ${fixture.name}`, async () => {
      assert.equal(parserAccepts(fixture.config), false);
      assert.equal(await schemaAccepts(fixture.config), false);
    });
  }

  // The schema checks shape only; these are the loader's documented extra checks.
  for (const fixture of badSemanticConfigs) {
    it(`shape-valid, refused only by the loader: ${fixture.name}`, async () => {
      assert.equal(await schemaAccepts(fixture.config), true);
      assert.equal(parserAccepts(fixture.config), false);
    });
  }
});
