// Merging servers from several clients into one mcpServers map, and into a switchboard.json text.
import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { parse as parseJsonc } from 'jsonc-parser';
import { addServersToConfig, configServers, mergeServers, toServerId } from '../../../../src/host/clientConfigs/merge.js';
import type { ImportedServer } from '../../../../src/host/clientConfigs/types.js';

const server = (id: string, command: string, notes: string[] = []): ImportedServer => ({ id, entry: { command }, notes });

describe('mergeServers', () => {
  it('keeps an identical duplicate once and suffixes a different one, noting both', () => {
    const { added, notes } = mergeServers({}, [
      { source: 'cursor', server: server('fs', 'fs-mcp') },
      { source: 'vscode', server: server('fs', 'fs-mcp') },
      { source: 'codex', server: server('fs', 'other-fs') },
      { source: 'zed', server: server('fs', 'other-fs') },
    ]);
    assert.deepEqual(added, { fs: { command: 'fs-mcp' }, 'fs-2': { command: 'other-fs' } });
    assert.deepEqual(notes, [
      '"fs" (vscode): identical to the "fs" already merged; kept once',
      '"fs" (codex): a different "fs" is already there; added as "fs-2"',
      '"fs" (zed): identical to "fs-2" already merged; kept once',
    ]);
  });

  it('suffixes past ids already in the config and leaves the config’s entries alone', () => {
    const { added } = mergeServers({ fs: { command: 'x' }, 'fs-2': { command: 'y' } }, [{ source: 'cursor', server: server('fs', 'z') }]);
    assert.deepEqual(added, { 'fs-3': { command: 'z' } });
  });

  it('makes ids fit Switchboard’s rule and says so', () => {
    assert.equal(toServerId('local tools'), 'local-tools');
    assert.equal(toServerId('github.com/org/repo'), 'github-com-org-repo');
    assert.equal(toServerId('x'.repeat(40)), 'x'.repeat(32));
    assert.equal(toServerId('***'), 'server');
    const { added, notes } = mergeServers({}, [{ source: 'codex', server: server('local tools', 't', ['option "a" has no Switchboard equivalent; not carried over']) }]);
    assert.deepEqual(Object.keys(added), ['local-tools']);
    assert.deepEqual(notes, ['"local tools" (codex): option "a" has no Switchboard equivalent; not carried over', '"local tools" (codex): renamed to "local-tools" (ids are letters, digits, _ and -, at most 32)']);
  });

  it('prototype pollution: a server named __proto__ is an own entry and changes no prototype', () => {
    const { added } = mergeServers({}, [{ source: 'cursor', server: server('__proto__', 'evil') }]);
    assert.ok(Object.hasOwn(added, '__proto__'));
    assert.equal(Object.getPrototypeOf(added), Object.prototype);
    assert.deepEqual(JSON.parse(addServersToConfig(undefined, 'switchboard.json', added)), JSON.parse('{"mcpServers":{"__proto__":{"command":"evil"}}}'));
    assert.equal(({} as Record<string, unknown>)['command'], undefined);
  });

  it('never imports the gateway entry itself (a loop through Switchboard)', () => {
    const gateway: ImportedServer = { id: 'switchboard', entry: { command: '/usr/bin/node', args: ['/x/dist/cli/main.js', 'gateway', '--stdio'] }, notes: [] };
    const { added, notes } = mergeServers({}, [{ source: 'cursor', server: gateway }]);
    assert.deepEqual(added, {});
    assert.match(notes[0] ?? '', /gateway itself; skipped/);
  });
});

describe('addServersToConfig', () => {
  it('creates a config when there is none', () => {
    const text = addServersToConfig(undefined, 'switchboard.json', { a: { command: 'a' } });
    assert.deepEqual(JSON.parse(text), { mcpServers: { a: { command: 'a' } } });
  });

  it('adds to an existing config keeping its comments, entries and other sections', () => {
    const before = '{\n  // mine\n  "mcpServers": {\n    "old": { "command": "o" }\n  },\n  "switchboard": { "exposure": "search" }\n}\n';
    const after = addServersToConfig(before, 'switchboard.json', { new: { url: 'https://n.example/mcp', type: 'http' } });
    assert.ok(after.includes('// mine'));
    assert.deepEqual(parseJsonc(after), { mcpServers: { old: { command: 'o' }, new: { url: 'https://n.example/mcp', type: 'http' } }, switchboard: { exposure: 'search' } });
    assert.deepEqual(Object.keys(configServers(after, 'switchboard.json')), ['old', 'new']);
  });
});
