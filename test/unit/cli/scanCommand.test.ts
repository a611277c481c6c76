// `switchboard scan`: --tools FILE (no server run), formats, --fail-on, and configured servers over stdio.
import assert from 'node:assert/strict';
import { mkdtemp, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { after, before, describe, it } from 'node:test';
import { fixtureCommand } from '../../fixtures/attacks/serve.js';
import { poisonedTool } from '../../fixtures/attacks/poisonedTool.js';
import { cli } from './cliProcess.js';

describe('cli: switchboard scan', () => {
  let dir: string;
  before(async () => {
    dir = await mkdtemp(join(tmpdir(), 'switchboard-scan-cli-'));
    await writeFile(join(dir, 'poisoned.json'), JSON.stringify({ jsonrpc: '2.0', id: 1, result: { tools: poisonedTool.tools } }));
    await writeFile(join(dir, 'clean.json'), JSON.stringify([{ name: 'add', description: 'Adds two numbers.', inputSchema: { type: 'object' } }, { name: 'shout', description: 'Uppercases text. <IMPORTANT>Keep it short.</IMPORTANT>', inputSchema: { type: 'object' } }]));
    await writeFile(join(dir, 'bad.json'), '{"nope": 1}');
  });
  after(() => rm(dir, { recursive: true, force: true }));

  it('--tools on a poisoned tools/list response exits 1 and names the blocked tool and rules', async () => {
    const out = await cli(['scan', '--tools', join(dir, 'poisoned.json')]);
    assert.equal(out.code, 1);
    assert.match(out.stdout, /BLOCK {2}tool poisoned\.json\/sum/);
    assert.match(out.stdout, /combination\/hidden-harm/);
    assert.match(out.stdout, /2 items scanned: 1 blocked, 0 with warnings, 1 clean/);
  });

  it('--tools on clean definitions exits 0 by default; --fail-on high fails on the warning', async () => {
    assert.equal((await cli(['scan', '--tools', join(dir, 'clean.json')])).code, 0);
    assert.equal((await cli(['scan', '--tools', join(dir, 'clean.json'), '--fail-on', 'high'])).code, 1);
    assert.equal((await cli(['scan', '--tools', join(dir, 'poisoned.json'), '--fail-on', 'never'])).code, 0);
  });

  it('--format json and sarif print machine-readable reports', async () => {
    const json = JSON.parse((await cli(['scan', '--tools', join(dir, 'poisoned.json'), '--format', 'json'])).stdout) as { counts: { block: number } };
    assert.equal(json.counts.block, 1);
    const sarif = JSON.parse((await cli(['scan', '--tools', join(dir, 'poisoned.json'), '--format', 'sarif'])).stdout) as { version: string; runs: { results: unknown[] }[] };
    assert.equal(sarif.version, '2.1.0');
    assert.ok((sarif.runs[0]?.results.length ?? 0) > 0);
  });

  it('rejects a file with no definitions and an unknown --format or --fail-on', async () => {
    const bad = await cli(['scan', '--tools', join(dir, 'bad.json')]);
    assert.equal(bad.code, 1);
    assert.match(bad.stderr, /holds no tool definitions/);
    assert.equal((await cli(['scan', '--tools', join(dir, 'clean.json'), '--format', 'xml'])).code, 2);
    assert.equal((await cli(['scan', '--tools', join(dir, 'clean.json'), '--fail-on', 'severe'])).code, 2);
  });

  it('scans the servers of a config (launch consent with --yes) and exits 1 on the poisoned one', async () => {
    const { command, args } = fixtureCommand('poisonedTool.ts');
    const config = join(dir, 'switchboard.json');
    await writeFile(config, JSON.stringify({ mcpServers: { calc: { command, args } } }));
    const out = await cli(['scan', config, '--yes', '--format', 'json']);
    assert.equal(out.code, 1, out.stderr);
    const report = JSON.parse(out.stdout) as { items: { server: string; item: string; verdict: string }[] };
    assert.deepEqual(report.items.map((i) => `${i.server}/${i.item}:${i.verdict}`), ['calc/sum:block', 'calc/difference:pass']);
  });

  it('without consent a stdio server is not started and the report says so', async () => {
    const { command, args } = fixtureCommand('poisonedTool.ts');
    // Its own folder, so no approval recorded by the test above applies.
    const other = await mkdtemp(join(dir, 'unapproved-'));
    const config = join(other, 'switchboard.json');
    await writeFile(config, JSON.stringify({ mcpServers: { calc: { command, args } } }));
    const out = await cli(['scan', config]);
    assert.equal(out.code, 0);
    assert.match(out.stdout, /NOT SCANNED {2}calc:/);
  });
});
