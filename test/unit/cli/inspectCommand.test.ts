// `switchboard inspect`: the server id and the config entry made from the command line, and
// the options that make no sense there refused with a clear message.
import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { UsageError } from '../../../src/cli/args.js';
import { runCommand } from '../../../src/cli/command.js';
import { command as inspect, inspectServerEntry, inspectServerId } from '../../../src/cli/commands/inspect.js';

describe('switchboard inspect: arguments', () => {
  it('derives the id from the script, the command or the host, and takes --name', () => {
    assert.equal(inspectServerId({ kind: 'stdio', command: 'node', args: ['/srv/weather-server.mjs'] }, undefined), 'weather-server');
    assert.equal(inspectServerId({ kind: 'stdio', command: 'npx', args: ['-y', '@modelcontextprotocol/server-memory'] }, undefined), 'server-memory');
    assert.equal(inspectServerId({ kind: 'stdio', command: '/usr/bin/mcp-git', args: ['--repo', '.'] }, undefined), 'mcp-git');
    assert.equal(inspectServerId({ kind: 'http', url: 'https://mcp.example.com/mcp' }, undefined), 'mcp');
    assert.equal(inspectServerId({ kind: 'stdio', command: 'x', args: [] }, 'lab'), 'lab');
  });

  it('refuses a --name that is not an id (path or markup in it)', () => {
    for (const bad of ['../etc', '<img src=x>', '', 'a'.repeat(65)]) {
      assert.throws(() => inspectServerId({ kind: 'stdio', command: 'x', args: [] }, bad), UsageError, bad);
    }
  });

  it('writes the mcpServers entry: a stdio command with its args, or a URL with its headers', () => {
    assert.deepEqual(inspectServerEntry({ kind: 'stdio', command: 'node', args: ['s.js', '--flag'] }, {}), { command: 'node', args: ['s.js', '--flag'], cwd: process.cwd() });
    assert.deepEqual(inspectServerEntry({ kind: 'http', url: 'https://h.example/mcp' }, { 'x-key': 'k' }), { url: 'https://h.example/mcp', headers: { 'x-key': 'k' } });
    assert.deepEqual(inspectServerEntry({ kind: 'http', url: 'https://h.example/mcp' }, {}), { url: 'https://h.example/mcp' });
  });

  it('refuses client-only options (--oauth, --era) and a missing server before starting anything', async () => {
    await assert.rejects(runCommand(inspect, ['--oauth', 'https://h.example/mcp']), (e: unknown) => e instanceof UsageError && e.message === 'unknown option --oauth for inspect');
    await assert.rejects(runCommand(inspect, ['--era', 'stateless', 'https://h.example/mcp']), (e: unknown) => e instanceof UsageError && e.message === 'unknown option --era for inspect');
    await assert.rejects(runCommand(inspect, []), (e: unknown) => e instanceof UsageError && /missing <server>/.test(e.message));
  });
});
