// Writes docs/reference/commands.md from the command declarations (src/cli/commands/*.ts) and
// docs/reference/config.md from the config's JSON Schema. Run with `npm run reference` (tsx);
// test/unit/cli/commandReference.test.ts and test/contract/configReference.test.ts fail when a
// committed file differs from what this writes.
import { readFileSync, writeFileSync } from 'node:fs';
import { renderReference } from '../src/cli/commandReference.js';
import { loadCommands } from '../src/cli/registry.js';
import { renderConfigReference, type SchemaNode } from './lib/configReference.js';

const commands = new URL('../docs/reference/commands.md', import.meta.url);
writeFileSync(commands, renderReference(await loadCommands()));
console.log(`wrote ${commands.pathname}`);
const schema = JSON.parse(readFileSync(new URL('../schemas/switchboard.config.schema.json', import.meta.url), 'utf8')) as SchemaNode;
const config = new URL('../docs/reference/config.md', import.meta.url);
writeFileSync(config, renderConfigReference(schema));
console.log(`wrote ${config.pathname}`);
