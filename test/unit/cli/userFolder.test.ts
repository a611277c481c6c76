// The per-user folder (issue #31, #33): the default state folder lives outside the working folder
// servers are given, one per config file, and commands about the running gateway find its config
// without --config. Never the real user's folders: XDG_CONFIG_HOME points into a temp folder.
import assert from 'node:assert/strict';
import { mkdir, mkdtemp, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { after, before, describe, it } from 'node:test';
import { parseConfig } from '../../../src/host/config.js';
import { configFileOption, recordRunningGateway, userFolder, userStateDir } from '../../../src/cli/userFolder.js';
import { configParseOptions } from '../../../src/cli/hostSetup.js';

const T = { timeout: 10_000 };

describe('userFolder', () => {
  let root: string;
  const saved = { xdg: process.env['XDG_CONFIG_HOME'], cwd: process.cwd() };
  before(async () => {
    root = await mkdtemp(join(tmpdir(), 'sb-user-folder-'));
    process.env['XDG_CONFIG_HOME'] = join(root, 'xdg');
  });
  after(async () => {
    process.chdir(saved.cwd);
    if (saved.xdg === undefined) delete process.env['XDG_CONFIG_HOME'];
    else process.env['XDG_CONFIG_HOME'] = saved.xdg;
    await rm(root, { recursive: true, force: true });
  });

  it('platforms: XDG_CONFIG_HOME, ~/.config, ~/Library/Application Support, %APPDATA%', T, () => {
    assert.equal(userFolder({ XDG_CONFIG_HOME: '/x' }, 'linux', '/home/u'), '/x/switchboard');
    assert.equal(userFolder({}, 'linux', '/home/u'), '/home/u/.config/switchboard');
    assert.equal(userFolder({ XDG_CONFIG_HOME: 'relative' }, 'linux', '/home/u'), '/home/u/.config/switchboard', 'a relative XDG_CONFIG_HOME is ignored (the XDG spec)');
    assert.equal(userFolder({}, 'darwin', '/Users/u'), '/Users/u/Library/Application Support/switchboard');
    assert.match(userFolder({ APPDATA: 'C:\\Users\\u\\AppData\\Roaming' }, 'win32', 'C:\\Users\\u'), /AppData.Roaming.switchboard$/);
  });

  it('default state: outside the config\'s folder, under the per-user folder, one per config file', T, () => {
    const a = userStateDir(join(root, 'proj-a', 'switchboard.json'));
    const b = userStateDir(join(root, 'proj-b', 'switchboard.json'));
    assert.ok(a.startsWith(join(root, 'xdg', 'switchboard', 'state', 'proj-a-')), a);
    assert.notEqual(a, b);
    assert.equal(userStateDir(join(root, 'proj-a', 'switchboard.json')), a, 'stable for one config');
    const config = parseConfig('{}', configParseOptions(join(root, 'proj-a', 'switchboard.json')));
    assert.equal(config.stateDir, a);
    const explicit = parseConfig('{"switchboard":{"stateDir":"state"}}', configParseOptions(join(root, 'proj-a', 'switchboard.json')));
    assert.equal(explicit.stateDir, join(root, 'proj-a', 'state'), 'stateDir still configurable');
  });

  it('which config: --config, else ./switchboard.json, else the running gateway\'s (for commands about it), else the per-user one', T, async () => {
    const here = join(root, 'here');
    const project = join(root, 'project');
    await mkdir(here, { recursive: true });
    await mkdir(project, { recursive: true });
    process.chdir(here);
    assert.equal(await configFileOption('x.json', true), join(here, 'x.json'));
    assert.equal(await configFileOption(undefined, true), join(here, 'switchboard.json'), 'nothing anywhere: ./switchboard.json (reported missing)');
    await mkdir(userFolder(), { recursive: true });
    await writeFile(join(userFolder(), 'switchboard.json'), '{}');
    assert.equal(await configFileOption(undefined, true), join(userFolder(), 'switchboard.json'));
    await writeFile(join(project, 'switchboard.json'), '{}');
    await recordRunningGateway(join(project, 'switchboard.json'), join(project, 'state'));
    assert.equal(await configFileOption(undefined, true), join(project, 'switchboard.json'), 'after npm start: the running gateway\'s config');
    assert.equal(await configFileOption(undefined, false), join(userFolder(), 'switchboard.json'), 'the gateway itself does not follow the record');
    await writeFile(join(here, 'switchboard.json'), '{}');
    assert.equal(await configFileOption(undefined, true), join(here, 'switchboard.json'));
  });
});
