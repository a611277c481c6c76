// Writes docs/reference/commands.md from the command declarations (src/cli/commands/*.ts).
// Run with `npm run reference` (tsx); test/unit/cli/commandReference.test.ts fails when the
// committed file differs from what this writes.
import { writeFileSync } from 'node:fs';
import { renderReference } from '../src/cli/commandReference.js';
import { loadCommands } from '../src/cli/registry.js';

const file = new URL('../docs/reference/commands.md', import.meta.url);
writeFileSync(file, renderReference(await loadCommands()));
console.log(`wrote ${file.pathname}`);
