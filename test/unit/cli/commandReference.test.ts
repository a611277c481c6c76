// docs/reference/commands.md is generated from the command declarations: it must match them.
import assert from 'node:assert/strict';
import { readFileSync } from 'node:fs';
import { describe, it } from 'node:test';
import { renderReference } from '../../../src/cli/commandReference.js';
import { loadCommands } from '../../../src/cli/registry.js';

describe('docs/reference/commands.md', () => {
  it('is what npm run reference writes from src/cli/commands (run it after changing a command)', { timeout: 60_000 }, async () => {
    const committed = readFileSync(new URL('../../../docs/reference/commands.md', import.meta.url), 'utf8');
    assert.equal(committed, renderReference(await loadCommands()), 'docs/reference/commands.md is stale: run npm run reference');
  });

  it('has a section for every command the dispatcher knows, each named as registered', { timeout: 60_000 }, async () => {
    const commands = await loadCommands();
    const { COMMANDS } = await import('../../../src/cli/registry.js');
    assert.deepEqual(commands.map((c) => c.name), Object.keys(COMMANDS));
    const text = renderReference(commands);
    for (const c of commands) assert.ok(text.includes(`\n## switchboard ${c.name}\n`), c.name);
  });
});
