// `switchboard scan`: --tools FILE (no server run), formats, --fail-on, and configured servers over stdio.
import assert from 'node:assert/strict';
import { chmod, mkdir, mkdtemp, readFile, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath, pathToFileURL } from 'node:url';
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

  it('rug pull between scans: the first scan pins, a definition changed since exits 1 with its classified diff until a person approves it', async () => {
    const { command, args } = fixtureCommand('rugPullServer.ts');
    const folder = await mkdtemp(join(dir, 'pins-'));
    const config = join(folder, 'switchboard.json');
    // The variable's value changes between runs, not its name: the server's identity (and so its pins) stays.
    const write = (variant: string): Promise<void> => writeFile(config, JSON.stringify({ mcpServers: { weather: { command, args, env: { WEATHER_VARIANT: variant } } } }));
    await write('original');
    const first = await cli(['scan', config, '--yes']);
    assert.equal(first.code, 0, first.stdout + first.stderr);
    assert.doesNotMatch(first.stdout, /pins:/);
    assert.match((await cli(['pins', 'list', '--config', config])).stdout, /tool:get_weather {2}first-use/, 'pinned on first sight, in the gateway\'s store');

    await write('celsius'); // an honest text change: only the pins see it
    const changed = await cli(['scan', config, '--yes']);
    assert.equal(changed.code, 1, changed.stdout + changed.stderr);
    assert.match(changed.stdout, /CHANGED {2}tool weather\/get_weather {2}\(pins: a pinned definition changed since it was approved\)/);
    assert.match(changed.stdout, /\[text-changed\] description changed: "Gets the weather for a city\." → "Gets the weather for a city, in degrees Celsius\."/);
    assert.match(changed.stdout, /review: switchboard pins diff weather tool:get_weather, then switchboard pins approve \(or reject\) weather tool:get_weather/);
    assert.match(changed.stdout, /3 items scanned: 0 blocked, 0 with warnings, 3 clean\n1 pinned definition differs from its pin/);

    const again = await cli(['scan', config, '--yes', '--format', 'json']);
    assert.equal(again.code, 1, 'still pending: scanning twice does not clear a change');
    const json = JSON.parse(again.stdout) as { pins: { server: string; key: string; status: string; changes: { class: string }[] }[] };
    assert.deepEqual(json.pins.map((p) => [p.server, p.key, p.status, p.changes.map((c) => c.class)]), [['weather', 'tool:get_weather', 'changed', ['text-changed']]]);
    const sarif = JSON.parse((await cli(['scan', config, '--yes', '--format', 'sarif'])).stdout) as { runs: { results: { ruleId: string; level: string }[] }[] };
    assert.deepEqual(sarif.runs[0]?.results.map((r) => [r.ruleId, r.level]), [['pins/changed', 'error']]);
    assert.equal((await cli(['scan', config, '--yes', '--fail-on', 'never'])).code, 0);

    assert.equal((await cli(['pins', 'approve', 'weather', 'tool:get_weather', '--config', config])).code, 0);
    const approved = await cli(['scan', config, '--yes']);
    assert.equal(approved.code, 0, approved.stdout);
    assert.doesNotMatch(approved.stdout, /CHANGED/);
  });

  it('rug pull between scans with a poisoned text: reported by both the pins (classified diff) and the scanner', async () => {
    const { command, args } = fixtureCommand('rugPullServer.ts');
    const folder = await mkdtemp(join(dir, 'pins-poisoned-'));
    const config = join(folder, 'switchboard.json');
    const write = (variant: string): Promise<void> => writeFile(config, JSON.stringify({ mcpServers: { weather: { command, args, env: { WEATHER_VARIANT: variant } } } }));
    await write('original');
    assert.equal((await cli(['scan', config, '--yes'])).code, 0);
    await write('poisoned');
    const out = await cli(['scan', config, '--yes']);
    assert.equal(out.code, 1);
    assert.match(out.stdout, /BLOCK {2}tool weather\/get_weather/);
    assert.match(out.stdout, /CHANGED {2}tool weather\/get_weather/);
    assert.match(out.stdout, /\[parameter-added\] parameter notes added/);
  });

  it('store corrupted: a pin store that cannot be read stops the scan before any server starts (fail closed)', async () => {
    const { command, args } = fixtureCommand('rugPullServer.ts');
    const folder = await mkdtemp(join(dir, 'pins-broken-'));
    const config = join(folder, 'switchboard.json');
    await writeFile(config, JSON.stringify({ mcpServers: { weather: { command, args } }, switchboard: { stateDir: '.switchboard' } }));
    await mkdir(join(folder, '.switchboard'), { recursive: true });
    await writeFile(join(folder, '.switchboard', 'pins.db'), 'garbage '.repeat(1000));
    const out = await cli(['scan', config, '--yes']);
    assert.equal(out.code, 1);
    assert.match(out.stderr, /pins\.db is damaged.*Nothing was scanned\./);
    assert.equal(out.stdout, '');
  });

  it('without consent a stdio server is not started and the report says so', async () => {
    const { command, args } = fixtureCommand('poisonedTool.ts');
    // Its own folder, so no approval recorded by the test above applies.
    const other = await mkdtemp(join(dir, 'unapproved-'));
    const config = join(other, 'switchboard.json');
    await writeFile(config, JSON.stringify({ mcpServers: { calc: { command, args } } }));
    const out = await cli(['scan', config]);
    assert.equal(out.code, 3, 'could not scan: exit 3, never a pass');
    assert.match(out.stdout, /NOT SCANNED {2}calc:/);
    // The whole message: what would run, and how to approve it (not cut after "It would run:").
    assert.match(out.stdout, /It would run:\n {4}command: ".+"\n/);
    assert.match(out.stdout, /To approve it, .*run it once with --yes/);
    assert.match(out.stdout, /0 items scanned.*\n {2}calc: NOT SCANNED/);
  });

  it('scanning nothing passes no gate: --fail-on low and --fail-on never still exit 3 when a server was not scanned', async () => {
    const { command, args } = fixtureCommand('poisonedTool.ts');
    const other = await mkdtemp(join(dir, 'unapproved-gate-'));
    const config = join(other, 'switchboard.json');
    await writeFile(config, JSON.stringify({ mcpServers: { calc: { command, args } } }));
    assert.equal((await cli(['scan', config, '--fail-on', 'low'])).code, 3);
    assert.equal((await cli(['scan', config, '--fail-on', 'never'])).code, 3);
    // Approved, the poisoned tool is scanned and the gate applies (exit 1).
    const approved = await cli(['scan', config, '--yes', '--fail-on', 'low']);
    assert.equal(approved.code, 1, approved.stdout);
    assert.match(approved.stdout, /calc: \d+ items?, [1-9]\d* blocked/);
  });
});

describe('cli: switchboard scan reports the launches\' supply-chain findings in JSON and SARIF, and --fail-on counts them', () => {
  const GITHUB = '@modelcontextprotocol/server-github';
  let dir: string;
  let npx: string;
  let launched: string;
  before(async () => {
    dir = await mkdtemp(join(tmpdir(), 'switchboard-scan-launches-'));
    // A stand-in named like the runner (the checks read the runner's base name): it logs its command line, then
    // serves a clean fixture server, so a test sees whether a launch ran at all.
    npx = join(dir, 'npx');
    launched = join(dir, 'launched.log');
    const server = fileURLToPath(new URL('../../fixtures/attacks/rugPullServer.ts', import.meta.url));
    await writeFile(npx, `#!/bin/sh\nprintf '%s\\n' "npx $*" >> ${JSON.stringify(launched)}\nexec ${JSON.stringify(process.execPath)} --import ${JSON.stringify(import.meta.resolve('tsx'))} ${JSON.stringify(server)}\n`);
    await chmod(npx, 0o755);
  });
  after(() => rm(dir, { recursive: true, force: true }));

  /** A config in a folder of its own (its state in it) with `servers` launched through the stand-in npx; its path. */
  const configOf = async (servers: Record<string, string>): Promise<string> => {
    const folder = await mkdtemp(join(dir, 'config-'));
    const file = join(folder, 'switchboard.json');
    const entries = Object.fromEntries(Object.entries(servers).map(([id, spec]) => [id, { command: npx, args: ['-y', spec] }]));
    await writeFile(file, JSON.stringify({ mcpServers: entries, switchboard: { stateDir: '.switchboard' } }));
    return file;
  };
  const launches = async (): Promise<string[]> => (await readFile(launched, 'utf8').catch(() => '')).split('\n').filter((l) => l !== '');

  interface JsonLaunch {
    readonly rule: string;
    readonly kind: string;
    readonly severity: string;
    readonly flagged: boolean;
    readonly package: string;
    readonly imitates?: string;
  }
  interface SarifResult {
    readonly ruleId: string;
    readonly ruleIndex: number;
    readonly level: string;
    readonly message: { readonly text: string };
    readonly locations: { physicalLocation: { artifactLocation: { uri: string } }; logicalLocations: { fullyQualifiedName: string }[] }[];
  }

  it('typosquat and unpinned launches, not approved: JSON lists them per server, SARIF has a supply-chain/<kind> result each at the config file; nothing was launched', async () => {
    const config = await configOf({ squat: '@modelcontextprotocol/server-githb@1.0.0', loose: GITHUB });
    const json = await cli(['scan', config, '--format', 'json']);
    assert.equal(json.code, 3, 'not approved: not scanned (a flag is not a blocking finding)');
    const report = JSON.parse(json.stdout) as { launches: Record<string, JsonLaunch[]> };
    assert.deepEqual(
      Object.fromEntries(Object.entries(report.launches).map(([server, list]) => [server, list.map((f) => [f.rule, f.kind, f.severity, f.flagged, f.package, f.imitates])])),
      {
        squat: [['supply-chain/typosquat', 'typosquat', 'high', true, '@modelcontextprotocol/server-githb@1.0.0', GITHUB]],
        loose: [['supply-chain/unpinned', 'unpinned', 'low', false, GITHUB, undefined]],
      },
    );
    const sarif = JSON.parse((await cli(['scan', config, '--format', 'sarif'])).stdout) as { runs: { tool: { driver: { rules: { id: string }[] } }; results: SarifResult[] }[] };
    const run = sarif.runs[0];
    assert.ok(run !== undefined);
    const uri = pathToFileURL(config).href;
    assert.deepEqual(
      run.results.map((r) => [r.ruleId, run.tool.driver.rules[r.ruleIndex]?.id, r.level, r.locations[0]?.physicalLocation.artifactLocation.uri, r.locations[0]?.logicalLocations[0]?.fullyQualifiedName]),
      [
        ['supply-chain/typosquat', 'supply-chain/typosquat', 'warning', uri, 'mcpServers.squat'],
        ['supply-chain/unpinned', 'supply-chain/unpinned', 'note', uri, 'mcpServers.loose'],
      ],
    );
    assert.match(run.results[0]?.message.text ?? '', /server squat: .*one edit away from the well-known "@modelcontextprotocol\/server-github"/);
    assert.deepEqual(await launches(), [], 'no launch ran without approval');
  });

  it('--fail-on counts a flag as high and an unpinned warning as low: a typosquat fails --fail-on high, an unpinned launch only --fail-on low', async () => {
    const squat = await configOf({ squat: '@modelcontextprotocol/server-githb@1.0.0' });
    assert.equal((await cli(['scan', squat, '--fail-on', 'high'])).code, 1);
    assert.equal((await cli(['scan', squat, '--fail-on', 'critical'])).code, 3, 'a flag is high, not critical: only not scanned');
    const loose = await configOf({ loose: GITHUB });
    assert.equal((await cli(['scan', loose, '--fail-on', 'medium'])).code, 3, 'unpinned is low');
    assert.equal((await cli(['scan', loose, '--fail-on', 'low', '--format', 'json'])).code, 1);
    assert.deepEqual(await launches(), [], 'no launch ran without approval');
  });

  it('an unpinned launch approved with --yes runs and is scanned: its warning is in the JSON and SARIF output, exit 0 by default and 1 with --fail-on low; a pinned one has none', async () => {
    const config = await configOf({ loose: GITHUB, pinned: `${GITHUB}@2025.4.8` });
    const before = (await launches()).length;
    const json = await cli(['scan', config, '--yes', '--format', 'json']);
    assert.equal(json.code, 0, json.stdout + json.stderr);
    assert.deepEqual((await launches()).slice(before).sort(), [`npx -y ${GITHUB}`, `npx -y ${GITHUB}@2025.4.8`], 'both launches ran (a warning stops nothing)');
    const report = JSON.parse(json.stdout) as { items: { server: string }[]; launches: Record<string, JsonLaunch[]> };
    assert.ok(report.items.some((i) => i.server === 'loose'), 'the server was scanned');
    assert.deepEqual(Object.keys(report.launches), ['loose']);
    assert.deepEqual(report.launches['loose']?.map((f) => [f.rule, f.severity]), [['supply-chain/unpinned', 'low']]);
    assert.match(json.stderr, /Launch of server "loose":\n {2}note \(unpinned\)/, 'still warned on stderr');
    const sarif = JSON.parse((await cli(['scan', config, '--yes', '--format', 'sarif'])).stdout) as { runs: { results: SarifResult[] }[] };
    assert.deepEqual(sarif.runs[0]?.results.filter((r) => r.ruleId.startsWith('supply-chain/')).map((r) => [r.ruleId, r.locations[0]?.logicalLocations[0]?.fullyQualifiedName]), [['supply-chain/unpinned', 'mcpServers.loose']]);
    const human = await cli(['scan', config, '--yes', '--fail-on', 'low']);
    assert.equal(human.code, 1, human.stdout);
    assert.match(human.stdout, /1 launch finding \(0 flagged, 1 warned\) on loose/);
  });
});
